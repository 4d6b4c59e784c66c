"""A faster first compile: a game loop's own code optimised, its callees linked as they are.

numba compiles each function into a library of its own and, to finish it
(`numba.core.codegen.CPUCodeLibrary.finalize`), links in the whole code of every function it
calls, each already optimised in its own library, and runs LLVM's full optimisation over the
lot. A game loop calls the policies and the engine, so finishing one re-optimised the whole
program, once per loop (and once per set of players the continuations compile): about a
third of each loop's compile, for code optimised before. `own_code_only` marks such a
function: its own module is optimised first and its callees linked in after, as they are.
Its calls stay calls, as they are meant to: the game loops (`sim.runs.loop.chunk_loop`, the
continuations' `sim.table.rollout._play_on`) and the search players' choices call the
policies, the engine's turn and the rollouts' policy as compiled functions, and marking them
measured no change in the speed of play. Greedy's and the heuristic's choices are left as
numba finishes them: marking every library so cost 10-17% of the speed of play, those two
about 4% (docs/dev/performance-log.md).

The games are the same: integer code, and without fastmath LLVM keeps every floating-point
operation as written (`tests/engine/test_inliner.py` compiles the engine with and without
both compile patches and compares the games). Applied only on a numba whose `finalize` is the
one this was written against; on another, numba runs unchanged.
"""

from __future__ import annotations

import hashlib
import inspect

from numba.core import codegen
from numba.core.compiler_lock import require_global_compiler_lock

# numba's finalize as this was written against (0.68), by the hash of its source: another
# version may finish a library differently, and is then left alone.
_WRITTEN_FOR = "4b4c34b83488a72f"
_OWN_ONLY: set[str] = set()  # the marked functions' qualified names (numba names a library so)
_patched: bool | None = None  # None: not tried yet


def own_code_only(dispatcher):
    """Mark a compiled top-level function (a decorator, over `njit`): LLVM optimises its own
    code and links the code it calls as it is. Returns the dispatcher."""
    if _patch():
        _OWN_ONLY.add(dispatcher.py_func.__qualname__)
    return dispatcher


def is_patched() -> bool:
    """Is numba's finalize this module's (a numba this was written for)?"""
    return bool(_patch())


def _patch() -> bool:
    global _patched
    if _patched is None:
        _patched = replace_if_written_for(
            codegen.CPUCodeLibrary, "finalize", _finalize, _WRITTEN_FOR
        )
    return _patched


def replace_if_written_for(owner, name: str, replacement, digest: str) -> bool:
    """Put `replacement` in place of owner.name (kept as its `__wrapped__`) if the source of
    owner.name hashes to `digest` (the first 16 hex digits of its sha256): the numba code a
    patch was written against. Whether it did."""
    plain = getattr(owner, name)
    try:
        source = inspect.getsource(plain)
    except (OSError, TypeError):  # no source to read: an unknown numba
        return False
    if hashlib.sha256(source.encode()).hexdigest()[:16] != digest:
        return False
    replacement.__wrapped__ = plain
    setattr(owner, name, replacement)
    return True


def _finalize(self) -> None:
    """numba's `CPUCodeLibrary.finalize`, with the module pass before the linking for a marked
    function's library."""
    if self.name not in _OWN_ONLY:
        return _finalize.__wrapped__(self)
    require_global_compiler_lock()
    self._codegen._check_llvm_bugs()
    self._raise_if_finalized()
    self._optimize_final_module()  # the library's own functions; its callees only declared
    seen = set()
    for library in self._linking_libraries:
        if library not in seen:
            self._reload_init.update(library._reload_init)  # as numba's: the parent inherits
            seen.add(library)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
    self._final_module.verify()
    self._finalize_final_module()
    return None
