"""A study's feel model (`sim.feel.model`): read from the cache, else fitted on pilot games
and cached, and its per-game columns for a chunk of games.

The model belongs to the points a study plays, not to a run: its key is each point's game
settings, seats and seat rotation and the engine and feel versions, and its pilot games have
a seed of their own drawn from that key, so every run of the same config reads the same
model, whatever its games, seed or workers. A comparison or a sweep judges all its points
with **one** model, fitted on pilot games of every point (PILOT_GAMES in all): a common
yardstick, so a difference between points comes from their games. Two models fitted alike
on different pilot games differ by about 0.03 in the mean suspense of the same games, eight
times the standard error of a 10,000-game run (docs/guide/feel.md): a model per point would
make a renamed toy look like a change. A line-up with a designer's own policy is fitted
afresh each time (its code may change under the same name).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from sim import specs
from sim.config import StudyConfig
from sim.feel.model import FEEL_VERSION, REFITS, FeelModel, Pilot, fit_model, model_noise
from sim.metrics import FEEL_COLUMNS, FEEL_METRICS
from sim.runs import pulse
from sim.runs.partials import run_chunks
from sim.runs.paths import RUN_FILE
from sim.runs.play import load_engines, play_arrays
from sim.runs.results import ChunkArrays
from sim.runs.storage import RunResult, read_chunk, saved_study, write_bytes
from sim.version import ENGINE_VERSION, cache_root

MODEL_FILE = "feel.npz"  # the model a run used, in its folder: its page and a resume read it
WINPROB_FILE = "winprob.parquet"
SAMPLE_CHANCES = 2000  # games whose chances winprob.parquet holds (unless all are asked for)
PILOT_GAMES = 4000  # games the model learns from (half each regression), for fast players
MIN_PILOT_GAMES = 200  # a point's least share of a study's pilot games
PILOT_CHUNKS = 40  # ... at most this many chunks of the slowest player's size (search players)


def player_codes(names: tuple[str, ...], study: StudyConfig, slots: np.ndarray) -> np.ndarray:
    """[game, seat] each seat's player as a number (its label's place in `names`, the feel
    model's players): what the table shows of who sits where."""
    return np.array([names.index(seat.label) for seat in study.seats])[slots]


def lineup_names(studies: list[StudyConfig]) -> tuple[str, ...]:
    """The players (labels) of every point, sorted: what a model's player numbers stand for."""
    return tuple(sorted({seat.label for s in studies for seat in s.seats}))


def chunk_feel(model: FeelModel, study: StudyConfig, chunk: ChunkArrays) -> dict[str, np.ndarray]:
    """FEEL_COLUMNS of a chunk's games (`sim.feel.chances`)."""
    player = player_codes(model.players, study, chunk.slots)
    return model.per_game(chunk.trace, chunk.rounds, player, chunk.win_shares())


def chances_of_tables(
    model: FeelModel, study: StudyConfig, players: pd.DataFrame, turns: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The games of a run's `players` rows (and their `turns` rows, which may hold more
    games): their ids, their [game, step, seat] chances, each game's rounds and each seat's
    win share."""
    seats = study.game.players
    ids = np.unique(players["game"].to_numpy())
    at = np.searchsorted(ids, players["game"].to_numpy())
    slots = np.zeros((len(ids), seats), np.int64)
    won = np.zeros((len(ids), seats))
    slots[at, players["seat"].to_numpy()] = players["slot"].to_numpy()
    won[at, players["seat"].to_numpy()] = players["win_share"].to_numpy()
    t = turns[turns["game"].isin(ids)]
    g, r = np.searchsorted(ids, t["game"].to_numpy()), t["round"].to_numpy().astype(np.int64)
    rounds = np.zeros(len(ids), np.int64)
    np.maximum.at(rounds, g, r)
    trace = np.zeros((len(ids), max(int(rounds.max(initial=0)), 1), seats), np.int16)
    trace[g, r - 1, t["seat"].to_numpy()] = t["score"].to_numpy()
    p, _ = model.chances(trace, rounds, player_codes(model.players, study, slots), won)
    return ids, p, rounds, won


def long_chances(ids: np.ndarray, p: np.ndarray, rounds: np.ndarray) -> pd.DataFrame:
    """Chances as rows (`winprob.parquet`): game, step (0 before any card, then after each
    round; the last step is the game's end, each seat's win share), seat, p."""
    count, steps, seats = p.shape
    live = np.arange(steps)[None, :] <= rounds[:, None]
    g, t = np.nonzero(live)
    return pd.DataFrame(
        {
            "game": np.repeat(ids[g], seats),
            "step": np.repeat(t, seats).astype(np.int16),
            "seat": np.tile(np.arange(seats, dtype=np.int8), len(g)),
            "p": p[g, t].reshape(-1),
        }
    )


def model_key(studies: list[StudyConfig]) -> str:
    """What the model depends on, as a digest: each point's game, seats and their rotation,
    the engine and the feel model's version."""
    what = {
        "points": [
            {
                "game": s.game.game_dict(),
                "seats": [seat.to_dict() for seat in s.seats],
                "rotate": s.rotate_seats,
            }
            for s in studies
        ],
        "engine": ENGINE_VERSION,
        "feel": FEEL_VERSION,
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def pilot_games(study: StudyConfig, points: int = 1) -> int:
    """A point's share of PILOT_GAMES (at least MIN_PILOT_GAMES), or PILOT_CHUNKS chunks of
    its slowest player's size if fewer."""
    size = min(specs.chunk_games(seat.policy) for seat in study.seats)
    return min(max(-(-PILOT_GAMES // points), MIN_PILOT_GAMES), PILOT_CHUNKS * size)


def cache_path(key: str) -> Path:
    return cache_root() / "feel" / f"{key[:24]}.npz"


def can_feel(studies: list[StudyConfig]) -> bool:
    """Can these points' feel be measured? Not with a designer's own policy at the table:
    its pilot games would call it thousands of times from Python (and a page never imports
    it), so such a run goes without, and its page says so."""
    return not any(specs.is_plugin(seat.policy) for s in studies for seat in s.seats)


def run_feel(studies: list[StudyConfig], folders: list[Path], quiet: bool = False) -> FeelModel:
    """The feel model of a study's run folders (one per point): the one they were started
    with (`MODEL_FILE` in the first), else the points' (`study_feel`), saved in each."""
    model = load_model(folders[0] / MODEL_FILE)
    if model is None:
        model = study_feel(studies, quiet)
    for folder in folders:
        save_model(model, folder / MODEL_FILE)
    return model


def config_feel(
    study: StudyConfig, folder: Path, quiet: bool, why: str
) -> tuple[FeelModel | None, dict[str, float] | None]:
    """One config's own feel model (the one its run folder started with, else fitted on
    pilot games and cached: `run_feel`, the model `sim run` of that config reads) and that
    model's own noise (`feel_noise`, cached beside it, measured saying `why`): what a check
    of that config on fresh games needs for honest intervals. None, None with a designer's
    own policy at the table (`can_feel`)."""
    if not can_feel([study]):
        return None, None
    return run_feel([study], [folder], quiet), feel_noise([study], quiet, why=why)


def study_feel(studies: list[StudyConfig], quiet: bool = False) -> FeelModel:
    """`feel_model`, saying on stderr when it fits (unless `quiet`)."""
    pulse.doing("fitting the chances of winning")
    return feel_model(studies, None if quiet else lambda text: print(text, file=sys.stderr))


def feel_model(studies: list[StudyConfig], say: Callable[[str], None] | None = None) -> FeelModel:
    """The points' feel model: from the cache, else fitted on pilot games of every point
    (saying so) and cached (a cache that cannot be written is skipped: the model is the same
    next time)."""
    key = model_key(studies)
    plugin = any(specs.is_plugin(seat.policy) for s in studies for seat in s.seats)
    path = cache_path(key)
    if not plugin and (cached := load_model(path)) is not None:
        return cached
    counts = [pilot_games(s, len(studies)) for s in studies]
    if say:
        where = "this line-up" if len(studies) == 1 else f"these {len(studies)} points"
        say(f"fitting the chances of winning for {where} on {sum(counts):,} pilot games (once)")
    seed = int(key[:15], 16)
    names = lineup_names(studies)
    load_engines(studies, say is not None)  # a first run compiles here: said as such
    model = fit_model(pilot_arrays(studies, counts, seed, names), names, seed)
    if not plugin:
        try:
            save_model(model, path)
        except OSError:
            pass
    return model


def pilot_arrays(studies, counts, seed: int, names: tuple[str, ...]) -> list[Pilot]:
    """Each point's pilot games (`counts`) on `seed`, by their arrays."""
    pilots = []
    for study, games in zip(studies, counts, strict=True):
        pilot = study.with_overrides(games=games, seed=seed)
        chunk = play_arrays(pilot, 0, games)
        player = player_codes(names, pilot, chunk.slots)
        pilots.append(Pilot(chunk.trace, chunk.rounds, player, chunk.win_shares()))
    return pilots


def wants_noise(study: StudyConfig) -> bool:
    """Does the study hold a feel metric to a target (which then needs the model's noise)?"""
    return any(m.name in study.targets for m in FEEL_METRICS)


def feel_noise(
    studies: list[StudyConfig], quiet: bool = False, why: str = "a feel metric has a target"
) -> dict[str, float]:
    """The feel model's own noise (`sim.feel.model.model_noise`) for these points: cached
    beside the model, else measured on refits (saying so, and `why`) against check games of
    another seed (half the pilot's)."""
    key = model_key(studies)
    path = cache_path(key).with_suffix(".noise.json")
    try:
        return {k: float(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        pass  # not measured yet, or a damaged file: measured again
    counts = [pilot_games(s, len(studies)) for s in studies]
    pulse.doing("measuring the chances' own noise")
    if not quiet:
        print(
            f"measuring the chances' own noise ({REFITS} refits on {sum(counts):,} pilot games,"
            f" once: {why})",
            file=sys.stderr,
        )
    seed = int(key[:15], 16)
    names = lineup_names(studies)
    load_engines(studies, not quiet)
    pilots = pilot_arrays(studies, counts, seed, names)
    check = pilot_arrays(studies, [max(c // 2, 1) for c in counts], seed + 1, names)
    noise = model_noise(pilots, check, names, seed)
    if not any(specs.is_plugin(seat.policy) for s in studies for seat in s.seats):
        try:
            write_bytes(path, json.dumps(noise).encode())
        except OSError:
            pass
    return noise


def save_model(model: FeelModel, path: Path) -> None:
    """The model as an .npz file, written atomically."""
    buffer = io.BytesIO()
    np.savez(buffer, **model.arrays())
    write_bytes(path, buffer.getvalue())


def load_model(path: Path) -> FeelModel | None:
    """A saved model, None if there is none (or not of this feel version, or unreadable)."""
    try:
        with np.load(path) as saved:
            if int(saved["version"][0]) == FEEL_VERSION:
                return FeelModel.from_arrays(saved)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        pass  # a damaged file (a truncated write, another tool's) is fitted again
    return None


def page_feel(run: RunResult, view: RunResult) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """What a run page shows of the feel: the feel columns of the games of `view` (the
    run's rows, or the sample the page reads) and the chances of up to SAMPLE_CHANCES evenly
    spaced ones, written to `winprob.parquet` if the run has none yet. A run that did not
    measure the feel (played with --no-feel, or before it was measured) gets it now, from
    the model of its config and line-up (saved beside it); None if that needs a designer's
    own policy, which a page never imports."""
    folder = Path(run.run_dir)
    study = saved_study(run.meta, folder / RUN_FILE, plugins=False)
    model = load_model(folder / MODEL_FILE)
    if model is None:
        if not can_feel([study]):
            return None
        model = feel_model([study])
        save_model(model, folder / MODEL_FILE)
    games = view.games
    ids = np.unique(games["game"].to_numpy())
    keep = ids[:: max(1, len(ids) // SAMPLE_CHANCES)][:SAMPLE_CHANCES]
    path = folder / WINPROB_FILE
    sampled = None
    if path.exists():
        sampled = pd.read_parquet(path, filters=[("game", "in", keep.tolist())])
    computed = None
    if not set(FEEL_COLUMNS) <= set(games.columns):  # every game's chances, judged now
        computed = chances_of_tables(model, study, view.players, view.turns)
        every, p, rounds, won = computed
        live = np.arange(p.shape[1])[None, :] < rounds[:, None]
        per = pd.DataFrame(model.curves(p, live, rounds, won)).assign(game=every)
        games = games.drop(columns=list(FEEL_COLUMNS), errors="ignore").merge(per, on="game")
    if sampled is None or not len(sampled):
        if computed is None:
            players = view.players[view.players["game"].isin(keep)]
            computed = chances_of_tables(model, study, players, view.turns)
        every, p, rounds, _ = computed
        at = np.isin(every, keep)  # the sample's rows of the chances at hand
        sampled = long_chances(every[at], p[at], rounds[at])
        write_bytes(path, sampled.to_parquet(index=False))
    return games, sampled


def write_all_chances(run: RunResult, say: Callable[[str], None] | None = None) -> Path | None:
    """`winprob.parquet` with the chances of every game of a run that measured the feel
    (`sim run --all-chances`), streamed chunk by chunk (one row group each: a million games'
    chances never sit in memory at once) into a hidden file renamed at the end; None if the
    run did not measure the feel."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(run.run_dir)
    model = load_model(folder / MODEL_FILE)
    if model is None or not run.meta.get("feel"):
        return None
    study = saved_study(run.meta, folder / RUN_FILE, plugins=False)
    path = folder / WINPROB_FILE
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    chunks = run_chunks(run.meta)
    writer = None
    try:
        for k, (first, _) in enumerate(chunks):
            rows = read_chunk(folder, first, ("players", "turns"))
            part = pa.Table.from_pandas(
                long_chances(*chances_of_tables(model, study, **rows)[:3]), preserve_index=False
            )
            writer = writer or pq.ParquetWriter(tmp, part.schema)
            writer.write_table(part)
            if say and (k + 1) % 25 == 0:
                say(f"chances: {k + 1} of {len(chunks)} chunks")
        if writer is None:
            return None
        writer.close()
        os.replace(tmp, path)
    finally:
        if writer is not None:
            writer.close()
        tmp.unlink(missing_ok=True)
    return path
