"""`sim sweep` and `sim compare`: several configs on the same games (common random numbers).

Every point of a sweep, and both sides of a comparison, play the same game
indices from the same root seed, so game i of one point and game i of another
share their shuffle (each physical card's sort key depends only on the game's
stream, its name and its copy number) and their seat streams; a difference
between points comes from the parameter, not from luck. The chunks of all
points go to one parallel pool, chunk-major, so a partial sweep has equal
progress at every point.

Folder layout (one run folder per point, so `load_run` and `sim report` work
on any single point):

    <out>/study.json            kind, labels, point values, status
    <out>/config.yaml           the sweep study (sweeps) or both configs (compares)
    <out>/points/p00/           a run folder: run.json, config.yaml, chunks/, *.parquet
    <out>/points/p01/ ...
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from sim.config import StudyConfig, parse_study
from sim.engine.state import ENGINE_VERSION
from sim.errors import SimError
from sim.orchestrate import Executed, Point, chunk_size, execute
from sim.results import TABLES
from sim.storage import (
    LEGACY_CHUNK_GAMES,
    STUDY_FILE,
    RunResult,
    load_run,
    locked,
    mark_status,
    new_folder,
    point_dir,
    read_study_meta,
    require_complete,
    resumed,
    saved_study,
    study_yaml,
    write_json,
    write_text,
)

# ---------------------------------------------------------------- results


@dataclass
class SweepResult:
    """A finished sweep: the study, one run per point, and the tables of all points."""

    study: StudyConfig
    out_dir: Path
    points: list[dict[str, Any]]  # {dotted path: value} per point, in sweep order
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

    @cached_property
    def games(self) -> pd.DataFrame:
        """games rows of every point, with `point` and the swept values as columns."""
        return self._stacked("games")

    @cached_property
    def players(self) -> pd.DataFrame:
        """players rows of every point, with `point` and the swept values as columns."""
        return self._stacked("players")

    @cached_property
    def cards(self) -> pd.DataFrame:
        """cards rows of every point, with `point` and the swept values as columns."""
        return self._stacked("cards")

    @cached_property
    def turns(self) -> pd.DataFrame:
        """turns rows (the score trace) of every point, with `point` and the swept values."""
        return self._stacked("turns")


@dataclass
class CompareResult:
    """A finished paired comparison: two runs on the same game indices and seed."""

    a: RunResult
    b: RunResult
    labels: tuple[str, str]
    out_dir: Path
    studies: tuple[StudyConfig, StudyConfig]
    meta: dict = field(default_factory=dict)

    def tables(self, side: int) -> dict[str, pd.DataFrame]:
        """The tables of side 0 (A) or 1 (B)."""
        run = (self.a, self.b)[side]
        return {name: getattr(run, name) for name in TABLES}


def point_label(point: dict[str, Any]) -> str:
    """'deck.sprayers=4, hand_size=3' ('base' for the empty point)."""
    if not point:
        return "base"
    return ", ".join(f"{k}={_cell(v)}" for k, v in point.items())


def _cell(value: Any) -> Any:
    """A swept value as a table cell: scalars as they are, mappings and lists as JSON."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, sort_keys=True)
    return value


# ---------------------------------------------------------------- public entry points


def run_sweep(
    study: StudyConfig | None,
    *,
    jobs: int = -1,
    out: Path | str | None = None,
    resume: Path | str | None = None,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    games: int | None = None,
    seed: int | None = None,
    before_play: Callable[[StudyConfig], None] | None = None,
) -> SweepResult:
    """Play every sweep point on the same games and seed; one pool for all chunks.

    With `resume`, finish the sweep folder an interrupted call left (a given
    study must be the one it was started with; `seed` must be its seed and
    `games` extends it). `before_play(study)` runs before any game. The folder
    is locked while the sweep works on it.
    """
    if resume is not None:
        out_dir = Path(resume)
        read_study_meta(out_dir, "sweep")
        with locked(out_dir):
            saved = read_study_meta(out_dir, "sweep")
            original = _same_study(saved, study, out_dir, "sweep")
            study = resumed(original, out_dir, games, seed)
            size = saved.get("chunk_games", LEGACY_CHUNK_GAMES)
            return _sweep_in(out_dir, study, size, before_play, jobs, quiet, backend, scheduler)
    if study is None:
        raise SimError("sweep: give a study or a sweep folder to resume")
    if not study.sweep:
        raise SimError(f"{study.source}: no 'sweep:' block; add e.g. {{deck.sprayers: [0, 4]}}")
    if games is not None or seed is not None:
        study = study.with_overrides(
            **{k: v for k, v in (("games", games), ("seed", seed)) if v is not None}
        )
    if before_play is not None:
        before_play(study)
    out_dir = fresh_dir(out, f"{study.name}-sweep", "sim sweep --resume {folder}")
    with locked(out_dir):
        return _sweep_in(out_dir, study, None, None, jobs, quiet, backend, scheduler)


def _sweep_in(out_dir, study, size, before_play, jobs, quiet, backend, scheduler) -> SweepResult:
    """Play a sweep in its (locked) folder."""
    if before_play is not None:
        before_play(study)
    points = study.sweep_points()
    studies = sweep_studies(study)
    head = {
        "kind": "sweep",
        "name": study.name,
        "config": study.to_yaml_dict(),
        "config_hash": study.config_hash(),
        "source": study.source,
        "folder": study.folder,
        "params": list(study.sweep),
        "points": [{"label": point_label(p), "values": p} for p in points],
    }
    write_text(out_dir / "config.yaml", study_yaml(study))
    runs, meta = run_points(studies, out_dir, head, jobs, quiet, backend, scheduler, size)
    return SweepResult(study=study, out_dir=out_dir, points=points, runs=runs, meta=meta)


def sweep_studies(study: StudyConfig) -> list[StudyConfig]:
    """The study of every sweep point (same games and seed), in `sweep_points()` order."""
    return [
        study.with_overrides(sweep=None, name=f"{study.name}[{point_label(p)}]", **p)
        for p in study.sweep_points()
    ]


def run_compare(
    a: StudyConfig,
    b: StudyConfig,
    *,
    labels: tuple[str, str] = ("A", "B"),
    games: int | None = None,
    jobs: int = -1,
    out: Path | str | None = None,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    independent: bool = False,
    before_play: Callable[[StudyConfig], None] | None = None,
) -> CompareResult:
    """Play A and B on the same game indices with A's seed (B's seed and count follow A's).

    A comparison is about game settings and line-ups; pairing needs one seed
    and one set of game indices, so B is played with A's `seed` and `games`
    (or `games` if given); the result's meta notes when B's file said otherwise.
    With `independent`, B plays on A's seed + 1 instead: other games, so the
    comparison is unpaired (a calibration run: two identical configs should then
    differ by noise only).
    `before_play(A)` runs before any game.
    """
    if len(labels) != 2 or labels[0] == labels[1]:
        raise SimError(f"compare: need two different labels, got {labels!r}")
    n = games if games is not None else a.games
    notes = []
    if b.seed != a.seed and not independent:
        notes.append(f"{labels[1]} played with {labels[0]}'s seed {a.seed} (its file: {b.seed})")
    if games is None and b.games != a.games:
        notes.append(f"{labels[1]} played {n} games like {labels[0]} (its file: {b.games})")
    for label, study in zip(labels, (a, b), strict=True):
        if study.sweep:
            notes.append(f"{label}: its sweep block is ignored (compare plays the config as is)")
    b_seed = a.seed + 1 if independent else a.seed
    if independent:
        notes.append(f"{labels[1]} played on seed {b_seed}: independent games, unpaired intervals")
    a = a.with_overrides(games=n, sweep=None)
    b = b.with_overrides(games=n, seed=b_seed, sweep=None)
    if before_play is not None:
        before_play(a)
    out_dir = fresh_dir(out, f"compare-{_slug(labels[0])}-{_slug(labels[1])}", None)
    with locked(out_dir):
        return _compare_in(
            out_dir, a, b, labels, notes, jobs, quiet, backend, scheduler, independent
        )


def _compare_in(
    out_dir, a, b, labels, notes, jobs, quiet, backend, scheduler, independent
) -> CompareResult:
    """Play a comparison in its (locked) folder."""
    head = {
        "kind": "compare",
        "labels": list(labels),
        "configs": [a.to_yaml_dict(), b.to_yaml_dict()],
        "config_hashes": [a.config_hash(), b.config_hash()],
        "notes": notes,
        "independent": independent,
        "points": [{"label": lab, "values": {}} for lab in labels],
    }
    write_text(
        out_dir / "config.yaml",
        "".join(f"# --- {lab}\n{study_yaml(s)}" for lab, s in zip(labels, (a, b), strict=True)),
    )
    runs, meta = run_points([a, b], out_dir, head, jobs, quiet, backend, scheduler)
    return CompareResult(
        a=runs[0], b=runs[1], labels=tuple(labels), out_dir=out_dir, studies=(a, b), meta=meta
    )


def load_sweep(out_dir: str | Path) -> SweepResult:
    """Open a finished sweep folder (for reports and notebooks)."""
    out_dir = Path(out_dir)
    meta = read_study_meta(out_dir, "sweep")
    require_complete(out_dir, meta, "sweep")
    study = saved_study(meta, out_dir / STUDY_FILE, plugins=False)
    points = study.sweep_points()
    runs = [_load_point(out_dir, i) for i in range(len(points))]
    return SweepResult(study=study, out_dir=out_dir, points=points, runs=runs, meta=meta)


def load_compare(out_dir: str | Path) -> CompareResult:
    """Open a finished comparison folder."""
    out_dir = Path(out_dir)
    meta = read_study_meta(out_dir, "compare")
    require_complete(out_dir, meta, "compare")
    where = str(out_dir / STUDY_FILE)
    a, b = (parse_study(cfg, where, plugins=False) for cfg in meta["configs"])
    return CompareResult(
        a=_load_point(out_dir, 0),
        b=_load_point(out_dir, 1),
        labels=tuple(meta["labels"]),
        out_dir=out_dir,
        studies=(a, b),
        meta=meta,
    )


# ---------------------------------------------------------------- the shared pool


def run_points(
    studies: list[StudyConfig],
    out_dir: Path,
    head: dict,
    jobs: int,
    quiet: bool,
    backend: str | None,
    scheduler: str | None,
    size: int | None = None,
) -> tuple[list[RunResult], dict]:
    """Play every study's games in one pool (`sim.orchestrate.execute`), each point into its
    own run folder, with `study.json` recording the whole. `size` is the chunk size a
    resumed folder was started with."""
    games, seed = studies[0].games, studies[0].seed
    if size is None:
        size = chunk_size(studies, jobs)
    meta = {
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
            jobs=jobs,
            backend=backend,
            scheduler=scheduler,
            quiet=quiet,
            died_hint=f"finished chunks are kept in {out_dir}: {hint}",
        )
    except BaseException as exc:
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        mark_status(out_dir / STUDY_FILE, meta, status, str(exc)[:500] or status)
        raise
    meta.update(status="complete", **done.timing())
    write_json(out_dir / STUDY_FILE, meta)
    return done.runs, meta


# ---------------------------------------------------------------- folders


def fresh_dir(out: Path | str | None, stem: str, resume: str | None) -> Path:
    """A new, empty study folder: `out` or runs/<stem>-<time> (`resume`: how to finish one)."""
    return new_folder(out, stem, "folder exists and is not empty; use another --out", resume)


def play_new_study(
    study: StudyConfig,
    kind: str,
    studies: list[StudyConfig],
    head: dict,
    *,
    out: Path | str | None,
    jobs: int,
    quiet: bool,
    backend: str | None,
    scheduler: str | None,
    before_play: Callable[[StudyConfig], None] | None,
) -> tuple[Path, list[RunResult], dict]:
    """A new study folder of one kind (value, ladder, luck): the caller's check before any
    game, the folder (default runs/<name>-<kind>-<time>) under its lock with `config.yaml`,
    and every point's games in one pool. `head` holds the kind's own study.json entries
    (its "points" among them). Returns (folder, runs, study meta)."""
    if before_play is not None:
        before_play(study)
    out_dir = fresh_dir(out, f"{study.name}-{kind}", None)
    with locked(out_dir):
        head = {"kind": kind, "name": study.name, "config": study.to_yaml_dict(), **head}
        write_text(out_dir / "config.yaml", study_yaml(study))
        runs, meta = run_points(studies, out_dir, head, jobs, quiet, backend, scheduler)
    return out_dir, runs, meta


def _same_study(saved: dict, study: StudyConfig | None, out_dir: Path, kind: str) -> StudyConfig:
    """The study a folder was started with; refuses a different given study."""
    original = saved_study(saved, out_dir / STUDY_FILE)
    if study is not None and (
        study.config_hash() != original.config_hash() or study.games != original.games
    ):
        raise SimError(f"{out_dir}: this {kind} was started from a different config")
    return original


def _load_point(out_dir: Path, index: int) -> RunResult:
    return load_run(point_dir(out_dir, index))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"


__all__ = [
    "CompareResult",
    "SweepResult",
    "load_compare",
    "load_sweep",
    "point_dir",
    "point_label",
    "fresh_dir",
    "run_compare",
    "run_points",
    "run_sweep",
    "sweep_studies",
]
