"""`sim ladder` and `sim luck`: matches, one rating model, depth; replayed deals and the ICC."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from cli_helpers import sim_cli

from sim.analysis import ladder as L
from sim.config import parse_study
from sim.engine.rng import WORD_SEAT0, game_words, replay_words
from sim.errors import ConfigError
from sim.runs.play import play_arrays
from sim.studies.ladder import load_ladder


def _write(tmp_path, data: dict):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- analysis


def test_icc_recovers_a_known_deal_share():
    """Deal effects with variance 1 and noise with variance 3: the deal explains 25%."""
    rng = np.random.default_rng(1)
    deal = rng.normal(0, 1, (400, 1, 2))
    y = deal + rng.normal(0, np.sqrt(3), (400, 8, 2))
    assert abs(L.icc(y) - 0.25) < 0.05
    assert L.icc(rng.normal(0, 1, (400, 8, 2))) < 0.03  # no deal effect


def test_bradley_terry_recovers_known_strengths():
    """Pairs drawn from known log-strengths 0, 1, 2 (adjacent only, as a ladder plays them)."""
    rng = np.random.default_rng(2)
    truth = [0.0, 1.0, 2.0]
    pairs = []
    for lower in (0, 1):
        p = 1 / (1 + np.exp(truth[lower] - truth[lower + 1]))
        win = (rng.random(3000) < p).astype(float)
        pairs.append(
            pd.DataFrame({"game": np.arange(3000), "a": lower + 1, "b": lower, "win": win})
        )
    theta = L.bt_fit(L._counts(pairs, 3))
    assert np.allclose(theta, truth, atol=0.15)


def test_depth_counts_consecutive_clear_steps_only():
    steps = pd.DataFrame({"share": [0.9, 0.7, 0.55, 0.9], "lo": [0.85, 0.62, 0.51, 0.8]})
    assert L.depth(steps, 0.6) == 2  # the third step is below 60%, the fourth does not count
    steps.loc[1, "lo"] = 0.49
    assert L.depth(steps, 0.6) == 1  # 70% but its interval reaches 50%


def test_chain_depth_skips_rungs_too_close_to_count():
    """log-strength gap for 60% is ln 1.5 = 0.405: 0 -> 0.45 -> 1.2 (0.5 is too close)."""
    assert L.chain_depth(np.array([0.0, 0.5, 0.45, 1.2]), 0.6) == 2
    assert L.chain_depth(np.array([0.0, 0.1, 0.2]), 0.6) == 0


# ---------------------------------------------------------------- replays


@pytest.mark.parametrize(
    ("root", "index", "replay"), [(0, 0, 1), (20261129, 7, 3), (2**63 - 1, 2**40, 9)]
)
def test_replay_words_are_numpys_two_key_spawn(root, index, replay):
    want = np.random.SeedSequence(root, spawn_key=(index, replay)).generate_state(5, np.uint64)
    assert replay_words(root, index, replay, 5).tolist() == want.tolist()


def test_replays_keep_the_deal_and_change_only_the_seats_streams():
    study = parse_study(
        {"players": 3, "seats": [{"policy": "random"}] * 3, "seed": 5, "replays": 4}, "<t>"
    )
    plain = parse_study({"players": 3, "seats": [{"policy": "random"}] * 3, "seed": 5}, "<t>")
    chunk = play_arrays(study, 0, 12)  # deals 0, 1, 2, four replays each
    dealt = chunk.cards[:, :, :, 0]  # ST_DEALT: the hands dealt
    for k in range(3):
        for r in range(1, 4):
            assert np.array_equal(dealt[4 * k], dealt[4 * k + r])
    assert not all(np.array_equal(chunk.seats[0], chunk.seats[r]) for r in range(1, 4))
    own = play_arrays(plain, 0, 3)  # replay 0 of deal k is game k itself
    for k in range(3):
        assert np.array_equal(chunk.seats[4 * k], own.seats[k])
    assert game_words(5, 1, WORD_SEAT0).tolist() == game_words(5, 1, WORD_SEAT0).tolist()


def test_bad_ladder_settings_are_one_error_line():
    base = {"players": 2, "seats": [{"policy": "random"}] * 2}
    with pytest.raises(ConfigError, match=r"ladder\.rungs\[1\]\.policy"):
        parse_study(
            {**base, "ladder": {"rungs": [{"policy": "random"}, {"policy": "gredy"}]}}, "<t>"
        )
    with pytest.raises(ConfigError, match=r"ladder\.threshold"):
        parse_study({**base, "ladder": {"threshold": 0.4}}, "<t>")
    with pytest.raises(ConfigError, match="share a label"):
        parse_study(
            {**base, "ladder": {"rungs": [{"policy": "greedy"}, {"policy": "greedy"}]}}, "<t>"
        )


# ---------------------------------------------------------------- whole commands


def test_ladder_end_to_end(tmp_path):
    """random < greedy heads-up and 3-handed; the one rating model predicts the pairwise
    shares it was fitted to; depth 1."""
    data = {
        "players": 3,
        "seats": [{"policy": "random"}] * 3,
        "seed": 3,
        "ladder": {"rungs": [{"policy": "random"}, {"policy": "greedy"}]},
    }
    text = sim_cli(
        "ladder",
        _write(tmp_path, data),
        "--games",
        200,
        "--jobs",
        1,
        "--out",
        tmp_path / "l",
        "--report",
        tmp_path / "l.html",
        "--quiet",
    )
    steps = pd.read_csv(tmp_path / "l" / "ladder.csv")
    assert list(steps["players"]) == [2, 3]
    assert (steps["lo"] > steps["fair"]).all()  # greedy clearly above its fair share
    ratings = pd.read_csv(tmp_path / "l" / "ratings.csv")
    assert ratings.loc[1, "rating"] > 0 and ratings.loc[1, "lo"] > 0
    # one strength for both table sizes: its prediction lies between their pairwise shares;
    # the model of each table size predicts its own match
    lo, hi = sorted(steps["pair_share"])
    assert lo - 0.02 <= steps["bt_pooled"].iloc[0] <= hi + 0.02
    assert steps["agrees"].all()
    assert {"elo_2p", "elo_3p"} <= set(ratings.columns)
    summary = json.loads((tmp_path / "l" / "summary.json").read_text())
    assert summary["depth"] == 1 and summary["threshold"] == 0.6
    assert summary["chain_depth"] == 1
    assert "<svg" in (tmp_path / "l.html").read_text()
    assert "Depth 1 of 1" in text
    from sim.report.tune_report import build_folder_report

    assert "<svg" in build_folder_report(tmp_path / "l", tmp_path / "again.html").read_text()


def test_luck_end_to_end(tmp_path):
    data = {"players": 2, "seats": [{"policy": "random"}, {"policy": "greedy"}], "seed": 9}
    sim_cli(
        "luck",
        _write(tmp_path, data),
        "--deals",
        40,
        "--replays",
        4,
        "--jobs",
        1,
        "--out",
        tmp_path / "k",
        "--report",
        tmp_path / "k.html",
        "--quiet",
    )
    table = pd.read_csv(tmp_path / "k" / "luck.csv")
    assert set(table["policy"]) == {"random", "greedy"}
    assert ((table["lo"] <= table["deal_share"]) & (table["deal_share"] <= table["hi"])).all()
    assert table["deal_share"].between(0, 1).all()
    assert "<svg" in (tmp_path / "k.html").read_text()
    from sim.report.tune_report import build_folder_report

    assert "<svg" in build_folder_report(tmp_path / "k", tmp_path / "again.html").read_text()


@pytest.mark.slow
def test_ladder_orders_random_greedy_lookahead(tmp_path):
    """random < greedy < look-ahead heads-up with clear margins; the fitted ratings order the
    rungs the same way and predict each pair's share within its interval. (About 3 min.)"""
    data = {
        "players": 2,
        "seats": [{"policy": "random"}] * 2,
        "seed": 13,
        "ladder": {
            "rungs": [
                {"policy": "random"},
                {"policy": "greedy"},
                {"policy": "lookahead", "rollouts": 8},
            ]
        },
    }
    sim_cli(
        "ladder",
        _write(tmp_path, data),
        "--games",
        400,
        "--out",
        tmp_path / "l",
        "--no-report",
        "--quiet",
    )
    result = load_ladder(tmp_path / "l")
    s = result.steps
    assert len(s) == 3  # two steps and random v look-ahead, the transitivity check
    assert (s["lo"] > 0.55).all()
    assert list(result.ratings["rating"].diff().dropna() > 0) == [True, True]
    # Fitted to all three matches at once, the ratings predict each one within its interval
    # (widened by 2 points for the ridge): the results are transitive.
    inside = (s["bt_predicted"] >= s["pair_lo"] - 0.02) & (s["bt_predicted"] <= s["pair_hi"] + 0.02)
    assert inside.all(), s
    assert result.chain_depth == 2
