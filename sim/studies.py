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
import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
from joblib import delayed

from sim.config import StudyConfig, parse_study
from sim.engine.state import ENGINE_VERSION
from sim.errors import SimError
from sim.parallel import WorkerDied, parallel_results, resolve_jobs
from sim.runner import (
    LEGACY_CHUNK_GAMES,
    TABLES,
    RunResult,
    arrow_tables,
    chunk_done,
    chunk_games,
    chunk_ranges,
    load_engine,
    play_arrays,
    progress_bar,
    run_meta,
    study_yaml,
    write_chunk,
)

STUDY_FILE = "study.json"


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
        """The three tables of side 0 (A) or 1 (B)."""
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
) -> SweepResult:
    """Play every sweep point on the same games and seed; one pool for all chunks.

    With `resume`, finish the sweep folder an interrupted call left (a given
    study must be the one it was started with).
    """
    if resume is not None:
        out_dir = Path(resume)
        saved = _read_meta(out_dir, "sweep")
        study = _same_study(saved["config"], study, out_dir, "sweep")
        size = saved.get("chunk_games", LEGACY_CHUNK_GAMES)
    elif study is None:
        raise SimError("sweep: give a study or a sweep folder to resume")
    elif not study.sweep:
        raise SimError(f"{study.source}: no 'sweep:' block; add e.g. {{deck.sprayers: [0, 4]}}")
    else:
        out_dir = _fresh_dir(out, f"{study.name}-sweep")
        size = None
    points = study.sweep_points()
    studies = sweep_studies(study)
    head = {
        "kind": "sweep",
        "name": study.name,
        "config": study.to_yaml_dict(),
        "config_hash": study.config_hash(),
        "params": list(study.sweep),
        "points": [{"label": point_label(p), "values": p} for p in points],
    }
    _write_text(out_dir / "config.yaml", study_yaml(study))
    runs, meta = _run_points(studies, out_dir, head, jobs, quiet, backend, scheduler, size)
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
) -> CompareResult:
    """Play A and B on the same game indices with A's seed (B's seed and count follow A's).

    A comparison is about game settings and line-ups; pairing needs one seed
    and one set of game indices, so B is played with A's `seed` and `games`
    (or `games` if given); the result's meta notes when B's file said otherwise.
    """
    if len(labels) != 2 or labels[0] == labels[1]:
        raise SimError(f"compare: need two different labels, got {labels!r}")
    n = games if games is not None else a.games
    notes = []
    if b.seed != a.seed:
        notes.append(f"{labels[1]} played with {labels[0]}'s seed {a.seed} (its file: {b.seed})")
    if games is None and b.games != a.games:
        notes.append(f"{labels[1]} played {n} games like {labels[0]} (its file: {b.games})")
    for label, study in zip(labels, (a, b), strict=True):
        if study.sweep:
            notes.append(f"{label}: its sweep block is ignored (compare plays the config as is)")
    a = a.with_overrides(games=n, sweep=None)
    b = b.with_overrides(games=n, seed=a.seed, sweep=None)
    out_dir = _fresh_dir(out, f"compare-{_slug(labels[0])}-{_slug(labels[1])}")
    head = {
        "kind": "compare",
        "labels": list(labels),
        "configs": [a.to_yaml_dict(), b.to_yaml_dict()],
        "config_hashes": [a.config_hash(), b.config_hash()],
        "notes": notes,
        "points": [{"label": lab, "values": {}} for lab in labels],
    }
    _write_text(
        out_dir / "config.yaml",
        "".join(f"# --- {lab}\n{study_yaml(s)}" for lab, s in zip(labels, (a, b), strict=True)),
    )
    runs, meta = _run_points([a, b], out_dir, head, jobs, quiet, backend, scheduler)
    return CompareResult(
        a=runs[0], b=runs[1], labels=tuple(labels), out_dir=out_dir, studies=(a, b), meta=meta
    )


def load_sweep(out_dir: str | Path) -> SweepResult:
    """Open a finished sweep folder (for reports and notebooks)."""
    out_dir = Path(out_dir)
    meta = _read_meta(out_dir, "sweep")
    _require_complete(out_dir, meta, "sweep")
    study = parse_study(meta["config"], str(out_dir / STUDY_FILE))
    points = study.sweep_points()
    runs = [_load_point(out_dir, i) for i in range(len(points))]
    return SweepResult(study=study, out_dir=out_dir, points=points, runs=runs, meta=meta)


def load_compare(out_dir: str | Path) -> CompareResult:
    """Open a finished comparison folder."""
    out_dir = Path(out_dir)
    meta = _read_meta(out_dir, "compare")
    _require_complete(out_dir, meta, "compare")
    where = str(out_dir / STUDY_FILE)
    a, b = (parse_study(cfg, where) for cfg in meta["configs"])
    return CompareResult(
        a=_load_point(out_dir, 0),
        b=_load_point(out_dir, 1),
        labels=tuple(meta["labels"]),
        out_dir=out_dir,
        studies=(a, b),
        meta=meta,
    )


# ---------------------------------------------------------------- the shared pool


def point_dir(out_dir: Path, index: int) -> Path:
    """The run folder of point `index` inside a sweep or comparison folder."""
    return Path(out_dir) / "points" / f"p{index:02d}"


def _point_chunk(index: int, study: StudyConfig, first: int, count: int, folder: Path | None):
    """Play one point's chunk; write it where the worker sees the folder, else return it."""
    frames = arrow_tables(study, play_arrays(study, first, count))
    if folder is None:
        return index, first, count, frames
    write_chunk(folder, first, frames)
    return index, first, count, None


def _run_points(
    studies: list[StudyConfig],
    out_dir: Path,
    head: dict,
    jobs: int,
    quiet: bool,
    backend: str,
    scheduler: str | None,
    size: int | None = None,
) -> tuple[list[RunResult], dict]:
    """Play every study's games in one pool, writing each chunk into its point's folder.

    `size` is the chunk size a resumed folder was started with."""
    games, seed = studies[0].games, studies[0].seed
    assert all(s.games == games and s.seed == seed for s in studies), "points must share games"
    if size is None:
        size = chunk_games(studies, resolve_jobs(jobs, games * len(studies)))
    meta = {
        **head,
        "engine_version": ENGINE_VERSION,
        "games": games,
        "seed": seed,
        "chunk_games": size,
    }
    for i, s in enumerate(studies):
        d = point_dir(out_dir, i)
        d.mkdir(parents=True, exist_ok=True)
        point_meta = {**run_meta(s, size), "status": "running"}
        _write_text(d / "run.json", json.dumps(point_meta, indent=2))
    _write_text(out_dir / STUDY_FILE, json.dumps({**meta, "status": "running"}, indent=2))

    # chunk-major: every point advances together, so an interrupted sweep is balanced
    todo = [
        (i, first, count)
        for first, count in chunk_ranges(games, size)
        for i in range(len(studies))
        if not chunk_done(point_dir(out_dir, i), first)
    ]
    total = games * len(studies)
    bar = progress_bar(total, total - sum(n for _, _, n in todo), quiet)
    t0 = time.perf_counter()
    try:
        if todo:
            local = backend != "dask"  # Dask workers may not see this folder
            tasks = (
                delayed(_point_chunk)(i, studies[i], f, n, point_dir(out_dir, i) if local else None)
                for i, f, n in todo
            )
            results = parallel_results(
                tasks,
                len(todo),
                jobs,
                backend,
                scheduler,
                before_fork=lambda: load_engine(studies[0]),
            )
            for i, first, count, frames in results:
                if frames is not None:
                    write_chunk(point_dir(out_dir, i), first, frames)
                if bar is not None:
                    bar.update(count)
    except WorkerDied as exc:
        raise SimError(f"{exc}; finished chunks are kept in {out_dir}") from None
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - t0
    played = sum(n for _, _, n in todo)

    runs = []
    for i, s in enumerate(studies):
        d = point_dir(out_dir, i)
        result = RunResult(d, {**run_meta(s, size), "status": "complete"})
        _write_text(d / "run.json", json.dumps(result.meta, indent=2))
        _write_text(d / "config.yaml", study_yaml(s))
        runs.append(result)
    meta.update(
        status="complete",
        wall_time_s=round(wall, 3),
        games_per_s=round(played / wall, 1) if wall > 0 and played else None,
    )
    _write_text(out_dir / STUDY_FILE, json.dumps(meta, indent=2))
    return runs, meta


# ---------------------------------------------------------------- folders


def _fresh_dir(out: Path | str | None, stem: str) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = Path(out) if out is not None else Path("runs") / f"{stem}-{stamp}"
    if out_dir.exists() and any(out_dir.iterdir()):
        raise SimError(f"{out_dir}: folder exists and is not empty; use another --out")
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


def _read_meta(out_dir: Path, kind: str) -> dict:
    path = out_dir / STUDY_FILE
    if not path.exists():
        raise SimError(f"{out_dir}: not a {kind} folder (no {STUDY_FILE})")
    meta = json.loads(path.read_text())
    if meta.get("kind") != kind:
        raise SimError(f"{out_dir}: is a {meta.get('kind')} folder, not a {kind} folder")
    if meta.get("engine_version") != ENGINE_VERSION:
        raise SimError(
            f"{out_dir}: made by engine version {meta.get('engine_version')},"
            f" this is {ENGINE_VERSION}"
        )
    return meta


def _require_complete(out_dir: Path, meta: dict, kind: str) -> None:
    if meta.get("status") != "complete":
        hint = f"sim sweep --resume {out_dir}" if kind == "sweep" else "run the comparison again"
        raise SimError(f"{out_dir}: {kind} is not complete; finish it with {hint}")


def _same_study(saved: dict, study: StudyConfig | None, out_dir: Path, kind: str) -> StudyConfig:
    """The study a folder was started with; refuses a different given study."""
    original = parse_study(saved, str(out_dir / STUDY_FILE))
    if study is not None and (
        study.config_hash() != original.config_hash() or study.games != original.games
    ):
        raise SimError(f"{out_dir}: this {kind} was started from a different config")
    return original


def _load_point(out_dir: Path, index: int) -> RunResult:
    from sim.runner import load_run

    return load_run(point_dir(out_dir, index))


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"


# ---------------------------------------------------------------- what the CLI calls


def sweep_file(
    config: str | Path | None,
    *,
    games: int | None = None,
    seed: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    resume: str | Path | None = None,
    report: str | Path | None = None,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
) -> tuple[SweepResult, Path, str]:
    """`sim sweep CONFIG`: run the sweep, write its report; (result, report path, summary)."""
    from sim.analysis.paired import sweep_result_stats
    from sim.config import load_study
    from sim.report.study_report import build_sweep_report, sweep_findings

    study = load_study(config) if config is not None else None
    overrides = {k: v for k, v in (("games", games), ("seed", seed)) if v is not None}
    if study is not None and overrides:
        study = study.with_overrides(**overrides)
    result = run_sweep(
        study,
        jobs=jobs,
        out=out,
        resume=resume,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
    )
    stats = sweep_result_stats(result)
    path = build_sweep_report(result, report, stats=stats)
    lines = [f"{result.study.name}: {len(result.points)} points x {result.study.games:,} games"
             f" on shared seeds -> {result.out_dir}"]  # fmt: skip
    if stats.verdict is not None:
        lines.append(stats.verdict.text)
    lines += sweep_findings(stats)
    lines.append(f"report: {path}")
    return result, path, "\n".join(lines)


def compare_files(
    a_path: str | Path,
    b_path: str | Path,
    *,
    labels: tuple[str, str] | None = None,
    games: int | None = None,
    jobs: int = -1,
    out: str | Path | None = None,
    report: str | Path | None = None,
    quiet: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
) -> tuple[CompareResult, Path, str]:
    """`sim compare A.yaml B.yaml`: play both on shared seeds, write the report; (result, path,
    summary). Labels default to the file names (suffixed (A)/(B) when they are the same)."""
    from sim.analysis.paired import compare_runs, summarize_compare
    from sim.config import load_study
    from sim.report.study_report import build_compare_report

    a, b = load_study(a_path), load_study(b_path)
    if labels is None:
        sa, sb = Path(a_path).stem, Path(b_path).stem
        labels = (sa, sb) if sa != sb else (f"{sa} (A)", f"{sb} (B)")
    result = run_compare(
        a,
        b,
        labels=labels,
        games=games,
        jobs=jobs,
        out=out,
        quiet=quiet,
        backend=backend,
        scheduler=scheduler,
    )
    table = compare_runs(result.a, result.b, labels=result.labels)
    path = build_compare_report(result, report, table_=table)
    notes = result.meta.get("notes", [])
    text = "\n".join([*notes, summarize_compare(table), f"report: {path}"])
    return result, path, text


__all__ = [
    "CompareResult",
    "SweepResult",
    "compare_files",
    "load_compare",
    "load_sweep",
    "point_dir",
    "point_label",
    "run_compare",
    "run_sweep",
    "sweep_file",
    "sweep_studies",
]
