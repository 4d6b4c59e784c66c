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

A cached library also carries its whole module as LLVM bitcode ("shared bitcode"), which numba
parses at every load (`CPUCodeLibrary._unserialize`) though only a later compile that links
against the library reads it; the game loop's is 1 MB, 50 ms to parse. The patched load keeps
the bytes and parses them when a compile first asks (`_get_module_for_linking`), and takes the
names the library defines, which numba's symbol lookups need, from its object code's symbol
table (ELF: the global and weak symbols defined; the bitcode's names besides those are its
private constants, which no lookup asks for).

Applied once, by `sim.engine.table` (which every compiled module imports), and only on the
numba whose `load_overload` this was written against; on another, numba runs unchanged.
"""

from __future__ import annotations

import struct

import llvmlite.binding as ll
from numba.core import caching, codegen
from numba.core.runtime import rtsys

from sim.engine.linker import replace_if_written_for

# numba's load_overload as this was written against (0.68), by the hash of its source: another
# version may need more of its context to rebuild a cached function, and is then left alone.
_WRITTEN_FOR = "49a98e578d710b9b"
_patched: bool | None = None  # None: not tried yet


# numba's CPUCodeLibrary._unserialize and _get_module_for_linking as the lazy bitcode was
# written against (0.68)
_UNSERIALIZE_FOR = "c83d278d993487f3"
_LINKING_FOR = "56dde0e0555b5ec8"
_lazy: bool | None = None  # None: not tried yet


def light_cache_loads() -> bool:
    """Patch numba's cached loads to initialise only the runtime, and to parse a library's
    shared bitcode only when a compile links against it; whether the first is (now) on."""
    global _patched, _lazy
    if _patched is None:
        _patched = replace_if_written_for(
            caching.Cache, "load_overload", _load_overload, _WRITTEN_FOR
        )
    if _lazy is None:
        library = codegen.CPUCodeLibrary
        _lazy = replace_if_written_for(
            library, "_get_module_for_linking", _module_for_linking, _LINKING_FOR
        ) and replace_if_written_for(library, "_unserialize", _lazy_unserialize, _UNSERIALIZE_FOR)
        if _lazy:  # numba's is a classmethod: so is this
            library._unserialize = classmethod(_lazy_unserialize)
    return _patched


def _load_overload(self, sig, target_context):
    """numba's `Cache.load_overload`, with the runtime initialised in place of the refresh."""
    rtsys.initialize(target_context)  # what cached code calls: the reference-counting runtime
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)
    # None returned if the `with` block swallows an exception (as numba's)


def _lazy_unserialize(cls, codegen, state):
    """numba's `CPUCodeLibrary._unserialize`, the shared bitcode of object code kept unparsed
    (`_module_for_linking` parses it) and the defined names read from the object code."""
    name, kind, data = state
    if kind != "object" or not data[0].startswith(_ELF64_LE):  # not Linux's: numba's own
        return _lazy_unserialize.__wrapped__.__func__(cls, codegen, state)
    object_code, shared_bitcode = data
    self = codegen.create_library(name)
    assert isinstance(self, cls)
    self.enable_object_caching()
    self._set_compiled_object(object_code)
    self._lazy_bitcode = shared_bitcode
    self._finalize_final_module()
    codegen._engine._defined_symbols |= defined_names(object_code)  # as numba's, from the bitcode
    return self


def _module_for_linking(self):
    """numba's `_get_module_for_linking`, parsing a loaded library's shared bitcode first."""
    pending = getattr(self, "_lazy_bitcode", None)
    if pending is not None and self._shared_module is None:
        self._shared_module = ll.parse_bitcode(pending)
        self._lazy_bitcode = None
    return _module_for_linking.__wrapped__(self)


_ELF64_LE = b"\x7fELF\x02\x01"  # the magic, 64-bit, little-endian: what defined_names reads
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym: name, info, other, section, value, size


def defined_names(object_code: bytes) -> set[str]:
    """The global and weak symbols an ELF object file defines (its .symtab and .strtab)."""
    sections = {}
    for section in ll.ObjectFileRef.from_data(object_code).sections():
        sections[section.name()] = section.data()
    table, names = sections.get(b".symtab", b""), sections.get(b".strtab", b"")
    out = set()
    for at in range(0, len(table) - _SYMBOL.size + 1, _SYMBOL.size):
        name, info, _, section, _, _ = _SYMBOL.unpack_from(table, at)
        if section != 0 and info >> 4 in (1, 2):  # defined; STB_GLOBAL or STB_WEAK
            out.add(names[name : names.index(b"\0", name)].decode())
    return out
