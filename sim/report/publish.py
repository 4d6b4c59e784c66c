"""A run's page in its own folder (`report.html`) and at its shared path, never replacing
another run's newer page silently."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

from sim.config import parse_study
from sim.report.run_report import report_run, run_finished, write_report
from sim.runs.paths import RUN_FILE, check_report_path, page_path
from sim.runs.storage import RunResult, write_text
from sim.studies.run_page import PagePlays

RUN_REPORT_FILE = "report.html"  # every run keeps its own report in its folder


def publish_run_report(
    run: RunResult,
    plays: PagePlays | Future,
    out_path: str | Path | None = None,
    force: bool = False,
    fresh: bool = True,
    quiet: bool = False,
    feel: bool = True,
) -> list[str]:
    """Write a run's report into its folder (`report.html`) and copy it to the shared path
    (`out_path`, else the study's report.path or reports/<name>.html); the lines to print.

    Nothing is replaced silently: a shared page of another run that gets replaced is named.
    An old run's report (`fresh=False`, `sim report`) does not replace the default shared
    page when that holds a newer run's report; the line says where this one is instead.
    """
    study = parse_study(run.meta["config"], str(Path(run.run_dir) / RUN_FILE), plugins=False)
    shared = page_path("run", study, out_path)
    check_report_path(shared, force)  # before the work: a path we may not write
    own = write_report(
        run, plays, Path(run.run_dir) / RUN_REPORT_FILE, force, quiet=quiet, feel=feel
    )
    lines = [f"report: {own}"]
    ours = (run_finished(run.meta, run.run_dir), str(Path(run.run_dir).resolve()))
    theirs = report_run(shared) if shared.exists() else None
    if theirs is not None and theirs[1] != ours[1]:
        if not fresh and out_path is None and theirs[0] > ours[0]:
            return [
                *lines,
                f"kept {shared}: it holds the report of a newer run, {theirs[1]}"
                f" (finished {theirs[0]}); --out {shared} replaces it",
            ]
        lines.append(f"report: {shared} (replaced the report of {theirs[1]}, finished {theirs[0]})")
    else:
        lines.append(f"report: {shared}")
    write_text(shared, own.read_text(encoding="utf-8"))
    return lines
