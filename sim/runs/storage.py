"""Run folders on disk: Parquet parts, metadata files, resume bookkeeping, loading.

A run folder holds `run.json` (metadata and status), `config.yaml` (the resolved study)
and the four tables, each a Parquet dataset folder with one part per chunk of games. A
sweep or comparison folder holds `study.json`, `config.yaml` and one run folder per point
under `points/`. Every file is written atomically (a hidden temporary file, then a
rename), so an interrupted run keeps everything it finished and never a half-written part.

Each chunk's parts are recorded, once written, in a small manifest
(`chunks/chunk-<first>.json`: rows, bytes and sha256 of each part). A chunk counts as done
only when its parts match their manifest; one that does not is moved to `set_aside/`
(kept, for a look) and played again. A `.lock` file held by the working process keeps a
second one out of the folder; `run.json` says `running`, `failed` or `interrupted` (with
the reason) until the run is `complete`. A candidate run of a tune, an advice or a map keeps
only the games and players tables (`CANDIDATE_TABLES`, recorded in `run.json`'s `tables`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from queue import Empty, SimpleQueue

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.config import StudyConfig, dump_yaml, parse_study
from sim.engine.state import STAT_NAMES
from sim.errors import SimError, one_line
from sim.runs.encoding import part_bytes
from sim.runs.folders import live_status
from sim.runs.paths import RUN_FILE, STUDY_FILE
from sim.runs.results import TABLES
from sim.runs.tables import with_zero_card_rows
from sim.version import ENGINE_VERSION, __version__

CHUNKS = "chunks"  # one manifest per chunk
SET_ASIDE = "set_aside"  # parts that failed verification, kept
LEGACY_CHUNK_GAMES = 500  # run folders written before chunk_games was saved
# The tables a candidate run of a tune, an advice or a map keeps: what is judged of it is read
# from its chunks' moments, and its games and players say whether two candidates played the
# same games (an inert setting) and give a metric or a seat's cell the moments lack. Its cards
# and turns, which nothing reads, were two thirds of its folder and of the Parquet it wrote.
CANDIDATE_TABLES = ("games", "players")


def kept_tables(meta: dict, run_dir: Path | str = "") -> tuple[str, ...]:
    """The tables a run keeps (run.json's `tables`; every table in a folder without one)."""
    kept = meta.get("tables", TABLES)
    names = {*map(str, kept)} if isinstance(kept, list | tuple) else set()
    if not set(CANDIDATE_TABLES) <= names <= set(TABLES):
        where = Path(run_dir) / RUN_FILE
        raise SimError(f"{where}: damaged (tables must name the games, players and others)")
    return tuple(name for name in TABLES if name in kept)


def _table_property(name: str, doc: str) -> property:
    """A RunResult's table `name`, read from its parts when first used."""

    def read(self: RunResult) -> pd.DataFrame:
        if name not in self.frames:
            self.require(name)
            self.frames[name] = read_table(self.run_dir, name, _firsts(self.meta))
        return self.frames[name]

    return property(read, doc=doc)


@dataclass
class RunResult:
    """A finished run: its folder, metadata and the four tidy tables (read when first used)."""

    run_dir: Path
    meta: dict
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    derived: dict = field(default_factory=dict)  # computed once from the tables (the report's)

    games = _table_property("games", "One row per game (`sim.runs.results.GAME_COLUMNS`).")
    players = _table_property("players", "One row per game and seat.")
    cards = _table_property("cards", "One row per game, seat and card type.")
    turns = _table_property("turns", "The score trace: each seat's table score after every round.")

    def require(self, *names: str) -> None:
        """Refuse, in one line, a table the run did not keep (a candidate run of a tune, an
        advice or a map keeps `CANDIDATE_TABLES`)."""
        kept = kept_tables(self.meta, self.run_dir)
        if missing := [name for name in names if name not in kept]:
            raise SimError(
                f"{self.run_dir}: a candidate run of a tune, an advice or a map keeps no"
                f" {' or '.join(missing)} table (only {' and '.join(kept)}); sim run"
                f" {Path(self.run_dir) / 'config.yaml'} plays its games with every table"
            )

    def columns(self, name: str, columns: list[str]) -> pd.DataFrame:
        """Only these columns of table `name`, from the table if it was read, else from its
        parts (not kept): an analysis of many points that reads a few columns of each (a
        value study's 28 points) reads a sixth of the bytes. The rows in the table's order;
        the cards' without the all-zero rows the whole table puts back (the cards' columns
        must hold game, seat and card)."""
        self.require(name)
        if name in self.frames:
            frame = self.frames[name]
            if name == "cards":  # the rows written: a count that is not 0
                frame = frame[frame[list(STAT_NAMES)].to_numpy().any(axis=1)]
            return frame[columns].reset_index(drop=True)
        frame = read_table(self.run_dir, name, _firsts(self.meta), columns, zero_rows=False)
        if name == "cards":  # written by card type: into the table's order
            order = np.lexsort((frame.card.cat.codes, frame.seat, frame.game))
            frame = frame.iloc[order].reset_index(drop=True)
        return frame


# ---------------------------------------------------------------- parts


def _part_path(run_dir: Path, name: str, first: int) -> Path:
    """Chunk `first`'s part of table `name`: each table is a folder of Parquet parts."""
    return run_dir / f"{name}.parquet" / f"part-{first:09d}.parquet"


def _manifest_path(run_dir: Path, first: int) -> Path:
    return run_dir / CHUNKS / f"chunk-{first:09d}.json"


def write_chunk(
    run_dir: Path,
    first: int,
    parts: dict[str, pa.Table],
    spare: Executor | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> None:
    """Write a chunk's tables, each atomically, then its manifest (rows, bytes and sha256 of
    each part): the chunk counts as done once the manifest is there and the parts match it.
    `meanwhile` runs here first. With a `spare` thread (a chunk no play overlaps), both
    threads take the parts from one queue, largest first, so the spare thread starts on
    the largest while this one runs `meanwhile` (Parquet encoding releases the GIL)."""

    def write(name: str) -> dict:
        table = parts[name]
        data = part_bytes(table, name)
        _write_bytes(_part_path(run_dir, name, first), data)
        return {
            "rows": table.num_rows,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }

    if spare is None:
        if meanwhile is not None:
            meanwhile()
        tables = {name: write(name) for name in parts}
    else:
        queue: SimpleQueue[str] = SimpleQueue()
        for name in sorted(parts, key=lambda n: -parts[n].num_rows * parts[n].num_columns):
            queue.put(name)

        def drain() -> dict[str, dict]:
            done = {}
            try:
                while True:
                    name = queue.get_nowait()
                    done[name] = write(name)
            except Empty:
                return done

        there = spare.submit(drain)
        if meanwhile is not None:
            meanwhile()
        tables = drain()
        tables.update(there.result())
    tables = {name: tables[name] for name in parts}  # the manifest lists them in table order
    count = parts["games"].num_rows
    write_json(_manifest_path(run_dir, first), {"first": first, "count": count, "tables": tables})


def check_chunk(
    run_dir: Path, first: int, count: int, names: tuple[str, ...] = TABLES
) -> tuple[str, bool] | None:
    """None when chunk `first` (of `count` games) is done: its parts of the tables `names`
    (those the run keeps) match its manifest. Else (why not, damaged): a chunk never
    written, written only in part (its run was stopped) or of another length (the run was
    extended) is not damaged, only unfinished."""
    manifest = _manifest_path(run_dir, first)
    parts = {name: _part_path(run_dir, name, first) for name in names}
    if not manifest.exists():
        written = any(p.exists() for p in parts.values())
        return ("not recorded in chunks/" if written else "missing"), False
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
        tables = record["tables"]
        if record["count"] != count:
            return f"holds {record['count']} games, not {count}", False
        for name, path in parts.items():
            if not path.exists():
                return f"its {name} part is missing", True
            data = path.read_bytes()
            want = tables[name]  # (a KeyError if the manifest lists fewer: unreadable)
            if len(data) != want["bytes"] or hashlib.sha256(data).hexdigest() != want["sha256"]:
                return f"its {name} part does not match its checksum", True
    except (ValueError, KeyError, TypeError):
        return "its manifest is unreadable", True
    return None


def set_aside(run_dir: Path, first: int) -> None:
    """Move chunk `first`'s parts and manifest to set_aside/ (renamed, kept) so it can be
    played again."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    files = [(_part_path(run_dir, name, first), name) for name in TABLES]
    files.append((_manifest_path(run_dir, first), "manifest"))
    for path, label in files:
        if path.exists():
            target = run_dir / SET_ASIDE / f"{label}-{path.stem}-{stamp}{path.suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)


def verify_chunks(
    run_dir: Path, chunks: list[tuple[int, int]], names: tuple[str, ...] = TABLES
) -> list[tuple[int, str]]:
    """Check every chunk (its parts of the tables `names`) and set aside each damaged one.
    Returns (first, problem) of every chunk that is not done."""
    bad = []
    for first, count in chunks:
        found = check_chunk(run_dir, first, count, names)
        if found is not None:
            problem, damaged = found
            if damaged:
                set_aside(run_dir, first)
            bad.append((first, problem))
    return bad


def _firsts(meta: dict) -> list[int] | None:
    """The first games of a run's chunks, from its run.json (None: an older folder without
    manifests, whose parts are all of it)."""
    games, size = meta.get("games"), meta.get("chunk_games", LEGACY_CHUNK_GAMES)
    if not meta.get("manifests") or not isinstance(games, int) or not isinstance(size, int):
        return None
    return [first for first, _ in chunk_ranges(games, size)] if size > 0 else None


def read_table(
    run_dir: Path,
    name: str,
    firsts: list[int] | None = None,
    columns: list[str] | None = None,
    zero_rows: bool = True,
) -> pd.DataFrame:
    """One table of a run folder, its parts in game order: those of the chunks starting at
    `firsts` (a run's own games), else every part in the folder; only `columns` if given,
    and the cards' all-zero rows put back unless `zero_rows` is False."""
    folder = Path(run_dir) / f"{name}.parquet"
    if firsts is None:
        parts = sorted(folder.glob("part-*.parquet"))
    else:
        parts = [_part_path(Path(run_dir), name, first) for first in firsts]
    try:  # one Arrow table made a DataFrame once (a search study keeps hundreds of parts)
        tables = [pq.read_table(part, columns=columns, use_threads=False) for part in parts]
        if tables and all(t.schema.equals(tables[0].schema) for t in tables):
            frame = pa.concat_tables(tables).to_pandas(use_threads=False)
        else:  # none, or parts that differ (written by another version): pandas' concat
            frame = pd.concat([t.to_pandas(use_threads=False) for t in tables], ignore_index=True)
    except (OSError, pa.ArrowException) as exc:
        raise SimError(
            f"{run_dir}: a part of {name} is unreadable ({one_line(exc, 80)});"
            f" sim run --resume {run_dir} checks the parts and plays a bad one again"
        ) from None
    return with_zero_card_rows(frame) if name == "cards" and zero_rows else frame


def read_chunk(run_dir: Path, first: int, names=TABLES) -> dict[str, pd.DataFrame]:
    """One chunk's parts of the named tables (cards with its all-zero rows put back)."""
    out = {}
    for name in names:
        path = _part_path(Path(run_dir), name, first)
        try:
            frame = pd.read_parquet(path)
        except (OSError, pa.ArrowException) as exc:
            raise SimError(f"{path}: unreadable ({one_line(exc, 80)})") from None
        out[name] = with_zero_card_rows(frame) if name == "cards" else frame
    return out


def drop_chunk(run_dir: Path, first: int) -> None:
    """Remove chunk `first`'s parts and manifest (a chunk played past a study's stop)."""
    for name in TABLES:
        _part_path(Path(run_dir), name, first).unlink(missing_ok=True)
    _manifest_path(Path(run_dir), first).unlink(missing_ok=True)


def chunk_record(run_dir: Path, first: int) -> dict | None:
    """Chunk `first`'s manifest (rows, bytes and sha256 of each part), None if unreadable."""
    try:
        return json.loads(_manifest_path(Path(run_dir), first).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_bytes(path: Path, data: bytes) -> None:
    """Write a file atomically (a temporary file, then a rename)."""
    _write_bytes(Path(path), data)


# ---------------------------------------------------------------- metadata files


def _write_bytes(path: Path, data: bytes | pa.Buffer) -> None:
    """Write a file atomically: a hidden temporary file beside it, then a rename. On
    failure (a full disk) the temporary file is removed and the old file is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        with open(tmp, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:  # a full disk names no file
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise


def write_text(path: Path, text: str) -> None:
    """Write a text file (UTF-8) atomically (a temporary file, then a rename)."""
    _write_bytes(Path(path), text.encode("utf-8"))


def write_json(path: Path, data: dict) -> None:
    write_text(path, json.dumps(data, indent=2))


def read_json(path: Path) -> dict:
    """A JSON file this package wrote; a damaged one is a SimError naming it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (ValueError, RecursionError):
        raise SimError(f"{path}: damaged (not the JSON this package writes)") from None
    if not isinstance(data, dict):
        raise SimError(f"{path}: damaged (not the JSON this package writes)")
    return data


def mark_status(path: Path, meta: dict, status: str, reason: str | None = None) -> None:
    """Record a run's or study's status in its JSON file; best effort when the run is
    failing (a full disk may refuse even this)."""
    data = {**meta, "status": status}
    if reason is not None:
        data["reason"] = reason
    try:
        write_json(path, data)
    except OSError:
        if status not in ("failed", "interrupted"):
            raise


def study_yaml(study: StudyConfig) -> str:
    """The resolved study as YAML (what `config.yaml` holds)."""
    return dump_yaml(study.to_yaml_dict())


def run_meta(study: StudyConfig, chunk_size: int, tables: tuple[str, ...] = TABLES) -> dict:
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
        "folder": study.folder,
        "sets": list(study.sets),  # the command line's --set changes, as given
        "manifests": True,  # every chunk is recorded in chunks/ (older folders are not)
        "tables": list(tables),  # the tables it keeps (`kept_tables`)
    }


def point_dir(out_dir: Path, index: int) -> Path:
    """The run folder of point `index` inside a sweep or comparison folder."""
    return Path(out_dir) / "points" / f"p{index:02d}"


def _engine_matches(folder: Path, meta: dict) -> None:
    if meta.get("engine_version") != ENGINE_VERSION:
        raise SimError(
            f"{folder}: made by engine version {meta.get('engine_version')},"
            f" this is {ENGINE_VERSION}"
        )


def saved_study(meta: dict, where: Path, plugins: bool = True) -> StudyConfig:
    """The study a run.json or study.json records (`config`), read as its config file was:
    plug-ins looked for in that file's folder (not imported with `plugins=False`)."""
    try:
        return parse_study(
            meta["config"],
            str(meta.get("source") or where),
            where=str(where),
            folder=meta.get("folder"),
            plugins=plugins,
            sets=tuple(meta.get("sets") or ()),
        )
    except KeyError:
        raise SimError(f"{where}: damaged (no config recorded)") from None


def resumable_run(
    run_dir: Path, study: StudyConfig | None, plugins: bool = True
) -> tuple[StudyConfig, int]:
    """The study a run folder was started with, and its chunk size; refuses a folder from
    another config or engine."""
    meta_path = run_dir / RUN_FILE
    if not meta_path.is_file():
        raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE})")
    meta = read_json(meta_path)
    saved = saved_study(meta, meta_path, plugins)
    _engine_matches(run_dir, meta)
    if kept_tables(meta, run_dir) != TABLES:
        raise SimError(
            f"{run_dir}: a candidate run of a tune, an advice or a map; --resume the study"
            " folder it is in"
        )
    if study is not None and study.config_hash() != saved.config_hash():
        raise SimError(
            f"{run_dir}: was started from a different config (hash {saved.config_hash()})"
        )
    return saved, meta.get("chunk_games", LEGACY_CHUNK_GAMES)


def chunk_ranges(games: int, size: int) -> list[tuple[int, int]]:
    """(first game, count) of each chunk of `size` games."""
    return [(first, min(size, games - first)) for first in range(0, games, size)]


def load_run(run_dir: str | Path) -> RunResult:
    """Open a finished run folder's tables (for `sim report` and notebooks), once every part
    matches its manifest; a part that does not is set aside and the run marked failed, to
    be finished with `sim run --resume`."""
    run_dir = Path(run_dir)
    meta_path = run_dir / RUN_FILE
    if not meta_path.is_file():
        raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE})")
    meta = read_json(meta_path)
    hint = f"finish it with sim run --resume {run_dir}"
    if meta.get("status") != "complete":
        status, why = live_status(run_dir, meta)
        raise SimError(f"{run_dir}: run is not complete ({status}{why}); {hint}")
    if not meta.get("manifests") and not (run_dir / CHUNKS).is_dir():
        # written before manifests: read as it is
        if any(not any((run_dir / f"{t}.parquet").glob("part-*.parquet")) for t in TABLES):
            raise SimError(f"{run_dir}: run is not complete (a table has no parts); {hint}")
    else:
        games, size = meta.get("games"), meta.get("chunk_games", LEGACY_CHUNK_GAMES)
        if not (isinstance(games, int) and isinstance(size, int) and games >= 0 and size > 0):
            raise SimError(f"{meta_path}: damaged (games and chunk_games must be counts)")
        chunks = chunk_ranges(games, size)
        bad = verify_chunks(run_dir, chunks, kept_tables(meta, run_dir))
        if bad:
            first, problem = bad[0]
            reason = f"{len(bad)} chunk(s) failed verification, first at game {first}: {problem}"
            mark_status(meta_path, meta, "failed", reason + " (damaged parts set aside)")
            raise SimError(
                f"{run_dir}: run is not complete: {reason}; damaged parts set aside, {hint}"
            )
    return RunResult(run_dir, meta)


def read_study_meta(out_dir: Path, kind: str) -> dict:
    """A sweep or comparison folder's `study.json`; refuses another kind or engine."""
    path = out_dir / STUDY_FILE
    if not path.is_file():
        raise SimError(f"{out_dir}: not a {kind} folder (no {STUDY_FILE})")
    meta = read_json(path)
    if meta.get("kind") != kind:
        raise SimError(f"{out_dir}: is a {meta.get('kind')} folder, not a {kind} folder")
    _engine_matches(out_dir, meta)
    return meta


def require_complete(out_dir: Path, meta: dict, kind: str) -> None:
    """Refuse a study folder whose games are not all played, saying how to finish it."""
    if meta.get("status") != "complete":
        status, why = live_status(out_dir, meta)
        raise SimError(
            f"{out_dir}: {kind} is not complete ({status}{why}); finish it with"
            f" sim {kind} --resume {out_dir}"
        )


def resumed(saved: StudyConfig, folder: Path, games: int | None, seed: int | None) -> StudyConfig:
    """The study to finish a saved run or sweep with: `seed` must be its seed (or None);
    `games` may extend it to more games (chunks already played are kept), never shrink it."""
    if seed is not None:
        saved.with_overrides(seed=seed)  # a bad value is named like the config's own
        if seed != saved.seed:
            raise SimError(
                f"--seed {seed}: {folder} was started with seed {saved.seed}; a resumed run"
                " keeps its seed (leave --seed out, or start a new run)"
            )
    if games is None or games == saved.games:
        return saved
    extended = saved.with_overrides(games=games)
    if games < saved.games:
        raise SimError(
            f"--games {games}: {folder} has {saved.games:,} games; --resume can extend a run"
            " to more games, not shrink it"
        )
    return extended
