"""`sim map`: the design, the emulator's algebra, the region, the files and the one-line
errors. The map of the base game against known answers is a slow test (test_map_truth)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import BASE_TEXT, cli, one_error, sim_cli

from sim.config import load_study
from sim.space_map import charts
from sim.space_map.design import Axis, axes_of, hand_cards, inputs, sobol_points
from sim.space_map.emulator import Z95, fit, held_out
from sim.studies.fix_candidates import extra_turn_seats, turns_of

SPACE = {"deck.sprayers": [2, 6], "deck.princesses": [0, 3], "deck.boxes.N": [6, 9]}


def test_the_design_is_distinct_inside_the_space_and_covers_each_count():
    axes = axes_of(SPACE)
    points = sobol_points(axes, 16, seed=3)
    assert len(points) == 16 and len({tuple(p.values()) for p in points}) == 16
    for a in axes:
        seen = {p[a.name] for p in points}
        assert seen == set(a.values), a  # every value of every count
    assert sobol_points(axes, 16, seed=3) == points  # seeded
    assert (
        len(sobol_points((Axis("deck.sprayers", tuple(range(2, 5))),), 16, seed=1)) == 3
    )  # a small space


def test_the_extra_turn_inputs_follow_the_rules(study):
    """R2.3, R2.4, R3.1, R7.1: the hand cards left after the start card and the deal, mod
    the players, are the first seats' extra turns; the inputs carry exactly those seats."""
    base = load_study(study())
    game = base.game.game_dict()
    axes = axes_of({**SPACE, "hand_size": [2, 4]})
    for point in sobol_points(axes, 32, seed=5):
        seats = turns_of(base, point).extra
        assert extra_turn_seats(*hand_cards(game, point)) == seats
        row = inputs(game, axes, [point])[0]
        assert [k for k in range(5) if row[len(axes) + k] == 1.0] == list(seats)
    assert extra_turn_seats(40, 4, 3) == (0, 1, 2)  # 40 - 1 - 12 = 27 left: 27 mod 4 = 3


def test_the_emulator_is_scikit_learns_process_and_its_intervals_cover():
    """The saved algebra (what --predict and the page's script compute) equals scikit-learn's
    prediction with the fitted kernel, and held-out points fall inside at about 95%."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    rng = np.random.default_rng(1)
    x = rng.random((40, 3))
    se = np.full(40, 0.05)
    y = np.sin(3 * x[:, 0]) + 0.5 * x[:, 1] + rng.normal(0, 0.05, 40)
    model = fit(x, y, se)
    kernel = (
        ConstantKernel(model.amplitude, "fixed") * RBF(model.scales, "fixed")
        + ConstantKernel(model.bias, "fixed")
        + WhiteKernel(model.nugget, "fixed")
    )
    scaled = (y - model.centre) / model.spread
    gp = GaussianProcessRegressor(kernel, alpha=se**2 / model.spread**2, optimizer=None)
    gp.fit(x, scaled)
    test = rng.random((7, 3))
    mean, sd = gp.predict(test, return_std=True)
    ours, our_sd = model.predict(test)
    assert np.allclose(ours, model.centre + model.spread * mean, atol=1e-8)
    assert np.allclose(our_sd, model.spread * sd, rtol=1e-6)
    check = held_out(x, y, se)
    assert check.covered >= 0.85 * check.points and check.width < 2 * Z95 * check.spread


def test_a_metric_without_signal_is_a_constant_with_its_noise():
    rng = np.random.default_rng(2)
    x = rng.random((20, 2))
    model = fit(x, 3.0 + rng.normal(0, 0.01, 20) * 0, np.full(20, 0.1))
    mean, sd = model.predict(x[:3])
    assert model.amplitude == 0.0 and np.allclose(mean, 3.0) and np.all(sd > 0)


def test_implausibility_and_the_region():
    band = charts.Band("m", -0.025, 0.025)
    imp = charts.implausibility(np.array([0.0, 0.055, -0.1]), np.array([0.01, 0.01, 0.1]), band)
    assert imp.tolist() == pytest.approx([0.0, 3.0, 0.75])
    axes = (Axis("a", tuple(range(0, 5))), Axis("b", tuple(range(0, 3))))

    def emulate(points):  # the metric is a - 2, known to 0.01: only a = 2 is inside
        a = np.array([p["a"] for p in points], float)
        return (a - 2)[None, :], np.full((1, len(points)), 0.01)

    reg = charts.region(axes, [band], emulate, {"a": 4, "b": 1}, seed=0)
    assert reg["judged"] == 15 and reg["not_ruled_out"] == 3
    assert reg["nearest"][0] == {"point": {"a": 2, "b": 1}, "move": 2, "implausibility": 0.0}
    assert reg["start"]["implausibility"]["m"] > charts.CUTOFF
    none = charts.region(axes, [charts.Band("m", 5, 6)], emulate, {"a": 4, "b": 1}, seed=0)
    assert none["not_ruled_out"] == 0 and none["pulling_apart"][0][0] == "m"


def test_sobol_indices_find_the_count_that_matters():
    axes = (Axis("a", tuple(range(0, 7))), Axis("b", tuple(range(0, 7))))

    def emulate(points):
        a = np.array([p["a"] for p in points], float)
        return np.vstack([a, a * 0 + 1.0]), np.zeros((2, len(points)))

    s = charts.sensitivity(axes, ["m", "flat"], emulate, seed=1)
    assert s["m"]["a"]["total"]["estimate"] == pytest.approx(1.0, abs=0.05)
    assert abs(s["m"]["b"]["total"]["estimate"]) < 0.05


def test_the_sensitivity_intervals_are_the_same_for_the_same_seed():
    """scipy resamples them with numpy's global state: seeded from the map's seed, and that
    state is left as it was."""
    axes = (Axis("a", tuple(range(5))), Axis("b", tuple(range(4))))

    def emulate(points):
        x = np.array([[p["a"], p["b"]] for p in points], float)
        return np.vstack([x[:, 0] + 0.3 * x[:, 1] + 0.1 * x[:, 0] * x[:, 1]]), np.ones((1, len(x)))

    before = np.random.get_state()[1].copy()
    runs = [charts.sensitivity(axes, ["m"], emulate, seed=5) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0]["m"]["a"]["first"]["lo"] < runs[0]["m"]["a"]["first"]["hi"]
    assert np.array_equal(np.random.get_state()[1], before)
    other = charts.sensitivity(axes, ["m"], emulate, seed=6)["m"]["a"]["first"]
    assert other["lo"] != runs[0]["m"]["a"]["first"]["lo"]  # the seed matters


MAP_TEXT = (
    BASE_TEXT
    + """
advise:
  levels: [{policy: random}]
map:
  space:
    deck.sprayers: [2, 6]
    deck.princesses: [0, 3]
  points: 6
  refine: 2
  games: 200
  nearest: 1
  confirm: 200
"""
)


@pytest.fixture(scope="module")
def small_map(tmp_path_factory):
    """A small map of the base game (6 points, random seats and the base line-up)."""
    import contextlib
    import io

    from sim.cli import main

    folder = tmp_path_factory.mktemp("map")
    config = folder / "map.yaml"
    config.write_text(MAP_TEXT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            [
                "map",
                str(config),
                "--out",
                str(folder / "m"),
                "--jobs",
                "1",
                "--report",
                str(folder / "m.html"),
                "--quiet",
            ]
        )
    assert code == 0
    return folder, out.getvalue()


def test_a_map_writes_its_folder_and_page_and_answers_a_point(small_map, capsys):
    folder, printed = small_map
    data = json.loads((folder / "m" / "map.json").read_text())
    assert data["points"][0]["point"] == {"deck.sprayers": 4, "deck.princesses": 2}
    assert len(data["points"]) == 8 and data["levels"] == ["lineup", "random"]  # 6 and 2 refined
    assert "seat_edge.seat0@random" in data["emulators"] and "mean_score" in data["emulators"]
    first = data["sensitivity"]["mean_score"]["deck.sprayers"]["first"]
    assert set(first) == {"estimate", "lo", "hi"}
    assert "held-out check" in printed and "region:" in printed
    assert (folder / "m.html").read_text().count('id="map-data"') == 1
    runs = list((folder / "m").glob("*/*/run.json"))  # every point's run keeps two tables
    assert runs and all(json.loads(r.read_text())["tables"] == ["games", "players"] for r in runs)
    sim_cli("report", folder / "m", "--out", folder / "again.html", "--quiet")  # sim report
    assert (folder / "again.html").read_text().count('id="map-data"') == 1
    code, out, _ = cli(capsys, "map", folder / "m", "--predict", "--set", "deck.sprayers=6")
    answer = json.loads(out)
    assert code == 0 and answer["point"] == {"deck.sprayers": 6, "deck.princesses": 2}
    m = answer["metrics"]["mean_score"]
    assert m["lo"] < m["estimate"] < m["hi"]
    from sim import load_map

    frame = load_map(folder / "m").predict({"deck.sprayers": 6}).set_index("metric")
    assert frame.loc["mean_score", "estimate"] == pytest.approx(m["estimate"])


def test_a_map_question_out_of_its_space_is_one_line(small_map, capsys):
    folder, _ = small_map
    line = one_error(capsys, "map", folder / "m", "--predict", "--set", "deck.toys.yarn=2")
    assert "deck.toys.yarn: not a setting of this map's space" in line
    line = one_error(capsys, "map", folder / "m", "--predict", "--set", "deck.sprayers=9")
    assert "outside the map's space [2, 6]" in line
    assert "not a map folder" in one_error(capsys, "map", folder, "--predict")


@pytest.mark.parametrize(
    ("block", "words"),
    [
        ("", "no 'map: {space: ...}' block"),
        ("map: {space: {players: [2, 4]}}", "mapping the player count needs all seats alike"),
        ("map: {space: {deck.sprayers: [2, 6]}, points: 2}", "map.points"),
        ("map: {space: {deck.sprayers: [2, 6]}, refine: -1}", "map.refine"),
        ("map: {space: {deck.sprayers: [2, 6]}, colour: red}", "colour"),
    ],
)
def test_a_config_a_map_cannot_chart_is_one_line_before_any_game(study, capsys, block, words):
    path = study(BASE_TEXT + "\n" + block + "\n")
    assert words in one_error(capsys, "map", path, "--no-report")


def test_refined_points_go_where_a_band_edge_is_unsure():
    axes = (Axis("a", tuple(range(0, 9))), Axis("b", tuple(range(0, 9))))
    band = charts.Band("m", -0.5, 0.5)

    def emulate(points):  # the metric a - 4 is known well, but unsure where b is large
        a = np.array([p["a"] for p in points], float)
        b = np.array([p["b"] for p in points], float)
        return (a - 4)[None, :], (0.05 + 0.2 * b)[None, :]

    picked = charts.refine(axes, [band], emulate, [], k=3, seed=0)
    assert len(picked) == 3
    assert all(p["b"] >= 6 for p in picked)  # the least sure rows
    assert all(abs(p["a"] - 4) <= 4 for p in picked)  # a band edge within 3 sd
    assert all(sum(abs(p[k] - q[k]) for k in "ab") >= 2 for p in picked for q in picked if p != q)


def test_the_what_if_panel_answers_as_the_emulator_does(small_map):
    """In Chromium from file://: moving a count changes the numbers to --predict's there."""
    import playwright.sync_api as playwright
    from browser_helpers import ARGS, CHROMIUM

    from sim import load_map

    folder, _ = small_map
    expected = load_map(folder / "m").predict({"deck.sprayers": 6}).set_index("metric")
    errors, requests = [], []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto((folder / "m.html").as_uri(), wait_until="load")
            cell = page.locator('tr[data-metric="mean_score"] td').nth(1)
            before = float(cell.get_attribute("data-estimate"))
            page.locator('input[data-setting="deck.sprayers"]').fill("4")  # 6: the 5th of 2..6
            after = float(cell.get_attribute("data-estimate"))
        finally:
            browser.close()
    assert not errors and all(u.startswith("file:") for u in requests)
    assert after == pytest.approx(expected.loc["mean_score", "estimate"], rel=1e-9)
    assert after != pytest.approx(before)


def test_the_map_notebook_runs_top_to_bottom(small_map, monkeypatch, tmp_path):
    """notebooks/map.ipynb loads a map and plots a slice (committed without outputs)."""
    from pathlib import Path

    import nbclient
    import nbformat

    folder, _ = small_map
    path = Path(__file__).resolve().parents[2] / "notebooks" / "map.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert all(c.outputs == [] for c in nb.cells if c.cell_type == "code")
    monkeypatch.setenv("SIM_MAP_DIR", str(folder / "m"))
    monkeypatch.setenv("MPLBACKEND", "agg")
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_a_flat_metric_is_known_only_as_well_as_its_points_tell():
    """Noisy points of a flat metric: the emulated level's sd is about se / sqrt(points)
    (the level is estimated too), never the near-zero of a level taken as known."""
    rng = np.random.default_rng(4)
    x = rng.random((16, 2))
    se = np.full(16, 0.02)
    model = fit(x, 0.3 + rng.normal(0, 0.02, 16), se)
    _, sd = model.predict(rng.random((5, 2)))
    assert np.all(sd > 0.5 * 0.02 / 4) and np.all(sd < 3 * 0.02)


TINY = (
    BASE_TEXT
    + """
advise:
  levels: [{policy: random}]
map:
  space: {deck.sprayers: [3, 5]}
  points: 4
  refine: 0
  games: 100
  nearest: 1
  confirm: 100
"""
)


def test_a_budget_too_small_is_one_line_before_any_game(study, capsys, tmp_path):
    path = study(TINY)
    line = one_error(capsys, "map", path, "--budget", "300", "--out", tmp_path / "m")
    assert "--budget: 300 games is too small" in line and not (tmp_path / "m").exists()


def test_an_interrupted_map_goes_on_where_it_stopped(study, capsys, tmp_path, monkeypatch):
    import sim.space_map.study as map_study

    path, out = study(TINY), tmp_path / "m"
    real = map_study._confirm

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(map_study, "_confirm", stop)
    code, _, _ = cli(capsys, "map", path, "--out", out, "--jobs", "1", "--no-report", "--quiet")
    assert code != 0 and json.loads((out / "study.json").read_text())["status"] == "interrupted"
    played = sorted(p.name for p in (out / "points").iterdir())
    monkeypatch.setattr(map_study, "_confirm", real)
    other = study(TINY.replace("[3, 5]", "[3, 6]"), "other.yaml")
    line = one_error(capsys, "map", other, "--resume", out, "--no-report")
    assert "started from a different map: block" in line
    assert "keeps the games" in one_error(capsys, "map", "--resume", out, "--games", "300")
    assert "keeps the budget" in one_error(capsys, "map", "--resume", out, "--budget", "9000")
    code, printed, err = cli(capsys, "map", "--resume", out, "--jobs", "1", "--no-report")
    assert code == 0, err
    assert json.loads((out / "study.json").read_text())["status"] == "complete"
    assert sorted(p.name for p in (out / "points").iterdir()) == played  # the same points
    assert json.loads((out / "map.json").read_text())["region"]["confirmed"]


MIXED = (
    BASE_TEXT.replace("{policy: greedy}", "{policy: random}")
    + """
advise:
  levels: [{policy: random}]
map:
  space:
    players: [2, 4]
    hand_size: {choices: [2, 3]}
    rules.match_sides: {choices: [any, matching]}
  points: 5
  refine: 1
  games: 100
  nearest: 1
  confirm: 100
"""
)


def test_a_map_over_player_counts_and_choices(study, capsys, tmp_path):
    """Players move the seats (the edges of the seats every count has are emulated) and
    choices are settings like counts; the page and --predict read both."""
    out = tmp_path / "m"
    code, _, err = cli(
        capsys,
        "map",
        study(MIXED),
        "--out",
        out,
        "--jobs",
        "1",
        "--quiet",
        "--report",
        tmp_path / "m.html",
    )
    assert code == 0, err
    data = json.loads((out / "map.json").read_text())
    assert data["space"]["rules.match_sides"] == {"choices": ["any", "matching"]}
    assert "seat_edge.seat1@random" in data["emulators"]
    assert "seat_edge.seat2@random" not in data["emulators"]  # two players have no seat 2
    assert {p["point"]["players"] for p in data["points"]} <= {2, 3, 4}
    code, printed, _ = cli(
        capsys, "map", out, "--predict", "--set", "players=3", "--set", "rules.match_sides=matching"
    )
    assert code == 0 and json.loads(printed)["point"]["rules.match_sides"] == "matching"
    line = one_error(capsys, "map", out, "--predict", "--set", "hand_size=4")
    assert "outside the map's space {2, 3}" in line
