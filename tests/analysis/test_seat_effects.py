"""`seat_effects` builds its design matrices itself (`seat_design`) rather than through
statsmodels' formulas (patsy), which took about a second of a base run's report. The fits must
be the formulas' fits: the same terms, in the same order, and the same numbers, for one,
two and three policies, with and without a real seat edge."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.analysis.seats import seat_effects
from tests.import_helpers import heavy_imports


def _players(policies: list[str], edge: float, games: int = 400, seed: int = 3) -> pd.DataFrame:
    """Four seats a game, policies dealt round the table; seat 0 wins `edge` more often."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        for s in range(4):
            p = policies[(g + s) % len(policies)]
            win = float(rng.random() < 0.25 + (edge if s == 0 else 0) + 0.05 * policies.index(p))
            rows.append({"game": g, "seat": s, "policy": p, "win_share": win})
    return pd.DataFrame(rows)


def _by_formulas(players: pd.DataFrame, seat: int) -> tuple[list, list, float]:
    """The formulas `seat_effects` used to fit: (rows, params names, interaction p)."""
    import statsmodels.formula.api as smf

    data = pd.DataFrame({"win": players["win_share"].to_numpy(float),
                         "policy": players["policy"].astype(str).to_numpy(),
                         "here": (players["seat"].to_numpy() == seat).astype(float)})  # fmt: skip
    cluster = {"groups": players["game"].to_numpy()}
    policies = sorted(data["policy"].unique())
    several = len(policies) > 1
    fit = smf.ols("win ~ C(policy) + C(policy):here - 1" if several else "win ~ here", data)
    by_policy = fit.fit(cov_type="cluster", cov_kwds=cluster)
    names = [f"C(policy)[{p}]:here" if several else "here" for p in policies]
    ci = by_policy.conf_int()
    rows = [(by_policy.params[n], *ci.loc[n], by_policy.pvalues[n]) for n in names]
    p_int = float("nan")
    if several:
        pooled = smf.ols("win ~ C(policy) + here", data).fit(cov_type="cluster", cov_kwds=cluster)
        rows.append((pooled.params["here"], *pooled.conf_int().loc["here"], pooled.pvalues["here"]))
        index = list(by_policy.params.index)
        contrasts = np.zeros((len(policies) - 1, len(index)))
        for r in range(len(policies) - 1):
            contrasts[r, index.index(names[r])] = 1
            contrasts[r, index.index(names[-1])] = -1
        test = by_policy.wald_test(contrasts, scalar=True)
        from scipy.stats import chi2

        p_int = float(chi2.sf(float(test.statistic), len(policies) - 1))
    return rows, names, p_int


@pytest.mark.parametrize("policies", [["random"], ["greedy", "random"], ["a", "b", "c"]])
@pytest.mark.parametrize("edge", [0.0, 0.1])
@pytest.mark.parametrize("seat", [0, 2])
def test_the_explicit_design_fits_what_the_formulas_fitted(policies, edge, seat):
    players = _players(policies, edge)
    rows, _, p_int = _by_formulas(players, seat)
    got = seat_effects(players, seat)
    assert list(got["policy"][: len(policies)]) == policies
    assert len(got) == (len(policies) + 1 if len(policies) > 1 else 1)  # then the adjusted row
    expected = np.array(rows, float)
    np.testing.assert_allclose(got[["edge", "lo", "hi", "p"]].to_numpy(float), expected,
                               rtol=1e-9, atol=1e-12)  # fmt: skip
    assert (got["n"] == len(players)).all()
    if len(policies) > 1:
        assert got.attrs["interaction_p"] == pytest.approx(p_int, rel=1e-9, abs=1e-15)
    else:
        assert np.isnan(got.attrs["interaction_p"])


def test_games_out_of_order_and_a_policy_that_never_wins_fit_as_the_formulas_do():
    """The clustered fit groups rows by game wherever they stand and whatever the games'
    numbers; a policy that never wins (a constant column: zero spread, no interval to speak
    of) has no edge and nothing to flag, where statsmodels finds p = 1e-45 in rounding."""
    players = _players(["greedy", "random"], 0.1, games=300)
    players.loc[players["policy"] == "random", "win_share"] = 0.0
    players["game"] = players["game"] * 7 + 1000  # not 0..G-1
    players = players.sample(frac=1.0, random_state=5).reset_index(drop=True)
    rows, _, p_int = _by_formulas(players, 0)
    got = seat_effects(players, 0)
    expected = np.array(rows, float)
    assert expected[1, 3] < 1e-40  # statsmodels: rounding (an edge of 1e-17) passes for proof
    expected[1] = [0.0, 0.0, 0.0, 1.0]  # here: no spread, no edge, nothing to flag
    np.testing.assert_allclose(got[["edge", "lo", "hi", "p"]].to_numpy(float), expected,
                               rtol=1e-9, atol=1e-12)  # fmt: skip
    assert got.attrs["interaction_p"] == pytest.approx(p_int, rel=1e-9, abs=1e-15)


def test_the_seat_model_needs_no_statsmodels_or_scipy_import():
    """statsmodels' linear model imports scipy.stats, about a second of every `sim run`
    (whose summary holds the seat model): `seat_effects` must not import it. Nor may the
    seat tests and the balance interval import scipy.special (about 0.2 CPU-s of a page)."""
    code = (
        "import numpy as np\n"
        "from tests.analysis.test_seat_effects import _players\n"
        "from sim.analysis.seats import balance_interval, seat_effects\n"
        "seat_effects(_players(['greedy', 'random'], 0.1))\n"
        "balance_interval(np.random.default_rng(1).random((50, 4)))\n"
    )
    assert heavy_imports(code, ("statsmodels", "scipy.stats", "scipy.special")) == []
