"""Where a map plays: a space-filling design over the space's integer counts, and the
inputs the emulator reads at a point.

The design is a scrambled Sobol sequence (`scipy.stats.qmc.Sobol`) on the unit cube, each
coordinate floored onto its count's integers, so every count's values are covered about
evenly and every pair of counts fills its square; the config's own point comes first.

The emulator does not read the raw counts alone. Which seats take one more turn than the
others follows from the rules (the hand cards left after the start card and the deal,
modulo the players: R2.3, R2.4, R3.1, R7.1), a sawtooth in the counts that no smooth kernel
finds from a few points; a seat's edge moves by several points with it. So each seat's
"takes an extra turn" is an input beside the scaled counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import qmc

from sim.config import Settings, StudyConfig
from sim.config.keys import get_at
from sim.studies.fix_candidates import extra_turn_seats

MAX_SEATS = 5  # the rules' most players (R2.1): one extra-turn input per seat


@dataclass(frozen=True)
class Axis:
    """One count of the space and its bounds (both included)."""

    name: str  # dotted setting, as written in map.space
    lo: int
    hi: int

    def scaled(self, value: float) -> float:
        """The count on [0, 1] (a one-value axis: 0)."""
        return 0.0 if self.hi == self.lo else (value - self.lo) / (self.hi - self.lo)


def axes_of(space: dict) -> tuple[Axis, ...]:
    """The space's counts, in the order written."""
    return tuple(Axis(name, int(lo), int(hi)) for name, (lo, hi) in space.items())


def start_point(study: StudyConfig, axes: tuple[Axis, ...]) -> Settings:
    """The config's own value of every count (it may lie outside the space)."""
    game = study.game.game_dict()
    return {a.name: int(get_at(game, tuple(a.name.split(".")))) for a in axes}


def sobol_points(axes: tuple[Axis, ...], n: int, seed: int) -> list[Settings]:
    """Up to n distinct integer points of a scrambled Sobol design (fewer when the space
    has fewer points)."""
    size = int(np.prod([a.hi - a.lo + 1 for a in axes]))
    sampler = qmc.Sobol(len(axes), scramble=True, seed=np.random.default_rng(seed))
    unit = sampler.random(1 << max(int(np.ceil(np.log2(max(4 * n, 2)))), 1))
    out: list[Settings] = []
    seen: set[tuple[int, ...]] = set()
    for row in unit:
        values = tuple(
            min(a.lo + int(u * (a.hi - a.lo + 1)), a.hi) for a, u in zip(axes, row, strict=True)
        )
        if values not in seen:
            seen.add(values)
            out.append(dict(zip((a.name for a in axes), values, strict=True)))
        if len(out) == min(n, size):
            break
    return out


def hand_cards(game: dict, point: Settings) -> tuple[int, int, int]:
    """(box and Princess cards, players, hand size) of the game with the point applied."""
    deck = game["deck"]
    boxes = {k: point.get(f"deck.boxes.{k}", v) for k, v in deck["boxes"].items()}
    hand = sum(boxes.values()) + point.get("deck.princesses", deck["princesses"])
    return hand, point.get("players", game["players"]), point.get("hand_size", game["hand_size"])


def inputs(game: dict, axes: tuple[Axis, ...], points: list[Settings]) -> np.ndarray:
    """The emulator's inputs, one row a point: each count on [0, 1], then for every seat
    1.0 if it takes an extra turn, else 0.0."""
    out = np.zeros((len(points), len(axes) + MAX_SEATS))
    for i, point in enumerate(points):
        out[i, : len(axes)] = [a.scaled(point[a.name]) for a in axes]
        for seat in extra_turn_seats(*hand_cards(game, point)):
            out[i, len(axes) + seat] = 1.0
    return out
