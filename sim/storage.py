"""Run folders on disk: Parquet parts, metadata files, resume bookkeeping, loading.

A run folder holds `run.json` (metadata and status), `config.yaml` (the
resolved study) and the four tables, each a Parquet dataset folder with one
part per chunk of games. A sweep or comparison folder holds `study.json`,
`config.yaml` and one run folder per point under `points/`. Every file is
written atomically (a temporary file, then a rename), so an interrupted run
keeps everything it finished and never a half-written part.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from sim.config import StudyConfig, parse_study
from sim.engine.state import ENGINE_VERSION
from sim.errors import SimError
from sim.results import TABLES, with_zero_card_rows
from sim.version import __version__

RUN_FILE = "run.json"
STUDY_FILE = "study.json"
LEGACY_CHUNK_GAMES = 500  # run folders written before chunk_games was saved


@dataclass
class RunResult:
    """A finished run: its folder, metadata and the four tidy tables (read when first used)."""

    run_dir: Path
    meta: dict
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def games(self) -> pd.DataFrame:
        return self._table("games")

    @property
    def players(self) -> pd.DataFrame:
        return self._table("players")

    @property
    def cards(self) -> pd.DataFrame:
        return self._table("cards")

    @property
    def turns(self) -> pd.DataFrame:
        """The score trace: each seat's table score after every round (`sim.results`)."""
        return self._table("turns")

    def _table(self, name: str) -> pd.DataFrame:
        if name not in self.frames:
            self.frames[name] = read_table(self.run_dir, name)
        return self.frames[name]


# ---------------------------------------------------------------- parts


def _part_path(run_dir: Path, name: str, first: int) -> Path:
    """Chunk `first`'s part of table `name`: each table is a folder of Parquet parts."""
    return run_dir / f"{name}.parquet" / f"part-{first:09d}.parquet"


def chunk_done(run_dir: Path, first: int) -> bool:
    """Has the chunk starting at game `first` been written (a part of every table)?"""
    return all(_part_path(run_dir, name, first).exists() for name in TABLES)


def write_chunk(run_dir: Path, first: int, parts: dict[str, pa.Table]) -> None:
    """Write a chunk's tables, each atomically; a chunk counts as done once all of them exist."""
    for name, table in parts.items():
        path = _part_path(run_dir, name, first)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        _write_parquet(table, tmp)
        os.replace(tmp, path)


def _write_parquet(table: pa.Table, path: Path) -> None:
    """Write one part, encoded for speed: writing is most of the runner's cost over the
    bare engine. Integer columns (sorted ids, small counts) are delta-encoded, which
    wrote about 25% faster than dictionary encoding at about the same size; names stay
    dictionary-encoded; no column statistics (they doubled the write time)."""
    schema = table.schema
    pq.write_table(
        table,
        path,
        write_statistics=False,
        use_dictionary=[f.name for f in schema if pa.types.is_dictionary(f.type)],
        column_encoding={
            f.name: "DELTA_BINARY_PACKED" for f in schema if pa.types.is_integer(f.type)
        },
    )


def read_table(run_dir: Path, name: str) -> pd.DataFrame:
    """One table of a run folder, its parts in game order."""
    parts = sorted((Path(run_dir) / f"{name}.parquet").glob("part-*.parquet"))
    frame = pd.concat([pd.read_parquet(part) for part in parts], ignore_index=True)
    return with_zero_card_rows(frame) if name == "cards" else frame


# ---------------------------------------------------------------- metadata files


def write_text(path: Path, text: str) -> None:
    """Write a small file atomically (a temporary file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def write_json(path: Path, data: dict) -> None:
    write_text(path, json.dumps(data, indent=2))


def study_yaml(study: StudyConfig) -> str:
    """The resolved study as YAML (what `config.yaml` holds)."""
    return yaml.safe_dump(study.to_yaml_dict(), sort_keys=False, allow_unicode=True)


def run_meta(study: StudyConfig, chunk_size: int) -> dict:
    """What `run.json` records of a run besides its status and timing."""
    return {
        "name": study.name,
        "config": study.to_yaml_dict(),
        "config_hash": study.config_hash(),
        "engine_version": ENGINE_VERSION,
        "package_version": __version__,
        "seed": study.seed,
        "games": study.games,
        "chunk_games": chunk_size,
        "source": study.source,
    }


# ---------------------------------------------------------------- folders


def new_folder(out: Path | str | None, stem: str, hint: str) -> Path:
    """A fresh output folder: `out`, or runs/<stem>-<timestamp>; refuses a non-empty one with
    `hint` (where "{folder}" stands for the folder)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = Path(out) if out is not None else Path("runs") / f"{stem}-{stamp}"
    if folder.exists() and any(folder.iterdir()):
        raise SimError(f"{folder}: " + hint.format(folder=folder))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def point_dir(out_dir: Path, index: int) -> Path:
    """The run folder of point `index` inside a sweep or comparison folder."""
    return Path(out_dir) / "points" / f"p{index:02d}"


def _engine_matches(folder: Path, meta: dict) -> None:
    if meta.get("engine_version") != ENGINE_VERSION:
        raise SimError(
            f"{folder}: made by engine version {meta.get('engine_version')},"
            f" this is {ENGINE_VERSION}"
        )


def resumable_run(run_dir: Path, study: StudyConfig | None) -> tuple[StudyConfig, int]:
    """The study a run folder was started with, and its chunk size; refuses a folder from
    another config or engine."""
    meta_path = run_dir / RUN_FILE
    if not meta_path.exists():
        raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE})")
    meta = json.loads(meta_path.read_text())
    saved = parse_study(meta["config"], str(meta_path))
    _engine_matches(run_dir, meta)
    if study is not None and study.config_hash() != saved.config_hash():
        raise SimError(
            f"{run_dir}: was started from a different config (hash {saved.config_hash()})"
        )
    return saved, meta.get("chunk_games", LEGACY_CHUNK_GAMES)


def load_run(run_dir: str | Path) -> RunResult:
    """Open a finished run folder's tables (for `sim report` and notebooks)."""
    run_dir = Path(run_dir)
    meta_path = run_dir / RUN_FILE
    if not meta_path.exists():
        raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE})")
    meta = json.loads(meta_path.read_text())
    missing = [t for t in TABLES if not any((run_dir / f"{t}.parquet").glob("part-*.parquet"))]
    if meta.get("status") != "complete" or missing:
        raise SimError(f"{run_dir}: run is not complete; finish it with sim run --resume {run_dir}")
    return RunResult(run_dir, meta)


def read_study_meta(out_dir: Path, kind: str) -> dict:
    """A sweep or comparison folder's `study.json`; refuses another kind or engine."""
    path = out_dir / STUDY_FILE
    if not path.exists():
        raise SimError(f"{out_dir}: not a {kind} folder (no {STUDY_FILE})")
    meta = json.loads(path.read_text())
    if meta.get("kind") != kind:
        raise SimError(f"{out_dir}: is a {meta.get('kind')} folder, not a {kind} folder")
    _engine_matches(out_dir, meta)
    return meta


def require_complete(out_dir: Path, meta: dict, kind: str) -> None:
    """Refuse a sweep or comparison folder whose games are not all played."""
    if meta.get("status") != "complete":
        hint = f"sim sweep --resume {out_dir}" if kind == "sweep" else "run the comparison again"
        raise SimError(f"{out_dir}: {kind} is not complete; finish it with {hint}")
