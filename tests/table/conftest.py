"""Fixtures of the single-game tests: a small run, a table server (the pieces a test imports
by name are in tests/table_helpers.py)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from table_helpers import BASE, two_player_study

from sim import run
from sim.config import load_study
from sim.table.server import open_table


@pytest.fixture(scope="session")
def small_run(tmp_path_factory):
    """60 games of configs/base.yaml (greedy, greedy, random, random; rotated), one worker."""
    study = load_study(BASE).with_overrides(games=60)
    return run(study, jobs=1, out=tmp_path_factory.mktemp("runs") / "base", quiet=True)


class Served:
    """A table server on a free port, in a thread, for one test."""

    def __init__(self, study, humans, logs: Path, *, seed: int = 11, pause: float = 0.0):
        self.server = open_table(
            study, list(humans), port=0, seed=seed, first_game=0, log_dir=logs, pause_s=pause
        )
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def session(self):
        return self.server.session

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.server.session.close()


@pytest.fixture
def serve(tmp_path):
    """Start table servers (`serve(study, humans, **kw)`); all are stopped after the test."""
    started = []

    def start(study=None, humans=(0,), **kw) -> Served:
        served = Served(study or two_player_study(), humans, tmp_path / "logs", **kw)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()
