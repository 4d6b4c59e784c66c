"""`sim map` with a target on how the game feels (issue 53): the design judges every point
by one model (the start's), so the emulator fits what the points' games change; each
confirmed point is judged by its own model (the one `sim run` of it reads) with that
model's own noise; a space that moves the player count is refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import BASE_TEXT, one_error, sim_cli

from sim.config import load_study
from sim.runs.chances import MODEL_FILE, feel_model, feel_noise, load_model
from sim.space_map.emulator import Z95
from sim.space_map.study import point_study

MAP_FEEL = (
    BASE_TEXT
    + """
targets: {suspense: [1.0, 4.0]}
advise:
  levels: [{policy: random}]
map:
  space:
    deck.sprayers: [2, 6]
  points: 4
  refine: 0
  games: 200
  nearest: 1
  confirm: 300
"""
)


def _same(a, b) -> bool:
    x, y = a.arrays(), b.arrays()
    return x.keys() == y.keys() and all(np.array_equal(v, y[k]) for k, v in x.items())


@pytest.fixture(scope="module")
def feel_map(tmp_path_factory):
    folder = tmp_path_factory.mktemp("map_feel")
    config = folder / "map.yaml"
    config.write_text(MAP_FEEL)
    sim_cli("map", config, "--out", folder / "m", "--jobs", 1, "--no-report", "--quiet")
    return folder / "m", load_study(config)


def test_the_design_judges_every_point_by_the_starts_model(feel_map):
    out, study = feel_map
    data = json.loads((out / "map.json").read_text())
    assert "suspense" in data["emulators"]
    start = feel_model([point_study(study, data["start"], None, study.games, study.seed)])
    for p in data["points"]:
        lineup = out / p["runs"]["lineup"]
        assert _same(load_model(lineup / MODEL_FILE), start)  # one yardstick
        assert not (out / p["runs"]["random"] / MODEL_FILE).exists()  # no feel target there


def test_a_confirmed_point_is_judged_by_its_own_model_and_noise(feel_map):
    out, study = feel_map
    data = json.loads((out / "map.json").read_text())
    (confirmed,) = data["region"]["confirmed"]
    point = point_study(study, confirmed["point"], None, 300, study.seed + 1)
    folder = next(out.glob("confirm/p000-l0"))
    assert _same(load_model(folder / MODEL_FILE), feel_model([point]))
    row = next(r for r in confirmed["targets"] if r["target"] == "suspense")
    noise = feel_noise([point], quiet=True)["suspense"]
    # the 95% interval (the games' and the model's noise) widened to the confirmation's level
    assert row["hi"] - row["lo"] >= 2 * Z95 * noise - 1e-9
    assert row["met"] == (1.0 <= row["lo"] and row["hi"] <= 4.0)
    assert data["feel"].startswith("suspense: the design judged every point by the start")


def test_a_space_that_moves_the_player_count_is_refused(study, capsys):
    text = MAP_FEEL.replace("deck.sprayers: [2, 6]", "players: [3, 4]").replace(
        "advise:\n  levels: [{policy: random}]\n", ""
    )
    line = one_error(capsys, "map", study(text))
    assert line.startswith("error: targets.suspense") and "player count" in line
