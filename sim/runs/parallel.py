"""Where chunk tasks run: forked local workers, fresh loky processes, or a Dask cluster.

All three go through joblib. Forked workers (the default on Linux) start in
milliseconds and inherit the compiled engine the parent has already loaded;
loky's fresh processes each import the package and load the compile cache
(about a second each), a cost short runs cannot hide.

A local worker dies with its parent: it asks the kernel for SIGKILL when the
parent dies (Linux), and a watchdog thread also checks for a new parent pid
(elsewhere, and between compiled calls). A killed `sim run` leaves no worker
playing on for nobody.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from joblib import Parallel, parallel_config, register_parallel_backend
from joblib.parallel import ParallelBackendBase

from sim.errors import SimError, one_line

BACKENDS = ("fork", "loky", "dask")
DEFAULT_BACKEND = "fork" if sys.platform.startswith("linux") else "loky"
MAX_JOBS = 256  # worker processes; more would only fight over the cores
PR_SET_PDEATHSIG = 1  # prctl(2)
_guarded_pid: int | None = None  # the worker process whose guard is armed


def guard_worker(parent: int) -> None:
    """Make this worker process die with its parent `parent` (once per process).

    Linux: prctl(PR_SET_PDEATHSIG, SIGKILL), which the kernel acts on even while
    the worker is deep in compiled code. Everywhere: a daemon thread that exits
    the process once its parent pid changes. SIGTERM gets its default action back
    (the parent's handler turns it into an interrupt), and a forked worker ignores
    Ctrl-C, so its running chunk ends cleanly while the parent stops the pool.
    """
    global _guarded_pid
    if _guarded_pid == os.getpid() or os.getpid() == parent:
        return
    _guarded_pid = os.getpid()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the watchdog still works
    if os.getppid() != parent:  # the parent died before the guard was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def is_worker() -> bool:
    """Is this process a local worker (fork or loky) of a pool this package started?"""
    return _guarded_pid == os.getpid()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _fork_worker_init(parent: int) -> None:
    guard_worker(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _guarded_call(parent: int, func, args, kwargs):
    """Run one task in a loky worker with its guard armed (loky starts the process)."""
    guard_worker(parent)
    return func(*args, **kwargs)


class ForkBackend(ParallelBackendBase):
    """A joblib backend on a process pool forked from this process.

    Unlike `multiprocessing.Pool` (joblib's "multiprocessing" backend), a
    `ProcessPoolExecutor` notices a worker that dies (killed, out of memory)
    and fails the run instead of waiting for it forever, and it hands results
    back as they finish.
    """

    supports_retrieve_callback = True

    def __init__(self, nesting_level=None, inner_max_num_threads=None, **kwargs):
        super().__init__(nesting_level, inner_max_num_threads, **kwargs)
        self._pool = None

    def effective_n_jobs(self, n_jobs):
        return 1 if n_jobs is None or mp.current_process().daemon else _cores(n_jobs)

    def configure(self, n_jobs=1, parallel=None, **backend_kwargs):
        n_jobs = self.effective_n_jobs(n_jobs)
        self._pool = ProcessPoolExecutor(
            n_jobs,
            mp_context=mp.get_context("fork"),
            initializer=_fork_worker_init,
            initargs=(os.getpid(),),
        )
        self.parallel = parallel
        return n_jobs

    def submit(self, func, callback=None):
        future = self._pool.submit(func)
        if callback is not None:
            future.add_done_callback(callback)
        return future

    def retrieve_result_callback(self, future):
        return future.result()

    def terminate(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def abort_everything(self, ensure_ready=True):
        # running chunks finish (and are written); queued ones are dropped
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if ensure_ready:
            self.configure(n_jobs=self.parallel.n_jobs, parallel=self.parallel)


register_parallel_backend("fork", ForkBackend)


def _cores(jobs: int) -> int:
    """A worker count read as joblib reads it: -1 is every core, -2 all but one, ..."""
    return max(os.cpu_count() + 1 + jobs, 1) if jobs < 0 else max(jobs, 1)


def resolve_jobs(jobs: int, n_tasks: int) -> int:
    """Worker processes to start: `jobs` (-1 = all cores), never more than there are tasks."""
    if jobs == 0 or jobs > MAX_JOBS:
        raise SimError(
            f"--jobs must be a number of workers from 1 to {MAX_JOBS}, or -1 for all cores"
            f" (-2 all but one, ...), got {jobs}"
        )
    return min(_cores(jobs), max(n_tasks, 1))


def check_options(jobs: int, backend: str | None, scheduler: str | None) -> None:
    """Refuse worker options that cannot work, before anything is written or played."""
    if backend is not None and backend not in BACKENDS:
        raise SimError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if scheduler is not None and backend != "dask":
        raise SimError("--scheduler is the address of a Dask scheduler; add --backend dask")
    if backend == "dask" and scheduler is None:
        raise SimError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    resolve_jobs(jobs, 1)


def parallel_results(
    tasks,
    n_tasks: int,
    jobs: int,
    backend: str | None = None,
    scheduler: str | None = None,
    before_fork=None,
):
    """Results of the chunk tasks as they finish, on local processes or a Dask cluster.

    `before_fork()` runs here before workers are forked from this process (to load what
    they should inherit, like the compiled engine)."""
    backend = backend or DEFAULT_BACKEND
    if backend not in BACKENDS:
        raise SimError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend == "dask":
        yield from _dask_results(tasks, scheduler)
        return
    n_jobs = resolve_jobs(jobs, n_tasks)
    if n_jobs == 1:  # in this process: nothing to start
        try:
            yield from Parallel(n_jobs=1, return_as="generator_unordered")(tasks)
        except SystemError as exc:
            raise interrupt_in(exc) or exc from None
        return
    if backend == "fork" and before_fork is not None:
        before_fork()
    if backend == "loky":  # fork workers arm their guard when they start
        parent = os.getpid()
        tasks = ((_guarded_call, (parent, f, a, k), {}) for f, a, k in tasks)
    try:
        with parallel_config(backend=backend):
            yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)
    except BrokenProcessPool:
        raise WorkerDied() from None
    except Exception as exc:
        if type(exc).__name__ == "TerminatedWorkerError":  # loky's word for the same
            raise WorkerDied() from None
        raise


@contextmanager
def side_process() -> Iterator[Callable[..., Future]]:
    """One forked process for work whose result is wanted later (a page's played parts while
    the page's tables are written): yields `ahead(func, *args) -> Future`; what is handed to it
    runs there, in turn, while this process goes on. A process that dies on the way (killed)
    is not an error: its work is done here when its result is asked for. Without fork (not
    Linux) or a second core, each runs here, when it is handed over."""
    if DEFAULT_BACKEND != "fork" or (os.cpu_count() or 1) < 2:
        yield _here
        return
    pool = ProcessPoolExecutor(
        1, mp_context=mp.get_context("fork"), initializer=_fork_worker_init, initargs=(os.getpid(),)
    )
    try:
        yield lambda func, *args: _Ahead(pool.submit(func, *args), func, args)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _here(func, *args) -> Future:
    """func(*args) run now, as a finished Future (its exception, if it raised, inside)."""
    done: Future = Future()
    try:
        done.set_result(func(*args))
    except Exception as exc:
        done.set_exception(exc)
    return done


class _Ahead(Future):
    """A side process's Future whose work is redone here if that process died."""

    def __init__(self, future: Future, func, args: tuple) -> None:
        super().__init__()
        self._future, self._work = future, (func, args)

    def result(self, timeout: float | None = None):
        try:
            return self._future.result(timeout)
        except BrokenProcessPool:
            func, args = self._work
            return func(*args)


def interrupt_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM) that compiled code turned into a SystemError, if it was one:
    numba reports an interrupt that arrives inside a compiled call as 'returned a result with
    an exception set', with the KeyboardInterrupt as its cause."""
    seen = 0
    while exc is not None and seen < 50:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


class WorkerDied(SimError):
    def __init__(self):
        super().__init__("a worker process died (killed, or out of memory)")


class _ClosedConnections(logging.Filter):
    """Drops the record of a Dask client's callback failing on a closed connection: a run
    that stops cancels its tasks while results are still on their way, and says so in its own
    one line; any other record passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while exc is not None:
            if type(exc).__name__ in ("CommClosedError", "StreamClosedError"):
                return False
            exc = exc.__cause__ or exc.__context__
        return True


def _dask_results(tasks, scheduler: str | None):
    try:
        from dask.distributed import Client
    except ImportError:
        raise SimError("--backend dask needs the dask extra: pip install '.[dask]'") from None
    if scheduler is None:
        raise SimError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    try:
        client = Client(scheduler, timeout=10)
    except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address, ...
        raise SimError(
            f"--scheduler {scheduler[:100]}: cannot reach a Dask scheduler there: {one_line(exc)}"
        ) from None
    # on for the rest of the process: the client's callbacks may log after it has closed
    callbacks = logging.getLogger("tornado.application")  # distributed sets it to ERROR
    if not any(isinstance(f, _ClosedConnections) for f in callbacks.filters):
        callbacks.addFilter(_ClosedConnections())
    with client:
        try:
            with parallel_config(backend="dask"):
                yield from Parallel(return_as="generator_unordered")(tasks)
        except BaseException:
            # the run stops with its own one line; the client's closing, with results still
            # on their way, would add tracebacks of closed connections to it
            for name in ("tornado", "distributed"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
            raise
