"""ifitfits-sim: a statistical game-balance simulator for the card game If It Fits."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from sim.version import __version__ as __version__

# Every source file whose code or constants numba compiles into the game loop.
COMPILED = ("engine/*.py", "policies/*.py", "specs.py", "results.py", "loop.py")


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
    for path in sorted(path for pattern in COMPILED for path in here.glob(pattern)):
        digest.update(path.name.encode() + path.read_bytes())
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ifitfits-sim"
    cache = root / digest.hexdigest()[:16]
    os.environ["NUMBA_CACHE_DIR"] = str(cache)
    if "numba" in sys.modules:  # imported before us: set its live config too
        sys.modules["numba"].config.CACHE_DIR = str(cache)


_compile_cache_dir()


def run(config, **kwargs):
    """Run a study (a StudyConfig or a YAML path) like `sim run`; returns a RunResult.

    Keyword arguments: jobs, out, resume, quiet, backend, scheduler (as on the command line).
    """
    from sim.config import StudyConfig, load_study
    from sim.runner import run as _run

    study = config if isinstance(config, StudyConfig) or config is None else load_study(config)
    return _run(study, **kwargs)
