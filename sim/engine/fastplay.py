"""Whole random games in compiled code: the engine's benchmark kernel (`sim bench`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.legal import random_legal_action
from sim.engine.rng import WORD_SEAT0, game_words
from sim.engine.state import DEC_OVER, SC_DECISION, SC_SEAT, SC_TURNS
from sim.engine.table import CALLED
from sim.engine.turns import apply_action, setup


@njit(cache=True)
def play_random(s, pr, words, buf):
    """Play one game with every seat uniform over legal actions (the random policy)."""
    setup(s, pr, words)
    stream = np.empty(1, np.uint64)  # the deciding seat's stream, kept in words between turns
    _play_out(s, pr, words, stream, buf)


@njit(**CALLED)
def _play_out(s, pr, words, stream, buf):
    """play_random's turns, in code without reference counts (the inlined draw's copies of
    the arrays would each count up and down: about 6% of the kernel in perf)."""
    while s[SC_DECISION] != DEC_OVER:
        p = s[SC_SEAT]
        stream[0] = words[WORD_SEAT0 + p]
        a = random_legal_action(s, pr, stream, buf)
        words[WORD_SEAT0 + p] = stream[0]
        apply_action(s, pr, a)


@njit(cache=True)
def random_turns(pr, blank, root, first, count):
    """Play `count` random games from game index `first`; return each game's turns."""
    buf = np.empty(pr.max_actions, np.int32)
    s = blank.copy()
    turns = np.empty(count, np.int64)
    for i in range(count):
        s[: pr.o_scratch] = blank[: pr.o_scratch]
        play_random(s, pr, game_words(root, first + i, 2 + pr.players), buf)
        turns[i] = s[SC_TURNS]
    return turns


@njit(cache=True)
def bench_random(pr, blank, root, first, count):
    """Total turns of `count` random games (a warm-up and timing kernel)."""
    return random_turns(pr, blank, root, first, count).sum()
