"""The game loop is compiled per policy set, with one signature for every caller."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from numba import typeof

from sim.config import load_study
from sim.policies import dispatch
from sim.runs.lineup import engine_for, lineup_policies, lineup_slots
from sim.runs.loop import chunk_args
from sim.specs import (
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
)

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"


def _marks(*codes: int) -> list[bool]:
    return [m is not None for m in dispatch.policy_set(codes)]


def test_a_lineup_plays_in_the_smallest_of_three_loops_that_holds_its_policies():
    present = dispatch.policy_set([POLICY_GREEDY, POLICY_RANDOM, POLICY_GREEDY])
    assert [m is not None for m in present] == [True, True, False, False, False]
    assert dispatch.policy_set_names(present) == "random, greedy"
    assert _marks(POLICY_RANDOM) == _marks(POLICY_GREEDY) == [True, True, False, False, False]
    assert (
        _marks(POLICY_HEURISTIC)
        == _marks(POLICY_HEURISTIC, POLICY_RANDOM)
        == [True] * 3 + [False] * 2
    )
    assert _marks(POLICY_ISMCTS) == _marks(POLICY_LOOKAHEAD, POLICY_GREEDY) == [True] * 5
    assert _marks() == [False] * 5  # Python seats only: no loop
    every = {tuple(_marks(*s)) for s in _subsets(range(dispatch.N_POLICIES))}
    assert len(every) == 4  # three loops, and none


def _subsets(codes):
    codes = list(codes)
    return [[c for i, c in enumerate(codes) if mask >> i & 1] for mask in range(1 << len(codes))]


def test_every_caller_gets_one_signature():
    """The runner's call (replays given) and the bench's (default replays, a sliced line-up)
    type alike, so the second compiles nothing."""
    study = load_study(BASE)
    engine = engine_for(study.game)
    codes, params = lineup_policies(study)
    slots = lineup_slots(study, 0, 10)
    runner = chunk_args(engine.pr, engine.blank, study.seed, 0, 10, slots, codes, params, 0)
    bench = chunk_args(engine.pr, engine.blank.copy(), study.seed, 0, 2, slots[:2], codes, params)
    assert tuple(typeof(a) for a in runner) == tuple(typeof(a) for a in bench)
    ismcts = chunk_args(
        engine.pr, engine.blank, 1, 0, 1, slots[:1], np.array([POLICY_ISMCTS] * 4), params
    )
    assert [typeof(a) for a in ismcts[-5:]] != [typeof(a) for a in runner[-5:]]  # another loop


_PROBE = """
import sys
from numba.core import event
seen = set()
class L(event.Listener):
    def on_start(self, ev):
        seen.add(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", L())
from sim.config import load_study
from sim.runs.play import play_arrays
play_arrays(load_study(sys.argv[1]), 0, 2)
print(" ".join(sorted(seen)))
"""


@pytest.mark.slow
def test_base_study_compiles_no_search_player_on_a_fresh_cache():
    """About a minute of compiling: the base study (random and greedy) on an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, str(BASE)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
    compiled = set(done.stdout.split())
    assert {"choose_greedy", "chunk_loop"} <= compiled  # choose_random is inlined
    assert not compiled & {"choose_heuristic", "choose_lookahead", "choose_ismcts"}
