"""A faster start: numba loads cached machine code without loading its compiler's registries.

Before numba loads a function from its cache (`numba.core.caching.Cache.load_overload`) it
refreshes the target context: it imports and installs every typing and lowering registry of
its compiler (numpy's linear algebra and array math, the typed containers, ...), about 0.4
CPU-s at a process's first load, though rebuilding cached machine code needs none of them,
only numba's runtime (NRT), which the code calls. `light_cache_loads` makes a cached load
initialise the runtime alone. A compile still refreshes everything first (numba's compiler
does so on every compile, `numba.core.compiler.CompilerBase`), and a lowering that misses an
implementation loads the registries itself (`BaseContext.get_function`), so a cache miss
compiles as before. The machine code run is the cached code either way: the same games
(`tests/engine/test_loader.py`). Loading the game loop in a new process: 0.54-0.59 s, then
0.15 s (docs/dev/performance-log.md).

Applied once, by `sim.engine.table` (which every compiled module imports), and only on the
numba whose `load_overload` this was written against; on another, numba runs unchanged.
"""

from __future__ import annotations

from numba.core import caching
from numba.core.runtime import rtsys

from sim.engine.linker import replace_if_written_for

# numba's load_overload as this was written against (0.68), by the hash of its source: another
# version may need more of its context to rebuild a cached function, and is then left alone.
_WRITTEN_FOR = "49a98e578d710b9b"
_patched: bool | None = None  # None: not tried yet


def light_cache_loads() -> bool:
    """Patch numba's cached loads to initialise only the runtime; whether it is (now) on."""
    global _patched
    if _patched is None:
        _patched = replace_if_written_for(
            caching.Cache, "load_overload", _load_overload, _WRITTEN_FOR
        )
    return _patched


def _load_overload(self, sig, target_context):
    """numba's `Cache.load_overload`, with the runtime initialised in place of the refresh."""
    rtsys.initialize(target_context)  # what cached code calls: the reference-counting runtime
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)
    # None returned if the `with` block swallows an exception (as numba's)
