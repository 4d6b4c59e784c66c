"""Rows of estimates with 95% intervals, written as SVG directly (`sim.report.chart`): the
bars of `sim value`, `sim ladder` and `sim luck`, and the forest of `sim compare`.

These pages have one or two figures each; drawn with matplotlib, its import and figures
were about a second of every such command (issue 54).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim import units
from sim.report.chart import Chart, percent

BEST = "#d62728"  # a real difference


def interval_bars(
    labels, value, lo, hi, xlabel: str, title: str, ref: float = 0.0, axis: str | None = None
) -> Chart:
    """Horizontal bars from `ref` with 95% interval whiskers, in the order given (top first);
    `axis` "pct" draws fractions as %, "pp" values in percentage points as '+2 pp'."""
    n = len(labels)
    chart = Chart(6.5, 0.28 * n + 1.0)
    p = chart.panel
    y = np.arange(n)[::-1].astype(float)
    value, lo, hi = (np.asarray(v, float) for v in (value, lo, hi))
    colours = ["#1f5fa8" if v >= ref else "#c05020" for v in value]
    err = np.nan_to_num(np.clip([value - lo, hi - value], 0, None))
    p.bars(y, value, colours, err=err, horizontal=True, cap=2, base=ref)
    p.vline(ref, "#444", 0.8)
    p.y.ticks = (list(y), [str(s) for s in labels])
    if axis == "pct":
        p.x.fmt = percent()
    elif axis == "pp":
        p.x.fmt = lambda v: units.pp_tick(v, 1.0)
    p.x.label, p.title = xlabel, title
    return chart


def compare_forest(table: pd.DataFrame, title: str) -> Chart:
    """Paired and unpaired 95% intervals of B − A per metric, on one scale for all metrics.

    Each row is centred on its difference and measured in units of its unpaired
    half-width, so the grey unpaired bar spans about [-1, 1] and the blue (red
    when real) paired bar shows how much narrower pairing makes it. The cross
    marks "no difference" (B − A = 0); a triangle at the edge means 0 lies
    further out than the axis shows.
    """
    d = table[table["unpaired_width"] > 0].iloc[::-1]
    half = d["unpaired_width"].to_numpy() / 2
    diff = d["diff"].to_numpy()
    y = np.arange(len(d), dtype=float)
    chart = Chart(6.4, 0.9 + 0.2 * len(d))
    p = chart.panel
    p.segments(
        (d["unpaired_lo"] - diff) / half,
        (d["unpaired_hi"] - diff) / half,
        y,
        "#bbbbbb",
        5,
        label="unpaired",
    )
    colours = np.where(d["real"].to_numpy(), BEST, "#1f5fa8")
    p.segments(
        (d["lo"] - diff) / half,
        (d["hi"] - diff) / half,
        y,
        list(colours),
        2,
        label="paired (red: real)",
    )
    edge = 3.6
    zero = -diff / half
    inside = np.abs(zero) <= edge
    p.symbols(zero[inside], y[inside], "x", size=6, label="B − A = 0")
    for side, marker in ((1, ">"), (-1, "<")):
        out = ~inside & (np.sign(zero) == side)
        p.symbols(np.full(out.sum(), side * edge), y[out], marker, size=5)
    p.vline(0, width=0.5)
    p.x.limits = (-edge - 0.3, edge + 0.3)
    p.y.limits = (-0.6, len(d) - 0.4)
    p.y.ticks = (list(y), [_short(t) for t in d["label"]])
    p.x.label = "distance from the measured B − A, in unpaired half-widths"
    p.title, p.legend, p.legend_size = title, "outside", 6
    return chart


def _short(label: str) -> str:
    return label if len(label) <= 34 else label[:33] + "…"
