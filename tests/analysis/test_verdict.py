"""One test decides the words and the numbers: the seat verdict's call on seat 0 is the call
of the interval printed beside it, which is summary.json's first-player advantage plus 1/n,
and when the joint seat test answers otherwise the sentence says so in plain words."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from sim.analysis.balance import fairness, run_metrics, run_summary, seat_verdict, verdict
from sim.analysis.moments import Moments
from sim.analysis.values import game_values
from sim.config import load_study
from sim.runs import run_chunk


def _players(winners: np.ndarray, seats: int, tie_rate: float, rng) -> pd.DataFrame:
    """A players frame where seat winners[g] wins game g, or shares it with the next seat."""
    n = len(winners)
    shares = np.zeros((n, seats))
    shares[np.arange(n), winners] = 1.0
    tie = rng.random(n) < tie_rate
    other = (winners + 1) % seats
    shares[tie, winners[tie]] = 0.5
    shares[tie, other[tie]] = 0.5
    g = np.repeat(np.arange(n), seats)
    s = np.tile(np.arange(seats), n)
    return pd.DataFrame({"game": g, "seat": s, "policy": "p", "win_share": shares.ravel(),
                         "score": shares.ravel()})  # fmt: skip


def _games(players: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"game": np.sort(players["game"].unique()), "tie": False, "margin": 1,
                         "turns": 10})  # fmt: skip


def _printed_interval(text: str) -> tuple[float, float]:
    found = re.match(r"seat 0 wins [\d.]+% \[([\d.]+)%, ([\d.]+)%\] against a fair", text)
    assert found, text
    return float(found.group(1)) / 100, float(found.group(2)) / 100


def test_the_call_and_the_printed_interval_are_one_test():
    """80 line-ups near the edge of a real first-player edge, three and four seats, with
    and without ties: the call follows the printed interval in every one, that interval is
    summary.json's first-player advantage plus 1/n, and every disagreement with the joint
    test is spelled out (both kinds occur here)."""
    rng = np.random.default_rng(11)
    kinds = {"joint rejects, seat 0 fair": 0, "seat 0 real, joint not": 0, "agree": 0}
    for rep in range(80):
        seats = 3 + rep % 2
        fair = 1 / seats
        edge = rng.uniform(-0.035, 0.035)
        rest = (1 - fair - edge) / (seats - 1)
        p = np.r_[fair + edge, np.full(seats - 1, rest)]
        if rep % 4 == 0:  # the gap among the other seats instead
            p = np.r_[fair, fair + 0.04, np.full(seats - 2, (1 - 2 * fair - 0.04) / (seats - 2))]
        players = _players(rng.choice(seats, size=1500, p=p), seats, 0.05 * (rep % 3), rng)
        games = _games(players)
        said = seat_verdict(players, games=games)
        fpa = run_metrics(games, players, ["first_player_advantage"]).iloc[0]
        assert (said.share.lo, said.share.hi) == pytest.approx((fpa["lo"] + fair, fpa["hi"] + fair))
        lo, hi = _printed_interval(said.text)
        assert lo == pytest.approx(said.share.lo, abs=5e-4)
        assert hi == pytest.approx(said.share.hi, abs=5e-4)
        want = "advantage" if said.share.lo > fair else (
            "disadvantage" if said.share.hi < fair else "within noise")  # fmt: skip
        assert said.call == want
        assert ("a real first-player advantage" in said.text) == (want == "advantage")
        assert ("a real first-player disadvantage" in said.text) == (want == "disadvantage")
        joint_rejects = fairness(players).attrs["p"] < 0.05
        assert said.agree == (joint_rejects == (want != "within noise"))
        assert ("the two tests disagree" in said.text) == (not said.agree)
        if not said.agree:
            key = "joint rejects, seat 0 fair" if joint_rejects else "seat 0 real, joint not"
            assert ("does not reject" in said.text) == (not joint_rejects)
        else:
            key = "agree"
        kinds[key] += 1
    print(f"\n80 line-ups: {kinds}")
    assert min(kinds.values()) > 0


def test_summary_json_says_what_the_sentence_says():
    """A real run: the same sentence from rows and from merged moments, and summary.json's
    seat block holds the interval and the call the sentence rests on."""
    t = run_chunk(load_study("configs/base.yaml"), 0, 400)
    games, players = t["games"], t["players"]
    m = Moments.of(game_values(games, players, t["cards"]))
    assert verdict(players, games=games) == verdict(players, m, games)
    summary = run_summary(games, players, moments=m)
    said = seat_verdict(players, m, games)
    fpa = next(r for r in summary["metrics"] if r["metric"] == "first_player_advantage")
    seat0 = summary["seats"]["seat0"]
    assert (seat0["lo"], seat0["hi"]) == pytest.approx((fpa["lo"] + 0.25, fpa["hi"] + 0.25))
    assert seat0["call"] == said.call and summary["verdict"] == said.text
    assert summary["seats"]["tests_agree"] == said.agree


def test_two_seats_have_one_test():
    rng = np.random.default_rng(13)
    players = _players(rng.choice(2, size=1000, p=[0.55, 0.45]), 2, 0.0, rng)
    said = seat_verdict(players)
    assert said.joint_p is None and said.agree and "joint" not in said.text
    assert said.call == "advantage" and "seat 0's 95% interval" in said.text


def test_a_kingmaking_sample_is_judged_by_its_interval():
    """The kingmaking row of the headline (a run's kingmaking.json) meets, misses or leaves
    unclear a target by its interval, like any metric; two players have none by definition,
    and a sample that was not measured has no value (unclear)."""
    from sim.analysis.balance import check_targets
    from sim.analysis.sampled import kingmaking_row

    def status(data, band):
        head = pd.DataFrame([kingmaking_row(data)])
        return check_targets(head, {"kingmaking": band})["status"].item()

    sample = {"players": 4, "examined": 80, "games": 100, "rate": 0.3, "lo": 0.2, "hi": 0.4}
    assert status(sample, [0.0, 0.1]) == "missed"
    assert status(sample, [0.1, 0.5]) == "met"
    assert status(sample, [0.0, 0.3]) == "unclear"
    assert status({"players": 2}, [0.0, 0.01]) == "met"  # exactly zero: no seat to crown
    assert status(None, [0.0, 1.0]) == "unclear"
    none_examined = {**sample, "examined": 0, "rate": None, "lo": None, "hi": None}
    assert status(none_examined, [0.0, 1.0]) == "unclear"
