"""A chunk's feel columns in one compiled pass, bit for bit `FeelModel.per_game`'s numpy.

A worker computes the feel of every game it plays (`sim.runs.chances.chunk_feel`). In numpy
(`sim.feel.chances`) that is some fifty passes over [game, step, seat] arrays: about 13 µs
a game of all-random play, against 19 µs of play, so the finishing thread, not the games,
set the pace of a one-worker run. Here each game is read once, in the same steps:

1. every seat's public state at every live step (`_live_ints`' integers), each distinct
   state kept once (a hash table over the six integers, where numpy sorts a mixed-radix
   key) and the chances' trees walked once per distinct state;
2. the chances, floored and scaled, and each game's end (its win shares);
3. the expected-move inputs at every live step, each distinct one (told by its seats'
   states) walked once through the move's trees;
4. the per-game summaries (`sim.feel.chances.summaries`).

Every float is formed by the same operations in the same order as numpy's: a sum over the
seats adds them one by one from 0.0, a sum over a game's steps follows numpy's pairwise
order over every step of the chunk's trace (`pairwise_sum`), the trees are walked by the
same loop (`walk`); a test holds the two to equality on real chunks.
The numpy path stays for a process that loads no compiled code (a page's sample).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.feel.chances import COMEBACK, DECIDED, FLOOR
from sim.metrics import FEEL_COLUMNS as COLUMNS  # `out`'s rows, in this order
from sim.pairwise import pairwise_sum

_INTS = 6  # score, best other, rank, step, seat, player: what a public state is made of
_EMPTY = -1
_LOWEST = np.iinfo(np.int64).min  # below every score: the second best of one seat


@njit(cache=True, nogil=True)
def walk(x, feature, threshold, left, right, value, roots, baseline):
    """A forest's prediction at every row of x (`sim.feel.forest.Forest`'s arrays): each
    row walks every tree, the leaves added tree by tree."""
    out = np.full(x.shape[0], baseline)
    for i in range(x.shape[0]):
        total = 0.0
        for root in roots:
            node = root
            while feature[node] >= 0:
                node = left[node] if x[i, feature[node]] <= threshold[node] else right[node]
            total += value[node]
        out[i] += total
    return out


@njit(cache=True, nogil=True)
def _slot(table, h):
    return h & (len(table) - 1)


@njit(cache=True, nogil=True)
def _hash(values, n):
    """A 64-bit mix of n small integers (wrapping multiplication: a hash, not a key)."""
    h = np.uint64(1469598103934665603)
    for k in range(n):
        h = (h ^ np.uint64(values[k] & 0xFFFFFFFFFFFF)) * np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return np.int64(h >> np.uint64(1))


@njit(cache=True, nogil=True)
def _find_or_add(table, kept, count, row):
    """The number of the distinct row equal to `row` among the first `count` of `kept`
    (rows of integers), adding it as number `count` when none is: returns (number, count
    after)."""
    width = len(row)
    at = _slot(table, _hash(row, width))
    while True:
        k = table[at]
        if k == _EMPTY:
            table[at] = count
            for j in range(width):
                kept[count, j] = row[j]
            return count, count + 1
        same = True
        for j in range(width):
            if kept[k, j] != row[j]:
                same = False
                break
        if same:
            return k, count
        at = _slot(table, at + 1)


@njit(cache=True, nogil=True)
def _table(rows):
    """An empty open-addressing table for up to `rows` keys, at most half full."""
    size = 16
    while size < 2 * rows:
        size *= 2
    return np.full(size, _EMPTY, np.int64)


@njit(cache=True, nogil=True)
def feel_columns(trace, rounds, player, won, usual, chance, move, out):
    """The feel columns (`COLUMNS`) of a chunk's games into `out` [column, game], from
    the trace [game, round, seat] of table scores, rounds [game], player [game, seat]
    (numbers), won [game, seat] win shares, the line-up's `usual` rounds and the two
    forests as tuples of their arrays (feature, threshold, left, right, value, roots,
    baseline)."""
    count, most, seats = trace.shape
    steps = most + 1
    live_steps = np.int64(0)  # not a literal 0: numba would compile callees for it too
    for g in range(count):
        live_steps += rounds[g]
    lowest_int = _LOWEST
    scale = max(usual, 1.0)

    # 1. each live step's seats as distinct states' numbers
    table = _table(live_steps * seats)
    kept = np.empty((max(live_steps * seats, 1), _INTS), np.int64)
    state = np.empty((max(live_steps, 1), seats), np.int64)
    distinct = np.int64(0)
    s = np.zeros(seats, np.int64)
    row = np.empty(_INTS, np.int64)
    at = 0
    for g in range(count):
        for t in range(rounds[g]):
            for k in range(seats):
                s[k] = trace[g, t - 1, k] if t > 0 else 0
            top, second = s[0], lowest_int
            for k in range(1, seats):
                second = max(second, min(top, s[k]))
                top = max(top, s[k])
            for k in range(seats):
                other = 0
                if seats > 1:
                    other = second if (s[k] == top and second < top) else top
                rank = 0
                for j in range(seats):
                    if s[j] > s[k]:
                        rank += 1
                row[0], row[1], row[2] = s[k], other, rank
                row[3], row[4], row[5] = t, k, player[g, k]
                state[at, k], distinct = _find_or_add(table, kept, distinct, row)
            at += 1
    x = np.empty((distinct, 8))
    for d in range(distinct):
        x[d, 0] = kept[d, 0]
        x[d, 1] = kept[d, 1]
        x[d, 2] = kept[d, 0] - kept[d, 1]
        x[d, 3] = kept[d, 2]
        x[d, 4] = kept[d, 3] / scale
        x[d, 5] = kept[d, 4]
        x[d, 6] = seats
        x[d, 7] = kept[d, 5]
    cf, ct, cl, cr, cv, croots, cbase = chance
    predicted = walk(x, cf, ct, cl, cr, cv, croots, cbase)

    # 2. the chances (numpy's `chances`, already `nan_to_num`'d: 0 after a game's end)
    q = np.zeros((count, steps, seats))
    raw = np.empty(seats)
    at = 0
    for g in range(count):
        for t in range(rounds[g]):
            total = 0.0
            for k in range(seats):
                raw[k] = max(predicted[state[at, k]], FLOOR)
                total += raw[k]
            for k in range(seats):
                q[g, t, k] = raw[k] / total
            at += 1
        for k in range(seats):
            q[g, rounds[g], k] = won[g, k]

    # 3. the expected moves: inputs at each live step, each distinct one walked once
    moved = np.zeros((count, steps))
    spread = np.zeros((count, steps))
    table = _table(live_steps)
    seen = np.empty((max(live_steps, 1), seats), np.int64)
    which = np.empty(max(live_steps, 1), np.int64)
    inputs = np.empty((max(live_steps, 1), 4))
    distinct = np.int64(0)
    at = 0
    for g in range(count):
        for t in range(steps):
            if t >= 1 and t <= rounds[g]:
                total = 0.0
                for k in range(seats):
                    d = q[g, t, k] - q[g, t - 1, k]
                    total += d * d
                moved[g, t] = math.sqrt(total)
            total = 0.0
            for k in range(seats):
                total += q[g, t, k] * (1 - q[g, t, k])
            spread[g, t] = total
            if t < rounds[g]:
                which[at], new = _find_or_add(table, seen, distinct, state[at])
                if new > distinct:
                    top, second = q[g, t, 0], -np.inf
                    for k in range(1, seats):
                        second = max(second, min(top, q[g, t, k]))
                        top = max(top, q[g, t, k])
                    inputs[distinct, 0] = t / scale
                    inputs[distinct, 1] = top
                    inputs[distinct, 2] = top - second
                    inputs[distinct, 3] = total
                    distinct = new
                at += 1
    mf, mt, ml, mr, mv, mroots, mbase = move
    expected = walk(inputs[:distinct], mf, mt, ml, mr, mv, mroots, mbase)

    # 4. the summaries
    root = np.zeros(steps)
    winner = np.empty(seats, np.bool_)
    at = 0
    for g in range(count):
        n = rounds[g]
        best = won[g, 0]
        for k in range(1, seats):
            best = max(best, won[g, k])
        for k in range(seats):
            winner[k] = won[g, k] == best
        last_doubt, lowest, swing = -1, np.inf, 0.0
        for t in range(steps):
            root[t] = 0.0
            if t < n:
                root[t] = math.sqrt(min(max(expected[which[at]], 0.0), spread[g, t]))
                at += 1
                chance = -np.inf
                for k in range(seats):
                    if winner[k]:
                        chance = max(chance, q[g, t, k])
                if chance < DECIDED:
                    last_doubt = t
                lowest = min(lowest, chance)
                for k in range(seats):
                    swing = max(swing, abs(q[g, t + 1, k] - q[g, t, k]))
        out[0, g] = pairwise_sum(root, steps)
        out[1, g] = pairwise_sum(moved[g], steps)
        out[2, g] = (last_doubt + 1) / max(n, 1)
        out[3, g] = swing
        out[4, g] = 1.0 if lowest < COMEBACK / seats else 0.0


LOADED = False  # this process loaded the kernels (`load`; `sim.feel.forest.compiled`)


def load() -> None:
    """Load (or compile) the kernels in this process, before a pool of workers forks."""
    global LOADED
    trace, players = np.zeros((0, 1, 2), np.int16), np.zeros((0, 2), np.int64)
    forest = _arrays(None)
    out = np.zeros((len(COLUMNS), 0))
    feel_columns(trace, np.zeros(0, np.int64), players, np.zeros((0, 2)), 1.0, forest, forest, out)
    walk(np.zeros((0, 1)), *forest)
    LOADED = True


def predict(forest, x: np.ndarray) -> np.ndarray:
    """`forest.predict(x)` by the compiled walk."""
    return walk(np.ascontiguousarray(x, np.float64), *_arrays(forest))


def per_game(model, trace, rounds, player, won) -> dict[str, np.ndarray] | None:
    """`model.per_game` of these games by the kernel (loaded: `load`), or None where the
    trace is not of the chunks' type (int16: the kernel is compiled for it alone)."""
    if trace.dtype != np.int16:
        return None
    out = np.empty((len(COLUMNS), len(rounds)))
    feel_columns(
        np.ascontiguousarray(trace),
        np.ascontiguousarray(rounds, np.int64),
        np.ascontiguousarray(player, np.int64),
        np.ascontiguousarray(won, np.float64),
        float(model.usual),
        _arrays(model.chance),
        _arrays(model.move),
        out,
    )
    return dict(zip(COLUMNS, out, strict=True))


def _arrays(forest) -> tuple:
    """A forest as the kernel takes it (an empty one for None)."""
    if forest is None:
        ints, floats = np.zeros(0, np.int64), np.zeros(0)
        return (ints, floats, ints, ints, floats, ints, 0.0)
    ints = [np.ascontiguousarray(a, np.int64) for a in (forest.feature, forest.left, forest.right)]
    floats = [np.ascontiguousarray(a, np.float64) for a in (forest.threshold, forest.value)]
    roots = np.ascontiguousarray(forest.roots, np.int64)
    return (ints[0], floats[0], ints[1], ints[2], floats[1], roots, float(forest.baseline))
