"""The table as text for a terminal (`sim play --show`)."""

from __future__ import annotations

from sim.engine.position import Position
from sim.walls import E, N, S, W


def render(pos: Position) -> str:
    """Draw every card as a 3x7 block: walls as lines, the occupant in the middle.

    Occupants: `A0` awake cat of seat 0 (both of its cards), `Z1` seat 1's
    sleeping cat, `PR` the Princess. Items are listed under the picture.
    """
    occupant: dict[tuple[int, int], str] = {}
    for cat in pos.cats:
        occupant[cat.north] = occupant[cat.south] = f"A{cat.player}"
    for cell, seat in pos.sleeping.items():
        occupant[cell] = f"Z{seat}"
    for princess in pos.princesses:
        occupant[princess.north] = occupant[princess.south] = "PR"
    rows = [r for r, _ in pos.cards]
    cols = [c for _, c in pos.cards]
    lines = []
    header = "      " + "".join(f"{c:^7}" for c in range(min(cols), max(cols) + 1))
    lines.append(header)
    for r in range(min(rows), max(rows) + 1):
        top, mid, bottom = [f"{'':6}"], [f"{r:>5} "], [f"{'':6}"]
        for c in range(min(cols), max(cols) + 1):
            walls = pos.cards.get((r, c))
            if walls is None:
                top.append(" " * 7)
                mid.append(" " * 7)
                bottom.append(" " * 7)
                continue
            top.append("+" + ("-----" if walls & N else "     ") + "+")
            bottom.append("+" + ("-----" if walls & S else "     ") + "+")
            mid.append(
                ("|" if walls & W else " ")
                + f" {occupant.get((r, c), '  '):2}  "
                + ("|" if walls & E else " ")
            )
        lines += ["".join(top), "".join(mid), "".join(bottom)]
    if pos.items:
        lines.append(
            "items: "
            + ", ".join(f"{item.kind} {list(item.a)}|{list(item.b)}" for item in pos.items)
        )
    lines.append("A<seat> awake cat, Z<seat> sleeping cat, PR Princess; lines are walls")
    return "\n".join(lines)
