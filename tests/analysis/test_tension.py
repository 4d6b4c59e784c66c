"""Tension metrics on hand-made score traces: lead changes, decided-at, comeback, open."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.analysis.tension import (
    COMEBACK_POINTS,
    OPEN_POINTS,
    equal_turn_scores,
    leader_margins,
    margin_bands,
    tension_summary,
    trace_arrays,
    trace_summary,
)


def _one(rows: list[list[int]]) -> dict:
    """trace_summary of a single game given as rounds x seats, as plain Python values."""
    trace = np.array([rows])
    out = trace_summary(trace, np.array([len(rows)]))
    return {k: v[0].item() for k, v in out.items()}


def test_a_wire_to_wire_win():
    #        seat 0  seat 1
    rows = [[1, 0],  # round 1: seat 0 leads alone
            [2, 0],
            [3, 1],
            [4, 1]]  # final  # fmt: skip
    got = _one(rows)
    assert got["lead_changes"] == 0
    assert got["decided_round"] == 1 and got["decided_at"] == pytest.approx(1 / 4)
    assert not got["comeback"]
    assert got["open_before_last"] == (3 - 1 <= OPEN_POINTS)


def test_lead_changes_ignore_ties_and_decided_at_needs_the_lead_for_good():
    #        0  1  2
    rows = [[0, 0, 0],  # all level: no leader yet
            [1, 0, 0],  # seat 0 leads
            [1, 1, 0],  # tie for the lead: no change
            [1, 2, 0],  # seat 1 leads: change 1
            [3, 2, 0],  # seat 0 again: change 2
            [3, 3, 1],  # tie
            [3, 5, 1]]  # seat 1 wins: change 3  # fmt: skip
    got = _one(rows)
    assert got["lead_changes"] == 3
    # the winner (seat 1) leads alone only from the last round on
    assert got["decided_round"] == 7 and got["decided_at"] == 1.0
    # half time is round ceil(7 / 2) = 4, where the winner led: no comeback
    assert not got["comeback"]
    # before the last round seats 0 and 1 were level
    assert got["open_before_last"]


def test_a_comeback_from_last_place_and_from_far_behind():
    # 4 rounds: half time is round 2; the winner (seat 2) was last there
    last = [[1, 1, 0], [2, 1, 0], [2, 2, 3], [2, 2, 4]]
    assert _one(last)["comeback"]
    # not last (seat 2 is lower) but COMEBACK_POINTS behind the leader at half time ...
    k = COMEBACK_POINTS
    far = [[1, 1 + k, 0], [1, 1 + k, 0], [5, 3, 0], [6, 3, 0]]
    assert _one(far)["comeback"]
    # ... and one point less is no comeback
    near = [[1, k, 0], [1, k, 0], [5, 3, 0], [6, 3, 0]]
    assert not _one(near)["comeback"]


def test_a_shared_win_is_decided_once_only_winners_lead():
    rows = [[2, 0, 0], [2, 2, 0], [3, 3, 1], [3, 3, 2]]  # seats 0 and 1 share the win
    got = _one(rows)
    assert got["decided_round"] == 1  # from round 1 every leader is one of the winners
    assert got["lead_changes"] == 0


def test_open_before_last_is_a_lead_of_at_most_open_points():
    shut = [[0, 0], [OPEN_POINTS + 1, 0], [OPEN_POINTS + 2, 0]]
    assert not _one(shut)["open_before_last"]
    close = [[0, 0], [OPEN_POINTS, 0], [OPEN_POINTS, 5]]
    assert _one(close)["open_before_last"]
    assert _one([[3, 0]])["open_before_last"]  # one round only: nothing before it


def test_games_of_different_lengths_in_one_array():
    """Rounds past a game's end (zeros in the array) never count."""
    trace = np.zeros((2, 4, 2), np.int16)
    trace[0, :2] = [[0, 1], [2, 1]]  # 2 rounds: seat 1 then seat 0
    trace[1] = [[1, 0], [1, 2], [3, 2], [3, 4]]
    out = trace_summary(trace, np.array([2, 4]))
    assert out["lead_changes"].tolist() == [1, 3]
    assert out["decided_round"].tolist() == [2, 4]
    assert out["decided_at"].tolist() == [1.0, 1.0]
    margins = leader_margins(trace, np.array([2, 4]))
    assert np.isnan(margins[0, 2:]).all() and margins[1].tolist() == [1, 1, 1, 1]


def test_equal_turn_scores_take_the_round_of_the_fewest_turns():
    trace = np.array([[[1, 0, 0], [2, 1, 0], [4, 1, 0]]])  # seat 0 took a 3rd turn alone
    assert equal_turn_scores(trace, np.array([[3, 2, 2]])).tolist() == [[2, 1, 0]]
    assert equal_turn_scores(trace, np.array([[3, 3, 3]])).tolist() == [[4, 1, 0]]


def test_the_turns_table_round_trips_and_summarises():
    rows = [(g, s, r, 10 * g + s * r) for g in (3, 7) for s in range(2) for r in range(1, 4)]
    turns = pd.DataFrame(rows, columns=["game", "seat", "round", "score"])
    ids, trace, rounds = trace_arrays(turns)
    assert ids.tolist() == [3, 7] and rounds.tolist() == [3, 3]
    assert trace[1, 2].tolist() == [70, 73]
    bands = margin_bands(turns)
    assert bands["round"].tolist() == [1, 2, 3] and bands["q50"].tolist() == [1, 2, 3]
    games = pd.DataFrame(trace_summary(trace, rounds))
    summary = tension_summary(games).set_index("metric")
    assert summary.loc["lead_changes", "mean"] == 0 and summary.loc["comeback", "mean"] == 0
    assert (summary["n"] == 2).all() and summary["meaning"].str.len().min() > 20
