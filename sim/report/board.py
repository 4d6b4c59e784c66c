"""The table as drawing data for the browser: the same picture as `table_picture`, in JSON.

The live table (`sim table`) and the replay page (`sim replay`) draw the table
in the page with one script, `templates/board.js`, from `table_data`: cards
with their walls and the box each lies in, each box's leaders and value
(R8.2-R8.4, from the reference scorer), cats, sleeping cats, Princesses and
items. Everything here is public: a Position holds nothing of a hand or the deck.
"""

from __future__ import annotations

from pathlib import Path

from sim.engine.position import Position
from sim.engine.reference import score_position
from sim.report.figures import SEAT_COLOURS

TEMPLATES = Path(__file__).resolve().parent / "templates"
BOARD_JS = TEMPLATES / "board.js"


def table_data(pos: Position) -> dict:
    """Cards `[row, col, walls, box]`, boxes (leaders, value, closed, toys, sprayers, cats),
    awake cats `[seat, row, col]` by their north card, sleeping cats `[seat, row, col]`,
    Princesses `[row, col]` (north card), items `[kind, r1, c1, r2, c2]`, and the scores."""
    scored = score_position(pos)
    box_of: dict[tuple[int, int], int] = {}
    boxes = []
    for i, box in enumerate(scored["boxes"]):
        cells = [tuple(cell) for cell in box["cards"]]
        for cell in cells:
            box_of[cell] = i
        boxes.append(
            {
                "leaders": box["leaders"],
                "value": box["value"],
                "closed": box["closed"],
                "size": len(cells),
                "nw": list(min(cells)),
                "toys": box["toys"],
                "sprayers": box["sprayers"],
                "cats": box["cats"],
            }
        )
    return {
        "cards": [[r, c, walls, box_of[(r, c)]] for (r, c), walls in sorted(pos.cards.items())],
        "boxes": boxes,
        "cats": sorted([cat.player, *cat.north] for cat in pos.cats),
        "sleeping": sorted([seat, *cell] for cell, seat in pos.sleeping.items()),
        "princesses": sorted(list(p.north) for p in pos.princesses),
        "items": [[item.kind, *item.a, *item.b] for item in pos.items],
        "scores": scored["scores"],
        "box_points": scored["box_points"],
        "cat_bonus": scored["cat_bonus"],
        "winners": scored["winners"],
    }


def box_points(table: dict, players: int) -> list[dict]:
    """Each box that scores for somebody: its size, closed, toys, sprayers, value and the
    points it gives each seat (every tied leader scores it in full, R8.2)."""
    rows = []
    for box in table["boxes"]:
        if not box["leaders"] or box["value"] == 0:
            continue
        points = [box["value"] if seat in box["leaders"] else 0 for seat in range(players)]
        rows.append({**box, "points": points})
    return rows


def board_script() -> str:
    """The drawing script shared by the live table and the replay page."""
    return BOARD_JS.read_text(encoding="utf-8")


def seat_colours(players: int) -> list[str]:
    """The seats' colours, as the report's drawn table uses them."""
    return [SEAT_COLOURS[p % len(SEAT_COLOURS)] for p in range(players)]
