"""`sim advise`: the base game's first-player edge traced to its extra turn and fixed by one
card fewer; nothing proposed where nothing is wrong (true nulls); the budget and the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_helpers import one_error, sim_cli
from page_helpers import check_fits, lead_of, measure

from sim.studies.advise import fix_candidates

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
SMALL = {"games": 3000, "screen": 500, "select": 1500, "confirm": 3000, "finalists": 2,
         "budget": 100_000}  # fmt: skip


def _write(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump({"extends": str(BASE), **data}, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def base_advice(tmp_path_factory):
    """The base game advised at two levels (random, greedy), small budgets."""
    tmp = tmp_path_factory.mktemp("advise")
    levels = [{"policy": "random"}, {"policy": "greedy"}]
    config = _write(tmp / "base.yaml", {"name": "base", "advise": {**SMALL, "levels": levels}})
    text = sim_cli("advise", config, "--out", tmp / "a", "--report", tmp / "a.html", "--quiet")
    return json.loads((tmp / "a" / "advice.json").read_text()), text, tmp


def test_the_base_games_first_player_edge_is_its_extra_turn(base_advice):
    data, text, _ = base_advice
    assert data["status"] == "not fair"
    seat0 = next(f for f in data["findings"] if f["metric"] == "seat_edge.seat0")
    assert "greedy" in seat0["problem_at"]
    greedy = seat0["cause"]["greedy"]["seat0"]
    assert greedy["extra_share"] > 0.9  # seat 0 takes an extra turn in nearly every game
    assert greedy["turn_lo"] > 0 and greedy["turn_part"] > greedy["equal_part"]
    assert "comes from that turn" in text


def test_the_fix_is_one_card_fewer_and_it_is_confirmed(base_advice):
    data, text, _ = base_advice
    seat0 = next(f for f in data["findings"] if f["metric"] == "seat_edge.seat0")
    fix = seat0["fix"]
    assert fix is not None and len(fix["changes"]) == 1, seat0
    ((path, value),) = fix["changes"].items()
    base = yaml.safe_load(BASE.read_text())
    key = path.split(".")[-1].strip("'\"")
    before = base["deck"]["boxes"].get(key) if ".boxes." in path else base["deck"]["princesses"]
    assert path.startswith(("deck.boxes.", "deck.princesses")) and value == before - 1, fix
    # confirmed on fresh games: seat 0 no longer ahead at greedy, whose edge was the turn's
    after = fix["levels"]["greedy"]["seat_edge.seat0"]
    assert after["estimate"] < seat0["levels"]["greedy"]["seat_edge.seat0"]["estimate"] - 0.02
    assert after["hi"] < 0.025  # no longer ahead of the band
    assert f"see it: sim compare {BASE.parent}" not in text  # the config given, not base.yaml
    assert "see it: sim compare" in text and "--b-set" in text


def test_the_advice_says_what_a_fix_does_to_every_seat_and_level(base_advice):
    data, text, _ = base_advice
    every = next(f for f in data["findings"] if f["metric"] == "every seat")
    assert every["targets"] == [f"seat_edge.seat{k}" for k in range(4)]
    assert "every seat inside the band at every level:" in text
    assert data["games"]["total"] <= data["games"]["budget"] == 100_000
    assert set(data["seeds"]) == {"diagnose", "screen", "select", "confirm"}


def test_the_advice_page_opens_with_the_answer(base_advice):
    data, _, tmp = base_advice
    html = (tmp / "a.html").read_text(encoding="utf-8")
    first = html.split('<p class="lead">', 1)[1].split("</p>", 1)[0]
    assert lead_of(html, "advise").startswith("Not fair between equal players")
    check_fits(measure(tmp / "a.html"))  # at 1280 px, in real Chromium, as every page kind
    # `sim report FOLDER` rebuilds it from the folder alone; --resume of a finished advice
    # plays nothing and gives the same answer
    again = sim_cli("report", tmp / "a", "--out", tmp / "again.html")
    assert "again.html" in again
    assert first in (tmp / "again.html").read_text(encoding="utf-8")
    resumed = sim_cli("advise", "--resume", tmp / "a", "--no-report", "--quiet")
    assert data["answer"][0] in resumed


def _null(seed: int) -> dict:
    wide = {"value": 0.0, "within": 0.15}
    return {
        "name": "null", "seed": seed,
        "targets": {f"seat_edge.seat{k}": wide for k in range(4)},
        "advise": {**SMALL, "games": 1000, "levels": [{"policy": "random"}, {"policy": "greedy"}]},
    }  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_inside_its_bands_gets_no_change(seed, tmp_path):
    """True null: every seat's band is wide enough for the base game at every level."""
    config = _write(tmp_path / "null.yaml", _null(seed))
    text = sim_cli("advise", config, "--out", tmp_path / "a", "--no-report", "--quiet")
    data = json.loads((tmp_path / "a" / "advice.json").read_text())
    assert data["status"] == "fair" and data["findings"] == []
    assert data["games"]["total"] == data["games"]["diagnose"] == 2000  # diagnosis only
    assert "No change needed" in text


@pytest.mark.slow
def test_no_change_in_at_least_19_of_20_seeds(tmp_path):
    """The issue's null: 20 seeds, each at three levels; a change is proposed in at most one.
    (About 3 minutes.)"""
    proposed = 0
    for seed in range(100, 120):
        data = _null(seed)
        data["advise"] = {**data["advise"], "levels": None}
        data["advise"].pop("levels")
        config = _write(tmp_path / f"null{seed}.yaml", data)
        sim_cli("advise", config, "--out", tmp_path / str(seed), "--no-report", "--quiet")
        advice = json.loads((tmp_path / str(seed) / "advice.json").read_text())
        proposed += any(f["fix"] is not None for f in advice["findings"])
    assert proposed <= 1


def test_the_candidates_are_every_card_kind_and_rule(tmp_path):
    from sim.config import load_study

    study = load_study(BASE)
    changes = fix_candidates(study)
    paths = {p for c in changes for p in c}
    assert {"deck.boxes.N", "deck.princesses", "deck.sprayers", "deck.toys.yarn"} <= paths
    assert {"rules.cat_entry", "rules.evicted_cat", "rules.match_sides"} <= paths
    assert {"deck.boxes.N": 6} in changes and {"deck.boxes.N": 10} in changes
    assert all(len(c) == 1 for c in changes)


def test_a_budget_too_small_is_one_line(tmp_path, capsys):
    config = _write(tmp_path / "b.yaml", {"name": "b"})
    line = one_error(capsys, "advise", config, "--budget", "1000", "--quiet")
    assert "too small a budget" in line and "need at least" in line
    assert not (tmp_path / "runs").exists()


def test_the_see_it_line_keeps_the_advised_studys_own_changes():
    """An advice of `base --set X` compares its fix against base with X, on both sides."""
    from sim.config import load_study
    from sim.studies.advise import compare_command

    plain = compare_command(load_study(BASE), {"deck.princesses": 1})
    assert plain == f"sim compare {BASE} --b-set 'deck.princesses=1'"
    study = load_study(BASE, ["deck.sprayers=6", "rules.cat_entry=any"])
    line = compare_command(study, {"deck.princesses": 1})
    assert line == (f"sim compare {BASE} --set deck.sprayers=6 --set rules.cat_entry=any"
                    " --b-set 'deck.princesses=1'")  # fmt: skip


# ------------------------------------------------------- players like yours (issue 28)

CALIBRATED_SEAT = {"policy": "heuristic", "weights": {"own_points": 1.0, "rival_points": -0.4},
                   "temperature": 0.8, "label": "calibrated"}  # fmt: skip


def _diag_row(level: str, seat0: str, turns: str | None = None) -> dict:
    edge = {"estimate": 0.0, "lo": -0.01, "hi": 0.01}
    targets = {"seat_edge.seat0": {**edge, "verdict": seat0},
               "seat_edge.seat1": {**edge, "verdict": "met"}}  # fmt: skip
    play = {"turns": {"estimate": 30.0, **({"verdict": turns} if turns else {})}}
    return {"level": level, "targets": targets, "play": play}


def test_the_banner_names_each_verdict_that_changes_with_the_players():
    """A constructed case: seat 0's edge real for greedy, inside the band for the calibrated
    (noisy) players; the turns target off for random only. And no banner when all agree."""
    from types import SimpleNamespace

    from sim.analysis.findings import people_line
    from sim.studies.advise import Level, _people

    levels = [Level("random", {}), Level("greedy", {}), Level("calibrated", {}, people=True)]
    state = SimpleNamespace(levels=levels)
    diag = [_diag_row("random", "met", "missed"), _diag_row("greedy", "missed", "met"),
            _diag_row("calibrated", "met", "met")]  # fmt: skip
    out = _people(state, diag)
    assert out["people"] == "calibrated" and out["bots"] == ["random", "greedy"]
    assert out["flips"] == (
        "Verdicts that change with the players: first-player advantage: real for greedy, not"
        " for players like yours (within the band); turns per game: off target for random, on"
        " target for players like yours."
    )
    assert "seat 1" not in out["flips"]  # the same verdict everywhere is no flip
    agree = _people(state, [_diag_row(lv.label, "met", "met") for lv in levels])
    assert agree["flips"] is None
    assert people_line(agree) == ("Players like yours (calibrated) and the bots (random, greedy)"
                                  " agree on every verdict.")  # fmt: skip
    none = _people(SimpleNamespace(levels=levels[:2]), diag[:2])
    assert none["people"] is None and people_line(none) is None


def test_a_calibrated_level_is_read_from_beside_the_config_and_kept_whole(tmp_path, capsys):
    from sim.config import load_study, parse_study

    (tmp_path / "fits").mkdir()
    (tmp_path / "fits" / "calibrated.yaml").write_text(yaml.safe_dump(CALIBRATED_SEAT))
    config = _write(tmp_path / "c.yaml", {"name": "c", "advise": {
        "levels": [{"policy": "greedy"}], "calibrated": "fits/calibrated.yaml"}})  # fmt: skip
    study = load_study(config)
    assert [r.get("label") for r in study.advise.level_list()] == [None, "calibrated"]
    assert study.advise.calibrated["temperature"] == 0.8
    # the resolved study holds the seat itself: a saved config.yaml never needs the file
    again = parse_study(study.to_yaml_dict(), "saved")
    assert again.advise.calibrated == study.advise.calibrated
    assert again.config_hash() == study.config_hash()  # advise is outside the games' hash
    # mistakes: one line each, before any game
    missing = _write(tmp_path / "m.yaml", {"name": "m", "advise": {"calibrated": "nope.yaml"}})
    line = one_error(capsys, "advise", missing, "--quiet")
    assert "advise.calibrated" in line and "nope.yaml" in line
    (tmp_path / "greedy.yaml").write_text(yaml.safe_dump({**CALIBRATED_SEAT, "label": "greedy"}))
    clash = _write(tmp_path / "k.yaml", {"name": "k", "advise": {"calibrated": "greedy.yaml"}})
    assert "is a bot level's too" in one_error(capsys, "advise", clash, "--quiet")
    line = one_error(capsys, "advise", "--resume", tmp_path, "--calibrated", "x.yaml")
    assert "--calibrated goes with a CONFIG" in line
    assert not (tmp_path / "runs").exists()


def test_sim_advise_calibrated_plays_players_like_yours_as_one_more_level(tmp_path):
    """`--calibrated FILE`: the fitted seat is diagnosed beside the bots, and the answer says
    whether any verdict changes between them (here: wide seat bands, so none of the seats'
    does; the items-wasted target is set between the two levels' means, greedy wasting
    fewer, so that one does)."""
    (tmp_path / "calibrated.yaml").write_text(yaml.safe_dump({**CALIBRATED_SEAT,
                                                              "temperature": 50.0}))  # fmt: skip
    data = _null(7)
    data["targets"] = {**data["targets"], "items_wasted": {"value": 1.05, "within": 0.2}}
    # the diagnosis is what this test reads: the search for a fix after it is kept small
    small = {"screen": 100, "select": 200, "confirm": 300, "finalists": 1}
    data["advise"] = {**data["advise"], "levels": [{"policy": "greedy"}], **small}
    config = _write(tmp_path / "c.yaml", data)
    text = sim_cli("advise", config, "--calibrated", tmp_path / "calibrated.yaml",
                   "--out", tmp_path / "a", "--report", tmp_path / "a.html", "--quiet")  # fmt: skip
    advice = json.loads((tmp_path / "a" / "advice.json").read_text())
    assert advice["levels"] == ["greedy", "calibrated"] and advice["people"] == "calibrated"
    assert advice["games"]["diagnose"] == 2000  # 1,000 games at each of the two levels
    assert advice["flips"] == (
        "Verdicts that change with the players: items wasted per game:"
        " off target for greedy, on target for players like yours."
    )
    assert advice["flips"] in text
    html = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert 'id="people"' in html and "off target for greedy" in html


def test_the_terminal_opens_with_the_pages_first_paragraph(base_advice):
    """`sim advise` prints the page's two short sentences first, then the details."""
    from sim.analysis.findings import advice_summary

    data, text, _ = base_advice
    lines = text.splitlines()
    assert lines[1].strip() == advice_summary(data) and len(lines[1].strip()) <= 260
    assert lines[2] == data["answer"][0]  # then the answer's lines, as advice.json keeps them
