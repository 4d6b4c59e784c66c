"""`sim tune`: a known answer found, a killed search resumed to the same verdict, bad input
refused in one line."""

from __future__ import annotations

import json

import pytest
import yaml
from cli_helpers import sim_cli

import sim.studies.tune
from sim.analysis.tuning import pareto_front, target_distance
from sim.cli import main
from sim.config import load_study

# Mean score falls by about 0.38 points per sprayer with four random seats (0.96 at 5
# sprayers, 0.57 at 6, 0.24 at 7), so this band holds deck.sprayers = 6 alone.
RANDOM = [{"policy": "random"}] * 4
KNOWN = {
    "name": "known",
    "seed": 7,
    "seats": RANDOM,
    "tune": {
        "space": {"deck.sprayers": [0, 10]},
        "targets": {"mean_score": {"value": 0.57, "within": 0.15}},
        "budget": {"games": 20000, "first": 500, "confirm": 2000, "finalists": 2},
    },
}


def _write(path, data):
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    """The known-answer problem, tuned without interruption."""
    tmp = tmp_path_factory.mktemp("tune")
    config = _write(tmp / "known.yaml", KNOWN)
    report = tmp / "known.html"
    text = sim_cli("tune", config, "--jobs", 1, "--out", tmp / "t", "--report", report, "--quiet")
    return tmp / "t", None, text


def test_finds_the_known_answer(known):
    out_dir, verdict, text = known
    data = json.loads((out_dir / "tune.json").read_text())
    assert data["status"] == "met"
    assert data["recommended"] == {"deck.sprayers": 6}
    assert data["targets"]["mean_score"]["verdict"] == "met"
    assert data["targets"]["mean_score"]["start"]["verdict"] == "missed"
    assert data["search"]["games"] <= 20000
    assert "deck.sprayers 4 → 6" in text
    tuned = load_study(out_dir / "recommended.yaml")
    assert tuned.game.deck.sprayers == 6 and not tuned.tune
    assert tuned.targets == {"mean_score": {"value": 0.57, "within": 0.15}}


def test_report_shows_the_change_targets_and_search(known):
    _, _, text = known
    path = text.rsplit("report: ", 1)[1].strip()
    html = open(path, encoding="utf-8").read()
    assert "deck.sprayers: 4 → 6" in html and "<svg" in html
    for section in ("summary", "targets", "search", "effects", "config"):
        assert f'id="{section}"' in html


def test_candidates_share_their_games(known):
    out_dir, _, _ = known
    meta = json.loads((out_dir / "study.json").read_text())
    keys = [json.dumps(c["params"], sort_keys=True) for c in meta["candidates"]]
    assert len(keys) == len(set(keys)), "no candidate is played twice"
    seeds = {json.loads((p / "run.json").read_text())["seed"]
             for p in (out_dir / "candidates").iterdir()}  # fmt: skip
    assert seeds == {7}
    fresh = json.loads((out_dir / "confirm" / "start" / "run.json").read_text())
    assert fresh["seed"] == 8 and fresh["games"] == 2000


def test_a_killed_search_resumes_to_the_same_recommendation(known, tmp_path, monkeypatch):
    config = _write(tmp_path / "known.yaml", KNOWN)
    real, calls = sim.studies.tune.execute, []

    def dies_on_the_fourth_call(*args, **kwargs):
        calls.append(1)
        done = real(*args, **kwargs)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return done

    monkeypatch.setattr(sim.studies.tune, "execute", dies_on_the_fourth_call)
    args = ["tune", str(config), "--jobs", "1", "--out", str(tmp_path / "t"), "--no-report"]
    assert main([*args, "--quiet"]) == 130  # interrupted, as by Ctrl-C
    monkeypatch.setattr(sim.studies.tune, "execute", real)
    assert not (tmp_path / "t" / "tune.json").exists()
    sim_cli("tune", "--jobs", 1, "--resume", tmp_path / "t", "--no-report", "--quiet")
    out_dir = tmp_path / "t"
    again = json.loads((out_dir / "tune.json").read_text())
    first = json.loads((known[0] / "tune.json").read_text())
    assert again["recommended"] == first["recommended"]
    assert again["search"]["games"] == first["search"]["games"]
    a, b = (json.loads((d / "study.json").read_text())["candidates"] for d in (known[0], out_dir))
    assert [(c["params"], c["games"]) for c in a] == [(c["params"], c["games"]) for c in b]


def test_resume_refuses_another_config(known, tmp_path):
    other = _write(tmp_path / "other.yaml", {**KNOWN, "seed": 8})
    assert main(["tune", str(other), "--resume", str(known[0]), "--quiet"]) == 2


def test_distance_and_pareto_front():
    targets = {"mean_score": {"value": 1.0, "within": 0.5}, "turns": (40.0, 60.0)}
    assert target_distance({"mean_score": 1.5, "turns": 50}, targets) == pytest.approx(1.0)
    assert target_distance({"mean_score": 1.0, "turns": 70}, targets) == pytest.approx(2.0)
    assert list(pareto_front([[0, 2], [1, 1], [1, 2], [2, 0]])) == [0, 1, 3]


def _tune(**changes):
    data = json.loads(json.dumps(KNOWN))
    for key, value in changes.items():
        section, _, name = key.partition(".")
        data["tune"].setdefault(section, {})[name] = value
    return data


BAD = {
    "unknown setting": (_tune(**{"space.deck.sprayer": [0, 3]}), "did you mean 'deck.sprayers'"),
    "bounds reversed": (_tune(**{"space.deck.sprayers": [6, 2]}), "bounds reversed"),
    "only invalid decks": (_tune(**{"space.hand_size": [15, 20]}), "gives only invalid games"),
    "unknown metric": (_tune(**{"targets.mean_scor": 1}), "did you mean 'mean_score'"),
    "budget too small": (_tune(**{"budget.games": 100}), "cannot evaluate one candidate"),
    "constraint": (_tune(**{"constraints.deck_size": [10, 20]}), "outside constraints.deck_size"),
    "players, mixed seats": (
        {**_tune(**{"space.players": [2, 4]}), "seats": [{"policy": "greedy"}] + RANDOM[1:]},
        "all seats alike",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_tune_block_is_one_line(case, tmp_path, capsys):
    data, needle = BAD[case]
    config = _write(tmp_path / "bad.yaml", data)
    assert main(["tune", str(config), "--out", str(tmp_path / "t"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and needle in err and "tune." in err
    assert not (tmp_path / "t").exists()


def test_budget_flag_too_small_and_no_tune_block(tmp_path, capsys):
    config = _write(tmp_path / "k.yaml", KNOWN)
    assert main(["tune", str(config), "--budget", "10", "--quiet"]) == 2
    assert "cannot evaluate one candidate" in capsys.readouterr().err
    plain = _write(tmp_path / "plain.yaml", {"name": "plain"})
    assert main(["tune", str(plain), "--quiet"]) == 2
    assert "no 'tune:' block" in capsys.readouterr().err
