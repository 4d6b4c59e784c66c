"""Run folders under faults: parts verified against their manifests (a bad one set aside and
played again), a full disk leaves one line and a resumable folder, a lock keeps a second
process out, a failed run says so, and `--resume` refuses options that contradict the run."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import cli, one_error

from sim import load_run
from sim.cli import main
from sim.config import load_study
from sim.engine.state import STAT_NAMES
from sim.errors import SimError
from sim.runs.folders import LOCK_FILE, locked
from sim.runs.results import TABLES
from sim.runs.storage import SET_ASIDE, check_chunk, write_text

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "base.yaml"
GAMES = 60


def run_cli(capsys, out: Path, *more) -> tuple[int, str]:
    code, _, err = cli(capsys, "run", CONFIG, "--games", GAMES, "--jobs", "1", "--out", out,
                       "--quiet", "--no-report", *more)  # fmt: skip
    return code, err


def resume(capsys, folder: Path, *more) -> tuple[int, str]:
    code, _, err = cli(capsys, "run", "--resume", folder, "--jobs", "1", "--quiet",
                       "--no-report", *more)  # fmt: skip
    return code, err


def tables(folder: Path) -> dict[str, pd.DataFrame]:
    run = load_run(folder)
    return {name: getattr(run, name) for name in ("games", "players", "cards")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run of GAMES games, to compare repaired runs with."""
    out = tmp_path_factory.mktemp("ref") / "run"
    assert main([str(a) for a in ("run", CONFIG, "--games", GAMES, "--jobs", "1", "--out", out,
                                  "--quiet", "--no-report")]) == 0  # fmt: skip
    return tables(out)


def same_as(folder: Path, reference) -> None:
    for name, frame in tables(folder).items():
        pd.testing.assert_frame_equal(frame, reference[name])


def status(folder: Path) -> dict:
    return json.loads((folder / "run.json").read_text())


def parts(folder: Path, table: str = "players") -> list[Path]:
    return sorted((folder / f"{table}.parquet").glob("part-*.parquet"))


# ---------------------------------------------------------------- verified parts


@pytest.mark.parametrize("damage", ["truncate", "empty", "flip"])
def test_a_damaged_part_is_set_aside_and_replayed(tmp_path, capsys, reference, damage):
    out = tmp_path / "run"
    assert run_cli(capsys, out)[0] == 0
    part = parts(out)[1]
    data = part.read_bytes()
    part.write_bytes(
        {"truncate": data[: len(data) // 2], "empty": b"", "flip": data[:-9] + b"x" + data[-8:]}[
            damage
        ]
    )
    # the report notices, sets the chunk aside and marks the run failed, in one line
    line = one_error(capsys, "report", out, "--out", tmp_path / "r.html")
    assert "failed verification" in line and "--resume" in line
    assert status(out)["status"] == "failed" and "set aside" in status(out)["reason"]
    kept = list((out / SET_ASIDE).iterdir())
    assert any(p.name.startswith("players-part-") for p in kept)  # kept, renamed
    # --resume plays that chunk again: the run equals an uninterrupted one
    assert resume(capsys, out) == (0, "")
    assert status(out)["status"] == "complete"
    same_as(out, reference)


def test_resume_finds_a_damaged_part_itself(tmp_path, capsys, reference):
    out = tmp_path / "run"
    assert run_cli(capsys, out)[0] == 0
    parts(out, "cards")[0].write_bytes(b"not parquet")
    assert resume(capsys, out) == (0, "")
    same_as(out, reference)
    assert any(p.name.startswith("cards-part-") for p in (out / SET_ASIDE).iterdir())


def test_a_few_columns_read_from_the_parts_are_those_of_the_table(tmp_path, capsys):
    """`RunResult.columns`: from the parts (nothing kept), or from a table already read, the
    same frame; the cards as written, without the all-zero rows the table puts back."""
    assert run_cli(capsys, tmp_path / "r")[0] == 0
    run = load_run(tmp_path / "r")
    wanted = {
        "games": ["game", "turns"],
        "players": ["game", "seat", "score"],
        "cards": ["game", "seat", "card", "played"],
    }
    read = {name: run.columns(name, cols) for name, cols in wanted.items()}
    assert run.frames == {}  # not kept: the tables are whole when read
    for name, cols in wanted.items():
        table = getattr(run, name)
        if name == "cards":
            table = table[(table[list(STAT_NAMES)] != 0).any(axis=1)].reset_index(drop=True)
            assert 0 < len(table) < len(getattr(run, name))
        pd.testing.assert_frame_equal(read[name], table[cols].reset_index(drop=True))
        pd.testing.assert_frame_equal(run.columns(name, cols), read[name])  # from the table


def test_every_chunk_has_a_manifest(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli(capsys, out)[0] == 0
    meta = status(out)
    size = meta["chunk_games"]
    for first in range(0, GAMES, size):
        assert check_chunk(out, first, min(size, GAMES - first)) is None
        record = json.loads((out / "chunks" / f"chunk-{first:09d}.json").read_text())
        assert record["count"] == min(size, GAMES - first)
        assert set(record["tables"]) == set(TABLES)
        assert record["tables"]["games"]["rows"] == record["count"]


# ---------------------------------------------------------------- a full disk


def test_disk_full_is_one_line_and_the_folder_resumes(tmp_path, capsys, reference, monkeypatch):
    import sim.runs.storage

    real = sim.runs.storage._write_bytes
    writes = []

    def filling(path, data):
        if path.suffix == ".parquet":
            writes.append(path)
            if len(writes) > 4:  # a chunk and a bit, then the disk is full for parts
                raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(sim.runs.storage, "_write_bytes", filling)
    out = tmp_path / "run"
    code, err = run_cli(capsys, out)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "No space left on device" in err and "sim run --resume" in err
    assert str(out) in err  # names the file it could not write
    assert status(out)["status"] == "failed" and "No space" in status(out)["reason"]
    assert not list(out.rglob("*.tmp"))  # no half-written file left
    # the same command now points to --resume instead of "folder exists"
    monkeypatch.setattr(sim.runs.storage, "_write_bytes", real)
    code, err = run_cli(capsys, out)
    assert code == 2 and "holds a failed run" in err and f"sim run --resume {out}" in err
    assert resume(capsys, out) == (0, "")
    same_as(out, reference)


def test_atomic_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "page.html"
    write_text(path, "old")

    class HalfWritten:
        """A file the disk fills up while it is written: part of it lands, then ENOSPC."""

        def __init__(self, name, mode):
            with open(name, mode) as f:
                f.write(b"ne")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("sim.runs.storage.open", HalfWritten, raising=False)
    with pytest.raises(OSError, match="No space") as err:
        write_text(path, "new" * 1000)
    assert err.value.filename == str(path)
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["page.html"]


# ---------------------------------------------------------------- resume rules and the lock


def test_resume_refuses_a_different_seed(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli(capsys, out)[0] == 0
    line = one_error(capsys, "run", "--resume", out, "--seed", "5", "--quiet", "--no-report")
    assert "--seed 5" in line and "keeps its seed" in line
    assert status(out)["seed"] == load_study(CONFIG).seed
    assert resume(capsys, out, "--seed", str(load_study(CONFIG).seed)) == (0, "")
    line = one_error(capsys, "run", "--resume", out, "--games", "10", "--quiet", "--no-report")
    assert "not shrink" in line
    line = one_error(capsys, "run", "--resume", out, "--out", tmp_path / "x", "--quiet")
    assert "--out" in line


def test_resume_extends_to_more_games(tmp_path, capsys, reference):
    out = tmp_path / "run"
    code, _, _ = cli(capsys, "run", CONFIG, "--games", "25", "--jobs", "1", "--out", out,
                     "--quiet", "--no-report")  # fmt: skip
    assert code == 0
    assert resume(capsys, out, "--games", str(GAMES)) == (0, "")
    assert status(out)["games"] == GAMES
    same_as(out, reference)


def test_a_second_process_is_kept_out(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli(capsys, out)[0] == 0
    with locked(out):  # as another process working on the folder would
        line = one_error(capsys, "run", "--resume", out, "--quiet", "--no-report")
        assert "in use by another sim process" in line
    assert resume(capsys, out) == (0, "")  # the lock goes with its holder


def test_a_lock_file_left_by_a_dead_process_is_no_obstacle(tmp_path):
    (tmp_path / LOCK_FILE).write_text("999999999")  # a pid that is not running
    with locked(tmp_path):
        assert (tmp_path / LOCK_FILE).read_text().strip().isdigit()


def test_a_run_that_fails_says_so(tmp_path, capsys, monkeypatch):
    import sim.runs.orchestrate

    def broken(*args, **kwargs):
        raise SimError("the engine refused")

    monkeypatch.setattr(sim.runs.orchestrate, "play_arrays", broken)
    out = tmp_path / "run"
    code, err = run_cli(capsys, out)
    assert code == 2 and "the engine refused" in err
    assert status(out)["status"] == "failed"
    assert "the engine refused" in status(out)["reason"]
    with pytest.raises(SimError, match="not complete"):
        load_run(out)


@pytest.mark.parametrize(
    ("status", "needle"),
    [
        ("done", "folder exists and is not empty"),  # a finished tune or advice
        ("complete", "folder exists and is not empty"),
        ("confirm", "holds a confirm tune study"),  # one that stopped in a phase
    ],
)
def test_a_used_study_folder_is_named_for_what_it_holds(tmp_path, status, needle):
    from sim.runs.folders import new_folder

    (tmp_path / "study.json").write_text(json.dumps({"kind": "tune", "status": status}))
    with pytest.raises(SimError, match=needle):
        new_folder(tmp_path, "x", "folder exists and is not empty; use another --out")
