"""`sim run`: reproducible parallel Monte Carlo games, written chunk by chunk.

Game i's randomness derives only from (seed, i); chunks are fixed ranges of
game indices, so the result is the same for any number of workers and a
resumed run equals an uninterrupted one. Each finished chunk is written
at once (atomically), so an interrupted run keeps everything it finished.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

import sim
from sim.config import StudyConfig, load_study
from sim.engine.state import (
    ENGINE_VERSION,
    N_ST,
    STAT_NAMES,
    TRIGGER_NAMES,
    CardTypes,
    make_engine,
)
from sim.errors import SimError
from sim.policies.loop import GAME_COLUMNS, N_G, N_P, SEAT_COLUMNS, play_chunk, summarize_game
from sim.policies.registry import PLUGIN, policy_code, seat_params

CHUNK_GAMES = 500
TABLES = ("games", "players", "cards")


@dataclass
class RunResult:
    """A finished run: its folder, metadata and the three tidy tables."""

    run_dir: Path
    meta: dict
    games: pd.DataFrame
    players: pd.DataFrame
    cards: pd.DataFrame


# ---------------------------------------------------------------- one chunk


def seat_lineup(study: StudyConfig, game_index: int) -> np.ndarray:
    """Which line-up slot each seat plays in this game (rotations in equal numbers)."""
    return lineup_slots(study, game_index, 1)[0]


def lineup_slots(study: StudyConfig, first: int, count: int) -> np.ndarray:
    """The line-up slot of every seat in games first..first+count-1: game i shifts the
    line-up by i mod players when seats rotate."""
    players = study.game.players
    index = np.arange(first, first + count)
    shift = index % players if study.rotate_seats else np.zeros(count, np.int64)
    return (np.arange(players)[None, :] + shift[:, None]) % players


def lineup_policies(study: StudyConfig) -> tuple[np.ndarray, np.ndarray]:
    """Each line-up slot's compiled policy code and parameter vector."""
    codes = np.array([policy_code(seat.policy) for seat in study.seats], np.int64)
    params = np.stack([seat_params(seat.policy, seat.params) for seat in study.seats])
    return codes, params


@dataclass
class ChunkArrays:
    """Raw results of consecutive games, as the compiled loop fills them."""

    first: int
    slots: np.ndarray  # [game, seat] line-up slot
    games: np.ndarray  # [game, GAME_COLUMNS]
    seats: np.ndarray  # [game, seat, SEAT_COLUMNS]
    cards: np.ndarray  # [game, seat, card type, STAT_NAMES]


def play_arrays(study: StudyConfig, first: int, count: int) -> ChunkArrays:
    """Play games first..first+count-1 and return their raw result arrays."""
    engine = make_engine(study.game)
    slots = lineup_slots(study, first, count)
    codes, params = lineup_policies(study)
    if (codes == PLUGIN).any():
        games, seats, cards = _play_chunk_python(study, engine, first, count)
    else:
        games, seats, cards = play_chunk(
            engine.pr, engine.blank, study.seed, first, count, slots, codes, params
        )
    return ChunkArrays(first, slots, games, seats, cards.astype(np.int16))


def run_chunk(study: StudyConfig, first: int, count: int) -> dict[str, pd.DataFrame]:
    """Play games first..first+count-1 and return their tidy rows."""
    return tables(study, play_arrays(study, first, count))


def _play_chunk_python(study: StudyConfig, engine, first: int, count: int):
    """The chunk's games driven from Python, for line-ups with a designer's own policy."""
    from sim.play import play_one

    pr = engine.pr
    games = np.zeros((count, N_G), np.int64)
    seats = np.zeros((count, pr.players, N_P), np.int64)
    cards = np.zeros((count, pr.players, pr.ntypes, N_ST), np.int64)
    for i in range(count):
        game = play_one(study, study.seed, first + i)
        summarize_game(game.s, pr, games[i], seats[i], cards[i])
    return games, seats, cards


def tables(study: StudyConfig, chunk: ChunkArrays) -> dict[str, pd.DataFrame]:
    """The tidy games, players and cards tables of some games' raw results (vectorised)."""
    types = CardTypes(study.game)
    players = study.game.players
    count = len(chunk.games)
    index = np.arange(chunk.first, chunk.first + count)
    slots = chunk.slots
    scores = chunk.seats[:, :, 0]
    best = scores.max(axis=1, keepdims=True)
    winner = scores == best
    n_winners = winner.sum(axis=1)
    ranked = np.sort(scores, axis=1)[:, ::-1]
    runner_up = np.where(
        n_winners < players,
        ranked[np.arange(count), np.minimum(n_winners, players - 1)],
        best[:, 0],
    )
    hash_ = pd.Categorical([study.config_hash()]).repeat  # one category, any length
    tag = {"engine_version": np.int16(ENGINE_VERSION)}

    g = pd.DataFrame(chunk.games.astype(np.int32), columns=GAME_COLUMNS)
    g.insert(0, "game", index)
    g.insert(1, "seed", study.seed)
    g.insert(2, "players", np.int8(players))
    g["end_trigger"] = pd.Categorical.from_codes(g.pop("trigger"), TRIGGER_NAMES)
    subsets = [",".join(str(q) for q in range(players) if m >> q & 1) for m in range(1 << players)]
    mask = (winner * (1 << np.arange(players))).sum(axis=1)
    g["winners"] = pd.Categorical.from_codes(mask, subsets)
    g["n_winners"] = n_winners.astype(np.int8)
    g["tie"] = n_winners > 1
    g["margin"] = np.where(n_winners > 1, 0, best[:, 0] - runner_up).astype(np.int32)
    g["rotation"] = slots[:, 0].astype(np.int8)
    g["config_hash"] = hash_(count)
    g = g.assign(**tag)

    labels = [seat.label for seat in study.seats]
    names = sorted(set(labels))
    slot_policy = np.array([names.index(label) for label in labels])
    p = pd.DataFrame(
        chunk.seats.reshape(count * players, -1).astype(np.int32), columns=SEAT_COLUMNS
    )
    p.insert(0, "game", np.repeat(index, players))
    p.insert(1, "seat", np.tile(np.arange(players, dtype=np.int8), count))
    p.insert(2, "slot", slots.reshape(-1).astype(np.int8))
    p.insert(3, "policy", pd.Categorical.from_codes(slot_policy[slots.reshape(-1)], names))
    # rank 1 is best; tied seats share the best rank they tie for
    rank = 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    p["rank"] = rank.reshape(-1).astype(np.int8)
    p["win_share"] = (winner / n_winners[:, None]).reshape(-1)
    p["config_hash"] = hash_(count * players)
    p = p.assign(**tag)

    ntypes = len(types)
    c = pd.DataFrame(chunk.cards.reshape(count * players * ntypes, -1), columns=STAT_NAMES)
    c.insert(0, "game", np.repeat(index, players * ntypes))
    c.insert(1, "seat", np.tile(np.repeat(np.arange(players, dtype=np.int8), ntypes), count))
    card_codes = np.tile(np.arange(ntypes), count * players)
    c.insert(2, "card", pd.Categorical.from_codes(card_codes, types.names))
    c["config_hash"] = hash_(len(c))
    c = c.assign(**tag)
    return {"games": g, "players": p, "cards": c}


# ---------------------------------------------------------------- the run


def chunk_ranges(games: int) -> list[tuple[int, int]]:
    return [(first, min(CHUNK_GAMES, games - first)) for first in range(0, games, CHUNK_GAMES)]


def _chunk_path(run_dir: Path, first: int) -> Path:
    return run_dir / "chunks" / f"chunk-{first:09d}.npz"


def chunk_done(run_dir: Path, first: int) -> bool:
    return _chunk_path(run_dir, first).exists()


def write_chunk(run_dir: Path, chunk: ChunkArrays) -> None:
    """Save a chunk's raw results atomically: a crash leaves it whole or absent."""
    path = _chunk_path(run_dir, chunk.first)
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as out:
        np.savez(out, slots=chunk.slots, games=chunk.games, seats=chunk.seats, cards=chunk.cards)
    os.replace(tmp, path)


def read_chunks(run_dir: Path, study: StudyConfig) -> ChunkArrays:
    """Every chunk of a finished run, in game order, as one set of arrays."""
    parts = []
    for first, _ in chunk_ranges(study.games):
        with np.load(_chunk_path(run_dir, first)) as data:
            parts.append({k: data[k] for k in ("slots", "games", "seats", "cards")})
    keys = ("slots", "games", "seats", "cards")
    return ChunkArrays(0, *(np.concatenate([part[k] for part in parts]) for k in keys))


def _worker_chunk(study: StudyConfig, first: int, count: int):
    return play_arrays(study, first, count)


def run(
    study: StudyConfig | None,
    *,
    jobs: int = -1,
    out: Path | None = None,
    resume: Path | None = None,
    quiet: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
) -> RunResult:
    """Run every game of the study (or the rest of a resumed run) and return its tables.

    With `resume`, the study is the one saved in the run folder (a given study
    must match it).
    """
    if resume is not None:
        run_dir = Path(resume)
        study = _resumable(run_dir, study)
    elif study is None:
        raise SimError("run: give a study or a run folder to resume")
    else:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        run_dir = Path(out) if out is not None else Path("runs") / f"{study.name}-{stamp}"
        if run_dir.exists() and any(run_dir.iterdir()):
            raise SimError(
                f"{run_dir}: run folder exists and is not empty;"
                f" use --resume {run_dir} or another --out"
            )
    (run_dir / "chunks").mkdir(parents=True, exist_ok=True)
    meta = run_meta(study)
    (run_dir / "run.json").write_text(json.dumps({**meta, "status": "running"}, indent=2))

    todo = [(f, n) for f, n in chunk_ranges(study.games) if not chunk_done(run_dir, f)]
    done_games = study.games - sum(n for _, n in todo)
    t0 = time.perf_counter()
    bar = progress_bar(study.games, done_games, quiet)
    wins = []
    try:
        if todo:
            tasks = (delayed(_worker_chunk)(study, f, n) for f, n in todo)
            results = parallel_results(tasks, len(todo), jobs, backend, scheduler)
            for chunk in results:
                write_chunk(run_dir, chunk)
                if bar is not None:
                    wins.append(_seat0_win_share(chunk))
                    bar.update(len(chunk.games))
                    bar.set_postfix_str(f"seat 0 wins {np.mean(wins):.1%}")
    finally:
        if bar is not None:
            bar.close()
    result = collect_chunks(run_dir, study)
    wall = time.perf_counter() - t0  # building the tables is part of the run's work
    played = study.games - done_games
    meta.update(
        status="complete",
        wall_time_s=round(wall, 3),
        games_per_s=round(played / wall, 1) if wall > 0 and played else None,
    )
    (run_dir / "run.json").write_text(json.dumps(meta, indent=2))
    (run_dir / "config.yaml").write_text(study_yaml(study))
    result.meta = meta
    return result


def _seat0_win_share(chunk: ChunkArrays) -> float:
    """Seat 0's mean win share in a chunk (for the progress bar)."""
    scores = chunk.seats[:, :, 0]
    top = scores == scores.max(axis=1, keepdims=True)
    return float((top[:, 0] / top.sum(axis=1)).mean())


def parallel_results(tasks, n_tasks: int, jobs: int, backend: str, scheduler: str | None):
    """Results of the chunk tasks as they finish, on local processes or a Dask cluster."""
    if backend == "dask":
        try:
            from dask.distributed import Client
        except ImportError:
            raise SimError("--backend dask needs the dask extra: pip install '.[dask]'") from None
        from joblib import parallel_config

        if scheduler is None:
            raise SimError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
        try:
            client = Client(scheduler, timeout=10)
        except OSError as exc:
            raise SimError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        with client, parallel_config(backend="dask"):
            yield from Parallel(return_as="generator_unordered")(tasks)
        return
    if backend != "loky":
        raise SimError(f"unknown backend {backend!r} (known: loky, dask)")
    n_jobs = 1 if n_tasks == 1 else jobs
    yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)


def collect_chunks(run_dir: Path, study: StudyConfig) -> RunResult:
    """Turn a finished run's chunks into its tables and write them as Parquet."""
    frames = tables(study, read_chunks(run_dir, study))
    for name, frame in frames.items():
        tmp = run_dir / f"{name}.parquet.tmp"
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, run_dir / f"{name}.parquet")
    return RunResult(run_dir=run_dir, meta=run_meta(study), **frames)


def run_meta(study: StudyConfig) -> dict:
    return {
        "name": study.name,
        "config": study.to_yaml_dict(),
        "config_hash": study.config_hash(),
        "engine_version": ENGINE_VERSION,
        "package_version": sim.__version__,
        "seed": study.seed,
        "games": study.games,
        "chunk_games": CHUNK_GAMES,
        "source": study.source,
    }


def _resumable(run_dir: Path, study: StudyConfig | None) -> StudyConfig:
    """The study a run folder was started with; refuses a folder from another config."""
    meta_path = run_dir / "run.json"
    if not meta_path.exists():
        raise SimError(f"{run_dir}: not a run folder (no run.json)")
    meta = json.loads(meta_path.read_text())
    from sim.config import parse_study

    saved = parse_study(meta["config"], str(meta_path))
    if meta.get("engine_version") != ENGINE_VERSION:
        raise SimError(
            f"{run_dir}: made by engine version {meta.get('engine_version')},"
            f" this is {ENGINE_VERSION}"
        )
    if study is not None and study.config_hash() != saved.config_hash():
        raise SimError(
            f"{run_dir}: was started from a different config (hash {saved.config_hash()})"
        )
    return saved


def load_run(run_dir: str | Path) -> RunResult:
    """Open a finished run folder's tables (for `sim report` and notebooks)."""
    run_dir = Path(run_dir)
    meta_path = run_dir / "run.json"
    if not meta_path.exists():
        raise SimError(f"{run_dir}: not a run folder (no run.json)")
    meta = json.loads(meta_path.read_text())
    missing = [t for t in TABLES if not (run_dir / f"{t}.parquet").exists()]
    if missing:
        raise SimError(
            f"{run_dir}: run is not complete (missing {', '.join(missing)});"
            f" finish it with sim run --resume {run_dir}"
        )
    frames = {t: pd.read_parquet(run_dir / f"{t}.parquet") for t in TABLES}
    return RunResult(run_dir=run_dir, meta=meta, **frames)


def progress_bar(total: int, done: int, quiet: bool):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit="game", smoothing=0.1, dynamic_ncols=True)


def study_yaml(study: StudyConfig) -> str:
    import yaml

    return yaml.safe_dump(study.to_yaml_dict(), sort_keys=False, allow_unicode=True)


def run_path(path: str, **kwargs) -> RunResult:
    """Load a config file and run it (the Python API behind `sim run`)."""
    return run(load_study(path), **kwargs)
