"""Figures of sweeps, written as SVG directly (`sim.report.chart`); a comparison's forest is
`sim.report.interval_figures`.

Each function takes the long tables of `sim.analysis.paired` (`SweepStats.table`) and
returns a `Chart`, so notebooks can show them too.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim.metrics import metric
from sim.report.chart import Chart, diverging, sequential
from sim.report.figures import PALETTE
from sim.units import MIN_SPAN, axis_label, card_label, pp_tick, scale

BEST = "#d62728"


def _is_numeric(values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _x_axis(points: pd.DataFrame, param: str) -> tuple[np.ndarray, list[str] | None]:
    """x positions of the points and tick labels (None when the values are numbers)."""
    values = points[param].tolist()
    if _is_numeric(values):
        return np.asarray(values, float), None
    return np.arange(len(values), dtype=float), [str(v) for v in values]


def sweep_lines(
    table: pd.DataFrame,
    points: pd.DataFrame,
    param: str,
    panels: list[tuple[str, list[str]]],
    title: str,
    best: int | None = None,
) -> Chart:
    """1-D sweep: one panel per (title, metrics), each metric's value with its 95% interval.

    A panel with several metrics (seats, policies) draws one line each, nudged
    sideways so the error bars stay readable; the best point by the targets is
    marked with a red band. Shares are drawn in %, and the y axis spans at least
    the unit's MIN_SPAN (sim.units), so that noise never fills a panel.
    """
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    chart = Chart(2.7 * ncols + 0.4, 2.2 * nrows + 0.4, nrows, ncols, title=title)
    x, ticks = _x_axis(points, param)
    step = np.min(np.diff(np.sort(x))) if len(x) > 1 else 1.0
    for p, (panel_title, names) in zip(chart.panels, panels, strict=False):
        rows = table[table["metric"].isin(names)]
        unit = metric(names[0]).unit
        k_ = scale(unit)
        for k, name in enumerate(names):
            r = rows[rows["metric"] == name].set_index("point").reindex(points["point"])
            r = r.assign(**{c: r[c] * k_ for c in ("value", "lo", "hi")})
            nudge = (k - (len(names) - 1) / 2) * step * 0.06
            err = np.vstack([r["value"] - r["lo"], r["hi"] - r["value"]])
            label = r["metric_label"].dropna().iloc[0].rsplit(", ", 1)[-1] if len(names) > 1 else ""
            colour = PALETTE[k % len(PALETTE)]
            p.line(x + nudge, r["value"], colour, 1, "o", 3, label=label, err=err)
        p.title = _short(panel_title)
        fair = metric(names[0]).fair
        if fair is not None:
            p.hline(fair * k_, width=0.8, dash="4 2")
        p.y.min_span = MIN_SPAN.get(unit, 0.0)
        if metric(names[0]).diff:  # a difference of shares: pp, drawn already times 100
            p.y.fmt = lambda v: pp_tick(v, 1.0)
        elif unit == "share":
            p.y.fmt = lambda v: f"{v:g}%"
        if best is not None:
            p.span(x[best] - step * 0.3, x[best] + step * 0.3, BEST, 0.08)
        if ticks is not None:
            p.x.ticks = (list(x), ticks)
        elif len(x) <= 10:  # a tick at every point swept
            p.x.ticks = (list(x), [f"{v:g}" for v in x])
        p.x.label = param
        if len(names) > 1:  # below the panel, never over the data
            p.legend, p.legend_size = "below", 6
    chart.panels = chart.panels[: len(panels)]
    return chart


def sweep_heatmaps(
    table: pd.DataFrame,
    points: pd.DataFrame,
    params: list[str],
    names: list[str],
    title: str,
    best: int | None = None,
) -> Chart:
    """2-D sweep: one heatmap per metric, each cell 'value ± half-width' of its 95% interval."""
    p1, p2 = params
    rows_v, cols_v = list(dict.fromkeys(points[p1])), list(dict.fromkeys(points[p2]))
    ncols = min(3, len(names))
    nrows = math.ceil(len(names) / ncols)
    width, height = ncols * (1.5 + 0.75 * len(cols_v)), nrows * (1.1 + 0.45 * len(rows_v))
    chart = Chart(width, height, nrows, ncols, title=title)
    for p, name in zip(chart.panels, names, strict=False):
        r = table[table["metric"] == name].merge(points, on="point")
        grid = np.full((len(rows_v), len(cols_v)), np.nan)
        half = np.full_like(grid, np.nan)
        # (not itertuples: a parameter such as 'table.columns' is no attribute name)
        for a, b, v, lo, hi in zip(r[p1], r[p2], r["value"], r["lo"], r["hi"], strict=True):
            i, j = rows_v.index(a), cols_v.index(b)
            grid[i, j] = v
            half[i, j] = max(v - lo, hi - v)
        k_ = scale(metric(name).unit)
        grid, half = grid * k_, half * k_
        diff = metric(name).diff
        unit = " pp" if diff else "%" if k_ != 1 else ""
        texts = [
            [
                "–" if np.isnan(v) else f"{v:.3g}{unit}\n±{h:.2g}"
                for v, h in zip(gr, hr, strict=True)
            ]
            for gr, hr in zip(grid, half, strict=True)
        ]
        finite = grid[np.isfinite(grid)]
        lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
        colour = sequential(lo, hi)
        p.cells(
            grid,
            colour,
            texts,
            (lo, hi),
            lambda v: f"{v:.3g}",
            size=6,
            light=lambda v, lo=lo, hi=hi: v < lo + 0.6 * (hi - lo),
        )
        if best is not None:
            b = points.set_index("point").loc[best]
            p.outline(cols_v.index(b[p2]), rows_v.index(b[p1]), BEST)
        p.x.ticks = (list(range(len(cols_v))), [str(v) for v in cols_v])
        p.y.ticks = (list(range(len(rows_v))), [str(v) for v in rows_v])
        p.x.label, p.y.label, p.frame = p2, p1, False
        label = r["metric_label"].iloc[0] if len(r) else name
        p.title = _short(axis_label(label, metric(name).unit, diff))
    chart.panels = chart.panels[: len(names)]
    return chart


def card_impact_grid(table: pd.DataFrame, labels: list[str]) -> Chart:
    """Card impact (win rate when held − when never held) per card kind and sweep point."""
    rows = table[table["metric"].str.startswith("card_impact.")]
    kinds = sorted(rows["metric"].unique())
    grid = np.full((len(kinds), len(labels)), np.nan)
    for r in rows.itertuples(index=False):
        grid[kinds.index(r.metric), int(r.point)] = r.value
    chart = Chart(2.6 + 0.75 * len(labels), 1.0 + 0.26 * len(kinds))
    p = chart.panel
    spread = max(float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 0.0, 0.02)
    texts = [["–" if np.isnan(v) else f"{v * 100:+.1f}" for v in row] for row in grid]
    p.cells(
        grid,
        diverging(-spread, spread),
        texts,
        (-spread, spread),
        None,
        size=6,
        light=lambda v: abs(v) > 0.6 * spread,
    )
    p.y.ticks = (
        list(range(len(kinds))),
        [card_label(k.removeprefix("card_impact.")) for k in kinds],
    )
    p.x.ticks = (list(range(len(labels))), list(labels))
    p.frame = False
    p.title = "Card impact per point, pp (association among these bots, not cause)"
    return chart


def _short(label: str) -> str:
    return label if len(label) <= 34 else label[:33] + "…"
