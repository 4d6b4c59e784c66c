"""Shared pieces of the single-game tests: small studies, a small run, a table server."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from sim import run
from sim.config import load_study
from sim.engine.state import (
    EV_DRAW,
    KIND_BOX,
    KIND_PRINCESS,
    SC_DECK_LEN,
    SC_DECK_POS,
    SC_NEVENTS,
    StateView,
)
from sim.table.server import open_table

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
TWO_GREEDY = ["players=2", "seats=[{policy: greedy}, {policy: greedy}]"]


def two_player_study():
    """configs/base.yaml at two seats, both greedy (a bot that plays quickly and well)."""
    return load_study(BASE, TWO_GREEDY)


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


def perturb_hidden(game, viewer: int | None, rng: np.random.Generator) -> None:
    """Change everything `viewer` may not know (None: nobody's hand is known) and keep every
    public count: the other hands and the deck re-dealt among themselves, and the box or
    Princess card each other seat drew replaced by another in the event records."""
    v = StateView(game.s, game.pr)
    pos, end = int(game.s[SC_DECK_POS]), int(game.s[SC_DECK_LEN])
    pool = list(v.deck[pos:end])
    sizes = []
    for p in range(game.pr.players):
        if p == viewer:
            continue
        for t, n in enumerate(v.hands[p]):
            pool += [t] * int(n)
        sizes.append((p, int(v.hands[p].sum())))
        v.hands[p] = 0
    rng.shuffle(pool)
    for p, n in sizes:
        for t in pool[:n]:
            v.hands[p, t] += 1
        pool = pool[n:]
    v.deck[pos:end] = pool
    kinds = game.engine.types.kinds
    hidden = [t for t, k in enumerate(kinds) if k in (KIND_BOX, KIND_PRINCESS)]
    for row in v.events[: int(game.s[SC_NEVENTS])]:
        if row[0] == EV_DRAW and row[1] != viewer and kinds[row[2]] in (KIND_BOX, KIND_PRINCESS):
            row[2] = rng.choice(hidden)
