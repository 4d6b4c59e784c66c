"""A tune's, an advice's or a map's candidate run keeps the games and players tables and its chunks'
moments (`sim.runs.storage.CANDIDATE_TABLES`): the same metrics as a run of every table,
one clear line where a table it did not keep is asked for, and a chunk whose moments are
lost played again rather than read wrongly."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import one_error

from sim import load_run
from sim.config import load_study
from sim.errors import SimError
from sim.runs.options import Workers
from sim.runs.orchestrate import Point, execute
from sim.runs.partials import chunk_moments, run_metrics_of, stats_path
from sim.runs.results import TABLES
from sim.runs.storage import CANDIDATE_TABLES, kept_tables

ROOT = Path(__file__).resolve().parents[2]
GAMES, CHUNK = 120, 40
METRICS = ["seat_edge.seat0", "mean_score", "turns", "dead_card_rate", "items_wasted"]


def play(folder: Path, tables: tuple[str, ...]) -> None:
    study = load_study(ROOT / "configs" / "base.yaml").with_overrides(games=GAMES)
    execute([Point(study, folder, None, tables)], CHUNK, Workers(1, quiet=True), died_hint="")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("candidate")
    folders = {"every": base / "every", "candidate": base / "candidate"}
    play(folders["every"], TABLES)
    play(folders["candidate"], CANDIDATE_TABLES)
    return folders


def test_a_candidate_run_writes_and_records_two_tables(runs):
    folder = runs["candidate"]
    assert json.loads((folder / "run.json").read_text())["tables"] == ["games", "players"]
    assert sorted(p.name for p in folder.glob("*.parquet")) == ["games.parquet", "players.parquet"]
    manifest = json.loads(next((folder / "chunks").glob("*.json")).read_text())
    assert sorted(manifest["tables"]) == ["games", "players"]
    assert kept_tables(json.loads((runs["every"] / "run.json").read_text())) == TABLES


def test_a_candidate_run_gives_the_same_metrics_and_rows(runs):
    every, candidate = load_run(runs["every"]), load_run(runs["candidate"])
    pd.testing.assert_frame_equal(
        run_metrics_of(candidate, METRICS), run_metrics_of(every, METRICS)
    )
    for name in CANDIDATE_TABLES:
        pd.testing.assert_frame_equal(getattr(candidate, name), getattr(every, name))


def test_a_table_a_candidate_did_not_keep_is_one_clear_error(runs, capsys):
    run = load_run(runs["candidate"])
    for ask in (lambda: run.cards, lambda: run.turns, lambda: run.columns("cards", ["game"])):
        with pytest.raises(SimError, match="candidate run of a tune, an advice or a map keeps no"):
            ask()
    out = runs["candidate"].parent / "page.html"
    error = one_error(capsys, "report", runs["candidate"], "--out", out, "--quiet")
    assert "keeps no cards or turns table" in error
    assert not out.exists() and not list(runs["candidate"].glob("*.html"))
    error = one_error(capsys, "run", "--resume", runs["candidate"], "--quiet", "--no-report")
    assert "--resume the study" in error


@pytest.mark.parametrize("tables", [["games"], ["games", "players", "moves"], "games", [1, 2]])
def test_a_damaged_list_of_tables_is_refused(tables):
    with pytest.raises(SimError, match=r"^somewhere/run.json: damaged"):
        kept_tables({"tables": tables}, "somewhere")


def test_a_candidate_chunk_whose_moments_are_lost_is_played_again(tmp_path):
    folder = tmp_path / "candidate"
    play(folder, CANDIDATE_TABLES)
    before = run_metrics_of(load_run(folder), METRICS)
    stats_path(folder, CHUNK).unlink()
    (folder / "stats" / "run.npz").unlink(missing_ok=True)
    with pytest.raises(SimError, match="run keeps no cards table"):
        chunk_moments(folder, CHUNK)  # nothing to compute them from
    play(folder, CANDIDATE_TABLES)  # what a resumed tune or advice does
    assert stats_path(folder, CHUNK).is_file()  # a candidate keeps each chunk's moments
    assert any((folder / "set_aside").iterdir())  # the chunk's parts, kept for a look
    pd.testing.assert_frame_equal(run_metrics_of(load_run(folder), METRICS), before)


def test_a_folder_of_every_table_is_read_as_a_candidate_when_resumed_so(runs, tmp_path):
    """A tune folder begun before candidates kept two tables resumes without playing again."""
    import shutil

    folder = tmp_path / "old"
    shutil.copytree(runs["every"], folder)
    play(folder, CANDIDATE_TABLES)
    assert not (folder / "set_aside").exists()
    assert json.loads((folder / "run.json").read_text())["tables"] == ["games", "players"]
