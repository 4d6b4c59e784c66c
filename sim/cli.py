"""Command line: argument parsing only; the work lives in the modules it calls.

`main` is the one error boundary: a mistake of the user's or the machine's (a
bad config, a full disk, a read-only folder, a plug-in that fails) ends in one
line `error: ...` and exit code 2; Ctrl-C and SIGTERM stop a run the same way
(exit 130, finished chunks kept); anything else is a bug, shown with its
traceback and a request to report it.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import traceback
from pathlib import Path

from sim.errors import SimError, os_problem

BUG_REPORT = (
    "This is a bug in ifitfits-sim, not a mistake of yours: please report it with the"
    " command, the config and the traceback above."
)
MAX_GAME_INDEX = 100_000_000  # as many games as a run may have (sim.config.MAX_GAMES)


def _cmd_score(args: argparse.Namespace) -> int:
    from sim.engine.position_io import load_position
    from sim.engine.reference import score_position

    print(json.dumps(score_position(load_position(args.position)), indent=2))
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from sim.config import extends_chain, load_study, study_changes, summarize

    study = load_study(args.config, args.set)
    print(summarize(study))
    chain = extends_chain(args.config)
    own = load_study(args.config) if args.set else study
    if len(chain) > 1:
        changes = study_changes(load_study(chain[1]), own)
        print(f"  differs from {chain[1]} (extends): {_count(len(changes), 'setting')}")
        print("".join(f"    {line}\n" for line in changes), end="")
    if args.set:
        changes = study_changes(own, study)
        print(f"  --set changes {_count(len(changes), 'setting')}")
        print("".join(f"    {line}\n" for line in changes), end="")
    return 0


def _count(n: int, word: str) -> str:
    from sim.units import plural

    return plural(n, word)


def _cmd_play(args: argparse.Namespace) -> int:
    from sim.config import load_study
    from sim.engine.render import render
    from sim.table.logfile import write_log
    from sim.table.record import play_recorded
    from sim.units import plural

    if args.replay is not None:
        return _replay_log(args)
    if args.config is None:
        raise SimError("sim play: give a CONFIG file, or --replay LOG")
    study = load_study(args.config)
    if args.seed is not None:
        study = study.with_overrides(seed=args.seed)  # validated like the config's own seed
    if not 0 <= args.game < MAX_GAME_INDEX:
        raise SimError(f"--game must be a game index from 0 to {MAX_GAME_INDEX - 1:,}")
    seed = study.seed
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
    for seat, (score, bonus) in enumerate(zip(result.scores, result.cat_bonus, strict=True)):
        mark = "  winner" if seat in result.winners else ""
        print(f"  seat {seat} ({labels[seat]}): {plural(score, 'point')} ({bonus} from cats){mark}")
    return 0


def _replay_log(args: argparse.Namespace) -> int:
    """`sim play --replay LOG`: check a log against the engine; the first divergence is the
    one error line."""
    from sim.table.logfile import check_log

    if args.log is not None or args.show or args.seed is not None or args.game:
        raise SimError("--replay: checks a log as it is; leave out --seed, --game, --log, --show")
    study = load_config(args, args.config) if args.config is not None else None
    checked = check_log(args.replay, study)
    print(checked.summary())
    return 0


def _cmd_table(args: argparse.Namespace) -> int:
    from sim.table.server import open_table, serve

    study = load_config(args, args.config)
    logs = Path(args.logs) if args.logs else Path("runs") / f"{study.name}-table"
    server = open_table(
        study, args.seat if args.seat else [0], port=args.port, seed=args.seed,
        first_game=args.game, log_dir=logs, pause_s=args.pause,
    )  # fmt: skip
    people = ", ".join(str(p) for p in sorted(server.session.humans))
    print(f"sim table: {server.url}  (people at seat {people}; logs in {logs}/; Ctrl-C stops)")
    sys.stdout.flush()
    serve(server, open_browser=args.open)
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from sim.table.pages import replay_command

    print("\n".join(replay_command(
        args.source, args.game, out=args.out, steps=args.from_steps, n=args.continuations,
        policy=args.policy, as_seat=args.as_seat, force=args.force, quiet=args.quiet,
    )))  # fmt: skip
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from sim.bench import bench_policies, bench_random_play, bench_report, bench_runner

    if args.report:
        bench_report(games=args.games, config_path=args.config, keep=args.keep)
    elif args.policies:
        bench_policies(games=min(args.games, 4000), config_path=args.config)
    elif args.runner:
        bench_runner(games=args.games, config_path=args.config, repeat=args.repeat)
    else:
        bench_random_play(games=args.games, config_path=args.config)
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from sim.report.run_report import default_path
    from sim.runner import run
    from sim.storage import check_report_path

    _check_resume(args, "run", "RUN_DIR")
    if args.resume is not None and args.out is not None:
        raise SimError("--out: a resumed run stays in its folder; leave --out out")
    study = load_config(args, args.config) if args.config is not None else None

    def check_report(study) -> None:  # before any game is played
        if not args.no_report:
            check_report_path(args.report or default_path(study), args.force)

    result = run(
        study,
        out=Path(args.out) if args.out else None,
        resume=Path(args.resume) if args.resume else None,
        quiet=args.quiet,
        games=args.games,
        seed=args.seed,
        before_play=check_report,
        **_worker_args(args),
    )
    from sim.commands import write_run_summary

    summary = write_run_summary(result)
    print(_run_summary(result))
    print(f"  verdict: {summary['verdict']}")
    if not args.no_report:
        from sim.commands import publish_run_report

        lines = publish_run_report(result, args.report, force=args.force, quiet=args.quiet)
        print("\n".join(lines))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    folder = Path(args.run_dir)
    if (folder / "study.json").exists():  # a sweep, comparison or tune folder
        from sim.report.tune_report import build_folder_report

        print(build_folder_report(folder, args.out, force=args.force))
    else:
        from sim.commands import publish_run_report, write_run_summary
        from sim.storage import load_run

        run = load_run(folder)  # read once: the report and summary.json share its partials
        lines = publish_run_report(run, args.out, force=args.force, fresh=False, quiet=args.quiet)
        print("\n".join(lines))
        write_run_summary(run)
    return 0


def _add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--force",
        action="store_true",
        help="let the report replace a file that is not a report (a config, a run file)",
    )


# Every flag a study command may take, in --help order. `add_study_options` gives a
# subcommand all of them but those it leaves out, so every study command (run, sweep,
# compare, tune, turns, and those to come) spells and means them the same way.
STUDY_FLAGS = ("set", "games", "seed", "workers", "out", "resume", "quiet", "report")
STUDY_DEFAULTS = {"set": [], "games": None, "seed": None, "jobs": -1, "backend": None,
                  "scheduler": None, "out": None, "resume": None, "quiet": False,
                  "report": None, "no_report": False, "force": False}  # fmt: skip


def add_study_options(
    p: argparse.ArgumentParser,
    *,
    leave_out: tuple[str, ...] = (),
    games_help: str = "override the config's games",
    folder: str = "run folder (default runs/<name>-<timestamp>)",
    report: str = "reports/<name>.html",
) -> None:
    """The shared flags of the study commands (STUDY_FLAGS, but `leave_out`); read them
    back with `load_config`, `_worker_args` and the `args` attributes of the same name."""
    unknown = set(leave_out) - set(STUDY_FLAGS)
    assert not unknown, unknown
    want = [f for f in STUDY_FLAGS if f not in leave_out]
    if "set" in want:
        p.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="change one setting of the config, e.g. --set deck.sprayers=6 (value read"
            " as YAML; repeatable; a mapping merges key by key)",
        )
    if "games" in want:
        p.add_argument("--games", type=int, default=None, help=games_help)
    if "seed" in want:
        p.add_argument("--seed", type=int, default=None, help="override the config's seed")
    if "workers" in want:
        p.add_argument("--jobs", type=int, default=-1, help="worker processes (default: all cores)")
        p.add_argument(
            "--backend",
            choices=("fork", "loky", "dask"),  # sim.parallel.BACKENDS, without importing joblib
            default=None,
            help="fork: local workers forked from this process (default on Linux);"
            " loky: fresh local processes (default elsewhere); dask: a Dask cluster",
        )
        p.add_argument(
            "--scheduler", default=None, help="Dask scheduler address for --backend dask"
        )
    if "out" in want:
        p.add_argument("--out", default=None, help=folder)
    if "resume" in want:
        p.add_argument("--resume", default=None, metavar="DIR", help="go on with an unfinished one")
    if "quiet" in want:
        p.add_argument("--quiet", action="store_true", help="no progress bar or lines")
    if "report" in want:
        p.add_argument("--report", default=None, help=f"report path (default {report})")
        p.add_argument("--no-report", action="store_true", help="skip the HTML report")
        _add_force(p)
    p.set_defaults(**STUDY_DEFAULTS)  # a flag left out reads as not given


def load_config(args: argparse.Namespace, path: str | None):
    """The study of a config path on the command line, with its `--set` changes."""
    from sim.config import load_study

    return load_study(path, args.set)


def _check_resume(args: argparse.Namespace, command: str, folder: str) -> None:
    """A study command needs a CONFIG or --resume; --set changes a config, not a saved study."""
    if getattr(args, "config", None) is None and args.resume is None:
        raise SimError(f"sim {command}: give a CONFIG file, or --resume {folder}")
    if args.set and getattr(args, "config", None) is None:
        raise SimError(
            "--set: a resumed study keeps its saved settings; give the CONFIG with the same"
            " --set to check it, or leave --set out"
        )


def _worker_args(args: argparse.Namespace) -> dict:
    """The worker options of `add_study_options`, as keyword arguments."""
    return {"jobs": args.jobs, "backend": args.backend, "scheduler": args.scheduler}


def _cmd_sweep(args: argparse.Namespace) -> int:
    from sim.commands import sweep_file

    _check_resume(args, "sweep", "SWEEP_DIR")
    _, _, text = sweep_file(
        args.config,
        sets=args.set,
        no_report=args.no_report,
        games=args.games,
        seed=args.seed,
        out=args.out,
        resume=args.resume,
        report=args.report,
        quiet=args.quiet,
        force=args.force,
        **_worker_args(args),
    )
    print(text)
    return 0


def _cmd_value(args: argparse.Namespace) -> int:
    from sim.commands import value_file

    _, text = value_file(args.config, **_study_args(args))
    print(text)
    return 0


def _cmd_ladder(args: argparse.Namespace) -> int:
    from sim.commands import ladder_file

    _, text = ladder_file(args.config, **_study_args(args))
    print(text)
    return 0


def _cmd_luck(args: argparse.Namespace) -> int:
    from sim.commands import luck_file

    study_args = _study_args(args)
    study_args.pop("games")  # a luck gauge counts deals and replays
    _, text = luck_file(args.config, deals=args.deals, replays=args.replays, **study_args)
    print(text)
    return 0


def _study_args(args: argparse.Namespace) -> dict:
    """The study flags `sim value`, `ladder` and `luck` take, as keyword arguments."""
    return {
        "sets": args.set,
        "games": args.games,
        "seed": args.seed,
        "out": args.out,
        "report": args.report,
        "no_report": args.no_report,
        "quiet": args.quiet,
        "force": args.force,
        **_worker_args(args),
    }


def _cmd_tune(args: argparse.Namespace) -> int:
    from sim.commands import tune_file

    _check_resume(args, "tune", "TUNE_DIR")
    if args.budget is not None and args.budget < 1:
        raise SimError(f"sim tune: --budget must be a number of games >= 1, got {args.budget}")
    _, _, text = tune_file(
        args.config,
        sets=args.set,
        seed=args.seed,
        force=args.force,
        budget=args.budget,
        out=args.out,
        resume=args.resume,
        report=args.report,
        no_report=args.no_report,
        quiet=args.quiet,
        **_worker_args(args),
    )
    print(text)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from sim.commands import compare_files

    labels = tuple(args.labels) if args.labels else None
    _, _, text = compare_files(
        args.a,
        args.b,
        sets=args.set,
        seed=args.seed,
        no_report=args.no_report,
        independent=args.independent,
        labels=labels,
        games=args.games,
        out=args.out,
        report=args.report,
        quiet=args.quiet,
        force=args.force,
        **_worker_args(args),
    )
    print(text)
    return 0


def _cmd_turns(args: argparse.Namespace) -> int:
    from sim.commands import turns_file

    print(
        turns_file(
            args.config,
            sets=args.set,
            seed=args.seed,
            players=args.players,
            **({} if args.games is None else {"games": args.games}),
            figure=args.figure,
        )
    )
    return 0


def _run_summary(result) -> str:
    """A few lines a designer reads first: where the results are, how fast they came, and
    who won how often, each share with its 95% interval (in the report's units)."""
    from sim.analysis.balance import policy_win_shares, seat_win_shares
    from sim.analysis.turns import parity_note
    from sim.report.run_report import report_data
    from sim.units import interval, pct, plural

    moments, view = report_data(result)  # every game's partial results; rows of a sample
    meta, players = result.meta, view.players
    speed = meta.get("games_per_s") or 0
    startup = meta.get("startup_s") or 0
    engine = f"; {startup:.0f} s of it to load the engine" if startup >= 1 else ""
    lines = [
        f"{meta['name']}: {plural(meta['games'], 'game')} in {meta['wall_time_s']:.1f} s"
        f" ({plural(round(speed), 'game/s')}{engine}) -> {result.run_dir}"
    ]
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sim", description="If It Fits balance simulator")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="score a position file (JSON) and print the result")
    p.add_argument("position")
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("validate", help="check a config file without running it")
    p.add_argument("config")
    add_study_options(p, leave_out=tuple(f for f in STUDY_FLAGS if f != "set"))
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("play", help="play one game and print the final scores")
    p.add_argument("config", nargs="?", default=None)
    p.add_argument("--seed", type=int, default=None, help="root seed (default: the config's)")
    p.add_argument("--game", type=int, default=0, help="game index (default 0), as in a run")
    p.add_argument("--log", default=None, help="write the game as JSON Lines to this file")
    p.add_argument("--show", action="store_true", help="print the final table as text")
    p.add_argument(
        "--replay",
        default=None,
        metavar="LOG",
        help="check a --log file (or a sim table log) against the engine and its bots",
    )
    p.set_defaults(func=_cmd_play, set=[])

    p = sub.add_parser("table", help="play a game of the config against its bots in a browser")
    p.add_argument("config")
    p.add_argument(
        "--seat", type=int, nargs="+", default=None, metavar="N",
        help="the seats people play (default 0); several share one screen, taking turns",
    )  # fmt: skip
    p.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free one)")
    p.add_argument("--seed", type=int, default=None, help="root seed (default: a fresh one)")
    p.add_argument("--game", type=int, default=0, help="first game index (each new game: +1)")
    p.add_argument("--logs", default=None, help="folder of the game logs (runs/<name>-table)")
    p.add_argument("--pause", type=float, default=0.8, help="seconds before each bot turn")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    add_study_options(p, leave_out=tuple(f for f in STUDY_FLAGS if f != "set"))
    p.set_defaults(func=_cmd_table)

    p = sub.add_parser("replay", help="an offline page stepping through one game, with what-ifs")
    p.add_argument("source", metavar="RUN_DIR|LOG", help="a run folder (with --game) or a log")
    p.add_argument("--game", type=int, default=None, help="the run's game index")
    p.add_argument("--out", default=None, help="page (default RUN_DIR/replay-I.html, LOG.html)")
    p.add_argument(
        "--from",
        dest="from_steps",
        type=int,
        nargs="+",
        default=None,
        metavar="STEP",
        help="steps to play continuations from (default: start, 1/4, 1/2, 3/4, last decision)",
    )
    p.add_argument("--continuations", type=int, default=200, help="continuations per step")
    p.add_argument(
        "--policy",
        default=None,
        help="who plays the continuations at every seat: a policy name or a YAML seat"
        " (default: the game's own seats)",
    )
    p.add_argument(
        "--as-seat",
        type=int,
        default=None,
        help="re-deal what this seat has not seen (default: reshuffle only the deck)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    _add_force(p)
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("run", help="play a study's games in parallel and save the results")
    p.add_argument("config", nargs="?", default=None)
    add_study_options(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("report", help="(re)build the HTML report of a run, sweep or compare folder")
    p.add_argument("run_dir")
    p.add_argument("--out", default=None, help="report path (default reports/<name>.html)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on long runs")
    _add_force(p)
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("sweep", help="run every point of the config's sweep on shared seeds")
    p.add_argument("config", nargs="?", default=None)
    add_study_options(
        p,
        games_help="games per point",
        folder="sweep folder (default runs/<name>-sweep-<time>)",
        report="reports/<name>-sweep.html",
    )
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser(
        "value", help="what each option and card is worth: restricted play, ablation"
    )
    p.add_argument("config")
    add_study_options(
        p,
        leave_out=("resume",),
        games_help="games per point (default value.games, else the config's, at most 2000)",
        folder="value folder (default runs/<name>-value-<time>)",
        report="reports/<name>-value.html",
    )
    p.set_defaults(func=_cmd_value)

    p = sub.add_parser("ladder", help="skill ladder of policies: matches, ratings and depth")
    p.add_argument("config")
    add_study_options(
        p,
        leave_out=("resume",),
        games_help="games per match (default ladder.games, else 400)",
        folder="ladder folder (default runs/<name>-ladder-<time>)",
        report="reports/<name>-ladder.html",
    )
    p.set_defaults(func=_cmd_ladder)

    p = sub.add_parser("luck", help="how much of the outcome the deal decides (replayed deals)")
    p.add_argument("config")
    add_study_options(
        p,
        leave_out=("resume", "games"),
        folder="luck folder (default runs/<name>-luck-<time>)",
        report="reports/<name>-luck.html",
    )
    p.add_argument("--deals", type=int, default=None, help="deals (default luck.deals, else 200)")
    p.add_argument("--replays", type=int, default=None, help="replays of each deal (default 10)")
    p.set_defaults(func=_cmd_luck)

    p = sub.add_parser("tune", help="search the tune space for settings that meet the targets")
    p.add_argument("config", nargs="?", default=None)
    p.add_argument("--budget", type=int, default=None, metavar="GAMES", help="search games")
    add_study_options(
        p,
        leave_out=("games",),  # --budget is the search's games
        folder="tune folder (default runs/<name>-tune-<time>)",
        report="reports/<name>-tune.html",
    )
    p.set_defaults(func=_cmd_tune)

    p = sub.add_parser("compare", help="paired comparison of two configs on the same games")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--labels", nargs=2, default=None, metavar=("A", "B"))
    p.add_argument(
        "--independent",
        action="store_true",
        help="play B on other seeds than A (unpaired; a calibration for identical configs)",
    )
    add_study_options(
        p,
        leave_out=("resume",),  # not yet: a comparison is played in one go
        games_help="games of each config (default A's)",
        folder="comparison folder (default runs/compare-<A>-<B>-<time>)",
        report="reports/compare-<A>-<B>.html",
    )
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("turns", help="turns per seat against deck size, for 2-5 players")
    p.add_argument("config")
    add_study_options(
        p,
        leave_out=("workers", "out", "resume", "quiet", "report"),  # a quick scan, one core
        games_help="games per deck size (default 300)",
    )
    p.add_argument("--players", type=int, nargs="+", default=None, help="player counts (2-5)")
    p.add_argument("--figure", default=None, help="also draw the table into this SVG file")
    p.set_defaults(func=_cmd_turns)

    p = sub.add_parser("bench", help="games per second of the engine on one core")
    p.add_argument("--games", type=int, default=20000, help="games per player count")
    p.add_argument(
        "--config", default=None, help="study to bench (default configs/base.yaml, if found)"
    )
    p.add_argument(
        "--policies",
        action="store_true",
        help="games and decisions per second of each built-in policy (4p, one core)",
    )
    p.add_argument(
        "--runner",
        action="store_true",
        help="compare bare compiled games with the runner on 1 and 2 workers",
    )
    p.add_argument("--repeat", type=int, default=3, help="--runner: best of this many timings")
    p.add_argument(
        "--report",
        action="store_true",
        help="play --games all-random games, then time the report build and its peak memory",
    )
    p.add_argument("--keep", default=None, metavar="DIR", help="--report: keep the run in DIR")
    p.set_defaults(func=_cmd_bench)
    return parser


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be: a run stops the same way."""


def _on_sigterm(signum, frame) -> None:
    raise _Terminated()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `sim` command and its one error boundary: a user's or the
    machine's mistake is one line `error: ...` and exit code 2, Ctrl-C or SIGTERM exit
    130, a bug its traceback and exit code 1."""
    args = build_parser().parse_args(argv)
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    try:
        return args.func(args)
    except SimError as exc:
        return _error(str(exc))
    except KeyboardInterrupt as exc:
        what = "terminated" if isinstance(exc, _Terminated) else "interrupted"
        print(f"{what}: {exc}" if str(exc) else what, file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except OSError as exc:  # a full disk, a read-only or missing folder, a file in the way
        return _error(os_problem(exc))
    except MemoryError:
        return _error("out of memory; try fewer games, or fewer --jobs")
    except Exception:
        traceback.print_exc()
        print(BUG_REPORT, file=sys.stderr)
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _error(message: str) -> int:
    """Print the one error line (a message never spans lines) and give exit code 2."""
    print("error: " + " ".join(message.split()), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
