"""Calling foreign code (a designer's plug-in policy) with a time limit.

A plug-in is a program: it may block, loop, raise `SystemExit` or
`KeyboardInterrupt`, or end its process. `call_limited` runs one call of it
(an import, a constructor, a `choose`) so that none of that ends the command
silently:

* **A time limit.** In the main thread, an interval timer (SIGALRM) raises
  `TimeUp` in the plug-in's code when the limit passes: it interrupts a loop
  and a blocking wait alike, and costs a few microseconds a call. Elsewhere (a
  Dask task, the web table's request threads) the call runs in a helper
  thread the caller stops waiting for when the limit passes.
* **Its exits are its own.** `SystemExit` and `KeyboardInterrupt` raised by the
  plug-in become a `ForeignError` (the command goes on to report it), while the
  user's own Ctrl-C or SIGTERM during the call stays the user's.
* **A black box.** In a process that plays plug-in games on behalf of a
  supervisor (`sim.runs.isolated`), each call first writes what it is (its
  seat, game and seed, in words) and when it began into shared memory; if the
  process dies or stops answering, the supervisor reads there whose call it was.

`TimeUp` derives from BaseException so that a plug-in's `except Exception` does
not swallow it.
"""

from __future__ import annotations

import ctypes
import mmap
import signal
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

try:  # the C module: its calls take 2 us, the enum-wrapping `signal` ones 10-20 us
    import _signal as _sig
except ImportError:  # pragma: no cover
    _sig = signal

BOX_BYTES = 4096
_HEAD = struct.Struct("<ddI")  # when the call began (monotonic; 0: no call), its limit, text size


class TimeUp(BaseException):
    """The foreign call's time is up (raised inside it by the timer)."""


class ForeignError(Exception):
    """A foreign call failed; `problem` says how, e.g. 'took longer than 10 s' or 'raised
    SystemExit: 0'. The caller adds whose call it was."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class BlackBox:
    """Shared memory (made before a fork, so parent and child both see it) holding the
    foreign call in progress: when it began, its limit and what it is, in words."""

    def __init__(self) -> None:
        self.mem = mmap.mmap(-1, BOX_BYTES)

    def enter(self, where: str, limit: float) -> None:
        """A call begins (the text first, then its start: a reader never sees a torn one)."""
        text = where.encode("utf-8", "replace")[: BOX_BYTES - _HEAD.size]
        _HEAD.pack_into(self.mem, 0, 0.0, limit, len(text))
        self.mem[_HEAD.size : _HEAD.size + len(text)] = text
        _HEAD.pack_into(self.mem, 0, time.monotonic(), limit, len(text))

    def leave(self) -> None:
        """The call returned (or raised)."""
        struct.pack_into("<d", self.mem, 0, 0.0)

    def read(self) -> tuple[float, float, str]:
        """(start, limit, what) of the call in progress; start 0.0 when there is none."""
        start, limit, size = _HEAD.unpack_from(self.mem, 0)
        text = bytes(self.mem[_HEAD.size : _HEAD.size + size]).decode("utf-8", "replace")
        return start, limit, text


_box: BlackBox | None = None  # set in a process that plays for a supervisor


def use_black_box(box: BlackBox | None) -> None:
    """Record every foreign call of this process in `box` (None: stop)."""
    global _box
    _box = box


def call_limited(fn: Callable[[], Any], limit: float, where: str = "") -> Any:
    """fn() within `limit` seconds. Exceptions of fn pass on unchanged, but a call that takes
    longer, or raises SystemExit or KeyboardInterrupt (or another BaseException) of its own,
    raises ForeignError. `where` names the call in the black box, if this process keeps one."""
    if _box is not None:
        _box.enter(where, limit)
    try:
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            return _with_timer(fn, limit)
        return _in_helper(fn, limit)
    finally:
        if _box is not None:
            _box.leave()


# ---------------------------------------------------------------- in the main thread


class _Relay:
    """The user's own SIGINT and SIGTERM during a foreign call: noted, then handled as they
    would have been (a KeyboardInterrupt the plug-in did not raise itself)."""

    def __init__(self) -> None:
        self.user = False
        self.previous: dict[int, Any] = {}

    def __call__(self, signum, frame) -> None:
        self.user = True
        previous = self.previous.get(signum)
        if callable(previous):
            previous(signum, frame)
        else:
            raise KeyboardInterrupt


def _with_timer(fn: Callable[[], Any], limit: float) -> Any:
    """fn() with SIGALRM armed: after `limit` s, and every second after that until the call
    gives up, TimeUp is raised in it; once it has returned, the timer raises nothing."""
    armed = [True]

    def alarm(signum, frame) -> None:
        if armed[0]:
            raise TimeUp()

    relay = _Relay()
    for signum in (signal.SIGINT, signal.SIGTERM):
        current = _sig.getsignal(signum)
        if callable(current):  # a Python handler: the call's own KeyboardInterrupt is not it
            relay.previous[signum] = current
            _sig.signal(signum, relay)
    old_alarm = _sig.signal(signal.SIGALRM, alarm)
    try:
        try:
            _sig.setitimer(signal.ITIMER_REAL, limit, 1.0)
            return fn()
        finally:
            armed[0] = False  # an alarm from here on is too late to matter
            _sig.setitimer(signal.ITIMER_REAL, 0)
    except TimeUp:
        raise ForeignError(f"took longer than {limit:g} s (plugin_time_limit)") from None
    except (KeyboardInterrupt, SystemExit) as exc:
        if relay.user:
            raise
        raise ForeignError(f"raised {_name(exc)}") from None
    except Exception:
        raise
    except BaseException as exc:  # GeneratorExit and the like, raised by the plug-in
        raise ForeignError(f"raised {_name(exc)}") from None
    finally:
        _sig.signal(signal.SIGALRM, old_alarm)
        for signum, previous in relay.previous.items():
            _sig.signal(signum, previous)


# ---------------------------------------------------------------- off the main thread


class _Helper:
    """A daemon thread that runs one call at a time for the thread that owns it."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.done = threading.Event()
        self.job: Callable[[], Any] | None = None
        self.outcome: tuple[bool, Any] = (True, None)
        self.thread = threading.Thread(target=self._loop, daemon=True, name="sim-foreign")
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.ready.wait()
            self.ready.clear()
            try:
                self.outcome = (True, self.job())
            except BaseException as exc:
                self.outcome = (False, exc)
            self.done.set()

    def run(self, fn: Callable[[], Any], limit: float) -> tuple[bool, Any] | None:
        """(returned, value or exception), or None when `limit` passed first."""
        self.done.clear()
        self.job = fn
        self.ready.set()
        return self.outcome if self.done.wait(limit) else None


_helpers = threading.local()


def _in_helper(fn: Callable[[], Any], limit: float) -> Any:
    """fn() in this thread's helper thread, waited for at most `limit` s. A helper left
    running is abandoned (told to stop, if it runs Python code) and replaced."""
    helper = getattr(_helpers, "helper", None)
    if helper is None:
        helper = _helpers.helper = _Helper()
    outcome = helper.run(fn, limit)
    if outcome is None:
        _helpers.helper = None
        _stop_thread(helper.thread)
        raise ForeignError(f"took longer than {limit:g} s (plugin_time_limit)")
    returned, value = outcome
    if returned:
        return value
    if isinstance(value, Exception):
        raise value
    raise ForeignError(f"raised {_name(value)}")


def _stop_thread(thread: threading.Thread) -> None:
    """Ask a stuck helper to stop: TimeUp is raised in it at its next Python instruction (a
    loop stops; a blocking wait stops when it wakes; code in C runs on, on a daemon thread)."""
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(thread.ident), ctypes.py_object(TimeUp)
        )


def _name(exc: BaseException) -> str:
    """'SystemExit: 0', 'KeyboardInterrupt': an exception as one short line."""
    text = " ".join(str(exc).split())[:150]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
