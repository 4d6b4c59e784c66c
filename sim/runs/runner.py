"""`sim run`: a study's games in parallel chunks, into a run folder (a study of one point).

The work is `sim.runs.orchestrate.execute`; this module picks the folder (new or
resumed), the plan (a fixed number of games, or until decided: `sim.runs.until`) and
records the run's timing.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd

from sim.config import StudyConfig
from sim.errors import SimError
from sim.feel.model import FeelModel
from sim.runs.chances import can_feel, chunk_feel, feel_noise, run_feel, wants_noise
from sim.runs.folders import locked, new_folder
from sim.runs.options import ALL_CORES, AS_CONFIGURED, Request, Workers
from sim.runs.orchestrate import Point, chunk_size, execute, until_chunk
from sim.runs.paths import RUN_FILE, check_page
from sim.runs.play import play_arrays
from sim.runs.storage import RunResult, read_json, resumable_run, write_json
from sim.runs.tables import tables
from sim.runs.until import Plan, check_request, new_plan, resumed_plan, study_questions


def run(
    study: StudyConfig | None, request: Request = AS_CONFIGURED, workers: Workers = ALL_CORES
) -> RunResult:
    """Run every game of the study (or the rest of a resumed run) and return its tables.

    With `request.resume`, the study is the one saved in the run folder (a given study
    must match it); `request.seed`, if given, must be its seed, and `request.games`
    extends the run to that many games. With `request.until` ("decided") the run stops
    once its questions are decided (`sim.runs.until`), or at `request.max_games`; a
    resumed run so started goes on that way. Once the study is known, before any game, the
    page the request asks for is checked (`check_page`). The folder is locked while the
    run works on it.
    """
    check_request(request.until, request.max_games, request.games)
    if request.resume is not None:
        run_dir = request.resume
        if not (run_dir / RUN_FILE).is_file():
            raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE})")
        with locked(run_dir):
            saved, size = resumable_run(run_dir, study)
            meta = read_json(run_dir / RUN_FILE)
            plan = resumed_plan(meta, saved, request, run_dir)
            check_page(request, "run", plan.study)
            # a resumed run measures what it was started with, so its chunks agree
            return _run_in(run_dir, plan, size, workers, bool(meta.get("feel")))
    if study is None:
        raise SimError("run: give a study or a run folder to resume")
    if request.overrides():
        study = study.with_overrides(**request.overrides())
    plan = new_plan(study, request.until, request.max_games)
    check_page(request, "run", plan.study)
    run_dir = new_folder(
        request.out,
        study.name,
        "run folder exists and is not empty; use --resume {folder} or another --out",
        resume="sim run --resume {folder}",
    )
    with locked(run_dir):
        size = (
            chunk_size([plan.study], workers.jobs)
            if plan.cap is None
            else until_chunk([plan.study], plan.cap)
        )
        return _run_in(run_dir, plan, size, workers, request.feel)


def _run_in(run_dir: Path, plan: Plan, size: int, workers: Workers, feel: bool) -> RunResult:
    """Play the run in its (locked) folder, with its feel model when it measures the feel,
    and record its timing."""
    feel = feel and can_feel([plan.study])
    model = run_feel([plan.study], [run_dir], workers.quiet) if feel else None
    extra = {**plan.extra, "feel": feel}
    if feel and wants_noise(plan.study):  # a target on a feel metric adds the model's noise
        extra["feel_noise"] = feel_noise([plan.study], workers.quiet)
    questions = study_questions("run", [plan.study], [plan.study.name], extra.get("feel_noise"))
    done = execute(
        [Point(plan.study, run_dir, model)],
        size,
        workers,
        died_hint=f"finished chunks are kept: sim run --resume {run_dir}",
        until=plan.until(questions),
        extra=extra,
    )
    result = done.runs[0]
    result.meta.update(done.timing())
    result.meta["finished_at"] = datetime.now().isoformat(timespec="milliseconds")
    write_json(run_dir / RUN_FILE, result.meta)
    return result


def run_chunk(
    study: StudyConfig, first: int, count: int, feel: FeelModel | None = None
) -> dict[str, pd.DataFrame]:
    """Play games first..first+count-1 and return their tidy rows (nothing is written),
    with the feel columns when given the study's feel model (`sim.runs.chances`)."""
    chunk = play_arrays(study, first, count)
    if feel is not None:  # a model whose players include the study's
        chunk.feel = chunk_feel(feel, study, chunk)
    return tables(study, chunk)
