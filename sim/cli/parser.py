"""The command line's words: every subcommand, its flags and their help, in one parser.

Every study command takes the same study flags (`add_study_options`), spelt and
meaning the same everywhere; `options` reads them back as the two values the
studies take, a `Request` and `Workers`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.errors import SimError
from sim.runs.options import GAMES, Request, Workers

MAX_GAME_INDEX = 100_000_000  # as many games as a run may have (sim.config.MAX_GAMES)

# Every flag a study command may take, in --help order. `add_study_options` gives a
# subcommand all of them but those it leaves out, so every study command (run, sweep,
# compare, tune, turns, value, ladder, luck) spells and means them the same way.
STUDY_FLAGS = ("set", "games", "until", "seed", "workers", "out", "resume", "quiet", "report")
STUDY_DEFAULTS = {
    "set": [],
    "games": None,
    "until": None,
    "max_games": None,
    "seed": None,
    "jobs": -1,
    "backend": None,
    "scheduler": None,
    "out": None,
    "resume": None,
    "quiet": False,
    "report": None,
    "no_report": False,
    "force": False,
}
UNTIL_COMMANDS = ("run", "sweep", "compare")  # the studies that may stop when decided


def add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--force",
        action="store_true",
        help="let the report replace a file that is not a report (a config, a run file)",
    )


def add_study_options(
    p: argparse.ArgumentParser,
    command: str,
    *,
    leave_out: tuple[str, ...] = (),
) -> None:
    """The shared flags of the study commands (STUDY_FLAGS, but `leave_out`); read them
    back with `options` and `load_config`. `command` names the folder, page and games the
    help shows."""
    unknown = set(leave_out) - set(STUDY_FLAGS)
    assert not unknown, unknown
    want = [f for f in STUDY_FLAGS if f not in leave_out]
    if command not in UNTIL_COMMANDS and "until" in want:
        want.remove("until")
    stem = "<name>" if command == "run" else f"<name>-{command}"
    if command == "compare":
        stem = "compare-<A>-<B>"
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
        meaning, default = GAMES[command]
        p.add_argument("--games", type=int, default=None, help=f"{meaning} (default: {default})")
    if "until" in want:
        p.add_argument(
            "--until",
            default=None,  # checked with the other flags: one line (sim.runs.until.UNTIL)
            metavar="decided",
            help="decided: play chunk by chunk and stop once every question of the study"
            " (each target, the primary metric, else the first-player advantage) is decided"
            " by its anytime-valid interval, or at --max-games",
        )
        p.add_argument(
            "--max-games",
            type=int,
            default=None,
            metavar="N",
            help="with --until decided: at most N games"
            + (
                " per point"
                if command == "sweep"
                else " of each config"
                if command == "compare"
                else ""
            )
            + " (default: 10 times the config's games)",
        )
    if "seed" in want:
        p.add_argument("--seed", type=int, default=None, help="override the config's seed")
    if "workers" in want:
        p.add_argument("--jobs", type=int, default=-1, help="worker processes (default: all cores)")
        p.add_argument(
            "--backend",
            choices=("fork", "loky", "dask"),  # sim.runs.parallel.BACKENDS, without joblib
            default=None,
            help="fork: local workers forked from this process (default on Linux);"
            " loky: fresh local processes (default elsewhere); dask: a Dask cluster",
        )
        p.add_argument(
            "--scheduler", default=None, help="Dask scheduler address for --backend dask"
        )
    if "out" in want:
        what = "run" if command == "run" else command
        p.add_argument("--out", default=None, help=f"{what} folder (default runs/{stem}-<time>)")
    if "resume" in want:
        p.add_argument("--resume", default=None, metavar="DIR", help="go on with an unfinished one")
    if "quiet" in want:
        p.add_argument("--quiet", action="store_true", help="no progress bar or lines")
    if "report" in want:
        p.add_argument("--report", default=None, help=f"report path (default reports/{stem}.html)")
        p.add_argument("--no-report", action="store_true", help="skip the HTML report")
        add_force(p)
    p.set_defaults(**STUDY_DEFAULTS)  # a flag left out reads as not given


def options(args: argparse.Namespace) -> tuple[Request, Workers]:
    """The study flags as the two values every study takes."""
    request = Request(
        out=Path(args.out) if args.out else None,
        resume=Path(args.resume) if args.resume else None,
        games=args.games,
        seed=args.seed,
        report=Path(args.report) if args.report else None,
        no_report=args.no_report,
        force=args.force,
        until=args.until,
        max_games=args.max_games,
        feel=not getattr(args, "no_feel", False),
    )
    return request, Workers(args.jobs, args.backend, args.scheduler, args.quiet)


def load_config(args: argparse.Namespace, path: str | None):
    """The study of a config path on the command line, with its `--set` changes; a target on
    a feel metric the command cannot hold it to is one line, before any game."""
    from sim.config import load_study

    study = load_study(path, args.set)
    check_feel_targets(study, args.command, not getattr(args, "no_feel", False))
    return study


# Every command that checks targets holds a feel metric (sim.metrics.FEEL_METRICS) to one,
# its interval widened by the judging model's own noise (sim.runs.chances.feel_noise): `sim
# run` and `sim sweep` by one model for every point; `sim tune` and `sim map` search or fit
# with the start's model and check each config by its own; `sim advise` judges the feel at the
# diagnosis and the confirmation, each level by its own model.
def check_feel_targets(study, command: str, feel: bool) -> None:
    from sim.metrics import FEEL_METRICS, KINGMAKING
    from sim.specs import is_plugin

    targets = {**study.targets, **(study.tune.targets if study.tune else {})}
    if KINGMAKING.name in targets:
        if command in ("sweep", "tune", "map", "advise"):  # the commands that check targets
            raise SimError(
                f"targets.kingmaking: it is measured on a sample of one run's games after they"
                f" are played; sim {command} cannot hold it to a target (sim run can)"
            )
        if not feel:
            raise SimError(
                "targets.kingmaking: it reads the chances of winning; leave out --no-feel"
            )
    named = [m.name for m in FEEL_METRICS if m.name in targets]
    if not named:
        return
    if not feel:
        raise SimError(f"targets.{named[0]}: --no-feel leaves the feel unmeasured; leave it out")
    block = {"map": study.map, "tune": study.tune}.get(command)
    if block and "players" in (block.space or {}):
        raise SimError(
            f"targets.{named[0]}: sim {command} judges the feel with a model of one player"
            f" count, and {command}.space moves it; leave players out of the space, or"
            f" {command} each count"
        )
    if any(is_plugin(seat.policy) for seat in study.seats):
        raise SimError(
            f"targets.{named[0]}: the feel is not measured with a designer's own policy at the"
            " table (its pilot games would call it from Python thousands of times)"
        )


def stderr_lines(quiet: bool):
    """What a long step says as it goes, one line at a time on stderr (None when --quiet)."""
    return None if quiet else (lambda text: print(text, file=sys.stderr))


def check_feel_flags(args: argparse.Namespace) -> None:
    """--all-chances needs the feel: one line before any game when --no-feel comes with it."""
    for flag in ("all_chances", "kingmaking"):
        if getattr(args, flag, False) and args.no_feel:
            name = "--" + flag.replace("_", "-")
            raise SimError(f"{name}: it needs the chances of winning; leave out --no-feel")


def check_kingmaking(study, why: str = "--kingmaking") -> None:
    """Kingmaking's continuations play built-in policies only: one line, before any game."""
    from sim.specs import is_plugin

    if any(is_plugin(seat.policy) for seat in study.seats):
        raise SimError(f"{why}: the continuations play built-in policies only")


def check_count(flag: str, value: int | None, lo: int, hi: int) -> None:
    """A count given on the command line (--games, --budget, --deals, ...) is a whole number
    from `lo` to `hi`, else one error line before any game; None (not given) passes."""
    if value is None or lo <= value <= hi:
        return
    shown = f"a number of {len(str(abs(value)))} digits" if abs(value) >= 10**18 else f"{value:,}"
    raise SimError(f"{flag} must be from {lo:,} to {hi:,}, got {shown}")


def check_resume(args: argparse.Namespace, command: str, folder: str) -> None:
    """A study command needs a CONFIG or --resume; --set changes a config, not a saved study."""
    if getattr(args, "config", None) is None and args.resume is None:
        raise SimError(f"sim {command}: give a CONFIG file, or --resume {folder}")
    if args.set and getattr(args, "config", None) is None:
        raise SimError(
            "--set: a resumed study keeps its saved settings; give the CONFIG with the same"
            " --set to check it, or leave --set out"
        )


def _score(sub) -> None:
    """`sim score`."""
    p = sub.add_parser("score", help="score a position file (JSON) and print the result")
    p.add_argument("position")


def _validate(sub) -> None:
    """`sim validate`."""
    p = sub.add_parser("validate", help="check a config file without running it")
    p.add_argument("config")
    add_study_options(p, "run", leave_out=tuple(f for f in STUDY_FLAGS if f != "set"))


def _play(sub) -> None:
    """`sim play`."""
    p = sub.add_parser("play", help="play one game and print the final scores")
    p.add_argument("config", nargs="?", default=None)
    p.add_argument("--seed", type=int, default=None, help="root seed (default: the config's)")
    p.add_argument("--game", type=int, default=0, help="game index (default 0), as in a run")
    p.add_argument("--log", default=None, help="write the game as JSON Lines to this file")
    p.add_argument("--show", action="store_true", help="print the final table as text")
    p.add_argument(
        "--force", action="store_true", help="let --log replace a file that is not a log"
    )
    p.add_argument(
        "--replay",
        default=None,
        metavar="LOG",
        help="check a --log file (or a sim table log) against the engine and its bots",
    )
    p.set_defaults(set=[])


def _table(sub) -> None:
    """`sim table`."""
    p = sub.add_parser("table", help="play a game of the config against its bots in a browser")
    p.add_argument("config")
    p.add_argument(
        "--seat",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="the seats people play (default 0); several share one screen, taking turns",
    )
    p.add_argument(
        "--name",
        nargs="+",
        default=None,
        metavar="NAME",
        help="the people's names, one per --seat in order (logged, for sim calibrate --by player)",
    )
    p.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free one)")
    p.add_argument("--seed", type=int, default=None, help="root seed (default: a fresh one)")
    p.add_argument("--game", type=int, default=0, help="first game index (each new game: +1)")
    p.add_argument("--logs", default=None, help="folder of the game logs (runs/<name>-table)")
    p.add_argument("--pause", type=float, default=0.8, help="seconds before each bot turn")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    add_study_options(p, "run", leave_out=tuple(f for f in STUDY_FLAGS if f != "set"))


def _replay(sub) -> None:
    """`sim replay`."""
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
    add_force(p)


def _plain_study(name: str, help: str, feel: tuple[str, ...] = ()):
    """The parser of a study command that takes a config, the study options and `feel`'s
    flags (of FEEL_FLAGS), and nothing of its own."""

    def add(sub) -> None:
        p = sub.add_parser(name, help=help)
        p.add_argument("config", nargs="?", default=None)
        add_study_options(p, name)
        add_feel_options(p, feel)

    add.__doc__ = f"`sim {name}`."
    return add


# The feel's switches: each a flag that is on or off, with its help line.
FEEL_FLAGS = {
    "--no-feel": "do not measure how the game feels (chances of winning, suspense, surprise)",
    "--all-chances": "winprob.parquet with every game's chances (default: 2,000 games')",
    "--kingmaking": "measure kingmaking (3-5 players) on 100 of the games (of each side, in a"
    " comparison): a minute or so each",
}


def add_no_feel(p: argparse.ArgumentParser) -> None:
    """--no-feel: no chance curves (the games' feel columns, the page's "How it feels")."""
    add_feel_options(p, ("--no-feel",))


def add_feel_options(p: argparse.ArgumentParser, flags=tuple(FEEL_FLAGS)) -> None:
    """A run's feel flags (`sim run`, `sim report`: all of FEEL_FLAGS), or some of them."""
    for flag in flags:
        p.add_argument(flag, action="store_true", help=FEEL_FLAGS[flag])


def _report(sub) -> None:
    """`sim report`."""
    p = sub.add_parser("report", help="(re)build the HTML report of a run, sweep or compare folder")
    p.add_argument("run_dir")
    p.add_argument("--out", default=None, help="report path (default reports/<name>.html)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on long runs")
    add_force(p)
    add_feel_options(p)


def _luck(sub) -> None:
    """`sim luck`."""
    p = sub.add_parser("luck", help="how much of the outcome the deal decides (replayed deals)")
    p.add_argument("config", nargs="?", default=None)
    add_study_options(p, "luck", leave_out=("games",))
    p.add_argument("--deals", type=int, default=None, help="deals (default luck.deals, else 200)")
    p.add_argument("--replays", type=int, default=None, help="replays of each deal (default 10)")


def _tune(sub) -> None:
    """`sim tune`."""
    p = sub.add_parser("tune", help="search the tune space for settings that meet the targets")
    p.add_argument("config", nargs="?", default=None)
    p.add_argument("--budget", type=int, default=None, metavar="GAMES", help="search games")
    add_study_options(p, "tune", leave_out=("games",))  # --budget counts the games


def _compare(sub) -> None:
    """`sim compare`."""
    p = sub.add_parser("compare", help="paired comparison of two configs on the same games")
    p.add_argument("a", nargs="?", default=None, help="A's config (none with --resume)")
    p.add_argument("b", nargs="?", default=None, help="B's config (default: A, with --b-set)")
    p.add_argument(
        "--b-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change one setting of B only (B is A when no B is given): a what-if in one line",
    )
    p.add_argument("--labels", nargs=2, default=None, metavar=("A", "B"))
    p.add_argument(
        "--independent",
        action="store_true",
        help="play B on other seeds than A (unpaired; a calibration for identical configs)",
    )
    add_study_options(p, "compare")
    add_feel_options(p, ("--no-feel", "--kingmaking"))


def _advise(sub) -> None:
    """`sim advise`."""
    p = sub.add_parser("advise", help="is it fair, why, how it plays, and the smallest fix")
    p.add_argument("config", nargs="?", default=None)
    p.add_argument("--budget", type=int, default=None, metavar="GAMES", help="every game it plays")
    p.add_argument(
        "--calibrated",
        default=None,
        metavar="FILE",
        help="a calibrated.yaml (sim calibrate): players like yours, one more level",
    )
    add_study_options(p, "advise", leave_out=("games",))  # --budget counts the games


def _map(sub) -> None:
    """`sim map`."""
    p = sub.add_parser(
        "map", help="the design-space map: which counts matter, the region, a what-if page"
    )
    p.add_argument("config", nargs="?", default=None, help="a config, or a map folder to ask")
    p.add_argument(
        "--predict",
        action="store_true",
        help="with a map folder and --set KEY=VALUE: print the emulated metrics there (JSON)",
    )
    p.add_argument(
        "--budget", type=int, default=None, metavar="GAMES", help="every game it plays, at most"
    )
    add_study_options(p, "map")


def _turns(sub) -> None:
    """`sim turns`."""
    p = sub.add_parser("turns", help="turns per seat against deck size, for 2-5 players")
    p.add_argument("config")
    add_study_options(
        p, "turns", leave_out=("workers", "out", "resume", "quiet", "report")
    )  # a quick scan, one core
    p.add_argument("--players", type=int, nargs="+", default=None, help="player counts (2-5)")
    p.add_argument("--figure", default=None, help="also draw the table into this SVG file")
    p.add_argument(
        "--force", action="store_true", help="let --figure replace a file that is not a figure"
    )


def _calibrate(sub) -> None:
    """`sim calibrate`."""
    p = sub.add_parser(
        "calibrate", help="fit the heuristic's weights and temperature to logged games"
    )
    p.add_argument(
        "logs", nargs="+", metavar="LOG", help="game logs (sim play --log, sim table) or folders"
    )
    p.add_argument("--config", default=None, help="the logs must be of this config")
    p.add_argument(
        "--seats",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="table seats to fit (default: the people's seats of each log; every seat of a"
        " log without people)",
    )
    p.add_argument(
        "--by",
        choices=("player",),
        default=None,
        help="also one fit per player (the logs' names) and a test that the players differ",
    )
    p.add_argument(
        "--holdout", type=float, default=0.25, help="share of the games held out (default 0.25)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the held-out draw and the bootstrap (0)"
    )
    p.add_argument(
        "--min-decisions",
        type=int,
        default=300,
        metavar="N",
        help="warn about a weight with fewer informative decisions than this (default 300)",
    )
    p.add_argument("--out", default=None, help="folder (default runs/<name>-calibrate-<time>)")
    p.add_argument("--report", default=None, help="page (default reports/<name>-calibrate.html)")
    p.add_argument("--no-report", action="store_true", help="skip the HTML page")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_force(p)


def _bench(sub) -> None:
    """`sim bench`."""
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
    p.add_argument(
        "--share",
        default=None,
        metavar="COMMAND",
        help="run sim COMMAND --config's study (tune, advise, map, run, ...) in a fresh process:"
        " the share of its CPU spent playing games",
    )


COMMANDS = (
    _score,
    _validate,
    _play,
    _table,
    _replay,
    _plain_study("run", "play a study's games in parallel and save the results", tuple(FEEL_FLAGS)),
    _report,
    _plain_study(
        "sweep",
        "run every point of the config's sweep on shared seeds",
        ("--no-feel", "--kingmaking"),
    ),
    _plain_study("value", "what each option and card is worth: restricted play, ablation"),
    _plain_study("ladder", "skill ladder of policies: matches, ratings and depth"),
    _luck,
    _tune,
    _compare,
    _advise,
    _map,
    _turns,
    _calibrate,
    _bench,
)


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand of `sim` and its flags (one function each, in the order `sim --help`
    lists them); `sim.cli.main` calls the function of `sim.cli.commands` that bears the
    subcommand's name."""
    parser = argparse.ArgumentParser(prog="sim", description="If It Fits balance simulator")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(sub)
    return parser
