"""One function per `sim` command: load, call the study, write its files and page, print.

Each takes the parsed arguments and returns an exit code; the work lives in
`sim.runs` (playing), `sim.studies` (the studies and their files), `sim.analysis`
(numbers and sentences) and `sim.report` (pages). Heavy modules are imported in
the command that needs them, so `sim validate` and `sim --help` start fast.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from sim.cli.parser import MAX_GAME_INDEX, check_count, check_resume, load_config, options
from sim.config.limits import MAX_GAMES, MAX_REPLAYS, MAX_SCAN_GAMES, MIN_LUCK
from sim.errors import SimError
from sim.runs.paths import FIGURE_MARK, check_output_path
from sim.units import plural


def score(args: argparse.Namespace) -> int:
    """`sim score POSITION.json`: the reference scorer's result as JSON."""
    from sim.engine.position_io import load_position
    from sim.engine.reference import score_position

    print(json.dumps(score_position(load_position(args.position)), indent=2))
    return 0


def validate(args: argparse.Namespace) -> int:
    """`sim validate CONFIG`: one summary line, and what differs from the parent and --set."""
    from sim.config import extends_chain, load_study, study_changes, summarize

    study = load_study(args.config, args.set)
    budgets = [("advise.budget", study.advise.too_small())]
    if study.tune:
        budgets.append(("tune.budget.games", study.tune.budget.too_small(study.tune.budget.games)))
    for key, problem in budgets:
        if problem:  # the studies ask too, where a --budget may replace the config's
            raise SimError(f"{study.source}: {key}: {problem} (or give the study --budget)")
    print(summarize(study))
    chain = extends_chain(args.config)
    own = load_study(args.config) if args.set else study
    if len(chain) > 1:
        changes = study_changes(load_study(chain[1]), own)
        print(f"  differs from {chain[1]} (extends): {plural(len(changes), 'setting')}")
        print("".join(f"    {line}\n" for line in changes), end="")
    if args.set:
        changes = [c for c in study_changes(own, study) if not c.startswith("name: ")]
        print(f"  --set changes {plural(len(changes), 'setting')}")
        print("".join(f"    {line}\n" for line in changes), end="")
        if study.name != own.name:  # apply_sets: a what-if never takes over the config's pages
            print(f"  runs as {study.name} (its own folders and pages)")
    return 0


def play(args: argparse.Namespace) -> int:
    """`sim play CONFIG`: one game of a run, its scores, its log and its final table; with
    --replay LOG, a log checked against the engine and its bots instead."""
    from sim.config import load_study
    from sim.engine.render import render
    from sim.runs.isolated import run_isolated
    from sim.specs import is_plugin
    from sim.table.logfile import write_log
    from sim.table.record import play_recorded

    if args.replay is not None:
        return _replay_log(args)
    if args.config is None:
        raise SimError("sim play: give a CONFIG file, or --replay LOG")
    study = load_study(args.config)
    if args.seed is not None:
        study = study.with_overrides(seed=args.seed)  # validated like the config's own seed
    if not 0 <= args.game < MAX_GAME_INDEX:
        raise SimError(f"--game must be a game index from 0 to {MAX_GAME_INDEX - 1:,}")
    if args.log is not None:  # before the game: never over a file that is not a log of ours
        check_output_path(args.log, args.force, "log")
    seed = study.seed
    if any(is_plugin(seat.policy) for seat in study.seats):
        # foreign code: the game is first played in a watched child, so that a plug-in that
        # ends its process or will not stop is named (sim.runs.isolated); then here
        def rehearse() -> None:
            play_recorded(study, seed, args.game)

        run_isolated(rehearse, "the game", rehearsal=True)
    recorded = play_recorded(study, seed, args.game)  # the game play_one plays, recorded
    game = recorded.game
    result = game.outcome()
    if args.log is not None:
        write_log(Path(args.log), recorded.records())
    if args.show:
        print(render(game.position()))
    labels = [seat.label for seat in study.seats]
    which = f"game {args.game} of seed {seed}" if args.game else f"seed {seed}"
    print(f"{study.name}: {which}, {game.turns} turns, end by {game.trigger}")
    for seat, (points, bonus) in enumerate(zip(result.scores, result.cat_bonus, strict=True)):
        mark = "  winner" if seat in result.winners else ""
        said = f"{plural(points, 'point')} ({bonus} from cats)"
        print(f"  seat {seat} ({labels[seat]}): {said}{mark}")
    return 0


def _replay_log(args: argparse.Namespace) -> int:
    """`sim play --replay LOG`: check a log against the engine; the first divergence is the
    one error line."""
    from sim.table.logfile import check_log

    if args.log is not None or args.show or args.seed is not None or args.game or args.force:
        raise SimError(
            "--replay: checks a log as it is; leave out --seed, --game, --log, --show, --force"
        )
    study = load_config(args, args.config) if args.config is not None else None
    checked = check_log(args.replay, study)
    print(checked.summary())
    return 0


def table(args: argparse.Namespace) -> int:
    """`sim table CONFIG`: a game against the config's bots on a local web page."""
    import sys

    from sim.table.server import open_table, serve

    study = load_config(args, args.config)
    logs = Path(args.logs) if args.logs else Path("runs") / f"{study.name}-table"
    server = open_table(
        study, args.seat if args.seat else [0], port=args.port, seed=args.seed,
        first_game=args.game, log_dir=logs, pause_s=args.pause, names=args.name,
    )  # fmt: skip
    people = ", ".join(str(p) for p in sorted(server.session.humans))
    print(f"sim table: {server.url}  (people at seat {people}; logs in {logs}/; Ctrl-C stops)")
    sys.stdout.flush()
    serve(server, open_browser=args.open)
    return 0


def replay(args: argparse.Namespace) -> int:
    """`sim replay RUN_DIR --game I` (or a log): an offline page stepping through the game,
    with what-if continuations from its marked steps."""
    from sim.table.pages import replay_command

    print("\n".join(replay_command(
        args.source, args.game, out=args.out, steps=args.from_steps, n=args.continuations,
        policy=args.policy, as_seat=args.as_seat, force=args.force, quiet=args.quiet,
    )))  # fmt: skip
    return 0


def bench(args: argparse.Namespace) -> int:
    """`sim bench`: the engine's, the runner's, the policies' or the report's speed."""
    from sim.bench.engine import bench_policies, bench_random_play, bench_report, bench_runner

    if args.keep is not None and not args.report:
        raise SimError("--keep DIR keeps the run of --report; add --report, or leave --keep out")
    if args.report:
        bench_report(games=args.games, config_path=args.config, keep=args.keep)
    elif args.policies:
        bench_policies(games=min(args.games, 4000), config_path=args.config)
    elif args.runner:
        bench_runner(games=args.games, config_path=args.config, repeat=args.repeat)
    else:
        bench_random_play(games=args.games, config_path=args.config)
    return 0


# ---------------------------------------------------------------- sim run, sim report


def run(args: argparse.Namespace) -> int:
    """`sim run CONFIG`: play, then summary.json, the terminal summary and the page."""
    from sim.analysis.stopping import stop_lines, stopped_record
    from sim.runs import run as run_study
    from sim.runs.partials import run_data
    from sim.studies.outputs import write_run_summary

    check_resume(args, "run", "RUN_DIR")
    if args.resume is not None and args.out is not None:
        raise SimError("--out: a resumed run stays in its folder; leave --out out")
    request, workers = options(args)
    study = load_config(args, args.config) if args.config is not None else None
    result = run_study(study, request, workers)
    moments, view = run_data(result)  # every game's partial results; rows of a sample
    summary = write_run_summary(result, moments, view)
    print(run_lines(result, moments, view, summary["headline"]))
    print("".join(f"  {line}\n" for line in stop_lines(stopped_record(result.meta))), end="")
    print(f"  the tests behind this: {Path(result.run_dir) / 'summary.json'} (verdict)")
    if not args.no_report:
        print("\n".join(publish(result, args.report, args.force, True, args.quiet)))
    return 0


def report(args: argparse.Namespace) -> int:
    """`sim report FOLDER`: rebuild the page of a run, sweep, comparison, tune, value,
    ladder or luck folder (and a run's summary.json)."""
    folder = Path(args.run_dir)
    if (folder / "study.json").exists():  # a study folder: its page renders its files
        from sim.report.tune_report import build_folder_report

        print(build_folder_report(folder, args.out, force=args.force))
        return 0
    from sim.runs import load_run
    from sim.runs.partials import run_data
    from sim.studies.outputs import write_run_summary

    result = load_run(folder)  # read once: the page and summary.json share its partials
    print("\n".join(publish(result, args.out, args.force, False, args.quiet)))
    write_run_summary(result, *run_data(result))
    return 0


def publish(run, out: str | None, force: bool, fresh: bool, quiet: bool) -> list[str]:
    """A run's page in its folder and at its shared path, with its played parts (the deck
    scan and the representative game, `sim.studies.run_page`); the lines to print."""
    import time

    from sim.report.publish import publish_run_report
    from sim.report.run_report import progress
    from sim.runs.partials import run_data
    from sim.runs.paths import check_report_path, page_path
    from sim.runs.storage import saved_study
    from sim.studies.run_page import page_plays
    from sim.table.pages import representative_replay

    study = saved_study(run.meta, Path(run.run_dir) / "run.json", plugins=False)
    check_report_path(page_path("run", study, out), force)  # before playing the page's parts
    say = progress(run, time.perf_counter(), quiet)
    _, view = run_data(run, say)
    say("playing the page's parts: turns against deck size, the representative game")
    plays = page_plays(run, view)
    lines = publish_run_report(run, plays, out, force=force, fresh=fresh, quiet=quiet)
    return [lines[0], representative_replay(run), *lines[1:]]


def run_lines(result, moments, view, headline: str = "") -> str:
    """A few lines a designer reads first: where the results are, how fast they came, the
    short answer (`headline`, as the page opens), and who won how often, each share with its
    95% interval (in the report's units)."""
    from sim.analysis.balance import policy_win_shares, seat_win_shares
    from sim.analysis.turns import parity_note
    from sim.units import interval, pct

    meta, players = result.meta, view.players
    speed = meta.get("games_per_s") or 0
    startup = meta.get("startup_s") or 0
    engine = f"; {startup:.0f} s of it to load the engine" if startup >= 1 else ""
    lines = [
        f"{meta['name']}: {plural(meta['games'], 'game')} in {meta['wall_time_s']:.1f} s"
        f" ({plural(round(speed), 'game/s')}{engine}) -> {result.run_dir}"
    ]
    if headline:
        lines.append(f"  {headline}")
    for r in policy_win_shares(players, moments).itertuples():
        lines.append(
            f"  {r.policy:<20} win share {interval(r.win_share, r.lo, r.hi, 'share')}"
            f"  ({plural(int(r.n), 'seat-game')})"
        )
    seats = seat_win_shares(players, moments)
    lines.append(
        f"  by seat (fair {pct(seats['fair'].iloc[0])}, {plural(moments.n, 'game')}): "
        + ", ".join(
            f"{r.seat}: {interval(r.win_share, r.lo, r.hi, 'share')}" for r in seats.itertuples()
        )
    )
    note = parity_note(view.games, players)  # when unequal turns drive the seat result
    if note:
        sample = len(view.games)
        tail = f" (a sample of {sample:,} games)" if sample < moments.n else ""
        lines.append(f"  {note}{tail}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the studies


def _said(lines: list[str], args: argparse.Namespace, page: Callable[[], Path]) -> int:
    """Print a study's lines and, unless --no-report, write its page (`page()`) and say where."""
    if not args.no_report:
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
    request, workers = options(args)
    study = load_config(args, args.config) if args.config is not None else None
    result = run_sweep(study, request, workers)
    stats = sweep_result_stats(result, streamed=stream_runs(result.runs))  # chunk by chunk
    write_points(result, stats)
    lines = [f"{result.study.name}: {len(result.points)} points x {result.study.games:,} games"
             f" on shared seeds -> {result.out_dir}", f"  {sweep_lead(result, stats)}"]  # fmt: skip
    lines += stop_lines(stopped_record(result.meta))  # a sweep run until decided
    if stats.verdict is not None:
        lines.append(stats.verdict.text)
    lines += sweep_findings(stats.table)
    return _said(lines, args, lambda: build_sweep_report(result, request.report, stats, args.force))


def compare(args: argparse.Namespace) -> int:
    """`sim compare A.yaml B.yaml`: both on the same games, differences.csv, the page.
    Labels default to the file names (suffixed (A)/(B) when they are the same); `--set`
    changes both configs; `--seed` replaces A's (B plays on A's seed)."""
    from sim.analysis.paired import compare_runs, summarize_compare
    from sim.analysis.stopping import stop_lines, stopped_record
    from sim.config import load_study
    from sim.report.study_report import build_compare_report, config_diff
    from sim.runs.partials import stream_runs
    from sim.studies.compare import run_compare
    from sim.studies.leads import compare_lead
    from sim.studies.outputs import write_differences

    _games_ok(args.games)
    request, workers = options(args)
    if args.b is None and not args.b_set:
        raise SimError("sim compare: give B's config, or --b-set KEY=VALUE to change A into B")
    a = load_study(args.a, args.set)
    b = load_study(args.b or args.a, [*args.set, *args.b_set])
    if args.labels:
        labels = tuple(args.labels)
    elif args.b is None:
        labels = (Path(args.a).stem, ", ".join(args.b_set))
    else:
        sa, sb = Path(args.a).stem, Path(args.b).stem
        labels = (sa, sb) if sa != sb else (f"{sa} (A)", f"{sb} (B)")
    result = run_compare(a, b, labels, request, workers, independent=args.independent)
    table = compare_runs(
        result.a,
        result.b,
        labels=result.labels,
        paired=not args.independent,
        primary=result.studies[0].primary,
        streamed=stream_runs([result.a, result.b], unpaired=True),  # chunk by chunk
    )
    write_differences(table, result.out_dir)
    lead = compare_lead(result.studies, table, config_diff(*result.studies))
    lines = [lead, *result.meta.get("notes", []), *stop_lines(stopped_record(result.meta)),
             summarize_compare(table)]  # fmt: skip
    return _said(
        lines, args, lambda: build_compare_report(result, request.report, table, args.force)
    )


def tune(args: argparse.Namespace) -> int:
    """`sim tune CONFIG`: the start's check, the search, the selection and the confirmation
    on fresh seeds; tune.json, the recommended (or closest) study as YAML, the page."""
    from sim.report.tune_report import build_tune_report
    from sim.runs.paths import check_page, folder_stem
    from sim.runs.storage import default_folder
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
        lines.append("Pareto set (no other checked config is closer on every target): "
                     + ", ".join(verdict.data["pareto"]))  # fmt: skip
    lines.append(f"{chosen.stem} study: {chosen}")
    return _said(lines, args, lambda: build_tune_report(state.out_dir, request.report, args.force))


def _tune_cause(study, data: dict) -> list[str]:
    """What a one-setting recommendation acts on, in sim advise's groups, and, when the tune
    holds seats to a band, how its question differs from advise's (one sentence)."""
    from sim.studies.fix_candidates import group_of

    changed = data.get("recommended") or {}
    out = []
    if len(changed) == 1:
        try:
            out.append(f"  acts on: {group_of(study.with_overrides(tune=None), changed)}")
        except SimError:
            pass
    seats = [n for n in data.get("targets", {}) if n.startswith(("seat_edge.", "first_player"))]
    if seats:
        out.append(
            "  tune measures the config's own line-up; sim advise asks the same of"
            " equal players at each skill level, with the same groups of changes"
        )
    return out


def advise(args: argparse.Namespace) -> int:
    """`sim advise CONFIG`: fair or not between equal players at several skill levels, why,
    how it plays, and the smallest confirmed fix of each problem; advice.json and the page."""
    from sim.analysis.advice_words import advice_summary
    from sim.report.advise_report import build_advise_report
    from sim.runs.paths import folder_stem
    from sim.runs.storage import default_folder
    from sim.studies.advise import run_advise
    from sim.studies.common import stop_marked
    from sim.studies.outputs import write_advice

    check_resume(args, "advise", "ADVISE_DIR")
    check_count("--budget", args.budget, 1, MAX_GAMES)  # every game it plays
    request, workers = options(args)
    if args.calibrated is not None and args.config is None:
        raise SimError("sim advise: --calibrated goes with a CONFIG; a resumed advice keeps its"
                       " levels")  # fmt: skip
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
    head = (f"{result.state.study.name}: {games['total']:,} games in"
            f" {result.state.wall_s:.0f} s -> {result.state.out_dir}")  # fmt: skip
    # the page's first paragraph first, as every command prints its answer; then the details
    lines = [head, f"  {advice_summary(result.data)}", *result.lines, f"advice: {path}"]
    page = request.report
    return _said(lines, args, lambda: build_advise_report(result, page, args.force))


def turns(args: argparse.Namespace) -> int:
    """`sim turns CONFIG`: turns per seat against deck size for 2–5 players (or --players),
    as a table; with --figure, the same drawn as an SVG file."""
    from sim.report.figures import to_svg, turns_by_deck
    from sim.runs.storage import make_folder, write_text
    from sim.studies.turns import SCAN_GAMES, deck_scan, scan_text

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
        write_text(path, f"{FIGURE_MARK}\n{to_svg(turns_by_deck(scan), 'turns-deck')}")
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
    head, lines = write_value_files(result)
    text = [f"{result.study.name}: {len(result.points)} points on shared seeds"
            f" -> {result.out_dir}", f"  {value_lead(result)}", head, *lines,
            *ablation_lines(result.ablation),
            *cause_lines(result.study, result.ablation)]  # fmt: skip
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
    lines = write_luck_files(result)
    text = [f"{result.study.name}: luck gauge -> {result.out_dir}", f"  {luck_lead(result)}",
            *lines]  # fmt: skip
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
    say(f"replaying {plural(len(games), 'game')} through the engine")
    choices = logged_choices(games, args.seats, say)
    result = fit(choices, holdout=args.holdout, seed=args.seed, min_decisions=args.min_decisions,
                 by_player=args.by == "player", say=say)  # fmt: skip
    studies = {g.study.config_hash(): g.study for g in games}
    seats = ("seats " + ", ".join(map(str, args.seats)) if args.seats
             else "the people's seats, or every seat of a log without people")  # fmt: skip
    about = {
        "name": name,
        "logs": len(paths),
        "seats": seats,
        "studies": [{"name": s.name, "config_hash": h} for h, s in studies.items()],
        "players_found": list(choices.players),
    }
    out_dir = fresh_dir(Path(args.out) if args.out else None, stem, None)
    files = write_calibration_files(result, out_dir, about)
    lines = summary_lines(result, about, out_dir, files)
    if not args.no_report:
        about["studies_yaml"] = [dump_yaml(s.to_yaml_dict()) for s in studies.values()]
        lines.append(f"report: {build_calibrate_report(result, page, out_dir, about, args.force)}")
    print("\n".join(lines))
    return 0
