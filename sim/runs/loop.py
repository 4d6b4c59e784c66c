"""Whole games with built-in policies in compiled code: a chunk of games in, result arrays out."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.rng import WORD_SEAT0, game_words, replay_words
from sim.engine.state import DEC_OVER, SC_DECISION, SC_SEAT, SC_TURNS
from sim.engine.turns import apply_action, setup
from sim.policies.dispatch import choose, new_scratch
from sim.runs.results import (
    empty_arrays,
    finish_rounds,
    record_rounds,
    summarize_game,
    trace_scratch,
)


@njit(cache=True)
def play_game(s, pr, words, slots, slot_codes, slot_params, buf, scratch, trace, roots):
    """Play one game to the end; seat p plays line-up slot slots[p] (its code and parameters).

    Each seat's table score after every round goes into trace[round]; returns the rounds.
    """
    w, values, s2, buf2, pool, tree = scratch
    setup(s, pr, words)
    streams = np.empty((pr.players, 1), np.uint64)
    for p in range(pr.players):
        streams[p, 0] = words[WORD_SEAT0 + p]
    done = 0
    next_round = pr.players  # the turn count that ends the next round
    while s[SC_DECISION] != DEC_OVER:
        p = s[SC_SEAT]
        slot = slots[p]
        a = choose(
            slot_codes[slot],
            s,
            pr,
            streams[p],
            buf,
            w,
            slot_params[slot],
            values,
            s2,
            buf2,
            pool,
            tree,
        )
        apply_action(s, pr, a)
        if s[SC_TURNS] >= next_round:  # a cheap test inline, the scoring out of line
            done = record_rounds(s, pr, trace, done, roots)
            next_round = (done + 1) * pr.players
    return finish_rounds(s, pr, trace, done, roots)


@njit(cache=True)
def play_chunk(pr, blank, root, first, count, slots_by_game, slot_codes, slot_params, replays=0):
    """Play games first..first+count-1; in game i seat p plays line-up slot slots_by_game[i, p].

    With replays R > 0 (the luck gauge), game i is replay i mod R of deal i // R: the
    shuffle of game i // R, the seats' streams of `replay_words` (replay 0: the game's own).
    """
    buf = np.empty(pr.max_actions, np.int32)
    scratch = new_scratch(pr)
    roots = trace_scratch(pr)
    s = blank.copy()
    games, seats, cards, trace, rounds = empty_arrays(count, pr)
    for i in range(count):
        s[: pr.o_scratch] = blank[: pr.o_scratch]
        if replays == 0:
            words = game_words(root, first + i, WORD_SEAT0 + pr.players)
        else:
            deal, replay = divmod(first + i, replays)
            words = game_words(root, deal, WORD_SEAT0 + pr.players)
            if replay > 0:
                words[WORD_SEAT0:] = replay_words(root, deal, replay, pr.players)
        rounds[i] = play_game(
            s, pr, words, slots_by_game[i], slot_codes, slot_params, buf, scratch, trace[i], roots
        )
        summarize_game(s, pr, games[i], seats[i], cards[i])
    return games, seats, cards, trace, rounds
