"""A local Dask cluster for the tests of `--backend dask` (skipped without dask)."""

from __future__ import annotations

import pytest


def local_cluster():
    """Two single-threaded worker processes; any free port for its HTTP server (test files
    run in parallel). Use it as a context manager; `.scheduler_address` is --scheduler."""
    distributed = pytest.importorskip("dask.distributed")
    return distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
