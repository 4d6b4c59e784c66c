"""The command line: `sim.cli:main` parses (`parser`) and calls one function per command
(`commands`); the `sim` script is `cli`, which leaves the process without tearing the
interpreter down once `main` is done.

`main` is the one error boundary: a mistake of the user's or the machine's (a
bad config, a full disk, a read-only folder, a plug-in that fails) ends in one
line `error: ...` and exit code 2; Ctrl-C and SIGTERM stop a run the same way
(exit 130, finished chunks kept); anything else is a bug, shown with its
traceback and a request to report it.
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys
import threading
import traceback

from sim.errors import SimError, os_problem
from sim.stack import in_a_roomy_stack

BUG_REPORT = (
    "This is a bug in ifitfits-sim, not a mistake of yours: please report it with the"
    " command, the config and the traceback above."
)


# The commands that work for a while: each says something at least every ~10 s
# (`sim.runs.pulse`); the others play at the terminal, serve a table or check a file.
WORKING = frozenset(
    (
        "run report compare sweep value ladder luck turns tune advise map calibrate replay bench"
    ).split()
)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be: a run stops the same way."""


def _on_sigterm(signum, frame) -> None:
    raise _Terminated()


def cli() -> None:
    """The `sim` script (and `python -m sim.cli`): `main`, then `leave` with its exit code.
    `main` runs in a roomy stack (`sim.stack`): a first run's compile makes no mmap calls
    for its frames."""
    leave(in_a_roomy_stack(main))


def leave(code: int | None) -> None:
    """End the process with exit code `code` as interpreter shutdown would, but without its
    teardown: a finished command's million objects (pandas', numba's, the run's) are not
    freed one by one and its modules not cleared, which took 0.06-0.08 CPU-s, and as much
    wall time, of every command. What shutdown does that matters is done here first, in
    its order: non-daemon threads are joined, the atexit handlers run (logging's,
    multiprocessing's, weakref finalizers', a Dask client's), the standard streams are
    flushed. A process that imported code from elsewhere (a designer's plug-in beside a
    config, whose open files only the interpreter's teardown may close) or a Python without
    those hooks exits the ordinary way."""
    join_threads = getattr(threading, "_shutdown", None)
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if join_threads is None or run_exit_handlers is None or not _only_known_code():
        sys.exit(code)
    join_threads()
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away (`| head`), a closed stream
            pass
    os._exit(int(code or 0))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `sim` command and its one error boundary: a user's or the
    machine's mistake is one line `error: ...` and exit code 2, Ctrl-C or SIGTERM exit
    130, a bug its traceback and exit code 1."""
    _one_blas_thread()
    commands, build_parser, interrupt_in = _load()
    args = build_parser().parse_args(argv)
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    try:
        if args.command not in WORKING:  # a game at the terminal, a web table, a quick check
            return getattr(commands, args.command)(args)
        from sim.runs.pulse import pulse

        with pulse(f"sim {args.command}", quiet=bool(getattr(args, "quiet", False))):
            return getattr(commands, args.command)(args)  # the study commands are in it too
    except SimError as exc:
        return _error(str(exc))
    except KeyboardInterrupt as exc:
        what = "terminated" if isinstance(exc, _Terminated) else "interrupted"
        print(f"{what}: {exc}" if str(exc) else what, file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except OSError as exc:  # a full disk, a read-only or missing folder, a file in the way
        return _error(os_problem(exc))
    except MemoryError:
        return _error("out of memory; try fewer games, or fewer --jobs")
    except SystemError as exc:  # compiled code's word for a Ctrl-C that arrived inside it
        stop = interrupt_in(exc)
        if stop is None:
            return _bug()
        print("terminated" if isinstance(stop, _Terminated) else "interrupted", file=sys.stderr)
        return 130
    except Exception:
        return _bug()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _only_known_code() -> bool:
    """Has this process imported only the standard library, installed packages and `sim`
    itself (by the modules' files; a few ms)? No, when that cannot be told (an old
    virtualenv's `site` without `getsitepackages`)."""
    import site
    import sysconfig

    try:
        roots = {sysconfig.get_path(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
        roots.update(site.getsitepackages() + [site.getusersitepackages()])
    except (AttributeError, KeyError, TypeError):
        return False
    roots.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # sim's own folder
    prefixes = tuple(os.path.join(os.path.abspath(r), "") for r in roots if r)
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and not os.path.abspath(path).startswith(prefixes):
            return False
    return True


_loaded = False  # this process has imported the commands (and frozen what they made)


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _one_blas_thread() -> None:
    """Linear algebra on one thread in every process of a command, unless the user chose
    otherwise (set before numpy loads its BLAS). A command's matrices are small and its other
    core already plays games or a page's parts: BLAS's threads then spin while they wait and
    took about an eighth of the CPU of `sim run` and `sim report`, for no time saved. One
    thread also makes every sum the same whatever the machine's cores."""
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


def _load():
    """The commands, the parser and `interrupt_in`, imported with the cyclic garbage collector
    paused, once per process: the imports (numba, pandas, pyarrow, the package) leave about
    200,000 objects that live as long as the process, and collecting them again and again
    while they pile up, then in every later full collection, cost about 0.2 s of a 20,000-game
    random run (about 3 s in all). `gc.freeze` keeps them out of later collections (and
    a forked worker's collections never touch their pages)."""
    global _loaded
    paused = not _loaded and gc.isenabled()
    if paused:
        gc.disable()
    try:
        from sim.cli import commands
        from sim.cli.parser import build_parser
        from sim.runs.parallel import interrupt_in
    finally:
        if paused:
            gc.freeze()
            gc.enable()
        _loaded = True
    return commands, build_parser, interrupt_in


def _bug() -> int:
    """A bug: its traceback and a request to report it, exit code 1."""
    traceback.print_exc()
    print(BUG_REPORT, file=sys.stderr)
    return 1


def _error(message: str) -> int:
    """Print the one error line (a message never spans lines) and give exit code 2."""
    print("error: " + " ".join(message.split()), file=sys.stderr)
    return 2
