"""The start-up patch (`sim.engine.loader`): numba loads cached machine code initialising only
its runtime, not every registry of its compiler. A process that loads the game loop from the
cache so plays the very games a process with numba's own load plays, never imports the
registries it skipped, and still compiles anything new."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from numba.core import caching

import sim.engine.table  # noqa: F401  (applies the patch, as every compiled module does)
from sim.config import load_study
from sim.engine import loader
from sim.runs.play import load_engine

ROOT = Path(__file__).resolve().parents[2]

# In a fresh process: load the base study's loop (from the cache), play 300 games, then
# compile a new function that needs a registry the light load skipped.
PLAY = """
import hashlib, json, sys
if sys.argv[1] == "plain":
    import sim.engine.loader as loader
    loader._patched = False  # numba's own load_overload
from sim.config import load_study
from sim.runs.play import play_arrays
chunk = play_arrays(load_study("configs/base.yaml"), 0, 300)
digest = hashlib.sha256(chunk.games.tobytes() + chunk.cards.tobytes()).hexdigest()
skipped = "numba.np.linalg" not in sys.modules
import numpy as np
from numba import njit
norm = njit(lambda x: np.linalg.norm(x))(np.ones(4))
print(json.dumps({"games": digest, "skipped": skipped, "norm": norm}))
"""


def test_the_patch_is_on_for_this_numba():
    assert loader.light_cache_loads()
    assert caching.Cache.load_overload is loader._load_overload


def test_a_light_load_plays_the_same_games_and_still_compiles(tmp_path):
    load_engine(load_study(ROOT / "configs" / "base.yaml"), say=False)  # the cache is warm
    seen = {}
    for how in ("light", "plain"):
        out = subprocess.run(
            [sys.executable, "-c", PLAY, how], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr[-2000:]
        seen[how] = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["light"]["games"] == seen["plain"]["games"]
    assert seen["light"]["skipped"] and not seen["plain"]["skipped"]  # what the patch spares
    assert seen["light"]["norm"] == seen["plain"]["norm"] == 2.0  # a compile after it works
