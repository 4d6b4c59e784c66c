"""A small real run and its report, shared by the report tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim import build_report, run
from sim.config import load_study

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


@pytest.fixture(scope="session")
def small_run(tmp_path_factory):
    """400 games of configs/base.yaml (greedy x2 + random x2, rotated)."""
    study = load_study(BASE).with_overrides(games=400)
    return run(study, jobs=1, out=tmp_path_factory.mktemp("runs") / "base", quiet=True)


@pytest.fixture(scope="session")
def report_path(small_run, tmp_path_factory) -> Path:
    """The HTML report of the small run."""
    return build_report(small_run.run_dir, tmp_path_factory.mktemp("report") / "base.html")
