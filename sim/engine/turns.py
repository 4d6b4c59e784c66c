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

from sim.engine.rng import WORD_RESHUFFLE, WORD_SHUFFLE, mix64
from sim.engine.state import (
    DEC_CAT,
    DEC_CHOOSE,
    DEC_ITEM,
    DEC_OVER,
    DEC_PLAY,
    DEC_SLEEP,
    DIR_E,
    DIR_S,
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
    PS_SLEEPING,
    PS_TURNS,
    SC_DECISION,
    SC_DECK_LEN,
    SC_DECK_POS,
    SC_ITEM,
    SC_LOG,
    SC_NCATS,
    SC_NDISCARD,
    SC_NEVENTS,
    SC_NFRONT,
    SC_NPLACED,
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
    ST_INTO_LED,
    ST_INTO_OTHER,
    ST_PLAYED,
    ST_WASTED,
    TRIGGER_CAT,
    TRIGGER_DECK,
    TRIGGER_NONE,
)
from sim.engine.table import (
    box_majority,
    box_top_count,
    can_place,
    cat_spot_ok,
    evict_with_princess,
    find,
    place_card,
    place_cat,
    place_item,
    place_sleeping,
    seam_free,
    turned,
)

# Action kinds.
A_BOX = 0  # choose the box action (R3.1)
A_SLEEP_CHOICE = 1  # choose the sleeping-cat action (R3.2)
A_PLACE = 2  # arg1 = 2*type + turned, arg2 = cell
A_PRINCESS = 3  # arg2 = north cell of the evicted cat
A_DISCARD = 4  # arg1 = type
A_CAT = 5  # arg2 = north cell of the cat
A_NO_CAT = 6
A_ITEM = 7  # arg1 = seam side (DIR_E or DIR_S), arg2 = cell
A_SLEEP = 8  # arg1 = turned, arg2 = cell
ACTION_NAMES = (
    "box", "sleeping", "place", "princess", "discard", "cat", "no_cat", "item", "sleep_at",
)

# Turn event actions.
TURN_BOX, TURN_SLEEPING, TURN_SKIP = 0, 1, 2


@njit(cache=True, inline="always")
def action(kind, arg1, arg2):
    return np.int32((kind << 26) | (arg1 << 13) | arg2)


@njit(cache=True, inline="always")
def action_kind(a):
    return a >> 26


@njit(cache=True, inline="always")
def action_arg1(a):
    return (a >> 13) & 0x1FFF


@njit(cache=True, inline="always")
def action_arg2(a):
    return a & 0x1FFF


@njit(cache=True, inline="always")
def log(st, kind, seat, a, b, c, d):
    """Record an event when logging is on (sim play --log, replays, tests)."""
    if st.sc[SC_LOG] == 0:
        return
    n = st.sc[SC_NEVENTS]
    ev = st.events[n]
    ev[0] = kind
    ev[1] = seat
    ev[2] = a
    ev[3] = b
    ev[4] = c
    ev[5] = d
    st.sc[SC_NEVENTS] = n + 1


# ---------------------------------------------------------------- setup (R2)


@njit(cache=True)
def _card_keys(pr, ids, word):
    """One sort key per physical card from (stream word, card name, copy number)."""
    keys = np.empty(ids.shape[0], np.uint64)
    for i in range(ids.shape[0]):
        card = ids[i]
        salt = pr.type_salt[pr.deck_types[card]]
        keys[i] = mix64(word ^ mix64(salt + np.uint64(pr.deck_copies[card])))
    return keys


@njit(cache=True)
def setup(st, pr, words):
    """R2.2-R2.5: shuffle, start card, deal; returns (shuffled deck, aside) as card types."""
    n = pr.deck_types.shape[0]
    ids = np.arange(n)
    shuffled = ids[np.argsort(_card_keys(pr, ids, words[WORD_SHUFFLE]))]
    # R2.3: the first box card from the top starts the layout, unturned.
    start = 0
    while pr.type_kind[pr.deck_types[shuffled[start]]] != KIND_BOX:
        start += 1
    place_card(st, pr, pr.origin, pr.type_walls[pr.deck_types[shuffled[start]]])
    rest = np.empty(n - 1, np.int64)
    rest[:start] = shuffled[:start]
    rest[start:] = shuffled[start + 1 :]
    # R2.4: deal one at a time round the table; items met are set aside.
    aside = np.empty(n, np.int64)
    n_aside = 0
    pos = 0
    for _ in range(pr.hand_size):
        for p in range(pr.players):
            while True:
                card = rest[pos]
                pos += 1
                t = pr.deck_types[card]
                if pr.type_kind[t] > KIND_PRINCESS:
                    aside[n_aside] = card
                    n_aside += 1
                    continue
                st.hands[p, t] += 1
                st.stats[p, t, ST_DEALT] += 1
                break
    # The rest and the aside items are reshuffled by a second key per card; a deck
    # already in random order stays uniformly random, so reshuffling always is
    # faithful, and it keeps each card's key independent of the others'.
    remaining = np.concatenate((rest[pos:], aside[:n_aside]))
    remaining = remaining[np.argsort(_card_keys(pr, remaining, words[WORD_RESHUFFLE]))]
    for i in range(remaining.shape[0]):
        st.deck[i] = pr.deck_types[remaining[i]]
    st.sc[SC_DECK_POS] = 0
    st.sc[SC_DECK_LEN] = remaining.shape[0]
    st.awake[:] = pr.cats
    st.asleep[:] = pr.sleeps
    st.sc[SC_PHASE] = PHASE_NORMAL
    st.sc[SC_TRIGGER] = TRIGGER_NONE
    st.sc[SC_TRIGGER_SEAT] = -1
    if remaining.shape[0] == 0:
        _trigger(st, TRIGGER_DECK, -1)  # R7.1: setup itself emptied the deck
        st.sc[SC_PHASE] = PHASE_FINAL
    types_shuffled = np.empty(n, np.int8)
    for i in range(n):
        types_shuffled[i] = pr.deck_types[shuffled[i]]
    types_aside = np.empty(n_aside, np.int8)
    for i in range(n_aside):
        types_aside[i] = pr.deck_types[aside[i]]
    st.sc[SC_SEAT] = 0  # R2.5
    _advance(st, pr, STEP_BEGIN)
    return types_shuffled, types_aside


# ---------------------------------------------------------------- turn flow


@njit(cache=True, inline="always")
def hand_count(st, p):
    n = 0
    for t in range(st.hands.shape[1]):
        n += st.hands[p, t]
    return n


@njit(cache=True, inline="always")
def _trigger(st, reason, p):
    """R7.1: the first trigger is the one recorded."""
    if st.sc[SC_TRIGGER] == TRIGGER_NONE:
        st.sc[SC_TRIGGER] = reason
        st.sc[SC_TRIGGER_SEAT] = p
        st.sc[SC_TRIGGER_TURN] = st.sc[SC_TURNS]
        log(st, EV_TRIGGER, p, reason, 0, 0, 0)


@njit(cache=True)
def sleeping_possible(st, pr, p):
    """R3.2: the seat has a sleeping cat left and its card fits somewhere."""
    if st.sc[SC_PHASE] != PHASE_NORMAL or st.asleep[p] == 0:
        return False
    m = pr.sleep_walls
    m2 = turned(m)
    for i in range(st.sc[SC_NFRONT]):
        x = st.front[i]
        if can_place(st, pr, x, m) or (m2 != m and can_place(st, pr, x, m2)):
            return True
    return False


# Steps of the automatic part of a turn; `_advance` runs them until a decision.
STEP_DONE, STEP_BEGIN, STEP_DRAW, STEP_END = 0, 1, 2, 3


@njit(cache=True)
def _advance(st, pr, step):
    """Run automatic steps (draws, wasted items, turn changes, skips) up to the next decision."""
    while step != STEP_DONE:
        if step == STEP_END:
            step = _end_turn(st, pr)
        elif step == STEP_BEGIN:
            step = _begin_turn(st, pr)
        else:
            step = _draw(st, pr)


@njit(cache=True)
def _begin_turn(st, pr):
    """Start the seat's turn, skipping empty hands in the final phase (R7.2, R7.3)."""
    p = st.sc[SC_SEAT]
    st.sc[SC_PLACED] = -1
    while st.sc[SC_PHASE] == PHASE_FINAL:
        empty = True
        for q in range(pr.players):
            if hand_count(st, q) > 0:
                empty = False
                break
        if empty:
            st.sc[SC_PHASE] = PHASE_OVER  # R7.3: every hand is empty
            st.sc[SC_DECISION] = DEC_OVER
            return STEP_DONE
        st.sc[SC_SEAT] = p
        if hand_count(st, p) > 0:
            log(st, EV_TURN, p, PHASE_FINAL, TURN_BOX, 0, 0)
            st.sc[SC_DECISION] = DEC_PLAY
            return STEP_DONE
        log(st, EV_TURN, p, PHASE_FINAL, TURN_SKIP, 0, 0)
        p = (p + 1) % pr.players
    if sleeping_possible(st, pr, p):
        st.sc[SC_DECISION] = DEC_CHOOSE
        return STEP_DONE
    log(st, EV_TURN, p, PHASE_NORMAL, TURN_BOX, 0, 0)
    return STEP_DRAW


@njit(cache=True)
def _end_turn(st, pr):
    p = st.sc[SC_SEAT]
    st.sc[SC_TURNS] += 1
    st.seat_stats[p, PS_TURNS] += 1
    if st.sc[SC_TRIGGER] != TRIGGER_NONE and st.sc[SC_PHASE] == PHASE_NORMAL:
        st.sc[SC_PHASE] = PHASE_FINAL  # R7.1: the turn in progress has finished
    st.sc[SC_SEAT] = (p + 1) % pr.players  # R2.5
    return STEP_BEGIN


@njit(cache=True)
def any_free_seam(st, pr):
    for i in range(st.sc[SC_NPLACED]):
        x = st.placed[i]
        if seam_free(st, pr, x, DIR_E) or seam_free(st, pr, x, DIR_S):
            return True
    return False


@njit(cache=True)
def _draw(st, pr):
    """R3.1.1: draw until a card reaches the hand or the deck is empty; items wait for a seam."""
    p = st.sc[SC_SEAT]
    while st.sc[SC_DECK_POS] < st.sc[SC_DECK_LEN]:
        t = st.deck[st.sc[SC_DECK_POS]]
        st.sc[SC_DECK_POS] += 1
        st.stats[p, t, ST_DRAWN] += 1
        log(st, EV_DRAW, p, t, 0, 0, 0)
        if st.sc[SC_DECK_POS] == st.sc[SC_DECK_LEN]:
            _trigger(st, TRIGGER_DECK, p)  # R7.1: even if the last card is an item
        if pr.type_kind[t] <= KIND_PRINCESS:
            st.hands[p, t] += 1
            break
        if any_free_seam(st, pr):
            st.sc[SC_ITEM] = t
            st.sc[SC_DECISION] = DEC_ITEM  # R5.1: placed at once by the drawer
            return STEP_DONE
        st.stats[p, t, ST_WASTED] += 1  # R5.3: no free open seam
        st.sc[SC_WASTED] += 1
        log(st, EV_WASTED, p, t, 0, 0, 0)
    if hand_count(st, p) == 0:
        return STEP_END
    st.sc[SC_DECISION] = DEC_PLAY
    return STEP_DONE


# ---------------------------------------------------------------- legal actions


@njit(cache=True)
def _placements(st, pr, p, out, n):
    """Box cards from hand x empty cells x turnings (R1.3-R1.5), in type, cell, turn order."""
    for t in range(pr.ntypes):
        if st.hands[p, t] == 0 or pr.type_kind[t] != KIND_BOX:
            continue
        m = pr.type_walls[t]
        m2 = turned(m)
        for i in range(st.sc[SC_NFRONT]):
            x = st.front[i]
            if can_place(st, pr, x, m):
                out[n] = action(A_PLACE, 2 * t, x)
                n += 1
            if m2 != m and can_place(st, pr, x, m2):
                out[n] = action(A_PLACE, 2 * t + 1, x)
                n += 1
    return n


@njit(cache=True)
def legal_actions(st, pr, out):
    """Fill out[:n] with the legal actions at the current decision; return n."""
    dec = st.sc[SC_DECISION]
    p = st.sc[SC_SEAT]
    n = 0
    if dec == DEC_CHOOSE:
        out[0] = action(A_BOX, 0, 0)
        out[1] = action(A_SLEEP_CHOICE, 0, 0)
        return 2
    if dec == DEC_ITEM:
        for i in range(st.sc[SC_NPLACED]):
            x = st.placed[i]
            if seam_free(st, pr, x, DIR_E):
                out[n] = action(A_ITEM, DIR_E, x)
                n += 1
            if seam_free(st, pr, x, DIR_S):
                out[n] = action(A_ITEM, DIR_S, x)
                n += 1
        return n
    if dec == DEC_PLAY:
        n = _placements(st, pr, p, out, 0)
        if st.sc[SC_NCATS] > 0:
            for t in range(pr.ntypes):
                if pr.type_kind[t] == KIND_PRINCESS and st.hands[p, t] > 0:
                    for i in range(st.sc[SC_NCATS]):  # R6.1: any awake cat, own included
                        out[n] = action(A_PRINCESS, t, st.cat_cell[i])
                        n += 1
        if n == 0:  # R3.1: discard only when nothing can be played
            for t in range(pr.ntypes):
                if st.hands[p, t] > 0:
                    out[n] = action(A_DISCARD, t, 0)
                    n += 1
        return n
    if dec == DEC_CAT:
        out[0] = action(A_NO_CAT, 0, 0)
        n = 1
        x = st.sc[SC_PLACED]
        north = x + pr.offsets[0]
        if st.walls[north] >= 0 and cat_spot_ok(st, pr, north, p):  # R4.2: fresh card is south
            out[n] = action(A_CAT, 0, north)
            n += 1
        if st.walls[x + pr.offsets[DIR_S]] >= 0 and cat_spot_ok(st, pr, x, p):
            out[n] = action(A_CAT, 0, x)
            n += 1
        return n
    if dec == DEC_SLEEP:
        m = pr.sleep_walls
        m2 = turned(m)
        for i in range(st.sc[SC_NFRONT]):
            x = st.front[i]
            if can_place(st, pr, x, m):
                out[n] = action(A_SLEEP, 0, x)
                n += 1
            if m2 != m and can_place(st, pr, x, m2):
                out[n] = action(A_SLEEP, 1, x)
                n += 1
        return n
    return 0


# ---------------------------------------------------------------- effects


@njit(cache=True, inline="always")
def _leads(st, pr, root, p):
    top = box_top_count(st, pr, root)
    return top > 0 and box_majority(st, pr, root, p) == top


@njit(cache=True)
def _can_cat(st, pr, p, x):
    if st.awake[p] == 0:
        return False
    north = x + pr.offsets[0]
    if st.walls[north] >= 0 and cat_spot_ok(st, pr, north, p):
        return True
    return st.walls[x + pr.offsets[DIR_S]] >= 0 and cat_spot_ok(st, pr, x, p)


@njit(cache=True)
def apply_action(st, pr, a):
    """Carry out a legal action and every automatic step up to the next decision."""
    dec = st.sc[SC_DECISION]
    p = st.sc[SC_SEAT]
    kind = action_kind(a)
    if dec == DEC_CHOOSE:
        if kind == A_BOX:
            log(st, EV_TURN, p, PHASE_NORMAL, TURN_BOX, 0, 0)
            _advance(st, pr, STEP_DRAW)
        else:
            log(st, EV_TURN, p, PHASE_NORMAL, TURN_SLEEPING, 0, 0)
            st.sc[SC_DECISION] = DEC_SLEEP
    elif dec == DEC_ITEM:
        t = st.sc[SC_ITEM]
        x = action_arg2(a)
        side = action_arg1(a)
        root = place_item(st, pr, x, side, t)
        if _leads(st, pr, root, p):
            st.stats[p, t, ST_INTO_LED] += 1
        else:
            st.stats[p, t, ST_INTO_OTHER] += 1
        log(st, EV_ITEM, p, t, x, side, 0)
        _advance(st, pr, STEP_DRAW)
    elif dec == DEC_PLAY:
        if kind == A_PLACE:
            code = action_arg1(a)
            t = code >> 1
            x = action_arg2(a)
            m = pr.type_walls[t]
            if code & 1:
                m = turned(m)
            place_card(st, pr, x, m)
            st.hands[p, t] -= 1
            st.stats[p, t, ST_PLAYED] += 1
            st.sc[SC_PLACED] = x
            log(st, EV_PLACE, p, t, x, m, 0)
            if _can_cat(st, pr, p, x):
                st.sc[SC_DECISION] = DEC_CAT  # R3.1.3: an optional cat
            else:
                _advance(st, pr, STEP_END)
        elif kind == A_PRINCESS:
            t = action_arg1(a)
            north = action_arg2(a)
            i = 0
            while st.cat_cell[i] != north:
                i += 1
            owner = evict_with_princess(st, pr, i)
            if pr.evict_discard == 0:
                st.awake[owner] += 1  # R6.2: back to the owner's supply
            st.hands[p, t] -= 1
            st.stats[p, t, ST_PLAYED] += 1
            st.seat_stats[p, PS_PRINCESS] += 1
            st.seat_stats[owner, PS_EVICTED] += 1
            log(st, EV_PRINCESS, p, north, owner, 0, 0)
            _advance(st, pr, STEP_END)
        else:
            t = action_arg1(a)
            st.hands[p, t] -= 1
            st.stats[p, t, ST_DISCARDED] += 1
            st.seat_stats[p, PS_DISCARDS] += 1
            st.sc[SC_NDISCARD] += 1
            log(st, EV_DISCARD, p, t, 0, 0, 0)
            _advance(st, pr, STEP_END)
    elif dec == DEC_CAT:
        if kind == A_CAT:
            north = action_arg2(a)
            place_cat(st, pr, north, p)
            st.awake[p] -= 1
            st.seat_stats[p, PS_CATS] += 1
            log(st, EV_CAT, p, north, 0, 0, 0)
            if st.awake[p] == 0:
                _trigger(st, TRIGGER_CAT, p)  # R7.1: the last awake cat
        _advance(st, pr, STEP_END)
    elif dec == DEC_SLEEP:
        x = action_arg2(a)
        m = pr.sleep_walls
        if action_arg1(a):
            m = turned(m)
        place_sleeping(st, pr, x, m, p)
        st.asleep[p] -= 1
        st.seat_stats[p, PS_SLEEPING] += 1
        log(st, EV_SLEEPING, p, x, m, 0, 0)
        _advance(st, pr, STEP_END)


@njit(cache=True)
def is_legal(st, pr, a, buf):
    n = legal_actions(st, pr, buf)
    for i in range(n):
        if buf[i] == a:
            return True
    return False


@njit(cache=True)
def leader_of_box(st, pr, root):
    """Seats leading the box as a bitmask (0: nobody)."""
    top = box_top_count(st, pr, root)
    mask = 0
    if top > 0:
        for q in range(pr.players):
            if box_majority(st, pr, root, q) == top:
                mask |= 1 << q
    return mask


@njit(cache=True, inline="always")
def root_of(st, x):
    return find(st.parent, x)
