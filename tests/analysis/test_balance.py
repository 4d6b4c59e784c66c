"""Balance tables on hand-made frames, checked against values worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from sim.analysis import balance as B
from sim.analysis import flow as F


def _players(rows):
    """A players frame from (game, seat, policy, score) rows; win shares follow R8.6."""
    p = pd.DataFrame(rows, columns=["game", "seat", "policy", "score"])
    best = p.groupby("game")["score"].transform("max")
    won = p["score"] == best
    p["win_share"] = won / won.groupby(p["game"]).transform("sum")
    return p


@pytest.fixture
def two_seats():
    # seat 0 wins games 0-2, game 3 is a tie:
    #   seat 0 shares 1, 1, 1, .5 -> .875; seat 1 shares 0, 0, 0, .5 -> .125
    rows = [
        (0, 0, "A", 3),
        (0, 1, "B", 1),
        (1, 0, "B", 2),
        (1, 1, "A", 0),
        (2, 0, "A", 5),
        (2, 1, "B", 4),
        (3, 0, "B", 2),
        (3, 1, "A", 2),
    ]
    return _players(rows)


@pytest.fixture
def two_games(two_seats):
    return pd.DataFrame(
        {
            "game": [0, 1, 2, 3],
            "tie": [False, False, False, True],
            "margin": [2, 2, 1, 0],
            "turns": [10, 12, 11, 9],
        }
    )


def test_seat_win_shares(two_seats):
    t = B.seat_win_shares(two_seats)
    assert t["win_share"].tolist() == [0.875, 0.125]
    assert t["fair"].tolist() == [0.5, 0.5]
    assert t["vs_fair"].tolist() == [0.375, -0.375]
    assert t["n"].tolist() == [4, 4]


def test_balance_metrics(two_seats, two_games):
    m = B.balance_metrics(two_games, two_seats).set_index("metric")
    # balance = 1 - (.875 - .125) = .25
    assert m.loc["balance", "value"] == pytest.approx(0.25)
    # first-player advantage = .875 - 1/2; seat 0's shares 1, 1, 1, .5 have a tie, so the
    # mean's interval (sim.analysis.intervals.mean_bounds), by hand: the t interval
    # (s = .25, se = .125, t(3) = 3.182446, half .397806) is [.477194, 1.272806]; Wilson's
    # on the observed range [.5, 1] (p = .75, design effect 1, n_eff = 4 (1.96/3.182446)²
    # = 1.5172) is [.58135, .98945]; joined and cut at the observed range, [.5, 1]. Below
    # the smallest share seen (.5, not a bound of [0, 1]) unseen losses may sit in up to
    # z²/(4 + z²) = .48990 of the games: lo = .875 - .48990 = .38510. Minus 1/2:
    assert m.loc["first_player_advantage", "value"] == pytest.approx(0.375)
    assert m.loc["first_player_advantage", "lo"] == pytest.approx(-0.11490, abs=1e-5)
    assert m.loc["first_player_advantage", "hi"] == pytest.approx(0.5)
    # one shared win in four games
    assert m.loc["shared_wins", "value"] == pytest.approx(0.25)
    assert m["n"].tolist() == [4, 4, 4]


def test_verdict_never_calls_noise_real(two_seats):
    # the interval above reaches below 0: a big gap, but four games cannot tell
    text = B.verdict(two_seats)
    assert "within noise" in text and "real" not in text
    assert text.startswith("seat 0 wins 87.5% [38.5%, 100.0%] against a fair 50%")


def _seat0_wins(k, n):
    rows = []
    for g in range(n):
        rows += [(g, 0, "A", int(g < k)), (g, 1, "A", int(g >= k))]
    return _players(rows)


def test_verdict_real_advantage_and_disadvantage():
    # 600 of 1000, no ties: Wilson [.5693, .6299], which misses the fair 50%
    assert B.verdict(_seat0_wins(600, 1000)) == (
        "seat 0 wins 60.0% [56.9%, 63.0%] against a fair 50%: a real first-player advantage"
        " (1,000 games, seat 0's 95% interval)"
    )
    assert "a real first-player disadvantage" in B.verdict(_seat0_wins(400, 1000))
    assert "within noise" in B.verdict(_seat0_wins(510, 1000))


def test_verdict_warns_when_seats_were_not_rotated(two_seats):
    fixed = two_seats.assign(policy=two_seats["seat"].map({0: "A", 1: "B"}))
    assert B.seats_confounded(fixed)
    assert "not rotated" in B.verdict(fixed)
    assert not B.seats_confounded(two_seats)


def test_policy_shares_and_matchups():
    # game 0: A 3, A 1, B 2 -> the first A wins; game 1: A 0, A 0, B 5 -> B wins
    p = _players(
        [
            (0, 0, "A", 3),
            (0, 1, "A", 1),
            (0, 2, "B", 2),
            (1, 0, "A", 0),
            (1, 1, "A", 0),
            (1, 2, "B", 5),
        ]
    )
    pol = B.policy_win_shares(p).set_index("policy")
    assert pol.loc["A", "win_share"] == pytest.approx(0.25)  # (1 + 0 + 0 + 0) / 4 seat-games
    assert pol.loc["B", "win_share"] == pytest.approx(0.5)
    assert pol.loc["A", "n"] == 4 and pol.loc["A", "games"] == 2
    m = B.matchups(p).set_index(["policy", "opponent"])
    # head to head: A seats against B: 3>2, 1<2, 0<5, 0<5 -> 1/4; B against A: 3/4
    assert m.loc[("A", "B"), "beats"] == pytest.approx(0.25)
    assert m.loc[("B", "A"), "beats"] == pytest.approx(0.75)
    assert m.loc[("A", "B"), "pairs"] == 4
    # A meets itself in both games; B never sits twice in one game
    assert m.loc[("A", "A"), "games"] == 2
    assert m.loc[("B", "B"), "games"] == 0
    grid = B.matchup_matrix(B.matchups(p), "beats")
    assert grid.loc["A", "B"] == pytest.approx(0.25)


def test_score_and_points(two_seats):
    s = F.score_summary(two_seats, "seat").set_index("seat")
    assert s.loc[0, "mean"] == pytest.approx(3.0)  # 3, 2, 5, 2
    assert (s.loc[0, "min"], s.loc[0, "max"], s.loc[0, "n"]) == (2, 5, 4)
    parts = two_seats.assign(
        box_points=1,
        cat_bonus=2,
        doubling_points=0,
        negative_points=-1,
        boxes_led=1,
        closed_boxes_led=0,
    )
    b = F.points_breakdown(parts, "policy")
    assert b["n"].tolist() == [4, 4]
    assert b["negative_points"].tolist() == [-1, -1]


def test_flow_and_end_triggers():
    games = pd.DataFrame(
        {
            "turns": [10, 20],
            "items_wasted": [0, 2],
            "boxes": [4, 0],
            "closed_boxes": [1, 0],
            "cards_on_table": [9, 9],
            "cats_on_table": [1, 1],
            "discards": [0, 0],
            "margin": [1, 0],
            "end_trigger": ["deck_empty", "last_cat"],
        }
    )
    f = F.flow_summary(games).set_index("metric")
    assert f.loc["turns", "mean"] == 15
    assert f.loc["closed_share", "mean"] == 0.25  # a game with no box has no closed share
    assert f.loc["closed_share", "n"] == 1
    t = F.end_triggers(games).set_index("end_trigger")
    assert t.loc["last_cat", "share"] == 0.5 and t.loc["last_cat", "n"] == 2


def test_distribution():
    d = F.distribution(pd.Series([2, 0, 2, 1]), "margin")
    assert d["margin"].tolist() == [0, 1, 2]
    assert d["count"].tolist() == [1, 1, 2]
    assert d["share"].tolist() == [0.25, 0.25, 0.5]


def test_check_targets():
    head = pd.DataFrame(
        {
            "metric": ["balance", "turns", "margin"],
            "value": [0.95, 50, 2.0],
            "lo": [0.94, 49, 1.5],
            "hi": [0.96, 51, 2.5],
            "n": [10, 10, 10],
        }
    )
    c = B.check_targets(head, {"balance": (0.9, 1.0), "turns": (60, 80), "margin": 2.2})
    # a bare number is an equivalence target: margin 2.2 ± 0.5 (its default margin) is
    # met only when the whole interval lies in [1.7, 2.7]; [1.5, 2.5] merely includes 2.2
    assert c.set_index("metric")["status"].to_dict() == {
        "balance": "met",
        "turns": "missed",
        "margin": "unclear",
    }
    c = B.check_targets(head, {"margin": {"value": 2.0, "within": 0.5}})
    assert c["status"].tolist() == ["met"] and c["wanted"].tolist() == ["2 ± 0.5"]
    c = B.check_targets(head, {"margin": {"value": 4.0, "within": 1.0}})
    assert c["status"].tolist() == ["missed"]
    c = B.check_targets(head, {"balance": (0.95, 1.0)})
    assert c["status"].tolist() == ["unclear"]


def test_a_point_target_is_not_met_for_lack_of_data():
    """Few games give a wide interval around the target: that is 'unclear', never 'met'."""
    head = pd.DataFrame(
        {"metric": ["first_player_advantage"] * 2, "value": [0.001, 0.001],
         "lo": [-0.08, -0.004], "hi": [0.08, 0.006], "n": [150, 5000]}
    )  # fmt: skip
    few, many = (B.check_targets(head.iloc[[i]], {"first_player_advantage": 0}) for i in (0, 1))
    assert few["status"].tolist() == ["unclear"] and many["status"].tolist() == ["met"]
