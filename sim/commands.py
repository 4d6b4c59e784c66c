"""What `sim sweep`, `sim compare` and `sim turns` do end to end: play, analyse, report.

The floor above the studies, the analysis and the reports: the command line
parses arguments and calls these.
"""

from __future__ import annotations

from pathlib import Path

from sim.analysis.paired import compare_runs, summarize_compare, sweep_result_stats
from sim.config import load_study
from sim.errors import SimError
from sim.parity import SCAN_GAMES, deck_scan, scan_text
from sim.report.figures import to_svg, turns_by_deck
from sim.report.study_report import build_compare_report, build_sweep_report, sweep_findings
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
) -> tuple[SweepResult, Path, str]:
    """`sim sweep CONFIG`: run the sweep, write its report; (result, report path, summary)."""
    study = load_study(config) if config is not None else None
    overrides = {k: v for k, v in (("games", games), ("seed", seed)) if v is not None}
    if study is not None and overrides:
        study = study.with_overrides(**overrides)
    result = run_sweep(
        study,
        jobs=jobs,
        out=out,
        resume=resume,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
    )
    stats = sweep_result_stats(result)
    path = build_sweep_report(result, report, stats=stats)
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
    )
    table = compare_runs(result.a, result.b, labels=result.labels)
    path = build_compare_report(result, report, table_=table)
    notes = result.meta.get("notes", [])
    text = "\n".join([*notes, summarize_compare(table), f"report: {path}"])
    return result, path, text


def turns_file(
    config: str | Path,
    *,
    games: int = SCAN_GAMES,
    players: list[int] | None = None,
    figure: str | Path | None = None,
) -> str:
    """`sim turns CONFIG`: turns per seat against deck size for 2–5 players (or `players`),
    as a table; with `figure`, the same drawn as an SVG file."""
    bad = [n for n in players or () if not 2 <= n <= 5]
    if bad or games < 1:
        raise SimError(f"sim turns: players must be 2-5 and games at least 1 (got {bad or games})")
    study = load_study(config)
    scan = deck_scan(study, players=players, games=games)
    text = scan_text(study, scan)
    if figure is not None:
        path = Path(figure)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(to_svg(turns_by_deck(scan), "turns-deck"), encoding="utf-8")
        text += f"\nfigure: {path}"
    return text
