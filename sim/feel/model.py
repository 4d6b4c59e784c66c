"""The feel model of a line-up: the chance of winning a spectator would give each seat, and
how far those chances are expected to move next, fitted once on pilot games and then
evaluated, in compiled code, for every game a study plays.

The pilot games (`sim.runs.chances` plays them: of every point a study plays, each its
share, on a seed of their own) are split in two halves by a seeded shuffle. The chances'
regression learns from the first half (each seat's eventual win share on what the table
shows, `INPUTS`); the expected-move regression learns from the second half, on chances the
first model gives games it never saw, so it learns the moves of honest, out-of-sample
beliefs. The games a study plays are never among the pilot games, so every chance it
reports is held out, and the run page checks their calibration on them.

Both regressions are scikit-learn's `HistGradientBoostingRegressor` (squared error; the
chances' labels are win shares, so its predictions are estimates of a probability) with
one OpenMP thread: the same trees on any machine and any number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.feel.chances import (
    chances,
    distinct_rows,
    distinct_states,
    move_inputs,
    move_states,
    next_moves,
    public_states,
    summaries,
)
from sim.feel.forest import Forest, compiled

FEEL_VERSION = 1  # bump when the model's inputs or fitting change: cached models refit
TREES = 30  # 30 trees of 15 leaves: as calibrated as 60 of 31 on the base game, at half the cost
LEAVES = 15
RATE = 0.25


@dataclass(frozen=True)
class FeelModel:
    """The two fitted regressions and what their inputs are read against: the `usual`
    rounds a game (the pilot games' median), the pilot's size and the `players` (labels) its
    player numbers stand for."""

    chance: Forest
    move: Forest
    usual: float
    pilot_games: int
    players: tuple[str, ...]

    def chances(self, trace, rounds, player, won) -> tuple[np.ndarray, np.ndarray]:
        """[game, step, seat] chances of the games given by their arrays (`sim.feel.chances`)
        and the mask of their live steps."""
        p, live, _ = self._chances(trace, rounds, player, won)
        return p, live

    def _chances(self, trace, rounds, player, won):
        """`chances`, and each live step's seats as their distinct states' numbers (a row
        per step; None when the states were not made distinct)."""
        x, inverse, live = distinct_states(trace, rounds, player, self.usual)
        predicted = self.chance.predict(x)
        if inverse is not None:  # each distinct state evaluated once, then gathered
            predicted = predicted[inverse]
            inverse = inverse.reshape(-1, trace.shape[2])
        return chances(predicted, live, rounds, won), live, inverse

    def per_game(self, trace, rounds, player, won) -> dict[str, np.ndarray]:
        """FEEL_COLUMNS of the games given by their arrays, one value per game: in one
        compiled pass where this process loaded it (`sim.feel.kernel`, a process that plays
        games), else in numpy; the same values either way."""
        kernel = compiled()
        done = None if kernel is None else kernel.per_game(self, trace, rounds, player, won)
        return self.per_game_numpy(trace, rounds, player, won) if done is None else done

    def per_game_numpy(self, trace, rounds, player, won) -> dict[str, np.ndarray]:
        """`per_game` in numpy (`sim.feel.chances`): the kernel's reference."""
        p, live, seats = self._chances(trace, rounds, player, won)
        return self.curves(p, live, rounds, won, seats)

    def curves(self, p, live, rounds, won, seats=None) -> dict[str, np.ndarray]:
        """FEEL_COLUMNS of games given by their chances (`chances`), one value per game.
        `seats`: each live step's seats as distinct states' numbers (`_chances`): steps
        whose seats are the same states have the same chances, so the same expected move,
        which is then evaluated once for them all (`distinct_rows`)."""
        states = move_states(p, rounds, self.usual)
        inputs = move_inputs(states, live)
        same = None if seats is None else distinct_rows(seats)
        if same is None:
            expected = self.move.predict(inputs)
        else:
            first, back = same
            expected = self.move.predict(inputs[first])[back]
        return summaries(p, rounds, won, expected, live, states)

    def arrays(self) -> dict[str, np.ndarray]:
        """The model as named arrays (an .npz file)."""
        out = {f"chance.{k}": v for k, v in self.chance.arrays().items()}
        out |= {f"move.{k}": v for k, v in self.move.arrays().items()}
        out["usual"] = np.array([self.usual])
        out["pilot_games"] = np.array([self.pilot_games])
        out["version"] = np.array([FEEL_VERSION])
        out["players"] = np.array(self.players, dtype=str)
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
            tuple(str(name) for name in arrays["players"]),
        )


@dataclass(frozen=True)
class Pilot:
    """Pilot games of one point, by their arrays: trace [game, round, seat], rounds [game],
    player [game, seat] (each seat's player as a number), won [game, seat]."""

    trace: np.ndarray
    rounds: np.ndarray
    player: np.ndarray
    won: np.ndarray

    def part(self, rows: np.ndarray) -> Pilot:
        return Pilot(self.trace[rows], self.rounds[rows], self.player[rows], self.won[rows])


def fit_model(pilots: list[Pilot], players: tuple[str, ...], seed: int) -> FeelModel:
    """A feel model fitted on the pilot games of one or more points (see the module):
    `players` names the player numbers; `seed` shuffles each point's games into the two
    halves."""
    rng = np.random.default_rng(seed)
    halves = []
    for pilot in pilots:
        half = rng.permutation(len(pilot.rounds)) % 2 == 0
        halves.append((pilot.part(np.flatnonzero(half)), pilot.part(np.flatnonzero(~half))))
    rounds = np.concatenate([p.rounds for p in pilots])
    usual = float(np.median(rounds)) if len(rounds) else 1.0
    xs, ys = [], []
    for first, _ in halves:
        x, live = public_states(first.trace, first.rounds, first.player, usual)
        xs.append(x)
        ys.append(first.won[:, None, :].repeat(live.shape[1], axis=1)[live].reshape(-1))
    chance = Forest.of(_regression(np.concatenate(xs), np.concatenate(ys)))
    model = FeelModel(chance, chance, usual, len(rounds), players)  # the move model follows
    xs, ys = [], []
    for _, second in halves:
        p, live = model.chances(second.trace, second.rounds, second.player, second.won)
        states = move_states(p, second.rounds, usual)
        xs.append(move_inputs(states, live))
        ys.append(next_moves(states, live))
    move = Forest.of(_regression(np.concatenate(xs), np.concatenate(ys)))
    return FeelModel(chance, move, usual, len(rounds), players)


REFITS = 4  # refits on resampled pilot games that measure the model's own noise


def model_noise(
    pilots: list[Pilot], check: list[Pilot], players: tuple[str, ...], seed: int
) -> dict[str, float]:
    """How much the mean of each per-game feel column moves between models fitted alike: the
    standard deviation, over the model of `pilots` and REFITS models of resampled pilot
    games (each point's games drawn with replacement), of the column's mean over the `check`
    games (games none of them learnt from). A run's interval covers its games' noise; this
    is the noise of the yardstick itself, which a target adds (`sim.analysis.balance`)."""
    rng = np.random.default_rng(seed)
    means = []
    for k in range(REFITS + 1):
        drawn = (
            pilots
            if k == 0
            else [p.part(rng.integers(0, len(p.rounds), len(p.rounds))) for p in pilots]
        )
        model = fit_model(drawn, players, seed + k)
        cols = [model.per_game(c.trace, c.rounds, c.player, c.won) for c in check]
        means.append(
            {name: float(np.mean(np.concatenate([c[name] for c in cols]))) for name in cols[0]}
        )
    return {name: float(np.std([m[name] for m in means], ddof=1)) for name in means[0]}


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
