"""Benchmark of `sim tune`'s search against plain random search and a grid at the same budget.

    python -m sim.bench.tune [--repeats 3] [--jobs 1]

Each method spends the same search games on a tuning problem and names the
config it would pick (the one with the smallest target distance on its own
games: for `sim tune`, its first finalist, before the confirmation). The
regret of a pick is its target distance D (`sim.analysis.tuning`) measured on
fresh seeds with MEASURE_GAMES games; lower is better, and D <= 1 means every
estimate lies inside its band. All methods play their candidates on common
random numbers, through the same orchestration.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from sim.analysis.tuning import target_distance
from sim.config import StudyConfig, parse_study, tune_game_problem, tune_values
from sim.runs.options import Workers
from sim.runs.orchestrate import Point, chunk_games, execute
from sim.runs.storage import load_run
from sim.studies.tune import apply_point, estimates, finalists, run_tune

MEASURE_GAMES = 20000
MEASURE_SEED_OFFSET = 1000  # neither the search (seed) nor the confirmation (seed + 1)
RANDOM = [{"policy": "random"}] * 4

PROBLEMS = {
    "sprayers-1d": {
        "name": "bench-1d",
        "seats": RANDOM,
        "tune": {
            "space": {"deck.sprayers": [0, 10]},
            "targets": {"mean_score": {"value": 0.57, "within": 0.15}},
            "budget": {"games": 20000, "first": 500},
        },
    },
    "deck-4d": {
        "name": "bench-4d",
        "seats": RANDOM,
        "tune": {
            "space": {
                "deck.sprayers": [0, 10],
                "deck.princesses": [0, 6],
                "deck.boxes.NS": [0, 8],
                "hand_size": [2, 5],
            },
            "constraints": {"deck_size": [50, 90]},
            "targets": {
                "mean_score": {"value": 1.0, "within": 0.15},
                "items_wasted": {"value": 1.2, "within": 0.1},
            },
            "budget": {"games": 60000, "first": 1000},
        },
    },
}


def _play(study: StudyConfig, points: list[dict], games: int, folder: Path, jobs: int):
    """Play every point on `games` games from the study's seed; each point's estimates."""
    studies = [apply_point(study, p).with_overrides(games=games) for p in points]
    size = chunk_games(studies, max(jobs, 1))
    runs = [Point(s, folder / f"p{k:04d}") for k, s in enumerate(studies)]
    execute(runs, size, Workers(jobs, quiet=True), died_hint="benchmark")
    names = list(study.tune.targets)
    return [estimates(load_run(r.folder), names) for r in runs]


def _pick(study: StudyConfig, points: list[dict], games: int, folder: Path, jobs: int) -> dict:
    """The point with the smallest distance on its own games."""
    est = _play(study, points, games, folder, jobs)
    dist = [target_distance(e, study.tune.targets) for e in est]
    return points[int(np.argmin(dist))]


def _valid(study: StudyConfig, point: dict) -> bool:
    return tune_game_problem(study.game.game_dict(), study.tune, point) is None


def random_search(study: StudyConfig, folder: Path, jobs: int, per: int) -> dict:
    """Uniform valid points, `per` games each, as many as the budget pays for (in a space with
    fewer points, each of them, with the budget shared out)."""
    values = tune_values(study.tune.space)
    rng = random.Random(study.seed)
    n = study.tune.budget.games // per
    points: list[dict] = []
    for _ in range(100 * n):
        if len(points) == n:
            break
        p = {k: rng.choice(v) for k, v in values.items()}
        if _valid(study, p) and p not in points:
            points.append(p)
    return _pick(study, points, study.tune.budget.games // len(points), folder, jobs)


def grid_search(study: StudyConfig, folder: Path, jobs: int, per: int) -> dict:
    """An even grid with as many levels per setting as the budget pays for at `per` games a
    point (invalid points dropped), the games shared out over the valid points."""
    values = tune_values(study.tune.space)
    n = study.tune.budget.games // per
    levels = max(2, int(n ** (1 / len(values))))
    axes = {
        k: sorted({v[round(i * (len(v) - 1) / (levels - 1))] for i in range(levels)})
        for k, v in values.items()
    }
    grid = [dict(zip(axes, combo, strict=True)) for combo in np.array(np.meshgrid(
        *axes.values(), indexing="ij")).reshape(len(axes), -1).T.tolist()]  # fmt: skip
    points = [p for p in grid if _valid(study, p)]
    games = study.tune.budget.games // len(points)
    return _pick(study, points, games, folder, jobs)


def tuner(study: StudyConfig, folder: Path, jobs: int, per: int) -> dict:
    """`sim tune`'s search; its first finalist."""
    state = run_tune(study, Workers(jobs, quiet=True), out=folder)
    return state.candidates[finalists(state)[0]]["params"]


METHODS = {"sim tune": tuner, "random search": random_search, "grid": grid_search}


def regret(study: StudyConfig, pick: dict, folder: Path, jobs: int) -> float:
    """The pick's target distance on fresh seeds."""
    fresh = study.with_overrides(seed=study.seed + MEASURE_SEED_OFFSET)
    (est,) = _play(fresh, [pick], MEASURE_GAMES, folder, jobs)
    return target_distance(est, study.tune.targets)


def main(argv: list[str] | None = None) -> None:
    """Print each method's regret per problem and repeat, and the means."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="tune-bench-"))
    for pname, data in PROBLEMS.items():
        per = data["tune"]["budget"]["first"]
        for method, search in METHODS.items():
            regrets, walls = [], []
            for rep in range(args.repeats):
                study = parse_study({**data, "seed": 100 + rep}, pname)
                folder = root / pname / method.replace(" ", "-") / str(rep)
                t0 = time.perf_counter()
                pick = search(study, folder / "search", args.jobs, per)
                walls.append(time.perf_counter() - t0)
                regrets.append(regret(study, pick, folder / "measure", args.jobs))
                print(f"{pname:12} {method:14} seed {100 + rep}: pick {pick}"
                      f" regret {regrets[-1]:.2f}", flush=True)  # fmt: skip
            print(f"{pname:12} {method:14} mean regret {np.mean(regrets):.2f}"
                  f" (max {np.max(regrets):.2f}), {data['tune']['budget']['games']:,} games,"
                  f" {np.mean(walls):.0f} s per search", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
