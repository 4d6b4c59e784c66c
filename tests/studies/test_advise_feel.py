"""`sim advise` with a target on how the game feels (issue 53): the diagnosis judges it at
every level by that level's own model with the model's noise, the confirmation judges each
fix at every level by its own, and the advice says how the game feels after each fix (a fix
that makes the game fair but misses the feel target does not lead)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_helpers import sim_cli

from sim.studies.advice import lead_order

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
SMALL = {
    "games": 1500,
    "screen": 300,
    "select": 800,
    "confirm": 1500,
    "finalists": 1,
    "budget": 60_000,
    "levels": [{"policy": "random"}, {"policy": "greedy"}],
}


@pytest.fixture(scope="module")
def feel_advice(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("advise_feel")
    config = tmp / "base.yaml"
    raw = {"extends": str(BASE), "name": "base", "targets": {"suspense": [0.5, 5.0]}}
    config.write_text(yaml.safe_dump({**raw, "advise": SMALL}, sort_keys=False))
    text = sim_cli("advise", config, "--out", tmp / "a", "--no-report", "--quiet")
    return json.loads((tmp / "a" / "advice.json").read_text()), text


def test_the_diagnosis_judges_the_feel_target_with_each_levels_noise(feel_advice):
    data, _ = feel_advice
    for level in ("random", "greedy"):
        row = data["diagnosis"][level]["suspense"]
        assert row["verdict"] == "met" and row["model_noise"] > 0
        assert data["play"][level]["suspense"]["verdict"] == "met"


def test_each_confirmed_fix_says_how_the_game_feels_after_it(feel_advice):
    data, text = feel_advice
    assert data["fixes"], text
    for f in data["fixes"]:
        assert set(f["feel"]) == {"random", "greedy"} and f["feel_missed"] is False
        for entry in f["feel"].values():
            assert entry["suspense"]["model_noise"] > 0
    assert "how it feels after it: suspense on target at every level" in text


def test_a_fix_that_misses_the_feel_target_does_not_lead():
    def fix(rank, missed, confirmed=True):
        return {
            "offered": True,
            "confirmed": confirmed,
            "rank": rank,
            "feel_missed": missed,
            "worst_edge_pp": 1.0,
            "worst_abs_pp": [0.5, 1.5],
            "size": 1,
        }

    first, second = fix(0, True), fix(1, False)
    assert lead_order([first, second]) == [second, first]
    assert lead_order([fix(0, False), fix(1, False)])[0]["rank"] == 0
