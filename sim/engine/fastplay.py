"""Whole games in compiled code, for the runner and the benchmark."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.rng import WORD_SEAT0, game_words, randint
from sim.engine.state import DEC_OVER, SC_DECISION, SC_SEAT
from sim.engine.turns import apply_action, legal_actions, setup


@njit(cache=True)
def play_random(st, pr, words, buf):
    """Play one game with every seat uniform over legal actions (the random policy)."""
    setup(st, pr, words)
    streams = np.empty((pr.players, 1), np.uint64)
    for s in range(pr.players):
        streams[s, 0] = words[WORD_SEAT0 + s]
    while st.sc[SC_DECISION] != DEC_OVER:
        n = legal_actions(st, pr, buf)
        if n == 1:
            a = buf[0]
        else:
            a = buf[randint(streams[st.sc[SC_SEAT]], n)]
        apply_action(st, pr, a)


@njit(cache=True)
def reset_state(st):
    """Clear a state for reuse without allocating (new_state's initial values)."""
    st.sc[:] = 0
    st.walls[:] = -1
    st.parent[:] = -1
    st.occupant[:] = -1
    st.seam_item[:] = -1
    st.front_pos[:] = -1
    st.hands[:] = 0
    st.stats[:] = 0
    st.seat_stats[:] = 0


@njit(cache=True)
def bench_random(pr, st, root, first, count):
    """Play `count` random games from game index `first`; return total turns."""
    buf = np.empty(pr.max_actions, np.int32)
    turns = 0
    for i in range(first, first + count):
        reset_state(st)
        words = game_words(root, i, 2 + pr.players)
        play_random(st, pr, words, buf)
        turns += st.sc[7]
    return turns
