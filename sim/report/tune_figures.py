"""Figures of the tune report, written as SVG directly (`sim.report.chart`): the search
trace, each parameter's effect, the Pareto set."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim.report.chart import Chart, Panel
from sim.report.figures import PALETTE

TICKS = (0, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500)


def _distance_axis(p: Panel, top: float) -> None:
    """Distances on a scale linear below 1 (inside the bands) and logarithmic above."""
    p.y.symlog = True
    ticks = [t for t in TICKS if t <= max(top, 1) * 1.5]
    p.y.ticks = (ticks, [f"{t:g}" for t in ticks])
    p.hline(1.0, width=0.8, dash="4 2")


def search_trace(trace: pd.DataFrame) -> Chart:
    """Each evaluation's target distance (by its rung's games) and the best so far, against
    the games spent."""
    chart = Chart(6.4, 2.8)
    p = chart.panel
    for k, (games, rows) in enumerate(trace.groupby("rung_games")):
        colour = PALETTE[k % len(PALETTE)]
        p.points(
            rows["games"], rows["distance"], colour, 3.2, opacity=0.6, label=f"{games:,} games each"
        )
    best = trace["distance"].cummin().to_numpy(float)
    games = trace["games"].to_numpy(float)
    xs = np.repeat(games, 2)[1:]  # a step after each evaluation ('post')
    ys = np.repeat(best, 2)[:-1]
    p.line(xs, ys, "#000", 1.2, label="best so far")
    _distance_axis(p, float(trace["distance"].max()))
    p.x.label, p.y.label = "games spent by the search", "target distance D"
    p.legend = "upper right"
    return chart


def parameter_slices(frame: pd.DataFrame, params: list[str]) -> Chart:
    """Per parameter: every candidate's first-rung distance against its value (a slice plot),
    with the mean at each value."""
    ncols = min(3, len(params))
    nrows = math.ceil(len(params) / ncols)
    chart = Chart(2.7 * ncols + 0.4, 2.2 * nrows + 0.4, nrows, ncols)
    for p, name in zip(chart.panels, params, strict=False):
        values = frame[name]
        numeric = pd.api.types.is_numeric_dtype(values)
        x = values.to_numpy(float) if numeric else pd.Categorical(values.astype(str)).codes
        p.points(x, frame["first_distance"], PALETTE[0], 3.0, opacity=0.6)
        means = frame.groupby(x)["first_distance"].mean()
        p.line(means.index.to_numpy(float), means.to_numpy(), "#000", 1)
        _distance_axis(p, float(frame["first_distance"].max()))
        if not numeric:
            labels = pd.Categorical(values.astype(str)).categories
            p.x.ticks = (list(range(len(labels))), [str(c) for c in labels])
        p.x.label, p.y.label = name, "D (first rung)"
    chart.panels = chart.panels[: len(params)]
    return chart


def pareto_scatter(misses: pd.DataFrame, front: list[str], names: list[str]) -> Chart:
    """The confirmed configs' misses on the first two targets (in margins); the Pareto set
    ringed."""
    chart = Chart(3.6, 3.2)
    p = chart.panel
    a, b = names[:2]
    p.points(misses[a], misses[b], PALETTE[0], 4.2)
    ringed = misses[misses.index.isin(front)]
    p.points(ringed[a], ringed[b], "#000", 8.4, hollow=True)
    for label, row in misses.iterrows():
        p.label(row[a], row[b], str(label), size=7, dx=3, dy=3, anchor="beside")
    p.vline(1.0, width=0.8, dash="4 2")
    p.hline(1.0, width=0.8, dash="4 2")
    p.x.label, p.y.label = f"{a} miss (margins)", f"{b} miss (margins)"
    return chart
