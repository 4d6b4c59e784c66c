"""What a spectator sees after each round, each seat's chance of winning, and what the
chance curves say per game: all on a chunk's arrays, one row per game.

A game of n rounds has the steps 0 .. n: step 0 before any card, step t after round t,
step n its end, where every seat's chance is its win share (R8.6: tied winners share).
What a spectator sees at step t < n (`INPUTS`): every seat's table score (the `turns`
trace), the step against the line-up's usual length, who sits where (each seat's player)
and how many play; never a hand.

What the curves say (Ely, Frankel and Kamenica, "Suspense and Surprise", 2015), per game:

* **surprise**: how far the beliefs actually move, sum over t = 1 .. n of ||p_t - p_(t-1)||
  (Euclidean, over the seats' chances);
* **suspense**: how far they are expected to move next, sum over t = 0 .. n-1 of
  sqrt(E_t ||p_(t+1) - p_t||^2). The expectation is a regression of the squared move on what
  the chances look like at t (`MOVE_INPUTS`), capped by sum_i p_i (1 - p_i): beliefs that are
  a martingale cannot be expected to move by more than the outcome's own variance, so a
  game whose winner is certain has no suspense left;
* **decisive moment**: the step, as a share of the game, after which the eventual winner's
  chance never falls below DECIDED again;
* **largest swing**: the largest change of one seat's chance in one step;
* **comeback by chance**: the eventual winner's chance was at some step before the end below
  COMEBACK of a fair share (with four players, below 12.5%): by probability, not by score.
"""

from __future__ import annotations

import numpy as np

DECIDED = 0.5  # the winner's chance that decides a game when it never falls below it again
COMEBACK = 0.5  # of a fair share: a winner whose chance was once below this came back
DENSE_ROOM = 4  # `_first_and_inverse` uses a table when the key room is at most this x the rows
FLOOR = 1e-4  # the least chance a seat is given before the end (the regression can go below 0)

INPUTS = ("score", "best_other", "gap", "rank", "progress", "seat", "players", "player")
MOVE_INPUTS = ("progress", "top", "lead", "spread")


def public_states(
    trace: np.ndarray, rounds: np.ndarray, player: np.ndarray, usual: float
) -> tuple[np.ndarray, np.ndarray]:
    """The inputs (rows x INPUTS) of every seat at every step before each game's end, and
    which (game, step) cells they are (a mask over [game, step], rows in game, step, seat
    order). `player` [game, seat] is each seat's player as a number; `usual` the line-up's
    usual rounds a game (the step is read against it)."""
    ints, live = _live_ints(trace, rounds, player)
    return _stack(_input_columns(ints, trace.shape[2], usual)), live


def distinct_states(
    trace: np.ndarray, rounds: np.ndarray, player: np.ndarray, usual: float
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """`public_states` with each distinct row once: the distinct rows, the index of every
    row's among them (None: the rows as they are, when no exact key fits in 62 bits), and
    the live mask. Few rows are distinct (about 2% on the base game: every game starts from
    the same table, and scores are small), so a model evaluates each once and gathers.
    Computed on integers over the live steps alone (`_live_ints`), the float inputs only for
    the distinct rows: the same rows as `public_states`, bit for bit."""
    ints, live = _live_ints(trace, rounds, player)
    key = np.zeros(len(ints[0]), np.int64)
    room = 1
    for c in ints:  # an exact mixed-radix key of the integers every input is made of
        lo = int(c.min(initial=0))
        span = int(c.max(initial=0)) - lo + 1
        room *= span
        if room >= 2**62:
            return public_states(trace, rounds, player, usual)[0], None, live
        key = key * span + (c - lo)
    first, inverse = _first_and_inverse(key, room)
    columns = _input_columns([c[first] for c in ints], trace.shape[2], usual)
    return _stack(columns), inverse, live


def _first_and_inverse(key: np.ndarray, room: int) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(key, return_index=True, return_inverse=True)`'s index and inverse for keys
    in [0, room): by a table over the room when it is no larger than about the keys (the
    base game's keys fill 73,440 of it for 150,000 rows: a fifteenth of the sort's time),
    else by numpy's sort."""
    n = len(key)
    if room > DENSE_ROOM * max(n, 1):
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        return first, inverse
    first_of = np.full(room, n, np.int64)
    np.minimum.at(first_of, key, np.arange(n))  # each key's first row
    present = first_of < n
    return first_of[present], (np.cumsum(present) - 1)[key]


def distinct_rows(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """For rows of small integers (a live step's seats as distinct states' numbers): the
    first row of each distinct one and every row's distinct one (`np.unique`'s index and
    inverse), or None when no exact key of a row fits in 62 bits."""
    n, width = ids.shape
    span = int(ids.max(initial=0)) + 1
    if span**width >= 2**62:
        return None
    key = np.zeros(n, np.int64)
    for c in range(width):
        key = key * span + ids[:, c]
    return _first_and_inverse(key, span**width)


def _seat_max(x: np.ndarray) -> np.ndarray:
    """x.max(axis=-1) by elementwise maxima over the seats: numpy's reduction over a last
    axis of 4 costs ten times as much (the same values: a maximum picks one)."""
    out = x[..., 0].copy()
    for k in range(1, x.shape[-1]):
        np.maximum(out, x[..., k], out=out)
    return out


def _top_two(x: np.ndarray, lowest) -> tuple[np.ndarray, np.ndarray]:
    """The largest and the second largest of the last axis (equal when two share the top;
    `lowest` when there is one seat): the first two of it sorted down, without the sort."""
    top = x[..., 0].copy()
    second = np.full_like(top, lowest)
    for k in range(1, x.shape[-1]):
        np.maximum(second, np.minimum(top, x[..., k]), out=second)
        np.maximum(top, x[..., k], out=top)
    return top, second


def _live_ints(trace, rounds, player) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The integers every input is computed from (score, best_other, rank, step, seat,
    player; int64, one per seat at each live step, in game, step and seat order) and the
    live mask, from the live steps alone: at a live step the table's scores are the trace's
    row before it (0 at step 0), so no step past a game's end is built."""
    count, most, seats = trace.shape
    live = np.arange(most + 1)[None, :] < rounds.astype(np.int64)[:, None]
    g, t = np.nonzero(live)
    s = np.zeros((len(g), seats), np.int64)
    later = t > 0
    s[later] = trace[g[later], t[later] - 1]
    top, second = (v[:, None] for v in _top_two(s, np.iinfo(np.int64).min))
    if seats > 1:  # the lone leader's best other is the second score, which is below its own
        other = np.where((s == top) & (second < top), second, top)
    else:
        other = np.zeros_like(s)
    rank = np.zeros_like(s)  # the seats ahead of each
    for k in range(seats):
        rank += s[:, k : k + 1] > s
    step = np.repeat(t, seats)
    seat = np.tile(np.arange(seats, dtype=np.int64), len(g))
    who = player[g].astype(np.int64)
    ints = (s.reshape(-1), other.reshape(-1), rank.reshape(-1), step, seat, who.reshape(-1))
    return ints, live


def _input_columns(ints, seats: int, usual: float) -> tuple:
    """INPUTS from `_live_ints`' integers (of every live row, or of the distinct ones): one
    array each, a scalar where every row has the same."""
    score, other, rank, step, seat, who = ints
    return (score, other, score - other, rank, step / max(usual, 1.0), seat, seats, who)


def _stack(columns) -> np.ndarray:
    """The input columns as rows x INPUTS, float64."""
    n = len(columns[0])
    return np.stack([np.broadcast_to(c, (n,)) for c in columns], axis=-1).astype(np.float64)


def chances(
    predicted: np.ndarray, live: np.ndarray, rounds: np.ndarray, won: np.ndarray
) -> np.ndarray:
    """[game, step, seat] chances: the regression's `predicted` values at the `live` steps
    (floored, then scaled to sum to one over the seats), every seat's win share `won`
    [game, seat] at each game's end, NaN after it."""
    count, steps = live.shape
    seats = won.shape[1]
    p = np.full((count, steps, seats), np.nan)
    raw = np.maximum(predicted.reshape(-1, seats), FLOOR)
    p[live] = raw / raw.sum(axis=1, keepdims=True)
    p[np.arange(count), rounds.astype(np.int64)] = won
    return p


def move_states(p: np.ndarray, rounds: np.ndarray, usual: float) -> dict[str, np.ndarray]:
    """[game, step] what the expected next move is read from (MOVE_INPUTS), the move that
    led to each step (`moved`, ||p_t - p_(t-1)||, 0 at step 0) and `spread`, the cap."""
    q = np.nan_to_num(p)
    top, second = _top_two(q, -np.inf)
    moved = np.zeros(q.shape[:2])
    moved[:, 1:] = np.sqrt(((q[:, 1:] - q[:, :-1]) ** 2).sum(axis=2))
    after = np.arange(q.shape[1])[None, :] > rounds.astype(np.int64)[:, None]
    moved[after] = 0.0
    return {
        "progress": np.broadcast_to(np.arange(q.shape[1]) / max(usual, 1.0), moved.shape),
        "top": top,
        "lead": top - second,
        "spread": (q * (1 - q)).sum(axis=2),
        "moved": moved,
    }


def move_inputs(states: dict[str, np.ndarray], live: np.ndarray) -> np.ndarray:
    """The rows (live steps) x MOVE_INPUTS of the expected-move regression."""
    return np.stack([states[name][live] for name in MOVE_INPUTS], axis=-1).astype(np.float64)


def next_moves(states: dict[str, np.ndarray], live: np.ndarray) -> np.ndarray:
    """The squared move after each live step: the expected-move regression's label."""
    nxt = np.zeros_like(states["moved"])
    nxt[:, :-1] = states["moved"][:, 1:]
    return nxt[live] ** 2


def summaries(
    p: np.ndarray,
    rounds: np.ndarray,
    won: np.ndarray,
    expected: np.ndarray,
    live: np.ndarray,
    states: dict[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Per game: `sim.metrics.FEEL_COLUMNS` (see the module), from the chances p [game, step,
    seat], the win shares and the expected squared moves at the live steps (`states`: the
    chances' `move_states`, when the caller has them already)."""
    count, steps, seats = p.shape
    n = rounds.astype(np.int64)
    states = move_states(p, rounds, 1.0) if states is None else states
    cap = np.zeros((count, steps))
    cap[live] = np.clip(expected, 0.0, states["spread"][live])
    q = np.nan_to_num(p)
    swing = _seat_max(np.abs(np.diff(q, axis=1))) if steps > 1 else np.zeros((count, 1))
    swing[np.arange(steps - 1)[None, :] >= n[:, None]] = 0.0
    winner = won == won.max(axis=1, keepdims=True)
    chance = _seat_max(np.where(winner[:, None, :], q, -np.inf))  # the winner's (best tied)
    doubt = live & (chance < DECIDED)
    last_doubt = np.where(doubt.any(axis=1), steps - 1 - np.argmax(doubt[:, ::-1], axis=1), -1)
    lowest = np.where(live, chance, np.inf).min(axis=1)
    return {
        "suspense": np.sqrt(cap).sum(axis=1),
        "surprise": states["moved"].sum(axis=1),
        "decisive_moment": (last_doubt + 1) / np.maximum(n, 1),
        "largest_swing": swing.max(axis=1),
        "comeback_by_chance": (lowest < COMEBACK / seats).astype(np.float64),
    }
