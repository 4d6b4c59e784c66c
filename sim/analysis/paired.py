"""Paired comparisons and sweep statistics on common random numbers.

Two configs (or two sweep points) that play the same game indices share each
game's luck, so the sharp way to compare them is game by game. Everything here
works in two steps:

1. `game_values` (`sim.analysis.values`) turns a run's tables into one row per
   game of plain numbers (seat 0's win share, turns, the summed box points, ...).
2. Every metric of the registry (`sim.metrics`) is a function of the *means*
   of those columns (a win share is a mean; a box value is a ratio of two
   means; a score spread needs the mean and the mean square). The bootstrap
   resamples game indices once, as a matrix of multinomial counts, and gets
   every column's resampled means with one matrix product; the metrics are then
   evaluated on all resamples at once.

Paired intervals use the *same* resampled game indices for A and B, so the
game-to-game luck cancels in B - A; unpaired intervals resample A and B
independently on the same data, to show how much the pairing buys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.values import game_values
from sim.metrics import CORE_METRICS, Means, Metric, metrics_for, quiet_nan

__all__ = [  # the registry's names stay importable from here
    "CORE_METRICS",
    "LEVEL",
    "RESAMPLES",
    "Means",
    "Metric",
    "SweepStats",
    "Verdict",
    "bootstrap_draws",
    "compare_runs",
    "game_values",
    "metric_points",
    "metrics_for",
    "resample_counts",
    "summarize_compare",
    "sweep_result_stats",
    "sweep_stats",
    "target_miss",
    "target_verdict",
]

RESAMPLES = 2000
LEVEL = 0.95
_BLOCK = 250  # resamples per count matrix: 250 x 10,000 games is 20 MB


# ---------------------------------------------------------------- the bootstrap


def resample_counts(n: int, resamples: int, rng: np.random.Generator, block: int = _BLOCK):
    """Blocks of bootstrap counts (block x n floats): how often each game is drawn."""
    done = 0
    while done < resamples:
        b = min(block, resamples - done)
        idx = rng.integers(0, n, size=(b, n))
        flat = (idx + (np.arange(b) * n)[:, None]).ravel()
        yield np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)
        done += b


def bootstrap_draws(
    tables: list[pd.DataFrame],
    metrics: list[Metric],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    paired: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Point values (tables x metrics) and bootstrap draws (tables x resamples x metrics).

    Paired: every table is resampled with the same game indices (the tables
    must hold the same games). Unpaired: each table gets its own resamples.
    """
    index = tables[0].index
    for t in tables[1:]:
        if not t.index.equals(index):
            raise ValueError("paired bootstrap needs the same game indices in every table")
    columns = sorted(set().union(*(t.columns for t in tables)))
    mats = [t.reindex(columns=columns).to_numpy(float) for t in tables]
    n = len(index)
    point = np.stack([metric_points(t, metrics) for t in tables])
    root = np.random.SeedSequence(seed)
    streams = [np.random.default_rng(s) for s in root.spawn(1 if paired else len(tables))]
    draws = np.empty((len(tables), resamples, len(metrics)))
    if paired:
        start = 0
        for counts in resample_counts(n, resamples, streams[0]):
            stop = start + counts.shape[0]
            for t, mat in enumerate(mats):
                draws[t, start:stop] = _evaluate(counts @ mat / n, columns, metrics)
            start = stop
    else:
        for t, mat in enumerate(mats):
            start = 0
            for counts in resample_counts(n, resamples, streams[t]):
                stop = start + counts.shape[0]
                draws[t, start:stop] = _evaluate(counts @ mat / n, columns, metrics)
                start = stop
    return point, draws


def metric_points(values: pd.DataFrame, metrics: list[Metric]) -> np.ndarray:
    """Each metric on the column means of one game-values table (what bootstrap_draws gives)."""
    columns = sorted(values.columns)
    means = values.reindex(columns=columns).to_numpy(float).mean(axis=0, keepdims=True)
    return _evaluate(means, columns, metrics)[0]


def _evaluate(means: np.ndarray, columns: list[str], metrics: list[Metric]) -> np.ndarray:
    """Every metric on every row of resampled means: rows x metrics."""
    m = Means(means, columns)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.column_stack([np.asarray(metric.fn(m), float) for metric in metrics])


def _interval(draws: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column (NaN where a column is all NaN)."""
    tail = 50 * (1 - level)
    with quiet_nan():
        lo, hi = np.nanpercentile(draws, [tail, 100 - tail], axis=-2)
    return lo, hi


# ---------------------------------------------------------------- paired comparison


def _values_of(run: Any, cards: bool) -> pd.DataFrame:
    """game_values of a RunResult-like object or a dict of tables."""
    get = run.__getitem__ if isinstance(run, Mapping) else lambda name: getattr(run, name)
    return game_values(get("games"), get("players"), get("cards") if cards else None)


def compare_runs(
    a: Any,
    b: Any,
    *,
    labels: tuple[str, str] = ("A", "B"),
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    cards: bool = True,
) -> pd.DataFrame:
    """Every metric for A and B and the paired difference B − A with its interval.

    `a` and `b` are RunResults (or dicts of the 'games', 'players', 'cards'
    tables) over the same game indices. Columns: metric, label, group, a, b,
    diff, lo, hi (paired interval), unpaired_lo, unpaired_hi, width,
    unpaired_width, width_ratio (paired / unpaired) and real (the paired
    interval excludes 0). `attrs` holds the labels, games, resamples and level.
    """
    va, vb = _values_of(a, cards), _values_of(b, cards)
    metrics = metrics_for(sorted(set(va.columns) | set(vb.columns)))
    point, paired = bootstrap_draws([va, vb], metrics, resamples=resamples, seed=seed)
    _, unpaired = bootstrap_draws(
        [va, vb], metrics, resamples=resamples, seed=seed + 1, paired=False
    )
    diff = point[1] - point[0]
    lo, hi = _interval(paired[1] - paired[0], level)
    ulo, uhi = _interval(unpaired[1] - unpaired[0], level)
    out = pd.DataFrame(
        {
            "metric": [m.name for m in metrics],
            "label": [m.label for m in metrics],
            "group": [m.group for m in metrics],
            "a": point[0],
            "b": point[1],
            "diff": diff,
            "lo": lo,
            "hi": hi,
            "unpaired_lo": ulo,
            "unpaired_hi": uhi,
        }
    )
    out["width"] = out["hi"] - out["lo"]
    out["unpaired_width"] = out["unpaired_hi"] - out["unpaired_lo"]
    with np.errstate(divide="ignore", invalid="ignore"):
        out["width_ratio"] = out["width"] / out["unpaired_width"]
    out["real"] = (out["lo"] > 0) | (out["hi"] < 0)
    out = out[out[["a", "b"]].notna().any(axis=1)].reset_index(drop=True)
    out.attrs.update(
        labels=tuple(labels), games=len(va), resamples=resamples, level=level, seed=seed
    )
    return out


def summarize_compare(table: pd.DataFrame) -> str:
    """A few plain lines: what changed for real, and how much narrower pairing made it."""
    la, lb = table.attrs.get("labels", ("A", "B"))
    real = table[table["real"]]
    lines = [
        f"{lb} vs {la}, {table.attrs.get('games', '?')} paired games: "
        f"{len(real)} of {len(table)} metrics differ for real at "
        f"{table.attrs.get('level', LEVEL):.0%}."
    ]
    for row in real.head(8).itertuples():
        lines.append(
            f"  {row.label}: {row.a:.4g} -> {row.b:.4g}"
            f" ({row.diff:+.4g} [{row.lo:+.4g}, {row.hi:+.4g}])"
        )
    ratio = table["width_ratio"].replace([np.inf, -np.inf], np.nan).dropna()
    if len(ratio):
        lines.append(
            f"Paired intervals are {ratio.median():.0%} of the unpaired width"
            " (median over metrics)."
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- sweeps


@dataclass
class SweepStats:
    """Each metric at each sweep point, the paired change from the first point, and a verdict."""

    table: pd.DataFrame  # long: point, label, metric, metric_label, group, value, lo, hi, diff...
    verdict: Verdict | None
    metrics: list[Metric] = field(default_factory=list)


@dataclass
class Verdict:
    """Which point best meets the study's targets, and which points are within noise of it."""

    best: int
    ranking: pd.DataFrame  # point, label, miss, gap, gap_lo, gap_hi, within_noise
    text: str


def sweep_stats(
    runs: list[Any],
    labels: list[str],
    *,
    targets: Mapping[str, float | tuple[float, float]] | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    cards: bool = True,
) -> SweepStats:
    """Metrics per point with intervals, paired changes from point 0, and the target verdict.

    `runs` are RunResults (or table dicts) over the same game indices, one per
    point; use `sweep_result_stats` for a SweepResult.
    """
    values = [_values_of(r, cards) for r in runs]
    metrics = metrics_for(sorted(set().union(*(v.columns for v in values))))
    point, draws = bootstrap_draws(values, metrics, resamples=resamples, seed=seed)
    lo, hi = _interval(draws, level)
    dlo, dhi = _interval(draws - draws[:1], level)
    rows = []
    for p, label in enumerate(labels):
        for j, m in enumerate(metrics):
            rows.append(
                {
                    "point": p,
                    "label": label,
                    "metric": m.name,
                    "metric_label": m.label,
                    "group": m.group,
                    "value": point[p, j],
                    "lo": lo[p, j],
                    "hi": hi[p, j],
                    "diff": point[p, j] - point[0, j],
                    "diff_lo": dlo[p, j],
                    "diff_hi": dhi[p, j],
                }
            )
    table = pd.DataFrame(rows)
    table["real"] = (table["point"] > 0) & ((table["diff_lo"] > 0) | (table["diff_hi"] < 0))
    table = table[table.groupby("metric")["value"].transform(lambda v: v.notna().any())]
    table = table.reset_index(drop=True)
    table.attrs.update(games=len(values[0]), resamples=resamples, level=level)
    verdict = None
    if targets:
        names = [m.name for m in metrics]
        verdict = target_verdict(point, draws, names, labels, dict(targets), level)
    return SweepStats(table=table, verdict=verdict, metrics=metrics)


def sweep_result_stats(result: Any, **kwargs) -> SweepStats:
    """sweep_stats for a sim.studies.SweepResult, with the study's targets."""
    kwargs.setdefault("targets", result.study.targets)
    return sweep_stats(result.runs, result.labels, **kwargs)


def target_miss(value: np.ndarray, target: float | tuple[float, float]) -> np.ndarray:
    """Distance from a target: |v − t| for a number, distance outside [lo, hi] for a range."""
    if isinstance(target, tuple | list):
        lo, hi = target
        return np.maximum(np.maximum(lo - value, value - hi), 0.0)
    return np.abs(value - target)


def _off_centre(value: np.ndarray, target: float | tuple[float, float]) -> np.ndarray:
    """Distance from the middle of a range target (0 for number targets): the tie-break."""
    if isinstance(target, tuple | list):
        return np.abs(value - (target[0] + target[1]) / 2)
    return np.zeros_like(value)


def target_verdict(
    point: np.ndarray,
    draws: np.ndarray,
    names: list[str],
    labels: list[str],
    targets: Mapping[str, float | tuple[float, float]],
    level: float = LEVEL,
) -> Verdict:
    """Rank points by their summed target miss, each metric in units of its bootstrap sd.

    `point` is points x metrics, `draws` points x resamples x metrics (the same
    resampled games at every point), `names` the metric names of the last axis.
    A point is within noise of the best when the paired bootstrap interval of
    its miss minus the best's miss reaches 0 (same resampled games for both).
    """
    cols = [names.index(t) for t in targets]
    with quiet_nan():
        sd = np.nanmean(np.nanstd(draws[:, :, cols], axis=1), axis=0)
    scale = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)

    def total(vals: np.ndarray, fn) -> np.ndarray:  # vals: ... x targets
        parts = [fn(vals[..., i], t) / scale[i] for i, t in enumerate(targets.values())]
        return np.nansum(parts, axis=0)

    miss = total(point[:, cols], target_miss)
    centre = total(point[:, cols], _off_centre)
    best = int(np.lexsort((centre, miss))[0])
    boot = total(draws[:, :, cols], target_miss)  # points x resamples
    gap_lo, gap_hi = _interval((boot - boot[best])[..., None], level)
    ranking = pd.DataFrame(
        {
            "point": range(len(labels)),
            "label": labels,
            "miss": miss,
            "gap": miss - miss[best],
            "gap_lo": gap_lo[:, 0],
            "gap_hi": gap_hi[:, 0],
        }
    )
    ranking["within_noise"] = ranking["gap_lo"] <= 0
    for name, col in zip(targets, cols, strict=True):
        ranking[name] = point[:, col]
    ranking = ranking.sort_values(["miss", "point"]).reset_index(drop=True)
    return Verdict(best=best, ranking=ranking, text=_verdict_text(ranking, best, labels, targets))


def _verdict_text(ranking: pd.DataFrame, best: int, labels, targets) -> str:
    want = ", ".join(
        f"{k} in [{v[0]:g}, {v[1]:g}]" if isinstance(v, tuple | list) else f"{k} = {v:g}"
        for k, v in targets.items()
    )
    row = ranking[ranking["point"] == best].iloc[0]
    got = ", ".join(f"{k} {row[k]:.4g}" for k in targets)
    close = ranking[(ranking["point"] != best) & ranking["within_noise"]]["label"].tolist()
    worse = ranking[~ranking["within_noise"]]["label"].tolist()
    text = f"Targets: {want}. Best: {labels[best]} ({got})."
    if close:
        text += f" Within noise of it: {', '.join(close)}."
    else:
        text += " Every other point is clearly worse."
    if worse and close:
        text += f" Clearly worse: {', '.join(worse)}."
    return text
