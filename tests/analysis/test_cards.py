"""Card impact on a tiny hand-made run."""

from __future__ import annotations

import pandas as pd
import pytest

from sim.analysis.cards import card_impact, held, played

STATS = ["dealt", "drawn", "played", "discarded", "wasted", "into_led", "into_other"]


def _cards(rows):
    return pd.DataFrame(rows, columns=["game", "seat", "card", *STATS])


@pytest.fixture
def tiny():
    # four games, two seats; win shares (and scores):
    #   game 0: seat 0 wins          game 1: tie
    #   game 2: seat 0 wins          game 3: seat 0 wins
    players = pd.DataFrame(
        {
            "game": [0, 0, 1, 1, 2, 2, 3, 3],
            "seat": [0, 1] * 4,
            "win_share": [1, 0, 0.5, 0.5, 1, 0, 1, 0],
            "score": [4, 1, 2, 2, 3, 0, 2, 1],
        }
    )
    # box:N held (dealt or drawn) by g0 s0 (dealt), g1 s1 (drawn) and g2 s0 (both);
    # never by the other five seat-games; g1 s1 discarded its copy instead of playing it
    box = [
        (0, 0, "box:N", 1, 0, 1, 0, 0, 0, 0),
        (0, 1, "box:N", 0, 0, 0, 0, 0, 0, 0),
        (1, 0, "box:N", 0, 0, 0, 0, 0, 0, 0),
        (1, 1, "box:N", 0, 1, 0, 1, 0, 0, 0),
        (2, 0, "box:N", 1, 1, 2, 0, 0, 0, 0),
        (2, 1, "box:N", 0, 0, 0, 0, 0, 0, 0),
        (3, 0, "box:N", 0, 0, 0, 0, 0, 0, 0),
        (3, 1, "box:N", 0, 0, 0, 0, 0, 0, 0),
    ]
    # toy:yarn: only drawing counts (a toy is never kept in hand, R5.1); g3 s1 drew one and
    # wasted it (not played), g0 s0 drew one and placed it into a box it leads (played)
    toy = [
        (0, 0, "toy:yarn", 0, 1, 0, 0, 0, 1, 0),
        (0, 1, "toy:yarn", 0, 0, 0, 0, 0, 0, 0),
        (1, 0, "toy:yarn", 0, 0, 0, 0, 0, 0, 0),
        (1, 1, "toy:yarn", 0, 0, 0, 0, 0, 0, 0),
        (2, 0, "toy:yarn", 0, 0, 0, 0, 0, 0, 0),
        (2, 1, "toy:yarn", 0, 0, 0, 0, 0, 0, 0),
        (3, 0, "toy:yarn", 0, 0, 0, 0, 0, 0, 0),
        (3, 1, "toy:yarn", 0, 1, 0, 0, 1, 0, 0),
    ]
    return _cards(box + toy), players


def test_held_and_played_rules(tiny):
    cards, _ = tiny
    assert held(cards).tolist() == [
        True,
        False,
        False,
        True,
        True,
        False,
        False,
        False,
        True,
        False,
        False,
        False,
        False,
        False,
        False,
        True,
    ]
    assert played(cards).tolist()[8:] == [True] + [False] * 7
    assert played(cards).tolist()[:8] == [True, False, False, False, True, False, False, False]


def test_box_card_impact_by_hand(tiny):
    cards, players = tiny
    row = card_impact(cards, players).set_index("card").loc["box:N"]
    # held: g0s0 1, g1s1 .5, g2s0 1 -> .833333 (n 3)
    # never: g0s1 0, g1s0 .5, g2s1 0, g3s0 1, g3s1 0 -> .3 (n 5)
    # difference .533333; cluster-robust interval as in test_stats: [-.001947, 1.068613]
    assert (row["n_held"], row["n_never"]) == (3, 5)
    assert row["win_held"] == pytest.approx(0.833333, abs=1e-6)
    assert row["win_never"] == pytest.approx(0.3)
    assert row["improvement"] == pytest.approx(0.533333, abs=1e-6)
    assert row["lo"] == pytest.approx(-0.001947, abs=1e-5)
    assert row["hi"] == pytest.approx(1.068613, abs=1e-5)
    # played by g0s0 (score 4, won) and g2s0 (score 3, won)
    assert row["n_played"] == 2
    assert row["win_played"] == 1.0
    assert row["score_played"] == 3.5
    assert row["kind"] == "box"


def test_toy_impact_and_sorting(tiny):
    cards, players = tiny
    impact = card_impact(cards, players)
    toy = impact.set_index("card").loc["toy:yarn"]
    # held: g0s0 1, g3s1 0 -> .5; never: the other six, 0 .5 .5 1 0 1 -> .5; difference 0
    assert (toy["n_held"], toy["n_never"]) == (2, 6)
    assert toy["improvement"] == pytest.approx(0.0)
    assert toy["n_played"] == 1 and toy["score_played"] == 4
    assert impact["card"].tolist() == ["box:N", "toy:yarn"]  # best improvement first


def test_impact_by_policy(tiny):
    cards, players = tiny
    players = players.assign(policy=["greedy", "random"] * 4)
    impact = card_impact(cards, players, by="policy")
    assert set(impact["policy"]) == {"greedy", "random"}
    assert impact.groupby("policy")["n_held"].sum().sum() == 5


@pytest.mark.parametrize("cut", [None, "cards", "players"])
def test_the_pages_one_pass_gives_card_impacts_own_table(cut):
    """`card_impacts` (the run page's one pass: on a run's table one matrix for every kind,
    beside the adjusted fits) gives `card_impact`'s table, found kind by kind by its own
    groupby (to rounding: a matrix product sums in its own order); also on a table cut by
    hand (the sprayer's rows of a third of the games gone, or a game's players rows: each
    kind taken alone, exactly the same)."""
    from sim.analysis.cards import card_impacts
    from sim.config import load_study
    from sim.runs import run_chunk

    tables = run_chunk(load_study("configs/base.yaml").with_overrides(games=300), 0, 300)
    cards, players = tables["cards"], tables["players"]
    if cut == "cards":
        cards = cards[(cards["game"] % 3 != 0) | (cards["card"] != "sprayer")]
    if cut == "players":
        players = players[players["game"] != 7]
    impact, adjusted = card_impacts(cards, players)
    own = card_impact(cards, players)
    pd.testing.assert_frame_equal(impact, own, check_exact=bool(cut), rtol=1e-12, atol=1e-15)
    assert set(adjusted["card"]) == set(impact["card"])
