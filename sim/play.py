"""One game from a study config, driven from Python (for `sim play` and tests)."""

from __future__ import annotations

from sim.config import StudyConfig
from sim.engine.fastplay import random_action
from sim.engine.game import Game
from sim.engine.state import make_engine


def play_one(study: StudyConfig, seed: int, index: int = 0, *, log: bool = False) -> Game:
    """Play game `index` of root `seed` to the end with the study's seats."""
    engine = make_engine(study.game)
    game = Game(engine, seed, index, log=log)
    streams = [game.seat_stream(p) for p in range(engine.pr.players)]
    while not game.over:
        game.apply(random_action(game.s, game.pr, streams[game.seat], game.buf))
    return game
