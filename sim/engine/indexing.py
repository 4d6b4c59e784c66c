"""Faster play: array indices in the game's compiled code are used as they are.

numba compiles `a[i]` for a signed integer `i` as `a[i + len(a)]` when `i` is negative
(`numba.np.arrayobj.fix_integer_index`), Python's wraparound. The engine never indexes with
a negative number: its state is one flat buffer read at offsets from zero, and a negative
index would be a bug that the wraparound only hides. The check costs two or three
instructions at every access, and the engine's code is almost all accesses: without it the
random kernel plays about a quarter more games a second (docs/dev/performance-log.md).
`unwrapped_indices` makes numba use a signed index as it is in the functions of the game's
packages only (the engine, the players, the runs' loops, the continuations); every other
compiled function (the analysis' and the feel's kernels, numba's own, a designer's plug-in)
keeps Python's rule.

The games are the same: a non-negative index means the same either way (the golden games and
the rule tests pass unchanged). A negative one would now read outside the array, so
`tests/engine/test_indexing.py` reruns the default suite (every rule, variant, built-in
player and study) with numba's bounds checks on, which then fail on any negative index (a
slow test). Applied once, by `sim.engine.table` (which every compiled module of those
packages imports, but `sim.engine.rng`, which applies it too) before anything of theirs
compiles, and only on the numba whose `fix_integer_index` this was written against; on
another, numba runs unchanged.
"""

from __future__ import annotations

from numba.core import types
from numba.np import arrayobj

from sim.engine.linker import replace_if_written_for

# numba's fix_integer_index as this was written against (0.68), by the hash of its source.
_WRITTEN_FOR = "05fc2c98f4721faa"
# The packages whose compiled code indexes as it is, and how numba's mangled names of their
# functions begin: `_ZN`, then each part of the module's name after its length.
PACKAGES = ("sim.engine", "sim.policies", "sim.runs", "sim.table")
_PREFIXES = tuple("_ZN" + "".join(f"{len(p)}{p}" for p in name.split(".")) for name in PACKAGES)
_patched: bool | None = None  # None: not tried yet


def unwrapped_indices() -> bool:
    """Patch numba to use signed indices as they are in the PACKAGES' functions; whether it is
    (now) on."""
    global _patched
    if _patched is None:
        _patched = replace_if_written_for(
            arrayobj, "fix_integer_index", _fix_integer_index, _WRITTEN_FOR
        )
    return _patched


def ours(function_name: str) -> bool:
    """Is this LLVM function (a numba mangled name) compiled from one of the PACKAGES?"""
    for prefix in _PREFIXES:
        if (
            function_name.startswith(prefix)
            and function_name[len(prefix) : len(prefix) + 1].isdigit()
        ):
            return True
    return False


def _fix_integer_index(context, builder, idxty, idx, size):
    """numba's `fix_integer_index`, without the wraparound in the PACKAGES' functions."""
    if idxty.signed and ours(builder.function.name):
        return context.cast(builder, idx, idxty, types.intp)
    return _fix_integer_index.__wrapped__(context, builder, idxty, idx, size)
