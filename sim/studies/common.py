"""What every study stands on: several points played on the same games in one pool.

Every point of a study (a sweep's grid points, a comparison's two sides, the value
study's restrictions, the ladder's matches, ...) plays the same game indices from
the same root seed, so game i of one point and game i of another share their
shuffle (each physical card's sort key depends only on the game's stream, its
name and its copy number) and their seat streams: a difference between points
comes from the settings, not from luck. The chunks of all points go to one
parallel pool, chunk-major, so a partial study has equal progress at every point.

Folder layout (one run folder per point, so `load_run` and `sim report` work on
any single point):

    <out>/study.json            kind, labels, point values, status
    <out>/config.yaml           the study (a comparison: both configs)
    <out>/points/p00/           a run folder: run.json, config.yaml, chunks/, *.parquet
    <out>/points/p01/ ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sim.config import StudyConfig, parse_study
from sim.errors import SimError
from sim.runs.chances import can_feel, run_feel
from sim.runs.folders import locked, new_folder, read_status
from sim.runs.options import Request, Workers
from sim.runs.orchestrate import Executed, Point, chunk_sizes, execute, until_chunk
from sim.runs.paths import STUDY_FILE, check_page, folder_stem
from sim.runs.storage import (
    RunResult,
    load_run,
    mark_status,
    point_dir,
    read_study_meta,
    require_complete,
    saved_study,
    study_yaml,
    write_json,
    write_text,
)
from sim.runs.until import Until
from sim.version import ENGINE_VERSION


def run_points(
    studies: list[StudyConfig],
    out_dir: Path,
    head: dict,
    workers: Workers,
    size: int | list[int] | None = None,
    until: Until | None = None,
    extra: dict | None = None,
) -> tuple[list[RunResult], dict]:
    """Play every study's games in one pool (`sim.runs.orchestrate.execute`), each point into
    its own run folder, with `study.json` recording the whole. `size` is the chunk size (or
    one per point) a resumed folder was started with. With `until`, the studies' games are
    the cap and the pool stops once the study is decided: study.json then records how (its
    "until") and the games played; `extra` holds more study.json entries (a resumed
    study's record)."""
    games, seed = studies[0].games, studies[0].seed
    if size is None and until is None:
        sizes = chunk_sizes(studies, workers.jobs)  # a point of faster players: longer chunks
        size = sizes[0] if len(set(sizes)) == 1 else sizes
    elif size is None:
        size = until_chunk(studies, games)
    # one feel model for every point when the study measures the feel (`head["feel"]`), saved
    # in each run folder: a resumed study reads the one it started with
    folders = [point_dir(out_dir, i) for i in range(len(studies))]
    if head.get("feel") and not can_feel(studies):
        head = {**head, "feel": False}  # a designer's own policy at the table: no pilot games
    model = run_feel(studies, folders, workers.quiet) if head.get("feel") else None
    meta = {
        "sets": list(studies[0].sets),  # the command line's --set changes (of A, in a compare)
        **head,
        "engine_version": ENGINE_VERSION,
        "games": games,
        "seed": seed,
        "chunk_games": size,
        **(extra or {}),
        **({"until": until.meta()} if until is not None else {}),
    }
    write_json(out_dir / STUDY_FILE, {**meta, "status": "running"})
    hint = finish_hint(head["kind"], out_dir)
    try:
        done: Executed = execute(
            [Point(s, folder, model) for s, folder in zip(studies, folders, strict=True)],
            size,
            workers,
            died_hint=f"finished chunks are kept in {out_dir}: {hint}",
            until=until,
            extra=extra,
        )
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            status, reason = "interrupted", "interrupted (Ctrl-C or SIGTERM)"
        else:
            status, reason = "failed", str(exc)[:500] or "failed"
        mark_status(out_dir / STUDY_FILE, meta, status, reason)
        raise
    meta.update(status="complete", **done.timing())
    if done.stopped is not None:  # the games the decision read, in the study's own record
        n = done.stopped["games"]
        meta.update(games=n, until=done.stopped)
        if "config" in meta:
            meta["config"] = {**meta["config"], "games": n}
        if "configs" in meta:
            meta["configs"] = [{**c, "games": n} for c in meta["configs"]]
    write_json(out_dir / STUDY_FILE, meta)
    return done.runs, meta


RESUMABLE = ("sweep", "compare", "tune", "value", "ladder", "luck")  # the kinds with --resume


def finish_hint(kind: str, out_dir: Path | str) -> str:
    """How to finish a study folder of `kind` that stopped: its --resume, or run it again."""
    return f"sim {kind} --resume {out_dir}" if kind in RESUMABLE else "run it again"


# A study.json not yet done: a run's or study's `running`, the phases of a tune and of an
# advice (and the tune's names before it had phases).
WORKING = (
    "running",
    "start",
    "search",
    "select",
    "confirm",
    "diagnose",
    "screen",
    "searching",
    "searched",
    "confirming",
)


@contextmanager
def stop_marked(folder: Path | None, fresh: bool) -> Iterator[None]:
    """On the way out of an exception, say in `folder`'s study.json that the work stopped:
    `interrupted` after Ctrl-C or SIGTERM, `failed` (with the reason) after an error in a
    folder this command made (`fresh`); a study.json already saying how it ended is kept."""
    try:
        yield
    except BaseException as exc:
        interrupted = isinstance(exc, KeyboardInterrupt)
        path = folder / STUDY_FILE if folder is not None else None
        meta = read_status(path) if path is not None and (interrupted or fresh) else None
        if meta is not None and meta.get("status") in WORKING:
            reason = "interrupted (Ctrl-C or SIGTERM)" if interrupted else str(exc)[:500]
            mark_status(path, meta, "interrupted" if interrupted else "failed", reason)
        raise


@dataclass(frozen=True)
class Points:
    """A study's points as its kind builds them from the study and the games per point: the
    kind's own point objects, their studies, labels and study.json entries (its "points")."""

    items: list
    studies: list[StudyConfig]
    labels: list[str]
    head: dict


def play_points(
    kind: str,
    study: StudyConfig | None,
    request: Request,
    workers: Workers,
    build: Callable[[StudyConfig, int | None], Points],
) -> tuple[StudyConfig, Path, Points, list[RunResult], dict]:
    """Play a study of several points (value, ladder) new, or finish its folder
    (`request.resume`, its games kept): (study, folder, points, runs, study meta)."""
    if request.resume is not None:
        with resuming(request, kind, study) as (out_dir, saved, study):
            points = build(study, same_games(request, saved, out_dir))
            check_page(request, kind, study)
            runs, meta = resume_points(out_dir, saved, points.studies, points.labels, workers)
        return study, out_dir, points, runs, meta
    study = new_study(study, request, kind)
    points = build(study, request.games)
    out_dir, runs, meta = play_new_study(study, kind, points.studies, points.head, request, workers)
    return study, out_dir, points, runs, meta


def new_study(study: StudyConfig | None, request: Request, kind: str) -> StudyConfig:
    """The study a new `sim KIND` call plays: the config's, at `--seed` if given; without a
    config (and no --resume) one error line."""
    if study is None:
        raise SimError(f"sim {kind}: give a CONFIG file, or --resume {kind.upper()}_DIR")
    return study if request.seed is None else study.with_overrides(seed=request.seed)


def fresh_dir(out: Path | None, stem: str, resume: str | None) -> Path:
    """A new, empty study folder: `out` or runs/<stem>-<time> (`resume`: how to finish one)."""
    return new_folder(out, stem, "folder exists and is not empty; use another --out", resume)


def play_new_study(
    study: StudyConfig,
    kind: str,
    studies: list[StudyConfig],
    head: dict,
    request: Request,
    workers: Workers,
) -> tuple[Path, list[RunResult], dict]:
    """A new study folder of one kind (value, ladder, luck): its page checked before any
    game, the folder (default runs/<name>-<kind>-<time>) under its lock with `config.yaml`,
    and every point's games in one pool. `head` holds the kind's own study.json entries
    (its "points" among them). Returns (folder, runs, study meta)."""
    check_page(request, kind, study)
    out_dir = fresh_dir(
        request.out, folder_stem(kind, study.name), f"sim {kind} --resume {{folder}}"
    )
    with locked(out_dir):
        head = {"kind": kind, "name": study.name, "config": study.to_yaml_dict(), **head}
        write_text(out_dir / "config.yaml", study_yaml(study))
        runs, meta = run_points(studies, out_dir, head, workers)
    return out_dir, runs, meta


@contextmanager
def resuming(
    request: Request, kind: str, study: StudyConfig | None
) -> Iterator[tuple[Path, dict, StudyConfig]]:
    """(folder, its study.json, the study it was started with) of the study folder
    `request.resume`, held under its lock while the caller finishes it. Refuses another kind
    of folder, another engine, a given config other than the one it started from, another
    --seed, and --out (a resumed study stays in its folder)."""
    out_dir = Path(request.resume)
    if request.out is not None:
        raise SimError(f"--out: a resumed {kind} stays in its folder; leave --out out")
    read_study_meta(out_dir, kind)  # before the lock: not a study folder at all
    with locked(out_dir):
        saved = read_study_meta(out_dir, kind)
        original = same_study(saved, study, out_dir, kind)
        if request.seed is not None and request.seed != original.seed:
            raise SimError(
                f"--seed {request.seed}: {out_dir} was started with seed {original.seed}; a"
                " resumed study keeps its seed (leave --seed out)"
            )
        yield out_dir, saved, original


def resume_points(
    out_dir: Path,
    saved: dict,
    studies: list[StudyConfig],
    labels: list[str],
    workers: Workers,
) -> tuple[list[RunResult], dict]:
    """Finish a stopped study folder (under its lock, `resuming`): the points rebuilt from
    its saved study must be the ones it recorded; the chunks on disk are kept (checked), the
    rest played with the folder's own chunk size."""
    recorded = [p.get("label") for p in saved.get("points") or [] if isinstance(p, dict)]
    if recorded != labels:
        raise SimError(
            f"{out_dir / STUDY_FILE}: its points are not the ones its study gives (damaged, or"
            " written by another version); start a new study"
        )
    size = recorded_chunks(saved, out_dir, len(studies))
    head = {k: v for k, v in saved.items() if k not in RUN_KEYS}
    return run_points(studies, out_dir, head, workers, size)


def recorded_chunks(saved: dict, out_dir: Path, points: int, legacy=None) -> int | list[int]:
    """The chunk size a study folder was started with (its study.json's "chunk_games": one
    for every point, or one per point); `legacy` for a folder that recorded none."""
    size = saved.get("chunk_games", legacy)
    sizes = size if isinstance(size, list) and len(size) == points else [size]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes):
        raise SimError(f"{out_dir / STUDY_FILE}: damaged (no chunk size recorded)")
    return size


def same_games(request: Request, saved: dict, out_dir: Path) -> int:
    """The games per point of a study folder being resumed; --games, if given, must be them."""
    games = saved.get("games")
    if not isinstance(games, int) or games < 1:
        raise SimError(f"{out_dir / STUDY_FILE}: damaged (no games per point recorded)")
    if request.games is not None and request.games != games:
        raise SimError(
            f"--games {request.games}: the folder's study plays {games:,} games per point; a"
            " resumed study keeps them (leave --games out)"
        )
    return games


# What run_points (re)writes in study.json, left out of the head a resumed study passes on.
RUN_KEYS = ("status", "reason", "wall_time_s", "startup_s", "games_per_s")


def same_study(saved: dict, study: StudyConfig | None, out_dir: Path, kind: str) -> StudyConfig:
    """The study a folder was started with; refuses a different given study (or games, but
    for a study run until decided, whose games are its cap or its stop)."""
    original = saved_study(saved, out_dir / STUDY_FILE)
    games = "until" not in saved and study is not None and study.games != original.games
    if study is not None and (study.config_hash() != original.config_hash() or games):
        raise SimError(f"{out_dir}: this {kind} was started from a different config")
    return original


@dataclass(frozen=True)
class Opened:
    """A finished study folder: its study.json, its study (None for a comparison, which
    has two) and every point's run."""

    out_dir: Path
    meta: dict
    study: StudyConfig | None
    runs: list[RunResult]

    def point_study(self, index: int) -> StudyConfig:
        """The study point `index` played (as its run.json records it; no plug-in loaded)."""
        where = str(self.out_dir / STUDY_FILE)
        meta = self.runs[index].meta
        return parse_study(meta["config"], where, plugins=False, sets=meta.get("sets") or ())


def open_study(out_dir: str | Path, kind: str) -> Opened:
    """Open a finished study folder of one kind (for reports and notebooks): refuses another
    kind, another engine version or an unfinished study."""
    out_dir = Path(out_dir)
    meta = read_study_meta(out_dir, kind)
    require_complete(out_dir, meta, kind)
    points = meta.get("points")
    if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
        raise SimError(f"{out_dir / STUDY_FILE}: damaged (its points are not a list of points)")
    study = None if kind == "compare" else saved_study(meta, out_dir / STUDY_FILE, plugins=False)
    runs = [load_run(point_dir(out_dir, i)) for i in range(len(meta["points"]))]
    return Opened(out_dir, meta, study, runs)
