"""`sim replay` end to end: a game (run folder or log), its continuations, its page.

Everything a user can get wrong (the source, the game index, the steps, the
number of continuations, the policy, the page's path) is checked before any
continuation is played; a long batch of continuations says how far it is.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sim.config import SeatSpec
from sim.config.limits import MAX_FILE_BYTES
from sim.config.yamlio import load_yaml
from sim.errors import SimError
from sim.report.replay_page import write_replay
from sim.runs.partials import run_data
from sim.runs.paths import check_report_path, replay_file
from sim.runs.storage import RunResult
from sim.studies.run_page import Pick, representative
from sim.table import rollout
from sim.table.replay import ReplayGame, default_marks, from_log, from_run, page_data
from sim.table.whatif import MAX_CONTINUATIONS, WhatIf, quick_to_play_on, whatif

DEFAULT_CONTINUATIONS = 200
RUN_PAGE_CONTINUATIONS = 100  # the run report's page: its marked steps, a few seconds
SAY_AFTER_S = 5.0  # a batch longer than this says how far it is


def replay_source(source: str | Path, game: int | None) -> ReplayGame:
    """A run folder's game `game`, or a log file (which names its own game)."""
    path = Path(source)
    if path.is_dir():
        if game is None:
            raise SimError(f"{path}: a run folder; say which game with --game I")
        return from_run(path, game)
    if not path.exists():
        raise SimError(f"{path}: no such run folder or log file")
    if game is not None:
        raise SimError(f"{path}: a log holds one game; leave out --game")
    return from_log(path)


def seat_specs(replay: ReplayGame, policy: str | None) -> tuple[list[SeatSpec] | None, str]:
    """Every seat's player for continuations: the game's own (None), or `--policy` (a name,
    or a YAML seat such as '{policy: heuristic, preset: spoiler}') at every seat."""
    if policy is None:
        people = " (a person's seat by its bot)" if replay.humans else ""
        return None, f"the game's seats{people}"
    try:  # the study files' own loader and limits (nesting, size, aliases)
        value = load_yaml(policy, "--policy") if len(policy) <= MAX_FILE_BYTES else None
    except SimError:
        value = None
    seat = {"policy": value} if isinstance(value, str) else value
    if not isinstance(seat, dict):
        shown = policy if len(policy) <= 60 else policy[:57] + "..."
        raise SimError(f"--policy: {shown!r} is neither a policy name nor a YAML seat")
    players = replay.study.game.players
    study = replay.study.overridden({"seats": [seat] * players}, where="--policy")
    return list(study.seats), f"{study.seats[0].label} at every seat"


def continuations(
    replay: ReplayGame,
    steps: list[int],
    n: int,
    *,
    policy: str | None = None,
    as_seat: int | None = None,
    quiet: bool = False,
) -> dict[int, WhatIf]:
    """The win chances from each step, n continuations each; progress on stderr when slow."""
    last = len(replay.actions)
    for step in steps:
        if not 0 <= step <= last:
            raise SimError(f"--from: step {step} is not in the game (steps 0 to {last})")
    if not 1 <= n <= MAX_CONTINUATIONS:
        raise SimError(f"--continuations must be from 1 to {MAX_CONTINUATIONS:,}, got {n}")
    players = replay.study.game.players
    if as_seat is not None and not 0 <= as_seat < players:
        raise SimError(f"--as-seat must be a seat from 0 to {players - 1}, got {as_seat}")
    seats, label = seat_specs(replay, policy)
    if steps and not quiet and not rollout.is_cached():
        print(
            f"compiling the continuations' game loop (first use, about {rollout.COMPILE_S})…",
            file=sys.stderr,
            flush=True,
        )
    out = {}
    t0 = time.perf_counter()
    said = [t0]

    def progress(done: int, step: int, k: int) -> None:
        now = time.perf_counter()
        if not quiet and now - said[0] > SAY_AFTER_S:
            said[0] = now
            print(
                f"  continuations: step {step} ({k + 1} of {len(steps)}), {done} of {n}"
                f" ({now - t0:.0f} s)",
                file=sys.stderr,
                flush=True,
            )

    for k, step in enumerate(steps):
        out[step] = whatif(
            replay.study,
            replay.seed,
            replay.index,
            replay.actions,
            step,
            n,
            seats=seats,
            policy=label,
            as_seat=as_seat,
            progress=lambda done, step=step, k=k: progress(done, step, k),
        )
    return out


def default_out(source: str | Path, index: int | None) -> Path:
    """RUN_DIR/replay-<I>.html for a run's game `index`; LOG with .html for a log."""
    path = Path(source)
    if path.is_dir():
        return path / replay_file(index if index is not None else 0)
    return path.with_suffix(".html")


def replay_command(
    source: str,
    game: int | None = None,
    *,
    out: str | None = None,
    steps: list[int] | None = None,
    n: int = DEFAULT_CONTINUATIONS,
    policy: str | None = None,
    as_seat: int | None = None,
    force: bool = False,
    quiet: bool = False,
) -> list[str]:
    """Build the replay page of a game; the lines to print. Every flag and the page's path
    are checked before the game is played again."""
    if not 1 <= n <= MAX_CONTINUATIONS:
        raise SimError(f"--continuations must be from 1 to {MAX_CONTINUATIONS:,}, got {n}")
    if as_seat is not None and as_seat < 0:
        raise SimError(f"--as-seat must be a seat number from 0, got {as_seat}")
    if any(step < 0 for step in steps or ()):
        raise SimError(f"--from: steps are counted from 0, got {min(steps)}")
    if Path(source).is_dir() and game is None:
        raise SimError(f"{source}: a run folder; say which game with --game I")
    given = Path(out) if out is not None else default_out(source, game)
    path = check_report_path(given, force)
    replay = replay_source(source, game)
    marked = sorted(set(steps)) if steps else default_marks(replay)
    t0 = time.perf_counter()
    whatifs = continuations(replay, marked, n, policy=policy, as_seat=as_seat, quiet=quiet)
    spent = time.perf_counter() - t0
    write_replay(page_data(replay, whatifs), path)
    lines = [f"replay: {path} ({len(replay.actions)} decisions, {path.stat().st_size:,} bytes)"]
    for step, w in whatifs.items():
        chances = ", ".join(
            f"seat {p} {_pct(e.value)} [{_pct(e.lo)}, {_pct(e.hi)}]" for p, e in enumerate(w.shares)
        )
        lines.append(f"  from step {step}: {chances} ({w.n} continuations, {w.policy})")
    lines.append(f"  continuations took {spent:.1f} s")
    return lines


def run_replay_page(run_dir: Path, index: int, scores: list[int] | None = None) -> Path:
    """The run report's link target: the page of game `index`, with continuations at its
    marked steps when the line-up is quick (the built-in policies but the searching ones).
    `scores`: the game's final scores in the run's tables, when the caller has read them."""
    replay = from_run(run_dir, index, scores)
    marks = default_marks(replay) if quick_to_play_on(replay.study) else []
    whatifs = continuations(replay, marks, RUN_PAGE_CONTINUATIONS, quiet=True)
    return write_replay(page_data(replay, whatifs), Path(run_dir) / replay_file(index))


def representative_replay(run: RunResult, pick: Pick | None = None) -> str:
    """Write the replay page of the run report's representative game (`pick`, when the
    caller has it: then no table is read here); the line to print (a game that cannot be
    replayed here, e.g. a plug-in missing, is said, not raised)."""
    if pick is None:
        pick = representative(run_data(run)[1])  # the same rows the report picked it from
    try:
        path = run_replay_page(Path(run.run_dir), pick.index, pick.scores)
    except SimError as exc:
        return f"replay: game {pick.index} not written: {exc}"
    return f"replay: {path} (the report's representative game {pick.index})"


def _pct(x: float) -> str:
    return "–" if x != x else f"{100 * x:.1f}%"
