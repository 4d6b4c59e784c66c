"""Playing a chunk of a study's games: compiled for built-in line-ups, from Python otherwise.

`play_arrays` is what every run, sweep and comparison calls. Built-in seats
run the compiled loop; a line-up with a designer's own policy is driven from
Python (`play_one`, also `sim play` and the tests) with the same compiled
policies for the built-in seats, from the same per-seat streams, so a game
played here equals the compiled loop's game of the same (seed, index). A
plugged-in seat gets its PlayerView, the legal actions and its own numpy
Generator.
"""

from __future__ import annotations

import numpy as np

from sim.config import SeatSpec, StudyConfig
from sim.engine.game import Game
from sim.errors import IllegalAction
from sim.lineup import engine_for, lineup_policies, lineup_slots, seat_lineup
from sim.loop import play_chunk
from sim.policies.base import LegalAction
from sim.policies.dispatch import PolicyScratch
from sim.results import (
    ChunkArrays,
    empty_arrays,
    finish_rounds,
    max_rounds,
    record_rounds,
    summarize_game,
)
from sim.specs import PLUGIN, load_plugin, policy_code, seat_params


class Seat:
    """One seat's player in a Python-driven game."""

    def __init__(self, spec: SeatSpec, game: Game, seat: int) -> None:
        self.spec = spec
        self.code = policy_code(spec.policy)
        self.params = seat_params(spec.policy, spec.params)
        self.stream = game.seat_stream(seat)
        self.plugin = load_plugin(spec.policy)(**spec.params) if self.code == PLUGIN else None
        self.rng = np.random.Generator(np.random.PCG64(int(self.stream[0])))

    def choose(self, game: Game, scratch: PolicyScratch) -> int:
        """This seat's action at the game's pending decision."""
        if self.plugin is None:
            return scratch.choose(self.code, game.s, game.pr, self.stream, game.buf, self.params)
        legal = [LegalAction(int(a), game.describe(int(a))) for a in game.legal()]
        if len(legal) == 1:
            return legal[0].code  # like the compiled loop: no choice, no call
        action = self.plugin.choose(game.view(game.seat), legal, self.rng)
        if int(action) not in {a.code for a in legal}:
            raise IllegalAction(
                f"policy {self.spec.policy} chose {game.describe(int(action))}, which is not legal"
            )
        return int(action)


def play_one(
    study: StudyConfig,
    seed: int,
    index: int = 0,
    *,
    log: bool = False,
    trace: np.ndarray | None = None,
) -> Game:
    """Play game `index` of root `seed` to the end with the study's seats, as the runner would.

    With `trace` (rounds x seats, at least `max_rounds` rows), each seat's table score after
    every round is written into it as the compiled loop does (ceil(turns / players) rows).
    """
    engine = engine_for(study.game)
    game = Game(engine, seed, index, log=log)
    slots = seat_lineup(study, index)
    seats = [Seat(study.seats[slot], game, p) for p, slot in enumerate(slots)]
    scratch = PolicyScratch.for_params(engine.pr)
    if trace is None:
        trace = np.zeros((max_rounds(engine.pr), engine.pr.players), np.int16)
    done = 0
    while not game.over:
        game.apply(seats[game.seat].choose(game, scratch))
        done = record_rounds(game.s, game.pr, trace, done)
    finish_rounds(game.s, game.pr, trace, done)
    return game


def play_arrays(study: StudyConfig, first: int, count: int) -> ChunkArrays:
    """Play games first..first+count-1 and return their raw result arrays."""
    engine = engine_for(study.game)
    pr = engine.pr
    slots = lineup_slots(study, first, count)
    codes, params = lineup_policies(study)
    if (codes == PLUGIN).any():
        games, seats, cards, trace, rounds = empty_arrays(count, pr)
        for i in range(count):
            game = play_one(study, study.seed, first + i, trace=trace[i])
            rounds[i] = -(-game.turns // pr.players)
            summarize_game(game.s, pr, games[i], seats[i], cards[i])
    else:
        games, seats, cards, trace, rounds = play_chunk(
            pr, engine.blank, study.seed, first, count, slots, codes, params
        )
    return ChunkArrays(first, slots, games, seats, cards, trace, rounds)


def load_engine(study: StudyConfig) -> None:
    """Load (or compile) the study's compiled game loop in this process."""
    play_arrays(study, 0, 0)
