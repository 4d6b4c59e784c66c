"""Card telemetry per kind: dead cards, wasted items, where items land, the Princess."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.analysis.balance import estimate_metrics
from sim.analysis.stats import Clusters
from sim.analysis.usage import (
    card_usage,
    dead_card_notes,
    eviction_summary,
    evictions,
    ratio_ci,
    ratios,
)
from sim.analysis.values import game_values
from sim.config import load_study
from sim.metrics import metric
from sim.runs import run_chunk

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


@pytest.fixture(scope="module")
def tables():
    """The base game with a small table, so that cards die and items are wasted."""
    study = load_study(BASE).with_overrides(**{"table.columns": 4, "table.rows": 4})
    return run_chunk(study, 0, 300)


@pytest.fixture(scope="module")
def usage(tables):
    return card_usage(tables["cards"], tables["games"]).set_index("card")


def test_dead_cards_are_the_discards_and_wasted_items(tables, usage):
    games = tables["games"]
    hand = usage[usage["kind"].isin(["box", "princess"])]
    items = usage[~usage["kind"].isin(["box", "princess"])]
    assert hand["dead"].sum() == pytest.approx(games["discards"].mean())
    assert items["dead"].sum() == pytest.approx(games["items_wasted"].mean())
    assert hand["dead"].sum() > 0 and items["dead"].sum() > 0  # the small table bites
    assert (items["dealt"] == 0).all() and (items["final_hand"] == 0).all()
    # every copy in the deck is held by someone, but for the start card
    assert usage["held"].sum() == pytest.approx(48 + 16 + 4 + 2 - 1)


def test_rates_agree_with_the_registry_and_carry_intervals(tables, usage):
    names = [f"dead_rate.{card}" for card in usage.index] + ["dead_card_rate"]
    values = game_values(tables["games"], tables["players"], tables["cards"])
    est = estimate_metrics(values, [metric(n) for n in names]).set_index("metric")
    for card, r in usage.iterrows():
        assert est.loc[f"dead_rate.{card}", "value"] == pytest.approx(r["dead_rate"])
        assert r["dead_lo"] <= r["dead_rate"] <= r["dead_hi"]
        assert r["dg_lo"] <= r["dead_games"] <= r["dg_hi"]
    hand = usage[usage["kind"].isin(["box", "princess"])]
    rate = hand["dead"].sum() / hand["held"].sum()
    assert est.loc["dead_card_rate", "value"] == pytest.approx(rate)


def test_items_land_somewhere(usage):
    items = usage[usage["kind"].isin(["toy", "sprayer"])]
    total = items["into_led"] + items["into_rival"] + items["into_nobody"]
    np.testing.assert_allclose(total, 1.0)
    assert (usage.loc[usage["kind"] == "box", "into_led"].isna()).all()
    assert ((usage["first_share"] > 0) & (usage["first_share"] <= 1)).all()


def test_dead_card_notes_read_like_a_designer_would_say_it():
    usage = pd.DataFrame(
        {
            "card": ["box:NS", "toy:yarn", "box:N"],
            "kind": ["box", "toy", "box"],
            "dead": [0.3, 0.1, 0.0],
            "dead_rate": [0.032, 0.02, 0.0],
            "dead_games": [0.08, 0.05, 0.001],
            "dg_lo": [0.071, 0.04, 0.0],
            "dg_hi": [0.089, 0.06, 0.003],
        }
    )
    notes = dead_card_notes(usage)
    assert notes == [
        "box:NS is discarded unplayed in 8.0% [7.1%, 8.9%] of the seat-games that held it"
        " (3.2% of its copies; 0.30 per game)",
        "toy:yarn is wasted (no free open seam, R5.3) in 5.0% [4.0%, 6.0%] of the seat-games"
        " that drew it (2.0% of its copies; 0.10 per game)",
    ]


def test_princess_evictions_per_seat_and_whose_cats(tables):
    players = tables["players"]
    per_seat = evictions(players)
    assert per_seat["princesses_played"].sum() == pytest.approx(
        players.groupby("game")["princesses_played"].sum().mean()
    )
    summary = eviction_summary(players)
    own = players["self_evictions"].sum() / players["princesses_played"].sum()
    assert summary["own_share"] == pytest.approx(own)
    assert summary["own_lo"] <= own <= summary["own_hi"]


def test_ratio_ci_is_the_clustered_delta_method():
    num = np.array([1, 0, 2, 1, 0, 1])
    den = np.array([2, 1, 2, 2, 1, 2])
    game = np.array([0, 0, 1, 1, 2, 2])
    r, lo, hi = ratio_ci(num, den, game)
    assert r == pytest.approx(5 / 10)
    sums = pd.DataFrame({"n": num, "d": den, "g": game}).groupby("g").sum()
    psi = (sums["n"] - r * sums["d"]) / 10
    se = np.sqrt((psi**2).sum() * 3 / 2)
    assert hi - r == pytest.approx(1.959963984540054 * se)
    assert np.isnan(ratio_ci([0], [0], [0])[0])


def test_ratios_are_each_columns_ratio_ci():
    """Column by column, `ratios` is `ratio_ci` (one delta-method interval per card kind)."""
    rng = np.random.default_rng(7)
    game = np.repeat(np.arange(30), 4)
    num = rng.integers(0, 3, (120, 3))
    den = num + rng.integers(0, 3, (120, 3))
    den[:, 2] = num[:, 2] = 0  # nothing held: no ratio
    r, lo, hi = ratios(num, den, Clusters(game))
    for k in range(3):
        want = ratio_ci(num[:, k], den[:, k], game)
        np.testing.assert_allclose((r[k], lo[k], hi[k]), want, rtol=1e-12, equal_nan=True)
    assert np.isnan(r[2])


def test_a_run_table_and_the_same_rows_shuffled_give_the_same_usage(tables, usage):
    """A run's cards table (its full layout: every kind from one matrix) and the same rows
    in another order (taken kind by kind) give the same numbers, kinds in the same order."""
    from sim.analysis.cards import full_layout

    cards = tables["cards"]
    shuffled = cards.sample(frac=1.0, random_state=3)
    assert full_layout(cards) is not None and full_layout(shuffled) is None
    again = card_usage(shuffled.sort_values("card", kind="stable"), tables["games"])
    pd.testing.assert_frame_equal(again.set_index("card"), usage, rtol=1e-12, atol=1e-15)
