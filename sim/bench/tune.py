"""Benchmark of `sim tune`: its answer against plain random search and a grid at the same
games, and how often it recommends a change a game does not need.

    python -m sim.bench.tune [--repeats 3] [--jobs 1]    regret on two tuning problems
    python -m sim.bench.tune --null [--repeats 10]       false recommendations (true nulls)

Regret: each method spends the same games on a tuning problem (`sim tune` every
game of its four phases, the others their search) and names the config it
would pick (`sim tune`: its recommendation, else its closest; the others: the
smallest target distance on their own games). The regret of a pick is its
target distance D (`sim.analysis.tuning`) on fresh seeds with MEASURE_GAMES
games; lower is better, and D <= 1 means every estimate lies inside its band.

Nulls: tunes whose start already meets every target (turns in [30, 80] of the
base game, over spaces that cannot or barely move the turns, one of them a rule
whose card is not in the deck). Any recommendation there is a false one.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from sim.analysis.tuning import target_distance
from sim.config import StudyConfig, load_study, parse_study, tune_game_problem, tune_values
from sim.runs.options import Workers
from sim.runs.orchestrate import Point, chunk_games, execute
from sim.runs.storage import load_run
from sim.studies.tune import run_tune
from sim.studies.tune_search import apply_point, estimates

MEASURE_GAMES = 20000
MEASURE_SEED_OFFSET = 1000  # neither the search (seed) nor the confirmation (seed + 1)
RANDOM = [{"policy": "random"}] * 4

NULL_SPACES = {
    "sprayers": ({"deck.sprayers": [2, 6]}, {}),
    "columns": ({"table.columns": [10, 14]}, {}),
    "rows": ({"table.rows": [10, 14]}, {}),
    "evicted cat, no Princess": (
        {"rules.evicted_cat": {"choices": ["return", "discard"]}},
        {"deck.princesses": 0},
    ),
}
NULL_BUDGET = {"games": 12000, "first": 500, "confirm": 3000, "finalists": 2}

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
    grid = [
        dict(zip(axes, combo, strict=True))
        for combo in np.array(np.meshgrid(*axes.values(), indexing="ij"))
        .reshape(len(axes), -1)
        .T.tolist()
    ]
    points = [p for p in grid if _valid(study, p)]
    games = study.tune.budget.games // len(points)
    return _pick(study, points, games, folder, jobs)


def tuner(study: StudyConfig, folder: Path, jobs: int, per: int) -> dict:
    """`sim tune`: its answer (the recommendation, the start when no change is needed, else
    the closest)."""
    verdict = run_tune(study, Workers(jobs, quiet=True), out=folder)
    return verdict.data["chosen_params"]


METHODS = {"sim tune": tuner, "random search": random_search, "grid": grid_search}


def regret(study: StudyConfig, pick: dict, folder: Path, jobs: int) -> float:
    """The pick's target distance on fresh seeds."""
    fresh = study.with_overrides(seed=study.seed + MEASURE_SEED_OFFSET)
    (est,) = _play(fresh, [pick], MEASURE_GAMES, folder, jobs)
    return target_distance(est, study.tune.targets)


def null_tunes(root: Path, repeats: int, jobs: int) -> int:
    """Tune every null problem `repeats` times (seeds 1, 2, ...): print each answer; the
    number of false recommendations."""
    base = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
    false = 0
    for name, (space, deck) in NULL_SPACES.items():
        for seed in range(1, repeats + 1):
            study = load_study(base).with_overrides(
                name="null",
                seed=seed,
                **deck,
                tune={"space": space, "targets": {"turns": [30, 80]}, "budget": NULL_BUDGET},
            )
            t0 = time.perf_counter()
            folder = root / "null" / name.replace(" ", "-").replace(",", "") / str(seed)
            verdict = run_tune(study, Workers(jobs, quiet=True), out=folder)
            wrong = verdict.data["status"] == "recommended"
            false += wrong
            games = verdict.data["games"]["total"]
            said = f"  FALSE: {verdict.data['changes']}" if wrong else ""
            wall = time.perf_counter() - t0
            line = f"null {name:26} seed {seed}: {verdict.data['status']:17} {games:>6,} games"
            print(f"{line} {wall:5.0f} s{said}", flush=True)
    tunes = len(NULL_SPACES) * repeats
    print(f"false recommendations: {false} of {tunes} tunes ({10 * false / tunes:.1f} per 10)")
    return false


def main(argv: list[str] | None = None) -> None:
    """Print each method's regret per problem and repeat, and the means."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=None, help="seeds per problem (3; --null 2)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--null", action="store_true", help="count false recommendations instead")
    args = ap.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="tune-bench-"))
    if args.null:
        null_tunes(root, args.repeats or 2, args.jobs)
        return
    args.repeats = args.repeats or 3
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
                print(
                    f"{pname:12} {method:14} seed {100 + rep}: pick {pick}"
                    f" regret {regrets[-1]:.2f}",
                    flush=True,
                )
            print(
                f"{pname:12} {method:14} mean regret {np.mean(regrets):.2f}"
                f" (max {np.max(regrets):.2f}), {data['tune']['budget']['games']:,} games,"
                f" {np.mean(walls):.0f} s per search",
                flush=True,
            )


if __name__ == "__main__":
    main()
