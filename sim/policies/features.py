"""The heuristic's features of every legal action at one decision, for fitting it to play.

`sim calibrate` fits the heuristic's weights and temperature to logged decisions; for
that it needs each feature of each action on its own, exactly as the policy computes
them. The policy's value of an action is linear in its weights (`action_value` in
`sim.policies.heuristic`: a sum of weight x feature), so feature k is that same code
run with weight 1 on k and 0 elsewhere: no second copy of the features to drift apart.

The choice between the box action and the sleeping-cat action (R3) is special: the
heuristic values the sleeping-cat action by its best placement, so that alternative
has one feature row per placement and its utility is the largest of them. Greedy's
value of every alternative (its own one-ply objective) comes out beside the features,
as a baseline for the fit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.actions import action_arg1, action_arg2
from sim.engine.legal import legal_actions, sleeping_placements
from sim.engine.state import DEC_CHOOSE, SC_DECISION, SC_SEAT
from sim.engine.table import CALLED, turned
from sim.policies.heuristic import _rival, _table_features, action_value
from sim.policies.score_delta import (
    _clear_delta,
    _evaluate,
    _objective,
    _place_delta,
    current_scores,
)
from sim.policies.work import work_size
from sim.specs import FEAT_SLEEPING_USED, N_FEATURES


@njit(**CALLED)
def decision_features(s, pr, w, buf, unit, x, alt, greedy):
    """Fill x[:rows] (one feature row each), alt[:rows] (the legal action's index each row
    belongs to) and greedy[:n] (greedy's objective of each legal action) for the pending
    decision; returns (rows, n). `unit` is the N_FEATURES x N_FEATURES identity."""
    me = s[SC_SEAT]
    n = legal_actions(s, pr, buf)
    current_scores(s, pr, w)
    rival = _rival(pr, w, me)
    if s[SC_DECISION] == DEC_CHOOSE:
        # buf[0]: the box action, which leaves the table as it is (all features 0);
        # buf[1]: the sleeping-cat action, valued at its best placement (as choose_heuristic).
        for k in range(N_FEATURES):
            x[0, k] = 0.0
        alt[0] = 0
        _clear_delta(pr, w)
        greedy[0] = _objective(pr, w, me)
        m = sleeping_placements(s, pr, buf, 2)
        rows = 1
        best = -(1 << 40)
        for i in range(2, m):
            a = buf[i]
            mask = pr.sleep_walls
            mask = turned(mask) if action_arg1(a) else mask
            _place_delta(s, pr, action_arg2(a), mask, me, me, w, True)
            for k in range(N_FEATURES):
                x[rows, k] = (
                    _table_features(pr, me, rival, unit[k], w) + unit[k][FEAT_SLEEPING_USED]
                )
            alt[rows] = 1
            rows += 1
            _place_delta(s, pr, action_arg2(a), mask, me, me, w, False)
            best = max(best, _objective(pr, w, me))
        greedy[1] = best
        return rows, 2
    for i in range(n):
        a = buf[i]
        for k in range(N_FEATURES):
            x[i, k] = action_value(s, pr, a, me, rival, unit[k], w)
        alt[i] = i
        greedy[i] = _evaluate(s, pr, a, me, w)
    return n, n


class FeatureScratch:
    """Work arrays for `features_of` sized for one game shape (reused decision after
    decision: nothing is allocated per decision but the rows returned)."""

    def __init__(self, pr) -> None:
        self.w = np.zeros(work_size(pr), np.int64)
        self.buf = np.zeros(pr.max_actions, np.int32)
        self.unit = np.eye(N_FEATURES, dtype=np.float64)
        self.x = np.zeros((pr.max_actions, N_FEATURES), np.float64)
        self.alt = np.zeros(pr.max_actions, np.int64)
        self.greedy = np.zeros(pr.max_actions, np.float64)


def features_of(s: np.ndarray, pr, scratch: FeatureScratch):
    """The pending decision's feature rows (rows x N_FEATURES), the legal action each row
    belongs to, and greedy's objective of each legal action (copies)."""
    rows, n = decision_features(
        s, pr, scratch.w, scratch.buf, scratch.unit, scratch.x, scratch.alt, scratch.greedy
    )
    return scratch.x[:rows].copy(), scratch.alt[:rows].copy(), scratch.greedy[:n].copy()
