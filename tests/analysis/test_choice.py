"""The conditional-logit maths of `sim calibrate`, on synthetic choices (no engine): the fit
against statsmodels, merged alternatives, many-row alternatives, what cannot be fitted, and
the scale, intervals and held-out scores built on it."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.discrete.conditional_models import ConditionalLogit

from sim.analysis.choice import (
    build_choices,
    decision_scores,
    evaluate,
    fit_logit,
    fit_scale,
    loglik,
    players_differ,
)
from sim.analysis.choice_scale import (
    POINTS_SCALE,
    UTILITY_SCALE,
    Model,
    fieller,
    heldout_table,
    seat_spec,
    temperature_interval,
    weight_table,
)

FEATURES = ("own_points", "b", "c")


def synthetic(theta, decisions=2000, seed=0, games=100, player=0, dup=False):
    """Logit choices with known utilities: 2-12 alternatives each, features ~ N(0, 1) (a
    third of the rows of `dup` decisions repeated, to exercise merging)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(decisions):
        n = int(rng.integers(2, 13))
        x = rng.normal(size=(n, len(theta)))
        if dup:
            x = np.concatenate([x, x[: n // 3]])
        u = x @ theta
        p = np.exp(u - u.max())
        pick = int(rng.choice(len(x), p=p / p.sum()))
        rows.append((x, np.arange(len(x)), x[:, 0], pick, d * games // decisions, player, "play"))
    return rows


def test_the_fit_is_statsmodels_conditional_logit():
    """Same utilities and (model) standard errors as statsmodels' ConditionalLogit with one
    chosen row per decision group, McFadden's conditional logit."""
    rows = synthetic(np.array([1.0, -0.5, 0.3]), decisions=600)
    c = build_choices(rows, FEATURES)
    fit = fit_logit(c)
    x = np.concatenate([r[0] for r in rows])
    y = np.concatenate([np.eye(len(r[0]))[r[3]] for r in rows])
    groups = np.concatenate([np.full(len(r[0]), d) for d, r in enumerate(rows)])
    # > ConditionalLogit(y, x, groups=groups).fit(method="newton")
    reference = ConditionalLogit(y, x, groups=groups).fit(disp=0, method="newton")
    assert fit.converged
    np.testing.assert_allclose(fit.theta, reference.params, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.cov_model)), reference.bse, rtol=1e-5)
    assert fit.loglik == pytest.approx(reference.llf, abs=1e-6)


def test_equal_alternatives_merge_without_changing_the_fit():
    """Repeated alternatives become one with a count: the likelihood is that of the
    unmerged decisions (a duplicate weighs as two actions), and so is top-1 matching."""
    theta = np.array([0.8, 0.4, -0.6])
    rows = synthetic(theta, decisions=300, dup=True)
    c = build_choices(rows, FEATURES)
    assert len(c.alt_dec) < sum(len(r[0]) for r in rows)  # merged
    by_hand = 0.0
    for x, _, _, pick, *_ in rows:
        u = x @ theta
        by_hand += u[pick] - np.log(np.exp(u).sum())
    assert loglik(c, theta) == pytest.approx(by_hand, rel=1e-10)
    _, hit = decision_scores(c, c.x @ theta)
    expect = []
    for x, _, _, pick, *_ in rows:
        u = x @ theta
        best = np.flatnonzero(u == u.max())  # a repeated row ties with its copy
        expect.append(1 / len(best) if pick in best else 0.0)
    np.testing.assert_allclose(hit, expect)


def test_an_alternative_worth_its_best_row():
    """An alternative with several rows is worth the best of them (the heuristic's
    sleeping-cat action, valued at its best placement); the gradient is that of the best
    row, checked against finite differences."""
    rng = np.random.default_rng(3)
    rows = []
    for d in range(200):
        x = rng.normal(size=(6, 3))  # rows 0-1: alternatives 0, 1; rows 2-5: alternative 2
        rows.append((x, np.array([0, 1, 2, 2, 2, 2]), np.zeros(3), d % 3, d, 0, "choose"))
    c = build_choices(rows, FEATURES)
    theta = np.array([0.4, -0.2, 0.7])
    u = rows[0][0] @ theta
    alt = np.array([u[0], u[1], u[2:].max()])
    p0 = alt[rows[0][3]] - np.log(np.exp(alt).sum())
    assert decision_scores(c, c.x @ theta)[0][0] == pytest.approx(p0)
    grad = evaluate(c, theta).grad
    eps = 1e-6
    numeric = [
        (loglik(c, theta + eps * e) - loglik(c, theta - eps * e)) / (2 * eps) for e in np.eye(3)
    ]
    np.testing.assert_allclose(grad, numeric, rtol=1e-5)


def test_what_cannot_be_fitted_is_left_out_and_said():
    """A feature that never varies within a decision, one that copies another, and one that
    separates the choices (it always goes the player's way) are not fitted; each says why."""
    rng = np.random.default_rng(5)
    rows = []
    for d in range(400):
        x = rng.normal(size=(5, 4))
        x[:, 1] = 2.0  # the same for every action: tells nothing
        x[:, 2] = 3 * x[:, 0]  # a copy of feature 0
        x[:, 3] = 0.0
        u = x[:, 0]
        pick = int(rng.choice(5, p=np.exp(u) / np.exp(u).sum()))
        if d < 3:  # a rare feature, present only at the action taken
            x[pick, 3] = 1.0
        rows.append((x, np.arange(5), x[:, 0], pick, d, 0, "play"))
    c = build_choices(rows, ("own_points", "flat", "copy", "rare"))
    fit = fit_logit(c)
    assert list(fit.free) == [True, False, False, False]
    assert "never varied" in fit.why[1]
    assert "combination of own_points" in fit.why[2]
    assert "separates" in fit.why[3]
    assert fit.theta[0] == pytest.approx(1.0, abs=0.2)
    table, _ = weight_table(fit, min_decisions=10)
    assert table.loc[3, "note"].startswith("not fitted")
    assert fit.n_varying[3] == 3


def test_points_scale_and_fieller_intervals():
    """With own points clearly valued the seat is in points: own_points = 1, the weights
    are ratios with Fieller intervals, the temperature 1 / theta_own with its interval
    turned over; every weight is written in the seat (no preset fills a gap)."""
    theta = np.array([2.0, -1.0, 0.5])  # weights 1, -0.5, 0.25 at temperature 0.5
    c = build_choices(synthetic(theta, decisions=4000, seed=1), FEATURES)
    fit = fit_logit(c)
    table, scale = weight_table(fit)
    assert scale.points and scale.unit == POINTS_SCALE
    assert scale.lo < 0.5 < scale.hi
    assert scale.temperature == pytest.approx(1 / fit.theta[0])
    r = table.set_index("feature")
    assert r.loc["b", "weight_lo"] < -0.5 < r.loc["b", "weight_hi"]
    assert r.loc["b", "weight_sim_lo"] < r.loc["b", "weight_lo"]  # simultaneous: wider
    spec = seat_spec(table, scale, "calibrated")
    assert spec["policy"] == "heuristic" and set(spec["weights"]) == set(FEATURES)
    assert spec["weights"]["own_points"] == 1.0 and spec["label"] == "calibrated"


def test_fieller_by_hand():
    """Fieller's interval solves (a - r b)^2 = z^2 var(a - r b): at both ends the equality
    holds; an unbounded interval when b is not clearly away from 0."""
    a, b, vaa, vbb, vab, z = 1.0, 2.0, 0.04, 0.09, 0.01, 1.96
    lo, hi = fieller(a, b, vaa, vbb, vab, z)
    for r in (lo, hi):
        assert (a - r * b) ** 2 == pytest.approx(z * z * (vaa - 2 * r * vab + r * r * vbb))
    assert lo < a / b < hi
    assert fieller(1.0, 0.1, 0.04, 0.09, 0.0, 1.96) == (-np.inf, np.inf)
    assert temperature_interval(0.5, 2.0) == (0.5, 2.0)
    assert temperature_interval(-0.1, 2.0) == (0.5, np.inf)
    assert np.isnan(temperature_interval(-2.0, -0.1)[0])


def test_a_random_player_is_a_zero_information_model():
    """Choices made at random: every utility's interval holds 0, own points are not clearly
    valued, so the seat is written on the utility scale (temperature 1, weights near 0)."""
    c = build_choices(synthetic(np.zeros(3), decisions=3000, seed=2), FEATURES)
    fit = fit_logit(c)
    table, scale = weight_table(fit)
    assert (table["lo"] < 0).all() and (table["hi"] > 0).all()
    assert not scale.points and scale.unit == UTILITY_SCALE
    spec = seat_spec(table, scale)
    assert spec["temperature"] == 1.0
    assert all(abs(w) < 0.1 for w in spec["weights"].values())


def test_heldout_scores_random_and_the_true_model():
    """Uniform play scores log(1/n) and 1/n per decision; the true model beats it on both,
    with paired intervals above 0; a scale fitted to the true values recovers its scale."""
    theta = np.array([1.5, -1.0, 0.5])
    c = build_choices(synthetic(theta, decisions=3000, seed=4), FEATURES)
    n = c.n_alts()
    logp, hit = decision_scores(c, np.zeros(len(c.row_alt)))
    np.testing.assert_allclose(logp, -np.log(n))
    np.testing.assert_allclose(hit, 1 / n)
    models = [Model("true", c.x @ theta), Model("random", np.zeros(len(c.row_alt)))]
    t = heldout_table(c, models, draws=500)
    assert t.loc[0, "gain_top1"] == 0 and t.loc[1, "gain_top1_lo"] > 0
    assert t.loc[1, "gain_loglik_lo"] > 0
    assert t.loc[1, "top1"] == pytest.approx(np.mean(1 / n))
    assert t.loc[0, "top1_lo"] <= t.loc[0, "top1"] <= t.loc[0, "top1_hi"]
    scale, _ = fit_scale(c, c.x @ (theta / 2))
    assert scale == pytest.approx(2.0, rel=0.1)


def test_players_differ_only_when_they_do():
    """The likelihood-ratio test: two players with one model are not told apart; two
    with different models are."""
    same = synthetic(np.array([1.0, 0.5, 0.0]), 1500, seed=6) + synthetic(
        np.array([1.0, 0.5, 0.0]), 1500, seed=7, player=1
    )
    other = synthetic(np.array([1.0, 0.5, 0.0]), 1500, seed=6) + synthetic(
        np.array([1.0, -0.5, 0.8]), 1500, seed=7, player=1
    )
    for rows, apart in ((same, False), (other, True)):
        c = build_choices(rows, FEATURES, ("a", "b"))
        each = [fit_logit(c.subset(c.player == p)) for p in (0, 1)]
        test = players_differ(fit_logit(c), each)
        assert test["df"] == 3
        assert (test["p"] < 1e-6) if apart else (test["p"] > 0.01)
