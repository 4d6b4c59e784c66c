"""`sim bench`: games per second of the compiled engine on one core."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from sim.config import StudyConfig, load_study, parse_study
from sim.errors import SimError
from sim.runs.compile_watch import compile_heartbeat
from sim.runs.paths import check_report_path
from sim.runs.play import compile_note

MAX_BENCH_GAMES = 10_000_000
MAX_REPEAT = 100
FIRST_USE = "first use since install or upgrade"  # a compiled piece of its own, not a loop
BASE = Path("configs") / "base.yaml"


def bench_study(config_path: str | Path | None) -> StudyConfig:
    """The config a benchmark plays: `config_path`, else configs/base.yaml here or in the
    repository this package was installed from, else the built-in defaults."""
    if config_path is not None:
        return load_study(config_path)
    for path in (BASE, Path(__file__).resolve().parents[2] / BASE):
        if path.is_file():
            return load_study(path)
    print("no configs/base.yaml here: the built-in default game, every seat random")
    return parse_study({"name": "defaults"}, "<defaults>")


def check_count(option: str, value: int, lo: int, hi: int) -> None:
    """Refuse a count option outside lo..hi, naming it."""
    if not lo <= value <= hi:
        shown = value if abs(value) < 10**20 else "a huge number"
        raise SimError(f"{option} must be from {lo:,} to {hi:,}, got {shown}")


def bench_random_play(games: int = 20000, config_path: str | None = None) -> list[dict]:
    """Random play at 2-5 players on the config's game; prints and returns one row each."""
    from sim.engine.fastplay import bench_random
    from sim.runs.lineup import engine_for

    check_count("--games", games, 1, MAX_BENCH_GAMES)
    study = bench_study(config_path)
    t0 = time.perf_counter()
    engine = engine_for(study.game)
    with compile_heartbeat("the random-play kernel", note=FIRST_USE):
        bench_random(engine.pr, engine.blank, study.seed, 0, 1)
    startup = time.perf_counter() - t0
    print(f"start-up (import, compile or load the compile cache): {startup:.2f} s")
    print(f"{'players':>7} {'games':>7} {'games/s':>9} {'median turns':>13}")
    rows = []
    for players in (2, 3, 4, 5):
        game = study.game.model_copy(update={"players": players})
        engine = engine_for(game)
        bench_random(engine.pr, engine.blank, study.seed, 0, 1)  # warm: compile per shape
        turns = np.empty(games, np.int64)
        t = time.perf_counter()
        chunk = 1000
        for first in range(0, games, chunk):
            n = min(chunk, games - first)
            turns[first : first + n] = _turns_each(engine, study.seed, first, n)
        rate = games / (time.perf_counter() - t)
        row = {
            "players": players,
            "games": games,
            "games_per_s": rate,
            "median_turns": float(np.median(turns)),
        }
        rows.append(row)
        print(f"{players:>7} {games:>7} {rate:>9,.0f} {row['median_turns']:>13.0f}")
    return rows


def _turns_each(engine, seed: int, first: int, count: int) -> np.ndarray:
    from sim.engine.fastplay import random_turns

    return random_turns(engine.pr, engine.blank, seed, first, count)


def bench_runner(games: int = 10000, config_path: str | None = None, repeat: int = 3) -> list[dict]:
    """Bare compiled games vs the runner (default backend) on 1 and 2 workers, for three
    line-ups; each figure is the best of `repeat` timings, as machine noise only slows."""
    import shutil
    import tempfile
    from pathlib import Path

    from sim.runs import Request, Workers, run
    from sim.runs.lineup import engine_for, lineup_policies, lineup_slots
    from sim.runs.loop import play_chunk

    check_count("--games", games, 1, MAX_BENCH_GAMES)
    check_count("--repeat", repeat, 1, MAX_REPEAT)
    base = bench_study(config_path)
    players = base.game.players
    lineups = {
        "config": base,
        "all random": base.with_overrides(seats=[{"policy": "random"}] * players),
        "all greedy": base.with_overrides(seats=[{"policy": "greedy"}] * players),
    }
    print(f"{games} games per line-up, best of {repeat}")
    print(
        f"{'line-up':<12} {'bare 1 core':>12} {'runner 1':>10} {'runner 2':>10}"
        f" {'overhead':>9} {'2 vs 1':>7} {'cores 1':>8}"
    )

    def best_rate(play, *args) -> tuple[float, float]:
        """Games/s of the fastest of `repeat` timings, and the cores that one kept busy (this
        process's CPU time over its wall time: one worker's finishing thread shows here)."""
        best, busy = math.inf, 0.0
        for _ in range(repeat):
            t, cpu = time.perf_counter(), time.process_time()
            play(*args)
            wall = time.perf_counter() - t
            if wall < best:
                best, busy = wall, (time.process_time() - cpu) / wall
        return games / best, busy

    def run_in_temp(study, jobs):
        out = Path(tempfile.mkdtemp())
        try:
            run(study, Request(out=out / "run", no_report=True), Workers(jobs, quiet=True))
        finally:
            shutil.rmtree(out, ignore_errors=True)

    rows = []
    for name, study in lineups.items():
        study = study.with_overrides(games=games)
        engine = engine_for(study.game)
        slots = lineup_slots(study, 0, games)
        codes, params = lineup_policies(study)
        with compile_heartbeat(f"the game loop for {name}", note=compile_note()):
            play_chunk(engine.pr, engine.blank, study.seed, 0, 2, slots[:2], codes, params)
        bare, _ = best_rate(
            play_chunk, engine.pr, engine.blank, study.seed, 0, games, slots, codes, params
        )
        (one, cores), (two, _) = (best_rate(run_in_temp, study, jobs) for jobs in (1, 2))
        row = {"lineup": name, "bare": bare, "runner_1": one, "runner_2": two, "cores_1": cores}
        rows.append(row)
        print(
            f"{name:<12} {bare:>12,.0f} {one:>10,.0f} {two:>10,.0f}"
            f" {1 - one / bare:>9.1%} {two / one:>7.2f} {cores:>8.2f}"
        )
    return rows


POLICY_LINEUPS = {
    "random": {"policy": "random"},
    "greedy": {"policy": "greedy"},
    "heuristic:builder": {"policy": "heuristic", "preset": "builder"},
    "heuristic:spoiler": {"policy": "heuristic", "preset": "spoiler"},
    "heuristic:sleeper": {"policy": "heuristic", "preset": "sleeper"},
    "lookahead": {"policy": "lookahead"},
    "ismcts": {"policy": "ismcts"},
}
SEARCH = ("lookahead", "ismcts")  # about 100 times slower than greedy: a hundredth of the games


def bench_policies(games: int = 2000, config_path: str | None = None) -> list[dict]:
    """Games and decisions per second on one core, every seat playing one policy."""
    from sim.runs.play import play_arrays
    from sim.runs.results import G_DECISIONS

    check_count("--games", games, 1, MAX_BENCH_GAMES)
    base = bench_study(config_path)
    players = base.game.players
    print(f"{players} players, every seat the same policy, one core")
    print(f"{'policy':<18} {'games':>6} {'games/s':>9} {'decisions/s':>12} {'decisions/game':>15}")
    rows = []
    for name, seat in POLICY_LINEUPS.items():
        n = games if name not in SEARCH else max(1, games // 100)
        study = base.with_overrides(seats=[seat] * players, games=n)
        with compile_heartbeat(f"the game loop for {name}", note=compile_note()):
            play_arrays(study, 0, 1)  # load or compile first
        t = time.perf_counter()
        chunk = play_arrays(study, 0, n)
        elapsed = time.perf_counter() - t
        decisions = int(chunk.games[:, G_DECISIONS].sum())
        row = {
            "policy": name,
            "games": n,
            "games_per_s": n / elapsed,
            "decisions_per_s": decisions / elapsed,
            "decisions_per_game": decisions / n,
        }
        rows.append(row)
        print(
            f"{name:<18} {n:>6} {row['games_per_s']:>9,.1f} {row['decisions_per_s']:>12,.0f}"
            f" {row['decisions_per_game']:>15.1f}"
        )
    return rows


def duel(
    first: dict,
    second: dict,
    games: int,
    *,
    first_game: int = 0,
    seed: int = 20261129,
    config_path: str | None = None,
) -> dict:
    """Heads-up games (seats alternate with the game index), timing each side's decisions.

    Driven from Python one decision at a time, so both sides are timed under the same
    load; returns slot 0's win shares per game and each slot's seconds per decision.
    Used to check a search player against another at equal time per decision:
    `python -c "from sim.bench.engine import duel; print(duel({...}, {...}, 2000))"`.
    """
    from sim.engine.game import Game
    from sim.engine.scoring import final_scores, win_share
    from sim.policies.dispatch import PolicyScratch
    from sim.runs.lineup import engine_for
    from sim.specs import policy_code, seat_params

    check_count("games", games, 1, MAX_BENCH_GAMES)
    study = bench_study(config_path).with_overrides(players=2, seats=[first, second])
    engine = engine_for(study.game)
    pr = engine.pr
    slots = [
        (policy_code(seat["policy"]), seat_params(seat["policy"], _params(seat)))
        for seat in (first, second)
    ]
    scratch = PolicyScratch.for_params(pr)
    # their first decisions compile them
    with compile_heartbeat("the two policies", note=FIRST_USE):
        warm = Game(engine, seed, first_game)
        for code, params in slots:  # on copies: the duel itself starts from nothing used
            PolicyScratch.for_params(pr).choose(
                code, warm.s.copy(), pr, warm.seat_stream(0), warm.buf.copy(), params
            )
    seconds, decisions = [0.0, 0.0], [0, 0]
    shares = np.zeros(games)
    for i in range(games):
        game = Game(engine, seed, first_game + i)
        g = first_game + i
        streams = [game.seat_stream(p) for p in range(2)]
        while not game.over:
            p = game.seat
            slot = (p + g) % 2  # game g shifts the line-up by g, as rotate_seats does
            code, params = slots[slot]
            t = time.perf_counter()
            a = scratch.choose(code, game.s, pr, streams[p], game.buf, params)
            seconds[slot] += time.perf_counter() - t
            decisions[slot] += 1
            game.apply(a)
        shares[i] = win_share(final_scores(game.s, pr), (0 - g) % 2)
    return {
        "shares": shares,
        "seconds_per_decision": [s / max(d, 1) for s, d in zip(seconds, decisions, strict=True)],
        "decisions": decisions,
    }


def _params(seat: dict) -> dict:
    return {k: v for k, v in seat.items() if k != "policy"}


# The report build, measured in a fresh process: wall time and that process's peak memory.
_REPORT_PROBE = """
import json, resource, sys, time
t = time.perf_counter()
from sim.report.run_report import write_report
from sim.runs import load_run
from sim.runs.partials import run_data
from sim.studies.run_page import page_plays, representative
run = load_run(sys.argv[1])
write_report(run, page_plays(run, representative(run_data(run)[1])), sys.argv[2], quiet=True)
s = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"report_s": s, "peak_kb": peak, "workers_peak_kb": kids}))
"""


def bench_report(
    games: int = 100_000, config_path: str | None = None, jobs: int = -1, keep: str | None = None
) -> dict:
    """Play `games` all-random games of the config's game into a temporary run folder (or
    `keep`), then build its report in a fresh process: the run's wall time, the report's
    wall time and the report process's peak memory (maximum resident set size)."""
    import json
    import shutil
    import subprocess
    import sys
    import tempfile

    from sim.runs import Request, Workers, run

    check_count("--games", games, 1, MAX_BENCH_GAMES)
    base = bench_study(config_path)
    study = base.with_overrides(seats=[{"policy": "random"}] * base.game.players, games=games)
    if keep:  # before any game: the run is a new folder there, the page never a user's file
        check_report_path(Path(keep) / "report.html")
    top = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="sim-bench-report-"))
    try:
        t = time.perf_counter()
        run(study, Request(out=top / "run", no_report=True), Workers(jobs, quiet=True))
        play_s = time.perf_counter() - t
        done = subprocess.run(
            [sys.executable, "-c", _REPORT_PROBE, str(top / "run"), str(top / "report.html")],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SimError(f"the report build failed: {done.stderr.strip()[-300:]}")
        probe = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        if not keep:
            shutil.rmtree(top, ignore_errors=True)
    row = {
        "games": games,
        "play_s": play_s,
        "games_per_s": games / play_s,
        "report_s": probe["report_s"],
        "peak_mb": probe["peak_kb"] / 1024,
        "workers_peak_mb": probe["workers_peak_kb"] / 1024,
    }
    print(
        f"{games:,} all-random games: played in {play_s:.1f} s ({row['games_per_s']:,.0f}"
        f" games/s, partial results included); report built in {row['report_s']:.1f} s,"
        f" peak memory {row['peak_mb']:,.0f} MB"
        + (f" (its workers {row['workers_peak_mb']:,.0f} MB)" if probe["workers_peak_kb"] else "")
    )
    return row
