"""`sim sweep`: every point of a grid of one or two game settings, on the same games.

The points share their game indices and seed (common random numbers,
`sim.studies.common`), so a change from point to point comes from the setting.
`--resume` finishes an interrupted sweep where it stopped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from sim.config import Settings, StudyConfig
from sim.errors import SimError
from sim.runs.chances import can_feel, feel_noise, study_feel, wants_noise
from sim.runs.folders import locked
from sim.runs.options import Request, Workers
from sim.runs.paths import check_page, folder_stem
from sim.runs.storage import LEGACY_CHUNK_GAMES, RunResult, read_study_meta, study_yaml, write_text
from sim.runs.until import Plan, check_request, new_plan, resumed_plan, study_questions
from sim.studies.common import fresh_dir, open_study, recorded_chunks, run_points, same_study


@dataclass
class SweepResult:
    """A finished sweep: the study, one run per point, and the tables of all points."""

    study: StudyConfig
    out_dir: Path
    points: list[Settings]  # {dotted path: value} per point, in sweep order
    runs: list[RunResult]
    meta: dict = field(default_factory=dict)

    @property
    def params(self) -> list[str]:
        """The swept dotted paths, e.g. ['deck.sprayers']."""
        return list(self.study.sweep)

    @property
    def labels(self) -> list[str]:
        """One short label per point: 'deck.sprayers=4'."""
        return [point_label(p) for p in self.points]

    def point_frame(self) -> pd.DataFrame:
        """One row per point: point index, label and the swept values as columns."""
        rows = [
            {"point": i, "label": point_label(p), **{k: _cell(v) for k, v in p.items()}}
            for i, p in enumerate(self.points)
        ]
        return pd.DataFrame(rows)

    def _stacked(self, name: str) -> pd.DataFrame:
        parts = []
        for i, (point, run) in enumerate(zip(self.points, self.runs, strict=True)):
            frame = getattr(run, name).copy()
            frame.insert(1, "point", i)
            for j, (key, value) in enumerate(point.items()):
                if key not in frame.columns:  # games already has `players`
                    frame.insert(2 + j, key, _cell(value))
            parts.append(frame)
        return pd.concat(parts, ignore_index=True)

    # Each table of every point, with `point` and the swept values as columns (read once).
    games = cached_property(lambda self: self._stacked("games"))
    players = cached_property(lambda self: self._stacked("players"))
    cards = cached_property(lambda self: self._stacked("cards"))
    turns = cached_property(lambda self: self._stacked("turns"))


def point_label(point: Settings) -> str:
    """'deck.sprayers=4, hand_size=3' ('base' for the empty point)."""
    if not point:
        return "base"
    return ", ".join(f"{k}={_cell(v)}" for k, v in point.items())


def _cell(value: Any) -> Any:
    """A swept value as a table cell: scalars as they are, mappings and lists as JSON."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, sort_keys=True)
    return value


def run_sweep(study: StudyConfig | None, request: Request, workers: Workers) -> SweepResult:
    """Play every sweep point on the same games and seed; one pool for all chunks.

    With `request.resume`, finish the sweep folder an interrupted call left (a given
    study must be the one it was started with; the request's seed must be its seed and
    its games extend it). With `request.until` ("decided"), stop once every question of
    the sweep is decided (`sim.runs.until`), or at `request.max_games` per point; a resumed
    sweep so started goes on that way. The page is checked before any game. The folder is
    locked while the sweep works on it.
    """
    check_request(request.until, request.max_games, request.games)
    if request.resume is not None:
        out_dir = request.resume
        read_study_meta(out_dir, "sweep")
        with locked(out_dir):
            saved = read_study_meta(out_dir, "sweep")
            original = same_study(saved, study, out_dir, "sweep")
            plan = resumed_plan(saved, original, request, out_dir)
            check_page(request, "sweep", plan.study)
            size = recorded_chunks(saved, out_dir, len(original.sweep_points()), LEGACY_CHUNK_GAMES)
            return _sweep_in(out_dir, plan, size, workers, bool(saved.get("feel")))
    if study is None:
        raise SimError("sweep: give a study or a sweep folder to resume")
    if not study.sweep:
        raise SimError(f"{study.source}: no 'sweep:' block; add e.g. {{deck.sprayers: [0, 4]}}")
    if request.overrides():
        study = study.with_overrides(**request.overrides())
    plan = new_plan(study, request.until, request.max_games)
    check_page(request, "sweep", plan.study)
    stem = folder_stem("sweep", study.name)
    out_dir = fresh_dir(request.out, stem, "sim sweep --resume {folder}")
    with locked(out_dir):
        return _sweep_in(out_dir, plan, None, workers, request.feel)


def _sweep_in(
    out_dir: Path, plan: Plan, size: int | list[int] | None, workers: Workers, feel: bool
):
    """Play a sweep in its (locked) folder (measuring the feel when asked: a resumed sweep
    as it was started)."""
    study = plan.study
    points = study.sweep_points()
    head = {
        "kind": "sweep",
        "name": study.name,
        "config": study.to_yaml_dict(),
        "config_hash": study.config_hash(),
        "source": study.source,
        "folder": study.folder,
        "params": list(study.sweep),
        "points": [{"label": point_label(p), "values": p} for p in points],
        "feel": feel,
    }
    write_text(out_dir / "config.yaml", study_yaml(study))
    studies = sweep_studies(study)
    if feel and can_feel(studies) and wants_noise(study):
        # a feel target: every point is judged by the one model fitted for the sweep, so each
        # point's interval adds that model's own noise (its refits), as a run's does
        study_feel(studies, workers.quiet)  # the model fitted (or read from its cache) first
        head["feel_noise"] = feel_noise(studies, workers.quiet)
    labels = [point_label(p) for p in points]
    questions = study_questions("sweep", studies, labels, head.get("feel_noise"))
    runs, meta = run_points(
        studies, out_dir, head, workers, size, plan.until(questions), plan.extra
    )
    if meta["games"] != study.games:  # stopped when decided
        study = study.with_overrides(games=meta["games"])
        write_text(out_dir / "config.yaml", study_yaml(study))
    return SweepResult(study=study, out_dir=out_dir, points=points, runs=runs, meta=meta)


def sweep_studies(study: StudyConfig) -> list[StudyConfig]:
    """The study of every sweep point (same games and seed), in `sweep_points()` order."""
    return [
        study.with_overrides(sweep=None, name=f"{study.name}[{point_label(p)}]", **p)
        for p in study.sweep_points()
    ]


def load_sweep(out_dir: str | Path) -> SweepResult:
    """Open a finished sweep folder (for reports and notebooks)."""
    o = open_study(out_dir, "sweep")
    points = o.study.sweep_points()
    return SweepResult(study=o.study, out_dir=o.out_dir, points=points, runs=o.runs, meta=o.meta)
