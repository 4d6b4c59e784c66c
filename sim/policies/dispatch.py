"""The built-in policies' policy sets and the scratch space they share.

The compiled game loop (`sim.runs.loop.chunk_loop`) is compiled for a set of policies:
`policy_set` marks each built-in policy present (1) or absent (None) in the loop (LOOPS)
that holds every policy the line-up uses, and the loop prunes an absent policy's branch
before typing. There is one loop, of every built-in player, so the first run after install
compiles what every later study needs, once. From Python
(`PolicyScratch.choose`: sim play, the tests, the duel), each policy's own
compiled function is called directly, so only that one compiles.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from sim.engine.state import ParamsRecord
from sim.policies.compiled import choose_greedy, choose_random
from sim.policies.heuristic import choose_heuristic
from sim.policies.ismcts import T_WIDTH, choose_ismcts, tree_rows
from sim.policies.lookahead import choose_lookahead
from sim.policies.work import work_size
from sim.specs import (
    N_PARAMS,
    P_BAN,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
)

TREE_ROWS = tree_rows()
N_POLICIES = 5  # the built-in policy codes are 0..4 (sim.specs POLICY_*)


# The loops there are, smallest first: a line-up plays in the first that holds every policy it
# uses. One loop of every built-in player: the first run after install compiles it and no
# study compiles again (with a loop per set of players, the first `sim advise` and `sim
# ladder` each compiled their own, minutes under load), for less in all than three loops,
# as the heuristic's and the search players' own code is most of theirs and each loop
# compiled the engine's turn and its callees again (docs/dev/performance-log.md). A branch
# of a policy no seat plays is one untaken test per decision (measured there too).
LOOPS = (frozenset(range(N_POLICIES)),)


def policy_set(codes: Iterable[int]) -> tuple:
    """The compile-time mark of the loop a line-up plays in: per code, 1 if the loop holds the
    policy (the first of LOOPS that holds every one the line-up uses), else None. No built-in
    policy (Python seats only): no loop, every mark None."""
    used = {int(c) for c in codes}
    loop = next(s for s in LOOPS if used <= s) if used else frozenset()
    return tuple(np.int64(1) if code in loop else None for code in range(N_POLICIES))


def policy_set_names(present: tuple) -> str:
    """The policies a mark names, for messages ('random, greedy')."""
    from sim.specs import POLICIES

    names = {spec.code: name for name, spec in POLICIES.items()}
    return ", ".join(names[c] for c, mark in enumerate(present) if mark is not None)


def scratch_arrays(pr: ParamsRecord) -> tuple[np.ndarray, ...]:
    """Policies' work arrays: greedy's, candidate values, a rollout state and buffer, a pool,
    and the ismcts tree (about 0.6 MB, its pages touched only by the nodes a search uses).
    Made in Python, for the compiled loop and for driving a policy from Python alike."""
    return (
        np.zeros(work_size(pr), np.int64),
        np.zeros(pr.max_actions, np.float64),
        np.zeros(pr.state_size, np.int32),
        np.zeros(pr.max_actions, np.int32),
        np.zeros(pr.ntypes + pr.ndeck, np.int64),
        np.zeros((TREE_ROWS, T_WIDTH), np.float64),
    )


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
    def for_params(cls, pr: ParamsRecord) -> PolicyScratch:
        """Scratch sized for one game shape."""
        return cls(*scratch_arrays(pr))

    def choose(
        self,
        code: int,
        s: np.ndarray,
        pr: ParamsRecord,
        stream: np.ndarray,
        buf: np.ndarray,
        params: np.ndarray | None = None,
    ) -> int:
        """Run policy `code` for the pending decision of state s (only its own code compiles)."""
        if params is None:
            params = np.zeros(N_PARAMS, np.float64)
        ban = np.int64(params[P_BAN])
        if code == POLICY_RANDOM:
            return int(choose_random(s, pr, stream, buf, ban))
        if code == POLICY_GREEDY:
            return int(choose_greedy(s, pr, stream, buf, self.w, ban))
        if code == POLICY_HEURISTIC:
            return int(choose_heuristic(s, pr, stream, buf, self.w, params, self.values))
        if code == POLICY_LOOKAHEAD:
            return int(
                choose_lookahead(
                    s, pr, stream, buf, self.w, params, self.values, self.s2, self.buf2, self.pool
                )
            )
        if code == POLICY_ISMCTS:
            return int(
                choose_ismcts(
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
        raise ValueError(f"unknown built-in policy code {code}")
