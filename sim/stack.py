"""A roomy Python stack for a whole command: CPython's frames without a thousand mmap calls
a second.

CPython 3.11 keeps a thread's frames in chunks of 16 kB, each mapped with mmap when a call
needs room past the current chunk and unmapped again as soon as the call that opened it
returns (`_PyThreadState_PopFrame`). numba's compiler is deeply recursive Python whose
depth swings across such a boundary all the time: a first run, which compiles the engine,
made 1.26 million mmap and as many munmap calls, with a page fault each, about 8 of its
57 CPU-s in the kernel (strace -c, /usr/bin/time). A chunk is sized for the call that
opens it plus room for a thousand more slots, rounded up to 16 kB times a power of two; so
a call whose frame asks for `SLOTS` slots opens a chunk of 1 MiB with about 250 kB of
room after it, and every call made inside it (a few hundred frames deep, far more than
numba's compiler goes) stays in that one chunk. The extra slots are never touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
SLOTS = 100_000  # a frame of 800 kB: its chunk is 1 MiB (CPython 3.11's push_chunk)


def in_a_roomy_stack(fn: Callable[[], T]) -> T:
    """fn() called from a frame that opens a chunk of 1 MiB (see the module)."""
    return fn()


in_a_roomy_stack.__code__ = in_a_roomy_stack.__code__.replace(
    co_stacksize=max(in_a_roomy_stack.__code__.co_stacksize, SLOTS)
)
