"""The runner: determinism across workers, resuming, result tables, user errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cluster_helpers import local_cluster

from sim import load_run, run
from sim.config import load_study
from sim.runs.orchestrate import (
    CHUNKS_PER_WORKER,
    CHUNKS_PER_WORKER_SHARED,
    WHOLE_GAME_DEPTH,
    chunk_games,
    chunk_sizes,
    lineup_chunk_games,
    search_cost,
)
from sim.runs.results import TABLES
from sim.specs import POLICIES

CHUNK_GAMES = {name: spec.chunk_games for name, spec in POLICIES.items()}

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


@pytest.fixture(scope="module")
def small_study():
    return load_study(BASE).with_overrides(games=1037)


@pytest.fixture(scope="module")
def one_worker(small_study, tmp_path_factory):
    return run(small_study, jobs=1, out=tmp_path_factory.mktemp("r") / "one", quiet=True)


def _assert_same(a, b):
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("backend", ["fork", "loky"])
def test_jobs_do_not_change_results(small_study, one_worker, tmp_path, backend):
    two = run(small_study, jobs=2, out=tmp_path / "two", quiet=True, backend=backend)
    _assert_same(one_worker, two)


def test_chunk_size_follows_the_slowest_policy_and_the_workers(small_study):
    def size(policies, games=10**6, workers=1):
        seats = [{"policy": p} for p in policies]
        return chunk_games([small_study.with_overrides(seats=seats, games=games)], workers)

    assert CHUNK_GAMES["heuristic"] < CHUNK_GAMES["random"]  # else the second line tests nothing
    assert size(["random"] * 4) == CHUNK_GAMES["random"]
    assert size(["random", "random", "heuristic", "random"]) == CHUNK_GAMES["heuristic"]
    assert size(["lookahead"] * 4) == CHUNK_GAMES["lookahead"] == size(["ismcts"] * 4)
    # a line-up that searches less per decision than four default searchers: longer chunks
    assert size(["random", "lookahead", "greedy", "random"]) == 4 * CHUNK_GAMES["lookahead"]
    assert size(["lookahead", "ismcts", "greedy", "random"]) == 2 * CHUNK_GAMES["lookahead"]
    # small runs are cut finer: four chunks on one worker, two per worker on several
    assert size(["random"] * 4, 10_000, 1) == 10_000 // CHUNKS_PER_WORKER
    assert size(["random"] * 4, 10_000, 2) == 10_000 // (CHUNKS_PER_WORKER_SHARED * 2)
    # ... into as many chunks for every worker: 20,000 games in 4,000-game chunks would be
    # five, one worker playing three while the other waits
    games, workers = 20_000, 2
    n = size(["random"] * 4, games, workers)
    assert n < CHUNK_GAMES["random"] and -(-games // n) % workers == 0
    assert -(-games // n) >= CHUNKS_PER_WORKER_SHARED * workers
    # ... counting the chunks of every study played together (a sweep's points)
    points = [small_study.with_overrides(seats=[{"policy": "random"}] * 4, games=games)] * 4
    assert chunk_games(points, workers) == CHUNK_GAMES["random"] > n


def test_a_search_seat_costs_its_playouts(small_study):
    def size(*params):
        seats = [{"policy": "lookahead", **p} for p in params]
        return lineup_chunk_games(small_study.with_overrides(seats=seats, players=len(seats)))

    base = CHUNK_GAMES["lookahead"]
    assert search_cost("greedy", {}) == 0 and search_cost("ismcts", {}) == 1.0
    assert size({}, {}) == base
    assert size({"rollouts": 2}, {"rollouts": 2}) == 4 * base  # a quarter of the playouts
    assert size({"rollouts": 2}, {}) == int(base / 0.625)
    assert size({"horizon": 8}, {"horizon": 8}) == base // 2  # twice as deep
    assert size({"horizon": 0}, {"horizon": 0}) == max(1, int(base / WHOLE_GAME_DEPTH))
    assert size({"candidates": 100, "rollouts": 100}, {}) == 1


def test_points_of_faster_players_get_longer_chunks(small_study):
    seats = [{"policy": p} for p in ("lookahead", "random", "random", "random")]
    slow = small_study.with_overrides(seats=seats, games=400)
    fast = small_study.with_overrides(games=400)  # random and greedy
    sizes = chunk_sizes([slow, fast, slow], jobs=2)
    assert sizes[0] == sizes[2] == chunk_games([slow, fast, slow], 2) < sizes[1]
    assert sizes[1] == chunk_games([fast] * 3, 2)
    assert chunk_sizes([fast] * 3, jobs=2) == [chunk_games([fast] * 3, 2)] * 3


def test_a_resumed_run_keeps_the_chunk_size_it_started_with(small_study, tmp_path):
    first = run(small_study, jobs=1, out=tmp_path / "r", quiet=True)
    size = first.meta["chunk_games"]
    for part in (tmp_path / "r" / "games.parquet").glob("part-*.parquet"):
        part.unlink()
    resumed = run(None, resume=tmp_path / "r", jobs=3, quiet=True)  # six chunks, not four
    assert resumed.meta["chunk_games"] == size != chunk_games([small_study], 3)
    firsts = sorted(int(p.stem[5:]) for p in (tmp_path / "r" / "cards.parquet").glob("part-*"))
    assert firsts == list(range(0, small_study.games, size))


class DiesInAWorker:
    """A plug-in policy whose worker process dies at its first move, as if killed. The
    plug-in itself plays in a watched child of the worker (sim.runs.isolated), so it kills
    its parent, the worker; its own death is a test of tests/test_plugins.py."""

    parent = os.getpid()

    def choose(self, view, legal, rng):
        if os.getppid() != DiesInAWorker.parent and os.getpid() != DiesInAWorker.parent:
            os.kill(os.getppid(), signal.SIGKILL)  # the worker, under its watched child
        return legal[0].code


def test_a_dead_worker_fails_the_run_with_a_message(tmp_path):
    from sim.errors import SimError

    plugin = {"policy": f"{__name__}:DiesInAWorker"}
    study = load_study(BASE).with_overrides(
        players=2, seats=[plugin, {"policy": "random"}], games=100
    )
    with pytest.raises(SimError, match=r"worker process died.*--resume .*dies"):
        run(study, jobs=2, out=tmp_path / "dies", quiet=True, backend="fork")
    meta = json.loads((tmp_path / "dies" / "run.json").read_text())
    assert meta["status"] == "failed" and "worker process died" in meta["reason"]


def test_tables_are_tidy_and_consistent(one_worker, small_study):
    games, players, cards = one_worker.games, one_worker.players, one_worker.cards
    n, p = small_study.games, small_study.game.players
    assert len(games) == n and len(players) == n * p
    assert games.game.tolist() == list(range(n))
    # win shares of a game add to one; winners hold the top score
    assert np.allclose(players.groupby("game").win_share.sum(), 1.0)
    top = players.groupby("game").score.transform("max")
    assert (players.loc[players.win_share > 0, "score"] == top[players.win_share > 0]).all()
    assert (players.score == players.box_points + players.cat_bonus).all()
    # each seat rotation appears equally often, so each policy sits in each seat equally
    counts = players.groupby(["seat", "policy"]).size().unstack()
    assert counts.nunique().max() <= 2 and (counts.max() - counts.min()).max() <= n // p
    # every row carries the config hash and engine version
    for frame in (games, players, cards):
        assert frame.config_hash.nunique() == 1 and frame.engine_version.nunique() == 1
    # cards: one row per game, seat and card type; draws only of cards in the deck
    deck_total = sum(small_study.game.deck.boxes.values()) + 16 + 4 + 2
    drawn_or_dealt = cards.groupby("game")[["dealt", "drawn"]].sum().sum(axis=1)
    assert (drawn_or_dealt <= deck_total - 1).all()
    meta = json.loads((one_worker.run_dir / "run.json").read_text())
    assert meta["status"] == "complete" and meta["games"] == n


def test_cards_on_disk_skip_all_zero_rows_and_read_back_whole(one_worker, small_study):
    import pyarrow.parquet as pq

    from sim.engine.state import STAT_NAMES
    from sim.runs.play import play_arrays

    on_disk = pq.read_table(one_worker.run_dir / "cards.parquet").to_pandas()
    assert 0 < len(on_disk) < len(one_worker.cards)
    assert (on_disk[list(STAT_NAMES)] != 0).any(axis=1).all()
    dense = play_arrays(small_study, 0, small_study.games).cards
    read = one_worker.cards
    assert len(read) == dense.shape[0] * dense.shape[1] * dense.shape[2]
    assert (read[list(STAT_NAMES)].to_numpy() == dense.reshape(len(read), -1)).all()
    assert read.game.is_monotonic_increasing and read.card.cat.categories.size == dense.shape[2]


def test_resume_after_lost_chunks_equals_uninterrupted(one_worker, small_study, tmp_path):
    partial = tmp_path / "partial"
    run(small_study, jobs=1, out=partial, quiet=True)
    # as if the run had died while writing the second chunk: one table's part is missing
    parts = sorted((partial / "cards.parquet").glob("part-*.parquet"))
    assert len(parts) >= 3
    parts[1].unlink()
    resumed = run(None, resume=partial, jobs=2, quiet=True)
    _assert_same(one_worker, resumed)


def test_resume_after_killed_process_equals_uninterrupted(tmp_path):
    study = load_study(BASE).with_overrides(games=4000)  # on one worker: 4 chunks of 1,000
    full = run(study, jobs=1, out=tmp_path / "full", quiet=True)
    chunks = full.meta["games"] // full.meta["chunk_games"]
    killed = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "sim.cli",
        "run",
        str(BASE),
        "--games",
        str(study.games),
        "--jobs",
        "1",
        "--out",
        str(killed),
        "--quiet",
    ]
    proc = subprocess.Popen(cmd, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(killed.glob("cards.parquet/part-*.parquet"))) < 2:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = len(list(killed.glob("cards.parquet/part-*.parquet")))
    assert 2 <= written < chunks, "the kill should land mid-run"
    resumed = run(None, resume=killed, jobs=1, quiet=True)
    _assert_same(full, resumed)
    assert load_run(killed).games.equals(full.games)


def test_resume_refuses_a_different_config(one_worker, small_study):
    from sim.errors import SimError

    other = small_study.with_overrides(**{"deck.sprayers": 0})
    with pytest.raises(SimError, match="different config"):
        run(other, resume=one_worker.run_dir, quiet=True)


def test_greedy_seats_beat_random_seats(one_worker):
    by_policy = one_worker.players.groupby("policy").win_share.mean()
    assert by_policy["greedy"] > 2 * by_policy["random"]


def test_dask_backend_gives_the_same_tables(small_study, one_worker, tmp_path):
    with local_cluster() as cluster:
        on_dask = run(
            small_study,
            out=tmp_path / "dask",
            quiet=True,
            backend="dask",
            scheduler=cluster.scheduler_address,
        )
    _assert_same(one_worker, on_dask)
