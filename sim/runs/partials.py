"""Partial results beside the parts: each chunk's moments, merged for the report.

A worker that writes a chunk's Parquet parts also writes that chunk's moments
(`sim.analysis.moments.Moments` of its per-game values: games, column means and
centred cross-products) to `stats/chunk-<first>.npz`, a few tens of kilobytes
whatever the chunk's size. The report merges them in one pass: every registry
metric, its interval, the seat tests and `summary.json` come from all the
games without the per-game rows ever being held together. A chunk whose
moments are missing or stale (the file records the sha256 of the parts it was
computed from) is computed again from its own parts, chunk by chunk, so an
older run folder reports the same numbers. Once a finished run's chunks are merged
(for its report or summary), the merge is saved as `stats/run.npz`, keyed by every
chunk's key, and the chunk files are removed: one file instead of one per chunk
(a chunk played again, or a run extended, no longer matches, and its chunks'
moments are computed from the parts). The per-game tables stay on disk
for notebooks; `sampled_run` gives the report a fixed-size sample of whole
chunks for the sections that need rows (games are independent draws, and a
chunk is a range of game indices, so evenly spaced chunks are a sample of
games; seat rotations stay balanced within a chunk).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import delayed

from sim.analysis.balance import metrics_from_moments, run_metrics
from sim.analysis.moments import Moments
from sim.analysis.paired import RESAMPLES, Streamed
from sim.analysis.values import game_values
from sim.errors import SimError
from sim.metrics import matches, metric, needs
from sim.runs.parallel import parallel_results
from sim.runs.storage import (
    LEGACY_CHUNK_GAMES,
    RunResult,
    chunk_ranges,
    chunk_record,
    kept_tables,
    read_chunk,
    write_bytes,
)

STATS = "stats"  # folder of per-chunk moments in a run folder
VALUE_TABLES = ("games", "players", "cards")  # the tables the per-game values read


RUN_STATS = "run.npz"  # a finished run's merged moments, in STATS


def stats_path(run_dir: Path, first: int) -> Path:
    return Path(run_dir) / STATS / f"chunk-{first:09d}.npz"


def run_stats_path(run_dir: Path) -> Path:
    return Path(run_dir) / STATS / RUN_STATS


def moments_of(frames: dict[str, pd.DataFrame]) -> Moments:
    """The moments of some games' per-game values (`sim.analysis.values.game_values`)."""
    return Moments.of(game_values(frames["games"], frames["players"], frames["cards"]))


def _key(record: dict | None) -> str:
    """What the moments were computed from: the sha256 of the chunk's parts it reads."""
    if not record:
        return ""
    tables = record.get("tables", {})
    return "+".join(str(tables.get(name, {}).get("sha256", "")) for name in VALUE_TABLES)


# The chunk moments this process's last pool played, by file and key: a study reads them
# right after its pool (a tune's estimates, an advice's screen), and reading each file again
# cost the main process about 1.5 ms a chunk. A file's entry is used once, by the merge that
# replaces it, and only under the key of the parts on disk then; each pool starts afresh,
# and a pool of very many chunks keeps the first FRESH_BYTES of them (the rest are read).
_FRESH: dict[Path, tuple[str, Moments]] = {}
FRESH_BYTES = 64 << 20


def forget_fresh() -> None:
    """Start a pool's memory of its chunks' moments afresh (`remember_moments`)."""
    _FRESH.clear()


def remember_moments(run_dir: Path, first: int, moments: Moments) -> None:
    """Keep a chunk's moments, just saved by a worker, for this process's next read of them
    (while those kept hold less than FRESH_BYTES)."""
    if len(_FRESH) * _nbytes(moments) >= FRESH_BYTES:
        return
    path = stats_path(run_dir, first)
    _FRESH[path] = (_key(chunk_record(run_dir, first)), moments)


def _nbytes(moments: Moments) -> int:
    """About the room one chunk's moments take (its cross-product matrix, mostly)."""
    return moments.m2.nbytes + 6 * moments.mean.nbytes


def save_moments(run_dir: Path, first: int, moments: Moments) -> None:
    """Write a chunk's moments, keyed by its manifest (written first), atomically."""
    _save(stats_path(run_dir, first), moments, key=_key(chunk_record(run_dir, first)))


def _save(path: Path, moments: Moments, **labels) -> None:
    """Moments and what they were computed from (`labels`, arrays of str), compressed,
    written atomically. (Uncompressed, a chunk's file would be written 0.9 ms sooner but
    take twice the room, about 50 kB, in every folder whose chunks are not merged yet.)"""
    buf = io.BytesIO()
    arrays = {name: np.array(value) for name, value in labels.items()}
    np.savez_compressed(buf, **arrays, **moments.to_arrays())
    write_bytes(path, buf.getvalue())


def _load(path: Path, key: str) -> Moments | None:
    """The moments saved at `path` under `key`; None when missing, unreadable or stale."""
    fresh = _FRESH.pop(path, None)
    if fresh is not None and fresh[0] == key and path.is_file():
        return fresh[1]
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["key"]) != key:
                return None
            return Moments.from_arrays(data)
    except (OSError, ValueError, KeyError):
        return None


def load_moments(run_dir: Path, first: int) -> Moments | None:
    """A chunk's saved moments, None when missing, unreadable or not of its current parts."""
    return _load(stats_path(run_dir, first), _key(chunk_record(run_dir, first)))


def lost_moments(run_dir: Path, chunks: list[tuple[int, int]]) -> list[int]:
    """The first games of the chunks whose moments are saved neither in their own file nor
    in the run's merge, for their current parts (reading the files' keys alone)."""
    keys = {first: f"{first}:{_key(chunk_record(run_dir, first))}" for first, _ in chunks}
    covered = _merged_covers(run_dir, set(keys.values()))
    return [
        f for f, key in keys.items() if key not in covered and not _has_moments(run_dir, f, key)
    ]


def _has_moments(run_dir: Path, first: int, key: str) -> bool:
    """Does chunk `first` have its own moments file of its parts (`key`, "first:sha…")?
    Reads the file's key alone (a whole file is about ten arrays to parse)."""
    fresh = _FRESH.get(stats_path(run_dir, first))
    if fresh is not None and f"{first}:{fresh[0]}" == key and stats_path(run_dir, first).is_file():
        return True
    try:
        with np.load(stats_path(run_dir, first), allow_pickle=False) as data:
            return f"{first}:{data['key']}" == key
    except (OSError, ValueError, KeyError):
        return False


def chunk_moments(run_dir: Path, first: int) -> Moments:
    """A chunk's moments: saved, else computed from its parts (and saved when possible)."""
    found = load_moments(run_dir, first)
    if found is not None:
        return found
    record = chunk_record(run_dir, first)  # (None in a folder written before manifests)
    if record is not None and not set(VALUE_TABLES) <= set(record.get("tables", VALUE_TABLES)):
        raise SimError(  # a candidate run (`CANDIDATE_TABLES`): no table to compute them from
            f"{run_dir}: the moments of the chunk at game {first} are missing or stale and the"
            " run keeps no cards table; --resume the study folder it is in (the"
            " chunk is played again)"
        )
    moments = moments_of(read_chunk(run_dir, first, VALUE_TABLES))
    try:
        save_moments(run_dir, first, moments)
    except OSError:  # a read-only run folder: compute again next time
        pass
    return moments


def run_chunks(meta: dict) -> list[tuple[int, int]]:
    """(first game, count) of a finished run's chunks, from its run.json."""
    games, size = meta.get("games"), meta.get("chunk_games", LEGACY_CHUNK_GAMES)
    if not (isinstance(games, int) and isinstance(size, int) and games >= 0 and size > 0):
        raise SimError("run.json: damaged (games and chunk_games must be counts)")
    return chunk_ranges(games, size)


def run_moments(
    run_dir: Path,
    meta: dict,
    *,
    compute: Callable[[list[int]], list[Moments]] | None = None,
    say: Callable[[str], None] | None = None,
) -> Moments:
    """The merged moments of every chunk of a run: its saved merge, if every chunk that
    merge covers is as it was then, merged with each chunk it does not cover (chunks
    without saved moments are computed by `compute(firsts)`, default here, one after
    another); the whole merge is saved for next time. `say` hears progress."""
    run_dir = Path(run_dir)
    chunks = run_chunks(meta)
    keys = {first: f"{first}:{_key(chunk_record(run_dir, first))}" for first, _ in chunks}
    total, covered = _load_merged(run_dir, set(keys.values()))
    todo = [first for first, _ in chunks if keys[first] not in covered]
    missing = [first for first in todo if not _has_moments(run_dir, first, keys[first])]
    if say:
        say(
            f"{len(chunks)} chunks of {meta.get('games', 0):,} games:"
            f" {len(chunks) - len(missing)} with saved partial results,"
            f" {len(missing)} to compute"
        )
    if not todo:
        return total
    computed: dict[int, Moments] = {}
    if missing:
        done = (compute or _compute_here(run_dir, say))(missing)
        computed = dict(zip(missing, done, strict=True))
    for first in todo:  # merged in chunk order, one chunk's moments in memory at a time
        part = computed.get(first) or load_moments(run_dir, first)
        if part is None:
            raise SimError(f"{run_dir}: the partial results of chunk {first} are unreadable")
        total = part if total is None else total.merge(part)
    if total is None:
        return Moments.combine([])
    # a run that keeps no cards table keeps its chunks' files too: they are all it has
    drop = set(VALUE_TABLES) <= set(kept_tables(meta, run_dir))
    _keep_merged(run_dir, chunks, [keys[first] for first, _ in chunks], total, drop)
    return total


def run_metrics_of(run: RunResult, names: list[str]) -> pd.DataFrame:
    """The named registry metrics on every game of a finished run (the table of
    `sim.analysis.balance.run_metrics`), from its merged chunk moments, as its summary's
    targets are: no table is read (a tune's or an advice's checks of 30,000 games read them
    for a third of their main process's CPU). From its tables when the moments lack a column
    a metric reads (a feel metric of games played without the feel, which fails there too)."""
    metrics = [metric(n) for n in names]
    moments = run_moments(Path(run.run_dir), run.meta)
    if _has_columns(moments.columns, needs(metrics)):
        return metrics_from_moments(moments, metrics)
    return run_metrics(run.games, run.players, names)


def _has_columns(columns: tuple[str, ...], patterns: tuple[str, ...]) -> bool:
    """Does every pattern (a name, or a family such as `seat*`) match one of the columns?
    (A name is looked up; only a family is matched against each column.)"""
    have = set(columns)
    return all(
        p in have if not any(ch in p for ch in "*?[") else any(matches(c, [p]) for c in columns)
        for p in patterns
    )


def _load_merged(run_dir: Path, current: set[str]) -> tuple[Moments | None, set[str]]:
    """A run's saved merge and the chunks it covers ("first:key"), if every one of them
    is still a chunk of the run with the same parts; else (None, nothing)."""
    covers = _merged_covers(run_dir, current)
    if not covers:
        return None, set()
    try:
        with np.load(run_stats_path(run_dir), allow_pickle=False) as data:
            return Moments.from_arrays(data), covers
    except (OSError, ValueError, KeyError):
        return None, set()


def _merged_covers(run_dir: Path, current: set[str]) -> set[str]:
    """The chunks ("first:key") a run's saved merge covers, if every one of them is still a
    chunk of the run with the same parts; else nothing."""
    path = run_stats_path(run_dir)
    if not path.is_file():
        return set()
    try:
        with np.load(path, allow_pickle=False) as data:
            covers = {str(c) for c in data["covers"]}
    except (OSError, ValueError, KeyError):
        return set()
    return covers if covers <= current else set()


def _keep_merged(
    run_dir: Path, chunks: list[tuple[int, int]], covers: list[str], total: Moments, drop: bool
) -> None:
    """Save a run's merged moments with the chunks they cover, then (`drop`) remove the chunk
    files they replace: a run folder holds one moments file, not one per chunk. Best effort:
    a read-only folder keeps its files and merges them again next time."""
    if len(chunks) < 2:
        return
    try:
        _save(run_stats_path(run_dir), total, covers=covers)
        for first, _ in chunks if drop else ():
            stats_path(run_dir, first).unlink(missing_ok=True)
    except OSError:
        pass


def _compute_here(run_dir: Path, say) -> Callable[[list[int]], list[Moments]]:
    def compute(firsts: list[int]) -> list[Moments]:
        out = []
        for i, first in enumerate(firsts):
            out.append(chunk_moments(run_dir, first))
            if say and (i + 1) % 50 == 0:
                say(f"computed {i + 1} of {len(firsts)} chunks' partial results")
        return out

    return compute


def sample_chunks(chunks: list[tuple[int, int]], max_games: int) -> list[tuple[int, int]]:
    """Evenly spaced chunks holding at most `max_games` games (all of them if they fit;
    always at least one)."""
    total = sum(n for _, n in chunks)
    if total <= max_games or not chunks:
        return list(chunks)
    size = max(n for _, n in chunks)
    keep = max(1, max_games // size)
    picks = np.unique(np.linspace(0, len(chunks) - 1, keep).round().astype(int))
    return [chunks[i] for i in picks]


def sampled_run(run: RunResult, chunks: list[tuple[int, int]]) -> RunResult:
    """The run with only these chunks' rows in its tables (read part by part)."""
    frames: dict[str, list[pd.DataFrame]] = {}
    for first, _ in chunks:
        for name, frame in read_chunk(run.run_dir, first).items():
            frames.setdefault(name, []).append(frame)
    tables = {name: pd.concat(parts, ignore_index=True) for name, parts in frames.items()}
    return RunResult(run.run_dir, run.meta, tables)


def stream_runs(
    runs: list[RunResult],
    *,
    resamples: int | None = None,
    seed: int = 0,
    unpaired: bool = False,
    say: Callable[[str], None] | None = None,
) -> Streamed:
    """The replicate sums of several runs over the same game indices (a comparison's or a
    sweep's points), read one chunk of every point at a time: pairing is on the game
    index inside each chunk, and only resamples x columns sums per point are kept."""
    resamples = resamples or RESAMPLES
    chunks = run_chunks(runs[0].meta)
    if any(run_chunks(r.meta) != chunks for r in runs[1:]):
        raise SimError("points of a comparison or sweep must share their chunks of games")
    total: Streamed | None = None
    for c, (first, _) in enumerate(chunks):
        values = [_chunk_values(r.run_dir, first) for r in runs]
        part = Streamed.of(values, resamples, seed, unpaired)  # sums that merge, chunk by chunk
        total = part if total is None else total.merge(part)
        if say and (c + 1) % 25 == 0:
            say(f"resampled {c + 1} of {len(chunks)} chunks of {len(runs)} points")
    if total is None:
        raise SimError("points of a comparison or sweep hold no games")
    return total


def _chunk_values(run_dir: Path, first: int) -> pd.DataFrame:
    frames = read_chunk(run_dir, first, VALUE_TABLES)
    return game_values(frames["games"], frames["players"], frames["cards"])


# ---------------------------------------------------------------- a run's data for its page

SAMPLE_GAMES = 20_000  # at most this many games' rows are read for the row-level sections


def run_data(run: RunResult, say: Callable[[str], None] | None = None) -> tuple[Moments, RunResult]:
    """The merged moments of every game, and the run or a sample of its chunks' rows
    (computed once per run object: `sim run` and `sim report` also write summary.json)."""
    if "report" not in run.derived:
        moments = run_moments(Path(run.run_dir), run.meta, compute=_on_workers(run), say=say)
        chunks = run_chunks(run.meta)
        sample = sample_chunks(chunks, SAMPLE_GAMES)
        if len(sample) == len(chunks):
            run.derived["report"] = moments, run
        else:
            if say:
                games = sum(n for _, n in sample)
                say(f"reading the rows of {games:,} games ({len(sample)} chunks)")
            run.derived["report"] = moments, sampled_run(run, sample)
    return run.derived["report"]


def _on_workers(run: RunResult) -> Callable[[list[int]], list[Moments]]:
    """Compute missing chunk moments on local worker processes (an older run folder)."""

    def compute(firsts: list[int]) -> list[Moments]:
        folder = Path(run.run_dir)
        tasks = (delayed(_one_chunk)(folder, first) for first in firsts)
        done = dict(parallel_results(tasks, len(firsts), -1 if len(firsts) > 8 else 1))
        return [done[first] for first in firsts]

    return compute


def _one_chunk(folder: Path, first: int) -> tuple[int, Moments]:
    return first, chunk_moments(folder, first)
