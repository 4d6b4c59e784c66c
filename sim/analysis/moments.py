"""Partial results that merge: the moments of the per-game values, chunk by chunk.

Every registry metric (`sim.metrics`) is a function of the *means* of the
per-game columns of `sim.analysis.values.game_values`, and every interval the
run report gives a registry metric needs at most their covariance: the t and
Wilson intervals read one column's mean and variance, the balance interval the
seat shares' covariance, and a metric that is not a plain mean (a ratio, a
spread, a card impact) gets a delta-method interval from the gradient of its
function at the means and the covariance of the means. Games are independent,
so the covariance of the column means is the covariance of the per-game rows
over the number of games: the seats of one game are handled together, which
is what clustering by game means.

So one `Moments` per chunk (games, the column means, the centred cross-product
matrix, how many values of each column are not 0 or 1, and each column's smallest
and largest value and third and fourth central sums, which the intervals at the
edges need: `sim.analysis.intervals`)
holds all a report needs of that chunk, whatever the number of games. Two of them merge exactly
(Chan, Golub and LeVeque's pairwise update), in any order, to the moments of
the chunks together: the report of a million games merges a few hundred small
arrays instead of loading a billion rows. `of(values)` of a whole table equals
the merge of its chunks' up to floating-point rounding.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import ThreadpoolController

from sim.analysis.intervals import Bounds, Summary, mean_bounds, merge_central, share_bounds
from sim.analysis.stats import Z95, Estimate, t975
from sim.metrics import Means, Metric, matches

INF = math.inf
_blas: ThreadpoolController | None = None  # the process's BLAS, found on first use


def blas() -> ThreadpoolController:
    """The process's BLAS libraries, found once: finding them walks every loaded library
    (about 14 ms), so a study finds them before it forks its workers (`sim.runs.play`'s
    `load_engine`), which inherit them."""
    global _blas
    if _blas is None:
        _blas = ThreadpoolController()
    return _blas


def gram(d: np.ndarray) -> np.ndarray:
    """dᵀd on one BLAS thread: a tenth of einsum's time, and BLAS's own threads on a busy
    machine (the workers already fill every core) took a hundred times longer."""
    with blas().limit(limits=1, user_api="blas"):
        return d.T @ d


@dataclass(frozen=True)
class Moments:
    """n games; mean (k,), m2 (k, k) = Σ (x − mean)(x − mean)ᵀ, nonbinary (k,) counts of
    values that are not 0 or 1, lo, hi (k,) the smallest and largest value and m3, m4 (k,)
    the central sums Σ (x − mean)³ and ⁴, of the game-value columns `columns` (sorted)."""

    columns: tuple[str, ...]
    n: int
    mean: np.ndarray
    m2: np.ndarray
    nonbinary: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    m3: np.ndarray
    m4: np.ndarray

    @classmethod
    def of(cls, values: pd.DataFrame) -> Moments:
        """The moments of a game-values table (one row per game)."""
        columns = tuple(sorted(values.columns))
        return cls.of_matrix(columns, values.reindex(columns=list(columns)).to_numpy(float))

    @classmethod
    def of_matrix(cls, columns: tuple[str, ...], x: np.ndarray) -> Moments:
        """The moments of a matrix of per-game values, one row per game and one column per
        name in `columns` (sorted). Give it column-major (the layout `of` gets from a
        DataFrame): numpy then sums each column pairwise, and the moments are bit for bit
        those of the same values read from a table."""
        n = x.shape[0]
        if n == 0:
            return cls.empty(columns)
        mean = x.mean(axis=0)
        d = x - mean
        nonbinary = ((x != 0.0) & (x != 1.0)).sum(axis=0).astype(np.int64)
        m2 = gram(d)
        power = d * d  # then d³ and d⁴ in place: a fresh matrix costs more than its sums
        power *= d
        m3 = power.sum(axis=0)
        power *= d
        return cls(
            columns,
            int(n),
            mean,
            m2,
            nonbinary,
            x.min(axis=0),
            x.max(axis=0),
            m3,
            power.sum(axis=0),
        )

    @classmethod
    def empty(cls, columns: tuple[str, ...] = ()) -> Moments:
        """The moments of no games."""
        k = len(columns)
        return cls(
            columns,
            0,
            np.zeros(k),
            np.zeros((k, k)),
            np.zeros(k, np.int64),
            np.full(k, INF),
            np.full(k, -INF),
            np.zeros(k),
            np.zeros(k),
        )

    def expand(self, columns: tuple[str, ...]) -> Moments:
        """The same moments over more columns: a column this part lacks is NaN (as a whole
        table's missing column would be), so the merged value is NaN too."""
        if columns == self.columns:
            return self
        where = {c: i for i, c in enumerate(self.columns)}
        idx = np.array([where.get(c, -1) for c in columns])
        have = idx >= 0
        k = len(columns)
        mean = np.full(k, np.nan)
        mean[have] = self.mean[idx[have]]
        m2 = np.full((k, k), np.nan)
        m2[np.ix_(have, have)] = self.m2[np.ix_(idx[have], idx[have])]
        nonbinary = np.zeros(k, np.int64)
        nonbinary[have] = self.nonbinary[idx[have]]
        nonbinary[~have] = self.n
        lo, hi, m3, m4 = (np.full(k, np.nan) for _ in range(4))
        lo[have], hi[have] = self.lo[idx[have]], self.hi[idx[have]]
        m3[have], m4[have] = self.m3[idx[have]], self.m4[idx[have]]
        if self.n == 0:
            mean[~have], m2[:] = 0.0, np.where(np.isnan(m2), 0.0, m2)
            lo[~have], hi[~have], m3[~have], m4[~have] = INF, -INF, 0.0, 0.0
        return Moments(columns, self.n, mean, m2, nonbinary, lo, hi, m3, m4)

    def merge(self, other: Moments) -> Moments:
        """The moments of both parts' games together."""
        columns = tuple(sorted(set(self.columns) | set(other.columns)))
        a, b = self.expand(columns), other.expand(columns)
        if a.n == 0:
            return b
        if b.n == 0:
            return a
        n = a.n + b.n
        delta = b.mean - a.mean
        mean = a.mean + delta * (b.n / n)
        m2 = a.m2 + b.m2 + np.outer(delta, delta) * (a.n * b.n / n)
        lo, hi = np.minimum(a.lo, b.lo), np.maximum(a.hi, b.hi)  # NaN stays NaN
        diag_a = (a.mean, np.diag(a.m2), a.m3, a.m4)
        _, _, m3, m4 = merge_central(a.n, diag_a, b.n, (b.mean, np.diag(b.m2), b.m3, b.m4))
        return Moments(columns, n, mean, m2, a.nonbinary + b.nonbinary, lo, hi, m3, m4)

    @staticmethod
    def combine(parts: Iterable[Moments]) -> Moments:
        """Merge any number of parts (pairwise, so rounding does not pile up)."""
        level = list(parts)
        if not level:
            return Moments.empty()
        while len(level) > 1:
            level = [
                level[i].merge(level[i + 1]) if i + 1 < len(level) else level[i]
                for i in range(0, len(level), 2)
            ]
        return level[0]

    def cov(self) -> np.ndarray:
        """Sample covariance of the per-game rows (ddof 1)."""
        return self.m2 / (self.n - 1) if self.n > 1 else np.full_like(self.m2, np.nan)

    def index(self, column: str) -> int:
        return self.columns.index(column)

    def select(self, columns: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Mean vector and row covariance of some columns."""
        idx = [self.index(c) for c in columns]
        return self.mean[idx], self.cov()[np.ix_(idx, idx)]

    def summary(self, column: str) -> Summary:
        """One column's sums, as the interval functions of `sim.analysis.intervals` read them."""
        j = self.index(column)
        return Summary(
            self.n,
            float(self.mean[j]),
            float(self.m2[j, j]),
            float(self.lo[j]),
            float(self.hi[j]),
            bool(self.nonbinary[j] == 0),
            float(self.m4[j]),
        )

    def summary_if_any(self, column: str) -> Summary | None:
        """`summary`, or None when the column is absent or holds a NaN or there are fewer
        than two games (a comparison's direct interval then leaves it to the bootstrap)."""
        if column not in self.columns:
            return None
        s = self.summary(column)
        return s if s.n >= 2 and math.isfinite(s.mean) and math.isfinite(s.m2) else None

    # ------------------------------------------------------------ storage as plain arrays

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {
            "columns": np.array(self.columns, dtype=str),
            "n": np.array(self.n),
            "mean": self.mean,
            # m2 is symmetric: its upper triangle, row by row (half the bytes of a file)
            "m2_upper": self.m2[np.triu_indices(len(self.columns))],
            "nonbinary": self.nonbinary,
            "lo": self.lo,
            "hi": self.hi,
            "m3": self.m3,
            "m4": self.m4,
        }

    @classmethod
    def from_arrays(cls, arrays) -> Moments:
        columns = tuple(str(c) for c in arrays["columns"])
        if "m2_upper" in arrays:
            k = len(columns)
            m2 = np.zeros((k, k))
            m2[np.triu_indices(k)] = arrays["m2_upper"]
            m2 = m2 + np.triu(m2, 1).T
        else:  # files written before the triangle
            m2 = np.asarray(arrays["m2"], float)
        return cls(
            columns,
            int(arrays["n"]),
            np.asarray(arrays["mean"], float),
            m2,
            np.asarray(arrays["nonbinary"], np.int64),
            np.asarray(arrays["lo"], float),  # older files lack these: computed again
            np.asarray(arrays["hi"], float),
            np.asarray(arrays["m3"], float),
            np.asarray(arrays["m4"], float),
        )


# ---------------------------------------------------------------- estimates from moments

# Metrics that are a part of a count over the whole count (closed boxes of all boxes, dead
# copies of all copies held): their delta-method interval is kept inside [0, 1].
PARTS_OF_A_WHOLE = ("closed_share", "dead_card_rate", "dead_rate.")


def evaluate(moments: Moments, metrics: list[Metric], mean: np.ndarray | None = None) -> np.ndarray:
    """Each metric's function at the column means (or at `mean`, rows x columns)."""
    rows = moments.mean[None, :] if mean is None else np.atleast_2d(mean)
    m = Means(rows, list(moments.columns))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.column_stack([np.asarray(metric.fn(m), float) for metric in metrics])


def mean_estimate(
    moments: Moments, column: str, bounds: Bounds = (-INF, INF), z: float = Z95
) -> Estimate:
    """One column's mean with the interval of `sim.analysis.intervals.mean_bounds` (the t
    interval for spread-out values; honest for near-constant ones), inside `bounds`."""
    s = moments.summary(column)
    lo, hi = mean_bounds(s, bounds, z)
    return Estimate(s.mean, lo, hi, s.n)


def share_estimate(moments: Moments, column: str, z: float = Z95) -> Estimate:
    """A share of games (`sim.analysis.stats.win_share_ci`): Wilson when every value is 0 or 1,
    else `mean_estimate` inside [0, 1]."""
    s = moments.summary(column)
    if s.binary and s.n > 0:  # a count of games, exactly (the mean of 0/1 values)
        s = Summary(s.n, round(s.mean * s.n) / s.n, s.m2, s.lo, s.hi, True, s.m4)
    lo, hi = share_bounds(s, z)
    return Estimate(s.mean, lo, hi, s.n)


def delta_se(moments: Moments, metric: Metric, value: float) -> float:
    """The delta method's standard error of a smooth function of the means, sqrt(gᵀ Σ g / n):
    g the function's gradient (central differences), Σ the per-game covariance (NaN when
    it cannot be computed)."""
    n = moments.n
    used = [j for j, c in enumerate(moments.columns) if matches(c, metric.columns)]
    if n < 2 or not used or not np.isfinite(value):
        return float("nan")
    cov = moments.cov()[np.ix_(used, used)]
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    steps = np.where(sd > 0, sd, 1.0) * 1e-4
    rows = np.repeat(moments.mean[None, :], 2 * len(used), axis=0)
    for i, j in enumerate(used):
        rows[2 * i, j] += steps[i]
        rows[2 * i + 1, j] -= steps[i]
    f = evaluate(moments, [metric], rows)[:, 0]
    grad = (f[0::2] - f[1::2]) / (2 * steps)
    grad = np.where(np.isfinite(grad), grad, 0.0)
    return math.sqrt(max(float(grad @ cov @ grad), 0.0) / n)


def delta_estimate(moments: Moments, metric: Metric, value: float) -> Estimate:
    """Delta-method 95% interval of a smooth function of the means: value ± t·`delta_se`."""
    n = moments.n
    se = delta_se(moments, metric, value)
    if not math.isfinite(se):
        return Estimate(value, float("nan"), float("nan"), n)
    half = t975(n - 1) * se
    lo, hi = value - half, value + half
    if metric.name.startswith(PARTS_OF_A_WHOLE):  # a share of a count: never outside [0, 1]
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    return Estimate(value, lo, hi, n)


# How each interval method is named in tables and summary.json.
_METHOD = {"mean": "mean", "wilson": "wilson", "joint": "joint", "bootstrap": "delta method"}


def measured(metric: Metric, columns) -> bool:
    """Do the games hold what the metric is the mean of? (Other metrics read NaN for a
    missing column and say so in their value.)"""
    return metric.interval not in ("mean", "wilson") or metric.columns[0] in columns


def estimate_from_moments(moments: Moments, metrics: list[Metric], balance) -> pd.DataFrame:
    """Each metric's value with the 95% interval its `interval` names (see
    `sim.analysis.balance.estimate_metrics`); "bootstrap" metrics get the delta-method
    interval, which costs one pass over the games. `balance(mean, cov, games)` gives the
    joint metric's (value, lo, hi) from the seat shares' mean and row covariance. A
    metric that is the mean of a column the games do not hold (the feel, when a study did not
    measure it) is left out."""
    metrics = [m for m in metrics if measured(m, moments.columns)]
    point = evaluate(moments, metrics)[0]
    rows = []
    for m, value in zip(metrics, point, strict=True):
        value = float(value)
        if m.interval == "joint":
            seats = sorted(
                (c for c in moments.columns if c.startswith("seat")),
                key=lambda c: int(c.removeprefix("seat")),
            )
            mean, cov = moments.select(seats)
            _, lo, hi = balance(mean, cov, moments.n)
            e = Estimate(value, lo, hi, moments.n)
        elif m.interval == "wilson":
            base = share_estimate(moments, m.columns[0])
            shift = value - base.value  # a fixed offset such as −1/players
            e = Estimate(value, base.lo + shift, base.hi + shift, base.n)
        elif m.interval == "mean":
            base = mean_estimate(moments, m.columns[0], m.value_range)
            shift = value - base.value  # a fixed offset such as −1/players
            e = Estimate(value, base.lo + shift, base.hi + shift, base.n)
        else:
            e = delta_estimate(moments, m, value)
        rows.append(
            {
                "metric": m.name,
                "label": m.label,
                "unit": m.unit,
                "interval": _METHOD[m.interval],
                "value": value,
                "lo": float(e.lo),
                "hi": float(e.hi),
                "n": int(e.n),
            }
        )
    return pd.DataFrame(rows)


__all__ = ["Moments", "Z95", "delta_estimate", "delta_se", "estimate_from_moments", "evaluate"]
