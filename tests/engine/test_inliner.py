"""The two compile patches: numba's inliner made to copy a callee's scope once per inlining
(`sim.engine.inliner`: the same compiled code, less copying), and a game loop's own code
optimised before its callees are linked (`sim.engine.linker`). The default tests check each
mechanism on a small function; the slow one compiles the engine twice from empty caches,
with and without both (and the indexing patch, `sim.engine.indexing`), and compares the
games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit
from numba.core import codegen, ir
from numba.core.inline_closurecall import InlineWorker

import sim.engine.table  # noqa: F401  (applies the patch, as every compiled module does)
from sim.engine.inliner import share_scope_copies
from sim.engine.linker import is_patched, own_code_only

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


@njit(cache=False)
def _callee(x):
    return x * 3 + 1


def _finish_order(marked: bool) -> dict:
    """Compile a fresh caller of `_callee`, marked or not, and say whether `_callee`'s code was
    in the caller's module when LLVM optimised it (numba's order: linked first)."""
    seen = {}
    real = codegen.CPUCodeLibrary._optimize_final_module
    name = "_top_marked" if marked else "_top_plain"

    def spying(self):
        if self.name.endswith(name):
            functions = self._final_module.functions
            seen["callee defined"] = any(
                "_callee" in fn.name and not fn.is_declaration for fn in functions
            )
        return real(self)

    def top(x):
        return _callee(x) - 1

    top.__name__ = top.__qualname__ = name
    codegen.CPUCodeLibrary._optimize_final_module = spying
    try:
        compiled = njit(cache=False)(top)
        compiled = own_code_only(compiled) if marked else compiled
        seen["value"] = compiled(5)
    finally:
        codegen.CPUCodeLibrary._optimize_final_module = real
    return seen


def test_numba_is_the_one_the_linker_patch_was_written_for():
    assert is_patched()  # False would mean this numba finishes its libraries as it comes


def test_a_marked_loop_is_optimised_before_its_callees_are_linked_and_computes_the_same():
    assert _finish_order(marked=False) == {"callee defined": True, "value": 15}
    assert _finish_order(marked=True) == {"callee defined": False, "value": 15}


_PLAY = """
import hashlib, json, sys
if sys.argv[1] == "plain":
    import sim.engine.indexing as indexing
    import sim.engine.inliner as inliner
    import sim.engine.linker as linker
    indexing._patched = False  # numba's wraparound, as it comes
    inliner.share_scope_copies = lambda: False  # before sim.engine.table imports it
    linker._patched = False  # before the game loop's module marks its loop
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
