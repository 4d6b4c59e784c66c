"""A position played on to the end in compiled code, for the what-if continuations.

The game loop's own step (`sim.runs.loop.play_game`: each seat's policy by
`sim.policies.dispatch.choose`, then `apply_action`) without its setup, so it
starts from any position. `choose` is inlined as in the game loop, but the
policies and `apply_action` are compiled functions of their own that numba
loads from the engine's compile cache, so this costs a few seconds to compile,
not the engine's minutes. The cache folder is keyed by the compiled files
(`sim.COMPILED`, this one among them), so no change leaves stale code here.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numba import njit

from sim.engine.linker import own_code_only
from sim.engine.state import DEC_OVER, SC_DECISION, SC_SEAT
from sim.engine.turns import apply_action
from sim.policies.compiled import choose_greedy, choose_random
from sim.policies.dispatch import PolicyScratch, policy_set
from sim.policies.heuristic import choose_heuristic
from sim.policies.ismcts import choose_ismcts
from sim.policies.lookahead import choose_lookahead
from sim.specs import (
    P_BAN,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
)


@own_code_only  # as the game loop (`sim.engine.linker`)
@njit(cache=True)
def _play_on(
    s,
    pr,
    streams,
    codes,
    params,
    buf,
    w,
    values,
    s2,
    buf2,
    pool,
    tree,
    random,
    greedy,
    heuristic,
    lookahead,
    ismcts,
):
    """Play the position in s to the end: seat p plays codes[p] with params[p] and its
    stream streams[p] (advanced in place). A policy argument None: no seat plays it, and
    its branch is never compiled (`sim.policies.dispatch.policy_set`, as the game loop)."""
    while s[SC_DECISION] != DEC_OVER:
        p = s[SC_SEAT]
        code, row, stream = codes[p], params[p], streams[p]
        a = np.int32(-1)
        if random is not None:
            if code == POLICY_RANDOM:
                a = choose_random(s, pr, stream, buf, np.int64(row[P_BAN]))
        if greedy is not None:
            if code == POLICY_GREEDY:
                a = choose_greedy(s, pr, stream, buf, w, np.int64(row[P_BAN]))
        if heuristic is not None:
            if code == POLICY_HEURISTIC:
                a = choose_heuristic(s, pr, stream, buf, w, row, values)
        if lookahead is not None:
            if code == POLICY_LOOKAHEAD:
                a = choose_lookahead(s, pr, stream, buf, w, row, values, s2, buf2, pool)
        if ismcts is not None:
            if code == POLICY_ISMCTS:
                a = choose_ismcts(s, pr, stream, buf, w, row, values, s2, buf2, pool, tree)
        apply_action(s, pr, a)


COMPILE_S = "5 s, more on a busy machine"  # 1.6-3.7 CPU-s measured on the 2-core machine


def is_cached() -> bool:
    """Does numba's cache already hold the compiled `_play_on` (else its first use compiles
    it, for about COMPILE_S)?"""
    from numba.core.caching import _CacheLocator

    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache:
        return True  # not ours to say
    code = _play_on.py_func.__code__
    folder = Path(cache) / _CacheLocator.get_suitable_cache_subpath(code.co_filename)
    written = os.stat(code.co_filename).st_mtime  # an index older than the file is stale
    return any(
        index.stat().st_mtime >= written
        for index in folder.glob(f"rollout._play_on-{code.co_firstlineno}.*.nbi")
    )


def play_on(
    s: np.ndarray,
    pr,
    streams: np.ndarray,
    codes: np.ndarray,
    params: np.ndarray,
    buf: np.ndarray,
    scratch: PolicyScratch,
    present: tuple | None = None,
) -> None:
    """Play state s on to the end with built-in policies (codes, params per seat) and the
    seats' streams (players x 1 uint64), in compiled code. `present`: `policy_set(codes)`,
    for a caller that plays on from many positions."""
    _play_on(
        s,
        pr,
        streams,
        codes,
        params,
        buf,
        scratch.w,
        scratch.values,
        scratch.s2,
        scratch.buf2,
        scratch.pool,
        scratch.tree,
        *(policy_set(codes) if present is None else present),
    )
