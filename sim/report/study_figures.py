"""Figures of sweeps (matplotlib `Figure`s in the report style; a comparison's forest is
`sim.report.interval_figures`).

Each function takes the long tables of `sim.analysis.paired` (`SweepStats.table`,
`compare_runs`) and returns a Figure, so notebooks can show them too.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from sim.metrics import metric
from sim.report.figures import PALETTE
from sim.report.mpl_style import pp_formatter, styled
from sim.units import MIN_SPAN, axis_label, card_label, scale

_BEST = "#d62728"


def _is_numeric(values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _x_axis(points: pd.DataFrame, param: str) -> tuple[np.ndarray, list[str] | None]:
    """x positions of the points and tick labels (None when the values are numbers)."""
    values = points[param].tolist()
    if _is_numeric(values):
        return np.asarray(values, float), None
    return np.arange(len(values), dtype=float), [str(v) for v in values]


@styled
def sweep_lines(
    table: pd.DataFrame,
    points: pd.DataFrame,
    param: str,
    panels: list[tuple[str, list[str]]],
    title: str,
    best: int | None = None,
) -> Figure:
    """1-D sweep: one panel per (title, metrics), each metric's value with its 95% interval.

    A panel with several metrics (seats, policies) draws one line each, nudged
    sideways so the error bars stay readable; the best point by the targets is
    marked with a red band. Shares are drawn in %, and the y axis spans at least
    the unit's MIN_SPAN (sim.units), so that noise never fills a panel.
    """
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig = Figure(figsize=(2.7 * ncols + 0.4, 2.2 * nrows + 0.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    x, ticks = _x_axis(points, param)
    step = np.min(np.diff(np.sort(x))) if len(x) > 1 else 1.0
    for ax, (panel_title, names) in zip(axes, panels, strict=False):
        rows = table[table["metric"].isin(names)]
        unit = metric(names[0]).unit
        k_ = scale(unit)
        for k, name in enumerate(names):
            r = rows[rows["metric"] == name].set_index("point").reindex(points["point"])
            r = r.assign(**{c: r[c] * k_ for c in ("value", "lo", "hi")})
            nudge = (k - (len(names) - 1) / 2) * step * 0.06
            err = np.vstack([r["value"] - r["lo"], r["hi"] - r["value"]])
            label = (
                r["metric_label"].dropna().iloc[0].rsplit(", ", 1)[-1] if len(names) > 1 else None
            )
            ax.errorbar(
                x + nudge,
                r["value"],
                yerr=err,
                marker="o",
                ms=3,
                capsize=3,
                lw=1,
                color=PALETTE[k % len(PALETTE)],
                label=label,
            )
        ax.set_title(_short(panel_title), loc="left", fontsize=8)
        fair = metric(names[0]).fair
        if fair is not None:
            ax.axhline(fair * k_, color="black", ls="--", lw=0.8)
        _min_span(ax, MIN_SPAN.get(unit, 0.0))
        if metric(names[0]).diff:  # a difference of shares: pp, drawn already times 100
            ax.yaxis.set_major_formatter(pp_formatter(1.0))
        elif unit == "share":
            ax.yaxis.set_major_formatter(PercentFormatter(100.0))
        if best is not None:
            ax.axvspan(x[best] - step * 0.3, x[best] + step * 0.3, color=_BEST, alpha=0.08, lw=0)
        if ticks is not None:
            ax.set_xticks(x, ticks, rotation=30, ha="right")
        ax.set_xlabel(param)
        if len(names) > 1:  # below the panel, never over the data
            ax.legend(
                frameon=False, fontsize=6, loc="upper left", bbox_to_anchor=(0, -0.35), ncols=2
            )
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle(title, x=0.01, ha="left", fontsize=9)
    return fig


@styled
def sweep_heatmaps(
    table: pd.DataFrame,
    points: pd.DataFrame,
    params: list[str],
    names: list[str],
    title: str,
    best: int | None = None,
) -> Figure:
    """2-D sweep: one heatmap per metric, each cell 'value ± half-width' of its 95% interval."""
    p1, p2 = params
    rows_v, cols_v = list(dict.fromkeys(points[p1])), list(dict.fromkeys(points[p2]))
    ncols = min(3, len(names))
    nrows = math.ceil(len(names) / ncols)
    fig = Figure(
        figsize=(ncols * (0.9 + 0.75 * len(cols_v)), nrows * (0.9 + 0.45 * len(rows_v))),
        layout="constrained",
    )
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    for ax, name in zip(axes, names, strict=False):
        r = table[table["metric"] == name].merge(points, on="point")
        grid = np.full((len(rows_v), len(cols_v)), np.nan)
        half = np.full_like(grid, np.nan)
        for _, row in r.iterrows():
            i, j = rows_v.index(row[p1]), cols_v.index(row[p2])
            grid[i, j] = row["value"]
            half[i, j] = max(row["value"] - row["lo"], row["hi"] - row["value"])
        k_ = scale(metric(name).unit)
        grid, half = grid * k_, half * k_
        image = ax.imshow(grid, cmap="viridis", aspect="auto")
        fig.colorbar(image, ax=ax, fraction=0.06, pad=0.02).ax.tick_params(labelsize=6)
        diff = metric(name).diff
        for (i, j), v in np.ndenumerate(grid):
            pct = " pp" if diff else "%" if k_ != 1 else ""
            text = "–" if np.isnan(v) else f"{v:.3g}{pct}\n±{half[i, j]:.2g}"
            ax.text(j, i, text, ha="center", va="center", fontsize=6, color="white")
        if best is not None:
            b = points.set_index("point").loc[best]
            bi, bj = rows_v.index(b[p1]), cols_v.index(b[p2])
            ax.add_patch(_box(bj, bi))
        ax.set_xticks(range(len(cols_v)), [str(v) for v in cols_v])
        ax.set_yticks(range(len(rows_v)), [str(v) for v in rows_v])
        ax.set_xlabel(p2)
        ax.set_ylabel(p1)
        ax.grid(False)
        label = r["metric_label"].iloc[0] if len(r) else name
        ax.set_title(_short(axis_label(label, metric(name).unit, diff)), loc="left", fontsize=8)
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    fig.suptitle(title, x=0.01, ha="left", fontsize=9)
    return fig


def _min_span(ax, span: float) -> None:
    """Widen the y axis to at least `span` (display units) around what is drawn."""
    lo, hi = ax.get_ylim()
    if hi - lo < span:
        mid = (lo + hi) / 2
        ax.set_ylim(mid - span / 2, mid + span / 2)


def _box(x: float, y: float):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor=_BEST, lw=2)


@styled
def card_impact_grid(table: pd.DataFrame, labels: list[str]) -> Figure:
    """Card impact (win rate when held − when never held) per card kind and sweep point."""
    rows = table[table["metric"].str.startswith("card_impact.")]
    kinds = sorted(rows["metric"].unique())
    grid = np.full((len(kinds), len(labels)), np.nan)
    for _, r in rows.iterrows():
        grid[kinds.index(r["metric"]), int(r["point"])] = r["value"]
    fig = Figure(figsize=(2.2 + 0.75 * len(labels), 0.8 + 0.26 * len(kinds)))
    ax = fig.add_subplot()
    spread = max(float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 0.0, 0.02)
    ax.imshow(grid, cmap="RdBu", vmin=-spread, vmax=spread, aspect="auto")
    for (i, j), v in np.ndenumerate(grid):
        colour = "white" if abs(v) > 0.6 * spread else "black"
        text = "–" if np.isnan(v) else f"{v * 100:+.1f}"  # percentage points
        ax.text(j, i, text, ha="center", va="center", fontsize=6, color=colour)
    ax.set_yticks(range(len(kinds)), [card_label(k.removeprefix("card_impact.")) for k in kinds])
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.grid(False)
    ax.set_title("Card impact per point, pp (association among these bots, not cause)", loc="left")
    return fig


def _short(label: str) -> str:
    return label if len(label) <= 34 else label[:33] + "…"
