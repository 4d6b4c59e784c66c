"""`sim run`: a study's games in parallel chunks, into a run folder (a study of one point).

The work is `sim.runs.orchestrate.execute`; this module picks the folder (new or
resumed) and records the run's timing.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd

from sim.config import StudyConfig
from sim.errors import SimError
from sim.runs.options import ALL_CORES, AS_CONFIGURED, Request, Workers
from sim.runs.orchestrate import Point, chunk_size, execute
from sim.runs.paths import RUN_FILE, check_page
from sim.runs.play import play_arrays
from sim.runs.results import tables
from sim.runs.storage import RunResult, locked, new_folder, resumable_run, resumed, write_json


def run(
    study: StudyConfig | None, request: Request = AS_CONFIGURED, workers: Workers = ALL_CORES
) -> RunResult:
    """Run every game of the study (or the rest of a resumed run) and return its tables.

    With `request.resume`, the study is the one saved in the run folder (a given study
    must match it); `request.seed`, if given, must be its seed, and `request.games`
    extends the run to that many games. Once the study is known, before any game, the
    page the request asks for is checked (`check_page`). The folder is locked while the
    run works on it.
    """
    if request.resume is not None:
        run_dir = request.resume
        if not (run_dir / RUN_FILE).is_file():
            raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE})")
        with locked(run_dir):
            saved, size = resumable_run(run_dir, study)
            study = resumed(saved, run_dir, request.games, request.seed)
            check_page(request, "run", study)
            return _run_in(run_dir, study, size, workers)
    if study is None:
        raise SimError("run: give a study or a run folder to resume")
    if request.overrides():
        study = study.with_overrides(**request.overrides())
    check_page(request, "run", study)
    run_dir = new_folder(
        request.out,
        study.name,
        "run folder exists and is not empty; use --resume {folder} or another --out",
        resume="sim run --resume {folder}",
    )
    with locked(run_dir):
        return _run_in(run_dir, study, chunk_size([study], workers.jobs), workers)


def _run_in(run_dir: Path, study: StudyConfig, size: int, workers: Workers) -> RunResult:
    """Play the run in its (locked) folder and record its timing."""
    done = execute(
        [Point(study, run_dir)],
        size,
        workers,
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
