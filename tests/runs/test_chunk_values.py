"""What a worker computes per chunk by a fast path equals the definition exactly: the
per-game values straight from a chunk's arrays (`sim.runs.values`) are
`sim.analysis.values.game_values` of the chunk's tables, every column in the same order,
and the compiled tension summary (`sim.runs.results.tension_arrays`) is
`sim.analysis.tension.trace_summary`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.analysis.moments import Moments
from sim.analysis.tension import TENSION_COLUMNS, trace_summary
from sim.analysis.values import game_values
from sim.config import load_study
from sim.runs.play import play_arrays
from sim.runs.results import ChunkArrays
from sim.runs.tables import tables
from sim.runs.values import chunk_values, moments_of_columns, value_columns

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


def _studies():
    base = load_study(BASE)
    yield "base: greedy and random seats, rotated", base
    two = [{"policy": "random", "label": "a"}, {"policy": "random", "label": "b"}]
    yield (
        "two players, labelled seats, no rotation",
        base.with_overrides(players=2, seats=two, rotate_seats=False),
    )
    five = base.with_overrides(players=5, seats=[{"policy": "random"}] * 5)
    yield "five players, one policy", five
    variant = base.with_overrides(
        seats=[{"policy": "random"}] * 4,
        rules={"evicted_cat": "discard", "sleeping_counts_for_majority": False},
        deck={"sprayers": 0, "princesses": 5},
    )
    yield "rule variants, no sprayers, more Princesses", variant


@pytest.mark.parametrize(
    "name,study", list(_studies()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_chunk_values_are_the_definitions_values_on_the_tables(name, study):
    chunk = play_arrays(study, 37, 400)  # a chunk that does not start at game 0
    frames = tables(study, chunk)
    expected = game_values(frames["games"], frames["players"], frames["cards"])
    got = chunk_values(study, chunk)
    assert list(got.columns) == list(expected.columns)
    assert got.index.equals(expected.index)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    # the columns that would hide a wrong index: every one of them moves
    for column in ("fpa", "turns", "final_phase", "lead_changes", "dead_cards", "level0"):
        assert got[column].nunique() > 1, column


@pytest.mark.parametrize(
    "name,study", list(_studies())[::3], ids=lambda v: v if isinstance(v, str) else ""
)
def test_chunk_moments_are_the_moments_of_the_definitions_values(name, study):
    """The worker's moments (one matrix, no DataFrame) are those of the table's values, bit
    for bit: the same columns, and every sum added in the same order."""
    chunk = play_arrays(study, 11, 300)
    frames = tables(study, chunk)
    expected = Moments.of(game_values(frames["games"], frames["players"], frames["cards"]))
    got = moments_of_columns(value_columns(study, chunk))  # what a worker saves
    assert got.columns == expected.columns and got.n == expected.n == 300
    for part in ("mean", "m2", "nonbinary", "lo", "hi", "m3", "m4"):
        np.testing.assert_array_equal(getattr(got, part), getattr(expected, part), err_msg=part)


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_the_compiled_tension_summary_is_the_definitions(players):
    """Random traces with many ties (scores 0-3), every round count from none to all, and a
    real chunk's traces: each column equal, value for value, dtype for dtype."""
    rng = np.random.default_rng(players)
    count, most = 3000, 7
    trace = rng.integers(0, 4, (count, most, players)).astype(np.int16)
    rounds = rng.integers(0, most + 1, count).astype(np.int16)
    chunks = [(trace, rounds)]
    if players == 4:
        real = play_arrays(load_study(BASE), 0, 300)
        chunks.append((real.trace, real.rounds))
    for trace, rounds in chunks:
        empty = np.zeros((len(rounds), 0, 0), np.int64)
        chunk = ChunkArrays(0, empty, empty, empty, empty, trace, rounds)
        expected = trace_summary(trace, rounds)
        assert set(chunk.tension) == set(TENSION_COLUMNS)
        for name in TENSION_COLUMNS:
            np.testing.assert_array_equal(chunk.tension[name], expected[name], err_msg=name)
            assert chunk.tension[name].dtype == expected[name].dtype, name
        if players > 1:  # each outcome occurs: nothing passes for being constant
            assert chunk.tension["comeback"].any() and not chunk.tension["comeback"].all()
            assert not chunk.tension["open_before_last"].all()
            assert len(np.unique(chunk.tension["lead_changes"])) > 2
