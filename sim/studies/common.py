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

from dataclasses import dataclass
from pathlib import Path

from sim.config import StudyConfig, parse_study
from sim.errors import SimError
from sim.runs.options import Request, Workers
from sim.runs.orchestrate import Executed, Point, chunk_size, execute
from sim.runs.paths import STUDY_FILE, check_page, folder_stem
from sim.runs.storage import (
    RunResult,
    load_run,
    locked,
    mark_status,
    new_folder,
    point_dir,
    read_study_meta,
    require_complete,
    saved_study,
    study_yaml,
    write_json,
    write_text,
)
from sim.version import ENGINE_VERSION


def run_points(
    studies: list[StudyConfig],
    out_dir: Path,
    head: dict,
    workers: Workers,
    size: int | None = None,
) -> tuple[list[RunResult], dict]:
    """Play every study's games in one pool (`sim.runs.orchestrate.execute`), each point into
    its own run folder, with `study.json` recording the whole. `size` is the chunk size a
    resumed folder was started with."""
    games, seed = studies[0].games, studies[0].seed
    if size is None:
        size = chunk_size(studies, workers.jobs)
    meta = {
        "sets": list(studies[0].sets),  # the command line's --set changes (of A, in a compare)
        **head,
        "engine_version": ENGINE_VERSION,
        "games": games,
        "seed": seed,
        "chunk_games": size,
    }
    write_json(out_dir / STUDY_FILE, {**meta, "status": "running"})
    hint = f"sim sweep --resume {out_dir}" if head["kind"] == "sweep" else "run it again"
    try:
        done: Executed = execute(
            [Point(s, point_dir(out_dir, i)) for i, s in enumerate(studies)],
            size,
            workers,
            died_hint=f"finished chunks are kept in {out_dir}: {hint}",
        )
    except BaseException as exc:
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        mark_status(out_dir / STUDY_FILE, meta, status, str(exc)[:500] or status)
        raise
    meta.update(status="complete", **done.timing())
    write_json(out_dir / STUDY_FILE, meta)
    return done.runs, meta


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
    out_dir = fresh_dir(request.out, folder_stem(kind, study.name), None)
    with locked(out_dir):
        head = {"kind": kind, "name": study.name, "config": study.to_yaml_dict(), **head}
        write_text(out_dir / "config.yaml", study_yaml(study))
        runs, meta = run_points(studies, out_dir, head, workers)
    return out_dir, runs, meta


def same_study(saved: dict, study: StudyConfig | None, out_dir: Path, kind: str) -> StudyConfig:
    """The study a folder was started with; refuses a different given study."""
    original = saved_study(saved, out_dir / STUDY_FILE)
    if study is not None and (
        study.config_hash() != original.config_hash() or study.games != original.games
    ):
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
    study = None if kind == "compare" else saved_study(meta, out_dir / STUDY_FILE, plugins=False)
    runs = [load_run(point_dir(out_dir, i)) for i in range(len(meta["points"]))]
    return Opened(out_dir, meta, study, runs)
