"""numba compiles without AVX-512 (`sim._vector_width`), unless NUMBA_CPU_FEATURES is set,
and the compile cache is keyed by the features (as by the optimisation level)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import llvmlite.binding as llvm

PROBE = (
    "import json, os, sim, numba;"
    "print(json.dumps([os.environ.get('NUMBA_CPU_FEATURES'), numba.config.CPU_FEATURES,"
    " os.environ['NUMBA_CACHE_DIR']]))"
)


def _probe(**env) -> list:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_FEATURES", "NUMBA_CACHE_DIR")
    }
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_the_features_drop_avx512_only_where_the_machine_has_it():
    env, live, _ = _probe()
    host = llvm.get_host_cpu_features()
    if not any(on and name.startswith("avx512") for name, on in host.items()):
        assert env is None and live is None  # nothing to drop: numba's own choice
        return
    assert env == live
    kept = dict((item[1:], item[0] == "+") for item in env.split(","))
    assert kept.keys() == host.keys()
    assert not any(on for name, on in kept.items() if name.startswith("avx512"))
    assert all(kept[name] == on for name, on in host.items() if not name.startswith("avx512"))


def test_features_set_by_the_user_win_and_key_the_cache():
    mine = "+64bit,+sse2"
    env, live, cache = _probe(NUMBA_CPU_FEATURES=mine)
    assert env == live == mine
    assert _probe()[2] != cache
