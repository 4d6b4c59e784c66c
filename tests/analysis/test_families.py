"""Families of tests as documented: the docs' table is the one the code builds, and every
row left out of a family really is an exact function of the rows tested."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from sim import metrics as M
from sim.analysis.inference import families_markdown, family_members
from sim.analysis.paired import compare_runs
from sim.analysis.values import game_values
from sim.config import load_study
from sim.runs import run_chunk

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runs():
    base = load_study(ROOT / "configs" / "base.yaml")
    return run_chunk(base, 0, 300), run_chunk(base.with_overrides(**{"deck.sprayers": 6}), 0, 300)


def test_the_readme_lists_the_families_the_code_builds():
    text = (ROOT / "docs" / "guide" / "verdicts.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- families:start -->\n(.*?)\n<!-- families:end -->", text, re.S)
    assert found, "docs/guide/verdicts.md: the families block is missing"
    assert found.group(1) == families_markdown()


def test_a_comparison_tests_exactly_the_documented_members(runs):
    a, b = runs
    t = compare_runs(a, b, resamples=50)
    names = list(t["metric"])
    families, implied = family_members(names)
    for family, members in families.items():
        assert sorted(t.loc[t["family"] == family, "metric"]) == sorted(members), family
    assert sorted(t.loc[t["family"] == "implied", "metric"]) == sorted(implied)
    head = t[t["family"] == "headline"]
    assert len(head) == 23  # four seats: the docs' count
    assert t.attrs["families"]["headline"].count("family of 23 tests")


def test_implied_rows_are_exact_functions_of_the_tested_ones(runs):
    a, _ = runs
    v = game_values(a["games"], a["players"], a["cards"])
    rng = np.random.default_rng(0)
    # the relations hold on every resample's means, not only on the point estimate
    w = rng.poisson(1.0, size=(20, len(v)))
    means = M.Means((w @ v.to_numpy(float)) / w.sum(axis=1, keepdims=True), list(v.columns))

    def f(name):
        return M.metric(name).fn(means)

    n = 4
    seats = [f(f"win_share.seat{k}") for k in range(n)]
    np.testing.assert_allclose(seats[0], f("first_player_advantage") + 1 / n, atol=1e-12)
    np.testing.assert_allclose(sum(seats), 1.0, atol=1e-12)
    for k in range(n):
        parts = f(f"equal_turn_edge.seat{k}") + f(f"turn_edge.seat{k}")
        np.testing.assert_allclose(parts, seats[k] - 1 / n, atol=1e-12)
    np.testing.assert_allclose(sum(f(f"turn_edge.seat{k}") for k in range(n)), 0.0, atol=1e-12)
    # R2.5: seat 0 moves first, so it is the seat with the extra turn whenever there is one
    assert (v["extra0"] == v["unequal_turns"]).all() and (v[f"extra{n - 1}"] == 0).all()
    implied = M.exact_relations([m.name for m in M.metrics_for(v.columns)])
    assert {"win_share.seat0", "win_share.seat3", "equal_turn_edge.seat2", "turn_edge.seat3",
            "extra_turn_share.seat0", "extra_turn_share.seat3"} <= set(implied)  # fmt: skip


def test_two_seats_balance_follows_the_first_player_advantage():
    two = [m for m in ("first_player_advantage", "balance", "win_share.seat0", "win_share.seat1")]
    assert "balance" in M.exact_relations(two)
    means = M.Means(np.array([[0.62, 0.38, 2.0]]), ["seat0", "seat1", "n_players"])
    fpa = M.metric("first_player_advantage").fn(means)
    assert M.metric("balance").fn(means) == pytest.approx(1 - 2 * abs(fpa))
    assert "balance" not in M.exact_relations([*two, "win_share.seat2"])
