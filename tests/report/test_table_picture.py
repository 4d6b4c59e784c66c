"""The table picture: one mark per card, wall, cat, Princess and item of a position."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.patches import Ellipse, Rectangle

from sim.engine.position_io import load_position
from sim.report.figures import to_svg
from sim.report.table_picture import SEAT_COLOURS, draw_position

POSITIONS = sorted((Path(__file__).resolve().parents[2] / "configs" / "positions").glob("*.json"))
POSITIONS = [p for p in POSITIONS if p.name != "expected.json"]


@pytest.mark.parametrize("path", POSITIONS, ids=lambda p: p.stem)
def test_marks_match_the_position(path):
    pos = load_position(path)
    ax = draw_position(pos, path.stem).axes[0]
    patches = ax.patches
    # two rectangles per card: the box shade and the thin outline
    assert sum(isinstance(p, Rectangle) for p in patches) == 2 * len(pos.cards)
    ovals = len(pos.cats) + len(pos.princesses) + len(pos.sleeping)
    assert sum(isinstance(p, Ellipse) for p in patches) == ovals
    walls = sum(bin(w).count("1") for w in pos.cards.values())
    assert sum(line.get_linewidth() == 3 for line in ax.lines) == walls
    items = [line for line in ax.lines if line.get_marker() not in ("None", None, "")]
    assert len(items) == len(pos.items)


def test_cats_wear_their_seat_colour():
    pos = load_position(next(p for p in POSITIONS if p.stem == "princess"))
    ax = draw_position(pos).axes[0]
    ovals = [p for p in ax.patches if isinstance(p, Ellipse)]
    faces = [tuple(round(v, 3) for v in p.get_facecolor()[:3]) for p in ovals]
    seat0 = tuple(round(int(SEAT_COLOURS[0][i : i + 2], 16) / 255, 3) for i in (1, 3, 5))
    assert faces.count(seat0) == 1  # seat 0's one awake cat
    assert faces.count((0.0, 0.0, 0.0)) == 2  # two Princesses in black


def test_svg_is_deterministic():
    pos = load_position(POSITIONS[0])
    assert to_svg(draw_position(pos), "t") == to_svg(draw_position(pos), "t")
