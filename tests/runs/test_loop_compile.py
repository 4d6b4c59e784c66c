"""One game loop of every built-in player, with one signature for every caller."""

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


def test_every_lineup_with_a_built_in_player_plays_in_the_one_loop_of_them_all():
    present = dispatch.policy_set([POLICY_GREEDY, POLICY_RANDOM, POLICY_GREEDY])
    assert [m is not None for m in present] == [True] * 5
    assert dispatch.policy_set_names(present) == "random, greedy, heuristic, lookahead, ismcts"
    assert _marks(POLICY_RANDOM) == _marks(POLICY_HEURISTIC) == _marks(POLICY_ISMCTS)
    assert _marks(POLICY_LOOKAHEAD, POLICY_GREEDY) == [True] * 5
    assert _marks() == [False] * 5  # Python seats only: no loop
    every = {tuple(_marks(*s)) for s in _subsets(range(dispatch.N_POLICIES))}
    assert len(every) == 2  # one loop, and none


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
    assert [typeof(a) for a in ismcts[-5:]] == [typeof(a) for a in runner[-5:]]  # the same loop


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
study = load_study(sys.argv[1])
if sys.argv[2] == "search":
    study = study.with_overrides(seats=[{"policy": "ismcts"}, {"policy": "lookahead"}] * 2)
play_arrays(study, 0, 2 if sys.argv[2] == "base" else 1)
print(" ".join(sorted(seen)))
"""


@pytest.mark.slow
def test_the_first_run_compiles_every_built_in_player_and_no_study_compiles_again():
    """About a minute of compiling: the base study (random and greedy) on an empty cache
    compiles the one loop, with the heuristic and the search players; then a line-up of
    search players compiles nothing."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}

        def compiled(lineup: str) -> set[str]:
            done = subprocess.run(
                [sys.executable, "-c", _PROBE, str(BASE), lineup],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            return set(done.stdout.split())

        first = compiled("base")
        assert {"chunk_loop", "choose_random", "choose_greedy", "choose_heuristic"} <= first
        assert {"choose_lookahead", "choose_ismcts"} <= first
        assert compiled("search") == set()
