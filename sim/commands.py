"""What `sim sweep` and `sim compare` do end to end: play, analyse, write the report, summarise.

The floor above the studies, the analysis and the reports: the command line
parses arguments and calls these.
"""

from __future__ import annotations

from pathlib import Path

from sim.analysis.paired import compare_runs, summarize_compare, sweep_result_stats
from sim.config import load_study
from sim.report.study_report import (
    build_compare_report,
    build_sweep_report,
    compare_report_path,
    sweep_findings,
    sweep_report_path,
)
from sim.storage import check_report_path
from sim.studies import CompareResult, SweepResult, run_compare, run_sweep


def sweep_file(
    config: str | Path | None,
    *,
    games: int | None = None,
    seed: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    resume: str | Path | None = None,
    report: str | Path | None = None,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    force: bool = False,
) -> tuple[SweepResult, Path, str]:
    """`sim sweep CONFIG`: run the sweep, write its report; (result, report path, summary).

    The report path is checked before any game (`force` lets it replace a file that is
    not a report); with `resume`, `seed` must be the sweep's and `games` extends it."""
    study = load_study(config) if config is not None else None
    result = run_sweep(
        study,
        jobs=jobs,
        out=out,
        resume=resume,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
        games=games,
        seed=seed,
        before_play=lambda s: check_report_path(sweep_report_path(s, report), force),
    )
    stats = sweep_result_stats(result)
    path = build_sweep_report(result, report, stats=stats, force=force)
    lines = [f"{result.study.name}: {len(result.points)} points x {result.study.games:,} games"
             f" on shared seeds -> {result.out_dir}"]  # fmt: skip
    if stats.verdict is not None:
        lines.append(stats.verdict.text)
    lines += sweep_findings(stats)
    lines.append(f"report: {path}")
    return result, path, "\n".join(lines)


def compare_files(
    a_path: str | Path,
    b_path: str | Path,
    *,
    labels: tuple[str, str] | None = None,
    games: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    report: str | Path | None = None,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    force: bool = False,
) -> tuple[CompareResult, Path, str]:
    """`sim compare A.yaml B.yaml`: play both on shared seeds, write the report; (result, path,
    summary). Labels default to the file names (suffixed (A)/(B) when they are the same)."""
    a, b = load_study(a_path), load_study(b_path)
    if labels is None:
        sa, sb = Path(a_path).stem, Path(b_path).stem
        labels = (sa, sb) if sa != sb else (f"{sa} (A)", f"{sb} (B)")
    result = run_compare(
        a,
        b,
        labels=labels,
        games=games,
        jobs=jobs,
        out=out,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
        before_play=lambda _: check_report_path(compare_report_path(labels, report), force),
    )
    table = compare_runs(result.a, result.b, labels=result.labels)
    path = build_compare_report(result, report, table_=table, force=force)
    notes = result.meta.get("notes", [])
    text = "\n".join([*notes, summarize_compare(table), f"report: {path}"])
    return result, path, text
