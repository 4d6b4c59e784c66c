"""Partial results beside the parts: written by the workers, merged by the report, equal to
the whole-table computation, whatever the chunks' order, the backend or the folder's age."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cluster_helpers import local_cluster

from sim import load_run, run
from sim.analysis.balance import headline, run_metrics, run_summary
from sim.analysis.moments import Moments
from sim.analysis.paired import compare_runs, sweep_stats
from sim.analysis.values import game_values
from sim.config import load_study
from sim.runs.orchestrate import _sees_folder
from sim.runs.partials import (
    chunk_moments,
    load_moments,
    run_chunks,
    run_metrics_of,
    run_moments,
    sample_chunks,
    sampled_run,
    stats_path,
    stream_runs,
)
from sim.runs.partials import run_data as report_data

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


@pytest.fixture(scope="module")
def study():
    return load_study(BASE).with_overrides(games=1200)


@pytest.fixture(scope="module")
def finished(study, tmp_path_factory):
    return run(study, jobs=2, out=tmp_path_factory.mktemp("p") / "run", quiet=True)


def _whole(run_result) -> Moments:
    return Moments.of(game_values(run_result.games, run_result.players, run_result.cards))


def _same(a: Moments, b: Moments) -> None:
    assert a.columns == b.columns and a.n == b.n
    np.testing.assert_array_equal(a.nonbinary, b.nonbinary)
    np.testing.assert_allclose(a.mean, b.mean, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.m2, b.m2, rtol=1e-9, atol=1e-9)


def test_workers_write_partials_that_merge_to_the_whole_tables(finished):
    chunks = run_chunks(finished.meta)
    assert len(chunks) > 2
    assert all(load_moments(finished.run_dir, first) is not None for first, _ in chunks)
    _same(run_moments(finished.run_dir, finished.meta), _whole(finished))


def test_chunks_merged_in_any_order_give_the_same_numbers(finished):
    parts = [chunk_moments(finished.run_dir, first) for first, _ in run_chunks(finished.meta)]
    rng = np.random.default_rng(3)
    forward = headline(None, None, moments=Moments.combine(parts))
    for _ in range(3):
        order = rng.permutation(len(parts))
        shuffled = headline(None, None, moments=Moments.combine([parts[i] for i in order]))
        pd.testing.assert_frame_equal(forward, shuffled, rtol=1e-10)
    rows = headline(finished.games, finished.players)  # from the rows, as before
    pd.testing.assert_frame_equal(forward, rows, rtol=1e-9)


def test_missing_or_stale_partials_are_computed_again_from_the_parts(finished, tmp_path):
    folder = Path(finished.run_dir)
    whole = _whole(finished)
    computed: list[int] = []

    def compute(firsts):  # the chunks whose moments had to come from their parts
        computed.extend(firsts)
        return [chunk_moments(folder, first) for first in firsts]

    def merged(meta=finished.meta):
        computed.clear()
        return run_moments(folder, meta, compute=compute)

    _same(merged(), whole)
    assert (folder / "stats" / "run.npz").is_file()
    _same(merged(), whole)
    assert computed == []  # read from the merge
    firsts = [first for first, _ in run_chunks(finished.meta)]
    # no merge and no chunk files (an older folder): every chunk from its parts, the same
    for path in (folder / "stats").iterdir():
        path.unlink()
    _same(merged(), whole)
    assert computed == firsts
    # merged, kept as one file: the chunk files it replaces are gone
    assert sorted(p.name for p in (folder / "stats").iterdir()) == ["run.npz"]
    # a chunk played again since the merge (its manifest's key differs): not used
    manifest = folder / "chunks" / f"chunk-{firsts[1]:09d}.json"
    saved = manifest.read_text()
    record = json.loads(saved)
    record["tables"]["games"]["sha256"] = "0" * 64
    manifest.write_text(json.dumps(record))
    _same(merged(), whole)
    assert computed == firsts
    manifest.write_text(saved)
    _same(merged(), whole)
    assert computed == firsts  # the merge of the replayed chunk is not of these parts
    # a run extended past its merge: only the chunks the merge does not cover
    shorter = {**finished.meta, "games": firsts[-1]}
    merged(shorter)
    _same(merged(), whole)
    assert computed == [firsts[-1]]
    # partials of other parts (the chunk replayed since) are not used
    (folder / "stats" / "run.npz").unlink()
    first = firsts[1]
    path = stats_path(folder, first)
    chunk_moments(folder, firsts[0])  # saves chunk 0's file again
    path.write_bytes(stats_path(folder, firsts[0]).read_bytes())
    assert load_moments(folder, first) is None
    _same(run_moments(folder, finished.meta), whole)


def test_a_check_reads_its_metrics_from_the_merged_moments_not_the_tables(finished, monkeypatch):
    names = ["first_player_advantage", "turns", "balance", "suspense"]
    rows = run_metrics(finished.games, finished.players, names[:3])
    fresh = load_run(finished.run_dir)

    def no_table(*args, **kwargs):
        raise AssertionError("a table was read")

    monkeypatch.setattr("sim.runs.storage.read_table", no_table)
    merged = run_metrics_of(fresh, names[:3])
    pd.testing.assert_frame_equal(merged, rows, rtol=1e-9)
    # moments without a column a metric reads (saved before it was measured): the tables
    monkeypatch.undo()
    games, players = finished.games, finished.players
    without = Moments.of(game_values(games, players, finished.cards).drop(columns="suspense"))
    monkeypatch.setattr("sim.runs.partials.run_moments", lambda *args: without)
    pd.testing.assert_frame_equal(
        run_metrics_of(finished, names), run_metrics(games, players, names), rtol=1e-12
    )


def test_summary_from_partials_and_a_sample_equals_the_whole_table_one(finished):
    whole = run_summary(finished.games, finished.players, {"turns": 50})
    moments = run_moments(finished.run_dir, finished.meta)
    merged = run_summary(finished.games, finished.players, {"turns": 50}, moments=moments)
    assert merged["verdict"] == whole["verdict"] and merged["games"] == whole["games"]
    for a, b in zip(whole["metrics"], merged["metrics"], strict=True):
        assert a.keys() == b.keys()
        for key in ("value", "lo", "hi"):
            assert a[key] == pytest.approx(b[key], rel=1e-9, abs=1e-12), (a["metric"], key)
    assert whole["seats"]["joint_test"]["chi2"] == pytest.approx(
        merged["seats"]["joint_test"]["chi2"], rel=1e-9
    )
    # a sample of chunks for the row-level sections: whole chunks, evenly spaced
    chunks = run_chunks(finished.meta)
    sample = sample_chunks(chunks, 500)
    assert 1 <= len(sample) < len(chunks) and sum(n for _, n in sample) <= 500
    view = sampled_run(finished, sample)
    assert set(view.games["game"]) == {g for f, n in sample for g in range(f, f + n)}
    assert len(view.players) == 4 * len(view.games)
    sampled = run_summary(view.games, view.players, moments=moments)
    assert sampled["games"] == 1200
    assert sampled["metrics"][0]["value"] == pytest.approx(whole["metrics"][0]["value"])


def test_the_report_reads_a_sample_of_a_large_run(finished, monkeypatch):
    monkeypatch.setattr("sim.runs.partials.SAMPLE_GAMES", 400)
    fresh = load_run(finished.run_dir)
    moments, view = report_data(fresh)
    assert moments.n == 1200 and len(view.games) <= 400
    assert report_data(fresh)[1] is view  # once per run object


def test_a_worker_writes_only_into_the_run_folder_it_was_given(study, finished, tmp_path):
    assert _sees_folder(finished.run_dir, study.with_overrides(games=1200)) is False  # complete
    (tmp_path / "run.json").write_text(
        json.dumps({"status": "running", "config_hash": "another"}), encoding="utf-8"
    )
    assert _sees_folder(tmp_path, study) is False
    assert _sees_folder(tmp_path / "elsewhere", study) is False


def test_dask_workers_write_parts_and_partials_to_a_shared_folder(study, finished, tmp_path):
    shared = tmp_path / "shared"
    with local_cluster() as cluster:
        on_dask = run(
            study,
            jobs=2,
            out=shared / "run",
            quiet=True,
            backend="dask",
            scheduler=cluster.scheduler_address,
        )
    chunks = run_chunks(on_dask.meta)
    assert all(load_moments(on_dask.run_dir, first) is not None for first, _ in chunks)
    _same(run_moments(on_dask.run_dir, on_dask.meta), run_moments(finished.run_dir, finished.meta))
    # the report's numbers come from the merged partials, the same as a local run's
    from sim.studies.outputs import write_run_summary

    a, b = (load_run(r.run_dir) for r in (on_dask, finished))
    assert write_run_summary(a, *report_data(a)) == write_run_summary(b, *report_data(b))


def test_comparisons_and_sweeps_resampled_chunk_by_chunk_equal_whole_tables(
    study, finished, tmp_path
):
    """The Poisson bootstrap's weights depend on the game index alone, so the replicate sums
    of chunks merged equal those of the whole tables: same differences, intervals, verdicts."""
    other = run(study.with_overrides(**{"deck.sprayers": 7}), jobs=2, out=tmp_path / "b",
                quiet=True)  # fmt: skip
    streamed = stream_runs([finished, other], resamples=300, unpaired=True)
    assert streamed.games == 1200 and not streamed.identical
    whole = compare_runs(finished, other, resamples=300)
    merged = compare_runs(None, None, resamples=300, streamed=streamed)
    pd.testing.assert_frame_equal(whole, merged, rtol=1e-9, atol=1e-12)
    assert whole.attrs["identical"] is merged.attrs["identical"] is False
    sweep_whole = sweep_stats([finished, other], ["a", "b"], resamples=300)
    sweep_merged = sweep_stats(None, ["a", "b"], resamples=300, streamed=streamed)
    pd.testing.assert_frame_equal(sweep_whole.table, sweep_merged.table, rtol=1e-9, atol=1e-12)
    same = stream_runs([finished, finished], resamples=50)
    assert same.identical


def test_the_report_says_what_it_is_doing_unless_quiet(finished, tmp_path, monkeypatch, capsys):
    from sim.cli import main

    monkeypatch.setattr("sim.report.run_report.PROGRESS_GAMES", 1000)  # a "long" run here
    monkeypatch.setattr("sim.runs.partials.SAMPLE_GAMES", 600)
    assert main(["report", str(finished.run_dir), "--out", str(tmp_path / "a.html")]) == 0
    err = capsys.readouterr().err
    assert "with saved partial results" in err and "reading the rows of" in err
    assert "writing the page" in err
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert "This run has 1,200 games" in page and "a sample of" in page
    assert main(["report", str(finished.run_dir), "--out", str(tmp_path / "b.html"),
                 "--quiet"]) == 0  # fmt: skip
    assert capsys.readouterr().err == ""


def test_per_game_values_without_pivots_equal_the_pivoted_ones(study, finished):
    """The fast path (rows in game and seat order, read by reshaping, as every table is read
    back) gives the same per-game values as the general one (here forced by shuffling the
    rows, so every pivot and join runs), mixed policies and rotation included."""
    from sim.runs.play import play_arrays
    from sim.runs.tables import tables

    chunk = play_arrays(study, 0, 300)
    frames = tables(study, chunk)
    fast = game_values(frames["games"], frames["players"], frames["cards"])
    mixed = {k: v.sample(frac=1.0, random_state=7) for k, v in frames.items()}
    slow = game_values(mixed["games"], mixed["players"], mixed["cards"])
    assert list(fast.columns) == list(slow.columns)
    assert any(c.startswith("policy:") for c in fast.columns) and "had:princess" in fast.columns
    pd.testing.assert_frame_equal(fast, slow, check_exact=False, rtol=1e-12)
    whole = game_values(finished.games, finished.players, finished.cards)
    assert len(whole) == 1200 and not whole.filter(like="seat").isna().any().any()


def test_the_moments_a_pool_hands_back_are_those_on_disk_and_used_once(study, tmp_path):
    """The main process keeps the moments its workers hand back (`remember_moments`) for its
    next read of them: the same arrays as the files, used once, and never under a key that
    no longer matches the chunk's parts."""
    from sim.runs import partials
    from sim.runs.options import Workers
    from sim.runs.orchestrate import Point, execute

    folder = tmp_path / "run"
    small = study.with_overrides(games=300)
    execute([Point(small, folder, None)], 100, Workers(2, quiet=True), died_hint="")
    chunks = run_chunks(load_run(folder).meta)
    fresh = {first: partials._FRESH.get(stats_path(folder, first)) for first, _ in chunks}
    assert all(v is not None for v in fresh.values()), "every chunk handed back"
    for first, (_, kept) in fresh.items():
        partials._FRESH.pop(stats_path(folder, first))
        on_disk = load_moments(folder, first)  # read from the file
        for part in ("mean", "m2", "nonbinary", "lo", "hi", "m3", "m4"):
            np.testing.assert_array_equal(getattr(kept, part), getattr(on_disk, part))
    # a kept entry is served once, under the parts' key only
    first = chunks[0][0]
    partials.remember_moments(folder, first, Moments.empty())
    assert load_moments(folder, first).n == 0  # served from memory ...
    assert load_moments(folder, first).n == 100  # ... once
    partials._FRESH[stats_path(folder, first)] = ("not the parts' key", Moments.empty())
    assert load_moments(folder, first).n == 100


@pytest.mark.parametrize(
    "patterns,found",
    [
        (("turns", "seat*"), True),
        (("turns", "suspense"), False),  # a feel column the games lack
        (("level*",), False),
        (("had:*", "dead_cards"), True),
        ((), True),
    ],
)
def test_a_metric_reads_the_moments_when_they_hold_every_column_it_needs(patterns, found):
    from sim.metrics import matches
    from sim.runs.partials import _has_columns

    columns = ("dead_cards", "had:fish", "seat0", "seat1", "turns")
    assert _has_columns(columns, patterns) is found
    assert found == all(any(matches(c, [p]) for c in columns) for p in patterns)


def test_a_pool_of_very_many_chunks_keeps_a_bounded_share_of_their_moments(
    study, tmp_path, monkeypatch
):
    """The moments a pool hands back are kept up to FRESH_BYTES (the rest are read from their
    files), so a run of millions of games holds no more than that in memory."""
    from sim.runs import partials
    from sim.runs.options import Workers
    from sim.runs.orchestrate import Point, execute

    one = partials._nbytes(chunk_moments(*_first_chunk(study, tmp_path)))
    monkeypatch.setattr(partials, "FRESH_BYTES", 2 * one)
    folder = tmp_path / "many"
    many = Point(study.with_overrides(games=500), folder, None)
    execute([many], 100, Workers(2, quiet=True), died_hint="")
    assert len(partials._FRESH) == 2
    assert run_moments(folder, load_run(folder).meta).n == 500  # the rest read from disk


def _first_chunk(study, tmp_path):
    from sim.runs.options import Workers
    from sim.runs.orchestrate import Point, execute

    folder = tmp_path / "one"
    one = Point(study.with_overrides(games=100), folder, None)
    execute([one], 100, Workers(1, quiet=True), died_hint="")
    return folder, 0
