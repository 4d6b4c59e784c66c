"""Built-in policies in compiled code: random and greedy (one-ply).

A policy reads only what its seat may know: the table, its own hand (through
the legal actions, which the engine derives from that hand alone), and public
counts. None of these functions reads the deck or another seat's hand.

Greedy scores a candidate by the change it makes to the boxes it touches,
never by rescoring the whole table: see `_place_delta` and friends.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.actions import (
    A_CAT,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    A_SLEEP_CHOICE,
    action_arg1,
    action_arg2,
    action_kind,
)
from sim.engine.legal import legal_actions, random_legal_action, sleeping_placements
from sim.engine.rng import randint
from sim.engine.state import (
    DEC_CHOOSE,
    DEC_PLAY,
    DEC_SLEEP,
    SC_DECISION,
    SC_SEAT,
)
from sim.engine.table import CALLED, INLINE, turned
from sim.policies.score_delta import (
    _classify_cell,
    _clear_delta,
    _keeps_scores,
    _memo_key,
    _no_item_near,
    _objective,
    _one_live_box,
    _other_delta,
    _place_delta_once,
    _prepare_cell,
    current_scores,
)
from sim.policies.work import (
    C_CELL,
    C_CLASSIFIED,
    M_EPOCH,
    M_STAMPS,
    M_VALUES,
    w_cache,
    w_memo,
    w_values,
)
from sim.specs import BAN_CARD_SHIFT, BAN_CAT, BAN_SLEEPING

# ---------------------------------------------------------------- restricted play


@njit(**INLINE)
def action_banned(a, ban):
    """Is legal action a one of the options in the ban word (sim.specs BAN_* bits)?"""
    kind = action_kind(a)
    if kind == A_SLEEP_CHOICE:
        return (ban & BAN_SLEEPING) != 0
    if kind == A_CAT:
        return (ban & BAN_CAT) != 0
    if kind == A_PLACE:
        return ((ban >> (BAN_CARD_SHIFT + (action_arg1(a) >> 1))) & 1) != 0
    if kind == A_PRINCESS:
        return ((ban >> (BAN_CARD_SHIFT + action_arg1(a))) & 1) != 0
    return False


@njit(**INLINE)
def allowed_actions(s, pr, out, ban):
    """The legal actions a seat with this ban word may take, in legal order, in out[:n].

    Every legal action when none is banned, or when all are (the fallback: the
    rules leave no other move). Nothing removed keeps the list and its length,
    so a ban that never bites plays the same game.
    """
    n = legal_actions(s, pr, out)
    if ban == 0:
        return n
    k = 0
    for i in range(n):
        if not action_banned(out[i], ban):
            out[k] = out[i]  # k <= i: compacting in place; if k stays 0 nothing was written
            k += 1
    return k if k > 0 else n


@njit(**CALLED)
def choose_random(s, pr, stream, buf, ban):
    """Uniform among the allowed actions (the engine's draw, without listing, when no ban)."""
    if ban == 0:
        return random_legal_action(s, pr, stream, buf)
    n = allowed_actions(s, pr, buf, ban)
    if n == 1:
        return buf[0]
    return buf[randint(stream, n)]


@njit(**CALLED)
def objectives(s, pr, buf, lo, n, me, w):
    """Greedy's objective of each candidate buf[lo:n] into w[w_values + i] (after
    current_scores): what _evaluate finds for it, computed here, the one compiled home of that
    code for greedy, the look-ahead's and ismcts's ranking.

    Placements come cell by cell; a card on a cell next to no box with a toy or a sprayer
    changes no score (R8.3: every box involved is worth 0), so the cell's every card is worth
    the table as it stands. So is a card that joins at most one box that is not inert and
    leaves it open, and closes no box it only touches whose closing would change a score
    (`_keeps_scores`; a whole cell where no card can do otherwise: `_one_live_box`).
    Placements on one cell that join the same boxes and close or leave open the box they make
    are worth the same (`_memo_key`): each is scored once. Sleeping-cat placements (A_SLEEP, at
    the sleeping decision or, for `_choose_action_kind`, at the choice) share the placements'
    one inlined `_place_delta`: each inlined copy costs seconds of compile time."""
    o_v = w_values(pr)
    o_m = w_memo(pr)
    w[o_m + M_EPOCH] += 1  # the memo holds objectives of seat me only (and of this table)
    _clear_delta(pr, w)
    still = _objective(pr, w, me)  # the table as it stands
    dec = s[SC_DECISION]
    play = dec == DEC_PLAY
    sleep = dec == DEC_SLEEP or dec == DEC_CHOOSE
    last = -1
    quiet = False
    for i in range(lo, n):
        a = buf[i]
        kind = action_kind(a)
        x = np.int64(-1)  # the cell of a placement or a sleeping-cat card, else -1
        key = np.int64(-1)  # a placement's memo key (`_memo_key`), else -1
        if play and kind == A_PLACE:
            if action_arg2(a) != last:
                last = action_arg2(a)
                quiet = _no_item_near(s, pr, last)
            if quiet:
                w[o_v + i] = still
                continue
            x = np.int64(action_arg2(a))
            code = action_arg1(a)
            m = s[pr.t_walls + (code >> 1)]
            mask = np.int64(turned(m) if code & 1 else m)
            sleeper = np.int64(-1)
            if w[w_cache(pr) + C_CELL] != x:
                _prepare_cell(s, pr, x, w)
            if w[w_cache(pr) + C_CLASSIFIED] != x:
                _classify_cell(pr, w)
                if _one_live_box(pr, w):
                    # Every card joins at most one box that is not inert and leaves it
                    # open, or closes one whose closing changes nothing (`_keeps_scores`)
                    quiet = True
                    w[o_v + i] = still
                    continue
            key = _memo_key(pr, w, mask)
            if w[o_m + M_STAMPS + key] == w[o_m + M_EPOCH]:
                w[o_v + i] = w[o_m + M_VALUES + key]
                continue
            if _keeps_scores(pr, w, key):
                w[o_v + i] = still
                w[o_m + M_STAMPS + key] = w[o_m + M_EPOCH]
                w[o_m + M_VALUES + key] = still
                continue
        elif sleep and kind == A_SLEEP:
            x = np.int64(action_arg2(a))
            m = pr.sleep_walls
            mask = np.int64(turned(m) if action_arg1(a) else m)
            sleeper = np.int64(me)
        else:  # no card laid: score_change's other branches
            mask = np.int64(0)
            sleeper = np.int64(-1)
            _other_delta(s, pr, a, me, w)
        if x >= 0:
            _place_delta_once(s, pr, x, mask, sleeper, me, w, False)
        v = _objective(pr, w, me)
        w[o_v + i] = v
        if key >= 0:
            w[o_m + M_STAMPS + key] = w[o_m + M_EPOCH]
            w[o_m + M_VALUES + key] = v


@njit(**CALLED)
def choose_greedy(s, pr, stream, buf, w, ban):
    """One-ply greedy: maximise own minus best opponent's score as if scored now; ties at random.

    Only among the actions the ban word allows (`allowed_actions`)."""
    me = s[SC_SEAT]
    n = allowed_actions(s, pr, buf, ban)
    if n == 1:
        return buf[0]
    current_scores(s, pr, w)
    if s[SC_DECISION] == DEC_CHOOSE:
        return _choose_action_kind(s, pr, me, stream, buf, w)
    objectives(s, pr, buf, np.int64(0), np.int64(n), np.int64(me), w)
    o_v = w_values(pr)
    best = w[o_v]
    ties = 1
    for i in range(1, n):
        v = w[o_v + i]
        if v > best:
            best = v
            ties = 1
        elif v == best:
            ties += 1
    # One draw per decision, uniform among the ties: most candidates tie (a card on a cell
    # next to no item changes no score), so a draw per tie (reservoir sampling) cost more
    # than scoring them.
    k = randint(stream, ties) if ties > 1 else 0
    for i in range(n):
        if w[o_v + i] == best:
            if k == 0:
                return buf[i]
            k -= 1
    return buf[0]


@njit(**INLINE)
def _choose_action_kind(s, pr, me, stream, buf, w):
    """Box action (the table unchanged now) or the sleeping-cat action at its best placement."""
    _clear_delta(pr, w)
    box = _objective(pr, w, me)
    n = sleeping_placements(s, pr, buf, np.int64(2))  # buf[0:2] holds the two choices
    objectives(s, pr, buf, np.int64(2), np.int64(n), np.int64(me), w)
    o_v = w_values(pr)
    best = -(1 << 40)
    for i in range(2, n):
        best = max(best, w[o_v + i])
    if best > box or (best == box and randint(stream, 2) == 1):
        return buf[1]
    return buf[0]


@njit(cache=True)
def top_actions(s, pr, mover, buf, n, k, w, values):
    """Keep greedy's k best of buf[:n] in buf[:k], best first (ties in enumeration order),
    and return k (at most n): the search players' candidates. `values` is float scratch."""
    if n <= 1:
        return n
    current_scores(s, pr, w)
    objectives(s, pr, buf, np.int64(0), np.int64(n), np.int64(mover), w)
    o_v = w_values(pr)
    # One pass keeping the k best so far in buf[:kept], best first, a newcomer placed after
    # every kept action at least as good (so ties keep their enumeration order): what a
    # stable sort by value, best first, would put in buf[:k], with no work for the actions
    # that do not beat the k-th (most of them, at a play decision).
    k = min(k, n)
    kept = 0
    for i in range(n):
        v = w[o_v + i]
        if kept == k and v <= values[k - 1]:
            continue
        a = buf[i]  # read before it is overwritten: writes land at kept <= i or below
        j = min(kept, k - 1)
        while j > 0 and values[j - 1] < v:
            buf[j] = buf[j - 1]
            values[j] = values[j - 1]
            j -= 1
        buf[j] = a
        values[j] = v
        if kept < k:
            kept += 1
    return k
