"""The studies on a real local Dask cluster (scheduler and two workers on 127.0.0.1,
started and stopped by the test, `cluster_helpers.local_cluster`): a sweep and an advice
give what the fork backend gives, row for row and word for word (slow, opt-in: `-m slow`;
`sim run` on the cluster is in the default suite, tests/runs/test_runner.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from cli_helpers import sim_cli
from cluster_helpers import local_cluster

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
ADVISE = {"games": 600, "screen": 200, "select": 400, "confirm": 600, "finalists": 2,
          "budget": 100_000, "levels": [{"policy": "random"}, {"policy": "greedy"}]}  # fmt: skip


@pytest.mark.slow
def test_a_sweep_and_an_advice_on_dask_equal_the_fork_backends(tmp_path):
    config = tmp_path / "small.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "extends": str(BASE),
                "name": "small",
                "sweep": {"deck.sprayers": [2, 4]},
                "advise": ADVISE,
            },
            sort_keys=False,
        )  # fmt: skip
    )
    sweep = ["sweep", config, "--games", "400", "--quiet", "--no-report"]
    advise = ["advise", config, "--quiet", "--no-report"]
    sim_cli(*sweep, "--jobs", "2", "--out", tmp_path / "sweep-fork")
    fork_text = sim_cli(*advise, "--jobs", "2", "--out", tmp_path / "advise-fork")
    with local_cluster() as cluster:
        on = ["--backend", "dask", "--scheduler", cluster.scheduler_address]
        sim_cli(*sweep, *on, "--out", tmp_path / "sweep-dask")
        dask_text = sim_cli(*advise, *on, "--out", tmp_path / "advise-dask")
    for point in ("p00", "p01"):
        for table in ("games", "players", "cards", "turns"):
            fork = pd.read_parquet(tmp_path / "sweep-fork" / "points" / point / f"{table}.parquet")
            dask = pd.read_parquet(tmp_path / "sweep-dask" / "points" / point / f"{table}.parquet")
            pd.testing.assert_frame_equal(dask, fork)
    fork, dask = (json.loads((tmp_path / f"advise-{b}" / "advice.json").read_text())
                  for b in ("fork", "dask"))  # fmt: skip
    assert dask["answer"] == fork["answer"] and dask["cells"] == fork["cells"]
    assert dask["screened"] == fork["screened"] and dask["games"] == fork["games"]
    # every line but those naming the folder (and its wall time)
    first = [line for line in fork_text.splitlines() if "advise-fork" not in line]
    assert [line for line in dask_text.splitlines() if "advise-dask" not in line] == first
