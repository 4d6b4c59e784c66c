"""The table picture: one mark per card, wall, cat, Princess and item of a position."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.engine.position_io import load_position
from sim.report.figures import SEAT_COLOURS
from sim.report.table_picture import draw_position

POSITIONS = sorted((Path(__file__).resolve().parents[2] / "configs" / "positions").glob("*.json"))
POSITIONS = [p for p in POSITIONS if p.name != "expected.json"]


def marks(svg: str, cls: str) -> list[str]:
    """The elements of one class in the drawing."""
    return re.findall(rf'<[a-z]+ [^>]*class="{cls}"[^>]*/>', svg)


@pytest.mark.parametrize("path", POSITIONS, ids=lambda p: p.stem)
def test_marks_match_the_position(path):
    pos = load_position(path)
    svg = draw_position(pos, path.stem).to_svg("t")
    # the box shade and the thin outline of every card
    assert len(marks(svg, "shade")) == len(marks(svg, "card")) == len(pos.cards)
    ovals = len(pos.cats) + len(pos.princesses) + len(pos.sleeping)
    assert len(marks(svg, "oval")) == ovals
    walls = sum(bin(w).count("1") for w in pos.cards.values())
    assert len(marks(svg, "wall")) == walls
    assert len(marks(svg, "item")) == len(pos.items)


def test_cats_wear_their_seat_colour():
    pos = load_position(next(p for p in POSITIONS if p.stem == "princess"))
    ovals = marks(draw_position(pos).to_svg("t"), "oval")
    faces = [re.search(r'fill="([^"]+)"', o)[1] for o in ovals]
    assert faces.count(SEAT_COLOURS[0]) == 1  # seat 0's one awake cat
    assert faces.count("#000") == 2  # two Princesses in black


def test_svg_is_deterministic():
    pos = load_position(POSITIONS[0])
    assert draw_position(pos).to_svg("t") == draw_position(pos).to_svg("t")
