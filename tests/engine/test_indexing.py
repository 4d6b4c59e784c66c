"""The indexing patch (`sim.engine.indexing`): in the compiled functions of the engine, the
players, the runs' loops and the continuations a signed index is used as it is, without
Python's wraparound; everywhere else numba keeps the rule.

A negative index in the engine would now read outside its array, so the slow test reruns the
default suite with numba's bounds checks on: those checks see the index as it is and fail on
a negative one (with the wraparound they saw it after the wrap). The default tests check the
mechanism in a fresh process."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba.np import arrayobj

import sim.engine.table  # noqa: F401  (applies the patch, as every compiled module does)
from sim.engine import indexing

ROOT = Path(__file__).resolve().parents[2]


def test_numba_is_the_one_the_patch_was_written_for():
    assert indexing.unwrapped_indices()
    assert arrayobj.fix_integer_index is indexing._fix_integer_index


def test_only_the_game_packages_functions_are_ours():
    assert indexing.ours("_ZN3sim6engine5table10place_cardB3v54B40c8tJTIeFIjxB2IKSgI4")
    assert indexing.ours("_ZN3sim8policies8compiled13choose_randomB3v9")
    assert indexing.ours("_ZN3sim4runs4loop10chunk_loopB2v1")
    assert indexing.ours("_ZN3sim5table7rollout8_play_onB2v1")
    assert not indexing.ours("_ZN3sim4feel6forest8_predictB2v1")  # the pure floor keeps it
    assert not indexing.ours("_ZN3sim8analysis9cs_kernel11_log_e_oneB2v1")
    assert not indexing.ours("_ZN3sim7engines5probeB2v1")  # another module's name
    assert not indexing.ours("_ZN5numba2np8arrayobj11ol_np_emptyB2v2")
    assert not indexing.ours("_ZN7cpython3sim6engine8fastplay12random_turnsB2v1")  # wrapper
    assert not indexing.ours("_ZN8__main__5probeB2v1")


def _compiled_modules() -> list[str]:
    """The modules of the PACKAGES that define compiled functions."""
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for package in indexing.PACKAGES
        for path in (ROOT / package.replace(".", "/")).glob("*.py")
        if "@njit" in path.read_text()
    )


def _imports_at_the_top(module: str) -> set[str]:
    tree = ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())
    return {node.module for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}


def test_every_compiled_module_of_the_packages_applies_the_patch_before_it_compiles():
    """A module compiling before the patch is on would index with the wraparound, in a cache
    entry every later process loads: so each imports, at its top, the patch, the module that
    applies it (`sim.engine.table`), or a compiled module that does."""
    modules = _compiled_modules()
    assert "sim.engine.turns" in modules and "sim.table.rollout" in modules
    applies = {"sim.engine.indexing", "sim.engine.table"}
    left = set(modules) - applies
    while True:
        more = {m for m in left if _imports_at_the_top(m) & applies}
        if not more:
            break
        applies |= more
        left -= more
    assert left == set()
    table = _imports_at_the_top("sim.engine.table")
    assert "sim.engine.indexing" in table


# In a fresh process with numba's bounds checks on: read a[i] for i = -1 in a function of an
# engine module compiled before and after the patch, and in two of other modules after it.
_PROBE = """
import json
import numpy as np
from numba import njit

def probe_in(module):
    scope = {"__name__": module}
    exec("def probe(a, i):\\n    return a[i]", scope)
    return njit(cache=False)(scope["probe"])

def read(module):
    try:
        return int(probe_in(module)(np.arange(5), -1))
    except IndexError:
        return "IndexError"

out = {"engine, plain numba": read("sim.engine.probe_a")}
from sim.engine.indexing import unwrapped_indices
out["patched"] = unwrapped_indices()
out["engine, patched"] = read("sim.engine.probe_b")
out["feel, patched"] = read("sim.feel.probe")
out["elsewhere, patched"] = read("plugin.probe")
print(json.dumps(out))
"""


def _with_bounds_checks(args: list[str], cache: Path, timeout: int) -> subprocess.CompletedProcess:
    """Run Python with these arguments in a fresh process, numba's bounds checks on, compiling
    into the `cache` folder."""
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_a_negative_index_is_left_as_it_is_in_the_engines_code_only(tmp_path):
    done = _with_bounds_checks(["-c", _PROBE], tmp_path, 300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "engine, plain numba": 4,  # wrapped to a[4], then checked: in bounds
        "patched": True,
        "engine, patched": "IndexError",  # as it is: -1, out of bounds
        "feel, patched": 4,  # Python's rule kept outside the game's packages
        "elsewhere, patched": 4,
    }


@pytest.mark.slow
def test_no_compiled_code_of_the_game_indexes_below_zero(tmp_path):
    """The default suite (every rule, variant, built-in player, loop and study), its compiled
    code compiled afresh with bounds checks on: about five minutes on two cores."""
    pytest_args = ["-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "2"]
    done = _with_bounds_checks([*pytest_args, "--dist", "loadfile", "tests"], tmp_path, 3600)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout.strip().splitlines()[-1]
