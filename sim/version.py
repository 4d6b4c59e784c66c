"""The package version and the engine version, recorded in every run folder, and the cache
folder whose contents they key (a leaf: anything may import it).

ENGINE_VERSION names the behaviour of the engine and the built-in policies together: the
games a seeded run plays. `--resume` refuses to add games to a folder of another version,
so it must change whenever a seeded result could: a rule, the order in which the random
stream is used, a policy's choice. A refactor or a speed-up that leaves every seeded game
the same keeps it. `tests/test_golden.py` pins seeded runs of every built-in policy and
rule variant to it: when behaviour changes, that test fails until the version is bumped
and the pins are taken again (`python -m tests.test_golden --pin`).

History: 1 — up to issue 20; 2 — the same rules, bumped when the golden pins were
introduced (version 1 had covered several changes of turn flow and policies unpinned, so
folders written under it may hold games of different behaviour); 3 — greedy breaks a tie with
one draw per decision, uniform among the tied actions as before, instead of one draw per tied
action (the same rules and the same distribution of play, but other games under a given seed).
"""

import os
from pathlib import Path

__version__ = "0.1.0"
ENGINE_VERSION = 3


def cache_root() -> Path:
    """The user's cache folder of this tool (`$XDG_CACHE_HOME`, else ~/.cache): numba's
    compiled engine and the fitted feel models live under it, keyed by what they depend on."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ifitfits-sim"
