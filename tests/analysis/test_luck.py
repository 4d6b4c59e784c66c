"""The luck gauge's pieces: each seat's lead over the best other seat, and the deal's share."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.ladder import icc, seat_outcomes


def test_lead_is_score_minus_the_best_other_seat():
    games = pd.DataFrame(
        {  # games out of order and not numbered 0..n-1; a tie for the top; 2 to 4 seats
            "game": np.repeat([5, 9, 2, 7], [2, 3, 2, 4]),
            "seat": [0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 3],
            "score": [3, 3, 1, 5, 5, -2, 0, 4, 4, 4, 1],
            "win_share": 0.0,
        }
    ).sample(frac=1, random_state=2)
    lead = seat_outcomes(games).set_index(["game", "seat"])["lead"]
    expected = {
        (5, 0): 0,
        (5, 1): 0,
        (9, 0): -4,
        (9, 1): 0,
        (9, 2): 0,
        (2, 0): -2,
        (2, 1): 2,
        (7, 0): 0,
        (7, 1): 0,
        (7, 2): 0,
        (7, 3): -3,
    }
    assert {k: int(v) for k, v in lead.items()} == expected


def test_deal_share_is_one_when_only_the_deal_matters_and_zero_when_it_does_not():
    rng = np.random.default_rng(0)
    by_deal = np.repeat(rng.normal(size=(200, 1, 4)), 5, axis=1)  # replays identical
    assert icc(by_deal) == 1.0
    no_deal = rng.normal(size=(400, 5, 4))  # every replay drawn afresh
    assert icc(no_deal) < 0.05
