"""One game from a study config, driven from Python (for `sim play` and tests)."""

from __future__ import annotations

import numpy as np

from sim.config import StudyConfig
from sim.engine.game import Game
from sim.engine.state import make_engine
from sim.policies.compiled import choose, work_size
from sim.policies.registry import policy_code


def play_one(study: StudyConfig, seed: int, index: int = 0, *, log: bool = False) -> Game:
    """Play game `index` of root `seed` to the end with the study's seats, as the runner would."""
    from sim.runner import seat_lineup

    engine = make_engine(study.game)
    game = Game(engine, seed, index, log=log)
    slots = seat_lineup(study, index)
    codes = [policy_code(study.seats[slot].policy) for slot in slots]
    streams = [game.seat_stream(p) for p in range(engine.pr.players)]
    work = np.zeros(work_size(engine.pr.players, engine.pr.ntoys), np.int64)
    while not game.over:
        seat = game.seat
        game.apply(choose(codes[seat], game.s, game.pr, streams[seat], game.buf, work))
    return game
