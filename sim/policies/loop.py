"""Whole games with built-in policies in compiled code, and their result rows."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.rng import WORD_SEAT0, game_words
from sim.engine.state import (
    DEC_OVER,
    N_PS,
    N_ST,
    SC_DECISION,
    SC_DECISIONS,
    SC_NCATS,
    SC_NDISCARD,
    SC_NPLACED,
    SC_PRINCESSES,
    SC_SEAT,
    SC_TRIGGER,
    SC_TRIGGER_SEAT,
    SC_TRIGGER_TURN,
    SC_TURNS,
    SC_WASTED,
)
from sim.engine.table import box_majority, box_top_count, box_value
from sim.engine.turns import apply_action, setup
from sim.policies.dispatch import choose, new_scratch

# Columns of the per-game result array.
G_TURNS, G_TRIGGER, G_TRIGGER_SEAT, G_TRIGGER_TURN, G_WASTED, G_BOXES, G_CLOSED = range(7)
G_DISCARDS, G_CATS_ON_TABLE, G_PRINCESSES, G_CARDS, G_DECISIONS = 7, 8, 9, 10, 11
N_G = 12
GAME_COLUMNS = (
    "turns",
    "trigger",
    "trigger_seat",
    "trigger_turn",
    "items_wasted",
    "boxes",
    "closed_boxes",
    "discards",
    "cats_on_table",
    "princesses_on_table",
    "cards_on_table",
    "decisions",
)

# Columns of the per-seat result array.
P_SCORE, P_BOX_POINTS, P_CAT_BONUS, P_BOXES_LED, P_CLOSED_LED, P_NEGATIVE, P_DOUBLED = range(7)
N_P = 7 + N_PS
SEAT_COLUMNS = (
    "score",
    "box_points",
    "cat_bonus",
    "boxes_led",
    "closed_boxes_led",
    "negative_points",
    "doubling_points",
    "cats_placed",
    "sleeping_placed",
    "princesses_played",
    "cats_evicted",
    "discards",
    "turns_taken",
)


@njit(cache=True)
def play_game(s, pr, words, slots, slot_codes, slot_params, buf, scratch):
    """Play one game to the end; seat p plays line-up slot slots[p] (its code and parameters)."""
    w, values, s2, buf2, pool = scratch
    setup(s, pr, words)
    streams = np.empty((pr.players, 1), np.uint64)
    for p in range(pr.players):
        streams[p, 0] = words[WORD_SEAT0 + p]
    while s[SC_DECISION] != DEC_OVER:
        p = s[SC_SEAT]
        slot = slots[p]
        a = choose(
            slot_codes[slot], s, pr, streams[p], buf, w, slot_params[slot], values, s2, buf2, pool
        )
        apply_action(s, pr, a)


@njit(cache=True)
def summarize_game(s, pr, g, seats, cards):
    """Fill game row g, seat rows seats[p] and card rows cards[p, t] from a finished state."""
    g[G_TURNS] = s[SC_TURNS]
    g[G_TRIGGER] = s[SC_TRIGGER]
    g[G_TRIGGER_SEAT] = s[SC_TRIGGER_SEAT]
    g[G_TRIGGER_TURN] = s[SC_TRIGGER_TURN]
    g[G_WASTED] = s[SC_WASTED]
    g[G_DISCARDS] = s[SC_NDISCARD]
    g[G_CATS_ON_TABLE] = s[SC_NCATS]
    g[G_PRINCESSES] = s[SC_PRINCESSES]
    g[G_CARDS] = s[SC_NPLACED]
    g[G_DECISIONS] = s[SC_DECISIONS]
    seats[:, :] = 0
    boxes = 0
    closed = 0
    for i in range(s[SC_NPLACED]):
        x = s[pr.o_placed + i]
        if s[pr.o_parent + x] != x:
            continue
        boxes += 1
        is_closed = s[pr.o_open + x] == 0
        closed += is_closed
        top = box_top_count(s, pr, x)
        if top == 0:
            continue
        value = box_value(s, pr, x)
        for q in range(pr.players):
            if box_majority(s, pr, x, q) == top:
                seats[q, P_BOX_POINTS] += value
                seats[q, P_BOXES_LED] += 1
                seats[q, P_CLOSED_LED] += is_closed
                if value < 0:
                    seats[q, P_NEGATIVE] += value
                if is_closed:
                    seats[q, P_DOUBLED] += value // 2
    g[G_BOXES] = boxes
    g[G_CLOSED] = closed
    for i in range(s[SC_NCATS]):
        seats[s[pr.o_cat_owner + i], P_CAT_BONUS] += 1
    for q in range(pr.players):
        seats[q, P_SCORE] = seats[q, P_BOX_POINTS] + seats[q, P_CAT_BONUS]
        for k in range(N_PS):
            seats[q, 7 + k] = s[pr.o_seat_stats + q * N_PS + k]
        for t in range(pr.ntypes):
            for k in range(N_ST):
                cards[q, t, k] = s[pr.o_stats + (q * pr.ntypes + t) * N_ST + k]


@njit(cache=True)
def play_chunk(pr, blank, root, first, count, slots_by_game, slot_codes, slot_params):
    """Play games first..first+count-1; in game i seat p plays line-up slot slots_by_game[i, p]."""
    buf = np.empty(pr.max_actions, np.int32)
    scratch = new_scratch(pr)
    s = blank.copy()
    games = np.zeros((count, N_G), np.int64)
    seats = np.zeros((count, pr.players, N_P), np.int64)
    cards = np.zeros((count, pr.players, pr.ntypes, N_ST), np.int16)  # small counts
    for i in range(count):
        s[: pr.o_scratch] = blank[: pr.o_scratch]
        words = game_words(root, first + i, WORD_SEAT0 + pr.players)
        play_game(s, pr, words, slots_by_game[i], slot_codes, slot_params, buf, scratch)
        summarize_game(s, pr, games[i], seats[i], cards[i])
    return games, seats, cards


@njit(cache=True)
def nonzero_card_rows(cards):
    """The rows of cards[game, seat, type, stat] with a non-zero count, as columns: game
    (within the chunk), seat, card type, and the counts one stat per row of a 2-D array.
    Two passes (count, then fill), so that nothing larger than the result is allocated."""
    count, players, ntypes, _ = cards.shape
    rows = count * players * ntypes
    flat = cards.reshape(rows * N_ST)
    kept = np.empty(rows, np.bool_)
    for r in range(rows):
        any_count = flat[r * N_ST]
        for k in range(1, N_ST):  # N_ST is a compile-time constant: the loop unrolls
            any_count |= flat[r * N_ST + k]
        kept[r] = any_count != 0
    n = kept.sum()
    game = np.empty(n, np.int64)
    seat = np.empty(n, np.int8)
    card = np.empty(n, np.int8)
    counts = np.empty((N_ST, n), cards.dtype)
    i = 0
    for r in range(rows):
        if kept[r]:
            game[i] = r // (players * ntypes)
            seat[i] = r // ntypes % players
            card[i] = r % ntypes
            for k in range(N_ST):
                counts[k, i] = flat[r * N_ST + k]
            i += 1
    return game, seat, card, counts
