"""Scale-out on Dask (slow, opt-in: `-m slow`): a local cluster started by the test plays
the same games as the fork backend, row for row, and a designer's lab cluster is used the
same way (docs/reference/workers.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import sim_cli

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
TABLES = ("games", "players", "cards", "turns")


@pytest.mark.slow
def test_a_local_dask_cluster_plays_the_fork_backends_games_row_for_row(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    common = ["--games", "600", "--quiet", "--no-report"]
    sim_cli("run", BASE, *common, "--jobs", "2", "--out", tmp_path / "fork")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        sim_cli(
            "run",
            BASE,
            *common,
            "--backend",
            "dask",
            "--scheduler",
            cluster.scheduler_address,
            "--out",
            tmp_path / "dask",
        )
    for table in TABLES:
        fork = pd.read_parquet(tmp_path / "fork" / f"{table}.parquet")
        dask = pd.read_parquet(tmp_path / "dask" / f"{table}.parquet")
        assert len(fork) > 0
        pd.testing.assert_frame_equal(dask, fork)
