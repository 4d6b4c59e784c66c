"""The one unit convention (sim/units.py): shares in %, share differences in pp, plurals."""

from __future__ import annotations

import math

import pytest

from sim import units


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.2791, "27.9%"), (0.25, "25.0%"), (0.0, "0.0%"), (1.0, "100.0%"), (0.9998, "99.98%"),
     (0.0002, "0.02%"), (0.05, "5.0%"), (math.nan, "–")],
)  # fmt: skip
def test_shares_are_percent_with_one_decimal(value, text):
    assert units.pct(value) == text


def test_differences_of_shares_are_percentage_points():
    assert units.pp(0.036) == "+3.6 pp" and units.pp(-0.021) == "-2.1 pp"
    assert units.pp(0.012, signed=False) == "1.2 pp"  # an interval's width
    assert units.value(0.036, "share", diff=True) == "+3.6 pp"
    assert units.value(0.036, "share") == "3.6%"
    assert units.interval(0.03, -0.01, 0.07, "share", diff=True) == "+3.0 pp [-1.0, +7.0]"
    assert units.interval(0.279, 0.273, 0.285, "share") == "27.9% [27.3%, 28.5%]"


def test_other_units_are_plain_numbers():
    assert units.value(2.256, "points") == "2.26"
    assert units.value(-0.3, "turns", diff=True) == "-0.3"
    assert units.value(12345.6, "count") == "12,346"


@pytest.mark.parametrize(
    ("n", "word", "text"),
    [(1, "point", "1 point"), (2, "point", "2 points"), (0, "point", "0 points"),
     (1, "game/s", "1 game/s"), (19, "game/s", "19 games/s"), (10000, "game", "10,000 games"),
     (1, "seat-game", "1 seat-game")],
)  # fmt: skip
def test_plurals(n, word, text):
    assert units.plural(n, word) == text


def test_differences_of_shares_are_pp_by_the_registry():
    """A metric declared a difference of shares (Metric.diff) reads in pp everywhere: its
    value, its interval, its target and its axis; a plain share stays in %."""
    from sim.analysis.findings import metric_interval, metric_text
    from sim.metrics import describe_target, metric

    assert metric("first_player_advantage").diff and metric("card_impact.princess").diff
    assert metric("turn_edge.seat0").diff and not metric("win_share.seat0").diff
    assert metric_text("first_player_advantage", 0.036) == "+3.6 pp"
    assert metric_text("first_player_advantage", 0.012, diff=True) == "1.2 pp"  # a width
    assert metric_text("win_share.seat0", 0.286) == "28.6%"
    est = {"estimate": 0.036, "lo": 0.028, "hi": 0.044}
    assert metric_interval("first_player_advantage", est) == "+3.6 pp [+2.8, +4.4]"
    assert metric_interval("comeback", est) == "3.6% [2.8%, 4.4%]"
    assert describe_target("first_player_advantage", 0) == "+0.0 pp ± 1.0 pp"
    assert describe_target("first_player_advantage", [-0.02, 0.01]) == "[-2.0 pp, +1.0 pp]"
    assert describe_target("shared_wins", 0.1) == "10.0% ± 1.0 pp"
    assert units.axis_label("first-player advantage", "share", diff=True).endswith("(pp)")
    assert units.axis_label("win share", "share") == "win share (%)"


def test_the_box_without_walls_has_a_readable_label():
    assert units.card_label("box:") == "box:(no walls)"
    assert units.card_label("box:NE") == "box:NE" and units.card_label("fish") == "fish"


def test_the_terminal_prints_shares_and_differences_in_the_reports_units():
    """sim compare's lines and the sweep findings use the same formatting as the HTML."""
    import pandas as pd

    from sim.analysis.paired import summarize_compare

    table = pd.DataFrame(
        {
            "metric": ["first_player_advantage", "turns"],
            "label": ["first-player advantage", "turns"],
            "unit": ["share", "turns"],
            "a": [0.03643, 56.0],
            "b": [-0.02095, 57.0],
            "diff": [-0.05738, 1.0],
            "lo": [-0.07, 0.8],
            "hi": [-0.045, 1.2],
            "p": [0.001, 0.001],
            "p_adj": [0.002, 0.002],
            "family": ["headline", "headline"],
            "real": [True, True],
            "width_ratio": [0.5, 0.5],
        }  # fmt: skip
    )
    table.attrs.update(labels=("A", "B"), games=100)
    text = summarize_compare(table)
    # first-player advantage is itself a difference of shares: pp, value and change alike
    assert "+3.6 pp -> -2.1 pp (-5.7 pp [-7.0 pp, -4.5 pp]" in text
    assert "56 -> 57 (+1 [+0.8, +1.2]" in text
