"""Setup, turns, legal actions and their effects (R2, R3, R5, R6, R7).

The engine is a state machine: after setup it waits at a decision (which
seat, which kind) until `apply_action` receives one of the actions that
`legal_actions` enumerated, then runs every automatic step (draws, wasted
items, skipped turns) up to the next decision. Chance lives only in setup,
so a state plus a list of actions replays exactly.

An action is one int: kind << 26 | arg1 << 13 | arg2 (arg2 usually a cell).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.actions import (
    A_BOX,
    A_CAT,
    A_PLACE,
    A_PRINCESS,
    action_arg1,
    action_arg2,
    action_kind,
    hand_at,
    hand_count,
    kind_of,
    log,
    seat_stat_at,
    stat_at,
)
from sim.engine.legal import _can_cat
from sim.engine.rng import WORD_RESHUFFLE, WORD_SHUFFLE, mix64
from sim.engine.scoring import box_top_count, leads
from sim.engine.state import (
    DEC_CAT,
    DEC_CHOOSE,
    DEC_ITEM,
    DEC_OVER,
    DEC_PLAY,
    DEC_SLEEP,
    EV_CAT,
    EV_DISCARD,
    EV_DRAW,
    EV_ITEM,
    EV_PLACE,
    EV_PRINCESS,
    EV_SLEEPING,
    EV_TRIGGER,
    EV_TURN,
    EV_WASTED,
    KIND_BOX,
    KIND_PRINCESS,
    PHASE_FINAL,
    PHASE_NORMAL,
    PHASE_OVER,
    PS_CATS,
    PS_DISCARDS,
    PS_EVICTED,
    PS_PRINCESS,
    PS_SELF_EVICT,
    PS_SLEEPING,
    PS_TURNS,
    SC_DECISION,
    SC_DECISIONS,
    SC_DECK_LEN,
    SC_DECK_POS,
    SC_FREE_SEAMS,
    SC_ITEM,
    SC_LAST_SEAT,
    SC_NDISCARD,
    SC_NFRONT,
    SC_PHASE,
    SC_PLACED,
    SC_SEAT,
    SC_TRIGGER,
    SC_TRIGGER_SEAT,
    SC_TRIGGER_TURN,
    SC_TURNS,
    SC_WASTED,
    ST_DEALT,
    ST_DISCARDED,
    ST_DRAWN,
    ST_FINAL_HAND,
    ST_FIRST_TURN,
    ST_INTO_LED,
    ST_INTO_NOBODY,
    ST_INTO_OTHER,
    ST_PLAYED,
    ST_WASTED,
    TRIGGER_CAT,
    TRIGGER_DECK,
    TRIGGER_NONE,
)
from sim.engine.table import (
    CALLED,
    INLINE,
    can_place,
    evict_with_princess,
    place_card,
    place_cat,
    place_item,
    place_sleeping,
    turned,
)

# What a turn event says the turn was.
TURN_BOX, TURN_SLEEPING, TURN_SKIP = 0, 1, 2

# Steps of the automatic part of a turn; `_advance` runs them until a decision. Callers pass
# a step as np.int64(STEP_X): a bare constant would compile `_advance` once per literal value.
STEP_DONE, STEP_BEGIN, STEP_DRAW, STEP_END = 0, 1, 2, 3


# ---------------------------------------------------------------- setup (R2)


@njit(cache=True)
def _card_keys(s, pr, ids, word):
    """One sort key per physical card from (stream word, card name, copy number)."""
    keys = np.empty(ids.shape[0], np.uint64)
    for i in range(ids.shape[0]):
        card = ids[i]
        salt = np.uint64(s[pr.t_salt + s[pr.t_deck_type + card]])
        keys[i] = mix64(word ^ mix64(salt + np.uint64(s[pr.t_deck_copy + card])))
    return keys


@njit(cache=True)
def key_order(keys):
    """The order np.argsort(keys) gives, in two cheap passes: a counting pass that groups
    the keys by their top bits, then an insertion pass that sorts each group. The keys are
    hash outputs, spread evenly, so a group holds about one key and the insertion pass does
    almost no work (numba's argsort, a general quicksort, was about 8% of a random game
    in perf). Keys that tie leave argsort's order to its (unstable) quicksort, so on any tie
    this returns np.argsort(keys) itself: the order, and so every game, never changes."""
    n = keys.shape[0]
    bits = 1
    while (1 << bits) < n:
        bits += 1
    shift = np.uint64(64 - bits)
    starts = np.zeros((1 << bits) + 1, np.int64)
    for i in range(n):
        starts[np.int64(keys[i] >> shift) + 1] += 1
    for b in range(1 << bits):
        starts[b + 1] += starts[b]
    order = np.empty(n, np.int64)
    for i in range(n):
        b = np.int64(keys[i] >> shift)
        order[starts[b]] = i
        starts[b] += 1
    # The groups are in key order already; only keys within a group move.
    for i in range(1, n):
        v = order[i]
        k = keys[v]
        j = i
        while j > 0 and keys[order[j - 1]] > k:
            order[j] = order[j - 1]
            j -= 1
        if j > 0 and keys[order[j - 1]] == k:
            return np.argsort(keys)
        order[j] = v
    return order


@njit(cache=True)
def setup(s, pr, words):
    """R2.2-R2.5: shuffle, start card, deal; returns (shuffled deck, aside) as card types."""
    n = pr.ndeck
    # Loops, not slices, fancy indexing or np.concatenate: each of those compiles numba's
    # shape-checking and error-message code (seconds on a fresh cache), for the same result.
    ids = np.empty(n, np.int64)
    for i in range(n):
        ids[i] = i
    order = key_order(_card_keys(s, pr, ids, words[WORD_SHUFFLE]))
    shuffled = np.empty(n, np.int64)
    for i in range(n):
        shuffled[i] = ids[order[i]]
    types = np.empty(n, np.int64)
    for i in range(n):
        types[i] = s[pr.t_deck_type + shuffled[i]]
    # R2.3: the first box card from the top starts the layout, unturned.
    start = 0
    while kind_of(s, pr, types[start]) != KIND_BOX:
        start += 1
    place_card(s, pr, np.int64(pr.origin), np.int64(s[pr.t_walls + types[start]]))
    rest = np.empty(n - 1, np.int64)
    for i in range(start):
        rest[i] = shuffled[i]
    for i in range(start, n - 1):
        rest[i] = shuffled[i + 1]
    # R2.4: deal one at a time round the table; items met are set aside.
    aside = np.empty(n, np.int64)
    n_aside = 0
    pos = 0
    for _ in range(pr.hand_size):
        for p in range(pr.players):
            while True:
                card = rest[pos]
                pos += 1
                t = s[pr.t_deck_type + card]
                if kind_of(s, pr, t) > KIND_PRINCESS:
                    aside[n_aside] = card
                    n_aside += 1
                    continue
                s[hand_at(pr, p, t)] += 1
                s[stat_at(pr, p, t, ST_DEALT)] += 1
                break
    # The rest and the aside items are reshuffled by a second key per card; a deck
    # already in random order stays uniformly random, so reshuffling always is
    # faithful, and it keeps each card's key independent of the others'.
    left = n - 1 - pos
    unsorted = np.empty(left + n_aside, np.int64)
    for i in range(left):
        unsorted[i] = rest[pos + i]
    for i in range(n_aside):
        unsorted[left + i] = aside[i]
    order = key_order(_card_keys(s, pr, unsorted, words[WORD_RESHUFFLE]))
    remaining = np.empty(unsorted.shape[0], np.int64)
    for i in range(unsorted.shape[0]):
        remaining[i] = unsorted[order[i]]
    for i in range(remaining.shape[0]):
        s[pr.o_deck + i] = s[pr.t_deck_type + remaining[i]]
    s[SC_DECK_POS] = 0
    s[SC_DECK_LEN] = remaining.shape[0]
    for p in range(pr.players):
        s[pr.o_supply_awake + p] = pr.cats
        s[pr.o_supply_sleep + p] = pr.sleeps
    s[SC_PHASE] = PHASE_NORMAL
    s[SC_TRIGGER] = TRIGGER_NONE
    s[SC_TRIGGER_SEAT] = -1
    s[SC_LAST_SEAT] = -1
    if remaining.shape[0] == 0:
        _trigger(s, pr, TRIGGER_DECK, -1)  # R7.1: setup itself emptied the deck
        s[SC_PHASE] = PHASE_FINAL
        _count_final_hands(s, pr)
    types_aside = np.empty(n_aside, np.int64)
    for i in range(n_aside):
        types_aside[i] = s[pr.t_deck_type + aside[i]]
    s[SC_SEAT] = 0  # R2.5
    _advance(s, pr, np.int64(STEP_BEGIN))
    return types, types_aside


# ---------------------------------------------------------------- turn flow


@njit(**INLINE)
def _trigger(s, pr, reason, p):
    """R7.1: the first trigger is the one recorded."""
    if s[SC_TRIGGER] == TRIGGER_NONE:
        s[SC_TRIGGER] = reason
        s[SC_TRIGGER_SEAT] = p
        s[SC_TRIGGER_TURN] = s[SC_TURNS]
        log(s, pr, EV_TRIGGER, p, reason, 0, 0, 0)


@njit(**INLINE)
def _count_final_hands(s, pr):
    """Telemetry: the cards each seat holds as the final phase begins (R7.2)."""
    for q in range(pr.players):
        for t in range(pr.ntypes):
            s[stat_at(pr, q, t, ST_FINAL_HAND)] = s[hand_at(pr, q, t)]


@njit(**INLINE)
def _count_first_play(s, pr, p, t):
    """Telemetry: the turn (1-based) of seat p's first play of card type t."""
    at = stat_at(pr, p, t, ST_FIRST_TURN)
    if s[at] == 0:
        s[at] = s[SC_TURNS] + 1


@njit(**INLINE)
def sleeping_possible(s, pr, p):
    """R3.2: the seat has a sleeping cat left and its card fits somewhere."""
    if s[SC_PHASE] != PHASE_NORMAL or s[pr.o_supply_sleep + p] == 0:
        return False
    m = pr.sleep_walls
    m2 = turned(m)
    for i in range(s[SC_NFRONT]):
        x = s[pr.o_front + i]
        if can_place(s, pr, x, m) or (m2 != m and can_place(s, pr, x, m2)):
            return True
    return False


@njit(**CALLED)
def _advance(s, pr, step):
    """Run automatic steps (draws, wasted items, turn changes, skips) up to the next decision."""
    while step != STEP_DONE:
        if step == STEP_END:
            step = _end_turn(s, pr)
        elif step == STEP_BEGIN:
            step = _begin_turn(s, pr)
        else:
            step = _draw(s, pr)


@njit(**INLINE)
def _begin_turn(s, pr):
    """Start the seat's turn, skipping empty hands in the final phase (R7.2, R7.3)."""
    p = s[SC_SEAT]
    s[SC_PLACED] = -1
    if s[SC_PHASE] == PHASE_FINAL:  # the last round only: compiled once, out of line
        return _begin_final_turn(s, pr, np.int64(p))
    if sleeping_possible(s, pr, p):
        s[SC_DECISION] = DEC_CHOOSE
        return STEP_DONE
    log(s, pr, EV_TURN, p, PHASE_NORMAL, TURN_BOX, 0, 0)
    return STEP_DRAW


@njit(**CALLED)
def _begin_final_turn(s, pr, p):
    """R7.2, R7.3: a final-phase turn goes to the next seat from p with cards, or ends the game."""
    while True:
        empty = True
        for q in range(pr.players):
            if hand_count(s, pr, q) > 0:
                empty = False
                break
        if empty:
            s[SC_PHASE] = PHASE_OVER  # R7.3: every hand is empty
            s[SC_DECISION] = DEC_OVER
            return STEP_DONE
        s[SC_SEAT] = p
        if hand_count(s, pr, p) > 0:
            log(s, pr, EV_TURN, p, PHASE_FINAL, TURN_BOX, 0, 0)
            s[SC_DECISION] = DEC_PLAY
            return STEP_DONE
        log(s, pr, EV_TURN, p, PHASE_FINAL, TURN_SKIP, 0, 0)
        p = (p + 1) % pr.players


@njit(**INLINE)
def _end_turn(s, pr):
    p = s[SC_SEAT]
    s[SC_TURNS] += 1
    s[SC_LAST_SEAT] = p
    s[seat_stat_at(pr, p, PS_TURNS)] += 1
    if s[SC_TRIGGER] != TRIGGER_NONE and s[SC_PHASE] == PHASE_NORMAL:
        s[SC_PHASE] = PHASE_FINAL  # R7.1: the turn in progress has finished
        _count_final_hands(s, pr)
    s[SC_SEAT] = (p + 1) % pr.players  # R2.5
    return STEP_BEGIN


@njit(**INLINE)
def _draw(s, pr):
    """R3.1.1: draw until a card reaches the hand or the deck is empty; items wait for a seam."""
    p = s[SC_SEAT]
    while s[SC_DECK_POS] < s[SC_DECK_LEN]:
        t = s[pr.o_deck + s[SC_DECK_POS]]
        s[SC_DECK_POS] += 1
        s[stat_at(pr, p, t, ST_DRAWN)] += 1
        log(s, pr, EV_DRAW, p, t, 0, 0, 0)
        if s[SC_DECK_POS] == s[SC_DECK_LEN]:
            _trigger(s, pr, TRIGGER_DECK, p)  # R7.1: even if the last card is an item
        if kind_of(s, pr, t) <= KIND_PRINCESS:
            s[hand_at(pr, p, t)] += 1
            break
        if s[SC_FREE_SEAMS] > 0:
            s[SC_ITEM] = t
            s[SC_DECISION] = DEC_ITEM  # R5.1: placed at once by the drawer
            return STEP_DONE
        s[stat_at(pr, p, t, ST_WASTED)] += 1  # R5.3: no free open seam
        s[SC_WASTED] += 1
        log(s, pr, EV_WASTED, p, t, 0, 0, 0)
    if hand_count(s, pr, p) == 0:
        return STEP_END
    s[SC_DECISION] = DEC_PLAY
    return STEP_DONE


# ---------------------------------------------------------------- effects


@njit(**INLINE)
def _play_item(s, pr, p, a):
    """R5: the drawn toy or spray bottle into a box (counted by whose box it went to)."""
    t = s[SC_ITEM]
    x = action_arg2(a)
    side = action_arg1(a)
    root = place_item(s, pr, np.int64(x), np.int64(side), np.int64(t))
    if leads(s, pr, root, p):
        s[stat_at(pr, p, t, ST_INTO_LED)] += 1
    else:
        s[stat_at(pr, p, t, ST_INTO_OTHER)] += 1
        if box_top_count(s, pr, root) == 0:
            s[stat_at(pr, p, t, ST_INTO_NOBODY)] += 1  # a box nobody leads
    _count_first_play(s, pr, p, t)
    log(s, pr, EV_ITEM, p, t, x, side, 0)


@njit(**INLINE)
def _play_princess(s, pr, p, a):
    """R6: a Princess card evicts the cat it lands on (to its owner's supply, or discarded
    under the evicted_cat variant, R6.2)."""
    t = action_arg1(a)
    north = action_arg2(a)
    i = 0
    while s[pr.o_cat_cell + i] != north:
        i += 1
    owner = evict_with_princess(s, pr, np.int64(i))
    if pr.evict_discard == 0:
        s[pr.o_supply_awake + owner] += 1  # R6.2: back to the owner's supply
    s[hand_at(pr, p, t)] -= 1
    s[stat_at(pr, p, t, ST_PLAYED)] += 1
    s[seat_stat_at(pr, p, PS_PRINCESS)] += 1
    s[seat_stat_at(pr, owner, PS_EVICTED)] += 1
    if owner == p:
        s[seat_stat_at(pr, p, PS_SELF_EVICT)] += 1
    _count_first_play(s, pr, p, t)
    log(s, pr, EV_PRINCESS, p, north, owner, 0, 0)


@njit(**CALLED)
def apply_action(s, pr, a):
    """Carry out a legal action and every automatic step up to the next decision."""
    s[SC_DECISIONS] += 1
    step = STEP_DONE  # the automatic steps to run after the action, in one place below
    dec = s[SC_DECISION]
    p = s[SC_SEAT]
    kind = action_kind(a)
    if dec == DEC_CHOOSE:
        if kind == A_BOX:
            log(s, pr, EV_TURN, p, PHASE_NORMAL, TURN_BOX, 0, 0)
            step = STEP_DRAW
        else:
            log(s, pr, EV_TURN, p, PHASE_NORMAL, TURN_SLEEPING, 0, 0)
            s[SC_DECISION] = DEC_SLEEP
    elif dec == DEC_ITEM:
        _play_item(s, pr, p, a)
        step = STEP_DRAW
    elif dec == DEC_PLAY:
        if kind == A_PLACE:
            code = action_arg1(a)
            t = code >> 1
            x = action_arg2(a)
            m = s[pr.t_walls + t]
            if code & 1:
                m = turned(m)
            place_card(s, pr, np.int64(x), np.int64(m))
            s[hand_at(pr, p, t)] -= 1
            s[stat_at(pr, p, t, ST_PLAYED)] += 1
            _count_first_play(s, pr, p, t)
            s[SC_PLACED] = x
            log(s, pr, EV_PLACE, p, t, x, m, 0)
            if _can_cat(s, pr, p, x):
                s[SC_DECISION] = DEC_CAT  # R3.1.3: an optional cat
            else:
                step = STEP_END
        elif kind == A_PRINCESS:
            _play_princess(s, pr, p, a)
            step = STEP_END
        else:
            t = action_arg1(a)
            s[hand_at(pr, p, t)] -= 1
            s[stat_at(pr, p, t, ST_DISCARDED)] += 1
            s[seat_stat_at(pr, p, PS_DISCARDS)] += 1
            s[SC_NDISCARD] += 1
            log(s, pr, EV_DISCARD, p, t, 0, 0, 0)
            step = STEP_END
    elif dec == DEC_CAT:
        if kind == A_CAT:
            north = action_arg2(a)
            place_cat(s, pr, np.int64(north), np.int64(p))
            s[pr.o_supply_awake + p] -= 1
            s[seat_stat_at(pr, p, PS_CATS)] += 1
            log(s, pr, EV_CAT, p, north, 0, 0, 0)
            if s[pr.o_supply_awake + p] == 0:
                _trigger(s, pr, TRIGGER_CAT, p)  # R7.1: the last awake cat
        step = STEP_END
    elif dec == DEC_SLEEP:
        x = action_arg2(a)
        m = pr.sleep_walls
        if action_arg1(a):
            m = turned(m)
        place_sleeping(s, pr, np.int64(x), np.int64(m), np.int64(p))
        s[pr.o_supply_sleep + p] -= 1
        s[seat_stat_at(pr, p, PS_SLEEPING)] += 1
        log(s, pr, EV_SLEEPING, p, x, m, 0, 0)
        step = STEP_END
    if step != STEP_DONE:
        _advance(s, pr, step)  # one call site: numba compiles and links it once
