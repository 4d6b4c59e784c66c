"""Report figures: matplotlib `Figure` objects (no pyplot, no global backend), as inline SVG.

Each drawing function takes the analysis tables (`sim.analysis`) and returns a
Figure, so notebooks can show them too; `to_svg` turns one into markup.
"""

from __future__ import annotations

import functools
import io

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter

from sim import units
from sim.analysis.flow import distribution
from sim.report.table_picture import SEAT_COLOURS
from sim.units import card_label

STYLE = {
    "font.size": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.fonttype": "none",  # text stays text: a few kB per figure instead of glyph paths
    # Labels are the user's words (rung labels, policy names): '$' is a dollar sign, never
    # the start of math text, so 'a $x^$ b' is drawn as written instead of failing to parse.
    "text.parse_math": False,
}
PALETTE = SEAT_COLOURS + ("#8c564b", "#e377c2", "#7f7f7f")
KIND_COLOURS = {"box": "#8c6d31", "princess": "#222222", "toy": "#e6ab02", "sprayer": "#c00000"}


def styled(draw):
    """Draw under the report style (rc settings are read while artists are made)."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs) -> Figure:
        with mpl.rc_context(STYLE):
            return draw(*args, **kwargs)

    return wrapper


def to_svg(fig: Figure, key: str) -> str:
    """The figure as an `<svg>` element; `key` salts its ids so inline figures never clash."""
    buf = io.StringIO()
    with mpl.rc_context({**STYLE, "svg.hashsalt": key}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg") :]


def pp_formatter(scale: float = 100.0) -> FuncFormatter:
    """Ticks of a difference of shares in percentage points ('+2 pp', '0', '-1.5 pp'); `scale`
    takes the drawn values to pp (100 for fractions, 1 for values already in percent)."""

    def tick(value: float, _pos: int) -> str:
        v = round(value * scale, 6)
        return "0" if v == 0 else f"{v:+g} {units.PP}"

    return FuncFormatter(tick)


def _err(value: pd.Series, lo: pd.Series, hi: pd.Series) -> np.ndarray:
    """Error-bar lengths below and above each value (never negative, NaN as 0)."""
    return np.nan_to_num(np.clip([value - lo, hi - value], 0, None))


def _colours(labels, seats: bool) -> list[str]:
    """Seat colours for seats, the palette's later colours for policies."""
    offset = 0 if seats else 5
    return [PALETTE[(offset + i) % len(PALETTE)] for i in range(len(labels))]


@styled
def win_share_bars(table: pd.DataFrame, by: str, title: str) -> Figure:
    """Win share per seat or policy with 95% intervals against the fair 1/n line."""
    fig = Figure(figsize=(4.8, 2.8))
    ax = fig.add_subplot()
    labels = [f"{by} {v}" if by == "seat" else str(v) for v in table[by]]
    x = np.arange(len(table))
    err = _err(table["win_share"], table["lo"], table["hi"])
    ax.bar(x, table["win_share"], yerr=err, capsize=4, color=_colours(labels, by == "seat"))
    ax.axhline(table["fair"].iloc[0], color="black", ls="--", lw=1, label="fair 1/n")
    ax.set_xticks(x, labels)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel("win share")
    ax.set_title(f"{title} (n = {table['n'].iloc[0]:,} per bar; 95% intervals)", loc="left")
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1, 1))  # beside the bars
    return fig


@styled
def matchup_heatmap(matrix: pd.DataFrame, centre: float, title: str) -> Figure:
    """A policy x opponent grid of shares, coloured around `centre` (fair share or 50%)."""
    fig = Figure(figsize=(1.6 + 1.1 * len(matrix.columns), 0.9 + 0.6 * len(matrix)))
    ax = fig.add_subplot()
    values = matrix.to_numpy(dtype=float)
    spread = max(np.nanmax(np.abs(values - centre)), 0.05)
    image = ax.imshow(values, cmap="RdBu", vmin=centre - spread, vmax=centre + spread)
    bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.03, format=PercentFormatter(1.0))
    bar.ax.tick_params(labelsize=7)
    for (i, j), v in np.ndenumerate(values):
        dark = not np.isnan(v) and abs(v - centre) > 0.6 * spread
        ax.text(
            j,
            i,
            "–" if np.isnan(v) else units.pct(v),
            ha="center",
            va="center",
            color="white" if dark else "black",
        )
    ax.set_xticks(range(len(matrix.columns)), [f"vs {c}" for c in matrix.columns])
    ax.set_yticks(range(len(matrix.index)), matrix.index)
    ax.grid(False)
    ax.set_title(title, loc="left")
    return fig


@styled
def score_distribution(players: pd.DataFrame, by: str) -> Figure:
    """Share of seat-games at each final score, one line per seat or policy."""
    fig = Figure(figsize=(5.2, 2.8))
    ax = fig.add_subplot()
    groups = list(players.groupby(by, sort=True))
    for (key, g), colour in zip(groups, _colours(groups, by == "seat"), strict=True):
        d = distribution(g["score"], "score")
        label = f"{by} {key}" if by == "seat" else str(key)
        ax.plot(
            d["score"], d["share"], marker="o", ms=3, color=colour, label=f"{label} (n={len(g):,})"
        )
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("final score")
    ax.set_ylabel("share of seat-games")
    ax.set_title(f"Score distribution by {by}", loc="left")
    ax.legend(frameon=False)
    return fig


@styled
def margin_bars(games: pd.DataFrame) -> Figure:
    """Winning margin (winner minus best other seat; 0 = shared win) as shares of games."""
    fig = Figure(figsize=(4.8, 2.6))
    ax = fig.add_subplot()
    d = distribution(games["margin"], "margin")
    colours = ["#999999" if m == 0 else "#4c72b0" for m in d["margin"]]
    ax.bar(d["margin"], d["share"], color=colours)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("winning margin (grey: shared win)")
    ax.set_title(f"Winning margin (n = {len(games):,} games)", loc="left")
    return fig


@styled
def points_bars(breakdown: pd.DataFrame, by: str) -> Figure:
    """Mean points per seat-game from each source, grouped by seat or policy."""
    parts = {
        "box_points": ("box points (all boxes)", "#4c72b0"),
        "cat_bonus": ("cat bonus", "#55a868"),
        "doubling_points": ("of box points: closed doubling", "#8172b2"),
        "negative_points": ("of box points: negative boxes", "#c44e52"),
    }
    fig = Figure(figsize=(5.6, 2.8))
    ax = fig.add_subplot()
    width = 0.8 / len(parts)
    x = np.arange(len(breakdown))
    for i, (col, (label, colour)) in enumerate(parts.items()):
        offset = (i - (len(parts) - 1) / 2) * width
        ax.bar(x + offset, breakdown[col], width, label=label, color=colour)
    ax.plot(x, breakdown["score"], "k_", ms=22, mew=2, label="mean score")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xticks(x, [f"{by} {v}" if by == "seat" else str(v) for v in breakdown[by]])
    ax.set_ylabel("mean points per seat-game")
    ax.set_title("Where points come from", loc="left")
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    return fig


@styled
def flow_panels(games: pd.DataFrame, triggers: pd.DataFrame) -> Figure:
    """Six small panels: turns, boxes, closed share, items wasted, cats on table, end trigger."""
    fig = Figure(figsize=(7.6, 4.4), layout="constrained")
    axes = fig.subplots(2, 3)
    closed = (games["closed_boxes"] / games["boxes"].where(games["boxes"] > 0)).dropna()
    panels = [
        ("turns", games["turns"]),
        ("boxes per game", games["boxes"]),
        ("items wasted", games["items_wasted"]),
        ("awake cats on table", games["cats_on_table"]),
    ]
    for ax, (name, values) in zip(axes.flat[:4], panels, strict=True):
        d = distribution(values, name)
        ax.bar(d[name], d["share"], color="#4c72b0", width=0.9)
        ax.set_title(name, loc="left")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes.flat[4].hist(
        closed,
        bins=np.linspace(0, 1, 21),
        color="#4c72b0",
        weights=np.full(len(closed), 1 / max(len(closed), 1)),
    )
    axes.flat[4].set_title("closed share of boxes", loc="left")
    axes.flat[4].yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax = axes.flat[5]
    err = _err(triggers["share"], triggers["lo"], triggers["hi"])
    ax.bar(triggers["end_trigger"], triggers["share"], yerr=err, capsize=4, color="#55a868")
    ax.set_title("end trigger (R7.1)", loc="left")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    fig.suptitle(f"Game flow (n = {len(games):,} games; shares of games)", x=0.01, ha="left")
    return fig


@styled
def card_impact_bars(impact: pd.DataFrame) -> Figure:
    """Improvement in win rate when a card was held, with 95% intervals, sorted."""
    d = impact.sort_values("improvement")
    fig = Figure(figsize=(5.6, 0.8 + 0.24 * len(d)))
    ax = fig.add_subplot()
    y = np.arange(len(d))
    err = _err(d["improvement"], d["lo"], d["hi"])
    ax.barh(
        y,
        d["improvement"],
        xerr=err,
        capsize=2,
        color=[KIND_COLOURS.get(k, "#777") for k in d["kind"]],
    )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [card_label(c) for c in d["card"]])
    ax.xaxis.set_major_formatter(pp_formatter())
    ax.set_xlabel("win rate when held − when never held, pp (association, not cause)")
    ax.set_title("Card impact (95% intervals, clustered by game)", loc="left")
    return fig


# ---------------------------------------------------------------- turns, tension, card use


@styled
def turn_panels(counts: pd.DataFrame, decomposition: pd.DataFrame, last: pd.DataFrame) -> Figure:
    """Turns taken per seat, who takes the last turn, and each seat's edge split into the
    part at equal turns and the part its extra turns added (95% intervals)."""
    fig = Figure(figsize=(7.6, 2.6), layout="constrained")
    ax_turns, ax_last, ax_edge = fig.subplots(1, 3, width_ratios=(1.2, 0.8, 1.2))
    seats = sorted(counts["seat"].unique())
    values = sorted(counts["turns_taken"].unique())
    width = 0.8 / len(seats)
    for i, seat in enumerate(seats):
        d = counts[counts["seat"] == seat].set_index("turns_taken").reindex(values)
        x = np.arange(len(values)) + (i - (len(seats) - 1) / 2) * width
        ax_turns.bar(x, d["share"].fillna(0), width, color=PALETTE[i], label=f"seat {seat}")
    ax_turns.set_xticks(np.arange(len(values)), [str(v) for v in values])
    ax_turns.set_xlabel("turns taken")
    ax_turns.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax_turns.set_title("turns per seat (share of games)", loc="left")
    ax_turns.legend(frameon=False, fontsize=6)
    shares = last.set_index("last_seat").reindex(seats)
    err = _err(shares["share"].fillna(0), shares["lo"].fillna(0), shares["hi"].fillna(0))
    ax_last.bar(
        [str(s) for s in seats],
        shares["share"].fillna(0),
        yerr=err,
        capsize=3,
        color=[PALETTE[i] for i in range(len(seats))],
    )
    ax_last.set_xlabel("seat")
    ax_last.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax_last.set_title("takes the last turn", loc="left")
    d = decomposition
    x = np.arange(len(d))
    for shift, part, color, label in (
        (-0.2, "equal", "#4c72b0", "at equal turns"),
        (0.2, "turn", "#dd8452", "from extra turns"),
    ):
        value = d[f"{part}_part"]
        err = _err(value, d[f"{part}_lo"], d[f"{part}_hi"])
        ax_edge.bar(x + shift, value, 0.4, color=color, label=label, yerr=err, capsize=3)
    ax_edge.plot(x, d["edge"], "k_", ms=18, mew=2, label="whole edge (win − 1/n)")
    ax_edge.axhline(0, color="black", lw=0.6)
    ax_edge.set_xticks(x, [f"seat {s}" for s in d["seat"]])
    ax_edge.yaxis.set_major_formatter(pp_formatter())
    ax_edge.set_title("seat edge, split (pp)", loc="left")
    ax_edge.legend(frameon=False, fontsize=6)
    return fig


@styled
def turns_by_deck(scan: pd.DataFrame) -> Figure:
    """Turns per game against the box cards in the deck, one line per player count; a filled
    marker where every seat took the same number of turns in at least 95% of the games."""
    fig = Figure(figsize=(6.0, 2.8), layout="constrained")
    ax = fig.add_subplot()
    for i, (n, d) in enumerate(scan.groupby("players", sort=True)):
        colour = PALETTE[i % len(PALETTE)]
        ax.plot(d["boxes"], d["turns"], color=colour, lw=1, label=f"{n} players")
        equal = d["all_equal"].to_numpy(bool)
        ax.scatter(d["boxes"][equal], d["turns"][equal], color=colour, s=28, zorder=3)
        ax.scatter(
            d["boxes"][~equal],
            d["turns"][~equal],
            facecolor="white",
            edgecolor=colour,
            s=28,
            zorder=3,
        )
        for r in d.itertuples():
            ax.annotate(
                units.pct(r.equal),
                (r.boxes, r.turns),
                textcoords="offset points",
                xytext=(0, 5),
                ha="center",
                fontsize=5,
                color=colour,
            )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("box cards in the deck (mix kept)")
    ax.set_ylabel("turns per game")
    games = int(scan["games"].iloc[0]) if len(scan) else 0
    ax.set_title(
        f"Turns against deck size ({games} games per point)\nfilled: every seat takes as many"
        " turns in ≥95% of the games; labels: share of games with equal turns",
        loc="left",
        fontsize=7,
    )
    ax.legend(frameon=False, fontsize=6, loc="upper left", bbox_to_anchor=(1, 1))
    return fig


@styled
def tension_panels(
    game: pd.DataFrame, index: int, bands: pd.DataFrame, games: pd.DataFrame
) -> Figure:
    """One game's per-seat score lines, the band of the leader's margin over the rounds of all
    games, and how many lead changes games have."""
    fig = Figure(figsize=(7.6, 2.6), layout="constrained")
    ax_game, ax_band, ax_changes = fig.subplots(1, 3)
    for i, seat in enumerate(game.columns):
        ax_game.plot(
            game.index,
            game[seat],
            marker="o",
            ms=2,
            color=PALETTE[i % len(PALETTE)],
            label=f"seat {seat}",
        )
    ax_game.set_xlabel("round")
    ax_game.set_ylabel("table score")
    ax_game.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_game.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax_game.set_title(f"game {index} (median margin)", loc="left")
    ax_game.legend(frameon=False, fontsize=6)
    ax_band.fill_between(
        bands["round"], bands["q10"], bands["q90"], color="#4c72b0", alpha=0.2, lw=0, label="10–90%"
    )
    ax_band.fill_between(
        bands["round"], bands["q25"], bands["q75"], color="#4c72b0", alpha=0.4, lw=0, label="25–75%"
    )
    ax_band.plot(bands["round"], bands["q50"], color="#1f3f6e", lw=1.5, label="median")
    ax_band.set_xlabel("round")
    ax_band.set_ylabel("points")
    ax_band.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_band.set_title("leader's lead over the runner-up", loc="left")
    ax_band.legend(frameon=False, fontsize=6)
    d = distribution(games["lead_changes"], "lead_changes")
    ax_changes.bar(d["lead_changes"], d["share"], color="#55a868")
    ax_changes.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_changes.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax_changes.set_xlabel("lead changes")
    ax_changes.set_title("lead changes per game", loc="left")
    return fig


@styled
def dead_card_bars(usage: pd.DataFrame) -> Figure:
    """Per card kind: the share of seat-games holding it in which a copy died (discarded
    unplayed, or for items wasted), with 95% intervals."""
    d = usage.sort_values("dead_games")
    fig = Figure(figsize=(5.6, 0.8 + 0.24 * len(d)))
    ax = fig.add_subplot()
    y = np.arange(len(d))
    ax.barh(
        y,
        d["dead_games"],
        xerr=_err(d["dead_games"], d["dg_lo"], d["dg_hi"]),
        capsize=2,
        color=[KIND_COLOURS.get(k, "#777") for k in d["kind"]],
    )
    ax.set_yticks(y, [card_label(c) for c in d["card"]])
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("share of the seat-games holding the card in which a copy did nothing")
    ax.set_title("Dead cards and wasted items (95% intervals, clustered by game)", loc="left")
    return fig
