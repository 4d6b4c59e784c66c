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

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import qmc

from sim.config import Settings, StudyConfig
from sim.config.keys import get_at
from sim.studies.fix_candidates import extra_turn_seats

MAX_SEATS = 5  # the rules' most players (R2.1): one extra-turn input per seat


@dataclass(frozen=True)
class Axis:
    """One setting of the space and the values it takes: a count's integers from lo to hi,
    or a list of choices (a hand size of 2, 3 or 5; a rule variant), in the order written,
    which is the order the emulator reads them in."""

    name: str  # dotted setting, as written in map.space
    values: tuple
    choices: bool = False  # written as {choices: [...]}, not [lo, hi]

    @property
    def size(self) -> int:
        return len(self.values)

    def scaled(self, value) -> float:
        """The value's place on [0, 1] (a one-value axis: 0); a count outside the bounds
        lies beyond them (a config's own count may), a choice not listed is refused."""
        if self.size == 1:
            return 0.0
        if value in self.values:
            return self.values.index(value) / (self.size - 1)
        if self.choices or isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{self.name}: {value!r} is not one of {self.text()}")
        return (value - self.values[0]) / (self.size - 1)

    def reads(self, value) -> bool:
        """Can the emulator read this value (listed, or a count beyond the bounds)?"""
        try:
            self.scaled(value)
        except ValueError:
            return False
        return True

    def at(self, u: float):
        """The value at u in [0, 1): the axis cut into equal parts, one a value."""
        return self.values[min(int(u * self.size), self.size - 1)]

    def spec(self):
        """The axis as map.space writes it: [lo, hi] or {choices: [...]}."""
        if self.choices:
            return {"choices": list(self.values)}
        return [self.values[0], self.values[-1]]

    def text(self) -> str:
        if self.choices:
            return "{" + ", ".join(map(str, self.values)) + "}"
        return f"[{self.values[0]}, {self.values[-1]}]"


def axes_of(space: dict) -> tuple[Axis, ...]:
    """The space's settings, in the order written."""
    out = []
    for name, spec in space.items():
        if isinstance(spec, dict):
            out.append(Axis(name, tuple(spec["choices"]), True))
        else:
            out.append(Axis(name, tuple(range(int(spec[0]), int(spec[1]) + 1))))
    return tuple(out)


def start_point(study: StudyConfig, axes: tuple[Axis, ...]) -> Settings:
    """The config's own value of every setting (it may lie outside the space)."""
    game = study.game.game_dict()
    return {a.name: get_at(game, tuple(a.name.split("."))) for a in axes}


def space_size(axes: tuple[Axis, ...]) -> int:
    return int(np.prod([a.size for a in axes]))


def sobol_points(
    axes: tuple[Axis, ...], n: int, seed: int, valid: Callable[[Settings], bool] = lambda p: True
) -> list[Settings]:
    """Up to n distinct valid points of a scrambled Sobol design (fewer when the space has
    fewer)."""
    size = space_size(axes)
    sampler = qmc.Sobol(len(axes), scramble=True, seed=np.random.default_rng(seed))
    unit = sampler.random(1 << max(int(np.ceil(np.log2(max(8 * n, 2)))), 1))
    out: list[Settings] = []
    seen: set[tuple] = set()
    for row in unit:
        point = {a.name: a.at(u) for a, u in zip(axes, row, strict=True)}
        key = tuple(point.values())
        if key not in seen:
            seen.add(key)
            if valid(point):
                out.append(point)
        if len(out) == n or len(seen) == size:
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
