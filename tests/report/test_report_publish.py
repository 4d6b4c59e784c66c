"""No silent overwrite: each run keeps its report in its folder, the shared page is replaced
only with a line that says so, and `sim report` of an old run leaves a newer run's page."""

from __future__ import annotations

import json
from pathlib import Path

from sim.cli import main
from sim.report.run_report import report_run

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
QUICK = ["--games", "40", "--jobs", "1", "--quiet", "--no-feel"]  # the pages, not their feel


def test_reports_are_kept_per_run_and_never_replaced_silently(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shared = Path("reports/base.html")
    assert main(["run", str(BASE), *QUICK, "--out", "old"]) == 0
    out = capsys.readouterr().out
    assert "report: old/report.html" in out and f"report: {shared}\n" in out
    assert report_run(shared)[1] == str((tmp_path / "old").resolve())

    assert main(["run", str(BASE), *QUICK, "--out", "new"]) == 0
    out = capsys.readouterr().out
    assert f"report: {shared} (replaced the report of {(tmp_path / 'old').resolve()}" in out
    assert report_run(shared)[1] == str((tmp_path / "new").resolve())
    assert report_run("old/report.html")[1] == str((tmp_path / "old").resolve())

    Path("old/report.html").unlink()
    assert main(["report", "old"]) == 0  # an old run: its own page, the newer shared one kept
    out = capsys.readouterr().out
    assert "report: old/report.html" in out and f"kept {shared}" in out and "newer run" in out
    assert report_run(shared)[1] == str((tmp_path / "new").resolve())
    assert Path("old/report.html").is_file()

    assert main(["report", "old", "--out", str(shared)]) == 0  # asked for: replaced, and said
    assert "replaced the report of" in capsys.readouterr().out
    assert report_run(shared)[1] == str((tmp_path / "old").resolve())

    assert main(["run", str(BASE), *QUICK, "--out", "bare", "--no-report"]) == 0
    assert not Path("bare/report.html").exists()


def test_report_writes_summary_json_again_only_when_it_changes(tmp_path, monkeypatch, capsys):
    """`sim report` of a run leaves the summary.json the run wrote from the same rows; writes
    it again when it is gone, and when a kingmaking sample is played now (its rate joins)."""
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(BASE), *QUICK, "--games", "12", "--out", "r", "--no-report"]) == 0
    summary = Path("r/summary.json")
    written, stamp = summary.read_text(), summary.stat().st_mtime_ns
    assert main(["report", "r", "--quiet", "--no-feel"]) == 0
    assert summary.stat().st_mtime_ns == stamp
    summary.unlink()
    assert main(["report", "r", "--quiet", "--no-feel", "--force"]) == 0
    assert summary.read_text() == written
    assert main(["report", "r", "--quiet", "--kingmaking", "--force"]) == 0
    assert "kingmaking" in json.loads(summary.read_text())
    capsys.readouterr()
