"""Restricted-play analysis: slot outcomes, option uses, paired effects, their calibration."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis import restricted as R


def _players() -> pd.DataFrame:
    """Two games, three seats; slot 0 sits in seat 0, then seat 1."""
    return pd.DataFrame(
        {
            "game": [0, 0, 0, 1, 1, 1],
            "seat": [0, 1, 2, 0, 1, 2],
            "slot": [0, 1, 2, 2, 0, 1],
            "score": [5, 3, 1, 2, 2, 7],
            "win_share": [1.0, 0, 0, 0, 0, 1.0],
            "sleeping_placed": [1, 0, 0, 0, 2, 0],
            "cats_placed": [3, 1, 0, 0, 4, 1],
        }
    )


def test_slot_outcomes_follow_the_slot_round_the_seats():
    out = R.slot_outcomes(_players(), 0)
    assert out["score"].tolist() == [5, 2]
    assert out["lead"].tolist() == [2, -5]  # 5 - 3; 2 - 7
    assert out["win_share"].tolist() == [1.0, 0.0]


def test_option_uses_read_cards_and_seat_counters():
    cards = pd.DataFrame(
        {"game": [0, 1, 1], "seat": [0, 1, 0], "card": ["princess", "princess", "princess"],
         "played": [1, 2, 5]}
    )  # fmt: skip
    players = _players()
    assert R.option_uses(players, cards, 0, "princess").tolist() == [1.0, 2.0]
    assert R.option_uses(players, cards, 0, "cat").tolist() == [3.0, 4.0]
    assert R.option_uses(players, cards, 0, "sleeping").tolist() == [1.0, 2.0]
    assert R.option_uses(players, cards, 0, "box:N").tolist() == [0.0, 0.0]


def test_identical_games_give_an_exact_zero():
    x = pd.Series(np.random.default_rng(0).random(50))
    eff = R.paired_effect(x, x.copy())
    assert eff["estimate"] == 0 and eff["lo"] == eff["hi"] == 0 and eff["p"] == 1.0
    assert eff["identical"]


def test_paired_intervals_cover_a_true_null_at_their_level():
    """Under a true null (exchangeable outcomes, correlated within a game) about 95% of the
    paired intervals hold 0, and the p-value rejects about 5% of the time."""
    rng = np.random.default_rng(7)
    covered = rejected = 0
    reps = 400
    for _ in range(reps):
        luck = rng.random(300)
        a = pd.Series((luck + 0.3 * rng.random(300) > 0.75).astype(float))
        b = pd.Series((luck + 0.3 * rng.random(300) > 0.75).astype(float))
        eff = R.paired_effect(a, b)
        covered += eff["lo"] <= 0 <= eff["hi"]
        rejected += eff["p"] < 0.05
    assert 0.92 <= covered / reps <= 0.98
    assert rejected / reps <= 0.08


def test_holm_controls_the_family():
    table = pd.DataFrame({"p": [0.001, 0.02, 0.04, 0.5]})
    out = R.holm(table)
    assert out["real"].tolist() == [True, False, False, False]
    assert (out["p_adj"] >= out["p"]).all()
