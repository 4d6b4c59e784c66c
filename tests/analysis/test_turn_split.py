"""Turn structure on configs whose turn count is known, and the parity sentence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.analysis.balance import _turn_parity_clause, seat_win_shares, verdict
from sim.analysis.turn_split import (
    end_structure,
    extra_turns,
    parity_note,
    turn_decomposition,
    turn_wins,
    turns_per_seat,
)
from sim.config import load_study
from sim.runs import run_chunk
from sim.runs.partials import moments_of
from sim.studies.deck_parity import deck_scan, resized_boxes, scan_text

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


def counted(boxes: int, players: int = 3):
    """Box cards only, no cats: every normal turn draws one card (R3.1) and every final
    turn plays one (R7.2), so a game has exactly boxes − 1 turns (the start card is laid)."""
    half = boxes // 2
    return load_study(BASE).with_overrides(
        players=players,
        seats=[{"policy": "random"}] * players,
        cats_per_player=0,
        sleeping_per_player=0,
        **{"deck.boxes": {"": half, "N": boxes - half}, "deck.toys": {}, "deck.sprayers": 0,
           "deck.princesses": 0},
    )  # fmt: skip


@pytest.fixture(scope="module")
def uneven():
    """32 box cards, 3 players: 31 turns, so seat 0 takes 11 and seats 1 and 2 take 10."""
    return run_chunk(counted(32), 0, 40)


def test_turn_counts_follow_the_deck(uneven):
    games, players = uneven["games"], uneven["players"]
    assert (games["turns"] == 31).all() and (games["last_seat"] == 0).all()
    assert (games["trigger_seat"] == (31 - 3 * 3 - 1) % 3).all()  # who draws the last card
    counts = turns_per_seat(players)
    assert counts[["seat", "turns_taken", "share"]].values.tolist() == [
        [0, 11, 1.0], [1, 10, 1.0], [2, 10, 1.0]]  # fmt: skip
    assert extra_turns(players).sum().tolist() == [40, 0, 0]
    wins = turn_wins(players).set_index("seat")
    assert wins.loc[0, "extra_share"] == 1.0 and wins.loc[1, "extra_share"] == 0.0
    end = end_structure(games)
    assert end["last"]["last_seat"].tolist() == [0] and end["last"]["share"].iloc[0] == 1.0
    assert end["final"]["mean"].iloc[0] == 3 * 3  # every seat plays out its hand of 3


def test_equal_turns_when_the_deck_divides():
    """31 box cards, 3 players: 30 turns, 10 each; no parity sentence."""
    t = run_chunk(counted(31), 0, 40)
    assert (t["games"]["turns"] == 30).all()
    assert (t["players"]["turns_taken"] == 10).all()
    assert parity_note(t["games"], t["players"]) is None
    split = turn_decomposition(t["games"], t["players"])
    assert (split["turn_part"] == 0).all() and (split["n_level"] == 40).all()


def test_the_parity_sentence_names_the_seat_and_both_parts(uneven):
    note = parity_note(uneven["games"], uneven["players"])
    assert note.startswith("Turn parity: seat 0 takes one more turn than seats 1, 2 in 100%")
    assert "at equal turns its edge is" in note and "the extra turn adds" in note
    assert "-0.0%" not in note


def test_the_split_adds_up_to_the_seat_edge():
    """On the base game: equal-turn part + extra-turn part = win share − 1/n, per seat."""
    t = run_chunk(load_study(BASE), 0, 300)
    split = turn_decomposition(t["games"], t["players"]).set_index("seat")
    seats = seat_win_shares(t["players"]).set_index("seat")
    whole = seats["win_share"] - seats["fair"]
    np.testing.assert_allclose(split["equal_part"] + split["turn_part"], whole, atol=1e-12)
    np.testing.assert_allclose(split["edge"], whole, atol=1e-12)
    assert (split["equal_lo"] <= split["equal_part"]).all()
    assert (split["turn_part"] <= split["turn_hi"]).all()
    assert split["turn_part"].sum() == pytest.approx(0.0, abs=1e-12)  # shares move between seats
    # a run page's split: the estimates of every game's merged moments, the same numbers
    # (rounding apart) when the rows are every game; the check on level games from the rows
    merged = turn_decomposition(t["games"], t["players"], moments_of(t)).set_index("seat")
    pd.testing.assert_frame_equal(merged, split, rtol=1e-12, atol=1e-15)


def test_deck_scan_finds_the_equal_turn_deck_sizes():
    scan = deck_scan(counted(32), players=[3], games=20)
    assert scan["boxes"].tolist() == list(range(29, 36))
    assert (scan["turns"] == scan["boxes"] - 1).all()
    assert scan.loc[scan["all_equal"], "boxes"].tolist() == [31, 34]  # (boxes − 1) % 3 == 0
    text = scan_text(counted(32), scan)
    assert "every seat equal" in text and "(config)" in text


@pytest.mark.parametrize("total", [1, 40, 47, 55])
def test_resized_boxes_keep_the_mix_and_hit_the_total(total):
    base = {"": 6, "N": 8, "E": 6, "NS": 4}
    got = resized_boxes(base, total)
    assert sum(got.values()) == total and list(got) == list(base)
    share = pd.Series(got) / total - pd.Series(base) / 24
    assert share.abs().max() <= 1 / total + 1e-12


def test_the_seat_verdict_says_how_much_of_a_first_player_edge_is_the_extra_turn():
    """The base line-up at 4 players: seat 0 takes a 15th turn in almost every game, and its
    real edge is mostly that turn, so the verdict splits it instead of calling it a
    first-player advantage alone (issue 12's misattribution)."""
    t = run_chunk(load_study(BASE), 0, 3000)
    text = verdict(t["players"], moments_of(t))
    assert "a real first-player advantage" in text, text
    assert "seat 0 takes an extra turn in 9" in text and "comes from the extra turn" in text
    assert "mostly turn parity" in text


def test_no_turn_clause_when_the_seats_take_equal_turns():
    """31 box cards, 3 players: equal turns, so nothing is said of an extra turn."""
    t = run_chunk(counted(31), 0, 40)
    assert _turn_parity_clause(moments_of(t)) == ""
