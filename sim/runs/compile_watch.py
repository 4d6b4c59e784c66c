"""A heartbeat on stderr while numba compiles: nothing is silent for more than ~10 seconds.

`compile_heartbeat` listens to numba's compile events (fired only when a function is
not in the cache). On the first one it says that the engine is compiling and for which
policies; then, at least every `every` seconds, the time so far, how many functions are
done and which one is compiling now. A warm cache prints nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from numba.core import event

HEARTBEAT_S = 10.0  # the longest the terminal stays silent while compiling


class _Watch(event.Listener):
    """Tracks numba's nested compiles: the stack of functions compiling now, and the count."""

    def __init__(self, say) -> None:
        self.say = say
        self.stack: list[str] = []
        self.done = 0
        self.started: float | None = None
        self.lock = threading.Lock()

    def on_start(self, ev) -> None:
        func = ev.data["dispatcher"].py_func
        with self.lock:
            first = self.started is None
            if first:
                self.started = time.perf_counter()
            self.stack.append(f"{func.__module__}.{func.__qualname__}")
        if first:
            self.say()

    def on_end(self, ev) -> None:
        with self.lock:
            if self.stack:
                self.stack.pop()
            self.done += 1

    def status(self) -> tuple[float, int, str | None] | None:
        """(seconds since the first compile, functions compiled, the innermost compiling now
        or None between compiles); None before any compile."""
        with self.lock:
            if self.started is None:
                return None
            now = self.stack[-1] if self.stack else None
            return time.perf_counter() - self.started, self.done, now


@contextmanager
def compile_heartbeat(
    what: str,
    *,
    note: str = "first run after install or upgrade",
    every: float = HEARTBEAT_S,
    stream: TextIO | None = None,
    enabled: bool = True,
) -> Iterator[None]:
    """While the block runs, report numba compiles on `stream` (stderr): a first line when one
    starts ("compiling <what> (<note>)…"), then elapsed time and what is compiling every
    `every` s, and how long it took."""
    if not enabled:
        yield
        return
    out = stream if stream is not None else sys.stderr

    def say_start() -> None:
        print(f"compiling {what} ({note})…", file=out, flush=True)

    watch = _Watch(say_start)
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            status = watch.status()
            if status is not None and status[2] is not None:  # only while compiling
                seconds, done, now = status
                print(
                    f"  compiling: {seconds:.0f} s, {done} functions done, now {now}",
                    file=out,
                    flush=True,
                )

    event.register("numba:compile", watch)
    thread = threading.Thread(target=beat, name="compile-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        event.unregister("numba:compile", watch)
        thread.join(timeout=1.0)
        status = watch.status()
        if status is not None and status[0] >= every:
            print(f"  compiled in {status[0]:.0f} s ({status[1]} functions)", file=out, flush=True)
