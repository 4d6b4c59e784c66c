"""Where chunk tasks run: forked local workers, fresh loky processes, or a Dask cluster.

All three go through joblib. Forked workers (the default on Linux) start in
milliseconds and inherit the compiled engine the parent has already loaded;
loky's fresh processes each import the package and load the compile cache
(about a second each), a cost short runs cannot hide.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from joblib import Parallel, parallel_config, register_parallel_backend
from joblib.parallel import ParallelBackendBase

from sim.errors import SimError

BACKENDS = ("fork", "loky", "dask")
DEFAULT_BACKEND = "fork" if sys.platform.startswith("linux") else "loky"


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
        self._pool = ProcessPoolExecutor(n_jobs, mp_context=mp.get_context("fork"))
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
    if jobs == 0:
        raise SimError("--jobs must be a positive number of workers, or -1 for all cores")
    return min(_cores(jobs), max(n_tasks, 1))


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
        yield from Parallel(n_jobs=1, return_as="generator_unordered")(tasks)
        return
    if backend == "fork" and before_fork is not None:
        before_fork()
    try:
        with parallel_config(backend=backend):
            yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)
    except BrokenProcessPool:
        raise WorkerDied() from None
    except Exception as exc:
        if type(exc).__name__ == "TerminatedWorkerError":  # loky's word for the same
            raise WorkerDied() from None
        raise


class WorkerDied(SimError):
    def __init__(self):
        super().__init__("a worker process died (killed, or out of memory)")


def _dask_results(tasks, scheduler: str | None):
    try:
        from dask.distributed import Client
    except ImportError:
        raise SimError("--backend dask needs the dask extra: pip install '.[dask]'") from None
    if scheduler is None:
        raise SimError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    try:
        client = Client(scheduler, timeout=10)
    except OSError as exc:
        raise SimError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    with client, parallel_config(backend="dask"):
        yield from Parallel(return_as="generator_unordered")(tasks)
