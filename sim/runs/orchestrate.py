"""One orchestration for runs, sweeps and comparisons: points, chunks, workers, progress, resume.

A run is a study of one point; a sweep or a comparison is several points that
play the same game indices from the same root seed. `execute` plays the
chunks of every point that are not on disk yet in one worker pool,
chunk-major (every point advances together, so an interrupted sweep is
balanced), writes each chunk into its point's run folder as it finishes, and
marks each point complete once every part matches its manifest (a damaged one
is set aside and played again). A failure or an interrupt marks each point
`failed` or `interrupted`, with the reason, and keeps the finished chunks.
Game i's randomness derives only from (seed, i) and chunks are fixed ranges of
game indices, so the result is the same for any number of workers, any
backend and any resume. With `until` (`--until decided`, `sim.runs.until`) the pool
stops once every question of the study is decided on the contiguous prefix of
chunks; the chunks past that prefix are dropped, so the points hold exactly the
games the decision read.
"""

from __future__ import annotations

import shutil
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from joblib import delayed

from sim import specs
from sim.analysis.values import game_values
from sim.config import StudyConfig
from sim.errors import SimError, one_line, os_problem
from sim.feel.model import FeelModel
from sim.runs import pulse
from sim.runs.chances import chunk_feel
from sim.runs.folders import make_folder
from sim.runs.options import ALL_CORES, Workers
from sim.runs.parallel import (
    WorkerDied,
    check_options,
    interrupt_in,
    parallel_results,
    resolve_jobs,
)
from sim.runs.partials import (
    VALUE_TABLES,
    forget_fresh,
    lost_moments,
    remember_moments,
    save_moments,
    stats_path,
)
from sim.runs.play import engine_is_cached, load_engines, play_arrays
from sim.runs.results import TABLES
from sim.runs.storage import (
    RUN_FILE,
    RunResult,
    chunk_ranges,
    drop_chunk,
    mark_status,
    read_chunk,
    read_json,
    run_meta,
    set_aside,
    study_yaml,
    verify_chunks,
    write_chunk,
    write_text,
)
from sim.runs.tables import arrow_tables
from sim.runs.until import Until, Watch, watched_columns
from sim.runs.values import moments_of_columns, value_columns, values_frame
from sim.specs import ISMCTS_DEFAULTS, LOOKAHEAD_DEFAULTS
from sim.units import pct

# Chunks per worker when a run is cut finer than its policies' chunk size. One worker: four,
# because its last chunk is the only one whose finishing no play overlaps, so that tail is a
# quarter of its finishing. Several workers: two each (equal chunks, the same number per
# worker, keep them balanced), which halves the chunks' fixed costs (about 33 kB of
# footers, dictionaries and page headers a chunk, a task, a manifest): the default base run
# (10,000 games on two workers) went from 132 to 120.5 bytes a game (docs/dev/performance-log.md).
CHUNKS_PER_WORKER = 4
CHUNKS_PER_WORKER_SHARED = 2
MAX_CHUNKS = 100_000  # chunks of all points together: the plan is a list in memory
HEARTBEAT_S = 10.0  # without a progress bar, a line this often
MIN_LOOKS = 20  # a study run until decided is looked at at least this often up to its cap


@dataclass(frozen=True)
class Point:
    """One study to play, the run folder its results go to, its feel model when the study
    measures the feel (`sim.runs.chances`: each game's chance curves summarised), and the
    tables its run keeps (a candidate of a tune, an advice or a map: `CANDIDATE_TABLES`)."""

    study: StudyConfig
    folder: Path
    feel: FeelModel | None = None
    tables: tuple[str, ...] = TABLES


@dataclass(frozen=True)
class Executed:
    """What `execute` did: each point's run, and the pool's wall time and games played."""

    runs: list[RunResult]
    wall_s: float
    played: int
    startup_s: float = 0.0  # loading (or, on a cold cache, compiling) the engine first
    stopped: dict | None = None  # how a study run until decided stopped (sim.analysis.stopping)

    def timing(self) -> dict:
        """wall_time_s (all of it), startup_s (loading or compiling the engine) and
        games_per_s (without the start-up), as run.json and study.json record them."""
        playing = self.wall_s - self.startup_s
        gps = round(self.played / playing, 1) if playing > 0 and self.played else None
        return {
            "wall_time_s": round(self.wall_s, 3),
            "startup_s": round(self.startup_s, 3),
            "games_per_s": gps,
        }


# A search seat's work per decision, against the look-ahead's defaults (4 candidates x 8
# playouts, 4 turns deep; ismcts' default budget costs about the same, `sim.specs`): a
# line-up that searches less gets longer chunks than the search players' 10 games, so a
# chunk's fixed costs (about 10 ms: four Parquet files, a manifest, the moments, a task)
# stay small beside its play. A ladder's look-ahead with 2 rollouts against greedy plays 10
# games in about 30 ms; cut by cost, its chunks take about as long as the others' 0.25 s.
DEFAULT_PLAYOUTS = LOOKAHEAD_DEFAULTS["candidates"] * LOOKAHEAD_DEFAULTS["rollouts"]
DEFAULT_HORIZON = LOOKAHEAD_DEFAULTS["horizon"]
WHOLE_GAME_DEPTH = 8.0  # horizon 0 (to the end): a playout about this many 4-turn ones


def search_cost(policy: str, params: dict) -> float:
    """A seat's search work per decision relative to the look-ahead's defaults (0: none)."""
    if policy == "lookahead":
        merged = {**LOOKAHEAD_DEFAULTS, **params}
        playouts = merged["candidates"] * merged["rollouts"] / DEFAULT_PLAYOUTS
    elif policy == "ismcts":
        merged = {**ISMCTS_DEFAULTS, **params}
        playouts = merged["budget"] / ISMCTS_DEFAULTS["budget"]
    else:
        return 0.0
    horizon = merged["horizon"]
    return playouts * (horizon / DEFAULT_HORIZON if horizon > 0 else WHOLE_GAME_DEPTH)


def lineup_chunk_games(study: StudyConfig) -> int:
    """Games per chunk of one line-up: its slowest policy's size (`sim.specs`); with search
    seats, the search players' size scaled down by the line-up's mean search work per
    decision (every seat decides about as often), never below 1."""
    sizes = [specs.chunk_games(s.policy) for s in study.seats if search_cost(s.policy, {}) == 0]
    work = sum(search_cost(s.policy, s.params) for s in study.seats) / len(study.seats)
    if work > 0:
        searched = specs.chunk_games("lookahead") / work
        sizes.append(max(1, min(int(searched), specs.chunk_games("greedy"))))
    return min(sizes)


def chunk_games(studies: Sequence[StudyConfig], workers: int) -> int:
    """Games per chunk for these studies' line-ups (played together, with the same game
    count) on `workers` workers: the slowest line-up's size (`lineup_chunk_games`), cut
    finer when there would be fewer than CHUNKS_PER_WORKER chunks of all studies on one
    worker (CHUNKS_PER_WORKER_SHARED per worker on several), and evened out so that every
    worker gets the same number of chunks."""
    size = min(lineup_chunk_games(s) for s in studies)
    games = studies[0].games
    total = games * len(studies)
    per_worker = CHUNKS_PER_WORKER if workers == 1 else CHUNKS_PER_WORKER_SHARED
    fine = -(-total // (per_worker * workers))
    fewest = -(-total // MAX_CHUNKS)  # huge runs: coarser, never too many
    chunk = min(games, max(1, fewest, min(size, fine, games)))
    # Each study is cut on its own: 5 chunks on 2 workers leave one idle for a chunk's
    # time, 6 smaller ones do not
    per_study = -(-games // chunk)
    if workers > 1 and chunk > fewest:
        while per_study * len(studies) % workers:
            per_study += 1
        chunk = max(fewest, -(-games // per_study))
    return chunk


def chunk_size(studies: Sequence[StudyConfig], jobs: int) -> int:
    """chunk_games for the worker count that `jobs` gives for these studies' games."""
    return chunk_games(studies, resolve_jobs(jobs, studies[0].games * len(studies)))


def chunk_sizes(studies: Sequence[StudyConfig], jobs: int) -> list[int]:
    """Per study (point), games per chunk: the pool's `chunk_size`, or more for a point
    whose line-up plays faster than the slowest one (a ladder's greedy match beside its
    ISMCTS ones), cut as the pool would be if every point played that line-up."""
    workers = resolve_jobs(jobs, studies[0].games * len(studies))
    pool = chunk_games(studies, workers)
    return [max(pool, chunk_games([s] * len(studies), workers)) for s in studies]


def until_chunk(studies: Sequence[StudyConfig], cap: int) -> int:
    """Games per chunk of studies run until decided, with at most `cap` games each: the
    slowest policy's size, cut so that there are at least MIN_LOOKS looks up to the cap,
    never more than MAX_CHUNKS chunks. Not the worker count: each chunk is a look, so the
    stop is the same on any pool."""
    size = min(lineup_chunk_games(s) for s in studies)
    fewest = -(-cap * len(studies) // MAX_CHUNKS)
    return max(1, fewest, min(size, -(-cap // MIN_LOOKS)))


def _play_chunk(index: int, point: Point, first: int, count: int, columns=None):
    """Play one point's chunk (in a worker) and finish it (`_finish_chunk`)."""
    return _finish_chunk(index, point, play_arrays(point.study, first, count), columns)


def _finish_chunk(index: int, point: Point, chunk, columns=None, spare=None):
    """A played chunk's tables and partial results (moments); both written where this
    process sees the run folder (a local worker, or a Dask worker on a shared file
    system), else returned. Also returns seat 0's mean win share, for the progress bar,
    and with `columns` (a study run until decided) those per-game values. A `spare` thread
    writes the largest table while this one computes the moments (`write_chunk`'s
    `meanwhile`): the last chunk's finishing, which no play overlaps, is a quarter shorter
    so (docs/dev/performance-log.md)."""
    study, folder = point.study, point.folder.absolute()
    first, count = chunk.first, len(chunk.games)
    if point.feel is not None:
        chunk.feel = chunk_feel(point.feel, study, chunk)
    parts = arrow_tables(study, chunk, point.tables)
    seat0 = float(chunk.win_shares()[:, 0].mean()) if count else 0.0
    stats = {}

    def statistics() -> None:
        values = value_columns(study, chunk)
        stats["moments"] = moments_of_columns(values)
        if columns is not None:
            stats["watched"] = watched_columns(values_frame(chunk, values), columns)

    if not _sees_folder(folder, study):
        statistics()
        return index, first, count, seat0, parts, stats["moments"], stats.get("watched")
    write_chunk(folder, first, parts, spare, meanwhile=statistics)
    save_moments(folder, first, stats["moments"])
    # the moments go back too (a few tens of kB): the study reads them next
    return index, first, count, seat0, None, stats["moments"], stats.get("watched")


def _played_here(points: Sequence[Point], todo, columns):
    """The chunks `todo` played in this process (one worker), in order, each finished by a
    thread while the next one plays: the compiled loop releases the GIL, and finishing a
    chunk of cheap games (tables, values, Parquet) costs about as much as its play
    (docs/dev/performance-log.md). The last chunk, which no play overlaps, gets the pool's
    second thread as well, for its largest table (`write_chunk`'s spare; at most one chunk is
    finished at a time, so that thread is free). A stop (Ctrl-C, an error, a decided study)
    still lets the chunk being finished be written whole: the pool's exit waits for its
    threads."""
    try:
        with ThreadPoolExecutor(2, thread_name_prefix="sim-finish") as finisher:
            pending = None
            for k, (i, first, count) in enumerate(todo):
                p = points[i]
                chunk = play_arrays(p.study, first, count)
                if pending is not None:
                    yield pending.result()
                spare = finisher if k == len(todo) - 1 else None
                pending = finisher.submit(_finish_chunk, i, p, chunk, columns, spare=spare)
            if pending is not None:
                yield pending.result()
    except SystemError as exc:  # numba's word for a Ctrl-C inside compiled code
        raise interrupt_in(exc) or exc from None


def _sees_folder(folder: Path, study: StudyConfig) -> bool:
    """Is this the run folder the client made (a running run of this study)? A Dask worker
    on another machine without the shared file system sees no such folder."""
    try:
        meta = read_json(folder / RUN_FILE)
    except (OSError, SimError):
        return False
    return meta.get("status") == "running" and meta.get("config_hash") == study.config_hash()


def execute(
    points: Sequence[Point],
    size: int | Sequence[int],
    workers: Workers = ALL_CORES,
    *,
    died_hint: str,
    until: Until | None = None,
    extra: dict | None = None,
) -> Executed:
    """Play every point's missing chunks in one pool and mark every point complete.

    The points must share their game count; points that share their seed too play paired
    games. `size` is the games per chunk of every point, or of each (`chunk_sizes`): chunks
    are fixed ranges of game indices either way, played in game order. With `until` (one
    `size`, so every point has the same ranges), the game count is the cap and the pool
    stops once the study is decided (on the contiguous prefix, chunks already on disk
    looked at first); each point then holds the games of that prefix, and its run.json
    records how it stopped ("until"). `extra` holds more
    run.json entries (a resumed run's record). `died_hint` ends the message when the run
    stops early (what is kept, how to go on).
    """
    games = points[0].study.games
    if any(p.study.games != games for p in points):
        raise ValueError("points must share their game count")
    check_options(workers.jobs, workers.backend, workers.scheduler)
    sizes = [int(size)] * len(points) if np.ndim(size) == 0 else [int(n) for n in size]
    if len(sizes) != len(points) or (until is not None and len(set(sizes)) > 1):
        raise ValueError("one chunk size, or one per point (one for a study run until decided)")
    ranges = [chunk_ranges(games, n) for n in sizes]  # per point
    if sum(map(len, ranges)) > MAX_CHUNKS:
        raise SimError(
            f"{games:,} games in chunks of {min(sizes)} make more than {MAX_CHUNKS:,} chunks;"
            " start a new run for that many games"
        )
    if until is not None and any(set(VALUE_TABLES) - set(p.tables) for p in points):
        raise ValueError("a study run until decided watches values read from every table")
    more = {**(extra or {}), **({"until": until.meta()} if until is not None else {})}

    def meta_of(p: Point, study: StudyConfig, size: int) -> dict:
        return {**run_meta(study, size, p.tables), **more}

    for p, n in zip(points, sizes, strict=True):
        make_folder(p.folder)
        mark_status(p.folder / RUN_FILE, meta_of(p, p.study, n), "running")
    t0 = time.perf_counter()
    startup = 0.0
    watch = None if until is None else Watch(until, len(points))
    try:
        todo = _pending(points, ranges)  # a resumed run's parts are checked first
        if watch is not None:
            _look_at_saved(watch, points, ranges[0], todo)
            if watch.done:
                todo = []
        backend = workers.backend
        if todo and (backend in (None, "fork") or (backend == "loky" and not engine_is_cached())):
            # load (or compile, once, saying so) before the clock of games/s starts: forked
            # workers inherit it, fresh local ones find it in the cache (Dask workers are
            # on their own machines)
            startup = load_engines(p.study for p in points)
        played = _play(points, todo, games, workers, watch)
        kept = ranges if watch is None else [[r for r in rs if r[0] < watch.games] for rs in ranges]
        again = _pending(points, kept) if played else []  # complete once all verify
        if again:
            played += _play(points, again, games, workers.silent())
            if still := _pending(points, kept):
                raise SimError(f"chunk at game {still[0][1]} fails verification after replay")
    except BaseException as exc:
        _mark_stopped(points, sizes, exc, more)
        _raise_stopped(exc, died_hint)
    stopped = None
    studies = [p.study for p in points]
    if watch is not None:
        stopped = watch.record(played_all=watch.games >= games)
        more["until"] = stopped
        studies = _keep_decided(points, ranges[0], watch.games)
        played = min(played, watch.games * len(points))
    wall = time.perf_counter() - t0
    runs = []
    for p, study, n in zip(points, studies, sizes, strict=True):
        meta = {**meta_of(p, study, n), "status": "complete"}
        mark_status(p.folder / RUN_FILE, meta, "complete")
        write_text(p.folder / "config.yaml", study_yaml(study))
        runs.append(RunResult(p.folder, meta))
    return Executed(runs, wall, played, startup, stopped)


def _raise_stopped(exc: BaseException, died_hint: str) -> None:
    """Raise what stopped a pool, ended by `died_hint` (what is kept, how to go on)."""
    if isinstance(exc, KeyboardInterrupt):  # its kind kept: Ctrl-C or SIGTERM
        raise type(exc)(died_hint) from None
    if isinstance(exc, SimError):
        raise SimError(f"{exc}; {died_hint}") from None
    if isinstance(exc, OSError):
        raise SimError(f"{os_problem(exc)}; {died_hint}") from None
    raise exc


def _keep_decided(
    points: Sequence[Point], ranges: list[tuple[int, int]], decided: int
) -> list[StudyConfig]:
    """An `until` run's points cut to the games that decided it: chunks that finished past
    the decision are not the run's games."""
    beyond = [first for first, _ in ranges if first >= decided]
    for p in points:
        for first in beyond:
            drop_chunk(p.folder, first)
            stats_path(p.folder, first).unlink(missing_ok=True)
    return [p.study.with_overrides(games=decided) for p in points]


def _pending(
    points: Sequence[Point], ranges: list[list[tuple[int, int]]]
) -> list[tuple[int, int, int]]:
    """(point, first game, count) of every chunk not done (`ranges`: each point's), in game
    order, the points in turn at each game; damaged chunks are set aside on the way (and a
    candidate's whose moments are lost: it keeps no table to compute them again from)."""
    chunks = []
    for i, p in enumerate(points):
        bad = {first for first, _ in verify_chunks(p.folder, ranges[i], p.tables)}
        if set(VALUE_TABLES) - set(p.tables):
            for first in lost_moments(p.folder, [r for r in ranges[i] if r[0] not in bad]):
                set_aside(p.folder, first)
                bad.add(first)
        chunks += [(first, i, count) for first, count in ranges[i] if first in bad]
    return [(i, first, count) for first, i, count in sorted(chunks)]


def _look_at_saved(watch: Watch, points, ranges, todo) -> None:
    """Show the watch the chunks a resumed study already holds, in game order, until it may
    stop (each chunk's watched values read from its parts)."""
    missing = {(i, first) for i, first, _ in todo}
    columns = watch.until.columns()
    for first, count in ranges:
        if watch.done:
            return
        for i, p in enumerate(points):
            if (i, first) not in missing:
                frames = read_chunk(p.folder, first, VALUE_TABLES)
                values = game_values(frames["games"], frames["players"], frames["cards"])
                watch.add(i, first, count, watched_columns(values, columns))


def _play(points, todo, games, workers: Workers, watch: Watch | None = None) -> int:
    """Play the chunks `todo` in one pool, writing each as it finishes; games played. With a
    watch, each chunk's values go to it, and the pool stops once it may stop."""
    if not todo:
        return 0
    total = games * len(points)
    done = total - sum(n for _, _, n in todo)
    bar = progress_bar(total, done, workers.quiet)
    detail = None if watch is None else (lambda: watch.progress(force=True))
    beat = None if bar is not None or workers.quiet else Heartbeat(total, done, detail)
    pulse.progress(done, total)  # what a silence says (`sim.runs.pulse`)
    seat0: list[float] = []
    columns = None if watch is None else watch.until.columns()
    forget_fresh()
    here = workers.backend != "dask" and resolve_jobs(workers.jobs, len(todo)) == 1
    if here and not any(specs.is_plugin(s.policy) for p in points for s in p.study.seats):
        # (a plug-in's games are played in forked children: no thread beside a fork)
        results = _played_here(points, todo, columns)
    else:
        tasks = (delayed(_play_chunk)(i, points[i], f, n, columns) for i, f, n in todo)
        results = parallel_results(
            tasks,
            len(todo),
            workers.jobs,
            workers.backend,
            workers.scheduler,
            before_fork=lambda: load_engines(p.study for p in points),
        )
    played = 0
    try:
        for i, first, count, share, parts, moments, watched in results:
            if parts is not None:  # a Dask worker that does not see the folder
                write_chunk(points[i].folder, first, parts)
                save_moments(points[i].folder, first, moments)
            remember_moments(points[i].folder, first, moments)
            played += count
            pulse.progress(done + played, total)
            if watch is not None:
                watch.add(i, first, count, watched)
            if bar is not None:
                bar.update(count)
                if watch is not None:
                    if (text := watch.progress()) is not None:
                        bar.set_postfix_str(_fit(text))
                elif len(points) == 1:
                    seat0.append(share)
                    bar.set_postfix_str(f"seat 0 wins {pct(float(np.mean(seat0)))}")
            elif beat is not None:
                beat.update(count)
            if watch is not None and watch.done:
                break
    finally:
        with warnings.catch_warnings():  # joblib warns of the chunks a stop leaves unplayed
            warnings.simplefilter("ignore")
            results.close()
        if bar is not None:
            bar.close()
        pulse.doing("reading the games it played")
    return played


def _fit(text: str) -> str:
    """A progress bar's postfix cut to what the terminal leaves it."""
    room = max(20, shutil.get_terminal_size((120, 20)).columns - 45)
    return text if len(text) <= room else text[: room - 1] + "…"


def _mark_stopped(
    points: Sequence[Point], sizes: list[int], exc: BaseException, more: dict | None = None
) -> None:
    """Record in each point's run.json why the run stopped (a later command reads it)."""
    if isinstance(exc, KeyboardInterrupt):
        status, reason = "interrupted", "interrupted (Ctrl-C or SIGTERM)"
    elif isinstance(exc, WorkerDied | SimError):
        status, reason = "failed", str(exc)
    elif isinstance(exc, OSError):
        status, reason = "failed", os_problem(exc)
    else:
        status, reason = "failed", one_line(exc)
    for p, size in zip(points, sizes, strict=True):
        meta = {**run_meta(p.study, size, p.tables), **(more or {})}
        mark_status(p.folder / RUN_FILE, meta, status, reason[:500])


class Heartbeat:
    """Progress lines on stderr when no bar can be drawn (not a terminal: a pipe, a log, CI),
    one every HEARTBEAT_S seconds, so a long pool is never silent; `detail()` adds the
    current estimates of a study run until decided."""

    def __init__(self, total: int, done: int, detail: Callable[[], str | None] | None = None):
        self.total, self.done, self.detail = total, done, detail
        self.t0 = self.said = time.perf_counter()

    def update(self, count: int) -> None:
        self.done += count
        now = time.perf_counter()
        if now - self.said >= HEARTBEAT_S and self.done < self.total:
            self.said = now
            share = pct(self.done / self.total)
            most = "" if self.detail is None else "at most "
            line = (
                f"  played {self.done:,} of {most}{self.total:,} games ({share}) in"
                f" {now - self.t0:.0f} s"
            )
            said = self.detail() if self.detail is not None else None
            print(f"{line}; {said}" if said else line, file=sys.stderr, flush=True)


def progress_bar(total: int, done: int, quiet: bool):
    """A tqdm bar on an interactive terminal, else None."""
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit="game", smoothing=0.1, dynamic_ncols=True)
