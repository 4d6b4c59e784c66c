"""The feel of a chunk in one compiled pass (`sim.feel.kernel`) is numpy's, bit for bit: on
real chunks of every player count (R2.1: 2 to 5) and on made-up games at the edges (a game
of no rounds, tied winners, a game longer than numpy's 128-value block of a sum)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.feel import kernel
from sim.feel.model import fit_model
from sim.metrics import FEEL_COLUMNS


@pytest.fixture(scope="module")
def base_study():
    from sim.config import load_study

    return load_study(Path(__file__).resolve().parents[2] / "configs" / "base.yaml")


@pytest.fixture(scope="module")
def model(base_study):
    """A model fitted on 400 pilot games of the base study: what it predicts does not
    matter here, only that both paths walk the same trees."""
    from sim.runs.chances import lineup_names, pilot_arrays

    names = lineup_names([base_study])
    pilots = pilot_arrays([base_study.with_overrides(games=400)], [400], 7, names)
    kernel.load()
    return fit_model(pilots, names, seed=3)


def _same(model, trace, rounds, player, won) -> None:
    compiled = kernel.per_game(model, trace, rounds, player, won)
    assert compiled is not None
    reference = model.per_game_numpy(trace, rounds, player, won)
    assert tuple(compiled) == tuple(reference) == FEEL_COLUMNS
    for name in FEEL_COLUMNS:
        assert np.array_equal(compiled[name], reference[name]), name


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_kernel_is_numpys_feel_on_real_chunks(model, base_study, players):
    from sim.runs.play import play_arrays

    study = base_study.with_overrides(players=players, seats=[{"policy": "random"}] * players)
    chunk = play_arrays(study, 0, 300)
    player = np.zeros((300, players), np.int64)
    _same(model, chunk.trace, chunk.rounds, player, chunk.win_shares())


@pytest.mark.parametrize("seats,most", [(1, 3), (2, 7), (4, 20), (5, 140)])
def test_the_kernel_is_numpys_feel_at_the_edges(model, seats, most):
    """Random score traces with games of 0 to `most` rounds, ties for the lead and for the
    win, several player numbers: a step sum of every length numpy adds differently."""
    rng = np.random.default_rng(seats * 1000 + most)
    count = 200
    trace = rng.integers(-2, 12, (count, most, seats)).astype(np.int16)
    rounds = rng.integers(0, most + 1, count).astype(np.int16)
    rounds[:3] = (0, most, 1)
    player = rng.integers(0, 3, (count, seats))
    winner = rng.integers(0, seats, count)
    won = np.zeros((count, seats))
    won[np.arange(count), winner] = 1.0
    tied = rng.random(count) < 0.3
    won[tied] = 1.0 / seats  # everyone shares the win (R8.6)
    _same(model, trace, rounds, player, won)


def test_the_kernel_is_used_only_where_it_was_loaded_and_fits(model, monkeypatch):
    """A process that plays games loaded the kernel and its chunks' feel is computed by
    it; a page's process (not loaded) and a trace of another type are computed by numpy."""
    trace = np.zeros((2, 3, 4), np.int16)
    args = (np.array([3, 2], np.int16), np.zeros((2, 4), np.int64), np.full((2, 4), 0.25))
    calls = []
    per_game = kernel.per_game
    monkeypatch.setattr(kernel, "per_game", lambda *a: calls.append(1) or per_game(*a))
    assert kernel.per_game(model, trace.astype(np.int64), *args) is None  # not its type
    reference = model.per_game_numpy(trace, *args)
    for loaded, used in ((True, [1, 1]), (False, [1, 1])):
        monkeypatch.setattr(kernel, "LOADED", loaded)
        done = model.per_game(trace, *args)
        assert calls == used and all(np.array_equal(done[k], reference[k]) for k in done)
