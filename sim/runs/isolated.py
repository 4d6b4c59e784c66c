"""Plug-in games in a process of their own, watched: foreign code cannot take the run down.

A chunk of games with a plug-in seat is played in a child forked from the process
that was given the chunk (the command itself with one worker, a local worker, or a
Dask worker), while that process supervises it:

* the child's every plug-in call is recorded in a black box (`sim.guard.foreign`): its
  seat, game and seed, when it began and its time limit;
* the child keeps its own time limit on each call (`sim.guard.foreign.call_limited`),
  which ends a slow call with an ordinary error; if the child stops answering
  anyway (a call stuck in C code, or one that swallows the timer's exception),
  the supervisor kills it GRACE_S seconds after the limit;
* if the child ends without a result (the plug-in called `os._exit`, or crashed
  the interpreter), the black box says whose call it was.

Either way the supervisor raises one PolicyError naming the seat, the game, the
seed and the `sim play` command that replays it, as an error inside `choose`
would; the run stops, keeps its finished chunks and says `failed`. Where there is
no `fork` (not POSIX), the chunk is played in the process itself.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import struct
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sim.errors import PolicyError, SimError, one_line
from sim.guard.foreign import BlackBox, use_black_box

T = TypeVar("T")
GRACE_S = 5.0  # past a call's own limit, before a silent child is killed
POLL_S = 0.1  # how often the supervisor looks at the black box
PR_SET_PDEATHSIG = 1  # prctl(2)
_SIZE = struct.Struct("<Q")


def run_isolated(fn: Callable[[], T], what: str, *, rehearsal: bool = False) -> T:
    """fn() played in a forked child and returned (or its exception raised) here; a child
    that dies or hangs is one PolicyError naming the plug-in call it was in. `what` names
    the work in a message when the child dies outside any plug-in call. A `rehearsal` (work
    done again here afterwards) prints nothing on stdout."""
    if not hasattr(os, "fork"):
        return fn()
    box = BlackBox()
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        _child(fn, box, read_end, write_end, rehearsal)
    os.close(write_end)
    try:
        return _supervise(pid, read_end, box, what)
    finally:
        os.close(read_end)
        _reap(pid)


def _child(fn: Callable[[], Any], box: BlackBox, unused: int, out: int, quiet: bool) -> None:
    """Play, send the pickled outcome back, and leave without running the parent's exit
    handlers (os._exit): whatever happens, the child never returns into the parent's code."""
    code = 0
    try:
        os.close(unused)
        if quiet:  # what is printed here is printed again by the real work
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (the process ends with it)
            os.dup2(sys.stdout.fileno(), 1)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor handles Ctrl-C
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        faulthandler.disable()  # a crash is the supervisor's one line, not a dump
        _die_with_parent()
        use_black_box(box)
        try:
            outcome: tuple[str, Any] = ("ok", fn())
        except BaseException as exc:
            outcome = ("error", exc)
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an exception that does not pickle: its words do
            data = pickle.dumps(
                ("error", SimError(one_line(outcome[1] if outcome[0] == "error" else exc)))
            )
        _write_all(out, _SIZE.pack(len(data)) + data)
    except BaseException:
        code = 70  # could not even report: the supervisor says the process ended
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()  # what the plug-in printed
            except Exception:
                pass
        os._exit(code)


def _die_with_parent() -> None:
    """Linux: the kernel kills this child when its parent dies (kill -9 of the command)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _supervise(pid: int, fd: int, box: BlackBox, what: str) -> Any:
    """Read the child's outcome as it comes; kill it when a plug-in call outlives its limit
    by GRACE_S; name the call when the child ends without an outcome."""
    data = bytearray()
    status = None
    while status is None:
        ready, _, _ = select.select([fd], [], [], POLL_S)
        if ready:
            block = os.read(fd, 1 << 20)
            if block:
                data += block
                continue
            status = os.waitpid(pid, 0)[1]  # the child closed its end: it is ending
            break
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:  # ended, though something it started may hold the pipe: take what is there
            status = wait_status
            while select.select([fd], [], [], 0)[0] and (block := os.read(fd, 1 << 20)):
                data += block
            break
        start, limit, where = box.read()
        if start and time.monotonic() - start > limit + GRACE_S:
            _kill(pid)
            raise PolicyError(
                f"{where}: choose() took longer than {limit:g} s (plugin_time_limit) and did"
                " not stop when told to; its process was killed"
            )
    if len(data) >= _SIZE.size and len(data) == _SIZE.size + _SIZE.unpack_from(data)[0]:
        kind, value = pickle.loads(bytes(data[_SIZE.size :]))
        if kind == "ok":
            return value
        raise value
    start, _, where = box.read()
    if start:
        raise PolicyError(f"{where}: the plug-in ended its process ({_how(status)})")
    raise SimError(f"the process playing {what} ended ({_how(status)}) outside a plug-in's call")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> int | None:
    """Wait for the child (killed first if it still runs); its wait status, or None when it
    was reaped already."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            _kill(pid)
            done, status = os.waitpid(pid, 0)
        return status
    except ChildProcessError:
        return None


def _how(status: int | None) -> str:
    """'exit code 3', 'killed by SIGSEGV (a crash)'."""
    if status is None:
        return "unknown status"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        crash = (
            " (a crash)"
            if sig in (signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE)
            else ""
        )
        return f"killed by {name}{crash}"
    return f"exit code {os.WEXITSTATUS(status)}"
