"""`sim value`: restricted play and deck ablation on paired games."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from cli_helpers import sim_cli

from sim.config import ban_options, parse_study
from sim.errors import ConfigError

SMALL = {
    "players": 3,
    "seats": [{"policy": "greedy"}, {"policy": "greedy"}, {"policy": "random"}],
    "seed": 11,
}


def _write(tmp_path, data: dict, name: str = "study.yaml"):
    import yaml

    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_ban_options_name_every_box_kind_the_princess_and_the_actions():
    study = parse_study(SMALL, "<t>")
    options = ban_options(study.game)
    assert options[-3:] == ["princess", "sleeping", "cat"]
    assert all(o.startswith("box:") for o in options[:-3])
    assert "box:" in options  # the card without walls


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (
            {**SMALL, "seats": [{"policy": "greedy", "ban": ["unicorn"]}, *SMALL["seats"][1:]]},
            "seats[0].ban: 'unicorn'",
        ),
        ({**SMALL, "value": {"options": ["princes"]}}, "value.options"),
        ({**SMALL, "value": {"seat": 3}}, "value.seat"),
        ({**SMALL, "value": {"ablate": ["toy:unicorn"]}}, "value.ablate"),
        ({**SMALL, "value": {"option": ["cat"]}}, "value.option"),
    ],
)
def test_bad_value_settings_are_one_error_line(data, where):
    with pytest.raises(ConfigError, match=re.escape(where)):
        parse_study(data, "<t>")


def test_banned_seat_round_trips_through_yaml():
    data = {**SMALL, "seats": [{"policy": "greedy", "ban": ["cat"]}, *SMALL["seats"][1:]]}
    study = parse_study(data, "<t>")
    again = parse_study(study.to_yaml_dict(), "<t>")
    assert again.seats[0].ban == ("cat",) and again.config_hash() == study.config_hash()
    assert study.seats[0].label == "greedy[-cat]"
    assert parse_study(SMALL, "<t>").config_hash() != study.config_hash()


def test_value_study_end_to_end(tmp_path):
    """Null options give exactly 0 (identical games); banning cats costs greedy a lot."""
    deck = {"boxes": {"": 6, "N": 8, "E": 6, "NS": 4, "NE": 6, "NW": 6, "NESW": 0}, "princesses": 0}
    data = {
        **SMALL,
        "deck": deck,
        "value": {"options": ["princess", "box:NESW", "cat", "sleeping"], "ablate": ["box:N"]},
    }
    path = _write(tmp_path, data)
    text = sim_cli(
        "value",
        path,
        "--games",
        240,
        "--jobs",
        1,
        "--out",
        tmp_path / "v",
        "--report",
        tmp_path / "v.html",
        "--quiet",
    )
    from sim.studies.value import load_value

    result = load_value(tmp_path / "v")
    values = pd.read_csv(tmp_path / "v" / "values.csv").set_index("option")
    assert list(values.columns[:5]) == ["value", "lo", "hi", "n", "p"]
    # Options that never arise: the same games, value 0 inside its (empty) interval.
    for option in ("princess", "box:NESW"):
        row = values.loc[option]
        assert row["value"] == 0 and row["lo"] <= 0 <= row["hi"] and row["fallback_rate"] == 0
        assert bool(result.values.set_index("option").loc[option, "identical"])
    # The awake cat is greedy's main source of points: a large, real loss.
    assert values.loc["cat", "lo"] > 0 and values.loc["cat", "real"]
    # The box action and "no cat" are always legal: never a fallback.
    assert values.loc["cat", "fallback_rate"] == 0 and values.loc["sleeping", "fallback_rate"] == 0
    assert (values["n"] == 240).all()
    ablation = pd.read_csv(tmp_path / "v" / "ablation.csv")
    assert set(ablation["card"]) == {"box:N"} and ablation["p_adj"].notna().all()
    summary = json.loads((tmp_path / "v" / "summary.json").read_text())
    assert summary["kind"] == "value" and "Holm" in summary["family"]
    page = (tmp_path / "v.html").read_text()
    assert "<svg" in page and "cat" in page
    assert "cat:" in text
    # `sim report FOLDER` rebuilds the page from the folder alone, with the same numbers
    from sim.report.tune_report import build_folder_report

    again = build_folder_report(tmp_path / "v", tmp_path / "again.html")
    assert "<svg" in again.read_text()
    pd.testing.assert_frame_equal(load_value(tmp_path / "v").values, result.values)
