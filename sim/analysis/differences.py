"""Intervals of comparisons and sweeps for the registry's plain means, from sums that merge.

A "mean" or "wilson" metric (`sim.metrics.INTERVALS`) is the mean of one game-value
column plus a fixed offset, so a comparison needs of each point only that column's
sums, and of each pair of points the sums of the per-game differences B − A (the same
game index on both sides: common random numbers). The run report's record of a chunk,
`sim.analysis.moments.Moments`, keeps them: per column the number of games, the mean, the
centred sums of squares, cubes and fourth powers, the smallest and largest value and how
many values are not 0 or 1, merged exactly in any order (Chan et al.'s update), so the
streaming comparison keeps its design.

From them (`sim.analysis.intervals`):

* a point's value: Wilson for a share of games, the edge-honest mean interval else;
* a paired difference: Tango's score interval when both sides are 0/1 outcomes (from
  the discordant games: never zero width while either outcome is possible, never
  outside [−1, 1]), else the mean interval of the per-game differences inside the
  range a difference can take;
* an independent difference (B played on other seeds): Newcombe's MOVER from the two
  points' intervals;

each with the p-value of "no difference" that inverts the same interval, so the verdict
and the interval shown beside it cannot disagree. Every other metric (ratios, spreads,
balance, card impact) keeps the Poisson bootstrap (`sim.analysis.replicates`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from sim.analysis.intervals import (
    Summary,
    discordant,
    mean_bounds,
    mover,
    p_value,
    share_bounds,
    tango_bounds,
    z_of,
)
from sim.metrics import Metric

INF = math.inf
DIRECT = ("mean", "wilson")  # the interval kinds computed here rather than bootstrapped


def point_bounds(metric: Metric, s: Summary, z: float) -> tuple[float, float]:
    """The interval of one point's column mean: a share's (Wilson) or a mean's."""
    if metric.interval == "wilson":
        if s.binary:  # a count of games, exactly
            s = Summary(s.n, round(s.mean * s.n) / s.n, s.m2, s.lo, s.hi, True, s.m4)
        return share_bounds(s, z)
    return mean_bounds(s, metric.value_range, z)


def difference_range(metric: Metric) -> tuple[float, float]:
    """The range a per-game difference of the metric's column can take."""
    lo, hi = metric.value_range
    return lo - hi, hi - lo


@dataclass(frozen=True)
class Difference:
    """B − A of one metric with its interval, p-value and the method's name."""

    value: float
    lo: float
    hi: float
    p: float
    method: str


def paired_difference(
    metric: Metric, a: Summary, b: Summary, d: Summary, value: float, level: float = 0.95
) -> Difference:
    """B − A on the same games: Tango's interval for two 0/1 outcomes, else the mean interval
    of the per-game differences `d`; `value` is the metric's B − A (the column means'
    difference plus the change of a fixed offset, which shifts the interval)."""
    shift = value - d.mean
    if metric.interval == "wilson" and a.binary and b.binary:
        bb, cc = discordant(d)

        def at(z: float) -> tuple[float, float]:
            lo, hi = tango_bounds(d.n, bb, cc, z)
            return lo + shift, hi + shift

        method = "paired score (Tango)"
    else:
        bounds = difference_range(metric)

        def at(z: float) -> tuple[float, float]:
            lo, hi = mean_bounds(d, bounds, z)
            return lo + shift, hi + shift

        method = "paired mean"
    lo, hi = at(z_of(level))
    return Difference(value, lo, hi, p_value(at), method)


def independent_difference(
    metric: Metric, a: Summary, b: Summary, value: float, level: float = 0.95
) -> Difference:
    """B − A of independent points: Newcombe's MOVER from the two points' intervals."""
    shift = value - (b.mean - a.mean)

    def at(z: float) -> tuple[float, float]:
        la, ua = point_bounds(metric, a, z)
        lb, ub = point_bounds(metric, b, z)
        lo, hi = mover((a.mean, la, ua), (b.mean, lb, ub))
        return lo + shift, hi + shift

    lo, hi = at(z_of(level))
    return Difference(value, lo, hi, p_value(at), "independent (MOVER)")


# ---------------------------------------------------------------- applied to tables
# `streamed` is a `sim.analysis.paired.Streamed`: per point `sums` and `differences`.


def _summaries(streamed, metric: Metric, points: list[int]):
    """The column sums of a plain-mean metric at some points and of their differences from
    point 0, or None (no sums streamed, a column missing or NaN: the bootstrap's then)."""
    if metric.interval not in DIRECT or streamed.sums is None or streamed.differences is None:
        return None
    column = metric.columns[0]
    found = [streamed.sums[0].summary_if_any(column)]
    found += [streamed.sums[i].summary_if_any(column) for i in points]
    found += [streamed.differences[i].summary_if_any(column) for i in points]
    return None if any(s is None for s in found) else found


def direct_differences(
    out: pd.DataFrame, metrics: list[Metric], streamed, paired: bool, level: float
) -> None:
    """Replace the bootstrap's intervals and p of the plain-mean metrics of a comparison by
    the paired (or independent) intervals above."""
    at = {name: i for i, name in enumerate(out["metric"])}
    cols = {c: out[c].to_numpy(copy=True) for c in ("lo", "hi", "p", "unpaired_lo", "unpaired_hi")}
    method = out["interval"].to_numpy(copy=True)
    diff = out["diff"].to_numpy(float)
    for m in metrics:
        found = _summaries(streamed, m, [1])
        if found is None or m.name not in at:
            continue
        a, b, d = found
        i = at[m.name]
        ind = independent_difference(m, a, b, float(diff[i]), level)
        use = paired_difference(m, a, b, d, float(diff[i]), level) if paired else ind
        cols["lo"][i], cols["hi"][i], cols["p"][i], method[i] = use.lo, use.hi, use.p, use.method
        cols["unpaired_lo"][i], cols["unpaired_hi"][i] = ind.lo, ind.hi
    for c, v in cols.items():
        out[c] = v
    out["interval"] = method


def direct_sweep(
    table: pd.DataFrame, metrics: list[Metric], streamed, points: int, level: float
) -> None:
    """The plain-mean metrics of a sweep: each point's interval from its column sums, each
    change from point 0 paired game by game."""
    z = z_of(level)
    k = len(metrics)
    cols = {c: table[c].to_numpy(copy=True) for c in ("lo", "hi", "diff_lo", "diff_hi", "p")}
    method = table["interval"].to_numpy(copy=True)
    value, diff = table["value"].to_numpy(float), table["diff"].to_numpy(float)
    for j, m in enumerate(metrics):
        found = _summaries(streamed, m, list(range(1, points)))
        if found is None:
            continue
        sums, diffs = found[:points], found[points:]
        for p in range(points):
            i = p * k + j  # rows are point-major, in metric order
            lo, hi = point_bounds(m, sums[p], z)
            shift = value[i] - sums[p].mean
            cols["lo"][i], cols["hi"][i] = lo + shift, hi + shift
            if p == 0:
                continue
            d = paired_difference(m, sums[0], sums[p], diffs[p - 1], float(diff[i]), level)
            cols["diff_lo"][i], cols["diff_hi"][i], cols["p"][i] = d.lo, d.hi, d.p
            method[i] = d.method
    for c, v in cols.items():
        table[c] = v
    table["interval"] = method
