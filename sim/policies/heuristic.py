"""The heuristic policy: a weighted sum of named features of each candidate action.

Every feature is measured on the table as it would stand right after the
action (one ply, from the same incremental score changes greedy uses). A
preset is a set of weights standing for a recognisable kind of player; a
config may override any weight, and `temperature` > 0 turns the best choice
into a softmax draw, to model imperfect play.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.actions import A_CAT, A_PLACE, A_PRINCESS, action_arg1, action_arg2, action_kind
from sim.engine.legal import sleeping_placements
from sim.engine.rng import randint, uniform
from sim.engine.scoring import leads
from sim.engine.state import (
    DEC_CAT,
    DEC_CHOOSE,
    DEC_ITEM,
    DEC_PLAY,
    DEC_SLEEP,
    SC_DECISION,
    SC_ITEM,
    SC_SEAT,
)
from sim.engine.table import CALLED, INLINE, find, turned
from sim.policies.compiled import allowed_actions
from sim.policies.score_delta import (
    _classify_cell,
    _keeps_scores,
    _memo_key,
    _no_leader_near,
    _prepare_cell,
    _quiet_flags,
    _sleep_delta,
    current_scores,
    led_by_rival,
    score_change,
)
from sim.policies.work import (
    C_CELL,
    C_CLASSIFIED,
    F_CLOSES_OWN,
    F_FEEDS_RIVAL,
    M_EPOCH,
    M_STAMPS,
    M_VALUES,
    w_cache,
    w_cur,
    w_delta,
    w_flags,
    w_memo,
)
from sim.specs import (
    FEAT_CAT_USED,
    FEAT_CLOSES_OWN_BOX,
    FEAT_FEEDS_RIVAL_BOX,
    FEAT_OTHERS_POINTS,
    FEAT_OWN_POINTS,
    FEAT_PRINCESS_SWING,
    FEAT_RIVAL_POINTS,
    FEAT_SLEEPING_USED,
    FEAT_SPRAYER_ON_RIVAL,
    FEAT_TOY_TO_OWN,
    P_BAN,
    P_TEMPERATURE,
)


@njit(**CALLED)
def _rival(pr, w, me):
    """The opponent with the highest current score (lowest seat on ties)."""
    cur = w[w_cur(pr) : w_cur(pr) + pr.players]
    best = -1
    for q in range(pr.players):
        if q != me and (best < 0 or cur[q] > cur[best]):
            best = q
    return best


@njit(**INLINE)
def _table_features(pr, me, rival, weights, w):
    """Weighted score-change and placement features; the change is already in w."""
    o_d = w_delta(pr)
    fl = w_flags(pr)
    others = 0.0
    for q in range(pr.players):
        if q != me:
            others += w[o_d + q]
    v = weights[FEAT_OWN_POINTS] * w[o_d + me] + weights[FEAT_RIVAL_POINTS] * w[o_d + rival]
    v += weights[FEAT_OTHERS_POINTS] * others / (pr.players - 1)
    return (
        v
        + weights[FEAT_CLOSES_OWN_BOX] * w[fl + F_CLOSES_OWN]
        + weights[FEAT_FEEDS_RIVAL_BOX] * w[fl + F_FEEDS_RIVAL]
    )


@njit(**INLINE)
def action_value(s, pr, a, me, rival, weights, w):
    """The weighted feature sum of legal action a (FEATURES order)."""
    score_change(s, pr, a, me, w, True)
    v = _table_features(pr, me, rival, weights, w)
    dec = s[SC_DECISION]
    kind = action_kind(a)
    if dec == DEC_CAT and kind == A_CAT:
        v += weights[FEAT_CAT_USED]
    if dec == DEC_SLEEP:
        v += weights[FEAT_SLEEPING_USED]
    if dec == DEC_ITEM:
        r = find(s, pr, action_arg2(a))
        mine = leads(s, pr, r, me)
        if s[pr.t_toy + s[SC_ITEM]] < 0:
            if led_by_rival(s, pr, r, me):
                v += weights[FEAT_SPRAYER_ON_RIVAL]
        elif mine:
            v += weights[FEAT_TOY_TO_OWN]
    if dec == DEC_PLAY and kind == A_PRINCESS:
        o_d = w_delta(pr)
        best_other = -(1 << 40)
        for q in range(pr.players):
            if q != me:
                best_other = max(best_other, w[o_d + q])
        v += weights[FEAT_PRINCESS_SWING] * (w[o_d + me] - best_other)
    return v


@njit(**CALLED)
def _pick(values, n, temperature, stream):
    """Argmax with uniform ties, or a softmax draw when temperature > 0."""
    best = values[0]
    for i in range(1, n):
        best = max(best, values[i])
    if temperature > 0:
        total = 0.0
        for i in range(n):
            values[i] = np.exp((values[i] - best) / temperature)
            total += values[i]
        u = uniform(stream) * total
        for i in range(n):
            u -= values[i]
            if u < 0:
                return i
        return n - 1
    ties = 0
    pick = 0
    for i in range(n):
        if values[i] >= best - 1e-12:
            ties += 1
            if randint(stream, ties) == 0:
                pick = i
    return pick


@njit(**CALLED)
def choose_heuristic(s, pr, stream, buf, w, params, values):
    """Weighted features, argmax or softmax (params: weights then temperature), among the
    actions the seat's ban word allows."""
    me = s[SC_SEAT]
    n = allowed_actions(s, pr, buf, np.int64(params[P_BAN]))
    if n == 1:
        return buf[0]
    current_scores(s, pr, w)
    rival = _rival(pr, w, me)
    weights = params  # the weights come first (FEATURES order)
    temperature = params[P_TEMPERATURE]
    if s[SC_DECISION] == DEC_CHOOSE:
        values[0] = 0.0  # the box action leaves the table as it is
        m = sleeping_placements(s, pr, buf, np.int64(2))
        best = -1e300
        for i in range(2, m):
            a = buf[i]
            mask = pr.sleep_walls
            _sleep_delta(
                s, pr, action_arg2(a), turned(mask) if action_arg1(a) else mask, me, w, True
            )
            best = max(
                best, _table_features(pr, me, rival, weights, w) + weights[FEAT_SLEEPING_USED]
            )
        values[1] = best
        return buf[_pick(values, 2, temperature, stream)]
    _values(s, pr, buf, n, me, rival, weights, w, values)
    return buf[_pick(values, n, temperature, stream)]


@njit(**INLINE)
def _values(s, pr, buf, n, me, rival, weights, w, values):
    """Each candidate's weighted feature sum into values[:n]. A placement's score change and
    placement flags depend on its walls only through its memo key on the cell (`_memo_key`:
    the boxes it joins, and whether the box it makes is closed), and its value on nothing
    else: placements on one cell that share a key are scored once (the memo holds the index
    of the first, valid while `_prepare_cell`'s epoch stands). Two shortcuts give the same
    values for less: a cell next to no box with a leader is worth 0 to every card
    (`_no_leader_near`; about half the cells of a base game's play decisions), and a key
    that keeps every score (`_keeps_scores`; 97% of the rest) is worth its flags alone, read
    from the cell cache (`_quiet_flags`) without merging the boxes. Checked against
    `action_value` of every candidate (tests/policies/test_features.py)."""
    c, o_m = w_cache(pr), w_memo(pr)
    play = s[SC_DECISION] == DEC_PLAY
    last = -1
    quiet = False
    for i in range(n):
        a = buf[i]
        if play and action_kind(a) == A_PLACE:
            x = action_arg2(a)
            if x != last:
                last = x
                quiet = _no_leader_near(s, pr, x)
            if quiet:
                values[i] = 0.0  # no score change and no flag: every feature is 0
                continue
            if w[c + C_CELL] != x:
                _prepare_cell(s, pr, x, w)  # a new cell: a new epoch of the memo
            code = action_arg1(a)
            m = s[pr.t_walls + (code >> 1)]
            key = _memo_key(pr, w, turned(m) if code & 1 else m)
            if w[o_m + M_STAMPS + key] == w[o_m + M_EPOCH]:
                values[i] = values[w[o_m + M_VALUES + key]]
                continue
            w[o_m + M_STAMPS + key] = w[o_m + M_EPOCH]
            w[o_m + M_VALUES + key] = i
            if w[c + C_CLASSIFIED] != x:
                _classify_cell(pr, w)
            if _keeps_scores(pr, w, key):
                _quiet_flags(pr, w, key, me)
                values[i] = _table_features(pr, me, rival, weights, w)
                continue
        values[i] = action_value(s, pr, a, me, rival, weights, w)
