"""The run page's figures, written directly as SVG (`sim.report.chart`).

Each drawing function takes the analysis tables (`sim.analysis`) and returns a `Chart`,
which a notebook shows and `Chart.to_svg` writes; the page's figures cost milliseconds
instead of matplotlib's 0.4 CPU-s each (issue 54).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim import units
from sim.analysis.flow import distribution
from sim.report.chart import Chart, Panel, diverging, percent
from sim.units import card_label

SEAT_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")
PALETTE = SEAT_COLOURS + ("#8c564b", "#e377c2", "#7f7f7f")
KIND_COLOURS = {"box": "#8c6d31", "princess": "#222222", "toy": "#e6ab02", "sprayer": "#c00000"}


def pp_ticks(value: float) -> str:
    """A tick of a difference of shares drawn as a fraction: '+2 pp'."""
    return units.pp_tick(value)


def _err(value: pd.Series, lo: pd.Series, hi: pd.Series) -> np.ndarray:
    """Error-bar lengths below and above each value (never negative, NaN as 0)."""
    return np.nan_to_num(np.clip([value - lo, hi - value], 0, None))


def _colours(labels, seats: bool) -> list[str]:
    """Seat colours for seats, the palette's later colours for policies."""
    offset = 0 if seats else 5
    return [PALETTE[(offset + i) % len(PALETTE)] for i in range(len(labels))]


def _categories(p: Panel, labels: list[str], axis: str = "x") -> np.ndarray:
    """Category positions 0..n-1 on an axis, labelled."""
    at = np.arange(len(labels), dtype=float)
    getattr(p, axis).ticks = (list(at), [str(s) for s in labels])
    return at


def _card_bars(table: pd.DataFrame, value: str, lo: str, hi: str) -> Chart:
    """One bar per card kind (coloured by kind), sorted by `value`, with its interval."""
    d = table.sort_values(value)
    chart = Chart(5.6, 0.8 + 0.24 * len(d))
    p = chart.panel
    y = _categories(p, [card_label(c) for c in d["card"]], "y")
    colours = [KIND_COLOURS.get(k, "#777") for k in d["kind"]]
    p.bars(y, d[value], colours, err=_err(d[value], d[lo], d[hi]), horizontal=True, cap=2)
    return chart


def _distribution_bars(p: Panel, values: pd.Series, name: str, colour: str, width=0.8) -> None:
    """Shares of games at each whole value, as bars."""
    d = distribution(values, name)
    p.bars(d[name], d["share"], colour, width=width)
    p.x.integer = True
    p.y.fmt = percent(0)


def win_share_bars(table: pd.DataFrame, by: str, title: str) -> Chart:
    """Win share per seat or policy with 95% intervals against the fair 1/n line."""
    chart = Chart(4.8, 2.8)
    p = chart.panel
    labels = [f"{by} {v}" if by == "seat" else str(v) for v in table[by]]
    x = _categories(p, labels)
    err = _err(table["win_share"], table["lo"], table["hi"])
    p.bars(x, table["win_share"], _colours(labels, by == "seat"), err=err)
    p.hline(table["fair"].iloc[0], dash="4 2", label="fair 1/n")
    p.y.fmt, p.y.label = percent(), "win share"
    p.title = f"{title} (n = {table['n'].iloc[0]:,} per bar; 95% intervals)"
    p.legend = "outside"
    return chart


def matchup_heatmap(matrix: pd.DataFrame, centre: float, title: str) -> Chart:
    """A policy x opponent grid of shares, coloured around `centre` (fair share or 50%)."""
    chart = Chart(1.6 + 1.1 * len(matrix.columns), 0.9 + 0.6 * len(matrix))
    p = chart.panel
    values = matrix.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    spread = max(float(np.max(np.abs(finite - centre))) if len(finite) else 0.0, 0.05)
    texts = [["–" if np.isnan(v) else units.pct(v) for v in row] for row in values]
    colour = diverging(centre - spread, centre + spread)
    light = lambda v: abs(v - centre) > 0.6 * spread  # noqa: E731  (white on dark cells)
    p.cells(values, colour, texts, (centre - spread, centre + spread), percent(), light=light)
    _categories(p, [f"vs {c}" for c in matrix.columns])
    _categories(p, [str(i) for i in matrix.index], "y")
    p.title, p.frame = title, False
    return chart


def score_distribution(players: pd.DataFrame, by: str) -> Chart:
    """Share of seat-games at each final score, one line per seat or policy."""
    chart = Chart(5.2, 2.8)
    p = chart.panel
    groups = list(players.groupby(by, sort=True))
    for (key, g), colour in zip(groups, _colours(groups, by == "seat"), strict=True):
        d = distribution(g["score"], "score")
        label = f"{by} {key}" if by == "seat" else str(key)
        p.line(d["score"], d["share"], colour, marker="o", label=f"{label} (n={len(g):,})")
    p.y.fmt, p.y.label, p.x.label = percent(), "share of seat-games", "final score"
    p.title, p.legend = f"Score distribution by {by}", "upper right"
    return chart


def margin_bars(games: pd.DataFrame) -> Chart:
    """Winning margin (winner minus best other seat; 0 = shared win) as shares of games."""
    chart = Chart(4.8, 2.6)
    p = chart.panel
    d = distribution(games["margin"], "margin")
    p.bars(d["margin"], d["share"], ["#999999" if m == 0 else "#4c72b0" for m in d["margin"]])
    p.x.integer, p.y.fmt = True, percent()
    p.x.label = "winning margin (grey: shared win)"
    p.title = f"Winning margin (n = {len(games):,} games)"
    return chart


def points_bars(breakdown: pd.DataFrame, by: str) -> Chart:
    """Mean points per seat-game from each source, grouped by seat or policy."""
    parts = {
        "box_points": ("box points (all boxes)", "#4c72b0"),
        "cat_bonus": ("cat bonus", "#55a868"),
        "doubling_points": ("of box points: closed doubling", "#8172b2"),
        "negative_points": ("of box points: negative boxes", "#c44e52"),
    }
    chart = Chart(5.6, 2.8)
    p = chart.panel
    x = _categories(p, [f"{by} {v}" if by == "seat" else str(v) for v in breakdown[by]])
    width = 0.8 / len(parts)
    for i, (col, (label, colour)) in enumerate(parts.items()):
        p.bars(x + (i - (len(parts) - 1) / 2) * width, breakdown[col], colour, width, label=label)
    p.line(x, breakdown["score"], "#000", width=0, marker="_", size=22, label="mean score")
    p.hline(0, width=0.6)
    p.y.label, p.title = "mean points per seat-game", "Where points come from"
    p.legend = "outside"
    return chart


def flow_panels(games: pd.DataFrame, triggers: pd.DataFrame) -> Chart:
    """Six small panels: turns, boxes, closed share, items wasted, cats on table, end trigger."""
    chart = Chart(
        7.6, 4.4, rows=2, cols=3, title=f"Game flow (n = {len(games):,} games; shares of games)"
    )
    closed = (games["closed_boxes"] / games["boxes"].where(games["boxes"] > 0)).dropna()
    panels = [
        ("turns", games["turns"]),
        ("boxes per game", games["boxes"]),
        ("items wasted", games["items_wasted"]),
        ("awake cats on table", games["cats_on_table"]),
    ]
    for p, (name, values) in zip(chart.panels[:4], panels, strict=True):
        _distribution_bars(p, values, name, "#4c72b0", width=0.9)
        p.title = name
    p = chart.panels[4]
    counts, edges = np.histogram(closed, bins=np.linspace(0, 1, 21))
    p.bars((edges[:-1] + edges[1:]) / 2, counts / max(len(closed), 1), "#4c72b0", width=0.05)
    p.title, p.y.fmt = "closed share of boxes", percent(0)
    p = chart.panels[5]
    x = _categories(p, list(triggers["end_trigger"]))
    err = _err(triggers["share"], triggers["lo"], triggers["hi"])
    p.bars(x, triggers["share"], "#55a868", err=err)
    p.title, p.y.fmt = "end trigger (R7.1)", percent(0)
    return chart


def card_impact_bars(impact: pd.DataFrame) -> Chart:
    """Improvement in win rate when a card was held, with 95% intervals, sorted."""
    chart = _card_bars(impact, "improvement", "lo", "hi")
    p = chart.panel
    p.vline(0, width=0.8)
    p.x.fmt = pp_ticks
    p.x.label = "win rate when held − when never held, pp (association, not cause)"
    p.title = "Card impact (95% intervals, clustered by game)"
    return chart


# ---------------------------------------------------------------- turns, tension, card use


def turn_panels(counts: pd.DataFrame, decomposition: pd.DataFrame, last: pd.DataFrame) -> Chart:
    """Turns taken per seat, who takes the last turn, and each seat's edge split into the
    part at equal turns and the part its extra turns added (95% intervals)."""
    chart = Chart(7.6, 2.6, cols=3, width_ratios=(1.2, 0.8, 1.2))
    p_turns, p_last, p_edge = chart.panels
    seats = sorted(counts["seat"].unique())
    values = sorted(counts["turns_taken"].unique())
    width = 0.8 / len(seats)
    x = _categories(p_turns, [str(v) for v in values])
    for i, seat in enumerate(seats):
        d = counts[counts["seat"] == seat].set_index("turns_taken").reindex(values)
        shift = (i - (len(seats) - 1) / 2) * width
        p_turns.bars(x + shift, d["share"].fillna(0), PALETTE[i], width, label=f"seat {seat}")
    p_turns.x.label, p_turns.y.fmt = "turns taken", percent(0)
    p_turns.title, p_turns.legend, p_turns.legend_size = (
        "turns per seat (share of games)",
        "upper left",
        6,
    )
    shares = last.set_index("last_seat").reindex(seats)
    x = _categories(p_last, [str(s) for s in seats])
    err = _err(shares["share"].fillna(0), shares["lo"].fillna(0), shares["hi"].fillna(0))
    p_last.bars(x, shares["share"].fillna(0), PALETTE[: len(seats)], err=err, cap=3)
    p_last.x.label, p_last.y.fmt, p_last.title = "seat", percent(0), "takes the last turn"
    d = decomposition
    x = _categories(p_edge, [f"seat {s}" for s in d["seat"]])
    for shift, part, colour, label in (
        (-0.2, "equal", "#4c72b0", "at equal turns"),
        (0.2, "turn", "#dd8452", "from extra turns"),
    ):
        value = d[f"{part}_part"]
        err = _err(value, d[f"{part}_lo"], d[f"{part}_hi"])
        p_edge.bars(x + shift, value, colour, 0.4, err=err, label=label, cap=3)
    p_edge.line(x, d["edge"], "#000", width=0, marker="_", size=18, label="whole edge (win − 1/n)")
    p_edge.hline(0, width=0.6)
    p_edge.y.fmt, p_edge.title = pp_ticks, "seat edge, split (pp)"
    p_edge.legend, p_edge.legend_size = "upper right", 6
    return chart


def turns_by_deck(scan: pd.DataFrame) -> Chart:
    """Turns per game against the box cards in the deck, one line per player count; a filled
    marker where every seat took the same number of turns in at least 95% of the games."""
    chart = Chart(6.0, 2.8)
    p = chart.panel
    for i, (n, d) in enumerate(scan.groupby("players", sort=True)):
        colour = PALETTE[i % len(PALETTE)]
        p.line(d["boxes"], d["turns"], colour, width=1, label=f"{n} players")
        equal = d["all_equal"].to_numpy(bool)
        p.points(d["boxes"][equal], d["turns"][equal], colour, 5.3)
        p.points(d["boxes"][~equal], d["turns"][~equal], colour, 5.3, hollow=True)
        for r in d.itertuples():
            p.label(r.boxes, r.turns, units.pct(r.equal), colour, size=5, dy=5)
    p.x.integer = True
    p.x.label, p.y.label = "box cards in the deck (mix kept)", "turns per game"
    games = int(scan["games"].iloc[0]) if len(scan) else 0
    p.title = (
        f"Turns against deck size ({games} games per point)\nfilled: every seat takes as many"
        " turns in ≥95% of the games; labels: share of games with equal turns"
    )
    p.title_size, p.legend, p.legend_size = 7, "outside", 6
    return chart


def tension_panels(
    game: pd.DataFrame, index: int, bands: pd.DataFrame, games: pd.DataFrame
) -> Chart:
    """One game's per-seat score lines, the band of the leader's margin over the rounds of all
    games, and how many lead changes games have."""
    chart = Chart(7.6, 2.6, cols=3)
    p_game, p_band, p_changes = chart.panels
    for i, seat in enumerate(game.columns):
        colour = PALETTE[i % len(PALETTE)]
        p_game.line(game.index, game[seat], colour, marker="o", size=2.5, label=f"seat {seat}")
    p_game.x.label, p_game.y.label = "round", "table score"
    p_game.x.integer = p_game.y.integer = True
    p_game.title, p_game.legend, p_game.legend_size = (
        f"game {index} (median margin)",
        "upper left",
        6,
    )
    p_band.band(bands["round"], bands["q10"], bands["q90"], "#4c72b0", 0.2, label="10–90%")
    p_band.band(bands["round"], bands["q25"], bands["q75"], "#4c72b0", 0.4, label="25–75%")
    p_band.line(bands["round"], bands["q50"], "#1f3f6e", width=1.5, label="median")
    p_band.x.label, p_band.y.label, p_band.x.integer = "round", "points", True
    p_band.title, p_band.legend, p_band.legend_size = (
        "leader's lead over the runner-up",
        "upper left",
        6,
    )
    _distribution_bars(p_changes, games["lead_changes"], "lead_changes", "#55a868")
    p_changes.x.label, p_changes.title = "lead changes", "lead changes per game"
    return chart


def dead_card_bars(usage: pd.DataFrame) -> Chart:
    """Per card kind: the share of seat-games holding it in which a copy died (discarded
    unplayed, or for items wasted), with 95% intervals."""
    chart = _card_bars(usage, "dead_games", "dg_lo", "dg_hi")
    p = chart.panel
    p.x.fmt = percent()
    p.x.label = "share of the seat-games holding the card in which a copy did nothing"
    p.title = "Dead cards and wasted items (95% intervals, clustered by game)"
    return chart
