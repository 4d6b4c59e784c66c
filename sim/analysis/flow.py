"""Scores and game flow of a run: each seat's score and its parts, distributions, how long
games last, how they end (`sim run`'s page)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.balance import run_metrics
from sim.analysis.stats import clustered_mean_ci, mean_ci, wilson

# ---------------------------------------------------------------- scores


def score_summary(players: pd.DataFrame, by: str = "seat") -> pd.DataFrame:
    """Score distribution per seat or policy: mean with interval, spread, quantiles, n."""
    rows = []
    for key, g in players.groupby(by, sort=True):
        s = g["score"].to_numpy()
        e = clustered_mean_ci(s, g["game"].to_numpy())
        q10, q50, q90 = np.quantile(s, [0.1, 0.5, 0.9])
        rows.append(
            {
                by: key,
                "mean": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "sd": s.std(ddof=1),
                "min": s.min(),
                "p10": q10,
                "median": q50,
                "p90": q90,
                "max": s.max(),
                "n": e.n,
            }
        )
    return pd.DataFrame(rows)


POINT_PARTS = ("box_points", "cat_bonus", "doubling_points", "negative_points")


def points_breakdown(players: pd.DataFrame, by: str = "policy") -> pd.DataFrame:
    """Mean points per seat-game by source; box_points already includes doubling and negatives."""
    cols = ["score", *POINT_PARTS, "boxes_led", "closed_boxes_led"]
    out = players.groupby(by, sort=True)[cols].mean().reset_index()
    out["n"] = players.groupby(by, sort=True).size().to_numpy()
    return out


def distribution(values: pd.Series, name: str = "value") -> pd.DataFrame:
    """Counts and shares of each distinct value, sorted by value (for discrete histograms)."""
    counts = values.value_counts().sort_index()
    return pd.DataFrame(
        {
            name: counts.index.to_numpy(),
            "count": counts.to_numpy(),
            "share": counts.to_numpy() / counts.sum(),
        }
    )


# ---------------------------------------------------------------- game flow


def _mean_row(metric: str, values) -> dict:
    """metric, mean with interval, median, min, max and n of per-game values."""
    x = np.asarray(values, dtype=float)
    e = mean_ci(x)
    return {
        "metric": metric,
        "mean": e.value,
        "lo": e.lo,
        "hi": e.hi,
        "median": np.median(x),
        "min": x.min(),
        "max": x.max(),
        "n": e.n,
    }


FLOW_METRICS = ("turns", "items_wasted", "closed_share", "margin")  # from the registry


def flow_summary(games: pd.DataFrame) -> pd.DataFrame:
    """Per-game means with intervals: turns, items wasted, boxes, closed share, margin, cats.

    Columns: metric, label, unit, mean, lo, hi, median, min, max, n. The rows
    named in FLOW_METRICS are the registry's metrics (value and interval as in
    `headline` and in sweeps); median, min and max describe the per-game values.
    The closed share is all closed boxes over all boxes (games without a box add
    nothing to either), its median, min and max those of the per-game shares,
    and n the games with at least one box.
    """
    # hand-made frames may lack the game column; the flow rows do not need real indices
    indexed = games if "game" in games else games.rename_axis("game").reset_index()
    registry = run_metrics(indexed, None, FLOW_METRICS)
    registry = registry.set_index("metric")
    closed_share = games["closed_boxes"] / games["boxes"].where(games["boxes"] > 0)
    rows = [
        _mean_row("turns", games["turns"]),
        _mean_row("items_wasted", games["items_wasted"]),
        _mean_row("boxes", games["boxes"]),
        _mean_row("closed_boxes", games["closed_boxes"]),
        _mean_row("closed_share", closed_share.dropna()),
        _mean_row("cards_on_table", games["cards_on_table"]),
        _mean_row("cats_on_table", games["cats_on_table"]),
        _mean_row("discards", games["discards"]),
        _mean_row("margin", games["margin"]),
    ]
    for row in rows:
        row["label"], row["unit"] = row["metric"], "count"
        if row["metric"] in registry.index:
            r = registry.loc[row["metric"]]
            row.update(label=r["label"], unit=r["unit"], mean=r["value"], lo=r["lo"], hi=r["hi"])
    cols = ["metric", "label", "unit", "mean", "lo", "hi", "median", "min", "max", "n"]
    return pd.DataFrame(rows)[cols]


def end_triggers(games: pd.DataFrame) -> pd.DataFrame:
    """Which end trigger fired (R7.1): games, share and Wilson interval for each."""
    n = len(games)
    counts = games["end_trigger"].astype(str).value_counts()
    rows = []
    for trigger, k in counts.items():
        e = wilson(int(k), n)
        rows.append(
            {
                "end_trigger": trigger,
                "games": int(k),
                "share": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "n": n,
            }
        )
    return pd.DataFrame(rows)
