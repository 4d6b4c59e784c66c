"""Interval estimates against values worked out by hand (derivations in the comments)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.analysis.stats import (
    Z95,
    Clusters,
    _cluster_se,
    bootstrap_ci,
    clustered_diff_ci,
    clustered_mean_ci,
    clustered_means,
    mean_ci,
    t975,
    wilson,
    win_share_ci,
)


def test_wilson_30_of_100():
    # p = .3, z^2 = 3.841459, denominator 1 + z^2/n = 1.03841459
    # centre = (.3 + z^2/200) / 1.03841459 = .319207295 / 1.03841459 = .307398
    # half = z * sqrt(.3*.7/100 + z^2/40000) / 1.03841459
    #      = 1.959964 * sqrt(.0021960365) / 1.03841459 = .0884499
    e = wilson(30, 100)
    assert e.value == pytest.approx(0.3)
    assert e.lo == pytest.approx(0.218948, abs=1e-5)
    assert e.hi == pytest.approx(0.395848, abs=1e-5)
    assert e.n == 100


def test_wilson_zero_successes_stays_inside_0_1():
    # p = 0: centre = half = (z^2/2n) / (1 + z^2/n), so hi = z^2 / (n + z^2) = 3.841459 / 13.841459
    e = wilson(0, 10)
    assert e.lo == 0.0
    assert e.hi == pytest.approx(0.277532, abs=1e-5)


def test_t_quantiles():
    assert t975(4) == pytest.approx(2.776445, abs=1e-6)
    assert t975(30) == pytest.approx(2.042272, abs=1e-5)  # printed t tables
    assert t975(120) == pytest.approx(1.979930, abs=1e-5)
    assert t975(10**9) == pytest.approx(Z95)


def test_mean_ci_one_to_five():
    # mean 3, s = sqrt(2.5) = 1.581139, se = s / sqrt(5) = .707107, t(4) = 2.776445
    # half = 2.776445 * .707107 = 1.963243
    e = mean_ci([1, 2, 3, 4, 5])
    assert (e.value, e.n) == (3.0, 5)
    assert e.lo == pytest.approx(1.036757, abs=1e-5)
    assert e.hi == pytest.approx(4.963243, abs=1e-5)


def test_win_share_without_ties_is_wilson():
    # 2 of 4: centre .5; half = z * sqrt(.0625 + z^2/64) / (1 + z^2/4) = .349961
    e = win_share_ci([1, 0, 0, 1])
    assert e.lo == pytest.approx(0.150039, abs=1e-5)
    assert e.hi == pytest.approx(0.849961, abs=1e-5)


def test_win_share_with_ties_is_t_interval_clipped():
    # values 1, 0, 1/2, 1/2, 0, 0: mean 1/3; squared deviations sum to .833333,
    # s^2 = .166667, se = .408248 / sqrt(6) = .166667, t(5) = 2.570582, half = .428430
    e = win_share_ci([1, 0, 0.5, 0.5, 0, 0])
    assert e.value == pytest.approx(1 / 3)
    assert e.lo == 0.0  # 1/3 - .428430 < 0 is clipped: a share is never negative
    assert e.hi == pytest.approx(0.761764, abs=1e-5)


def test_clustered_mean_equals_t_interval_of_cluster_means():
    # clusters a: (1, 0), b: (0, 0), c: (1, 1); equal sizes, so it is the t interval
    # of the cluster means .5, 0, 1: mean .5, s = .5, se = .288675, t(2) = 4.302653
    e = clustered_mean_ci([1, 0, 0, 0, 1, 1], ["a", "a", "b", "b", "c", "c"])
    assert e.value == pytest.approx(0.5)
    assert e.lo == pytest.approx(0.5 - 1.242069, abs=1e-5)
    assert e.hi == pytest.approx(0.5 + 1.242069, abs=1e-5)
    assert e.n == 6


def test_clustered_diff_by_hand():
    # group A rows (game: value) 0: 1, 1: .5, 2: 1 -> mean .833333, n 3
    # group B rows 0: 0, 1: .5, 2: 0, 3: 1, 3: 0 -> mean .3, n 5; difference .533333
    # influence: A (y - .833333)/3, B -(y - .3)/5; per game sums
    #   g0 .055556 + .06 = .115556, g1 -.111111 - .04 = -.151111,
    #   g2 .115556, g3 -.14 + .06 = -.08
    # se = sqrt(.0559408 * 4/3) = .273108; half = 1.959964 * .273108 = .535280
    values = [1, 0.5, 1, 0, 0.5, 0, 1, 0]
    in_a = [True, True, True, False, False, False, False, False]
    games = [0, 1, 2, 0, 1, 2, 3, 3]
    d = clustered_diff_ci(values, in_a, games)
    assert d.value == pytest.approx(0.533333, abs=1e-6)
    assert d.lo == pytest.approx(-0.001947, abs=1e-5)
    assert d.hi == pytest.approx(1.068613, abs=1e-5)
    assert (d.n_a, d.n_b) == (3, 5)


def test_bootstrap_is_reproducible_with_its_seed():
    data = np.arange(50.0)
    a = bootstrap_ci(data, np.mean, n_boot=200, seed=7)
    b = bootstrap_ci(data, np.mean, n_boot=200, seed=7)
    c = bootstrap_ci(data, np.mean, n_boot=200, seed=np.random.default_rng(8))
    assert a == b
    assert a != c
    assert a.lo < 24.5 < a.hi


def test_bootstrap_of_constant_data_is_a_point():
    e = bootstrap_ci(np.full((10, 3), 2.0), lambda x: x.mean(), n_boot=50, seed=0)
    assert e == (2.0, 2.0, 2.0, 10)


def test_clusters_sum_in_any_row_order():
    """`Clusters` sums each column within clusters whatever the rows' order (a groupby's sums,
    clusters in sorted order), and counts the clusters a column's rows fall in."""
    rng = np.random.default_rng(5)
    ids = rng.integers(0, 7, 60)
    psi = rng.normal(size=(60, 3))
    want = pd.DataFrame(psi).groupby(ids).sum().to_numpy()
    for order in (np.arange(60), np.argsort(ids, kind="stable")):
        clusters = Clusters(ids[order])
        np.testing.assert_allclose(clusters.sums(psi[order]), want, rtol=1e-12, atol=1e-15)
    rows = psi > 1.0
    assert (Clusters(ids).present(rows) == [len(set(ids[r])) for r in rows.T]).all()
    assert Clusters([]).g == 0 and np.isnan(_cluster_se(np.zeros(1), [4])[0])


def test_clustered_means_are_each_columns_clustered_mean():
    """Column by column, `clustered_means` of the rows a mask keeps is `clustered_mean_ci` of
    those rows alone (their clusters, their degrees of freedom); a column with no rows or one
    cluster has no interval."""
    rng = np.random.default_rng(6)
    games = np.repeat(np.arange(40), 3)
    values = rng.random((120, 4))
    rows = rng.random((120, 4)) < [0.5, 0.05, 0.0, 1.0]
    rows[:, 1] = games == 7  # one game only
    m, lo, hi, n = clustered_means(values, rows, Clusters(games))
    for k in range(4):
        one = clustered_mean_ci(values[rows[:, k], k], games[rows[:, k]])
        got = (m[k], lo[k], hi[k], n[k])
        np.testing.assert_allclose(got, tuple(one), rtol=1e-12, equal_nan=True)
    assert np.isnan([m[2], lo[1], hi[1]]).all() and n[2] == 0
