"""From a study to what the compiled code runs: the engine of its game, and its line-up.

The one place where config objects meet the engine and the policy codes: the
engine takes the game's settings as plain data, the game loop takes each
line-up slot as a policy code and a parameter vector.
"""

from __future__ import annotations

import numpy as np

from sim.config import GameConfig, StudyConfig
from sim.engine.state import Engine, make_engine
from sim.specs import policy_code, seat_params


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
    codes = np.array([policy_code(seat.policy) for seat in study.seats], np.int64)
    params = np.stack([seat_params(seat.policy, seat.params) for seat in study.seats])
    return codes, params
