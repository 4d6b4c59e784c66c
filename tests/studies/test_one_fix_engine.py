"""One fix engine: `sim tune` whose every target is a seat's edge between equal players asks
`sim advise`'s question, and answers it with advise's engine (`sim.studies.tune_fair`), so
the two cannot disagree; any other tune keeps its own search and says why in one sentence.
`advise.space` holds a fix to the settings a designer may move."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_helpers import one_error, sim_cli

from sim.config import load_study
from sim.studies.fix_candidates import fix_candidates
from sim.studies.tune_fair import why_not_advise

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
GREEDY = [{"policy": "greedy"}] * 4
SPACE = {"deck.princesses": [0, 4], "deck.boxes.NE": [4, 8], "deck.sprayers": [2, 6]}
SEATS = {f"seat_edge.seat{k}": {"value": 0, "within": 0.025} for k in range(4)}
SMALL = {"games": 3000, "screen": 500, "select": 1500, "confirm": 3000, "finalists": 2}
TUNE = {
    "name": "fair_tune",
    "seats": GREEDY,
    "advise": SMALL,
    "tune": {"space": SPACE, "targets": SEATS, "budget": {"games": 60000, "confirm": 2000}},
}


def _write(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump({"extends": str(BASE), **data}, sort_keys=False))
    return path


def test_advise_space_keeps_a_fix_to_the_settings_it_names(tmp_path, capsys):
    study = load_study(_write(tmp_path / "s.yaml", {"advise": {"space": SPACE}}))
    found = fix_candidates(study)
    assert found and all(len(c) == 1 for c in found)
    for change in found:
        ((path, value),) = change.items()
        lo, hi = SPACE[path]
        assert lo <= value <= hi
    assert {p for c in found for p in c} == set(SPACE)
    assert len(found) < len(fix_candidates(load_study(BASE)))
    bad = _write(tmp_path / "bad.yaml", {"advise": {"space": {"deck.nope": [0, 2]}}})
    assert "advise.space" in one_error(capsys, "advise", bad, "--no-report")


@pytest.mark.slow  # about 25 s: a whole tune and a whole advice
def test_tune_on_seat_targets_at_equal_players_gives_advises_answer(tmp_path):
    """The same config asked both ways: tune (seat targets, equal greedy players, a space) and
    advise (those targets, that level and space, the same budget) name the same fixes, with
    the same numbers, on the same games."""
    tuned = _write(tmp_path / "t.yaml", TUNE)
    assert why_not_advise(load_study(tuned)) is None
    text = sim_cli("tune", tuned, "--out", tmp_path / "t", "--report", tmp_path / "t.html")
    assert "answered with advise's engine" in text
    levels = [{"policy": "greedy"}]
    advised = _write(
        tmp_path / "a.yaml",
        {
            "name": "fair_tune",
            "targets": SEATS,
            "advise": {**SMALL, "levels": levels, "space": SPACE, "budget": 60000},
        },
    )
    sim_cli("advise", advised, "--out", tmp_path / "a", "--no-report", "--quiet")
    by_tune = json.loads((tmp_path / "t" / "advice.json").read_text())
    by_advise = json.loads((tmp_path / "a" / "advice.json").read_text())
    assert by_tune["asked_by"] == "tune" and by_advise["asked_by"] == "advise"
    assert by_tune["answer"] == by_advise["answer"]
    assert by_tune["answer"]["fixes"], text  # the base game's extra turn has a fix
    assert by_tune["cells"] == by_advise["cells"]
    lead = by_tune["answer"]["fixes"][0]
    ((path, value),) = lead["changes"].items()
    assert SPACE[path][0] <= value <= SPACE[path][1]
    # the tune's YAML is the designer's study with the lead change, no advise block added
    name = "recommended.yaml" if lead["confirmed"] else "closest.yaml"
    written = yaml.safe_load((tmp_path / "t" / name).read_text())
    assert "advise" not in written and written["seats"][0]["policy"] == "greedy"
    assert "tune, by advise" in (tmp_path / "t.html").read_text()
    # resumed, it plays nothing and says the same
    again = sim_cli("tune", "--resume", tmp_path / "t", "--no-report", "--quiet")
    assert again.splitlines()[1] == text.splitlines()[1]


def test_any_other_tune_keeps_its_search_and_says_why(tmp_path):
    mixed_seats = {k: v for k, v in TUNE.items() if k != "seats"}  # base.yaml's: greedy, random
    mixed = load_study(_write(tmp_path / "m.yaml", mixed_seats))
    assert "mixed players" in why_not_advise(mixed)
    more = dict(TUNE["tune"], targets={**SEATS, "mean_score": {"value": 1.5, "within": 0.2}})
    other = load_study(_write(tmp_path / "o.yaml", {**TUNE, "tune": more}))
    assert "mean_score beside the seats" in why_not_advise(other)
    score = dict(TUNE["tune"], targets={"mean_score": {"value": 1.5, "within": 0.2}})
    assert why_not_advise(load_study(_write(tmp_path / "s.yaml", {**TUNE, "tune": score}))) == ""


def test_a_budget_advises_engine_cannot_pay_is_one_line_in_tunes_words(tmp_path, capsys):
    tuned = _write(tmp_path / "t.yaml", TUNE)
    line = one_error(capsys, "tune", tuned, "--budget", "5000", "--out", tmp_path / "t")
    assert line.startswith("error: --budget:") and "sim advise's engine" in line
    assert not (tmp_path / "t").exists()
