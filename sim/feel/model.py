"""The feel model of a line-up: the chance of winning a spectator would give each seat, and
how far those chances are expected to move next, fitted once on pilot games and then
evaluated, in compiled code, for every game a study plays.

The pilot games (`sim.runs.chances` plays them: the same config and line-up, their own
seed) are split in two halves by a seeded shuffle. The chances' regression learns from
the first half (each seat's eventual win share on what the table shows, `INPUTS`); the
expected-move regression learns from the second half, on chances the first model gives
games it never saw, so it learns the moves of honest, out-of-sample beliefs. The games a
study plays are never among the pilot games, so every chance it reports is held out, and
the run page checks their calibration on them.

Both regressions are scikit-learn's `HistGradientBoostingRegressor` (squared error; the
chances' labels are win shares, so its predictions are estimates of a probability) with
one OpenMP thread: the same trees on any machine and any number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.feel.chances import (
    chances,
    move_inputs,
    move_states,
    next_moves,
    public_states,
    summaries,
)
from sim.feel.forest import Forest

FEEL_VERSION = 1  # bump when the model's inputs or fitting change: cached models refit
TREES = 30  # 30 trees of 15 leaves: as calibrated as 60 of 31 on the base game, at half the cost
LEAVES = 15
RATE = 0.25


@dataclass(frozen=True)
class FeelModel:
    """The two fitted regressions and what their inputs are read against: the line-up's
    `usual` rounds a game (the pilot games' median) and the pilot's size."""

    chance: Forest
    move: Forest
    usual: float
    pilot_games: int

    def chances(self, trace, rounds, player, won) -> tuple[np.ndarray, np.ndarray]:
        """[game, step, seat] chances of the games given by their arrays (`sim.feel.chances`)
        and the mask of their live steps."""
        x, live = public_states(trace, rounds, player, self.usual)
        return chances(self.chance.predict(x), live, rounds, won), live

    def per_game(self, trace, rounds, player, won) -> dict[str, np.ndarray]:
        """FEEL_COLUMNS of the games given by their arrays, one value per game."""
        p, live = self.chances(trace, rounds, player, won)
        return self.curves(p, live, rounds, won)

    def curves(self, p, live, rounds, won) -> dict[str, np.ndarray]:
        """FEEL_COLUMNS of games given by their chances (`chances`), one value per game."""
        expected = self.move.predict(move_inputs(move_states(p, rounds, self.usual), live))
        return summaries(p, rounds, won, expected, live)

    def arrays(self) -> dict[str, np.ndarray]:
        """The model as named arrays (an .npz file)."""
        out = {f"chance.{k}": v for k, v in self.chance.arrays().items()}
        out |= {f"move.{k}": v for k, v in self.move.arrays().items()}
        out["usual"] = np.array([self.usual])
        out["pilot_games"] = np.array([self.pilot_games])
        out["version"] = np.array([FEEL_VERSION])
        return out

    @classmethod
    def from_arrays(cls, arrays) -> FeelModel:
        """`arrays`' inverse."""
        part = {"chance": {}, "move": {}}
        for key in arrays:
            head, _, name = key.partition(".")
            if head in part:
                part[head][name] = arrays[key]
        return cls(
            Forest.from_arrays(part["chance"]),
            Forest.from_arrays(part["move"]),
            float(arrays["usual"][0]),
            int(arrays["pilot_games"][0]),
        )


def fit_model(trace, rounds, player, won, seed: int) -> FeelModel:
    """A feel model fitted on pilot games given by their arrays (see the module); `seed`
    shuffles them into the two halves."""
    count = len(rounds)
    half = np.random.default_rng(seed).permutation(count) % 2 == 0
    usual = float(np.median(rounds)) if count else 1.0
    first, second = np.flatnonzero(half), np.flatnonzero(~half)
    x, live = public_states(trace[first], rounds[first], player[first], usual)
    labels = won[first][:, None, :].repeat(live.shape[1], axis=1)[live].reshape(-1)
    chance = Forest.of(_regression(x, labels))
    model = FeelModel(chance, chance, usual, count)  # the move model follows
    p, live = model.chances(trace[second], rounds[second], player[second], won[second])
    states = move_states(p, rounds[second], usual)
    move = Forest.of(_regression(move_inputs(states, live), next_moves(states, live)))
    return FeelModel(chance, move, usual, count)


def _regression(x: np.ndarray, y: np.ndarray):
    from sklearn.ensemble import HistGradientBoostingRegressor
    from threadpoolctl import threadpool_limits

    model = HistGradientBoostingRegressor(
        max_iter=TREES,
        max_leaf_nodes=LEAVES,
        learning_rate=RATE,
        random_state=0,
        early_stopping=False,
    )
    # one OpenMP thread: the same trees everywhere, and OpenMP's spinning threads about
    # double the CPU a fit takes on two cores
    with threadpool_limits(1):
        return model.fit(x, y)
