"""`sim advise`: the base game's first-player edge traced to its extra turn and fixed by one
card fewer; nothing proposed where nothing is wrong (true nulls); the budget and the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_helpers import one_error, sim_cli
from page_helpers import check_fits, lead_of, measure

from sim.studies.fix_candidates import fix_candidates

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
    assert data["status"] == "not fair" and data["answer"]["status"] == "not fair"
    worst = data["worst"]
    assert (worst["level"], worst["seat"], worst["mark"]) == ("greedy", 0, "✗")
    greedy = next(r for r in data["why"]["greedy"]["split"] if r["seat"] == 0)
    assert greedy["extra_share"] > 0.9  # seat 0 takes an extra turn in nearly every game
    assert greedy["turn_lo"] > 0 and greedy["turn_part"] > greedy["equal_part"]
    assert "comes from that turn" in text and "mostly from its extra turn" in text
    # a level with an unclear seat was played on three times the games
    assert data["diagnosis_games"]["greedy"] == 3 * 3000


def test_the_fix_is_judged_by_the_whole_game_and_confirmed(base_advice):
    """The lead fix moves the turn order (the cause), leaves no seat-level further outside
    its band than the start on the same fresh games, and has a smaller worst edge."""
    from sim.config import load_study
    from sim.studies.fix_candidates import moves_turns

    data, text, _ = base_advice
    fixes = data["answer"]["fixes"]
    assert fixes, text
    lead = fixes[0]
    assert moves_turns(load_study(BASE), lead["changes"])
    assert set(lead) >= {"changes", "worst_edge_pp", "worst_edge_ci_pp", "inside", "cells",
                         "confirmed", "group"}  # fmt: skip
    assert lead["cells"] == 8 and 0 <= lead["inside"] <= 8
    start = max(abs(c["estimate"]) for c in data["start_confirmed"])
    assert abs(lead["worst_edge_pp"]) < 100 * start
    full = data["fixes"][0]
    assert full["offered"] and not full["moved"]
    assert f"see it: sim compare {BASE.parent}" not in text  # the config given, not base.yaml
    assert "see it: sim compare" in text and "--b-set" in text


def test_the_advice_says_what_a_fix_does_to_every_seat_and_level(base_advice):
    data, text, tmp = base_advice
    for f in data["fixes"]:
        cells = {(c["level"], c["seat"]) for c in f["cells_detail"]}
        assert cells == {(lv, k) for lv in ("random", "greedy") for k in range(4)}
    assert data["games"]["total"] <= data["games"]["budget"] == 100_000
    assert set(data["seeds"]) == {"diagnose", "screen", "select", "confirm"}
    kept = {  # each change's runs keep two tables; the diagnosis's, read for its causes, four
        phase: {
            tuple(json.loads(r.read_text())["tables"])
            for r in (tmp / "a" / phase).glob("*/run.json")
        }
        for phase in data["seeds"]
    }
    assert kept["diagnose"] == {("games", "players", "cards", "turns")}
    assert kept["screen"] == kept["select"] == kept["confirm"] == {("games", "players")}
    # every change tried is accounted for: a finalist, or why it dropped out
    assert all(r["dropped"] or r["games"] for r in data["screened"])


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
    assert data["lines"][0] in resumed


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
    assert data["status"] == "fair" and data["answer"] == {"status": "fair", "fixes": []}
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
        proposed += bool(advice["answer"]["fixes"])
    print(f"a change proposed in {proposed} of 20 seeds")
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
    # a config whose own advise.budget cannot pay: one line naming the key, from the study
    # and from `sim validate`; a --budget that can pay replaces it (no refusal at loading)
    small = _write(tmp_path / "s.yaml", {"name": "s", "advise": {"budget": 1000}})
    line = one_error(capsys, "advise", small, "--quiet", "--out", tmp_path / "a")
    assert "advise.budget: 1,000 games is too small a budget" in line and "--budget" in line
    assert "advise.budget" in one_error(capsys, "validate", small)
    from sim.config import load_study
    from sim.studies.advise import plan

    assert plan(load_study(small), budget=450_000).budget == 450_000


def test_the_see_it_line_keeps_the_advised_studys_own_changes():
    """An advice of `base --set X` compares its fix against base with X, on both sides."""
    from sim.config import load_study
    from sim.studies.advice import compare_command

    plain = compare_command(load_study(BASE), {"deck.princesses": 1})
    assert plain == f"sim compare {BASE} --b-set 'deck.princesses=1'"
    study = load_study(BASE, ["deck.sprayers=6", "rules.cat_entry=any"])
    line = compare_command(study, {"deck.princesses": 1})
    assert line == (f"sim compare {BASE} --set deck.sprayers=6 --set rules.cat_entry=any"
                    " --b-set 'deck.princesses=1'")  # fmt: skip


# ------------------------------------------------------- players like yours (issue 28)

CALIBRATED_SEAT = {"policy": "heuristic", "weights": {"own_points": 1.0, "rival_points": -0.4},
                   "temperature": 0.8, "label": "calibrated"}  # fmt: skip


def _diag_row(level: str, seat0: str, turns: str | None = None):
    from sim.studies.advise_state import LevelRow
    from sim.studies.checks import Checked

    edge = {"estimate": 0.0, "lo": -0.01, "hi": 0.01}
    targets = {"seat_edge.seat0": {**edge, "verdict": seat0},
               "seat_edge.seat1": {**edge, "verdict": "met"}}  # fmt: skip
    play = {"turns": {"estimate": 30.0, **({"verdict": turns} if turns else {})}}
    return LevelRow(level, Checked(targets, 0, 0.0, 100, 1), play, {}, ())


def test_the_banner_names_each_verdict_that_changes_with_the_players():
    """A constructed case: seat 0's edge real for greedy, inside the band for the calibrated
    (noisy) players; the turns target off for random only. And no banner when all agree."""
    from types import SimpleNamespace

    from sim.analysis.advice_words import people_line
    from sim.studies.advice import _people
    from sim.studies.advise_state import Level

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


def test_how_it_plays_says_how_tense_each_level_is(base_advice):
    """The diagnosis measures the feel (issue 53): each level's suspense and the moment the
    chances decide the game, with intervals that hold the model's own noise (wider than the
    games' alone), in advice.json and on the page's "How it plays"."""
    from sim.runs.storage import load_run
    from sim.studies.checks import verdicts

    data, _, tmp = base_advice
    for i, level in enumerate(data["levels"]):
        play = data["play"][level]
        for name in ("suspense", "decisive_moment"):
            e = play[name]
            assert e["lo"] < e["estimate"] < e["hi"], (level, name, e)
        run = load_run(tmp / "a" / "diagnose" / f"c0000-l{i}")
        bare = verdicts(run, {"suspense": (-1e300, 1e300)})["suspense"]
        assert bare["estimate"] == play["suspense"]["estimate"]
        assert bare["hi"] - bare["lo"] < play["suspense"]["hi"] - play["suspense"]["lo"]
    page = (tmp / "a.html").read_text(encoding="utf-8")
    assert "suspense" in page and "decided by the chances at" in page
    assert "never falls below 50%" in page  # what the words mean, said where they are


def test_the_terminal_opens_with_the_pages_first_paragraph(base_advice):
    """`sim advise` prints the page's two short sentences first, then the details."""
    from sim.analysis.advice_words import advice_summary

    data, text, _ = base_advice
    lines = text.splitlines()
    assert lines[1].strip() == advice_summary(data) and len(lines[1].strip()) <= 260
    assert lines[2] == data["lines"][0]  # then the answer's lines, as advice.json keeps them


def test_who_takes_an_extra_turn_follows_the_rules_as_the_engine_plays_them():
    """R2.3, R2.4, R3.1, R7.1: the hand cards left after the start card and the deal, modulo
    the players, are the first seats' extra turns; checked against played games at 2-5
    players and five deck sizes (`sim.studies.deck_parity.deck_scan`)."""
    from sim.config import load_study
    from sim.studies.deck_parity import deck_scan
    from sim.studies.fix_candidates import turns_of

    study = load_study(BASE)
    scan = deck_scan(study, players=[2, 3, 4, 5], deltas=range(-2, 3), games=40)
    for r in scan.itertuples():
        boxes = dict(study.game.deck.boxes)
        boxes["N"] += r.boxes - sum(study.game.deck.boxes.values())
        seats = [study.seats[i % len(study.seats)].to_dict() for i in range(r.players)]
        other = study.with_overrides(players=r.players, seats=seats)
        predicted = turns_of(other, {"deck.boxes": boxes}).extra
        low = min(r.seat_turns)
        measured = tuple(k for k, t in enumerate(r.seat_turns) if t > low + 0.5)
        assert predicted == measured, r


def test_a_change_is_grouped_by_what_it_acts_on():
    """One card fewer of any hand card is the same cause (every seat the same turns); toys
    and spray bottles never move the turns."""
    from sim.config import load_study
    from sim.studies.fix_candidates import group_of, moves_turns

    study = load_study(BASE)
    fewer = {group_of(study, c) for c in ({"deck.princesses": 1}, {"deck.boxes.NE": 5},
                                          {"deck.boxes.''": 5})}  # fmt: skip
    assert fewer == {"1 card fewer (box or Princess): every seat takes the same turns"}
    assert group_of(study, {"deck.boxes.EW": 5}).endswith("seats 0 and 1 take an extra turn")
    assert not moves_turns(study, {"deck.toys.yarn": 6})
    assert not moves_turns(study, {"deck.sprayers": 2})
    assert moves_turns(study, {"deck.princesses": 1})


def test_values_ablation_names_the_same_cause_as_the_advice():
    """`sim value`'s one-copy-fewer rows grouped as advise groups its fixes: every box kind
    and the Princess are one cause (the turns), toys and spray bottles others."""
    import pandas as pd

    from sim.config import load_study
    from sim.studies.value import cause_lines

    study = load_study(BASE)
    cards = ["box:N", "box:NE", "princess", "sprayer", "toy:yarn", "toy:fish"]
    change = [-4.0, -3.0, -3.5, 0.1, 0.5, -0.2]
    ablation = pd.DataFrame({"card": cards, "measure": "first_player", "change": change,
                             "real": [True, True, True, False, False, False]})  # fmt: skip
    lines = cause_lines(study, ablation)
    assert lines[1] == ("  1 card fewer (box or Princess): every seat takes the same turns:"
                        " 3 card kind(s), seat 0's win share -4.0 to -3.0 pp (3 real)")  # fmt: skip
    assert any(line.startswith("  toy counts") and "2 card kind(s)" in line for line in lines)
    assert any(line.startswith("  spray bottles") for line in lines)


def test_an_advice_stopped_in_its_race_resumes_to_the_same_answer(tmp_path, capsys, monkeypatch):
    """Ctrl-C in the screen's second rung, then --resume: the race is run again from its first
    rung on the runs on disk and ends where an uninterrupted advice ends."""
    from cli_helpers import cli

    import sim.studies.advise as A

    small = {"games": 2000, "screen": 300, "select": 600, "confirm": 600, "finalists": 2,
             "budget": 100_000}  # fmt: skip
    data = {"name": "race", "targets": {"seat_edge.seat0": {"value": 0.0, "within": 0.004}},
            "advise": {"levels": [{"policy": "random"}], **small}}  # fmt: skip
    config = _write(tmp_path / "race.yaml", data)
    whole = tmp_path / "whole"
    sim_cli("advise", config, "--out", whole, "--no-report", "--quiet")
    real, calls = A._play_candidates, []

    def stop_in_the_second_rung(*args, **kwargs):  # its save holds the first rung's drops
        real(*args, **kwargs)
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt()

    monkeypatch.setattr(A, "_play_candidates", stop_in_the_second_rung)
    code, _, _ = cli(capsys, "advise", config, "--out", tmp_path / "cut", "--no-report", "--quiet")
    assert code == 130 and json.loads((tmp_path / "cut" / "study.json").read_text())["phase"] == (
        "screen"
    )
    monkeypatch.setattr(A, "_play_candidates", real)
    sim_cli("advise", "--resume", tmp_path / "cut", "--no-report", "--quiet")
    a, b = (json.loads((d / "advice.json").read_text()) for d in (whole, tmp_path / "cut"))
    assert a["answer"] == b["answer"] and a["screened"] == b["screened"]
    assert a["games"] == b["games"]


def test_a_smaller_change_leads_only_when_the_confirmation_finds_it_as_good():
    """Among the set, the fewest cards moved leads when its worst edge on the confirmation lies
    inside the first's interval; a smaller change that the confirmation puts outside it (one E
    box card fewer at 3.5 pp beside one Princess fewer at 1.8 pp [0.6, 3.0]) does not."""
    from sim.studies.advice import lead_order

    def fix(name, worst, hi, size, rank):
        return {"name": name, "worst_edge_pp": worst, "worst_abs_pp": [0.0, hi], "size": size,
                "rank": rank, "offered": True, "confirmed": False}  # fmt: skip

    none, one = fix("Princess 2 -> 0", -2.47, 3.57, 2, 0), fix("Princess 2 -> 1", 2.28, 3.2, 1, 1)
    assert [f["name"] for f in lead_order([none, one])] == ["Princess 2 -> 1", "Princess 2 -> 0"]
    e_fewer = fix("E 6 -> 5", 3.47, 4.7, 1, 1)
    best = fix("Princess 2 -> 0", 1.8, 3.0, 2, 0)
    assert [f["name"] for f in lead_order([e_fewer, best])] == ["Princess 2 -> 0", "E 6 -> 5"]
    confirmed = {**fix("N 8 -> 9", 2.9, 3.4, 1, 1), "confirmed": True}
    assert lead_order([best, confirmed])[0]["name"] == "N 8 -> 9"  # every seat-level inside first


def test_the_selection_adds_a_finalists_neighbour_only_if_the_race_played_it():
    """Beside a finalist, the same count one copy further or nearer joins the selection when
    the race dropped it; never one the rules dropped or the budget never played."""
    from types import SimpleNamespace

    from sim.studies.advise import KEEPS_TURNS, _neighbours_of
    from sim.studies.advise_state import Candidate, Change

    def cand(value, dropped, games):
        change = Change(value, {"deck.princesses": value}, "", 1, "", "")
        return Candidate(change, games=games, dropped=dropped)

    best = cand(0, None, {"0": 4500})
    raced, unplayed = cand(1, "not among the best", {"0": 1500}), cand(1, "over the budget", {})
    far, by_rule = cand(3, "not among the best", {"0": 1500}), cand(1, KEEPS_TURNS, {})
    state = SimpleNamespace(candidates=[best, raced, far])
    assert _neighbours_of(state, [best]) == [raced]
    for other in (unplayed, by_rule):
        assert _neighbours_of(SimpleNamespace(candidates=[best, other, far]), [best]) == []
