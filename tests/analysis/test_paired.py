"""Paired bootstrap: values by hand, agreement with the run report, calibration, speed."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.analysis.balance import balance_metrics, policy_win_shares
from sim.analysis.cards import card_impact
from sim.analysis.paired import (
    Metric,
    bootstrap_draws,
    compare_runs,
    game_values,
    resample_counts,
    target_miss,
    target_verdict,
)
from sim.config import load_study
from sim.runs import run_chunk

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


def _mean_of(column: str) -> Metric:
    return Metric(column, column, "test", lambda m: m[column])


@pytest.fixture(scope="module")
def run_a():
    study = load_study(BASE)
    return run_chunk(study, 0, 600)


@pytest.fixture(scope="module")
def run_other_seed():
    study = load_study(BASE).with_overrides(seed=12345)
    return run_chunk(study, 0, 600)


# ---------------------------------------------------------------- per-game values by hand


def tiny_tables() -> dict[str, pd.DataFrame]:
    """Two games of two seats. Game 0: seat 0 wins 5-3, held the Princess. Game 1: a 2-2 tie."""
    games = pd.DataFrame(
        {
            "game": [0, 1],
            "players": [2, 2],
            "turns": [10, 14],
            "end_trigger": ["deck_empty", "last_cat"],
            "items_wasted": [1, 0],
            "boxes": [4, 5],
            "closed_boxes": [1, 2],
            "margin": [2, 0],
            "tie": [False, True],
        }
    )
    players = pd.DataFrame(
        {
            "game": [0, 0, 1, 1],
            "seat": [0, 1, 0, 1],
            "policy": ["greedy", "random", "random", "greedy"],
            "score": [5, 3, 2, 2],
            "box_points": [4, 3, 1, -1],
            "boxes_led": [2, 1, 1, 1],
            "win_share": [1.0, 0.0, 0.5, 0.5],
        }
    )
    cards = pd.DataFrame(
        {
            "game": [0, 0, 1, 1],
            "seat": [0, 1, 0, 1],
            "card": ["princess"] * 4,
            "dealt": [1, 0, 0, 0],
            "drawn": [0, 0, 0, 1],
        }
    )
    return {"games": games, "players": players, "cards": cards}


def test_game_values_by_hand():
    t = tiny_tables()
    v = game_values(t["games"], t["players"], t["cards"])
    assert v.index.tolist() == [0, 1]
    assert v["fpa"].tolist() == [0.5, 0.0]  # seat 0's share minus 1/2
    assert v["seat1"].tolist() == [0.0, 0.5]
    assert v["policy:greedy"].tolist() == [1.0, 0.5]
    assert v["deck_empty"].tolist() == [1.0, 0.0]
    assert v["score"].tolist() == [4.0, 2.0] and v["score_sq"].tolist() == [17.0, 4.0]
    assert v["box_points"].tolist() == [7.0, 0.0] and v["boxes_led"].tolist() == [3.0, 2.0]
    assert v["had:princess"].tolist() == [1.0, 1.0]
    assert v["had_win:princess"].tolist() == [1.0, 0.5]


def test_metrics_by_hand():
    t = tiny_tables()
    out = compare_runs(t, t, resamples=50).set_index("metric")["a"]
    assert out["first_player_advantage"] == pytest.approx(0.25)
    assert out["balance"] == pytest.approx(1 - (0.75 - 0.25))
    assert out["shared_wins"] == 0.5 and out["turns"] == 12 and out["margin"] == 1
    assert out["box_value"] == pytest.approx(7 / 5)  # all box points over all boxes led
    assert out["closed_share"] == pytest.approx(3 / 9)
    assert out["mean_score"] == 3.0
    assert out["score_sd"] == pytest.approx(np.std([5, 3, 2, 2]))
    # Princess: held by 2 seat-games winning 1.5 in all; never held by 2 winning 0.5
    assert out["card_impact.princess"] == pytest.approx(1.5 / 2 - 0.5 / 2)


def test_agrees_with_the_run_report_analysis(run_a):
    games, players, cards = run_a["games"], run_a["players"], run_a["cards"]
    out = compare_runs(run_a, run_a, resamples=50).set_index("metric")["a"]
    report = balance_metrics(games, players).set_index("metric")["value"]
    for name in ("balance", "first_player_advantage", "shared_wins"):
        assert out[name] == pytest.approx(report[name])
    for row in policy_win_shares(players).itertuples():
        assert out[f"win_share.{row.policy}"] == pytest.approx(row.win_share)
    for row in card_impact(cards, players).itertuples():
        assert out[f"card_impact.{row.card}"] == pytest.approx(row.improvement)
    assert out["mean_score"] == pytest.approx(players["score"].mean())
    assert out["score_sd"] == pytest.approx(players["score"].std(ddof=0))


# ---------------------------------------------------------------- the bootstrap


def test_resample_counts_are_bootstrap_samples():
    rng = np.random.default_rng(1)
    blocks = list(resample_counts(50, 600, rng, block=250))
    assert [b.shape for b in blocks] == [(250, 50), (250, 50), (100, 50)]
    counts = np.vstack(blocks)
    assert (counts.sum(axis=1) == 50).all() and (counts >= 0).all()
    assert counts.mean() == pytest.approx(1.0)
    assert counts.var(axis=0).mean() == pytest.approx(1 - 1 / 50, rel=0.1)  # multinomial


def test_identical_tables_give_an_exact_zero():
    rng = np.random.default_rng(2)
    a = pd.DataFrame({"x": rng.normal(size=500)})
    point, draws = bootstrap_draws([a, a.copy()], [_mean_of("x")], resamples=300)
    assert point[0, 0] == point[1, 0] and (draws[0] == draws[1]).all()


def test_paired_interval_matches_theory_and_beats_unpaired():
    """B = A + 0.05 + small noise: pairing removes the shared game-to-game spread."""
    rng = np.random.default_rng(3)
    n = 4000
    x = rng.normal(size=n)
    a = pd.DataFrame({"x": x})
    b = pd.DataFrame({"x": x + 0.05 + rng.normal(scale=0.1, size=n)})
    metrics = [_mean_of("x")]
    _, paired = bootstrap_draws([a, b], metrics, resamples=2000, seed=4)
    _, unpaired = bootstrap_draws([a, b], metrics, resamples=2000, seed=5, paired=False)
    p_lo, p_hi = np.percentile(paired[1] - paired[0], [2.5, 97.5])
    u_lo, u_hi = np.percentile(unpaired[1] - unpaired[0], [2.5, 97.5])
    assert p_lo < 0.05 < p_hi
    assert p_hi - p_lo == pytest.approx(2 * 1.96 * 0.1 / np.sqrt(n), rel=0.1)
    assert u_hi - u_lo == pytest.approx(2 * 1.96 * np.sqrt(2 / n), rel=0.1)
    print(f"\nsynthetic: paired width {p_hi - p_lo:.4f}, unpaired {u_hi - u_lo:.4f}")


def test_unrelated_games_are_mostly_noise(run_a, run_other_seed):
    """A/A on two different seeds (nothing paired but the index): about 5% false alarms."""
    table = compare_runs(run_a, run_other_seed, resamples=1000)
    flagged = table.loc[table["real"], "metric"].tolist()
    print(f"\nA/A, other seed: {len(flagged)} of {len(table)} marked real: {flagged}")
    assert len(flagged) <= 0.15 * len(table)


def test_ten_thousand_games_take_seconds():
    rng = np.random.default_rng(6)
    n, k = 10_000, 60
    a = pd.DataFrame(rng.normal(size=(n, k)), columns=[f"c{j}" for j in range(k)])
    b = a + rng.normal(scale=0.1, size=(n, k))
    metrics = [_mean_of(c) for c in a.columns]
    t0 = time.perf_counter()
    bootstrap_draws([a, b], metrics, resamples=2000)
    bootstrap_draws([a, b], metrics, resamples=2000, paired=False)
    took = time.perf_counter() - t0
    print(f"\n10,000 games x {k} columns, paired + unpaired, 2000 resamples each: {took:.1f} s")
    assert took < 30


# ---------------------------------------------------------------- targets


def test_target_miss():
    v = np.array([25.0, 30.0, 35.0, 45.0])
    assert target_miss(v, (30.0, 40.0)).tolist() == [5.0, 0.0, 0.0, 5.0]
    assert target_miss(v, 30.0).tolist() == [5.0, 0.0, 5.0, 15.0]


def test_verdict_prefers_inside_then_the_middle():
    rng = np.random.default_rng(7)
    means = np.array([31.0, 35.0, 50.0])  # turns at three points; target [30, 40]
    draws = means[:, None, None] + rng.normal(scale=0.5, size=(3, 400, 1))
    v = target_verdict(means[:, None], draws, ["turns"], ["p0", "p1", "p2"], {"turns": (30, 40)})
    assert v.best == 1  # inside and nearest the middle
    ranking = v.ranking.set_index("label")
    assert ranking.loc["p0", "within_noise"]  # also inside: no worse
    assert not ranking.loc["p2", "within_noise"]
    # both inside the range: a confidence set of two, not a single "best"
    assert sorted(v.best_set) == [0, 1]
    assert "Best: one of p0, p1" in v.text and "Closest estimate: p1" in v.text
    assert "Clearly worse: p2" in v.text


def test_verdict_calls_close_points_noise():
    rng = np.random.default_rng(8)
    means = np.array([0.010, 0.012, 0.08])  # first-player advantage; target 0
    draws = means[:, None, None] + rng.normal(scale=0.01, size=(3, 400, 1))
    name = "first_player_advantage"
    v = target_verdict(means[:, None], draws, [name], ["a", "b", "c"], {name: 0.0})
    ranking = v.ranking.set_index("label")
    assert v.best == 0 and ranking.loc["b", "within_noise"] and not ranking.loc["c", "within_noise"]


def test_the_paired_weights_drawn_once_give_each_points_own_sums_bit_for_bit():
    """`Replicates.of_points` (the paired bootstrap's weights drawn once for every point) is
    one `Replicates.of` per point, exactly; games need not fill whole groups of 256."""
    from sim.analysis.replicates import Replicates

    rng = np.random.default_rng(3)
    games = np.r_[np.arange(5, 300), np.arange(700, 1013)]
    tables = [
        pd.DataFrame(rng.normal(size=(len(games), 4)), index=games, columns=list("dbca")),
        pd.DataFrame(rng.integers(0, 3, size=(len(games), 3)), index=games, columns=list("xyz")),
    ]
    together = Replicates.of_points(tables, 300, seed=11, stream=0)
    for table, got in zip(tables, together, strict=True):
        alone = Replicates.of(table, 300, seed=11, stream=0)
        assert got.columns == alone.columns and got.n == alone.n
        for name in ("total", "weight", "weighted"):
            assert np.array_equal(getattr(got, name), getattr(alone, name))
