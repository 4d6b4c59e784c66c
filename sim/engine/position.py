"""A table position as plain data: what `sim score` reads and the engine exports.

Cells are `(row, col)`; rows grow southward, columns eastward (R1.1). Walls
are masks as the card lies on the table (after any turning), N=1 E=2 S=4 W=8.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.variants import Rules

Cell = tuple[int, int]


@dataclass(frozen=True)
class AwakeCat:
    """An awake cat of `player` on two north-south neighbours, `north` above `south` (R4.1)."""

    player: int
    north: Cell
    south: Cell


@dataclass(frozen=True)
class Princess:
    """The Princess lying on two north-south neighbours (R6.1)."""

    north: Cell
    south: Cell


@dataclass(frozen=True)
class Item:
    """A toy (`kind` is its toy kind) or a sprayer (`kind == "sprayer"`) on the seam a|b (R5.1)."""

    kind: str
    a: Cell
    b: Cell


@dataclass(frozen=True)
class Position:
    """Everything scoring needs: cards, cats, sleeping cats, Princesses and items."""

    players: int
    cards: dict[Cell, int]
    sleeping: dict[Cell, int] = field(default_factory=dict)  # cell -> owner of the sleeping cat
    cats: tuple[AwakeCat, ...] = ()
    princesses: tuple[Princess, ...] = ()
    items: tuple[Item, ...] = ()
    rules: Rules = field(default_factory=Rules)
