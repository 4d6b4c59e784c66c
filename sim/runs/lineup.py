"""From a study to what the compiled code runs: the engine of its game, and its line-up.

The one place where config objects meet the engine and the policy codes: the
engine takes the game's settings as plain data, the game loop takes each
line-up slot as a policy code and a parameter vector.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sim.config import GameConfig, SeatSpec, StudyConfig
from sim.engine.state import CardTypes, Engine, make_engine
from sim.errors import ConfigError
from sim.specs import (
    BAN_CARD_SHIFT,
    BAN_CAT,
    BAN_SLEEPING,
    MAX_BAN_TYPE,
    P_BAN,
    policy_code,
    seat_params,
)


def engine_for(game: GameConfig) -> Engine:
    """The engine compiled for a validated game config."""
    return make_engine(game.game_dict())


def lineup_slots(study: StudyConfig, first: int, count: int) -> np.ndarray:
    """The line-up slot of every seat in games first..first+count-1: game i shifts the
    line-up by i mod players when seats rotate."""
    players = study.game.players
    index = np.arange(first, first + count)
    shift = index % players if study.rotate_seats else np.zeros(count, np.int64)
    return (np.arange(players)[None, :] + shift[:, None]) % players


def seat_lineup(study: StudyConfig, game_index: int) -> np.ndarray:
    """Which line-up slot each seat plays in this game (rotations in equal numbers)."""
    return lineup_slots(study, game_index, 1)[0]


def lineup_policies(study: StudyConfig) -> tuple[np.ndarray, np.ndarray]:
    """Each line-up slot's compiled policy code and parameter vector."""
    types = CardTypes(study.game.game_dict()["deck"])
    codes = np.array([policy_code(seat.policy) for seat in study.seats], np.int64)
    params = np.stack([seat_vector(seat, types) for seat in study.seats])
    return codes, params


def seat_vector(seat: SeatSpec, types: CardTypes) -> np.ndarray:
    """A built-in seat's parameter vector, with its banned options' word at P_BAN."""
    vec = seat_params(seat.policy, seat.params)
    vec[P_BAN] = float(ban_word(seat.ban, types))
    return vec


def ban_word(ban: Iterable[str], types: CardTypes) -> int:
    """The P_BAN bits of option names (`sim.config.ban_options`): BAN_SLEEPING, BAN_CAT, and
    bit BAN_CARD_SHIFT + t for card type t."""
    word = 0
    for name in ban:
        if name == "sleeping":
            word |= BAN_SLEEPING
        elif name == "cat":
            word |= BAN_CAT
        else:
            t = types.index.get(name)
            if t is None or t > MAX_BAN_TYPE:
                raise ConfigError(f"ban: {name!r} is not a card kind of this deck")
            word |= 1 << (BAN_CARD_SHIFT + t)
    return word
