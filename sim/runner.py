"""`sim run`: a study's games in parallel chunks, into a run folder (a study of one point).

The work is `sim.orchestrate.execute`; this module picks the folder (new or
resumed) and records the run's timing. `load_run` opens a finished folder.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pandas as pd

from sim.config import StudyConfig
from sim.errors import SimError
from sim.orchestrate import Point, chunk_size, execute
from sim.play import play_arrays
from sim.results import tables
from sim.storage import (
    RUN_FILE,
    RunResult,
    load_run,
    locked,
    new_folder,
    resumable_run,
    resumed,
    write_json,
)

__all__ = ["RunResult", "load_run", "run", "run_chunk"]


def run(
    study: StudyConfig | None,
    *,
    jobs: int = -1,
    out: Path | None = None,
    resume: Path | None = None,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    games: int | None = None,
    seed: int | None = None,
    before_play: Callable[[StudyConfig], None] | None = None,
) -> RunResult:
    """Run every game of the study (or the rest of a resumed run) and return its tables.

    With `resume`, the study is the one saved in the run folder (a given study
    must match it); `seed`, if given, must be its seed, and `games` extends the
    run to that many games. `before_play(study)` runs once the study is known,
    before any game (the command line checks the report path there). The folder
    is locked while the run works on it.
    """
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / RUN_FILE).is_file():
            raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE})")
        with locked(run_dir):
            saved, size = resumable_run(run_dir, study)
            study = resumed(saved, run_dir, games, seed)
            return _run_in(run_dir, study, size, before_play, jobs, backend, scheduler, quiet)
    if study is None:
        raise SimError("run: give a study or a run folder to resume")
    if games is not None or seed is not None:
        study = study.with_overrides(
            **{k: v for k, v in (("games", games), ("seed", seed)) if v is not None}
        )
    if before_play is not None:
        before_play(study)
    run_dir = new_folder(
        out,
        study.name,
        "run folder exists and is not empty; use --resume {folder} or another --out",
        resume="sim run --resume {folder}",
    )
    with locked(run_dir):
        size = chunk_size([study], jobs)
        return _run_in(run_dir, study, size, None, jobs, backend, scheduler, quiet)


def _run_in(run_dir, study, size, before_play, jobs, backend, scheduler, quiet) -> RunResult:
    """Play the run in its (locked) folder and record its timing."""
    if before_play is not None:
        before_play(study)
    done = execute(
        [Point(study, run_dir)],
        size,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        quiet=quiet,
        died_hint=f"finished chunks are kept: sim run --resume {run_dir}",
    )
    result = done.runs[0]
    result.meta.update(done.timing())
    result.meta["finished_at"] = datetime.now().isoformat(timespec="milliseconds")
    write_json(run_dir / RUN_FILE, result.meta)
    return result


def run_chunk(study: StudyConfig, first: int, count: int) -> dict[str, pd.DataFrame]:
    """Play games first..first+count-1 and return their tidy rows (nothing is written)."""
    return tables(study, play_arrays(study, first, count))
