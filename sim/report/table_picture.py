"""A final table drawn as a picture: cards, walls, boxes shaded by leader, cats, Princess, items.

Cards are landscape (long edges north and south, R1.1), so a cell is wider
than tall; rows grow down the page. An awake cat or the Princess lies across
the long seam between its two cards (R4.1, R6.1); items sit on the middle of
the seam they were placed on (R5.1).
"""

from __future__ import annotations

from sim.engine.position import Cell, Position
from sim.engine.reference import SPRAYER, score_position
from sim.report.canvas import FONT, Canvas, text_width
from sim.report.figures import SEAT_COLOURS
from sim.walls import E, N, S, W

CARD_W, CARD_H = 2.0, 1.2  # a card's long (N/S) and short (E/W) edges
TOY_MARKERS = ("o", "s", "^", "D", "v", "P", "h", "X")
TIED = "#bbbbbb"
UNLED = "#faf8f2"
LEGEND_W = 2.6 * 72  # points beside the table for the legend


class _Table:
    """Drawing units (card edges) to points on a canvas: x right, y down the page."""

    def __init__(self, c: Canvas, left: float, top: float, unit: float, row0: int, col0: int):
        self.c, self.left, self.top, self.unit = c, left, top, unit
        self.row0, self.col0 = row0, col0

    def at(self, x: float, y: float) -> tuple[float, float]:
        return (
            self.left + (x - self.col0 * CARD_W) * self.unit,
            self.top + (y - self.row0 * CARD_H) * self.unit,
        )


def _corner(cell: Cell) -> tuple[float, float]:
    """The north-west corner of a cell in drawing units (y grows down the page)."""
    return cell[1] * CARD_W, cell[0] * CARD_H


def _centre(cell: Cell) -> tuple[float, float]:
    """The middle of a cell."""
    x, y = _corner(cell)
    return x + CARD_W / 2, y + CARD_H / 2


def _leader_fills(pos: Position) -> tuple[dict[Cell, tuple[str, bool]], list[dict]]:
    """Per cell the (fill colour, hatched) of its box by leader (R8.2), and the scored boxes."""
    scored = score_position(pos)
    fills = {}
    for box in scored["boxes"]:
        leaders = box["leaders"]
        if len(leaders) == 1:
            fill = (SEAT_COLOURS[leaders[0] % len(SEAT_COLOURS)], False)
        else:
            fill = (TIED, True) if leaders else (UNLED, False)
        for cell in box["cards"]:
            fills[tuple(cell)] = fill
    return fills, scored["boxes"]


def _draw_card(t: _Table, cell: Cell, walls: int, fill: tuple[str, bool]) -> None:
    """One card: its box shade (hatched for tied leaders), a thin outline, and a thick line
    for every wall (R1.2)."""
    x, y = t.at(*_corner(cell))
    w, h = CARD_W * t.unit, CARD_H * t.unit
    colour, hatched = fill
    t.c.rect(x, y, w, h, colour, opacity=1.0 if colour == UNLED else 0.28, cls="shade")
    if hatched:  # '///' lines u + v = k across the card, clipped to it
        step = 6.0
        k = step
        while k < w + h:
            u0, u1 = max(0.0, k - h), min(w, k)
            t.c.line([x + u0, x + u1], [y + k - u0, y + k - u1], "#888", 0.6)
            k += step
    t.c.rect(x, y, w, h, stroke="#999", width=0.5, cls="card")
    sides = {N: ((0, 0), (w, 0)), S: ((0, h), (w, h)), W: ((0, 0), (0, h)), E: ((w, 0), (w, h))}
    for bit, ((xa, ya), (xb, yb)) in sides.items():
        if walls & bit:
            t.c.line([x + xa, x + xb], [y + ya, y + yb], "#000", 3, cls="wall", cap="square")


def _draw_pair(t: _Table, north: Cell, colour: str, label: str) -> None:
    """An oval across the long seam between a cell and the one south of it (R4.1, R6.1)."""
    cx, cy = _centre(north)
    x, y = t.at(cx, cy + CARD_H / 2)
    t.c.ellipse(x, y, CARD_W * 0.25 * t.unit, CARD_H * 0.725 * t.unit, colour, cls="oval")
    # on the north half, clear of an item on the seam
    _, ty = t.at(cx, cy - CARD_H * 0.38)
    t.c.text(x, ty, label, 7, "middle", "#fff", bold=True, middle=True)


def _draw_sleeping(t: _Table, cell: Cell, seat: int) -> None:
    """A sleeping cat: a dashed, paler oval on its single card with 'z' (R3.2)."""
    x, y = t.at(*_centre(cell))
    rx, ry = CARD_W * 0.225 * t.unit, CARD_H * 0.3 * t.unit
    t.c.ellipse(x, y, rx, ry, _seat(seat), dash="3 2", opacity=0.55, cls="oval")
    t.c.text(x, y, f"z{seat}", 6, "middle", middle=True)


def _draw_item(t: _Table, item, markers: dict[str, str]) -> None:
    """A toy or sprayer on the middle of its seam (R5.1)."""
    (xa, ya), (xb, yb) = _centre(item.a), _centre(item.b)
    x, y = t.at((xa + xb) / 2, (ya + yb) / 2)
    if item.kind == SPRAYER:
        t.c.marker(x, y, "X", 8, "#c00000", "#fff", 0.8, cls="item")
    else:
        t.c.marker(x, y, markers[item.kind], 6, "#f5d000", "#000", 0.8, cls="item")


def _seat(seat: int) -> str:
    """The seat's colour."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def _box_labels(t: _Table, boxes: list[dict]) -> None:
    """Each box's value (after doubling, R8.4) in its north-west card; 'c' marks a closed box."""
    for box in boxes:
        if box["value"] == 0 and not box["closed"]:
            continue
        x, y = t.at(*_corner(tuple(min(map(tuple, box["cards"])))))
        value = f"{box['value']:+d}" if box["value"] else ""
        text = f"{value} c".strip() if box["closed"] else value
        t.c.text(x + 0.08 * t.unit, y + 0.12 * t.unit + 6, text, 6)


def _legend(c: Canvas, x: float, y: float, pos: Position, markers: dict[str, str]) -> None:
    """Seat colours, occupants, items and walls, top-down from (x, y)."""
    size, row = 7, 11
    for line in ("box shade = leader's seat;", "number = box value, c = closed"):
        c.text(x, y + size, line, size)
        y += row
    y += 3

    def entry(label: str, swatch) -> None:
        nonlocal y
        swatch(x, y + row / 2)
        c.text(x + 18, y + row / 2, label, size, middle=True)
        y += row

    for p in range(pos.players):
        entry(f"seat {p}", lambda a, b, p=p: c.rect(a, b - 4, 12, 8, _seat(p), "#000", 0.5))
    entry("sleeping cat (z + seat)", lambda a, b: c.ellipse(a + 6, b, 6, 4, "#fff", dash="3 2"))
    entry("Princess", lambda a, b: c.rect(a, b - 4, 12, 8, "#000"))
    entry("box with tied leaders", lambda a, b: c.rect(a, b - 4, 12, 8, TIED, opacity=0.5))
    entry("wall", lambda a, b: c.line([a, a + 12], [b, b], "#000", 3))
    entry("sprayer", lambda a, b: c.marker(a + 6, b, "X", 7, "#c00000"))
    for kind, m in markers.items():
        entry(kind, lambda a, b, m=m: c.marker(a + 6, b, m, 6, "#f5d000", "#000", 0.8))


def draw_position(pos: Position, title: str = "") -> Canvas:
    """The whole table as an SVG drawing, with a legend."""
    fills, boxes = _leader_fills(pos)
    rows = [r for r, _ in pos.cards]
    cols = [c for _, c in pos.cards]
    width = (max(cols) - min(cols) + 1) * CARD_W
    height = (max(rows) - min(rows) + 1) * CARD_H
    unit = min(0.55, 7.0 / width) * 72  # points per drawing unit
    head = FONT + 10 if title else 6
    legend_rows = pos.players + 5 + len({i.kind for i in pos.items if i.kind != SPRAYER})
    canvas = Canvas(
        max(width * unit + 12 + LEGEND_W, text_width(title, 9) + 16),
        max(height * unit + head + 8, head + 25 + 11 * legend_rows),
    )
    canvas.name = title or "the final table"
    if title:
        canvas.text(6, FONT + 4, title, 9)
    t = _Table(canvas, 6, head, unit, min(rows), min(cols))
    for cell, walls in pos.cards.items():
        _draw_card(t, cell, walls, fills[cell])
    for cat in pos.cats:
        _draw_pair(t, cat.north, _seat(cat.player), str(cat.player))
    for princess in pos.princesses:
        _draw_pair(t, princess.north, "#000", "P")
    for cell, seat in pos.sleeping.items():
        _draw_sleeping(t, cell, seat)
    kinds = sorted({i.kind for i in pos.items if i.kind != SPRAYER})
    markers = {k: TOY_MARKERS[i % len(TOY_MARKERS)] for i, k in enumerate(kinds)}
    for item in pos.items:
        _draw_item(t, item, markers)
    _box_labels(t, boxes)
    _legend(canvas, width * unit + 18, head, pos, markers)
    return canvas
