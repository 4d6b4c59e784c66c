"""Interval estimates for win rates, means and differences, at 95%.

Every function returns an `Estimate(value, lo, hi, n)`. Which interval is used where:

* A proportion of 0/1 outcomes (a tie share, an end-trigger share): Wilson,
  which stays inside [0, 1] and is honest near 0 and 1 and at small n.
* A win share. With ties a seat scores 1/k of a win, so a win share is the mean
  of per-game values in {0, 1/k, ..., 1}, not a count of successes, and Wilson
  does not apply. `win_share_ci` uses Wilson when every value is 0 or 1 (no
  ties) and otherwise the t interval of the mean of the per-game values (games
  are independent, values are bounded, so the central limit theorem holds
  well at the sizes we run; the sample spread already reflects the ties).
* Rows that are not independent — several seats of one game, e.g. the two
  greedy seats of a game, whose wins exclude each other — use a cluster-robust
  (sandwich) standard error with the game as the cluster (`clustered_mean_ci`,
  `clustered_diff_ci`), so correlated seats never make an interval look
  narrower than the number of games allows.
* Anything else (the balance metric, a largest gap) uses the percentile
  bootstrap over games with an explicit seed (`bootstrap_ci`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from sim.analysis.intervals import Z95, Summary, mean_bounds, share_bounds, t975

__all__ = ["Z95", "Estimate", "t975", "wilson", "mean_ci", "win_share_ci"]


class Estimate(NamedTuple):
    """A point estimate with its 95% interval and the sample size behind it."""

    value: float
    lo: float
    hi: float
    n: int

    @property
    def half(self) -> float:
        """The larger distance from the value to an end of the interval (for "± x")."""
        return max(self.value - self.lo, self.hi - self.value)


def wilson(successes: float, n: int, z: float = Z95) -> Estimate:
    """Wilson score interval for `successes` out of `n` 0/1 trials."""
    if n <= 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # min/max with p: at p = 0 or 1 rounding could put the bound a hair past p
    return Estimate(p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)), int(n))


def mean_ci(values, bounds: tuple[float, float] = (-np.inf, np.inf)) -> Estimate:
    """Mean with the interval of `sim.analysis.intervals.mean_bounds` (the t interval for
    spread-out values, honest at the edges), inside `bounds`."""
    s = Summary.of(values)
    lo, hi = mean_bounds(s, bounds)
    return Estimate(s.mean, lo, hi, s.n)


def win_share_ci(shares) -> Estimate:
    """Mean win share of independent games: Wilson without ties, else the mean's interval
    inside [0, 1] (`sim.analysis.intervals.share_bounds`)."""
    s = Summary.of(shares)
    if s.n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    lo, hi = share_bounds(s)
    return Estimate(s.mean, lo, hi, s.n)


class Clusters:
    """Rows' clusters (their games), found once: the per-cluster sums of many columns of
    per-row influence values in one call (`np.add.reduceat` over the rows in cluster order),
    where a pandas groupby per column hashes the ids again each time. Ids are any sortable
    values; rows already in cluster order (a run's tables: game by game) are not reordered."""

    def __init__(self, ids) -> None:
        ids = np.asarray(ids)
        ordered = len(ids) < 2 or bool((ids[1:] >= ids[:-1]).all())
        self.order = None if ordered else np.argsort(ids, kind="stable")
        runs = ids if ordered else ids[self.order]
        self.starts = np.flatnonzero(np.r_[True, runs[1:] != runs[:-1]]) if len(ids) else runs[:0]
        self.g = len(self.starts)  # how many clusters

    def sums(self, psi) -> np.ndarray:
        """Per-cluster sums of `psi` ([rows] or [rows, columns]): [g] or [g, columns]."""
        psi = np.asarray(psi, dtype=float)
        if self.order is not None:
            psi = psi[self.order]
        if not self.g:
            return np.zeros((0, *psi.shape[1:]))
        return np.add.reduceat(psi, self.starts, axis=0)

    def present(self, rows) -> np.ndarray:
        """How many clusters hold at least one of `rows` (booleans, [rows] or [rows, columns])."""
        return (self.sums(rows) > 0).sum(axis=0)

    def se(self, psi, g=None) -> np.ndarray:
        """The sandwich standard error of each column of `psi` (summed within clusters), with
        the small-sample factor g / (g - 1) (g: the clusters of every row, or per column those
        holding the column's rows); NaN where g < 2."""
        g = np.asarray(self.g if g is None else g, dtype=float)
        squares = (self.sums(psi) ** 2).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(g >= 2, np.sqrt(squares * g / (g - 1)), np.nan)


def _cluster_se(psi: np.ndarray, clusters) -> tuple[float, int]:
    """Sandwich standard error from per-row influence values summed within clusters."""
    found = Clusters(clusters)
    return float(found.se(psi)), found.g


def clustered_means(values, rows, clusters: Clusters) -> tuple[np.ndarray, ...]:
    """Per column of `values` ([n, k]): the mean of its `rows` (booleans [n, k]) with the
    cluster-robust t interval of `clustered_mean_ci` (g - 1 degrees of freedom, g the clusters
    those rows fall in); (mean, lo, hi, n), arrays of k, NaN where a column has no rows."""
    y, rows = np.asarray(values, dtype=float), np.asarray(rows, dtype=bool)
    n = rows.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(rows, y, 0.0).sum(axis=0) / n
        g = clusters.present(rows)
        se = clusters.se(np.where(rows, (y - m) / n, 0.0), g)
    half = np.array([t975(int(k) - 1) for k in np.atleast_1d(g)]) * se
    return m, m - half, m + half, n


def clustered_mean_ci(values, clusters) -> Estimate:
    """Mean of rows grouped in clusters (games), with a cluster-robust t interval; n = rows."""
    y = np.asarray(values, dtype=float)
    if len(y) == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    m, lo, hi, n = clustered_means(np.c_[y], np.ones((len(y), 1), bool), Clusters(clusters))
    return Estimate(float(m[0]), float(lo[0]), float(hi[0]), int(n[0]))


class Difference(NamedTuple):
    """Mean of group A minus mean of group B, its 95% interval and both sample sizes."""

    value: float
    lo: float
    hi: float
    n_a: int
    n_b: int


def clustered_diffs(values, in_a, clusters: Clusters) -> tuple[np.ndarray, ...]:
    """Per column of `in_a` ([n, k] booleans): mean(values | in_a) − mean(values | not in_a)
    with its cluster-robust normal interval; (difference, lo, hi, n_a, n_b, mean_a, mean_b),
    arrays of k; the difference and its interval NaN where a side is empty (so is its mean)."""
    y, a = np.asarray(values, dtype=float), np.asarray(in_a, dtype=bool)
    af = a.astype(float)
    n_a = af.sum(axis=0)
    n_b = len(y) - n_a
    with np.errstate(divide="ignore", invalid="ignore"):  # an empty side: NaN, as said
        m_a, m_b = y @ af / n_a, y @ (1 - af) / n_b
        # each row's influence on the difference of the two means
        psi = np.where(a, (y[:, None] - m_a) / n_a, -(y[:, None] - m_b) / n_b)
        half = Z95 * clusters.se(psi)
    d = np.where((n_a > 0) & (n_b > 0), m_a - m_b, np.nan)
    return d, d - half, d + half, n_a.astype(np.int64), n_b.astype(np.int64), m_a, m_b


def clustered_diff_ci(values, in_a, clusters) -> Difference:
    """Mean(values | in_a) - mean(values | not in_a), cluster-robust normal interval."""
    d, lo, hi, n_a, n_b, _, _ = clustered_diffs(values, np.c_[in_a], Clusters(clusters))
    return Difference(float(d[0]), float(lo[0]), float(hi[0]), int(n_a[0]), int(n_b[0]))


def bootstrap_ci(
    data,
    statistic: Callable[[np.ndarray], float],
    *,
    n_boot: int = 1000,
    seed: int | np.random.Generator = 0,
) -> Estimate:
    """Percentile bootstrap of `statistic` over the rows of `data` (resampled with replacement)."""
    x = np.asarray(data)
    n = len(x)
    rng = np.random.default_rng(seed)
    value = float(statistic(x))
    if n < 2:
        return Estimate(value, float("nan"), float("nan"), n)
    draws = np.array([statistic(x[rng.integers(0, n, n)]) for _ in range(n_boot)])
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return Estimate(value, float(lo), float(hi), n)
