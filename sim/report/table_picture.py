"""A final table drawn as a picture: cards, walls, boxes shaded by leader, cats, Princess, items.

Cards are landscape (long edges north and south, R1.1), so a cell is wider
than tall; rows grow down the page. An awake cat or the Princess lies across
the long seam between its two cards (R4.1, R6.1); items sit on the middle of
the seam they were placed on (R5.1).
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Ellipse, Patch, Rectangle

from sim.engine.position import Cell, Position
from sim.engine.reference import SPRAYER, score_position
from sim.walls import E, N, S, W

CARD_W, CARD_H = 2.0, 1.2  # a card's long (N/S) and short (E/W) edges
SEAT_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")
TOY_MARKERS = ("o", "s", "^", "D", "v", "P", "*", "h")
TIED = "#bbbbbb"
UNLED = "#faf8f2"


def _corner(cell: Cell) -> tuple[float, float]:
    """The north-west corner of a cell in drawing units (y grows down the page)."""
    return cell[1] * CARD_W, cell[0] * CARD_H


def _centre(cell: Cell) -> tuple[float, float]:
    """The middle of a cell."""
    x, y = _corner(cell)
    return x + CARD_W / 2, y + CARD_H / 2


def _leader_fills(pos: Position) -> tuple[dict[Cell, tuple[str, str]], list[dict]]:
    """Per cell the (fill colour, hatch) of its box by leader (R8.2), and the scored boxes."""
    scored = score_position(pos)
    fills = {}
    for box in scored["boxes"]:
        leaders = box["leaders"]
        if len(leaders) == 1:
            fill = (SEAT_COLOURS[leaders[0] % len(SEAT_COLOURS)], "")
        else:
            fill = (TIED, "///") if leaders else (UNLED, "")
        for cell in box["cards"]:
            fills[tuple(cell)] = fill
    return fills, scored["boxes"]


def _draw_card(ax, cell: Cell, walls: int, fill: tuple[str, str]) -> None:
    """One card: its box shade, a thin outline, and a thick line for every wall (R1.2)."""
    x, y = _corner(cell)
    colour, hatch = fill
    alpha = 1.0 if colour == UNLED else 0.28
    ax.add_patch(
        Rectangle(
            (x, y), CARD_W, CARD_H, facecolor=colour, alpha=alpha, hatch=hatch, edgecolor="none"
        )
    )
    ax.add_patch(Rectangle((x, y), CARD_W, CARD_H, fill=False, edgecolor="#999", lw=0.5))
    sides = {
        N: ((x, x + CARD_W), (y, y)),
        S: ((x, x + CARD_W), (y + CARD_H, y + CARD_H)),
        W: ((x, x), (y, y + CARD_H)),
        E: ((x + CARD_W, x + CARD_W), (y, y + CARD_H)),
    }
    for bit, (xs, ys) in sides.items():
        if walls & bit:
            ax.plot(xs, ys, color="black", lw=3, solid_capstyle="projecting")


def _draw_pair(ax, north: Cell, colour: str, label: str, text_colour: str) -> None:
    """An oval across the long seam between a cell and the one south of it (R4.1, R6.1)."""
    x, y = _centre(north)
    ax.add_patch(
        Ellipse(
            (x, y + CARD_H / 2),
            CARD_W * 0.5,
            CARD_H * 1.45,
            facecolor=colour,
            edgecolor="black",
            lw=0.8,
            zorder=3,
        )
    )
    ax.text(  # on the north half, clear of an item on the seam, and above any marker
        x,
        y + CARD_H * 0.12,
        label,
        ha="center",
        va="center",
        fontsize=7,
        color=text_colour,
        zorder=6,
        fontweight="bold",
    )


def _draw_sleeping(ax, cell: Cell, seat: int) -> None:
    """A sleeping cat: a dashed, paler oval on its single card with 'z' (R3.2)."""
    x, y = _centre(cell)
    ax.add_patch(
        Ellipse(
            (x, y),
            CARD_W * 0.45,
            CARD_H * 0.6,
            facecolor=_seat(seat),
            alpha=0.55,
            edgecolor="black",
            lw=0.8,
            ls="--",
            zorder=3,
        )
    )
    ax.text(x, y, f"z{seat}", ha="center", va="center", fontsize=6, zorder=4)


def _draw_item(ax, item, markers: dict[str, str]) -> None:
    """A toy or sprayer on the middle of its seam (R5.1)."""
    (xa, ya), (xb, yb) = _centre(item.a), _centre(item.b)
    x, y = (xa + xb) / 2, (ya + yb) / 2
    if item.kind == SPRAYER:
        ax.plot(x, y, marker="X", ms=8, color="#c00000", mec="white", mew=0.8, zorder=5)
    else:
        ax.plot(
            x, y, marker=markers[item.kind], ms=6, color="#f5d000", mec="black", mew=0.8, zorder=5
        )


def _seat(seat: int) -> str:
    """The seat's colour."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def _box_labels(ax, boxes: list[dict]) -> None:
    """Each box's value (after doubling, R8.4) in its north-west card; 'c' marks a closed box."""
    for box in boxes:
        if box["value"] == 0 and not box["closed"]:
            continue
        x, y = _corner(tuple(min(map(tuple, box["cards"]))))
        value = f"{box['value']:+d}" if box["value"] else ""
        text = f"{value} c".strip() if box["closed"] else value
        ax.text(x + 0.08, y + 0.12, text, ha="left", va="top", fontsize=6, zorder=6)


def _legend(ax, pos: Position, markers: dict[str, str]) -> None:
    """Seat colours, occupants, items and walls."""
    handles = [
        Patch(facecolor=_seat(p), edgecolor="black", label=f"seat {p}") for p in range(pos.players)
    ]
    handles += [
        Patch(facecolor="white", edgecolor="black", ls="--", label="sleeping cat (z + seat)"),
        Patch(facecolor="black", label="Princess"),
        Patch(facecolor=TIED, alpha=0.5, hatch="///", label="box with tied leaders"),
        Line2D([], [], color="black", lw=3, label="wall"),
        Line2D([], [], marker="X", ls="", color="#c00000", label="sprayer"),
    ]
    handles += [
        Line2D([], [], marker=m, ls="", color="#f5d000", mec="black", label=kind)
        for kind, m in markers.items()
    ]
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        fontsize=7,
        frameon=False,
        title="box shade = leader's seat;\nnumber = box value, c = closed",
        title_fontsize=7,
    )


def draw_position(pos: Position, title: str = "") -> Figure:
    """The whole table as a matplotlib Figure, with a legend."""
    fills, boxes = _leader_fills(pos)
    rows = [r for r, _ in pos.cards]
    cols = [c for _, c in pos.cards]
    width = (max(cols) - min(cols) + 1) * CARD_W
    height = (max(rows) - min(rows) + 1) * CARD_H
    scale = min(0.55, 7.0 / width)
    fig = Figure(figsize=(width * scale + 2.6, height * scale + 0.6))
    ax = fig.add_axes((0.02, 0.02, width * scale / (width * scale + 2.6), 0.9))
    for cell, walls in pos.cards.items():
        _draw_card(ax, cell, walls, fills[cell])
    for cat in pos.cats:
        _draw_pair(ax, cat.north, _seat(cat.player), str(cat.player), "white")
    for princess in pos.princesses:
        _draw_pair(ax, princess.north, "black", "P", "white")
    for cell, seat in pos.sleeping.items():
        _draw_sleeping(ax, cell, seat)
    kinds = sorted({i.kind for i in pos.items if i.kind != SPRAYER})
    markers = {k: TOY_MARKERS[i % len(TOY_MARKERS)] for i, k in enumerate(kinds)}
    for item in pos.items:
        _draw_item(ax, item, markers)
    _box_labels(ax, boxes)
    ax.set_xlim(min(cols) * CARD_W - 0.2, (max(cols) + 1) * CARD_W + 0.2)
    ax.set_ylim((max(rows) + 1) * CARD_H + 0.2, min(rows) * CARD_H - 0.2)  # rows grow down
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=9, loc="left")
    _legend(ax, pos, markers)
    return fig
