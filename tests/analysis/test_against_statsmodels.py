"""Holm, Benjamini-Hochberg and the clustered least squares are written in
`sim.analysis.inference` (statsmodels' import cost about a second of every report and run
summary): they must give statsmodels' numbers, which these tests take as the reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.multitest import multipletests

from sim.analysis.cards import card_impact_adjusted
from sim.analysis.inference import ClusteredOLS, adjust, partialled_coefs
from sim.config import load_study
from sim.runs import run_chunk


def _families():
    rng = np.random.default_rng(11)
    yield np.array([0.04])
    yield np.array([1.0, 1.0, 1.0])
    yield np.array([0.01, 0.02, 0.03, 0.04, 0.05])  # every one at its own threshold
    yield np.array([0.0125, 0.0125, 0.05, 0.05, 0.5])  # ties, on Holm's steps
    for m in (2, 7, 31, 200):
        p = rng.uniform(0, 1, m) ** rng.uniform(1, 6)  # from null to many real effects
        p[rng.integers(0, m, m // 4)] = p[0]  # ties
        yield p


@pytest.mark.parametrize("method", ["holm", "fdr_bh"])
@pytest.mark.parametrize("alpha", [0.05, 0.025])
def test_holm_and_bh_are_statsmodels_multipletests(method, alpha):
    for p in _families():
        reject, corrected, _, _ = multipletests(p, alpha=alpha, method=method)
        got, got_reject = adjust(p, method, alpha)
        np.testing.assert_allclose(got, corrected, rtol=1e-15, atol=0)
        assert (got_reject == reject).all(), (p, got_reject, reject)


def test_nan_p_values_stay_out_of_the_family():
    p = np.array([0.01, np.nan, 0.02, np.nan, 0.9])
    got, reject = adjust(p, "holm")
    ref_reject, ref, _, _ = multipletests(p[[0, 2, 4]], method="holm")
    assert np.isnan(got[[1, 3]]).all() and not reject[[1, 3]].any()
    np.testing.assert_allclose(got[[0, 2, 4]], ref)
    assert (reject[[0, 2, 4]] == ref_reject).all()


@pytest.mark.parametrize("qr", [False, True])
def test_clustered_least_squares_is_statsmodels_cluster_fit(qr):
    rng = np.random.default_rng(4)
    groups = rng.integers(0, 60, 400) * 3 + 5  # games, neither 0..G-1 nor sorted
    x = np.column_stack([np.ones(400), rng.normal(size=400), rng.integers(0, 2, 400)])
    y = x @ [0.2, 0.5, -0.3] + rng.normal(size=400) + 0.5 * rng.normal(size=60)[groups % 60]
    ref = OLS(y, x).fit(method="qr" if qr else "pinv", cov_type="cluster",
                        cov_kwds={"groups": groups})  # fmt: skip
    fit = ClusteredOLS(y, x, groups, ["const", "x", "d"], qr=qr)
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-10)
    np.testing.assert_allclose(fit.cov, ref.cov_params(), rtol=1e-9)
    for j, name in enumerate(fit.names):
        est, lo, hi, p = fit.coef(name)
        np.testing.assert_allclose([est, lo, hi, p], [ref.params[j], *ref.conf_int()[j],
                                                      ref.pvalues[j]], rtol=1e-9)  # fmt: skip
    r = np.array([[0.0, 1.0, 1.0]])
    assert fit.wald(r) == pytest.approx(float(ref.wald_test(r, scalar=True).statistic), rel=1e-9)


def test_collinear_columns_are_not_estimable_with_qr():
    """statsmodels fits rounding noise to collinear columns; the card-impact model leaves
    such a card out (NaN) instead."""
    x = np.column_stack([np.ones(20), np.arange(20.0), 2 * np.arange(20.0)])
    x[:, 2] = x[:, 1]
    with pytest.raises(np.linalg.LinAlgError):
        ClusteredOLS(np.arange(20.0), x, np.arange(20) // 2, ["c", "a", "b"], qr=True)


ADJ = ["adjusted", "adj_lo", "adj_hi", "adj_p", "adj_q"]


def test_partialled_coefficients_are_each_columns_own_fit():
    """`partialled_coefs` gives, for every extra column, its clustered fit's coefficient
    with x beside it (Frisch-Waugh-Lovell), and None where that fit raises (collinear)."""
    rng = np.random.default_rng(5)
    groups = rng.integers(0, 50, 300) * 7
    x = np.column_stack([np.ones(300), rng.normal(size=300), rng.integers(0, 2, 300)])
    extra = np.column_stack([rng.integers(0, 2, 300), rng.normal(size=300), x[:, 1] * 2])
    y = x @ [0.1, 0.4, -0.2] + 0.3 * extra[:, 0] + rng.normal(size=300)
    got = partialled_coefs(y, x, extra, groups)
    for j in range(2):
        full = ClusteredOLS(y, np.column_stack([x, extra[:, j]]), groups, list("abcd"), qr=True)
        np.testing.assert_allclose(got[j], full.coef("d"), rtol=1e-9, atol=1e-12)
    assert got[2] is None  # twice a column of x
    with pytest.raises(np.linalg.LinAlgError):
        ClusteredOLS(y, np.column_stack([x, extra[:, 2]]), groups, list("abcd"), qr=True)


def _card_impact_by_statsmodels(cards: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """The adjusted column as statsmodels fitted it (the code before ClusteredOLS)."""
    import sim.analysis.inference as inference

    fits = {}
    real = inference.ClusteredOLS

    class Recording(real):  # the same design matrices, fitted by statsmodels as well
        @classmethod
        def of(cls, y, design, group, qr=False):
            card = len(fits)
            ref = OLS(y, design.to_numpy(float)).fit(method="qr", cov_type="cluster",
                                                     cov_kwds={"groups": group})  # fmt: skip
            j = list(design.columns).index("held")
            fits[card] = (ref.params[j], *ref.conf_int()[j], ref.pvalues[j])
            return real.of(y, design, group, qr)

    import sim.analysis.cards as cards_module

    shared = cards_module.full_layout
    inference.ClusteredOLS = Recording
    cards_module.full_layout = lambda *args: None  # each kind's own design and fit
    try:
        out = card_impact_adjusted(cards, players)
    finally:
        inference.ClusteredOLS = real
        cards_module.full_layout = shared
    return out, fits


def test_card_impact_adjusted_is_statsmodels_fit_on_a_base_run():
    """Each kind's own design fitted by statsmodels, against the page's table: every kind's
    `held` coefficient from one partialled fit (`partialled_coefs`), and from each kind's
    own fit."""
    study = load_study("configs/base.yaml").with_overrides(games=600)
    tables = run_chunk(study, 0, 600)
    each, fits = _card_impact_by_statsmodels(tables["cards"], tables["players"])
    assert len(fits) >= 10
    got = card_impact_adjusted(tables["cards"], tables["players"])
    pd.testing.assert_frame_equal(got.drop(columns=ADJ), each.drop(columns=ADJ))
    np.testing.assert_allclose(got[ADJ].to_numpy(float), each[ADJ].to_numpy(float), rtol=1e-9)
    fitted = got[got["adjusted"].notna()]  # sorted by the adjusted impact, as the page shows
    expected = np.array(sorted(fits.values(), key=lambda f: -f[0]), float)
    np.testing.assert_allclose(fitted[["adjusted", "adj_lo", "adj_hi", "adj_p"]].to_numpy(float),
                               expected, rtol=1e-9, atol=1e-12)  # fmt: skip


def test_one_game_has_an_estimate_but_no_interval():
    """One cluster leaves no spread between games to measure (statsmodels divides by zero)."""
    x = np.column_stack([np.ones(4), [1.0, 0, 0, 0]])
    fit = ClusteredOLS(np.array([1.0, 0, 0, 0]), x, np.zeros(4, int), ["c", "here"])
    est, lo, hi, p = fit.coef("here")
    assert est == pytest.approx(1.0) and np.isnan([lo, hi, p]).all()
