"""`sim calibrate` on the command line: the files and the page it writes, what it prints,
and every mistake as one error line before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli, one_error
from page_helpers import check_fits, lead_of, measure

from sim.config import load_study
from sim.runs.paths import REPORT_MARK
from sim.table.logfile import write_log
from sim.table.record import play_recorded

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
SETS = ["players=2", "seats=[{policy: heuristic, preset: builder, temperature: 0.5},"
        " {policy: heuristic, preset: spoiler, temperature: 0.5}]"]  # fmt: skip


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """Eight logged two-player games, a builder against a spoiler."""
    folder = tmp_path_factory.mktemp("logs")
    study = load_study(BASE, SETS)
    for i in range(8):
        write_log(folder / f"game{i}.jsonl", play_recorded(study, 21, i).records())
    return folder


def test_calibrate_writes_the_seat_the_evidence_and_the_page(logs, tmp_path, capsys):
    out, page = tmp_path / "fit", tmp_path / "fit.html"
    code, stdout, _ = cli(capsys, "calibrate", logs, "--by", "player", "--out", out,
                          "--report", page)  # fmt: skip
    assert code == 0
    assert "from 8 logs" in stdout and "seat: {policy: heuristic" in stdout
    assert "player heuristic:builder" in stdout and "player heuristic:spoiler" in stdout
    assert "likelihood ratio" in stdout and "held out (2 games" in stdout
    data = json.loads((out / "calibration.json").read_text())
    assert {p["group"] for p in data["players"]} == {"heuristic:builder", "heuristic:spoiler"}
    assert data["players_differ"]["df"] > 0
    for name in ("calibrated.yaml", "calibrated-heuristic_builder.yaml"):
        assert (out / name).read_text().startswith("# calibrated")
    html = page.read_text()
    assert REPORT_MARK in html and "Held-out games" in html and "Players" in html
    assert lead_of(html, "calibrate").startswith("Temperature")  # its answer first, as every page
    check_fits(measure(page))  # at 1280 px, in real Chromium
    # the seat it wrote plays in a line-up
    study = load_study(BASE, SETS[:1] + [f"seats=[{{calibrated: {out / 'calibrated.yaml'}}},"
                                         " {policy: greedy}]"])  # fmt: skip
    assert study.seats[0].label == "calibrated"


def test_the_seats_flag_and_no_report(logs, tmp_path, capsys):
    two = (logs / "game0.jsonl", logs / "game1.jsonl")
    code, stdout, _ = cli(capsys, "calibrate", *two, "--seats", "1", "--out", tmp_path / "o",
                          "--no-report", "--quiet")  # fmt: skip
    assert code == 0 and "fitted seats 1" in stdout and "report:" not in stdout
    data = json.loads((tmp_path / "o" / "calibration.json").read_text())
    assert data["players_found"] == ["heuristic:spoiler", "heuristic:builder"]  # seats rotate
    assert any("no held-out check" in w for w in data["warnings"])


def test_mistakes_are_one_line_and_write_nothing(logs, tmp_path, capsys, monkeypatch):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("mine")
    (tmp_path / "notes.txt").write_text("not a report")
    (tmp_path / "bad.jsonl").write_text("not json\n")
    other = tmp_path / "other.yaml"
    other.write_text(
        f"extends: {BASE}\nplayers: 2\nseats: [{{policy: random}}, {{policy: random}}]\n"
    )
    cases = [
        (["--holdout", "1"], "--holdout must be a share"),
        (["--seats", "-1"], "--seats >= 0"),
        (["--out", tmp_path / "full"], "is not an empty folder"),
        (["--report", tmp_path / "notes.txt"], "is not a report made by sim"),
        (["--config", other], "not of the given config"),
        (["--seats", "3"], "no seat 3 in a game of 2"),
    ]
    # a folder that cannot be made is said before the fit (which would fail this test)
    monkeypatch.setattr("sim.studies.calibrate.calibrate", lambda *a, **k: pytest.fail("fit"))
    line = one_error(capsys, "calibrate", logs, "--out", tmp_path / "notes.txt" / "fit")
    assert "notes.txt" in line, line
    for extra, says in cases:
        line = one_error(capsys, "calibrate", logs, "--out", tmp_path / "new", *extra)
        assert says in line, line
    assert "no such log file" in one_error(capsys, "calibrate", tmp_path / "nope.jsonl")
    assert "not a JSON record" in one_error(capsys, "calibrate", tmp_path / "bad.jsonl")
    assert not (tmp_path / "new").exists()
