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

The registry's plain means ("mean" and "wilson" metrics: shares, turns, margins)
instead get intervals built for bounded and discrete data from per-column sums of
each point and of the per-game differences (`sim.analysis.differences`: Tango's
paired score interval for two 0/1 outcomes, the edge-honest mean interval else), which
a percentile bootstrap cannot give at the edges: of two rare endings it resamples
[0, 0] whenever neither occurred among the games played.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from sim import units
from sim.analysis.balance import with_model_noise
from sim.analysis.differences import direct_differences, direct_sweep
from sim.analysis.inference import ALPHA, adjust, family_note, p_from_draws
from sim.analysis.moments import Moments
from sim.analysis.replicates import Replicates
from sim.analysis.values import game_values
from sim.metrics import (
    CORE_METRICS,
    HEADLINE_GROUPS,
    Means,
    Metric,
    describe_target,
    exact_relations,
    family_of,
    metric,
    metrics_for,
    quiet_nan,
    target_band,
    target_centre,
    target_status,
)

__all__ = [  # the registry's names stay importable from here
    "CORE_METRICS",
    "HEADLINE_GROUPS",
    "family_of",
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

    Poisson bootstrap (`sim.analysis.replicates`): each game's weights come from its
    game index and the seed alone. Paired: every table gets the same weights (the
    tables must hold the same games). Unpaired: each table its own stream of weights.
    """
    index = tables[0].index
    if paired:
        for t in tables[1:]:
            if not t.index.equals(index):
                raise ValueError("paired bootstrap needs the same game indices in every table")
    reps = [Replicates.of(t, resamples, seed, 0 if paired else i + 1) for i, t in enumerate(tables)]
    return draws_of(reps, metrics)


def draws_of(reps: list[Replicates], metrics: list[Metric]) -> tuple[np.ndarray, np.ndarray]:
    """Point values (points x metrics) and draws (points x resamples x metrics) from each
    point's replicate sums (whole tables, or merged chunk by chunk)."""
    columns = tuple(sorted(set().union(*(r.columns for r in reps))))
    reps = [r.expand(columns) for r in reps]
    point = np.stack([_evaluate(r.means()[None, :], list(columns), metrics)[0] for r in reps])
    draws = np.stack([_evaluate(r.resampled(), list(columns), metrics) for r in reps])
    return point, draws


@dataclass(frozen=True)
class Streamed:
    """What a comparison or a sweep needs of its points' games, summed chunk by chunk
    (`sim.runs.partials.stream_points`): each point's replicate sums under the shared weights
    (`paired`) and, for a comparison, under a stream of its own (`unpaired`), the games,
    and whether every point produced the very same per-game values."""

    paired: list[Replicates]
    unpaired: list[Replicates] | None
    games: int
    identical: bool
    sums: list[Moments] | None = None  # each point's column sums
    differences: list[Moments] | None = None  # point i − point 0, game by game

    @classmethod
    def of(cls, values: list[pd.DataFrame], resamples: int, seed: int, unpaired: bool):
        """From whole game-values tables (one per point, the same games); a chunk's, to be
        merged with the others' (`merge`)."""
        index = values[0].index
        if any(not v.index.equals(index) for v in values[1:]):
            raise ValueError("paired bootstrap needs the same game indices in every table")
        return cls(
            paired=Replicates.of_points(values, resamples, seed, 0),  # one set of weights
            unpaired=[Replicates.of(v, resamples, seed + 1, i + 1) for i, v in enumerate(values)]
            if unpaired
            else None,
            games=len(index),
            identical=all(same_games(values[0], v) for v in values[1:]),
            sums=[Moments.of(v) for v in values],
            differences=[Moments.of(v - values[0]) for v in values],
        )

    def merge(self, other: Streamed) -> Streamed:
        """Both parts' games together (parts of the same points, seed and resamples)."""

        def both(a, b):
            if a is None or b is None:
                return None
            return [x.merge(y) for x, y in zip(a, b, strict=True)]

        return Streamed(
            paired=both(self.paired, other.paired),
            unpaired=both(self.unpaired, other.unpaired),
            games=self.games + other.games,
            identical=self.identical and other.identical,
            sums=both(self.sums, other.sums),
            differences=both(self.differences, other.differences),
        )


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


def implied_rows(names: list[str]) -> set[str]:
    """Metrics that are exact functions of other rows (`sim.metrics.exact_relations`), so a
    family never counts them twice."""
    return set(exact_relations(names))


def assign_verdicts(
    table: pd.DataFrame, primary: str | None = None, alpha: float = ALPHA
) -> dict[str, str]:
    """Fill `family`, `p_adj` and `real` of a table with `metric`, `group` and `p` columns.

    Headline metrics: Holm; each long table (seats, policies, cards): Benjamini-
    Hochberg; `primary` on its own at `alpha`; implied rows (`implied_rows`) in
    no family. The error budget `alpha` is split so that a comparison where
    nothing changed flags anything at all in at most about `alpha` of cases:
    half to the headline family, the other half shared equally by the long
    tables (under a complete null Benjamini-Hochberg's false-discovery rate is
    its family-wise error rate). With no long table the headline family gets
    all of it. Returns each family's caption (method, size, level).
    """
    implied = implied_rows(list(dict.fromkeys(table["metric"])))
    table["family"] = [
        "primary" if m == primary else ("implied" if m in implied else family_of(g))
        for m, g in zip(table["metric"], table["group"], strict=True)
    ]
    table["p_adj"] = np.nan
    table["real"] = False
    tested = table[table["p"].notna()]
    long_tables = [f for f in dict.fromkeys(tested["family"]) if f not in SPECIAL_FAMILIES]
    share = alpha / 2 if long_tables else alpha
    level = {f: (alpha - share) / len(long_tables) for f in long_tables}
    level.update(headline=share, primary=alpha)
    notes = {}
    for family, rows in table.groupby("family", sort=False):
        if family == "implied":
            notes[family] = "exact functions of other rows: shown, not tested again"
            continue
        method = "holm" if family in ("headline", "primary") else "fdr_bh"
        at = level.get(family, alpha)
        adjusted, reject = adjust(rows["p"].to_numpy(), method, at)
        table.loc[rows.index, "p_adj"] = adjusted
        table.loc[rows.index, "real"] = reject
        size = int(np.isfinite(rows["p"].to_numpy()).sum())
        notes[family] = (
            f"tested on its own at {alpha:.0%}"
            if family == "primary"
            else family_note(method, size, at) + _budget_note(family, long_tables, alpha)
        )
    table["real"] = table["real"].astype(bool)
    return notes


SPECIAL_FAMILIES = ("headline", "primary", "implied")


def _budget_note(family: str, long_tables: list[str], alpha: float) -> str:
    if not long_tables:
        return ""
    if family == "headline":
        return f" (half of the {alpha:.0%} error budget; the other half is the long tables')"
    return f" (the long tables share half of the {alpha:.0%} error budget)"


def compare_runs(
    a: Any,
    b: Any,
    *,
    labels: tuple[str, str] = ("A", "B"),
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    cards: bool = True,
    paired: bool = True,
    primary: str | None = None,
    streamed: Streamed | None = None,
) -> pd.DataFrame:
    """Every metric for A and B and the difference B − A with its interval and verdict.

    `a` and `b` are RunResults (or dicts of the 'games', 'players', 'cards'
    tables) over the same game indices: on common random numbers (`paired`,
    the default) the interval resamples the same games on both sides; with
    `paired=False` (B played on other seeds) it resamples each side on its own.
    Columns: metric, label, group, a, b, diff, lo, hi, unpaired_lo,
    unpaired_hi, width, unpaired_width, width_ratio (paired / unpaired), p (two
    sided, of no difference), family, p_adj and real (see `assign_verdicts`:
    Holm over the headline metrics, Benjamini-Hochberg over each long table).
    `attrs` holds the labels, games, resamples, level, the families' captions
    and `identical` (A and B played the very same games: every difference is 0
    by construction, which says nothing about noise). `streamed`: the runs' sums,
    accumulated chunk by chunk (`sim.runs.partials.stream_points`), instead of `a` and `b`.
    """
    if streamed is None:
        streamed = Streamed.of([_values_of(a, cards), _values_of(b, cards)], resamples, seed, True)
    columns = sorted(set().union(*(r.columns for r in streamed.paired)))
    metrics = metrics_for(columns)
    point, both = draws_of(streamed.paired, metrics)
    _, unpaired = draws_of(streamed.unpaired, metrics)
    draws = both if paired else unpaired
    diff = point[1] - point[0]
    lo, hi = _interval(draws[1] - draws[0], level)
    ulo, uhi = _interval(unpaired[1] - unpaired[0], level)
    out = pd.DataFrame(
        {
            "metric": [m.name for m in metrics],
            "label": [m.label for m in metrics],
            "group": [m.group for m in metrics],
            "unit": [m.unit for m in metrics],
            "a": point[0],
            "b": point[1],
            "diff": diff,
            "lo": lo,
            "hi": hi,
            "unpaired_lo": ulo,
            "unpaired_hi": uhi,
            "p": p_from_draws(diff, draws[1] - draws[0]),
            "interval": "bootstrap",
        }
    )
    direct_differences(out, metrics, streamed, paired, level)
    out["width"] = out["hi"] - out["lo"]
    out["unpaired_width"] = out["unpaired_hi"] - out["unpaired_lo"]
    with np.errstate(divide="ignore", invalid="ignore"):
        out["width_ratio"] = out["width"] / out["unpaired_width"]
    out = out[out[["a", "b"]].notna().any(axis=1)].reset_index(drop=True)
    identical = streamed.identical
    notes = assign_verdicts(out, primary=primary)
    if identical:
        out["real"] = False
    out.attrs.update(
        labels=tuple(labels),
        games=streamed.games,
        resamples=resamples,
        level=level,
        seed=seed,
        paired=paired,
        families=notes,
        identical=identical,
        primary=primary,
    )
    return out


def same_games(va: pd.DataFrame, vb: pd.DataFrame) -> bool:
    """Did A and B produce the very same per-game values (the same games, played alike)?"""
    cols = sorted(set(va.columns) & set(vb.columns))
    return set(va.columns) == set(vb.columns) and va[cols].equals(vb[cols])


def headline_count(table: pd.DataFrame) -> tuple[int, int]:
    """(real, tested) among the headline family of a comparison or sweep table."""
    head = table[table["family"] == "headline"]
    return int(head["real"].sum()), int(head["p"].notna().sum())


def summarize_compare(table: pd.DataFrame) -> str:
    """A few plain lines: what changed for real (with its family), and what pairing bought."""
    la, lb = table.attrs.get("labels", ("A", "B"))
    games = table.attrs.get("games", "?")
    if table.attrs.get("identical"):
        return (
            f"{lb} vs {la}: both played the very same {games} games, so every difference is"
            " exactly 0. That says nothing about noise; for a calibration run"
            " `sim compare --independent`, which plays B on other seeds."
        )
    how = "paired" if table.attrs.get("paired", True) else "independent"
    real, tested = headline_count(table)
    lines = [
        f"{lb} vs {la}, {games} {how} games: {real} of {tested} headline metrics differ"
        f" for real ({table.attrs.get('families', {}).get('headline', 'Holm')})."
    ]
    primary = table.attrs.get("primary")
    shown = table[table["real"] & table["family"].isin(["headline", "primary"])]
    for row in shown.itertuples():
        tag = " (primary)" if row.metric == primary else ""
        lines.append(
            f"  {row.label}{tag}: {_fmt(row.a, row.metric)} -> {_fmt(row.b, row.metric)}"
            f" ({_fmt(row.diff, row.metric, True)} [{_fmt(row.lo, row.metric, True)},"
            f" {_fmt(row.hi, row.metric, True)}], adjusted p {row.p_adj:.2g})"
        )
    if primary is not None and not shown["metric"].eq(primary).any():
        lines.append(f"  {primary} (primary): no real difference at 5%.")
    for family in ("seats", "policies", "cards", "feel"):
        rows = table[table["family"] == family]
        if len(rows):
            flagged = rows[rows["real"]]["label"].tolist()
            lines.append(
                f"  {family}: {len(flagged)} of {int(rows['p'].notna().sum())} flagged"
                f" (Benjamini-Hochberg){': ' + ', '.join(flagged) if flagged else ''}."
            )
    ratio = table["width_ratio"].replace([np.inf, -np.inf], np.nan).dropna()
    if how == "paired" and len(ratio):
        lines.append(
            f"Paired intervals are {ratio.median():.0%} of the unpaired width"
            " (median over metrics)."
        )
    return "\n".join(lines)


def _fmt(value: float, name: str, signed: bool = False) -> str:
    """A metric's value in its unit: shares in %, differences of shares (a change, or a
    metric such as first-player advantage that is one) in percentage points, else 3 digits."""
    m = metric(name)
    return units.value(value, m.unit, diff=signed or m.diff)


# ---------------------------------------------------------------- sweeps


@dataclass
class SweepStats:
    """Each metric at each sweep point, the paired change from the first point, and a verdict."""

    table: pd.DataFrame  # long: point, label, metric, metric_label, group, value, lo, hi, diff...
    verdict: Verdict | None
    metrics: list[Metric] = field(default_factory=list)


@dataclass
class Verdict:
    """Which points meet the study's targets best: a confidence set, not a single guess."""

    best: int  # the point whose estimates come closest (the set's leader)
    ranking: pd.DataFrame  # point, label, miss, gap, gap_lo, gap_hi, in_best_set, ...
    text: str
    best_set: list[int] = field(default_factory=list)  # points that cannot be told from the best


def sweep_stats(
    runs: list[Any],
    labels: list[str],
    *,
    targets: Mapping[str, float | tuple[float, float]] | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    cards: bool = True,
    primary: str | None = None,
    streamed: Streamed | None = None,
    noise: Mapping[str, float] | None = None,
) -> SweepStats:
    """Metrics per point with intervals, paired changes from point 0, and the target verdict.

    `runs` are RunResults (or table dicts) over the same game indices, one per
    point; use `sweep_result_stats` for a SweepResult. A change from point 0 is
    `real` by `assign_verdicts` over every cell of the sweep: Holm over the
    headline metrics at all points together, Benjamini-Hochberg over each long
    table, the study's `primary` metric on its own (Holm over its points).
    `streamed`: the points' sums accumulated chunk by chunk, instead of `runs`. `noise`:
    the feel model's own (`sim.runs.chances.feel_noise`, the sweep's `feel_noise`), which
    widens each point's interval of a feel metric and so its target's status; the changes
    between points keep their paired intervals (every point is judged by the same model).
    """
    if streamed is None:
        values = [_values_of(r, cards) for r in runs]
        streamed = Streamed.of(values, resamples, seed, unpaired=False)
    metrics = metrics_for(sorted(set().union(*(r.columns for r in streamed.paired))))
    point, draws = draws_of(streamed.paired, metrics)
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
    change = draws - draws[:1]
    table["p"] = np.concatenate(
        [np.full(len(metrics), np.nan)]
        + [p_from_draws(point[p] - point[0], change[p]) for p in range(1, len(labels))]
    )
    table["interval"] = "bootstrap"
    direct_sweep(table, metrics, streamed, len(labels), level)
    table = table[table.groupby("metric")["value"].transform(lambda v: v.notna().any())]
    table = table.reset_index(drop=True)
    if noise:
        table = with_model_noise(table, dict(noise))
    families = assign_verdicts(table, primary=primary)
    table.attrs.update(
        games=streamed.games, resamples=resamples, level=level, families=families, primary=primary
    )
    verdict = None
    if targets:
        names = [m.name for m in metrics]
        shown = table.set_index(["metric", "point"])
        ends = {
            name: (shown.loc[name, "lo"].to_numpy(float), shown.loc[name, "hi"].to_numpy(float))
            for name in targets
            if name in shown.index.get_level_values(0)
        }  # the intervals the table shows decide each target's status
        verdict = target_verdict(point, draws, names, labels, dict(targets), level, ends=ends)
        felt = [t for t in targets if t in (noise or {})]
        if felt:
            verdict.text += (
                f" The intervals of {', '.join(felt)} add the chance model's own noise (the"
                " spread of its refits): one model judges every point."
            )
    return SweepStats(table=table, verdict=verdict, metrics=metrics)


def sweep_result_stats(result: Any, **kwargs) -> SweepStats:
    """sweep_stats for a sim.studies.common.SweepResult, with the study's targets."""
    kwargs.setdefault("targets", result.study.targets)
    kwargs.setdefault("primary", result.study.primary)
    kwargs.setdefault("noise", result.meta.get("feel_noise"))
    return sweep_stats(result.runs, result.labels, **kwargs)


def target_miss(value: np.ndarray, target) -> np.ndarray:
    """Distance from a target: |v − t| for a number (or {value, within}: its value), distance
    outside [lo, hi] for a range."""
    target = target_centre(target)
    if isinstance(target, tuple | list):
        lo, hi = target
        return np.maximum(np.maximum(lo - value, value - hi), 0.0)
    return np.abs(value - target)


def _off_centre(value: np.ndarray, target) -> np.ndarray:
    """Distance from the middle of a range target (0 for number targets): the tie-break."""
    target = target_centre(target)
    if isinstance(target, tuple | list):
        return np.abs(value - (target[0] + target[1]) / 2)
    return np.zeros_like(value)


def target_verdict(
    point: np.ndarray,
    draws: np.ndarray,
    names: list[str],
    labels: list[str],
    targets: Mapping[str, Any],
    level: float = LEVEL,
    alpha: float = ALPHA,
    ends: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> Verdict:
    """Rank points by their summed target miss and give the set that may hold the best one.

    `point` is points x metrics, `draws` points x resamples x metrics (the same
    resampled games at every point), `names` the metric names of the last axis.
    Each target's miss (`target_miss`) is in units of its metric's bootstrap sd
    and the misses are summed. Picking the point with the smallest estimated
    miss and calling the others worse would suffer the winner's curse, so the
    verdict is a confidence set (multiple comparisons with the best): point j
    leaves the set only when some point i beats it clearly, i.e. the lower
    one-sided bound of miss_j − miss_i (paired, normal approximation with the
    bootstrap sd) exceeds 0 at level alpha / (k(k−1)), Bonferroni over the
    ordered pairs of k points. With probability at least 1 − alpha the set holds
    every point that truly has the smallest miss. A single point is named best
    only when the set has one member. Each target's status ('met', 'missed',
    'unclear') at each point reads that point's interval: `ends[name]` = (lo, hi)
    per point when given (the sweep table's), else the draws' percentile interval.
    """
    from statistics import NormalDist

    cols = [names.index(t) for t in targets]
    with quiet_nan():
        sd = np.nanmean(np.nanstd(draws[:, :, cols], axis=1), axis=0)
    scale = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)

    def total(vals: np.ndarray, fn) -> np.ndarray:  # vals: ... x targets
        parts = [fn(vals[..., i], t) / scale[i] for i, t in enumerate(targets.values())]
        return np.nansum(parts, axis=0)

    k = len(labels)
    miss = total(point[:, cols], target_miss)
    centre = total(point[:, cols], _off_centre)
    best = int(np.lexsort((centre, miss))[0])
    boot = total(draws[:, :, cols], target_miss)  # points x resamples
    gap_lo, gap_hi = _interval((boot - boot[best])[..., None], level)
    z = NormalDist().inv_cdf(1 - alpha / max(1, k * (k - 1)))
    with quiet_nan():
        spread = np.nanstd(boot[:, None, :] - boot[None, :, :], axis=-1, ddof=1)
    lower = (miss[:, None] - miss[None, :]) - z * spread  # j x i
    np.fill_diagonal(lower, -np.inf)
    in_set = ~(lower > 0).any(axis=1)
    ranking = pd.DataFrame(
        {
            "point": range(k),
            "label": labels,
            "miss": miss,
            "gap": miss - miss[best],
            "gap_lo": gap_lo[:, 0],
            "gap_hi": gap_hi[:, 0],
            "in_best_set": in_set,
        }
    )
    ranking["within_noise"] = ranking["in_best_set"]  # the old name of the same verdict
    lo, hi = _interval(draws[:, :, cols], level)
    for j, (name, col) in enumerate(zip(targets, cols, strict=True)):
        ranking[name] = point[:, col]
        band = target_band(name, targets[name])
        a, b = (ends or {}).get(name, (lo[:, j], hi[:, j]))
        bounds = zip(a, b, strict=True)
        ranking[f"{name}:status"] = [target_status(a, b, band) for a, b in bounds]
    ranking = ranking.sort_values(["miss", "point"]).reset_index(drop=True)
    members = [int(p) for p in ranking.loc[ranking["in_best_set"], "point"]]
    text = _verdict_text(ranking, best, members, labels, targets, alpha, k)
    return Verdict(best=best, ranking=ranking, text=text, best_set=members)


def _verdict_text(ranking: pd.DataFrame, best: int, members, labels, targets, alpha, k) -> str:
    want = ", ".join(f"{name} {describe_target(name, t)}" for name, t in targets.items())
    row = ranking[ranking["point"] == best].iloc[0]
    got = ", ".join(f"{name} {_fmt(row[name], name)} ({row[name + ':status']})" for name in targets)
    how = (
        f"a {1 - alpha:.0%} confidence set for the best point, Bonferroni over"
        f" {k * (k - 1)} paired comparisons"
    )
    text = f"Targets: {want}. "
    if len(members) == 1:
        text += f"Best: {labels[best]} ({got}); every other point is clearly worse ({how})."
    else:
        others = ", ".join(labels[p] for p in members)
        text += (
            f"Best: one of {others}; they cannot be told apart ({how})."
            f" Closest estimate: {labels[best]} ({got})."
        )
        worse = [labels[p] for p in ranking["point"] if p not in members]
        if worse:
            text += f" Clearly worse: {', '.join(worse)}."
    return text
