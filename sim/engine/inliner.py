"""A faster first compile: numba's inliner copies a callee's variable scope once, not per block.

To inline a function (`inline="always"`), numba deep-copies the callee's IR block by block
(`numba.core.inline_closurecall.InlineWorker.inline_ir`), each block with a fresh memo, so
every block copies the whole scope (every variable of the callee) anew: work that grows as
blocks times variables. The engine inlines a few hundred calls of large functions, and that
copying was a fifth of a cold compile (profiled on the base study's loop). `share_scope_copies`
makes the copies of one inlining share one copy of each scope, as the blocks of the IR they
copy share one scope: the same IR, copied once. The games are the same (a study compiled with
and without it plays identical games, checked by `tests/engine/test_inliner.py`); only the
compile is faster (docs/dev/performance-log.md).

Applied once, by `sim.engine.table` (which every module that inlines imports) and only where
numba has the two pieces as this was written against; otherwise numba runs unchanged.
"""

from __future__ import annotations

import copy

from numba.core import ir
from numba.core.inline_closurecall import InlineWorker

_copies: dict[int, ir.Scope] | None = None  # scope copies of the inlining under way, by id
_applied = False


def share_scope_copies() -> bool:
    """Patch numba's inliner so one inlining copies each scope once; whether it is (now) on."""
    global _applied
    if _applied:
        return True
    if "__deepcopy__" in vars(ir.Scope) or not callable(getattr(InlineWorker, "inline_ir", None)):
        return False  # a numba that copies scopes its own way: leave it be
    plain = InlineWorker.inline_ir

    def inline_ir(self, *args, **kwargs):
        global _copies
        _copies = {}
        try:
            return plain(self, *args, **kwargs)
        finally:
            _copies = None

    inline_ir.__doc__, inline_ir.__wrapped__ = plain.__doc__, plain
    InlineWorker.inline_ir = inline_ir
    ir.Scope.__deepcopy__ = _copy_scope
    _applied = True
    return True


def _copy_scope(scope: ir.Scope, memo: dict) -> ir.Scope:
    """A deep copy of `scope`, as `copy.deepcopy` makes it, made once per inlining."""
    if _copies is not None and id(scope) in _copies:
        return _copies[id(scope)]
    twin = ir.Scope.__new__(ir.Scope)
    memo[id(scope)] = twin
    twin.__dict__.update(copy.deepcopy(scope.__dict__, memo))
    if _copies is not None:
        _copies[id(scope)] = twin
    return twin
