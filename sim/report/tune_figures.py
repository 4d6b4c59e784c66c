"""Figures of the tune report: the search trace, each parameter's effect, the Pareto set."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.report.figures import PALETTE
from sim.report.mpl_style import styled

TICKS = (0, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500)


def _distance_axis(ax, top: float) -> None:
    """Distances on a scale linear below 1 (inside the bands) and logarithmic above."""
    ax.set_yscale("symlog", linthresh=1.0, linscale=1.5)
    ticks = [t for t in TICKS if t <= max(top, 1) * 1.5]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])


@styled
def search_trace(trace: pd.DataFrame) -> Figure:
    """Each evaluation's target distance (by its rung's games) and the best so far, against
    the games spent."""
    fig = Figure(figsize=(6.4, 2.8), layout="constrained")
    ax = fig.subplots()
    for k, (games, rows) in enumerate(trace.groupby("rung_games")):
        ax.scatter(
            rows["games"],
            rows["distance"],
            s=10,
            alpha=0.6,
            color=PALETTE[k % len(PALETTE)],
            label=f"{games:,} games each",
        )
    best = trace["distance"].cummin()
    ax.step(trace["games"], best, where="post", color="black", lw=1.2, label="best so far")
    ax.axhline(1.0, color="black", ls="--", lw=0.8)
    _distance_axis(ax, float(trace["distance"].max()))
    ax.set_xlabel("games spent by the search")
    ax.set_ylabel("target distance D")
    ax.legend(frameon=False, fontsize=7)
    return fig


@styled
def parameter_slices(frame: pd.DataFrame, params: list[str]) -> Figure:
    """Per parameter: every candidate's first-rung distance against its value (a slice plot),
    with the mean at each value."""
    ncols = min(3, len(params))
    nrows = math.ceil(len(params) / ncols)
    fig = Figure(figsize=(2.7 * ncols + 0.4, 2.2 * nrows + 0.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    for ax, p in zip(axes, params, strict=False):
        values = frame[p]
        numeric = pd.api.types.is_numeric_dtype(values)
        x = values.to_numpy(float) if numeric else pd.Categorical(values.astype(str)).codes
        ax.scatter(x, frame["first_distance"], s=9, alpha=0.6, color=PALETTE[0])
        means = frame.groupby(x)["first_distance"].mean()
        ax.plot(means.index, means.to_numpy(), color="black", lw=1)
        ax.axhline(1.0, color="black", ls="--", lw=0.8)
        _distance_axis(ax, float(frame["first_distance"].max()))
        if not numeric:
            labels = pd.Categorical(values.astype(str)).categories
            ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        ax.set_xlabel(p)
        ax.set_ylabel("D (first rung)", fontsize=7)
    for ax in axes[len(params) :]:
        ax.set_visible(False)
    return fig


@styled
def pareto_scatter(misses: pd.DataFrame, front: list[str], names: list[str]) -> Figure:
    """The confirmed configs' misses on the first two targets (in margins); the Pareto set
    ringed."""
    fig = Figure(figsize=(3.6, 3.2), layout="constrained")
    ax = fig.subplots()
    a, b = names[:2]
    ax.scatter(misses[a], misses[b], s=18, color=PALETTE[0])
    for label, row in misses.iterrows():
        ring = label in front
        ax.annotate(label, (row[a], row[b]), fontsize=7, xytext=(3, 3), textcoords="offset points")
        if ring:
            ax.scatter([row[a]], [row[b]], s=70, facecolors="none", edgecolors="black")
    ax.axvline(1.0, color="black", ls="--", lw=0.8)
    ax.axhline(1.0, color="black", ls="--", lw=0.8)
    ax.set_xlabel(f"{a} miss (margins)")
    ax.set_ylabel(f"{b} miss (margins)")
    return fig
