"""numba's inliner made to copy a callee's scope once per inlining (`sim.engine.inliner`):
the same compiled code, less copying. The default tests check the mechanism on a small
function; the slow one compiles the engine twice from empty caches, with and without it,
and compares the games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit
from numba.core import ir
from numba.core.inline_closurecall import InlineWorker

import sim.engine.table  # noqa: F401  (applies the patch, as every compiled module does)
from sim.engine.inliner import share_scope_copies

ROOT = Path(__file__).resolve().parents[2]


@njit(inline="always")
def _branchy(x):  # several blocks, each of which the plain inliner copied the scope for
    total = 0
    for i in range(x):
        if i % 3 == 0:
            total += i
        elif i % 3 == 1:
            total -= 1
        else:
            total *= 2
    return total


def _branchy_py(x):
    return _branchy.py_func(x)


def test_numba_is_the_one_the_patch_was_written_for():
    assert share_scope_copies()  # False would mean this numba's inliner is left as it is


def _compile_and_count_var_copies() -> int:
    """Compile a fresh caller of `_branchy`, check it, and count the variables copied."""
    copies = 0
    real = ir.Var.__deepcopy__

    def counting(var, memo):
        nonlocal copies
        copies += 1
        return real(var, memo)

    ir.Var.__deepcopy__ = counting
    try:

        @njit
        def caller(x):
            return _branchy(x) + 1

        assert [caller(n) for n in (0, 1, 7, 40)] == [_branchy_py(n) + 1 for n in (0, 1, 7, 40)]
    finally:
        ir.Var.__deepcopy__ = real
    return copies


def test_an_inlined_function_computes_the_same_with_far_fewer_copies(monkeypatch):
    shared = _compile_and_count_var_copies()
    monkeypatch.delattr(ir.Scope, "__deepcopy__")  # numba's own inliner, as it comes
    monkeypatch.setattr(InlineWorker, "inline_ir", InlineWorker.inline_ir.__wrapped__)
    plain = _compile_and_count_var_copies()
    assert 0 < shared < plain / 3  # the scope's variables once per copy, not once per block


_PLAY = """
import hashlib, json, sys
if sys.argv[1] == "plain":
    import sim.engine.inliner as inliner
    inliner.share_scope_copies = lambda: False  # before sim.engine.table imports it
from sim.config import load_study
from sim.runs.play import play_arrays
base = load_study("configs/base.yaml")
out = {}
for name, seats in (("base", None), ("heuristic", [{"policy": "heuristic"}] * 4)):
    study = base if seats is None else base.with_overrides(seats=seats)
    a = play_arrays(study, 0, 200)
    out[name] = hashlib.sha256(a.games.tobytes() + a.seats.tobytes() + a.cards.tobytes()
                               + a.trace.tobytes()).hexdigest()
print(json.dumps(out))
"""


@pytest.mark.slow
def test_the_engine_compiled_with_and_without_it_plays_the_same_games(tmp_path):
    def games(which: str) -> dict:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / which)}
        done = subprocess.run(
            [sys.executable, "-c", _PLAY, which],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
            check=True,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])

    assert games("plain") == games("shared")
