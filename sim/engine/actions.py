"""Actions and the state's small accessors, shared by the engine's turns and its legal
actions: an action is one int, kind << 26 | arg1 << 13 | arg2 (arg2 usually a cell); the
accessors index a seat's hand and counters and record events (R2-R7 use them all)."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.state import (
    EV_WIDTH,
    N_PS,
    N_ST,
    SC_LOG,
    SC_NEVENTS,
)
from sim.engine.table import (
    CALLED,
    INLINE,
)

# Action kinds.
A_BOX = 0  # choose the box action (R3.1)
A_SLEEP_CHOICE = 1  # choose the sleeping-cat action (R3.2)
A_PLACE = 2  # arg1 = 2*type + turned, arg2 = cell
A_PRINCESS = 3  # arg1 = type, arg2 = north cell of the evicted cat
A_DISCARD = 4  # arg1 = type
A_CAT = 5  # arg2 = north cell of the cat
A_NO_CAT = 6
A_ITEM = 7  # arg1 = seam side (DIR_E or DIR_S), arg2 = cell
A_SLEEP = 8  # arg1 = turned, arg2 = cell
ACTION_NAMES = (
    "box",
    "sleeping",
    "place",
    "princess",
    "discard",
    "cat",
    "no_cat",
    "item",
    "sleep_at",
)


@njit(**INLINE)
def action(kind, arg1, arg2):
    return np.int32((kind << 26) | (arg1 << 13) | arg2)


@njit(**INLINE)
def action_kind(a):
    return a >> 26


@njit(**INLINE)
def action_arg1(a):
    return (a >> 13) & 0x1FFF


@njit(**INLINE)
def action_arg2(a):
    return a & 0x1FFF


@njit(**INLINE)
def log(s, pr, kind, seat, a, b, c, d):
    """Record an event when logging is on (sim play --log, replays, tests).

    Inlined at every event site, so it is only the test; the writing is compiled once,
    with int64 arguments (a literal would compile it once per value)."""
    if s[SC_LOG] != 0:
        _record(
            s,
            pr,
            np.int64(kind),
            np.int64(seat),
            np.int64(a),
            np.int64(b),
            np.int64(c),
            np.int64(d),
        )


@njit(**CALLED)
def _record(s, pr, kind, seat, a, b, c, d):
    """Append one event record (kind, seat, a, b, c, d) to the state's event buffer."""
    at = pr.o_events + s[SC_NEVENTS] * EV_WIDTH
    s[at] = kind
    s[at + 1] = seat
    s[at + 2] = a
    s[at + 3] = b
    s[at + 4] = c
    s[at + 5] = d
    s[SC_NEVENTS] += 1


@njit(**INLINE)
def hand_at(pr, p, t):
    """Index of seat p's count of card type t."""
    return pr.o_hands + p * pr.ntypes + t


@njit(**INLINE)
def stat_at(pr, p, t, k):
    """Index of counter k for seat p and card type t."""
    return pr.o_stats + (p * pr.ntypes + t) * N_ST + k


@njit(**INLINE)
def seat_stat_at(pr, p, k):
    return pr.o_seat_stats + p * N_PS + k


@njit(**INLINE)
def hand_count(s, pr, p):
    n = 0
    for t in range(pr.ntypes):
        n += s[hand_at(pr, p, t)]
    return n


@njit(**INLINE)
def kind_of(s, pr, t):
    return s[pr.t_kind + t]
