"""What `sim run`, `sweep`, `compare`, `tune`, `turns`, `value`, `ladder` and `luck` do around
the games:
analyse, write the machine-readable verdicts and the report, summarise.

The floor above the studies, the analysis and the reports: the command line
parses arguments and calls these. Every run folder gets `summary.json`, every
comparison folder `differences.csv`, every sweep folder `points.csv`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from sim import units
from sim.analysis.balance import run_summary
from sim.analysis.inference import family_note
from sim.analysis.paired import SweepStats, compare_runs, summarize_compare, sweep_result_stats
from sim.config import load_study, parse_study
from sim.errors import SimError
from sim.ladder import LadderResult, run_ladder
from sim.luck import LuckResult, run_luck
from sim.metrics import metric as registry_metric
from sim.parity import SCAN_GAMES, deck_scan, scan_text
from sim.partials import stream_runs
from sim.report import causal_report
from sim.report.figures import to_svg, turns_by_deck
from sim.report.run_report import default_path, report_data, report_run, run_finished, write_report
from sim.report.study_report import (
    build_compare_report,
    build_sweep_report,
    compare_report_path,
    sweep_findings,
    sweep_report_path,
)
from sim.report.tune_report import build_tune_report
from sim.storage import RunResult, check_report_path, study_yaml, write_json, write_text
from sim.studies import CompareResult, SweepResult, run_compare, run_sweep
from sim.table.pages import representative_replay
from sim.tune import Verdict, confirm, run_tune
from sim.value import ValueResult, run_value

SUMMARY_FILE = "summary.json"
DIFFERENCES_FILE = "differences.csv"
POINTS_FILE = "points.csv"
TUNE_FILE = "tune.json"
RECOMMENDED_FILE = "recommended.yaml"
CLOSEST_FILE = "closest.yaml"


def write_run_summary(run: RunResult) -> dict:
    """Write a run folder's `summary.json` (`sim.analysis.balance.run_summary`); return it."""
    study = parse_study(run.meta["config"], str(Path(run.run_dir) / "run.json"))
    moments, view = report_data(run)  # every game's moments; the rows of at most a sample
    summary = {
        "name": study.name,
        **run_summary(view.games, view.players, study.targets, moments=moments),
    }
    write_json(Path(run.run_dir) / SUMMARY_FILE, summary)
    return summary


RUN_REPORT_FILE = "report.html"  # every run keeps its own report in its folder


def publish_run_report(
    run: RunResult,
    out_path: str | Path | None = None,
    force: bool = False,
    fresh: bool = True,
    quiet: bool = False,
) -> list[str]:
    """Write a run's report into its folder (`report.html`) and copy it to the shared path
    (`out_path`, else the study's report.path or reports/<name>.html); the lines to print.

    Nothing is replaced silently: a shared page of another run that gets replaced is named.
    An old run's report (`fresh=False`, `sim report`) does not replace the default shared
    page when that holds a newer run's report; the line says where this one is instead.
    """
    study = parse_study(run.meta["config"], str(Path(run.run_dir) / "run.json"), plugins=False)
    shared = Path(out_path) if out_path is not None else default_path(study)
    check_report_path(shared, force)  # before the work: a path we may not write
    own = write_report(run, Path(run.run_dir) / RUN_REPORT_FILE, force, quiet=quiet)
    lines = [f"report: {own}", representative_replay(run)]
    ours = (run_finished(run.meta, run.run_dir), str(Path(run.run_dir).resolve()))
    theirs = report_run(shared) if shared.exists() else None
    if theirs is not None and theirs[1] != ours[1]:
        if not fresh and out_path is None and theirs[0] > ours[0]:
            return [*lines, f"kept {shared}: it holds the report of a newer run, {theirs[1]}"
                            f" (finished {theirs[0]}); --out {shared} replaces it"]  # fmt: skip
        lines.append(f"report: {shared} (replaced the report of {theirs[1]}, finished {theirs[0]})")
    else:
        lines.append(f"report: {shared}")
    write_text(shared, own.read_text(encoding="utf-8"))
    return lines


def write_differences(table: pd.DataFrame, out_dir: Path) -> Path:
    """A comparison's verdicts as `differences.csv`: one row per metric, in the reports'
    units (sim.units): `unit` is that of a and b ("%" for shares), `diff_unit` that of diff,
    lo and hi ("pp", percentage points, for shares)."""
    cols = ["metric", "label", "unit", "a", "b", "diff_unit", "diff", "lo", "hi", "p",
            "family", "p_adj", "real"]  # fmt: skip
    out = table.copy()
    share = out["unit"] == "share"
    for col in ("a", "b", "diff", "lo", "hi"):
        out[col] = out[col].where(~share, out[col] * 100)
    out["diff_unit"] = out["unit"].where(~share, units.PP)
    out["unit"] = out["unit"].where(~share, "%")
    path = Path(out_dir) / DIFFERENCES_FILE
    write_text(path, out[cols].to_csv(index=False))
    return path


def write_points(result: SweepResult, stats: SweepStats) -> Path:
    """A sweep's points as `points.csv`: the swept values, each metric's value and interval
    (columns <metric>, <metric>:lo, <metric>:hi; a share's are in percent and named
    <metric>_pct) and whether the point is in the best set."""
    t = stats.table
    wide = t.pivot(index="point", columns="metric", values=["value", "lo", "hi"])
    frame = result.point_frame().set_index("point")
    columns = {}
    for name in dict.fromkeys(t["metric"]):
        share = registry_metric(name).unit == "share"
        head, k = (f"{name}_pct", 100.0) if share else (name, 1.0)
        columns[head] = wide[("value", name)] * k
        columns[f"{head}:lo"] = wide[("lo", name)] * k
        columns[f"{head}:hi"] = wide[("hi", name)] * k
    frame = pd.concat([frame, pd.DataFrame(columns, index=frame.index)], axis=1)
    if stats.verdict is not None:
        frame["in_best_set"] = frame.index.isin(stats.verdict.best_set)
    path = Path(result.out_dir) / POINTS_FILE
    write_text(path, frame.reset_index().to_csv(index=False))
    return path


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
    sets: Sequence[str] = (),
    no_report: bool = False,
) -> tuple[SweepResult, Path | None, str]:
    """`sim sweep CONFIG`: run the sweep, write its report; (result, report path, summary).

    The report path is checked before any game (`force` lets it replace a file that is
    not a report); with `resume`, `seed` must be the sweep's and `games` extends it.
    `sets` are `--set KEY=VALUE` changes of the config; `no_report` writes no page."""
    study = load_study(config, sets) if config is not None else None
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
        before_play=lambda s: (
            None if no_report else check_report_path(sweep_report_path(s, report), force)
        ),
    )
    stats = sweep_result_stats(result, streamed=stream_runs(result.runs))  # chunk by chunk
    write_points(result, stats)
    path = None if no_report else build_sweep_report(result, report, stats=stats, force=force)
    lines = [f"{result.study.name}: {len(result.points)} points x {result.study.games:,} games"
             f" on shared seeds -> {result.out_dir}"]  # fmt: skip
    if stats.verdict is not None:
        lines.append(stats.verdict.text)
    lines += sweep_findings(stats)
    if path is not None:
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
    independent: bool = False,
    force: bool = False,
    sets: Sequence[str] = (),
    seed: int | None = None,
    no_report: bool = False,
) -> tuple[CompareResult, Path | None, str]:
    """`sim compare A.yaml B.yaml`: play both on shared seeds, write the report; (result, path,
    summary). Labels default to the file names (suffixed (A)/(B) when they are the same).
    `independent` plays B on other seeds than A (a calibration run: unpaired intervals).
    `sets` change both configs; `seed` replaces A's (B plays on A's seed)."""
    a, b = load_study(a_path, sets), load_study(b_path, sets)
    if seed is not None:
        a = a.with_overrides(seed=seed)
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
        independent=independent,
        before_play=lambda _: (
            None if no_report else check_report_path(compare_report_path(labels, report), force)
        ),
    )
    table = compare_runs(
        result.a,
        result.b,
        labels=result.labels,
        paired=not independent,
        primary=result.studies[0].primary,
        streamed=stream_runs([result.a, result.b], unpaired=True),  # chunk by chunk
    )
    write_differences(table, result.out_dir)
    path = None if no_report else build_compare_report(result, report, table_=table, force=force)
    notes = result.meta.get("notes", [])
    text = "\n".join(
        [*notes, summarize_compare(table)] + ([] if path is None else [f"report: {path}"])
    )
    return result, path, text


def tune_file(
    config: str | Path | None,
    *,
    budget: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    resume: str | Path | None = None,
    report: str | Path | None = None,
    no_report: bool = False,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    sets: Sequence[str] = (),
    seed: int | None = None,
    force: bool = False,
) -> tuple[Path, Verdict, str]:
    """`sim tune CONFIG`: search, confirm on fresh seeds, write `tune.json` and the recommended
    (or, when no candidate meets every target, the closest) study as YAML; (folder, verdict,
    summary). `sets` are `--set` changes of the config, `seed` replaces its seed."""
    study = load_study(config, sets) if config is not None else None
    if seed is not None and study is None:
        raise SimError("--seed: a resumed search keeps its seed; leave --seed out")
    if seed is not None:
        study = study.with_overrides(seed=seed)
    if study is not None and not no_report:  # before any game: a path we may not write
        check_report_path(report or f"reports/{study.name}-tune.html", force)
    workers = {"jobs": jobs, "backend": backend, "scheduler": scheduler}
    state = run_tune(study, budget=budget, out=out, resume=resume, quiet=quiet, **workers)
    verdict = confirm(state, workers)
    out_dir = state.out_dir
    write_json(out_dir / TUNE_FILE, verdict.data)
    chosen = verdict.recommended_study or verdict.closest_study
    name = RECOMMENDED_FILE if verdict.recommended_study is not None else CLOSEST_FILE
    why = "recommended by" if verdict.recommended_study is not None else "closest found by"
    header = f"# {why} sim tune ({out_dir}); see tune.json for the evidence\n"
    write_text(out_dir / name, header + study_yaml(chosen))
    search = verdict.data["search"]
    lines = [
        f"{state.study.name}: {search['candidates']} candidates, {search['games']:,} search games"
        f" in {search['wall_time_s']:.0f} s; confirmed on {verdict.data['confirm']['games']:,}"
        f" fresh games each -> {out_dir}",
        *verdict.lines,
    ]
    if verdict.data["pareto"]:
        lines.append("Pareto set (no other confirmed config is closer on every target): "
                     + ", ".join(verdict.data["pareto"]))  # fmt: skip
    lines.append(f"{name.split('.')[0]} study: {out_dir / name}")
    if not no_report:
        lines.append(f"report: {build_tune_report(out_dir, report, force=force)}")
    return out_dir, verdict, "\n".join(lines)


def turns_file(
    config: str | Path,
    *,
    games: int = SCAN_GAMES,
    players: list[int] | None = None,
    figure: str | Path | None = None,
    sets: Sequence[str] = (),
    seed: int | None = None,
) -> str:
    """`sim turns CONFIG`: turns per seat against deck size for 2–5 players (or `players`),
    as a table; with `figure`, the same drawn as an SVG file."""
    bad = [n for n in players or () if not 2 <= n <= 5]
    if bad or games < 1:
        raise SimError(f"sim turns: players must be 2-5 and games at least 1 (got {bad or games})")
    study = load_study(config, sets)
    if seed is not None:
        study = study.with_overrides(seed=seed)
    scan = deck_scan(study, players=players, games=games)
    text = scan_text(study, scan)
    if figure is not None:
        path = Path(figure)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(to_svg(turns_by_deck(scan), "turns-deck"), encoding="utf-8")
        text += f"\nfigure: {path}"
    return text


# ---------------------------------------------------------------- sim value, ladder, luck

VALUES_FILE = "values.csv"
ABLATION_FILE = "ablation.csv"
LADDER_FILE = "ladder.csv"
RATINGS_FILE = "ratings.csv"
LUCK_FILE = "luck.csv"


def _csv(frame: pd.DataFrame, path: Path) -> None:
    write_text(path, frame.to_csv(index=False))


def _games_ok(games: int | None) -> None:
    if games is not None and games < 2:
        raise SimError(f"--games: need at least 2 games per point for an interval, got {games}")


def value_file(
    config: str | Path,
    *,
    games: int | None = None,
    seed: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    report: str | Path | None = None,
    no_report: bool = False,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    force: bool = False,
    sets: Sequence[str] = (),
) -> tuple[ValueResult, str]:
    """`sim value CONFIG`: restricted play and deck ablation; writes `values.csv`,
    `ablation.csv`, `summary.json` and the page; (result, summary text)."""
    _games_ok(games)
    study = load_study(config, sets)

    def check(s) -> None:
        if not no_report:
            check_report_path(causal_report.report_path(s, "value", report), force)

    result = run_value(
        study,
        games=games,
        seed=seed,
        jobs=jobs,
        out=out,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
        before_play=check,
    )
    _csv(result.values.drop(columns="identical"), result.out_dir / VALUES_FILE)
    if len(result.ablation):
        _csv(result.ablation.drop(columns="identical"), result.out_dir / ABLATION_FILE)
    head, lines = causal_report.value_verdict(result)
    summary = {
        "name": study.name,
        "kind": "value",
        "seat": result.seat,
        "verdict": head,
        "family": family_note("holm", len(result.values)),
        "values": result.values.drop(columns="identical").to_dict("records"),
        "ablation_family": family_note("holm", len(result.ablation)),
        "ablation": result.ablation.drop(columns="identical", errors="ignore").to_dict("records"),
    }
    write_json(result.out_dir / SUMMARY_FILE, summary)
    text = [
        f"{study.name}: {len(result.points)} points on shared seeds -> {result.out_dir}",
        head,
        *lines,
    ]
    if not no_report:
        text.append(f"report: {causal_report.build_value_report(result, report, force=force)}")
    return result, "\n".join(text)


def ladder_file(
    config: str | Path,
    *,
    games: int | None = None,
    seed: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    report: str | Path | None = None,
    no_report: bool = False,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    force: bool = False,
    sets: Sequence[str] = (),
) -> tuple[LadderResult, str]:
    """`sim ladder CONFIG`: the skill ladder; writes `ladder.csv`, `ratings.csv`,
    `summary.json` and the page; (result, summary text)."""
    _games_ok(games)
    study = load_study(config, sets)

    def check(s) -> None:
        if not no_report:
            check_report_path(causal_report.report_path(s, "ladder", report), force)

    result = run_ladder(
        study,
        games=games,
        seed=seed,
        jobs=jobs,
        out=out,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
        before_play=check,
    )
    _csv(result.steps, result.out_dir / LADDER_FILE)
    _csv(result.ratings, result.out_dir / RATINGS_FILE)
    verdict = causal_report.ladder_verdict(result)
    write_json(
        result.out_dir / SUMMARY_FILE,
        {
            "name": study.name,
            "kind": "ladder",
            "rungs": result.labels,
            "depth": result.depth,
            "depth_ci": list(result.depth_ci),
            "chain_depth": result.chain_depth,
            "chain_depth_ci": list(result.chain_ci),
            "threshold": result.threshold,
            "verdict": verdict,
            "steps": result.steps.to_dict("records"),
            "ratings": result.ratings.to_dict("records"),
        },
    )
    text = [f"{study.name}: {len(result.matches)} matches on shared seeds -> {result.out_dir}"]
    for r in result.steps.itertuples():
        text.append(
            f"  {r.upper} v {r.lower} ({r.players}p): {r.share:.1%}"
            f" [{r.lo:.1%}, {r.hi:.1%}] (fair {r.fair:.0%}, n {r.n:,})"
        )
    text.append(
        "  ratings (Elo): "
        + ", ".join(
            f"{r.rung} {r.elo:.0f} [{r.elo_lo:.0f}, {r.elo_hi:.0f}]"
            for r in result.ratings.itertuples()
        )
    )
    text.append(verdict)
    if not no_report:
        text.append(f"report: {causal_report.build_ladder_report(result, report, force=force)}")
    return result, "\n".join(text)


def luck_file(
    config: str | Path,
    *,
    deals: int | None = None,
    replays: int | None = None,
    seed: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    report: str | Path | None = None,
    no_report: bool = False,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    force: bool = False,
    sets: Sequence[str] = (),
) -> tuple[LuckResult, str]:
    """`sim luck CONFIG`: the luck gauge; writes `luck.csv`, `summary.json` and the page."""
    study = load_study(config, sets)

    def check(s) -> None:
        if not no_report:
            check_report_path(causal_report.report_path(s, "luck", report), force)

    result = run_luck(
        study,
        deals=deals,
        replays=replays,
        seed=seed,
        jobs=jobs,
        out=out,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
        before_play=check,
    )
    _csv(result.table, result.out_dir / LUCK_FILE)
    lines = causal_report.luck_lines(result)
    write_json(
        result.out_dir / SUMMARY_FILE,
        {
            "name": study.name,
            "kind": "luck",
            "luck": result.table.to_dict("records"),
            "lines": lines,
        },
    )
    text = [f"{study.name}: luck gauge -> {result.out_dir}", *lines]
    if not no_report:
        text.append(f"report: {causal_report.build_luck_report(result, report, force=force)}")
    return result, "\n".join(text)
