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

from sim.engine.rng import randint, uniform
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
from sim.engine.table import INLINE, find, leads, turned
from sim.engine.turns import (
    A_CAT,
    A_PRINCESS,
    action_arg1,
    action_arg2,
    action_kind,
    legal_actions,
    sleeping_placements,
)
from sim.policies.compiled import (
    F_CLOSES_OWN,
    F_FEEDS_RIVAL,
    W_CUR,
    W_DELTA,
    _place_delta,
    current_scores,
    flags_at,
    led_by_rival,
    score_change,
)

# Feature names, in the order of the weight vector, with what each measures.
FEATURES: dict[str, str] = {
    "own_points": "change in the seat's own score (box points it leads, plus the cat bonus)",
    "rival_points": "change in the score of the rival now ahead (highest current score)",
    "others_points": "mean change in the other seats' scores",
    "closes_own_box": "boxes the seat leads that the action closes, doubling them (R8.4)",
    "feeds_rival_box": "1 if the card joins a box a rival leads and the seat does not",
    "cat_used": "1 when an awake cat is placed (a negative weight keeps cats for later)",
    "sleeping_used": "1 for the sleeping-cat action (claims a box early, costs a draw)",
    "sprayer_on_rival": "1 when a drawn sprayer lands in a box a rival leads and the seat does not",
    "princess_swing": "for a Princess: own score change minus the best rival's change",
    "toy_to_own": "1 when a drawn toy lands in a box the seat leads",
}
FEATURE_NAMES = tuple(FEATURES)
N_FEATURES = len(FEATURES)

# The kinds of player the presets stand for; every weight not listed is 0.
PRESETS: dict[str, dict[str, float]] = {
    # Builds and closes its own boxes, feeds them toys, avoids helping rivals.
    "builder": {
        "own_points": 1.0,
        "rival_points": -0.3,
        "closes_own_box": 1.5,
        "feeds_rival_box": -1.0,
        "cat_used": 0.3,
        "sleeping_used": -0.5,
        "toy_to_own": 0.5,
    },
    # Plays against whoever is ahead: sprayers and the Princess on the leader.
    "spoiler": {
        "own_points": 0.6,
        "rival_points": -1.5,
        "others_points": -0.3,
        "sprayer_on_rival": 1.5,
        "princess_swing": 1.0,
        "feeds_rival_box": -0.3,
        "sleeping_used": -0.5,
    },
    # Claims boxes early with sleeping cats, then builds.
    "sleeper": {
        "own_points": 1.0,
        "rival_points": -0.3,
        "sleeping_used": 2.0,
        "cat_used": 0.2,
        "closes_own_box": 0.5,
    },
}

# A seat's parameter vector: the weights, then the temperature (lookahead adds its own).
P_TEMPERATURE = N_FEATURES
N_PARAMS = N_FEATURES + 5


def heuristic_params(
    preset: str | None = None, weights: dict | None = None, temperature: float = 0.0
) -> np.ndarray:
    """The parameter vector of a heuristic seat: a preset's weights, overridden, and temperature."""
    vec = np.zeros(N_PARAMS, np.float64)
    chosen = dict(PRESETS[preset or "builder"])
    chosen.update(weights or {})
    for name, value in chosen.items():
        vec[FEATURE_NAMES.index(name)] = float(value)
    vec[P_TEMPERATURE] = float(temperature)
    return vec


@njit(cache=True)
def _rival(pr, w, me):
    """The opponent with the highest current score (lowest seat on ties)."""
    cur = w[W_CUR * pr.players : (W_CUR + 1) * pr.players]
    best = -1
    for q in range(pr.players):
        if q != me and (best < 0 or cur[q] > cur[best]):
            best = q
    return best


@njit(**INLINE)
def _table_features(pr, me, rival, weights, w):
    """Weighted score-change and placement features; the change is already in w."""
    o_d = W_DELTA * pr.players
    fl = flags_at(pr)
    others = 0.0
    for q in range(pr.players):
        if q != me:
            others += w[o_d + q]
    v = weights[0] * w[o_d + me] + weights[1] * w[o_d + rival]
    v += weights[2] * others / (pr.players - 1)
    return v + weights[3] * w[fl + F_CLOSES_OWN] + weights[4] * w[fl + F_FEEDS_RIVAL]


@njit(**INLINE)
def action_value(s, pr, a, me, rival, weights, w):
    """The weighted feature sum of legal action a (FEATURES order)."""
    score_change(s, pr, a, me, w, True)
    v = _table_features(pr, me, rival, weights, w)
    dec = s[SC_DECISION]
    kind = action_kind(a)
    if dec == DEC_CAT and kind == A_CAT:
        v += weights[5]
    if dec == DEC_SLEEP:
        v += weights[6]
    if dec == DEC_ITEM:
        r = find(s, pr, action_arg2(a))
        mine = leads(s, pr, r, me)
        if s[pr.t_toy + s[SC_ITEM]] < 0:
            if led_by_rival(s, pr, r, me):
                v += weights[7]
        elif mine:
            v += weights[9]
    if dec == DEC_PLAY and kind == A_PRINCESS:
        o_d = W_DELTA * pr.players
        best_other = -(1 << 40)
        for q in range(pr.players):
            if q != me:
                best_other = max(best_other, w[o_d + q])
        v += weights[8] * (w[o_d + me] - best_other)
    return v


@njit(cache=True)
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


@njit(cache=True)
def choose_heuristic(s, pr, stream, buf, w, params, values):
    """Weighted features, argmax or softmax (params: weights then temperature)."""
    me = s[SC_SEAT]
    n = legal_actions(s, pr, buf)
    if n == 1:
        return buf[0]
    current_scores(s, pr, w)
    rival = _rival(pr, w, me)
    weights = params  # the weights come first (FEATURES order)
    temperature = params[P_TEMPERATURE]
    if s[SC_DECISION] == DEC_CHOOSE:
        values[0] = 0.0  # the box action leaves the table as it is
        m = sleeping_placements(s, pr, buf, 2)
        best = -1e300
        for i in range(2, m):
            a = buf[i]
            mask = pr.sleep_walls
            _place_delta(
                s, pr, action_arg2(a), turned(mask) if action_arg1(a) else mask, me, me, w, True
            )
            best = max(best, _table_features(pr, me, rival, weights, w) + weights[6])
        values[1] = best
        return buf[_pick(values, 2, temperature, stream)]
    for i in range(n):
        values[i] = action_value(s, pr, buf[i], me, rival, weights, w)
    return buf[_pick(values, n, temperature, stream)]
