"""One entry point for every built-in policy, and the scratch space they share.

`choose` is inlined into each game loop, so a decision passes only the arrays
its own policy needs (numba reference-counts every array argument).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.engine.state import Params
from sim.policies.compiled import choose_greedy, choose_random, work_size
from sim.policies.heuristic import choose_heuristic
from sim.policies.ismcts import T_WIDTH, choose_ismcts, tree_rows
from sim.policies.lookahead import choose_lookahead
from sim.specs import (
    N_PARAMS,
    P_BAN,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
)

TREE_ROWS = tree_rows()


@njit(cache=True, inline="always")
def choose(code, s, pr, stream, buf, w, params, values, s2, buf2, pool, tree):
    """The action built-in policy `code` picks at the current decision (params[P_BAN]: the
    options the seat may not use)."""
    if code == POLICY_RANDOM:
        return choose_random(s, pr, stream, buf, np.int64(params[P_BAN]))
    if code == POLICY_GREEDY:
        return choose_greedy(s, pr, stream, buf, w, np.int64(params[P_BAN]))
    if code == POLICY_HEURISTIC:
        return choose_heuristic(s, pr, stream, buf, w, params, values)
    if code == POLICY_LOOKAHEAD:
        return choose_lookahead(s, pr, stream, buf, w, params, values, s2, buf2, pool)
    return choose_ismcts(s, pr, stream, buf, w, params, values, s2, buf2, pool, tree)


@njit(cache=True)
def new_scratch(pr):
    """Policies' work arrays: greedy's, candidate values, a rollout state and buffer, a pool,
    and the ismcts tree (about 0.6 MB, its pages touched only by the nodes a search uses)."""
    w = np.zeros(work_size(pr), np.int64)
    values = np.zeros(pr.max_actions, np.float64)
    s2 = np.zeros(pr.state_size, np.int32)
    buf2 = np.zeros(pr.max_actions, np.int32)
    pool = np.zeros(pr.ntypes + pr.ndeck, np.int64)
    tree = np.zeros((TREE_ROWS, T_WIDTH), np.float64)
    return w, values, s2, buf2, pool, tree


@dataclass
class PolicyScratch:
    """The scratch arrays for driving built-in policies from Python (sim play, tests)."""

    w: np.ndarray
    values: np.ndarray
    s2: np.ndarray
    buf2: np.ndarray
    pool: np.ndarray
    tree: np.ndarray

    @classmethod
    def for_params(cls, pr: Params) -> PolicyScratch:
        """Scratch sized for one game shape."""
        return cls(*new_scratch(pr))

    def choose(
        self,
        code: int,
        s: np.ndarray,
        pr: Params,
        stream: np.ndarray,
        buf: np.ndarray,
        params: np.ndarray | None = None,
    ) -> int:
        """Run policy `code` for the pending decision of state s."""
        if params is None:
            params = np.zeros(N_PARAMS, np.float64)
        return int(
            choose(
                code,
                s,
                pr,
                stream,
                buf,
                self.w,
                params,
                self.values,
                self.s2,
                self.buf2,
                self.pool,
                self.tree,
            )
        )
