"""The `sim` commands that run a study over many points (sweep, compare, tune, advise,
turns, value, ladder, luck, calibrate): load, call the study, write its files and page,
print. Like `sim.cli.commands`, heavy modules are imported inside each command."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from sim.cli.parser import (
    check_count,
    check_feel_flags,
    check_kingmaking,
    check_resume,
    load_config,
    options,
    stderr_lines,
)
from sim.config.limits import MAX_GAMES, MAX_REPLAYS, MAX_SCAN_GAMES, MIN_LUCK
from sim.errors import SimError
from sim.runs import pulse
from sim.runs.paths import FIGURE_MARK, check_output_path
from sim.units import plural

# ---------------------------------------------------------------- the studies


def _said(lines: list[str], args: argparse.Namespace, page: Callable[[], Path]) -> int:
    """Print a study's lines and, unless --no-report, write its page (`page()`) and say where."""
    if not args.no_report:
        pulse.doing("building the page")
        lines.append(f"report: {page()}")
    print("\n".join(lines))
    return 0


def sweep(args: argparse.Namespace) -> int:
    """`sim sweep CONFIG`: every point on shared seeds, points.csv, the page."""
    from sim.analysis.findings import sweep_findings
    from sim.analysis.paired import sweep_result_stats
    from sim.analysis.stopping import stop_lines, stopped_record
    from sim.report.study_report import build_sweep_report
    from sim.runs.partials import stream_runs
    from sim.studies.leads import sweep_lead
    from sim.studies.outputs import write_points
    from sim.studies.sweep import run_sweep

    check_resume(args, "sweep", "SWEEP_DIR")
    _games_ok(args.games)
    check_feel_flags(args)
    request, workers = options(args)
    study = load_config(args, args.config) if args.config is not None else None
    if args.kingmaking and study is not None:  # before any game
        check_kingmaking(study)
    result = run_sweep(study, request, workers)
    pulse.doing("summarising every point")
    stats = sweep_result_stats(result, streamed=stream_runs(result.runs))  # chunk by chunk
    write_points(result, stats)
    lines = [
        f"{result.study.name}: {len(result.points)} points x {result.study.games:,} games"
        f" on shared seeds -> {result.out_dir}",
        f"  {sweep_lead(result, stats)}",
    ]
    lines += stop_lines(stopped_record(result.meta))  # a sweep run until decided
    if stats.verdict is not None:
        lines.append(stats.verdict.text)
    lines += sweep_findings(stats.table)
    if args.kingmaking:
        lines += _kingmaking_of(result, args.quiet, "sweep")
    return _said(lines, args, lambda: build_sweep_report(result, request.report, stats, args.force))


def compare(args: argparse.Namespace) -> int:
    """`sim compare A.yaml B.yaml`: both on the same games, differences.csv, the page.
    Labels default to the file names (suffixed (A)/(B) when they are the same); `--set`
    changes both configs; `--seed` replaces A's (B plays on A's seed). `--resume DIR`
    finishes a comparison that stopped (its finished chunks kept)."""
    from sim.config import load_study
    from sim.studies.compare import run_compare

    _games_ok(args.games)
    check_feel_flags(args)
    request, workers = options(args)
    if request.resume is not None:
        given = [args.a, args.b, args.set, args.b_set, args.labels, args.independent]
        if any(given):
            raise SimError(
                "--resume: a resumed comparison keeps its configs, labels and seeds; give only"
                " the folder (and study flags such as --jobs or --report)"
            )
        result = run_compare(None, None, None, request, workers)
        return _compared(result, request, args)
    if args.a is None:
        raise SimError("sim compare: give A's config, or --resume COMPARE_DIR")
    if args.b is None and not args.b_set:
        raise SimError("sim compare: give B's config, or --b-set KEY=VALUE to change A into B")
    a = load_study(args.a, args.set)
    b = load_study(args.b or args.a, [*args.set, *args.b_set])
    if args.kingmaking:  # before any game: the continuations play built-in policies only
        for study in (a, b):
            check_kingmaking(study)
    if args.labels:
        if any(not label.strip() for label in args.labels):
            raise SimError("--labels: give each side a name (an empty label names nothing)")
        labels = tuple(label.strip() for label in args.labels)
    elif args.b is None:
        labels = (Path(args.a).stem, ", ".join(args.b_set))
    else:
        sa, sb = Path(args.a).stem, Path(args.b).stem
        labels = (sa, sb) if sa != sb else (f"{sa} (A)", f"{sb} (B)")
    result = run_compare(a, b, labels, request, workers, independent=args.independent)
    return _compared(result, request, args)


def _compared(result, request, args: argparse.Namespace) -> int:
    """A finished comparison's differences.csv, its lines and its page."""
    from sim.analysis.paired import compare_runs, summarize_compare
    from sim.analysis.stopping import stop_lines, stopped_record
    from sim.report.study_report import build_compare_report, config_diff
    from sim.runs.partials import stream_runs
    from sim.studies.leads import compare_lead
    from sim.studies.outputs import write_differences

    pulse.doing("comparing the two configs' games")
    table = compare_runs(
        result.a,
        result.b,
        labels=result.labels,
        paired=not result.meta.get("independent"),
        primary=result.studies[0].primary,
        streamed=stream_runs([result.a, result.b], unpaired=True),  # chunk by chunk
    )
    write_differences(table, result.out_dir)
    lead = compare_lead(result.studies, table, config_diff(*result.studies))
    lines = [
        lead,
        *result.meta.get("notes", []),
        *stop_lines(stopped_record(result.meta)),
        summarize_compare(table),
    ]
    if args.kingmaking:
        lines.append(_kingmaking_of(result, args.quiet, "compare"))
    return _said(
        lines, args, lambda: build_compare_report(result, request.report, table, args.force)
    )


def _kingmaking_of(result, quiet: bool, what: str):
    """--kingmaking of a sweep or comparison: each run folder's sample (measured once), the
    changes between them (`sim.table.kingmaking`), in their words (`sim.analysis.sampled`)."""
    from sim.analysis.sampled import kingmaking_change_words, kingmaking_sweep_words
    from sim.table.kingmaking import compare_kingmaking, sweep_kingmaking

    measure, words = {
        "sweep": (sweep_kingmaking, kingmaking_sweep_words),
        "compare": (compare_kingmaking, kingmaking_change_words),
    }[what]
    pulse.doing(f"measuring kingmaking ({what})")
    return words(measure(result, stderr_lines(quiet)))


def tune(args: argparse.Namespace) -> int:
    """`sim tune CONFIG`: the start's check, the search, the selection and the confirmation
    on fresh seeds; tune.json, the recommended (or closest) study as YAML, the page."""
    from sim.report.tune_report import build_tune_report
    from sim.runs.folders import default_folder
    from sim.runs.paths import check_page, folder_stem
    from sim.studies.common import stop_marked
    from sim.studies.outputs import write_tune_files
    from sim.studies.tune import run_tune

    check_resume(args, "tune", "TUNE_DIR")
    check_count("--budget", args.budget, 1, MAX_GAMES)  # search games
    request, workers = options(args)
    study = load_config(args, args.config) if args.config is not None else None
    if request.seed is not None and study is None:
        raise SimError("--seed: a resumed search keeps its seed; leave --seed out")
    if request.seed is not None:
        study = study.with_overrides(seed=request.seed)
    if _answered_by_advice(study, request.resume):
        return _tune_by_advice(args, request, workers, study)
    if study is not None:
        check_page(request, "tune", study)  # before any game
    out = request.out or (default_folder(folder_stem("tune", study.name)) if study else None)
    folder = request.resume or out
    fresh = request.resume is None and out is not None and not out.exists()
    with stop_marked(folder, fresh):  # study.json says `interrupted` or `failed` if it stops
        verdict = run_tune(study, workers, budget=args.budget, out=out, resume=request.resume)
    state, chosen = verdict.state, write_tune_files(verdict)
    search = verdict.data["search"]
    lines = [
        f"{state.study.name}: {search['candidates']} candidates in {search['wall_time_s']:.0f} s"
        f" -> {state.out_dir}",
        f"  {verdict.data['headline']}",
        *verdict.lines,
    ]
    lines += _tune_cause(state.study, verdict.data)
    if verdict.data["pareto"]:
        lines.append(
            "Pareto set (no other checked config is closer on every target): "
            + ", ".join(verdict.data["pareto"])
        )
    lines.append(f"{chosen.stem} study: {chosen}")
    return _said(lines, args, lambda: build_tune_report(state.out_dir, request.report, args.force))


def _tune_cause(study, data: dict) -> list[str]:
    """What a one-setting recommendation acts on, in sim advise's groups, and, when the tune
    holds seats to a band, how its question differs from advise's (one sentence)."""
    from sim.studies.fix_candidates import group_of
    from sim.studies.tune_fair import why_not_advise

    changed = data.get("recommended") or {}
    out = []
    if len(changed) == 1:
        try:
            out.append(f"  acts on: {group_of(study.with_overrides(tune=None), changed)}")
        except SimError:
            pass
    if why := why_not_advise(study):
        out.append(f"  {why}")
    return out


def _answered_by_advice(study, resume) -> bool:
    """Is this tune advise's question (`sim.studies.tune_fair`): a config whose every target
    is a seat's edge between equal players, or a tune folder advise's engine made?"""
    from sim.runs.paths import STUDY_FILE
    from sim.runs.storage import read_json
    from sim.studies.tune_fair import why_not_advise

    if resume is not None:
        path = Path(resume) / STUDY_FILE
        return path.is_file() and read_json(path).get("asked_by") == "tune"
    return study is not None and study.tune is not None and why_not_advise(study) is None


def _tune_by_advice(args, request, workers, study) -> int:
    """`sim tune` on advise's question: advise's engine with tune's space, targets and budget
    (one fix engine, so the two cannot disagree); advice.json, the YAML, the page."""
    from sim.analysis.advice_words import advice_summary
    from sim.report.advise_report import build_advise_report
    from sim.runs.folders import default_folder
    from sim.runs.paths import folder_stem
    from sim.studies.advise import run_advise
    from sim.studies.common import stop_marked
    from sim.studies.outputs import write_advice, write_advised_study
    from sim.studies.tune_fair import TUNE_BY_ADVICE, advice_study, check_budget

    if study is not None:
        study = advice_study(study)
        check_budget(study, args.budget)
    out = request.out or (default_folder(folder_stem("tune", study.name)) if study else None)
    fresh = request.resume is None and out is not None and not out.exists()
    with stop_marked(request.resume or out, fresh):
        result = run_advise(
            study, replace(request, out=out), workers, budget=args.budget, asked_by="tune"
        )
    path, chosen = write_advice(result), write_advised_study(result)
    games = result.data["games"]
    lines = [
        f"{result.state.study.name}: {games['total']:,} games in"
        f" {result.state.wall_s:.0f} s -> {result.state.out_dir}",
        f"  {advice_summary(result.data)}",
        f"  {TUNE_BY_ADVICE}",
        *result.lines,
        f"advice: {path}",
    ]
    if chosen is not None:
        lines.append(f"{chosen.stem} study: {chosen}")
    page = request.report
    return _said(lines, args, lambda: build_advise_report(result, page, args.force))


def advise(args: argparse.Namespace) -> int:
    """`sim advise CONFIG`: fair or not between equal players at several skill levels, why,
    how it plays, and the smallest confirmed fix of each problem; advice.json and the page."""
    from sim.analysis.advice_words import advice_summary
    from sim.report.advise_report import build_advise_report
    from sim.runs.folders import default_folder
    from sim.runs.paths import folder_stem
    from sim.studies.advise import run_advise
    from sim.studies.common import stop_marked
    from sim.studies.outputs import write_advice

    check_resume(args, "advise", "ADVISE_DIR")
    check_count("--budget", args.budget, 1, MAX_GAMES)  # every game it plays
    request, workers = options(args)
    if args.calibrated is not None and args.config is None:
        raise SimError(
            "sim advise: --calibrated goes with a CONFIG; a resumed advice keeps its levels"
        )
    study = load_config(args, args.config) if args.config is not None else None
    if args.calibrated is not None:  # players like yours: the fitted seat as one more level
        advise = {**study.advise.to_yaml(), "calibrated": args.calibrated}
        study = study.overridden({"advise": advise}, where="--calibrated")
    out = request.out or (default_folder(folder_stem("advise", study.name)) if study else None)
    fresh = request.resume is None and out is not None and not out.exists()
    with stop_marked(request.resume or out, fresh):  # study.json: `interrupted` or `failed`
        result = run_advise(study, replace(request, out=out), workers, budget=args.budget)
    path = write_advice(result)
    games = result.data["games"]
    head = (
        f"{result.state.study.name}: {games['total']:,} games in"
        f" {result.state.wall_s:.0f} s -> {result.state.out_dir}"
    )
    # the page's first paragraph first, as every command prints its answer; then the details
    lines = [head, f"  {advice_summary(result.data)}", *result.lines, f"advice: {path}"]
    page = request.report
    return _said(lines, args, lambda: build_advise_report(result, page, args.force))


def map_(args: argparse.Namespace) -> int:
    """`sim map CONFIG`: the design-space map, map.json and the what-if page; `sim map DIR
    --predict --set KEY=VALUE`: the emulated metrics at one point, as JSON."""
    if args.predict:
        from sim.space_map.predict import predict_json

        if args.config is None:
            raise SimError("sim map --predict: give the map folder (sim map DIR --predict)")
        print(predict_json(Path(args.config), args.set))
        return 0
    from sim.report.map_report import build_map_report
    from sim.space_map.study import run_map

    check_resume(args, "map", "MAP_DIR")
    if args.resume is not None and args.games is not None:
        raise SimError("--games: a resumed map keeps the games it was started with")
    check_count("--games", args.games, 2, MAX_GAMES)
    check_count("--budget", args.budget, 1, MAX_GAMES)
    request, workers = options(args)
    study = load_config(args, args.config) if args.config is not None else None
    if study is not None and args.games is not None:
        study = study.overridden(
            {"map": {**study.map.to_yaml(), "games": args.games}}, where="--games"
        )
    result = run_map(study, replace(request, games=None), workers, budget=args.budget)
    head = f"{result.study.name}: map in {result.data['wall_s']:.0f} s -> {result.out_dir}"
    page = request.report
    return _said([head, *result.lines], args, lambda: build_map_report(result, page, args.force))


def turns(args: argparse.Namespace) -> int:
    """`sim turns CONFIG`: turns per seat against deck size for 2–5 players (or --players),
    as a table; with --figure, the same drawn as an SVG file."""
    from sim.report.figures import turns_by_deck
    from sim.runs.folders import make_folder
    from sim.runs.storage import write_text
    from sim.studies.deck_parity import SCAN_GAMES, deck_scan, scan_text

    games = SCAN_GAMES if args.games is None else args.games
    check_count("--games", games, 1, MAX_SCAN_GAMES)
    bad = [n for n in args.players or () if not 2 <= n <= 5]
    if bad:
        raise SimError(f"--players: player counts are 2 to 5, got {bad[0]}")
    if args.players and len(set(args.players)) < len(args.players):
        raise SimError(f"--players: each player count once, got {' '.join(map(str, args.players))}")
    study = load_config(args, args.config)
    if args.seed is not None:
        study = study.with_overrides(seed=args.seed)
    if args.figure is not None:  # before any game: never over a file that is not our figure
        path = check_output_path(args.figure, args.force, "figure")
    scan = deck_scan(study, players=args.players, games=games)
    text = scan_text(study, scan)
    if args.figure is not None:
        make_folder(path.parent)
        write_text(path, f"{FIGURE_MARK}\n{turns_by_deck(scan).to_svg('turns-deck')}")
        text += f"\nfigure: {path}"
    print(text)
    return 0


def _given(args: argparse.Namespace):
    """The CONFIG given on the command line (with its --set), None with --resume alone."""
    return load_config(args, args.config) if args.config is not None else None


def _games_ok(games: int | None) -> None:
    """--games of a study of several points: at least 2 games per point (an interval needs
    them), at most MAX_GAMES."""
    if games is not None and games < 2:
        raise SimError(f"--games: need at least 2 games per point for an interval, got {games}")
    check_count("--games", games, 2, MAX_GAMES)


def value(args: argparse.Namespace) -> int:
    """`sim value CONFIG`: restricted play and deck ablation; values.csv, ablation.csv,
    summary.json and the page."""
    from sim.analysis.findings import ablation_lines
    from sim.report.causal_report import build_value_report
    from sim.studies.leads import value_lead
    from sim.studies.outputs import write_value_files
    from sim.studies.value import cause_lines, run_value

    check_resume(args, "value", "VALUE_DIR")
    _games_ok(args.games)
    request, workers = options(args)
    result = run_value(_given(args), request, workers)
    pulse.doing("valuing each option and card")
    head, lines = write_value_files(result)
    text = [
        f"{result.study.name}: {len(result.points)} points on shared seeds -> {result.out_dir}",
        f"  {value_lead(result)}",
        head,
        *lines,
        *ablation_lines(result.ablation),
        *cause_lines(result.study, result.ablation),
    ]
    return _said(text, args, lambda: build_value_report(result, request.report, args.force))


def ladder(args: argparse.Namespace) -> int:
    """`sim ladder CONFIG`: the skill ladder; ladder.csv, ratings.csv, summary.json, page."""
    from sim.analysis.findings import ladder_lines
    from sim.report.causal_report import build_ladder_report
    from sim.studies.ladder import run_ladder
    from sim.studies.leads import ladder_lead
    from sim.studies.outputs import write_ladder_files

    check_resume(args, "ladder", "LADDER_DIR")
    _games_ok(args.games)
    request, workers = options(args)
    result = run_ladder(_given(args), request, workers)
    pulse.doing("rating each rung")
    verdict = write_ladder_files(result)
    head = f"{result.study.name}: {len(result.matches)} matches on shared seeds -> {result.out_dir}"
    text = [head, f"  {ladder_lead(result)}", *ladder_lines(result.steps, result.ratings), verdict]
    return _said(text, args, lambda: build_ladder_report(result, request.report, args.force))


def luck(args: argparse.Namespace) -> int:
    """`sim luck CONFIG`: the luck gauge; luck.csv, summary.json and the page."""
    from sim.report.causal_report import build_luck_report
    from sim.studies.leads import luck_lead
    from sim.studies.luck import run_luck
    from sim.studies.outputs import write_luck_files

    check_resume(args, "luck", "LUCK_DIR")
    check_count("--deals", args.deals, MIN_LUCK, MAX_GAMES)  # a variance between deals needs 2
    check_count("--replays", args.replays, MIN_LUCK, MAX_REPLAYS)  # ... and one within, 2 replays
    request, workers = options(args)
    result = run_luck(_given(args), request, workers, deals=args.deals, replays=args.replays)
    pulse.doing("splitting skill from luck")
    lines = write_luck_files(result)
    text = [
        f"{result.study.name}: luck gauge -> {result.out_dir}",
        f"  {luck_lead(result)}",
        *lines,
    ]
    return _said(text, args, lambda: build_luck_report(result, request.report, args.force))


def calibrate(args: argparse.Namespace) -> int:
    """`sim calibrate LOG...`: the heuristic fitted to logged decisions; calibration.json,
    calibrated.yaml, the page."""
    import sys

    from sim.config import load_study
    from sim.config.yamlio import dump_yaml
    from sim.report.calibrate_report import build_calibrate_report
    from sim.runs.paths import check_report_path, folder_stem
    from sim.studies.calibrate import calibrate as fit
    from sim.studies.calibrate import summary_lines
    from sim.studies.common import fresh_dir
    from sim.studies.outputs import write_calibration_files
    from sim.table.choices import log_paths, logged_choices, read_games

    if not 0 <= args.holdout < 1:
        raise SimError(f"--holdout must be a share from 0 to below 1, got {args.holdout:g}")
    if args.min_decisions < 1 or args.seed < 0 or any(s < 0 for s in args.seats or ()):
        raise SimError("--min-decisions must be >= 1, --seed and --seats >= 0")
    say = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr))
    study = load_study(args.config) if args.config is not None else None
    paths = log_paths(args.logs)
    if args.out is not None and Path(args.out).exists():
        if not Path(args.out).is_dir() or any(Path(args.out).iterdir()):
            raise SimError(f"{args.out}: exists and is not an empty folder; use another --out")
    if args.report is not None and not args.no_report:
        check_report_path(args.report, args.force)  # before reading a single log
    games = read_games(paths, study, args.seats, say)
    names = sorted({g.study.name for g in games})
    name = names[0] if len(names) == 1 else "calibrate"
    stem = folder_stem("calibrate", name)
    page = Path(args.report) if args.report else Path("reports") / f"{stem}.html"
    if not args.no_report:
        check_report_path(page, args.force)
    # the folder before the fit: a folder that cannot be written is one line, not a fit lost
    out_dir = fresh_dir(Path(args.out) if args.out else None, stem, None)
    say(f"replaying {plural(len(games), 'game')} through the engine")
    choices = logged_choices(games, args.seats, say)
    pulse.doing("fitting the players' decisions")
    result = fit(
        choices,
        holdout=args.holdout,
        seed=args.seed,
        min_decisions=args.min_decisions,
        by_player=args.by == "player",
        say=say,
    )
    studies = {g.study.config_hash(): g.study for g in games}
    seats = (
        "seats " + ", ".join(map(str, args.seats))
        if args.seats
        else "the people's seats, or every seat of a log without people"
    )
    about = {
        "name": name,
        "logs": len(paths),
        "seats": seats,
        "studies": [{"name": s.name, "config_hash": h} for h, s in studies.items()],
        "players_found": list(choices.players),
    }
    files = write_calibration_files(result, out_dir, about)
    lines = summary_lines(result, about, out_dir, files)
    if not args.no_report:
        about["studies_yaml"] = [dump_yaml(s.to_yaml_dict()) for s in studies.values()]
        lines.append(f"report: {build_calibrate_report(result, page, out_dir, about, args.force)}")
    print("\n".join(lines))
    return 0
