"""How far a candidate is from the designer's targets, and which candidates no other beats.

Pure functions over numbers and DataFrames, shared by `sim tune`, its report
and its benchmark.

Scaling. Each target is a band [c - h, c + h] (`sim.metrics.target_band`: a
value within a margin, or a range as written). A candidate's miss on that
target is its estimate's distance from the band's centre in units of the
band's half-width, z = |v - c| / h, so z < 1 means "inside the band" for every
target alike, whatever its unit. The distance of a candidate is the root sum
of squares of its misses, D = sqrt(sum z_i^2): D <= 1 implies that every
estimate lies inside its band, and a target missed by twice its margin
costs as much as two targets each missed by 1.41 margins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from sim.metrics import target_band


def target_misses(values: Mapping[str, float], targets: Mapping[str, Any]) -> dict[str, float]:
    """Each target's miss z = |estimate - band centre| / band half-width."""
    out = {}
    for name, target in targets.items():
        lo, hi = target_band(name, target)
        centre, half = (lo + hi) / 2, max((hi - lo) / 2, 1e-12)
        out[name] = abs(float(values[name]) - centre) / half
    return out


def target_distance(values: Mapping[str, float], targets: Mapping[str, Any]) -> float:
    """D = sqrt(sum of squared misses): the one number the search minimises."""
    misses = target_misses(values, targets)
    return float(np.sqrt(sum(z * z for z in misses.values())))


def pareto_front(misses: np.ndarray) -> np.ndarray:
    """Indices of the rows (candidates x targets, lower is better) that no other row
    dominates (as good on every target and better on one), in row order."""
    misses = np.asarray(misses, dtype=float)
    keep = []
    for i, row in enumerate(misses):
        beaten = np.all(misses <= row, axis=1) & np.any(misses < row, axis=1)
        if not beaten.any():
            keep.append(i)
    return np.array(keep, dtype=int)


def best_so_far(trace: pd.DataFrame) -> pd.DataFrame:
    """From rows (games spent, distance) in evaluation order, the running minimum distance."""
    out = trace[["games", "distance"]].copy()
    out["best"] = out["distance"].cummin()
    return out


def parameter_effects(frame: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """Each parameter's importance: the share of the distance's variance across candidates
    that the parameter's values explain on their own (a one-way eta squared).

    Rows: parameter, importance (0..1), best value (the value whose candidates have the
    lowest mean distance), levels (distinct values tried).
    """
    rows = []
    y = frame["distance"].to_numpy(float)
    if not len(y):  # nothing searched (the start met every target)
        return pd.DataFrame(columns=["parameter", "importance", "best_value", "levels"])
    total = float(((y - y.mean()) ** 2).sum())
    for p in params:
        groups = frame.groupby(frame[p].astype(str))["distance"]
        means, sizes = groups.mean(), groups.size()
        between = float((sizes * (means - y.mean()) ** 2).sum())
        rows.append(
            {
                "parameter": p,
                "importance": between / total if total > 0 else 0.0,
                "best_value": means.idxmin() if len(means) else None,
                "levels": int(len(means)),
            }
        )
    return pd.DataFrame(rows).sort_values("importance", ascending=False, ignore_index=True)
