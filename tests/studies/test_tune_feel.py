"""`sim tune` with a target on how the game feels (issue 53): the search judges every
candidate by one model (the start's), each check judges its config by that config's own
model (the one `sim run` of it reads) with the interval widened by the model's own noise,
and kingmaking, measured on a sample after the games, is refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from cli_helpers import sim_cli

from sim.config import parse_study
from sim.runs.chances import MODEL_FILE, feel_model, load_model
from sim.studies.tune_search import apply_point

# mean_score holds deck.sprayers = 6 alone with four random seats (tests/studies/test_tune.py);
# the suspense band is one every config of this space meets, so the answer stays that one
# and the test is about how the feel is judged, not where the search goes.
TUNE = {
    "name": "feel_tune",
    "seed": 7,
    "seats": [{"policy": "random"}] * 4,
    "tune": {
        "space": {"deck.sprayers": [0, 10]},
        "targets": {"mean_score": {"value": 0.57, "within": 0.15}, "suspense": [0.0, 50.0]},
        "budget": {"games": 20000, "first": 500, "confirm": 2000, "finalists": 2},
    },
}


def _same(a, b) -> bool:
    return a.arrays().keys() == b.arrays().keys() and all(
        np.array_equal(x, b.arrays()[k]) for k, x in a.arrays().items()
    )


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tune_feel")
    config = tmp / "feel_tune.yaml"
    config.write_text(yaml.safe_dump(TUNE, sort_keys=False))
    out = tmp / "t"
    text = sim_cli("tune", config, "--jobs", 1, "--out", out, "--no-report", "--quiet")
    return out, text


def test_the_search_judges_every_candidate_by_the_starts_model(tuned):
    out, _ = tuned
    study = json.loads((out / "study.json").read_text())
    folders = [out / "candidates" / f"c{c['id']:04d}" for c in study["candidates"] if c["games"]]
    assert len(folders) >= 3
    first = load_model(folders[0] / MODEL_FILE)
    start = parse_study(TUNE, "feel_tune.yaml")
    assert _same(first, feel_model([apply_point(start, {"deck.sprayers": 4})]))
    for folder in folders:
        assert _same(load_model(folder / MODEL_FILE), first)  # one yardstick
        assert "suspense" in pd.read_parquet(folder / "games.parquet").columns


def test_each_check_judges_its_config_by_its_own_model_and_noise(tuned):
    out, _ = tuned
    data = json.loads((out / "tune.json").read_text())
    assert data["status"] == "recommended" and data["recommended"] == {"deck.sprayers": 6}
    start = parse_study(TUNE, "feel_tune.yaml")
    confirmed = next(out.glob("confirm/c*"))
    own = feel_model([apply_point(start, {"deck.sprayers": 6})])
    assert _same(load_model(confirmed / MODEL_FILE), own)  # not the start's
    assert not _same(own, load_model(out / "confirm" / "start" / MODEL_FILE))
    row = data["targets"]["suspense"]
    assert row["verdict"] == "met" and row["model_noise"] > 0
    games = pd.read_parquet(confirmed / "games.parquet")["suspense"]
    half = 1.96 * games.std() / np.sqrt(len(games))
    width = row["hi"] - row["lo"]
    assert width > 2 * half  # the games' interval alone is narrower
    assert width >= 2 * 1.96 * row["model_noise"] - 1e-9  # the model's noise is in it
    assert "model_noise" not in row["start"] or row["start"]["model_noise"] > 0
    assert "own model" in data["feel"] and "noise" in data["family"]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"space": {"players": [3, 4]}}, "targets.suspense: sim tune judges the feel with a model"),
        ({"targets": {"kingmaking": [0.0, 0.05]}}, "targets.kingmaking: it is measured on a"),
    ],
)
def test_a_feel_target_tune_cannot_judge_is_one_line_before_any_game(
    tmp_path, capsys, change, says
):
    """A space that moves the player count (one model reads one count), or kingmaking
    (measured on a sample after the games): refused in one line, nothing written."""
    from sim.cli import main

    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({**TUNE, "tune": {**TUNE["tune"], **change}}))
    assert main(["tune", str(config), "--out", str(tmp_path / "t"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {says}") and "\n" not in err
    assert not (tmp_path / "t").exists()


def test_a_start_that_meets_its_feel_target_needs_no_change(tmp_path):
    """A true null: the start already meets the feel target (and the other), so nothing is
    searched and the answer is "no change needed", on five seeds."""
    for seed in range(5):
        raw = {**TUNE, "seed": seed, "tune": {**TUNE["tune"], "targets": {"suspense": [1.5, 3.5]}}}
        config = tmp_path / f"n{seed}.yaml"
        config.write_text(yaml.safe_dump(raw, sort_keys=False))
        out = tmp_path / f"t{seed}"
        sim_cli("tune", config, "--jobs", 1, "--out", out, "--no-report", "--quiet")
        data = json.loads((out / "tune.json").read_text())
        assert data["status"] == "no change needed", seed
        assert data["games"]["search"] == 0 and data["targets"]["suspense"]["model_noise"] > 0
