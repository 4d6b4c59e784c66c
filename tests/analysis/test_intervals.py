"""Intervals at the edges (sim.analysis.intervals): values by hand, published examples, and
coverage on near-constant and rare-event data where the t interval and the bootstrap fail."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from scipy.optimize import minimize_scalar

from sim.analysis.inference import chi2_isf, chi2_sf
from sim.analysis.intervals import (
    Z95,
    Summary,
    _tango_stat,
    discordant,
    mean_bounds,
    mover,
    p_value,
    share_bounds,
    t975,
    t_of,
    tango_bounds,
    unseen,
    wilson_bounds,
)
from sim.analysis.moments import Moments
from tests.import_helpers import heavy_imports

COUNT = (0.0, math.inf)


# ---------------------------------------------------------------- by hand and published


def test_chi_square_tail_and_quantile_agree_with_scipy_far_out_and_at_large_df():
    # Closed forms for whole df (A&S 26.4.4-5), terms in logs: a far tail keeps its relative
    # precision and a large df does not underflow; the textbook quantiles by hand
    for df in (1, 2, 3, 4, 5, 9, 20, 51, 400):
        for x in np.geomspace(1e-6, 2000, 60):
            want = float(sps.chi2.sf(x, df))
            if want > 1e-300:
                assert chi2_sf(x, df) == pytest.approx(want, rel=1e-10, abs=1e-300)
        for p in (0.5, 0.05, 1e-8):
            assert chi2_isf(p, df) == pytest.approx(float(sps.chi2.isf(p, df)), rel=1e-10)
    assert chi2_isf(0.05, 1) == pytest.approx(3.841459, abs=1e-6)  # 1.96²
    assert chi2_isf(0.05, 3) == pytest.approx(7.814728, abs=1e-6)
    assert (chi2_sf(0.0, 3), chi2_sf(math.inf, 3), chi2_sf(-1.0, 2)) == (1.0, 0.0, 1.0)
    assert chi2_sf(2.5, 2.5) == pytest.approx(float(sps.chi2.sf(2.5, 2.5)), rel=1e-12)


def test_students_quantile_at_any_df_agrees_with_scipy_and_needs_no_scipy_import():
    # t_of at a df that is not whole, in pure Python: within 1e-10 of scipy's stdtrit from
    # z = 0.1 to the p-value floor (z = 12), and exact near the median, where scipy's own
    # loses digits (mpmath at 40 digits: 0.00106384615460186659 for df 4, z 0.001)
    for df in (1.0, 1.3, 2.5, 3.7, 4.0, 6.25, 9.9, 30.3, 1999.0, 2000.0, 1e4, 1e6, 1e9):
        for z in (0.1, 1.0, 1.644854, Z95 + 1e-9, 2.575829, 3.290527, 6.0, 12.0):
            want = float(-sps.t.isf(sps.norm.sf(z), df))
            assert -t_of(z, df) == pytest.approx(want, rel=1e-10)
    assert t_of(0.001, 4.0) == pytest.approx(0.00106384615460186659, rel=1e-13)
    # Cornish and Fisher's expansion from 2,000 df on (mpmath at 40 digits: 1.9611508261004394)
    assert t_of(Z95 + 1e-12, 2000.0) == pytest.approx(1.96115082610043941, rel=1e-15)
    assert t_of(-1.0, 3.5) == -t_of(1.0, 3.5) and t_of(0.0, 3.5) == 0.0
    code = (
        "import numpy as np\n"
        "from sim.analysis.intervals import Summary, mean_bounds\n"
        "x = np.r_[np.zeros(60), 40.0, 3.0]  # heavy-tailed: a df that is not whole\n"
        "mean_bounds(Summary.of(x))\n"
    )
    assert heavy_imports(code, ("scipy.special", "scipy.stats")) == []


def test_spread_out_values_get_the_t_interval():
    # 1..5: mean 3, s = 1.581139, t(4) = 2.776445 -> 3 ± 1.963243 (kurtosis 1.7: df 14.3,
    # capped at n - 1 = 4); Wilson's on the range [1, 5] is narrower, so the t interval
    lo, hi = mean_bounds(Summary.of([1, 2, 3, 4, 5]))
    assert (lo, hi) == pytest.approx((1.036757, 4.963243), abs=1e-5)


def test_a_constant_column_is_never_zero_width():
    # 1,500 games all at 55 turns: 55 ± z²/(n + z²) = 3.841459 / 1503.841459 = .002554
    e = Z95**2 / (1500 + Z95**2)
    assert mean_bounds(Summary.of(np.full(1500, 55.0)), COUNT) == pytest.approx((55 - e, 55 + e))
    # at a bound of the range only the open side: no game had an item wasted -> [0, e],
    # which is Wilson's interval of 0 of 1,500
    zero = mean_bounds(Summary.of(np.zeros(1500)), COUNT)
    assert zero == pytest.approx((0.0, e)) and zero[1] == pytest.approx(wilson_bounds(0, 1500)[1])
    assert unseen(1500) == pytest.approx(e)


def test_near_constant_counts_reach_out_on_the_side_of_the_rare_values():
    """1,497 games at 55 and three short ones (50, 47, 53): the t interval (t(1499)) would
    reach past 55; this one stops at the largest count seen and reaches further down."""
    x = np.r_[np.full(1497, 55.0), [50.0, 47.0, 53.0]]
    lo, hi = mean_bounds(Summary.of(x), COUNT)
    half = t975(1499) * x.std(ddof=1) / math.sqrt(1500)
    assert hi == 55.0 and x.mean() + half > 55.0
    assert lo < x.mean() - half  # longer on the far side: the rare values' side
    assert Summary.of(x).df() < 20  # the variance rests on three games


def test_shares_get_wilson_exactly_and_ties_stay_inside_0_1():
    # 30 of 100 (Wilson by hand in test_stats): [.218948, .395848]
    s = Summary.of(np.r_[np.ones(30), np.zeros(70)])
    assert share_bounds(s) == pytest.approx((0.218948, 0.395848), abs=1e-5)
    # 1, 0, 1/2, 1/2, 0, 0: t interval 1/3 ± .428430 (t(5)) cut at 0
    lo, hi = share_bounds(Summary.of([1, 0, 0.5, 0.5, 0, 0]))
    assert lo == 0.0 and hi == pytest.approx(0.761764, abs=1e-5)


def test_newcombe_mover_reproduces_newcombes_worked_examples():
    # Newcombe (1998), Stat Med 17:873, method 10: 56/70 - 48/80 -> [.0524, .3339];
    # 9/10 - 3/10 -> [.1705, .8090]
    a, b = (48 / 80, *wilson_bounds(48, 80)), (56 / 70, *wilson_bounds(56, 70))
    assert mover(a, b) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    a, b = (3 / 10, *wilson_bounds(3, 10)), (9 / 10, *wilson_bounds(9, 10))
    assert mover(a, b) == pytest.approx((0.1705, 0.8090), abs=1e-4)


def _tango_by_brute_force(delta: float, n11: int, n12: int, n21: int, n22: int) -> float:
    """Tango's statistic with the constrained maximum likelihood found numerically."""
    n = n11 + n12 + n21 + n22

    def nll(t: float) -> float:
        rest = 1 - 2 * t - delta
        if t <= 0 or t + delta <= 0 or rest <= 0:
            return 1e18
        return -(n21 * math.log(t) + n12 * math.log(t + delta) + (n11 + n22) * math.log(rest))

    lo, hi = max(0.0, -delta) + 1e-12, (1 - delta) / 2 - 1e-12
    t = minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}).x
    return (n12 - n21 - n * delta) / math.sqrt(n * (2 * t + delta * (1 - delta)))


def test_tango_against_a_brute_force_likelihood_and_a_published_table():
    # Bentur et al. (2009) airway data, n11 1, n12 1, n21 7, n22 12 (Fagerland, Lydersen and
    # Laake 2014, Stat Med 33:2850, Tango asymptotic score: -0.517 to -0.026)
    for delta in (-0.4, -0.1, 0.05, 0.2):
        assert _tango_stat(delta, 21, 7, 1) == pytest.approx(
            _tango_by_brute_force(delta, 1, 1, 7, 12), abs=1e-6
        )
    lo, hi = tango_bounds(21, 7, 1)
    assert (lo, hi) == pytest.approx((-0.517, -0.026), abs=5e-4)
    assert _tango_stat(lo, 21, 7, 1) == pytest.approx(Z95, abs=1e-6)
    assert _tango_stat(hi, 21, 7, 1) == pytest.approx(-Z95, abs=1e-6)


def test_tango_has_width_when_no_game_differs_and_stays_inside_minus_1_1():
    e = Z95**2 / (1500 + Z95**2)
    assert tango_bounds(1500, 0, 0) == pytest.approx((-e, e))
    assert tango_bounds(10, 10, 0)[0] == -1.0  # every pair A = 1, B = 0
    lo, hi = tango_bounds(1500, 1, 0)
    assert -1 < lo < -1 / 1500 < hi and hi > 0


def test_discordant_pairs_come_back_from_the_difference_sums():
    rng = np.random.default_rng(0)
    a, b = (rng.random(500) < 0.3).astype(float), (rng.random(500) < 0.35).astype(float)
    want = (int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum()))
    assert discordant(Summary.of(b - a)) == want


def test_p_values_invert_the_intervals():
    # Tango at 0 is McNemar's test without continuity correction: z = (c - b)/sqrt(b + c)
    p = p_value(lambda z: tango_bounds(400, 12, 25, z))
    assert p == pytest.approx(2 * sps.norm.sf(13 / math.sqrt(37)), rel=1e-4)
    # spread-out values: the one-sample t test
    x = np.random.default_rng(1).normal(0.1, 1, 400)
    p = p_value(lambda z: mean_bounds(Summary.of(x), z=z))
    assert p == pytest.approx(sps.ttest_1samp(x, 0.0).pvalue, rel=1e-3)
    # a p-value below 5% exactly when the 95% interval leaves out 0
    for c in (5, 9, 10, 11, 14):
        lo, hi = tango_bounds(300, 2, c)
        assert (p_value(lambda z, c=c: tango_bounds(300, 2, c, z)) < 0.05) == (lo > 0)


def test_column_sums_merge_to_the_whole_table_in_any_order():
    rng = np.random.default_rng(2)
    v = pd.DataFrame({"a": rng.poisson(2, 900) * 1.0, "b": (rng.random(900) < 0.01) * 1.0})
    whole = Moments.of(v)
    merged = (
        Moments.of(v.iloc[600:]).merge(Moments.of(v.iloc[:50])).merge(Moments.of(v.iloc[50:600]))
    )
    for name in ("mean", "m2", "m3", "m4", "lo", "hi", "nonbinary"):
        np.testing.assert_allclose(getattr(merged, name), getattr(whole, name), rtol=1e-9)
    assert merged.summary("b").binary and not merged.summary("a").binary
    assert Moments.of(v.assign(b=np.nan)).summary_if_any("b") is None  # NaN: not computable


# ---------------------------------------------------------------- coverage at the edges


def _coverage(draw, truth, interval, reps: int, seed: int) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    covered = zero = 0
    for _ in range(reps):
        lo, hi = interval(draw(rng))
        covered += lo <= truth <= hi
        zero += hi == lo
    return covered / reps, zero


def test_near_constant_counts_cover_at_about_the_nominal_rate():
    """Games mostly at 55 turns, 0.25% of them 1-12 turns short (a long tail): the t
    interval covers about 80%; this one about 95%, and it never passes the upper bound
    more often than the mean lies within z²/(n + z²) of it."""
    deficits = np.arange(1, 13.0)
    weights = 1 / deficits / (1 / deficits).sum()
    truth = 55 - 0.0025 * (deficits * weights).sum()

    def draw(rng):
        short = rng.random(1500) < 0.0025
        return 55 - short * rng.choice(deficits, 1500, p=weights)

    def t_interval(x):
        h = t975(len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
        return x.mean() - h, x.mean() + h

    ours, zero = _coverage(draw, truth, lambda x: mean_bounds(Summary.of(x), COUNT), 600, 3)
    t_cover, t_zero = _coverage(draw, truth, t_interval, 600, 3)
    print(f"\nnear-constant turns, 600 runs of 1,500: covers {ours:.1%} (t: {t_cover:.1%},"
          f" {t_zero} of zero width)")  # fmt: skip
    assert ours >= 0.92 and zero == 0 and t_cover < 0.9


def test_rare_shares_with_ties_and_rare_paired_differences_cover():
    """A share near 0 with ties (a win shared now and then), and the paired difference of a
    rare ending (0.05% of games on each side, independent of each other)."""
    share, zero = _coverage(
        lambda rng: np.where(rng.random(1500) < 0.004, rng.choice([0.5, 1.0], 1500), 0.0),
        0.004 * 0.75,
        lambda x: share_bounds(Summary.of(x)),
        1000,
        4,
    )
    assert share >= 0.93 and zero == 0

    def draw(rng):
        return (rng.random(1500) < 0.0005) * 1.0, (rng.random(1500) < 0.0005) * 1.0

    def paired(ab):
        a, b = ab
        return tango_bounds(1500, *discordant(Summary.of(b - a)))

    diff, zero = _coverage(draw, 0.0, paired, 1000, 5)
    print(f"\nrare share with ties covers {share:.1%}; rare paired difference {diff:.1%}")
    assert diff >= 0.95 and zero == 0
