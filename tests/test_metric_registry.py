"""One metric registry (sim.metrics) read by the config check, the run report, sweeps and compares.

Every target metric must be accepted by the config loader, measured with a
finite interval in the run report's headline, and have the same point value
there as in a paired comparison and a sweep of the same tables.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim import metrics as M
from sim.analysis.balance import balance_metrics, check_targets, headline
from sim.analysis.flow import flow_summary
from sim.analysis.intervals import Summary, mean_bounds
from sim.analysis.paired import compare_runs, sweep_stats
from sim.analysis.stats import clustered_mean_ci, t975, wilson
from sim.analysis.values import game_values
from sim.config import load_study
from sim.errors import ConfigError
from sim.runs import run_chunk
from sim.runs.chances import feel_model

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "base.yaml"
GAMES = 300
OLD_CONFIG_METRICS = ("first_player_advantage", "balance", "turns", "margin", "shared_wins",
                      "mean_score")  # fmt: skip


@pytest.fixture(scope="module")
def base():
    return load_study(BASE)


@pytest.fixture(scope="module")
def tables(base):
    """The same 300 game indices of base.yaml and of base.yaml with six sprayers, their feel
    measured (`sim.runs.chances`)."""
    more = base.with_overrides(**{"deck.sprayers": 6})
    model = feel_model([base, more])  # one yardstick for both, as a comparison has
    return tuple(run_chunk(s, 0, GAMES, model) for s in (base, more))


@pytest.fixture(scope="module")
def head(tables):
    a, _ = tables
    return headline(a["games"], a["players"]).set_index("metric")


# ---------------------------------------------------------------- the registry itself


def test_target_metrics_cover_the_old_config_list():
    assert set(OLD_CONFIG_METRICS) <= set(M.TARGET_METRICS)
    assert M.TARGET_METRICS[:2] == ("first_player_advantage", "balance")  # error messages list
    assert all(M.metric(n).target for n in M.TARGET_METRICS)


def test_every_metric_is_declared_completely(tables):
    a, _ = tables
    values = game_values(a["games"], a["players"], a["cards"])
    for m in M.metrics_for(values.columns):
        found = M.metric(m.name)  # the lookup knows every family member
        assert (found.name, found.columns, found.interval) == (m.name, m.columns, m.interval)
        assert m.unit in M.UNITS and m.interval in M.INTERVALS
        read = [c for c in values.columns if M.matches(c, m.columns)]
        assert read, f"{m.name}: none of its columns {m.columns} are game values"
        # fn reads nothing but its declared columns (what per-chunk sums must keep)
        full = M.Means(values.mean().to_numpy()[None, :], list(values.columns))
        only = M.Means(values[read].mean().to_numpy()[None, :], read)
        np.testing.assert_allclose(m.fn(only), m.fn(full), equal_nan=True)


def test_mean_and_wilson_metrics_are_their_first_column_plus_an_offset(tables):
    """What lets estimate_metrics shift the column's interval by the metric's offset."""
    a, _ = tables
    values = game_values(a["games"], a["players"])
    for m in M.CORE_METRICS:
        if m.interval not in ("mean", "wilson"):
            continue
        means = values.mean()
        before = m.fn(M.Means(means.to_numpy(copy=True)[None, :], list(values.columns)))
        means[m.columns[0]] += 0.125
        after = m.fn(M.Means(means.to_numpy()[None, :], list(values.columns)))
        assert after - before == pytest.approx(0.125), m.name


def test_unknown_metric_lookup_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown metric 'balanse'; did you mean 'balance'"):
        M.metric("balanse")
    assert M.metric("win_share.seat2").columns == ("seat2",)
    assert M.metric("win_share.greedy").columns == ("policy:greedy",)
    assert M.metric("card_impact.princess").group == "cards"


def test_the_registry_is_on_the_ground_floor():
    """sim.metrics imports no other sim module but the unit convention (a ground-floor leaf
    that names cards for people); sim.config needs neither pandas nor the runner."""
    code = (
        "import sys, sim.metrics; a = sorted(m for m in sys.modules if m.startswith('sim'));"
        " import sim.config; b = sorted(m for m in sys.modules if m.startswith('sim'));"
        " print(a, 'pandas' in sys.modules, 'sim.runs.runner' in b, 'sim.analysis' in b)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()  # fmt: skip
    # the package root loads only its version leaf; importing the registry adds itself
    assert out == "['sim', 'sim.metrics', 'sim.units', 'sim.version'] False False False"


# ---------------------------------------------------------------- the config reads it


@pytest.mark.parametrize("name", M.TARGET_METRICS)
def test_every_target_metric_is_accepted_by_the_config(base, tmp_path, name):
    assert base.with_overrides(**{f"targets.{name}": [0, 1]}).targets == {name: (0.0, 1.0)}
    path = tmp_path / "t.yaml"
    path.write_text(f"targets:\n  {name}: 0.5\n", encoding="utf-8")
    assert load_study(path).targets == {name: 0.5}


def test_an_unknown_target_is_one_config_error_line(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("targets:\n  closed_shares: 0.5\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_study(path)
    message = str(info.value)
    assert "\n" not in message
    assert message == (
        f"{path}: targets.closed_shares: unknown metric; did you mean 'closed_share'?"
    )


def test_check_targets_names_a_metric_it_does_not_know(head):
    with pytest.raises(ValueError, match="targets.win_share.seat0: not a target metric"):
        check_targets(head.reset_index(), {"win_share.seat0": 0.25})


# ---------------------------------------------------------------- one definition everywhere


def test_every_target_gets_a_finite_value_and_interval(head):
    assert list(head.index) == list(M.TARGET_METRICS)
    for name, r in head.iterrows():
        assert math.isfinite(r["value"]) and math.isfinite(r["lo"]) and math.isfinite(r["hi"])
        assert r["lo"] <= r["value"] + 1e-12 and r["value"] <= r["hi"] + 1e-12, name
        declared = M.metric(name).interval  # a run's "bootstrap" metric: the delta method
        assert r["interval"] == {"bootstrap": "delta method"}.get(declared, declared)
        assert r["n"] == GAMES
    targets = {n: (-1e9, 1e9) for n in M.TARGET_METRICS}
    checks = check_targets(head.reset_index(), targets).set_index("metric")
    assert (checks["status"] == "met").all()


def test_intervals_follow_the_declared_method(tables, head):
    a, _ = tables
    games = a["games"]
    ties = wilson(int(games["tie"].sum()), len(games))
    assert tuple(head.loc["shared_wins", ["value", "lo", "hi"]]) == pytest.approx(ties[:3])
    turns = games["turns"].to_numpy(float)
    assert head.loc["turns", "value"] == pytest.approx(turns.mean())
    want = mean_bounds(Summary.of(turns), M.metric("turns").value_range)
    assert tuple(head.loc["turns", ["lo", "hi"]]) == pytest.approx(want)
    # it holds the t interval but where the observed range cuts it (most games end at
    # the same turn: the mean never exceeds the largest count seen by more than the
    # allowance for unseen games, z²/(n + z²) turns)
    half = t975(GAMES - 1) * turns.std(ddof=1) / np.sqrt(GAMES)
    assert want[0] <= turns.mean() - half + 1e-12
    assert want[1] >= min(turns.mean() + half, turns.max()) - 1e-12
    assert want[1] <= turns.max() + 3.85 / GAMES


def test_same_value_in_run_report_compare_and_sweep(tables, head):
    a, b = tables
    head_b = headline(b["games"], b["players"]).set_index("metric")
    cmp = compare_runs(a, b, resamples=50).set_index("metric")
    sweep = sweep_stats([a, b], ["4 sprayers", "6 sprayers"], resamples=50).table
    sweep = sweep.set_index(["metric", "point"])["value"]
    for name in M.TARGET_METRICS:
        assert cmp.loc[name, "a"] == pytest.approx(head.loc[name, "value"], rel=1e-12), name
        assert cmp.loc[name, "b"] == pytest.approx(head_b.loc[name, "value"], rel=1e-12), name
        assert sweep[(name, 0)] == pytest.approx(head.loc[name, "value"], rel=1e-12), name
        assert sweep[(name, 1)] == pytest.approx(head_b.loc[name, "value"], rel=1e-12), name
        assert cmp.loc[name, "label"] == M.metric(name).label


def test_the_run_reports_other_tables_agree_with_the_headline(tables, head):
    a, _ = tables
    balance = balance_metrics(a["games"], a["players"]).set_index("metric")
    flow = flow_summary(a["games"]).set_index("metric")
    cols = ["value", "lo", "hi"]
    for name in balance.index:
        assert tuple(balance.loc[name, cols]) == pytest.approx(tuple(head.loc[name, cols]))
    for name in ("turns", "items_wasted", "closed_share", "margin"):
        got = tuple(flow.loc[name, ["mean", "lo", "hi"]])
        assert got == pytest.approx(tuple(head.loc[name, cols])), name
        assert flow.loc[name, "label"] == M.metric(name).label
    pooled = a["games"]["closed_boxes"].sum() / a["games"]["boxes"].sum()
    assert flow.loc["closed_share", "mean"] == pytest.approx(pooled)


def test_mean_score_interval_holds_the_clustered_one(tables, head):
    """Per-game mean scores with a t interval = seat rows clustered by game (equal seats);
    the score interval joined to it may reach a little further on the skewed side."""
    players = tables[0]["players"]
    e = clustered_mean_ci(players["score"], players["game"])
    value, lo, hi = head.loc["mean_score", ["value", "lo", "hi"]]
    assert value == pytest.approx(e.value)
    assert lo <= e.lo + 1e-9 and hi >= e.hi - 1e-9
    assert (hi - lo) == pytest.approx(e.hi - e.lo, rel=0.01)


def test_turn_tension_and_card_use_metrics_are_registered(tables):
    assert M.metric("extra_turn_share.seat0").columns == ("extra0",)
    assert M.metric("turn_edge.seat2").columns == ("turn_gain2",)
    assert M.metric("equal_turn_edge.seat1").columns == ("level1", "n_players")
    assert M.metric("dead_rate.box:NS").group == "cards"
    for name in ("unequal_turns", "lead_changes", "decided_at", "comeback", "open_before_last"):
        assert name in M.TARGET_METRICS
    a, _ = tables
    values = game_values(a["games"], a["players"], a["cards"])
    names = {m.name for m in M.metrics_for(values.columns)}
    assert {"dead_card_rate", "final_phase", "turn_edge.seat3", "dead_rate.princess"} <= names
    # the seat edge is the equal-turn part plus the extra-turn part, on every resample's means
    means = M.Means(values.mean().to_numpy()[None, :], list(values.columns))
    for k in range(4):
        whole = M.metric(f"win_share.seat{k}").fn(means) - 0.25
        parts = M.metric(f"equal_turn_edge.seat{k}").fn(means) + M.metric(f"turn_edge.seat{k}").fn(
            means
        )
        np.testing.assert_allclose(parts, whole, atol=1e-12)
