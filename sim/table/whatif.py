"""What if from here: continuations of a recorded game from one of its steps.

Step k is the position after the game's first k decisions. A continuation
copies that position, re-deals what the chosen knowledge has not seen, and
plays on to the end with fresh random streams:

* `unseen="deck"` (the default): the draw deck is reshuffled, every hand kept.
  Nobody has seen the deck's order, so this is the omniscient replay's "what
  if": the same hands, the same table, another order of the cards to come.
* `as_seat=P`: what seat P can know. The deck and every other hand are
  re-dealt from the cards P has not seen, in the sizes everybody sees (the
  look-ahead's determinization, `sim.policies.lookahead.determinize`, from
  public counts only).

Built-in seats play each continuation to its end in compiled code
(`sim.table.rollout.play_on`: the game loop's step, from any position); a
line-up with a plug-in seat is driven from Python, one decision at a time, as
`sim play` drives it (`compiled=False` does that for any line-up: the tests
check that both give the same games). Continuation j of step k of game i draws its randomness
from numpy's `SeedSequence(seed, spawn_key=(i, WHATIF_KEY, k, j))` alone, so a
page computed twice says the same. Each seat's win chance is its mean win
share over the continuations (a tie shares the win, R8.6) with a 95% interval
(Wilson when no continuation ended in a tie, else the t interval of the mean).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sim.analysis.stats import Estimate, win_share_ci
from sim.config import SeatSpec, StudyConfig
from sim.engine.game import Game
from sim.engine.rng import spawn_words
from sim.engine.state import SC_DECK_LEN, SC_DECK_POS, SC_LOG, StateView
from sim.engine.turns import apply_action
from sim.errors import SimError
from sim.policies.dispatch import PolicyScratch, policy_set
from sim.policies.lookahead import determinize
from sim.runs.lineup import engine_for, seat_lineup
from sim.runs.play import Seat
from sim.specs import chunk_games
from sim.table.rollout import play_on

WHATIF_KEY = 27  # a spawn-key word no run's games use: (i,) and (i, r) are theirs
MAX_CONTINUATIONS = 100_000
SEED_BATCH = 1024  # continuations' random words made at once (`sim.engine.rng.spawn_words`)
QUICK_CHUNK = 100  # games per chunk (sim.specs.chunk_games) of a player quick to play on


def quick_to_play_on(study: StudyConfig) -> bool:
    """Is every seat quick enough to play on from many positions in a second or so (the
    built-in policies but the searching ones, whose games take a second or more each)?"""
    return all(chunk_games(seat.policy) >= QUICK_CHUNK for seat in study.seats)


@dataclass(frozen=True)
class WhatIf:
    """Each seat's win chance from one step, over n continuations."""

    step: int
    n: int
    policy: str  # "the game's seats" or a seat's label
    unseen: str  # "deck" or "seat P"
    shares: tuple[Estimate, ...]
    mean_scores: tuple[float, ...]
    finals: tuple[tuple[int, ...], ...] = ()  # each continuation's final scores

    def to_dict(self) -> dict:
        """Plain data for the page and the terminal."""
        return {
            "step": self.step,
            "n": self.n,
            "policy": self.policy,
            "unseen": self.unseen,
            "seats": [
                {"share": _num(e.value), "lo": _num(e.lo), "hi": _num(e.hi), "mean_score": m}
                for e, m in zip(self.shares, self.mean_scores, strict=True)
            ],
        }


def _num(x: float) -> float | None:
    """A plain float for JSON; None for an interval end one continuation cannot give."""
    return None if x != x else float(x)


def win_shares(scores) -> list[float]:
    """Each seat's share of the win: 1/k for each of k tied best totals (R8.6)."""
    best = max(scores)
    k = sum(1 for s in scores if s == best)
    return [1.0 / k if s == best else 0.0 for s in scores]


def position_at(study: StudyConfig, seed: int, index: int, actions: list[int], step: int) -> Game:
    """A fresh game of (seed, index) with its first `step` logged actions applied."""
    if not 0 <= step <= len(actions):
        raise SimError(f"--from must be a step from 0 to {len(actions)}, got {step}")
    game = Game(engine_for(study.game), seed, index)
    for a in actions[:step]:
        apply_action(game.s, game.pr, np.int32(a))
    return game


def whatif(
    study: StudyConfig,
    seed: int,
    index: int,
    actions: list[int],
    step: int,
    n: int,
    *,
    seats: list[SeatSpec] | None = None,
    policy: str = "the game's seats",
    as_seat: int | None = None,
    streams: list[int] | None = None,
    progress: Callable[[int], None] | None = None,
    compiled: bool = True,
) -> WhatIf:
    """Play n continuations from `step` under `seats` (one spec per seat; default the
    game's own line-up) and give each seat's win chance with its interval.

    `streams` (a check, built-in policies only): each seat's random stream word as it stood
    at `step` in the game itself (`game_streams`); the deck is then kept and every
    continuation is the game's own rest, which must end as the game did."""
    if not 1 <= n <= MAX_CONTINUATIONS:
        raise SimError(f"--continuations must be from 1 to {MAX_CONTINUATIONS:,}, got {n}")
    players = study.game.players
    if as_seat is not None and not 0 <= as_seat < players:
        raise SimError(f"--as-seat must be a seat from 0 to {players - 1}, got {as_seat}")
    start = position_at(study, seed, index, actions, step)
    if seats is None:
        seats = [study.seats[slot] for slot in seat_lineup(study, index)]
    kit = Kit.of(study, start, seed, index, seats)
    game, players_, scratch = kit.game, kit.seats, kit.scratch
    compiled = compiled and all(seat.plugin is None for seat in players_)
    shares = np.zeros((n, players))
    scores = np.zeros((n, players))
    for j in range(n):
        if j % SEED_BATCH == 0:  # numpy's SeedSequence per continuation, a batch at a time
            last = np.arange(j, min(n, j + SEED_BATCH))
            batch = spawn_words(seed, (index, WHATIF_KEY, step), last, players + 1)
        words = batch[j % SEED_BATCH]
        game.s[:] = start.s[: game.pr.state_size]
        game.s[SC_LOG] = 0
        if streams is None:
            kit.reshuffle(words[0], as_seat)
        own = words[1:] if streams is None else np.array(streams, np.uint64)
        if compiled:
            kit.play_on(own)
        else:
            for p, seat in enumerate(players_):
                seat.stream = np.array([own[p]], np.uint64)
                seat.rng = np.random.Generator(np.random.PCG64(int(own[p])))
            while not game.over:
                action = players_[game.seat].choose(game, scratch)
                apply_action(game.s, game.pr, np.int32(action))
        final = game.outcome().scores
        scores[j] = final
        shares[j] = win_shares(final)
        if progress is not None:
            progress(j + 1)
    unseen = "deck" if as_seat is None else f"seat {as_seat}"
    return WhatIf(
        step,
        n,
        policy,
        unseen,
        tuple(win_share_ci(shares[:, p]) for p in range(players)),
        tuple(float(v) for v in scores.mean(axis=0)),
        tuple(tuple(int(v) for v in row) for row in scores),
    )


@dataclass
class Kit:
    """What continuations from one position reuse: a game to play them in (its state set
    from the position each time), the seats with their compiled policies, and the scratch
    the re-deal and the compiled loop need."""

    game: Game
    seats: list[Seat]
    codes: np.ndarray
    params: np.ndarray
    scratch: PolicyScratch
    view: StateView
    counts: np.ndarray
    pool: np.ndarray
    present: tuple = field(init=False, default=())  # the compiled loop's (`policy_set`)

    def __post_init__(self) -> None:
        self.present = policy_set(self.codes)

    @classmethod
    def of(cls, study: StudyConfig, start: Game, seed: int, index: int, specs) -> Kit:
        """The kit of game (seed, index) at position `start`, seats played by `specs`."""
        game = Game(start.engine, seed, index)
        limit = study.plugin_time_limit
        seats = [Seat(spec, game, p, study.folder, limit=limit) for p, spec in enumerate(specs)]
        pr = game.pr
        return cls(
            game,
            seats,
            np.array([seat.code for seat in seats], np.int64),
            np.stack([seat.params for seat in seats]),
            PolicyScratch.for_params(pr),
            StateView(game.s, pr),
            np.zeros(pr.ntypes, np.int64),
            np.zeros(pr.ntypes + pr.ndeck, np.int64),
        )

    def reshuffle(self, word, as_seat: int | None = None) -> None:
        reshuffle(self.game, self.view, word, as_seat, self.counts, self.pool)

    def play_on(self, streams: np.ndarray) -> None:
        """Play the game on to the end in compiled code, seat p on random word streams[p]."""
        own = np.asarray(streams, np.uint64).reshape(len(self.seats), 1).copy()
        game = self.game
        play_on(game.s, game.pr, own, self.codes, self.params, game.buf, self.scratch, self.present)


def game_streams(
    study: StudyConfig, seed: int, index: int, actions: list[int], step: int
) -> list[int]:
    """Each seat's random stream word after the game's first `step` decisions, found by
    playing the game's own seats again (each must choose the logged action)."""
    game = Game(engine_for(study.game), seed, index)
    seats = [
        Seat(study.seats[slot], game, p, study.folder, limit=study.plugin_time_limit)
        for p, slot in enumerate(seat_lineup(study, index))
    ]
    scratch = PolicyScratch.for_params(game.pr)
    for k, a in enumerate(actions[:step]):
        mine = seats[game.seat].choose(game, scratch)
        if mine != a:
            raise SimError(f"step {k}: seat {game.seat} now chooses otherwise than the game")
        apply_action(game.s, game.pr, np.int32(a))
    return [int(seat.stream[0]) for seat in seats]


def reshuffle(game: Game, view: StateView, word, as_seat, counts, pool) -> None:
    """Re-deal what the chosen knowledge has not seen (see the module's note)."""
    if as_seat is not None:
        determinize(game.s, game.pr, as_seat, np.array([word], np.uint64), counts, pool)
        return
    lo, hi = int(game.s[SC_DECK_POS]), int(game.s[SC_DECK_LEN])
    rng = np.random.Generator(np.random.PCG64(int(word)))
    view.deck[lo:hi] = rng.permutation(view.deck[lo:hi])
