"""One function per `sim` command: load, call the study, write its files and page, print.

Each takes the parsed arguments and returns an exit code; the work lives in
`sim.runs` (playing), `sim.studies` (the studies and their files), `sim.analysis`
(numbers and sentences) and `sim.report` (pages). Heavy modules are imported in
the command that needs them, so `sim validate` and `sim --help` start fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sim.cli.parser import (
    MAX_GAME_INDEX,
    check_feel_flags,
    check_kingmaking,
    check_resume,
    load_config,
    options,
    stderr_lines,
)
from sim.errors import SimError
from sim.metrics import KINGMAKING
from sim.runs import pulse
from sim.runs.paths import check_output_path
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
    from sim.table.server import open_table, serve

    study = load_config(args, args.config)
    logs = Path(args.logs) if args.logs else Path("runs") / f"{study.name}-table"
    server = open_table(
        study,
        args.seat if args.seat else [0],
        port=args.port,
        seed=args.seed,
        first_game=args.game,
        log_dir=logs,
        pause_s=args.pause,
        names=args.name,
    )
    people = ", ".join(str(p) for p in sorted(server.session.humans))
    print(f"sim table: {server.url}  (people at seat {people}; logs in {logs}/; Ctrl-C stops)")
    sys.stdout.flush()
    serve(server, open_browser=args.open)
    return 0


def replay(args: argparse.Namespace) -> int:
    """`sim replay RUN_DIR --game I` (or a log): an offline page stepping through the game,
    with what-if continuations from its marked steps."""
    from sim.table.pages import replay_command

    print(
        "\n".join(
            replay_command(
                args.source,
                args.game,
                out=args.out,
                steps=args.from_steps,
                n=args.continuations,
                policy=args.policy,
                as_seat=args.as_seat,
                force=args.force,
                quiet=args.quiet,
            )
        )
    )
    return 0


def bench(args: argparse.Namespace) -> int:
    """`sim bench`: the engine's, the runner's, the policies' or the report's speed."""
    from sim.bench.engine import bench_policies, bench_random_play, bench_report, bench_runner

    if args.keep is not None and not args.report:
        raise SimError("--keep DIR keeps the run of --report; add --report, or leave --keep out")
    if args.share is not None:
        from sim.bench.share import bench_share

        if args.config is None:
            raise SimError("--share COMMAND runs the study of --config FILE; add --config")
        bench_share(args.share, args.config)
    elif args.report:
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
    check_feel_flags(args)
    if args.resume is not None and args.out is not None:
        raise SimError("--out: a resumed run stays in its folder; leave --out out")
    request, workers = options(args)
    study = load_config(args, args.config) if args.config is not None else None
    # a target on kingmaking measures it as --kingmaking does, before summary.json's verdicts
    wanted = study is not None and KINGMAKING.name in study.targets
    if study is not None and (args.kingmaking or wanted):
        check_kingmaking(study, "targets.kingmaking" if wanted else "--kingmaking")
        if wanted and args.until is not None:
            raise SimError(
                "targets.kingmaking: --until decided cannot stop on it (it is measured on a"
                " sample of the games once they are played); leave --until out"
            )
    result = run_study(study, request, workers)
    moments, view = run_data(result)  # every game's partial results; rows of a sample
    measured = None
    if args.kingmaking or (_wants_kingmaking(result) and not _has_kingmaking(result)):
        measured = kingmaking(result, args.quiet)
    summary = write_run_summary(result, moments, view)
    print(run_lines(result, moments, view, summary["headline"]))
    if measured:
        print(f"  {measured}")
    print("".join(f"  {line}\n" for line in stop_lines(stopped_record(result.meta))), end="")
    print(f"  the tests behind this: {Path(result.run_dir) / 'summary.json'} (verdict)")
    if args.all_chances:
        all_chances(result, args.quiet)
    if not args.no_report:
        pulse.doing("building the page")
        feel = not args.no_feel
        print("\n".join(publish(result, args.report, args.force, True, args.quiet, feel)))
    return 0


def _wants_kingmaking(result) -> bool:
    """Does the run's config (a resumed run's as saved) hold kingmaking to a target?"""
    return KINGMAKING.name in (result.meta["config"].get("targets") or {})


def _has_kingmaking(result) -> bool:
    """Has the run folder its kingmaking sample already (a resumed run measured it before)?"""
    from sim.runs.paths import KINGMAKING_FILE

    return (Path(result.run_dir) / KINGMAKING_FILE).is_file()


def kingmaking(result, quiet: bool) -> str:
    """The run's kingmaking sample (`sim.table.kingmaking`, for --kingmaking or a target on
    it), in one line to print; summary.json, written after it, holds its rate."""
    from sim.table.kingmaking import run_kingmaking

    pulse.doing("measuring kingmaking")
    data = run_kingmaking(result.run_dir, stderr_lines(quiet))
    if data["players"] <= 2:
        return "kingmaking: none with two players (no other seat to crown)"
    return (
        f"kingmaking: {data['kingmaking']} of {data['examined']} decisions of seats below"
        f" {data['epsilon']:.0%} chance crown another winner, {_share(data)}"
        f" ({data['games']} games)"
    )


def _share(data: dict) -> str:
    if data["rate"] is None:
        return "no such decision"
    return f"{data['rate']:.0%} [{data['lo']:.0%}, {data['hi']:.0%}]"


def all_chances(result, quiet: bool) -> None:
    """--all-chances: every game's chances in the run's winprob.parquet, or one line why not."""
    from sim.runs.chances import write_all_chances

    pulse.doing("writing every game's chances")
    path = write_all_chances(result, stderr_lines(quiet))
    if path is None:
        raise SimError("--all-chances: this run did not measure the feel (it ran with --no-feel)")
    print(f"chances: {path}")


def report(args: argparse.Namespace) -> int:
    """`sim report FOLDER`: rebuild the page of a run, sweep, comparison, tune, value,
    ladder or luck folder (and a run's summary.json)."""
    folder = Path(args.run_dir)
    check_feel_flags(args)
    pulse.doing("building the page")
    if (folder / "study.json").exists():  # a study folder: its page renders its files
        from sim.report.tune_report import build_folder_report

        print(build_folder_report(folder, args.out, force=args.force))
        return 0
    from sim.runs import load_run
    from sim.runs.partials import run_data
    from sim.runs.results import TABLES
    from sim.studies.outputs import SUMMARY_FILE, write_run_summary

    result = load_run(folder)  # read once: the page and summary.json share its partials
    result.require(*TABLES)  # a page reads every table (a candidate run keeps two)
    check_pages(result, args.out, args.force)  # before the kingmaking's games
    if args.all_chances:
        all_chances(result, args.quiet)
    sampled = args.kingmaking or (_wants_kingmaking(result) and not _has_kingmaking(result))
    if sampled:
        print(kingmaking(result, args.quiet))
    print("\n".join(publish(result, args.out, args.force, False, args.quiet, not args.no_feel)))
    # the run wrote summary.json from the same rows; it changes only with a new kingmaking
    # sample (or is written again if it is gone)
    if sampled or not (folder / SUMMARY_FILE).is_file():
        write_run_summary(result, *run_data(result))
    return 0


def check_pages(run, out: str | None, force: bool) -> None:
    """Refuse, in one line, a run's page at its shared path (`out`, else the study's) or in
    its folder (a run inside a study's folder) that may not be written."""
    from sim.report.publish import RUN_REPORT_FILE
    from sim.runs.paths import check_report_path, page_path
    from sim.runs.storage import saved_study

    study = saved_study(run.meta, Path(run.run_dir) / "run.json", plugins=False)
    check_report_path(page_path("run", study, out), force)
    check_report_path(Path(run.run_dir) / RUN_REPORT_FILE, force)


def publish(
    run, out: str | None, force: bool, fresh: bool, quiet: bool, feel: bool = True
) -> list[str]:
    """A run's page in its folder and at its shared path, with its played parts (the deck
    scan and the representative game, `sim.studies.run_page`); the lines to print."""
    import time

    from sim.report.publish import publish_run_report
    from sim.report.run_report import progress
    from sim.runs.parallel import side_process
    from sim.runs.partials import run_data
    from sim.runs.storage import RunResult
    from sim.studies.run_page import page_plays, representative
    from sim.table.pages import representative_replay

    check_pages(run, out, force)  # before playing the page's parts
    say = progress(run, time.perf_counter(), quiet)
    _, view = run_data(run, say)
    pick = representative(view)  # from the rows the page reads here: the side process reads none
    say("playing the page's parts: turns against deck size, the representative game")
    bare = RunResult(run.run_dir, run.meta)  # what is sent there: its folder, not its rows
    with side_process() as ahead:  # played on the other core while this one writes the page
        plays, replay = ahead(page_plays, bare, pick), ahead(representative_replay, bare, pick)
        lines = publish_run_report(
            run, plays, out, force=force, fresh=fresh, quiet=quiet, feel=feel
        )
        return [lines[0], replay.result(), *lines[1:]]


def run_lines(result, moments, view, headline: str = "") -> str:
    """A few lines a designer reads first: where the results are, how fast they came, the
    short answer (`headline`, as the page opens), and who won how often, each share with its
    95% interval (in the report's units)."""
    from sim.analysis.balance import policy_win_shares, seat_win_shares
    from sim.analysis.turn_split import parity_note
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


# The study commands live in their own module; `sim.cli.main` finds every command here.
from sim.cli.study_commands import (  # noqa: E402
    advise,
    calibrate,
    compare,
    ladder,
    luck,
    map_,
    sweep,
    tune,
    turns,
    value,
)

map = map_  # noqa: A001 (`sim map`: main calls the function named as the command)

__all__ = ["advise", "calibrate", "compare", "ladder", "luck", "map", "sweep", "tune", "turns"]
__all__ += ["value"]
