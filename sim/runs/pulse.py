"""Nothing silent for more than about ten seconds: while a command works, a line on stderr
whenever nothing has been printed for `SILENCE_S` seconds, saying what it is doing and how
far along it is.

`sim.cli.main` wraps each working command in `pulse(...)`: the output streams are stamped
on every write, and a watcher thread speaks only into a silence, so a command that already
talks (a progress bar, the pool's heartbeat, a study's phase lines) is never interrupted.
Long steps name themselves with `doing("building the page")`; the pool counts its games
with `progress(done, total)`. Outside a pulse (a library call, a test) both do nothing.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

SILENCE_S = 7.0  # a line after this much silence: with start-up and the tick, under 10 s
TICK_S = 0.5


class _Stamped:
    """A text stream that records when it was last written to (everything else passes)."""

    def __init__(self, stream: TextIO, pulse: Pulse) -> None:
        self._stream, self._pulse = stream, pulse

    def write(self, text: str) -> int:
        if text:
            self._pulse.heard()
        return self._stream.write(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class Pulse:
    """What the command is doing now, how far, and when anything was last said."""

    def __init__(self, command: str, out: TextIO, silence: float = SILENCE_S) -> None:
        self.command, self.out, self.silence = command, out, silence
        self.what, self.since = "working", time.perf_counter()
        self.games: tuple[int, int] | None = None
        self.last = time.perf_counter()
        self.lock = threading.Lock()
        self.stopped = threading.Event()

    def heard(self) -> None:
        self.last = time.perf_counter()

    def doing(self, what: str) -> None:
        with self.lock:
            self.what, self.since, self.games = what, time.perf_counter(), None

    def progress(self, done: int, total: int) -> None:
        with self.lock:
            if self.what != "playing games":
                self.what, self.since = "playing games", time.perf_counter()
            self.games = (done, total)

    def line(self) -> str:
        with self.lock:
            what, since, games = self.what, self.since, self.games
        took = time.perf_counter() - since
        if games is not None and games[1]:
            done, total = games
            far = f"{done:,} of {total:,} games ({100 * done / total:.0f}%)"
            return f"  {self.command}: {what}, {far}, {took:.0f} s"
        return f"  {self.command}: {what} ({took:.0f} s so far)"

    def watch(self) -> None:
        while not self.stopped.wait(TICK_S):
            if time.perf_counter() - self.last >= self.silence:
                print(self.line(), file=self.out, flush=True)
                self.heard()


_current: Pulse | None = None
_owner = 0  # the process that holds the pulse: a forked worker inherits it, and ignores it


def _here() -> Pulse | None:
    return _current if _current is not None and os.getpid() == _owner else None


def doing(what: str) -> None:
    """Name the step the command is in now (said only if it runs into a silence)."""
    if (beat := _here()) is not None:
        beat.doing(what)


def progress(done: int, total: int) -> None:
    """Games played so far of those planned."""
    if (beat := _here()) is not None:
        beat.progress(done, total)


@contextmanager
def pulse(command: str, quiet: bool = False, silence: float | None = None) -> Iterator[None]:
    """Speak into every silence of `silence` (default SILENCE_S) seconds while the block
    runs; nothing with quiet."""
    global _current, _owner
    if quiet or _here() is not None:
        yield
        return
    out, err = sys.stdout, sys.stderr
    beat = Pulse(command, err, SILENCE_S if silence is None else silence)
    sys.stdout, sys.stderr = _Stamped(out, beat), _Stamped(err, beat)
    _current, _owner = beat, os.getpid()
    thread = threading.Thread(target=beat.watch, name="sim-pulse", daemon=True)
    thread.start()
    try:
        yield
    finally:
        beat.stopped.set()
        thread.join()
        _current = None
        sys.stdout, sys.stderr = out, err
