"""The pages' first sentences (sim.analysis.findings): at most two, within LEAD_LIMIT
characters, in a designer's words, with one number for seat 0's edge and its line-up."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from sim.analysis.answers import SeatAnswer, SeatShare
from sim.analysis.findings import (
    LEAD_LIMIT,
    ablation_lines,
    ladder_headline,
    lead,
    lineup_text,
    luck_headline,
    replay_headline,
    run_headline,
    tune_headline,
    value_headline,
)

MIXED = ["greedy", "greedy", "random", "random"]


def sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?:\s|$)", text))


def answer(call: str, share: float = 0.286, players: int = 4, **extra) -> SeatAnswer:
    fair = 1 / players
    out = {"players": players, "fair": fair, "games": 10_000, "call": call,
           "seat0": SeatShare(0, share, share - 0.008, share + 0.008, share - fair),
           "gap": 0.018, "gap_seat": 1, "apart": (), "turn": None,
           "policies": (("greedy", 0.412), ("random", 0.088))}  # fmt: skip
    out.update(extra)
    return SeatAnswer(**out)


TURN = {"extra": 0.99, "turn": {"value": 0.035, "lo": 0.032, "hi": 0.039},
        "equal": {"value": 0.0, "lo": -0.008, "hi": 0.008}, "mostly_turn": True}  # fmt: skip


def test_the_base_games_answer_reads_as_a_designer_would_say_it():
    text = run_headline(answer("advantage", turn=TURN), MIXED)
    assert text == (
        "Mixed players (2 greedy, 2 random, seats rotated): seat 0 wins 28.6% of games,"
        " 3.6 pp more than a fair share, mostly from its extra turn. Every other seat is"
        " within 1.8 pp of a fair share."
    )
    assert len(text) <= LEAD_LIMIT and text.count("pp") == 2  # seat 0's edge: one number


@pytest.mark.parametrize(
    ("case", "words"),
    [
        (answer("noise", 0.253), "against a fair 25.0%, within noise"),
        (answer("disadvantage", 0.22), "3.0 pp less than a fair share"),
        (answer("differ", 0.251, gap=0.03, gap_seat=3,
                apart=(SeatShare(3, 0.28, 0.28, 0.28, 0.03),)),
         "but the seats differ. Also apart from the rest: seat 3 wins 28.0% (+3.0 pp)."),
        (answer("advantage", 0.56, players=2), "6.0 pp more than a fair share."),
        (answer("confounded"), "no seat verdict is given"),
        (answer("advantage", turn={**TURN, "mostly_turn": False,
                                   "equal": {"value": 0.02, "lo": 0.01, "hi": 0.03}}),
         "even at equal turns"),
    ],
)  # fmt: skip
def test_every_call_has_its_words_within_the_limit(case, words):
    labels = ["greedy"] * case.players
    text = run_headline(case, labels)
    assert words in text, text
    assert len(text) <= LEAD_LIMIT and sentences(text) <= 2
    assert text.startswith("Equal players (every seat greedy): ")


def test_two_seats_say_nothing_twice():
    text = run_headline(answer("advantage", 0.56, players=2), ["greedy", "greedy"])
    assert sentences(text) == 1 and "Every other seat" not in text


def test_lineups():
    assert lineup_text(["greedy"] * 3) == "equal players (every seat greedy)"
    assert lineup_text(MIXED, rotated=False).endswith("seats not rotated)")
    assert lineup_text(MIXED, short=True) == "mixed players"


def test_a_second_sentence_that_does_not_fit_is_left_out():
    first = "A" * 200 + "."
    assert lead(first, "B" * 60 + ".") == first
    assert lead("One.", "Two.") == "One. Two."
    assert lead("", "Only.") == "Only."


def test_tune_value_ladder_luck_and_replay_leads():
    targets = {"first_player_advantage": {"estimate": 0.001, "start": {"estimate": 0.03}},
               "turns": {"estimate": 59.0, "start": {"estimate": 57.0}}}  # fmt: skip
    text = tune_headline({"status": "recommended", "targets": targets,
                          "changes": ["deck.boxes.NS 4 → 6 (48 → 50 box cards)"]},
                         "mixed players")  # fmt: skip
    assert text.startswith("Change deck.boxes.NS 4 → 6 (48 → 50 box cards): on fresh games it")
    assert "meets both targets (first-player advantage +0.1 pp, was +3.0 pp;" in text
    text = tune_headline({"status": "no change needed", "targets": targets}, "mixed players")
    assert text.startswith("No change needed") and "was" not in text
    text = tune_headline({"status": "not met", "targets": targets, "chosen": "deck.sprayers=2",
                          "finalists": [{"label": "deck.sprayers=2", "met": 1}]}, "x")  # fmt: skip
    assert "the closest, deck.sprayers=2, meets 1 of 2" in text

    values = pd.DataFrame({"option": ["cat", "box:N", "box:"], "value": [31.8, 2.9, -0.2],
                           "real": [True, False, False]})  # fmt: skip
    ablation = pd.DataFrame({"card": ["box:N", "box:"], "measure": ["first_player"] * 2,
                             "label": ["seat 0's win share"] * 2, "unit": ["pp"] * 2,
                             "change": [-6.2, -4.0], "lo": [-9.3, -7.1], "hi": [-3.1, -1.0],
                             "p_adj": [0.003, 0.2], "real": [True, False]})  # fmt: skip
    text = value_headline(values, ablation, 0, "greedy", "mixed players")
    assert "cat 31.8 pp; 2 other options make no real difference" in text
    assert "one box:N card fewer changes seat 0's win share most: -6.2 pp" in text
    table = ablation_lines(ablation)
    assert "box:(no walls)" in table[-1] and "-6.2 pp [-9.3, -3.1]*" in table[2]

    steps = pd.DataFrame({"step": [1, 2], "lower_step": [0, 1], "players": [2, 2],
                          "share": [0.97, 0.54]})  # fmt: skip
    ratings = pd.DataFrame({"rung": ["random", "heuristic", "greedy"], "elo": [0, 267, 286]})
    text = ladder_headline(steps, ratings, ["random", "heuristic", "greedy"], 1, 0.6)
    assert text == ("Skill pays for 1 of 2 steps up the ladder: greedy does not clearly win"
                    " 60.0% of heads-up games against heuristic (54.0%). The ratings put"
                    " greedy 286 Elo above random.")  # fmt: skip

    luck = pd.DataFrame({"policy": ["greedy", "greedy", "random"],
                         "deal_share": [0.024, 0.04, 0.011],
                         "outcome": ["win_share", "lead", "win_share"]})  # fmt: skip
    text = luck_headline(luck)
    assert text.startswith(
        "The deal (shuffle and hands) explains 2.4% of the variance of"
        " who wins with every seat greedy, 1.1% with every seat random."
    )

    text = replay_headline(["greedy", "greedy"], [5, 3], [0], 40, "deck_empty", True)
    assert text == ("Seat 0 (greedy) wins with 5 points, 2 points ahead of the next seat. The"
                    " game lasted 40 turns and ended when the deck ran out.")  # fmt: skip
    assert "share the win" in replay_headline(["a", "b"], [4, 4], [0, 1], 9, "last_cat", True)
    assert "not finished" in replay_headline(["a", "b"], [0, 0], [], 3, "none", False)


def test_the_deck_sizes_that_equalise_turns_are_named_against_the_configs():
    from sim.analysis.findings import deck_parity_text

    scan = pd.DataFrame({"boxes": [46, 47, 48, 51], "equal": [0.0, 0.995, 0.01, 0.99],
                         "all_equal": [False, True, False, True]})  # fmt: skip
    assert deck_parity_text(scan, 48) == (
        "With 47 or 51 box cards (this config: 48), every seat takes the same number of turns"
        " in 99.5% and 99.0% of games."
    )
    assert deck_parity_text(scan, 47) == ""  # the config's own deck already does
    assert deck_parity_text(scan.assign(all_equal=False), 48) == ""
