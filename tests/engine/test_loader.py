"""The start-up patches (`sim.engine.loader`): numba loads cached machine code initialising only
its runtime, not every registry of its compiler, and parses a library's shared bitcode only
when a compile links against it. A process that loads the game loop from the cache so plays
the very games a process with numba's own load plays, never imports the registries it
skipped, never parses a bitcode it does not link, and still compiles anything new, a function
that calls the loaded code included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import llvmlite.binding as llvm
from numba.core import caching, codegen

import sim.engine.table  # noqa: F401  (applies the patch, as every compiled module does)
from sim.config import load_study
from sim.engine import loader
from sim.runs.play import load_engine

ROOT = Path(__file__).resolve().parents[2]

# In a fresh process: load the base study's loop (from the cache), play 300 games, then
# compile a new function that needs a registry the light load skipped, and one that calls a
# function loaded from the cache (linking its library: its bitcode parsed then).
PLAY = """
import hashlib, json, sys
import llvmlite.binding as ll
parsed = []
real_parse = ll.parse_bitcode
def counted(data):
    parsed.append(len(data))
    return real_parse(data)
ll.parse_bitcode = counted
if sys.argv[1] == "plain":
    import sim.engine.loader as loader
    loader._patched = loader._lazy = False  # numba's own load_overload and _unserialize
from sim.config import load_study
from sim.runs.play import play_arrays
chunk = play_arrays(load_study("configs/base.yaml"), 0, 300)
digest = hashlib.sha256(chunk.games.tobytes() + chunk.cards.tobytes()).hexdigest()
skipped = "numba.np.linalg" not in sys.modules
loads = len(parsed)
import numpy as np
from numba import njit
from sim.engine.rng import game_words
norm = njit(lambda x: np.linalg.norm(x))(np.ones(4))
words = int(game_words(np.int64(7), np.int64(3), np.int64(4)).sum())
linked = int(njit(lambda r: game_words(r, np.int64(3), np.int64(4)).sum())(np.int64(7)))
print(json.dumps({"games": digest, "skipped": skipped, "norm": norm, "loads": loads,
                  "words": words, "linked": linked}))
"""


def test_the_patches_are_on_for_this_numba():
    assert loader.light_cache_loads() and loader._lazy
    assert caching.Cache.load_overload is loader._load_overload
    assert codegen.CPUCodeLibrary._unserialize.__func__ is loader._lazy_unserialize


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
    assert seen["light"]["loads"] == 0 < seen["plain"]["loads"]  # no bitcode parsed to play
    assert seen["light"]["linked"] == seen["light"]["words"] == seen["plain"]["linked"]


def test_the_names_a_library_defines_are_its_bitcodes_but_private_constants():
    """What numba's symbol lookups see of a loaded library: the names its object code defines
    are those its shared bitcode defines, less the private constants no lookup asks for."""
    from sim.engine.rng import game_words

    game_words(7, 3, 4)  # in the cache from here on
    cache, (signature,) = game_words._cache, list(game_words.overloads)
    stored = cache._cache_file.load(cache._index_key(signature, game_words.targetctx.codegen()))
    name, kind, (object_code, bitcode) = stored[0]  # numba's serialized library
    module = llvm.parse_bitcode(bitcode)
    values = [*module.functions, *module.global_variables]
    defined = {value.name for value in values if not value.is_declaration}
    found = loader.defined_names(object_code)
    assert kind == "object" and name == "game_words" and found and found <= defined
    assert all(name.startswith(".const.") for name in defined - found)
