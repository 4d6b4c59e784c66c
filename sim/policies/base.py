"""The policy protocol, for designers who plug in their own player.

A policy is any class with `choose(view, legal, rng) -> action`:
- `view` is the seat's `sim.engine.game.PlayerView`: own hand, the table,
  public counts; never the deck order or other hands;
- `legal` is a list of `LegalAction` (the engine's action code plus a readable
  description), in the engine's fixed order;
- `rng` is the seat's own `numpy.random.Generator`, derived from (seed, game,
  seat) alone; a policy must not touch global random state.
It returns one of the `legal` actions' codes. Config parameters (every seat
key but `policy`) are passed to the constructor unchanged:

    seats: [{policy: "mypackage.players:Cautious", risk: 0.2}, ...]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from sim.engine.game import PlayerView


@dataclass(frozen=True)
class LegalAction:
    """One legal action: its engine code and what it does, in words."""

    code: int
    text: str


class Policy(Protocol):
    """What a seat's player must do."""

    def choose(self, view: PlayerView, legal: list[LegalAction], rng: np.random.Generator) -> int:
        """Return the code of one of the legal actions."""
        ...
