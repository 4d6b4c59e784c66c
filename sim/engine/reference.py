"""Slow, obviously-correct boxes, closure and scoring of a Position (R1.6-R1.8, R8).

Plain sets, dicts and breadth-first search, recomputed from scratch on every
call. The fast engine is tested against these functions, so nothing here is
built for speed: each function mirrors one paragraph of RULES.md.
"""

from __future__ import annotations

from collections import Counter, deque

from sim.engine.position import Cell, Position
from sim.walls import E, N, S, W

SPRAYER = "sprayer"

# The four sides of a card and the neighbour each one faces (R1.1):
#            (r-1,c)              long seam: my N side against its S side
#   (r,c-1)  [card]  (r,c+1)      short seams: my W against its E, my E against its W
#            (r+1,c)              long seam: my S side against its N side
# Each entry: (row step, column step, my side, the neighbour's touching side).
STEPS: tuple[tuple[int, int, int, int], ...] = (
    (-1, 0, N, S),
    (0, 1, E, W),
    (1, 0, S, N),
    (0, -1, W, E),
)


def touching_sides(a: Cell, b: Cell) -> tuple[int, int] | None:
    """The side of `a` facing `b` and the side of `b` facing `a`, or None if not adjacent."""
    for dr, dc, mine, theirs in STEPS:
        if (a[0] + dr, a[1] + dc) == b:
            return mine, theirs
    return None


def is_open_seam(pos: Position, a: Cell, b: Cell) -> bool:
    """True when a and b are adjacent cards whose touching sides are both open (R1.6)."""
    if a not in pos.cards or b not in pos.cards:
        return False
    sides = touching_sides(a, b)
    if sides is None:
        return False
    side_a, side_b = sides
    # R1.6: one wall on either touching side makes the seam walled.
    return not (pos.cards[a] & side_a) and not (pos.cards[b] & side_b)


def open_neighbours(pos: Position, cell: Cell) -> list[Cell]:
    """The cards joined to `cell` by an open seam (R1.6)."""
    out = []
    for dr, dc, _, _ in STEPS:
        other = (cell[0] + dr, cell[1] + dc)
        if is_open_seam(pos, cell, other):
            out.append(other)
    return out


def boxes(pos: Position) -> list[frozenset[Cell]]:
    """Every box, the maximal sets of cards joined by open seams (R1.7), by smallest card."""
    seen: set[Cell] = set()
    found: list[frozenset[Cell]] = []
    for start in pos.cards:
        if start in seen:
            continue
        # Breadth-first search over open seams; a card with none is a box by itself (R1.7).
        box = {start}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for other in open_neighbours(pos, cell):
                if other not in box:
                    box.add(other)
                    queue.append(other)
        seen |= box
        found.append(frozenset(box))
    return sorted(found, key=min)


def is_closed(pos: Position, box: frozenset[Cell]) -> bool:
    """True when no card of the box has an open side that touches no card (R1.8)."""
    for cell in box:
        walls = pos.cards[cell]
        for dr, dc, mine, _ in STEPS:
            side_is_open = not (walls & mine)
            # R1.8: an open side facing any card is sealed (by the neighbour's wall,
            # or else it is an open seam inside the box); facing an empty cell it leaks.
            if side_is_open and (cell[0] + dr, cell[1] + dc) not in pos.cards:
                return False
    return True


def _cats_in_box(pos: Position, box: frozenset[Cell]) -> tuple[list[int], list[int]]:
    """Awake and sleeping cats per player in the box; the Princess is nobody's (R6.3)."""
    awake = [0] * pos.players
    for cat in pos.cats:
        # R4.1: both cards of a cat share an open seam, so they lie in one box.
        if cat.north in box:
            awake[cat.player] += 1
    sleeping = [0] * pos.players
    for cell, owner in pos.sleeping.items():
        if cell in box:
            sleeping[owner] += 1
    return awake, sleeping


def _leaders(counts: list[int]) -> list[int]:
    """Seats with the highest count, if that count is at least 1; ties all lead (R8.2)."""
    top = max(counts)
    if top < 1:
        return []
    return [seat for seat, count in enumerate(counts) if count == top]


def score_box(pos: Position, box: frozenset[Cell]) -> dict:
    """The scoring of one box, as one entry of `sim score`'s "boxes" list (R8.1-R8.4)."""
    closed = is_closed(pos, box)
    awake, sleeping = _cats_in_box(pos, box)
    # R8.2: sleeping cats count for the majority unless the variant turns that off.
    if pos.rules.sleeping_counts_for_majority:
        majority = [a + s for a, s in zip(awake, sleeping, strict=True)]
    else:
        majority = list(awake)
    # R8.6: an item belongs to the box both of its cards are in.
    items = [item for item in pos.items if item.a in box and item.b in box]
    toys = Counter(item.kind for item in items if item.kind != SPRAYER)
    sprayers = sum(1 for item in items if item.kind == SPRAYER)
    # R8.3: only the most numerous kind counts (tied kinds count once), minus sprayers.
    value = max(toys.values(), default=0) - sprayers
    if closed:
        value *= 2  # R8.4, negative values included
    return {
        "cards": [list(cell) for cell in sorted(box)],
        "closed": closed,
        "cats": majority,
        "awake": awake,
        "sleeping": sleeping,
        "leaders": _leaders(majority),
        "toys": dict(sorted(toys.items())),
        "sprayers": sprayers,
        "value": value,
    }


def cat_bonus(pos: Position) -> list[int]:
    """Per player, 1 point per awake cat; sleeping cats and the Princess give none (R8.5)."""
    bonus = [0] * pos.players
    for cat in pos.cats:
        bonus[cat.player] += 1
    return bonus


def score_position(pos: Position) -> dict:
    """The full scoring that `sim score` prints: totals, bonuses, winners and every box (R8)."""
    rows = [score_box(pos, box) for box in boxes(pos)]  # R8.1: each box on its own
    box_points = [0] * pos.players
    for row in rows:
        for seat in row["leaders"]:
            box_points[seat] += row["value"]  # R8.2: tied leaders all score in full
    bonus = cat_bonus(pos)
    scores = [p + b for p, b in zip(box_points, bonus, strict=True)]
    best = max(scores)
    return {
        "scores": scores,
        "cat_bonus": bonus,
        "box_points": box_points,
        "winners": [seat for seat, total in enumerate(scores) if total == best],  # R8.6
        "boxes": rows,
    }
