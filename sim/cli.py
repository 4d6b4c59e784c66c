"""Command line: argument parsing only; the work lives in the modules it calls."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sim.errors import SimError


def _cmd_score(args: argparse.Namespace) -> int:
    from sim.engine.position_io import load_position
    from sim.engine.reference import score_position

    print(json.dumps(score_position(load_position(args.position)), indent=2))
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from sim.config import load_study, summarize

    print(summarize(load_study(args.config)))
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from sim.config import load_study
    from sim.engine.render import render
    from sim.play import play_one

    study = load_study(args.config)
    seed = study.seed if args.seed is None else args.seed
    game = play_one(study, seed, log=args.log is not None)
    result = game.outcome()
    if args.log is not None:
        path = Path(args.log)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8") as out:
                for event in game.events():
                    out.write(json.dumps(event) + "\n")
        except OSError as exc:
            raise SimError(f"{path}: cannot write the log: {exc.strerror}") from None
    if args.show:
        print(render(game.position()))
    labels = [seat.label for seat in study.seats]
    print(f"{study.name}: seed {seed}, {game.turns} turns, end by {game.trigger}")
    for seat, (score, bonus) in enumerate(zip(result.scores, result.cat_bonus, strict=True)):
        mark = "  winner" if seat in result.winners else ""
        print(f"  seat {seat} ({labels[seat]}): {score} points ({bonus} from cats){mark}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from sim.bench import bench_random_play

    bench_random_play(games=args.games, config_path=args.config)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sim", description="If It Fits balance simulator")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="score a position file (JSON) and print the result")
    p.add_argument("position")
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("validate", help="check a config file without running it")
    p.add_argument("config")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("play", help="play one game and print the final scores")
    p.add_argument("config")
    p.add_argument("--seed", type=int, default=None, help="root seed (default: the config's)")
    p.add_argument("--log", default=None, help="write the game as JSON Lines to this file")
    p.add_argument("--show", action="store_true", help="print the final table as text")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("bench", help="games per second of the engine on one core")
    p.add_argument("--games", type=int, default=20000, help="games per player count")
    p.add_argument("--config", default="configs/base.yaml")
    p.set_defaults(func=_cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `sim` command; user errors become one line and exit code 2."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
