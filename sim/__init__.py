"""ifitfits-sim: a statistical game-balance simulator for the card game If It Fits."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from sim.version import __version__ as __version__
from sim.version import cache_root

# Every source file whose code or constants numba compiles into the game loop.
COMPILED = (
    "engine/*.py",
    "policies/*.py",
    "specs.py",
    "runs/results.py",
    "runs/loop.py",
    "feel/chances.py",  # its constants, read by the feel kernel
    "feel/kernel.py",
    "analysis/cs_kernel.py",
    "analysis/moment_sums.py",
    "pairwise.py",
    "table/rollout.py",
)


def _optimisation_level() -> None:
    """Have numba's LLVM optimise at level 2 (its default is 3), unless NUMBA_OPT is set.

    Measured pairwise on the base study's loop, all-greedy games and the random kernel,
    level 2 plays as fast as level 3 (0.87-1.10, within the machine's noise) and compiles
    the base study about 12% faster (59 s against 67 s on an idle core). The optimisation
    level cannot change a result: the engine is integer code, and without fastmath LLVM
    keeps every floating-point operation exact at any level. numba reads the variable when
    it is first imported, so this runs before anything imports it.
    """
    os.environ.setdefault("NUMBA_OPT", "2")


def _vector_width() -> None:
    """Have numba compile for this machine without its AVX-512 instructions, unless
    NUMBA_CPU_FEATURES is set.

    With AVX-512, LLVM keeps 512-bit registers live across the policies' many calls, and
    every call saves and restores them. Measured pairwise on an AMD EPYC (Zen 4) core, best
    of five in one process each: ISMCTS decisions 1.00-1.05x as fast (six pairs), the
    look-ahead 0.99-1.07x, greedy games 1.01-1.07x (four), the random kernel 0.93-1.03x
    (four, within its noise); a cold compile about the same (three pairs).
    The instructions chosen cannot change a result: the engine is integer code, and without
    fastmath LLVM keeps every floating-point operation as written whatever the vector width.
    numba reads the variable when it is first imported, so this runs before anything
    imports it (a process that compiled with numba before importing sim keeps its features).
    """
    if "NUMBA_CPU_FEATURES" in os.environ:
        return
    import llvmlite.binding as llvm

    try:
        features = llvm.get_host_cpu_features()
    except RuntimeError:  # LLVM cannot tell on this machine: numba's own choice stands
        return
    if not any(on and name.startswith("avx512") for name, on in features.items()):
        return
    kept = ",".join(
        ("-" if name.startswith("avx512") or not on else "+") + name
        for name, on in sorted(features.items())
    )
    os.environ["NUMBA_CPU_FEATURES"] = kept
    if "numba" in sys.modules:
        sys.modules["numba"].config.CPU_FEATURES = kept


def _compile_cache_dir() -> None:
    """Key numba's compile cache by every compiled source file.

    numba checks a cached function only against its own file, but our hot
    functions inline code from other modules; a cache keyed by all of them
    can never serve stale machine code after an edit. NUMBA_CACHE_DIR, if
    set by the user, wins.
    """
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    # Machine code of another optimisation level is as correct, but a fresh cache per level
    # makes sure the tests run the code this level compiles.
    digest.update(b"NUMBA_OPT=" + os.environ.get("NUMBA_OPT", "").encode())
    digest.update(b"NUMBA_CPU_FEATURES=" + os.environ.get("NUMBA_CPU_FEATURES", "").encode())
    for path in sorted(path for pattern in COMPILED for path in here.glob(pattern)):
        digest.update(path.name.encode() + path.read_bytes())
    cache = cache_root() / digest.hexdigest()[:16]
    os.environ["NUMBA_CACHE_DIR"] = str(cache)
    if "numba" in sys.modules:  # imported before us: set its live config too
        sys.modules["numba"].config.CACHE_DIR = str(cache)


_optimisation_level()
_vector_width()
_compile_cache_dir()


def run(config, **kwargs):
    """Run a study (a StudyConfig or a YAML path) like `sim run`; returns a RunResult.

    Keyword arguments as on the command line: jobs, backend, scheduler, quiet (the
    workers) and out, resume, games, seed, until ("decided"), max_games (the request).
    """
    from sim.config import StudyConfig, load_study
    from sim.runs import Request, Workers
    from sim.runs import run as _run

    study = config if isinstance(config, StudyConfig) or config is None else load_study(config)
    workers = Workers(**{k: kwargs.pop(k) for k in Workers.KEYS if k in kwargs})
    return _run(study, Request.of(**kwargs), workers)


def load_run(run_dir):
    """Open a finished run folder: its tables (games, players, cards, turns) and run.json."""
    from sim.runs import load_run as _load_run

    return _load_run(run_dir)


def load_map(folder):
    """Open a map folder (`sim map`): `.predict({"deck.sprayers": 5})` gives each emulated
    metric's estimate and 95% interval there as a DataFrame."""
    from sim.space_map.predict import load_map as _load_map

    return _load_map(folder)


def build_report(run, out_path=None, force=False, *, quiet=False):
    """Write the HTML report of a finished run (a run folder or a RunResult) and return its
    path (default: the study's report.path, else reports/<name>.html), as `sim report` does
    without its copy in the run folder: the played parts of the page (the deck scan and the
    representative game) come from `sim.studies.run_page`, the page from `sim.report`."""
    from sim.report.run_report import write_report
    from sim.runs import RunResult
    from sim.runs import load_run as _load_run
    from sim.runs.partials import run_data
    from sim.studies.run_page import page_plays, representative

    run = run if isinstance(run, RunResult) else _load_run(run)
    return write_report(
        run, page_plays(run, representative(run_data(run)[1])), out_path, force, quiet=quiet
    )
