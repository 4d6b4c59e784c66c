"""No finished work is lost: an interrupted value, ladder or luck study is finished with
--resume into the same results as one never interrupted; a folder a killed process left is
recognised (its lock is free) and points to --resume; damaged study folders are one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import cli, one_error

from sim.runs import orchestrate
from sim.studies import common

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "configs" / "base.yaml").read_text()
BLOCKS = {
    "value": "value: {options: [princess, sleeping], ablate: [princess]}\n",
    "ladder": "ladder: {rungs: [{policy: random}, {policy: greedy}], skip: false}\n",
    "luck": "luck: {rungs: [{policy: random}, {policy: greedy}]}\n",
}
SIZE = {"value": ["--games", "40"], "ladder": ["--games", "40"],
        "luck": ["--deals", "10", "--replays", "4"]}  # fmt: skip
CSV = {"value": "values.csv", "ladder": "ladder.csv", "luck": "luck.csv"}


def config(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.yaml"
    path.write_text(BASE + BLOCKS[kind])
    return path


def study_json(folder: Path) -> dict:
    return json.loads((folder / "study.json").read_text())


def interrupt_after(monkeypatch, chunks: int) -> None:
    """Ctrl-C once `chunks` chunks are played (as the user would press it)."""
    real, played = orchestrate.play_arrays, []

    def play(study, first, count):
        if len(played) == chunks:
            raise KeyboardInterrupt
        played.append(first)
        return real(study, first, count)

    monkeypatch.setattr(orchestrate, "play_arrays", play)


@pytest.mark.parametrize("kind", ["value", "ladder", "luck"])
def test_an_interrupted_study_resumes_to_the_same_result(kind, tmp_path, capsys, monkeypatch):
    cfg = config(tmp_path, kind)
    flags = [*SIZE[kind], "--jobs", "1", "--quiet", "--no-report"]
    whole = tmp_path / "whole"
    assert cli(capsys, kind, cfg, *flags, "--out", whole)[0] == 0
    stopped = tmp_path / "stopped"
    interrupt_after(monkeypatch, 1)
    code, _, err = cli(capsys, kind, cfg, *flags, "--out", stopped)
    assert code == 130 and f"sim {kind} --resume {stopped}" in err
    meta = study_json(stopped)
    assert meta["status"] == "interrupted" and "Ctrl-C" in meta["reason"]
    kept = sorted(stopped.glob("points/*/chunks/*.json"))
    assert len(kept) == 1  # the finished point's chunk
    before = kept[0].read_bytes()
    monkeypatch.undo()
    # the same command into the folder says how to finish it
    line = one_error(capsys, kind, cfg, *flags, "--out", stopped)
    assert "holds an interrupted" in line and f"sim {kind} --resume {stopped}" in line
    code, out, err = cli(capsys, kind, "--resume", stopped, "--jobs", "1", "--quiet", "--no-report")
    assert code == 0, err
    assert kept[0].read_bytes() == before  # kept, not played again
    assert study_json(stopped)["status"] == "complete"
    assert (stopped / CSV[kind]).read_text() == (whole / CSV[kind]).read_text()


def test_a_ladder_cut_in_chunks_of_its_matches_own_sizes_resumes_to_the_same_ratings(
    tmp_path, capsys, monkeypatch
):
    """A search player's matches play shorter chunks than greedy's (their recorded sizes
    differ point by point): stopped after one chunk and resumed, the same ladder as one
    played through, and as one whose every match was cut alike."""
    cfg = tmp_path / "ladder.yaml"
    rungs = "[{policy: random}, {policy: greedy}, {policy: lookahead}]"
    cfg.write_text(BASE + f"ladder: {{rungs: {rungs}, skip: false}}\n")
    flags = ["--games", "40", "--jobs", "1", "--quiet", "--no-report"]
    whole, stopped, alike = tmp_path / "whole", tmp_path / "stopped", tmp_path / "alike"
    assert cli(capsys, "ladder", cfg, *flags, "--out", whole)[0] == 0
    sizes = study_json(whole)["chunk_games"]
    assert isinstance(sizes, list) and len(set(sizes)) == 2, sizes
    runs = [json.loads(p.read_text()) for p in sorted(whole.glob("points/*/run.json"))]
    assert [r["chunk_games"] for r in runs] == sizes
    interrupt_after(monkeypatch, 1)
    code, _, err = cli(capsys, "ladder", cfg, *flags, "--out", stopped)
    assert code == 130 and study_json(stopped)["chunk_games"] == sizes
    monkeypatch.undo()
    code, _, err = cli(capsys, "ladder", "--resume", stopped, *flags[2:])
    assert code == 0, err
    assert (stopped / "ladder.csv").read_text() == (whole / "ladder.csv").read_text()
    monkeypatch.setattr(common, "chunk_sizes", lambda s, jobs: [min(sizes)] * len(s))
    assert cli(capsys, "ladder", cfg, *flags, "--out", alike)[0] == 0
    assert study_json(alike)["chunk_games"] == min(sizes)
    assert (alike / "ladder.csv").read_text() == (whole / "ladder.csv").read_text()


@pytest.mark.parametrize("until", [False, True])
def test_an_interrupted_comparison_resumes_to_the_same_differences(
    until, tmp_path, capsys, monkeypatch
):
    """`sim compare --resume DIR`: the finished chunks kept, the rest played, and the same
    differences.csv as a comparison never stopped (fixed games, and until decided)."""
    cfg = config(tmp_path, "value")
    run = ["--b-set", "deck.princesses=1", "--labels", "A", "B"]
    size = ["--until", "decided", "--max-games", "400"] if until else ["--games", "60"]
    flags = [*size, "--jobs", "1", "--quiet", "--no-report"]
    whole, stopped = tmp_path / "whole", tmp_path / "stopped"
    assert cli(capsys, "compare", cfg, *run, *flags, "--out", whole)[0] == 0
    interrupt_after(monkeypatch, 1)
    code, _, err = cli(capsys, "compare", cfg, *run, *flags, "--out", stopped)
    assert code == 130 and f"sim compare --resume {stopped}" in err
    kept = sorted(stopped.glob("points/*/chunks/*.json"))
    assert len(kept) == 1
    before = kept[0].read_bytes()
    monkeypatch.undo()
    line = one_error(capsys, "compare", "--resume", stopped, "--labels", "X", "Y")
    assert "keeps its configs, labels and seeds" in line
    again = ["--jobs", "1", "--quiet", "--no-report"]
    code, _, err = cli(capsys, "compare", "--resume", stopped, *again)
    assert code == 0, err
    assert kept[0].read_bytes() == before  # kept, not played again
    assert study_json(stopped)["status"] == "complete"
    differences = (stopped / "differences.csv").read_text()
    assert differences == (whole / "differences.csv").read_text()


def test_value_resume_refuses_what_would_change_its_games(tmp_path, capsys, monkeypatch):
    cfg = config(tmp_path, "value")
    out = tmp_path / "v"
    interrupt_after(monkeypatch, 1)
    cli(
        capsys, "value", cfg, "--games", "40", "--jobs", "1", "--quiet", "--no-report", "--out", out
    )
    monkeypatch.undo()
    for args, needle in [
        (["--games", "50"], "a resumed study keeps them"),
        (["--seed", "7"], "a resumed study keeps its seed"),
        (["--out", tmp_path / "elsewhere"], "a resumed value stays in its folder"),
    ]:
        assert needle in one_error(capsys, "value", "--resume", out, *args, "--quiet")
    other = tmp_path / "other.yaml"
    other.write_text(BASE.replace("sprayers: 4", "sprayers: 5") + BLOCKS["value"])
    line = one_error(capsys, "value", other, "--resume", out, "--quiet")
    assert "was started from a different config" in line
    line = one_error(capsys, "ladder", "--resume", out, "--quiet")
    assert "is a value folder, not a ladder folder" in line


def test_a_folder_left_by_a_killed_process_is_recognised(tmp_path, capsys, monkeypatch):
    """After kill -9 the folder says `running`, but the kernel dropped its lock."""
    cfg = config(tmp_path, "value")
    out = tmp_path / "v"
    interrupt_after(monkeypatch, 1)
    cli(
        capsys, "value", cfg, "--games", "40", "--jobs", "1", "--quiet", "--no-report", "--out", out
    )
    monkeypatch.undo()
    meta = study_json(out)
    (out / "study.json").write_text(json.dumps({**meta, "status": "running"}))  # as kill -9 left it
    line = one_error(capsys, "value", cfg, "--games", "40", "--quiet", "--out", out)
    assert "holds an interrupted value study (its process is gone" in line
    assert f"sim value --resume {out}" in line
    line = one_error(capsys, "report", out, "--out", tmp_path / "p.html")
    assert "value is not complete (interrupted (its process is gone" in line
    # a live holder of the lock is another matter
    hold = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR);"
        " fcntl.flock(fd, fcntl.LOCK_EX); os.ftruncate(fd, 0); os.write(fd, b'4242');"
        " print('held', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(out / ".lock")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        line = one_error(capsys, "value", cfg, "--games", "40", "--quiet", "--out", out)
        assert "in use by another sim process (pid 4242)" in line
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow
def test_value_killed_with_sigkill_resumes_to_the_same_values(tmp_path):
    """The real thing: `sim value` in its own process, kill -9 once a point is played."""
    cfg = config(tmp_path, "value")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sim = [sys.executable, "-m", "sim.cli", "value"]
    flags = ["--games", "400", "--jobs", "1", "--quiet", "--no-report"]
    out = tmp_path / "v"
    proc = subprocess.Popen([*sim, str(cfg), *flags, "--out", str(out)], env=env, cwd=tmp_path)
    t0 = time.monotonic()
    while not list(out.glob("points/p00/chunks/*.json")) and time.monotonic() - t0 < 300:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert study_json(out)["status"] == "running"
    done = subprocess.run([*sim, "--resume", str(out), *flags[2:]], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    whole = tmp_path / "whole"
    done = subprocess.run([*sim, str(cfg), *flags, "--out", str(whole)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (out / "values.csv").read_text() == (whole / "values.csv").read_text()


# ---------------------------------------------------------------- damaged folders


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory):
    from cli_helpers import sim_cli

    top = tmp_path_factory.mktemp("sweep")
    cfg = top / "s.yaml"
    cfg.write_text(BASE + "sweep: {deck.sprayers: [2, 4]}\n")
    sim_cli("sweep", cfg, "--games", "20", "--jobs", "1", "--quiet", "--no-report", "--out",
            top / "s")  # fmt: skip
    return top / "s"


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[:40],  # cut short
        lambda text: "[1, 2]",  # not a mapping
        lambda text: json.dumps({k: v for k, v in json.loads(text).items() if k != "points"}),
        lambda text: json.dumps({**json.loads(text), "points": "many"}),
    ],
    ids=["truncated", "a list", "no points", "points a text"],
)
def test_report_of_a_damaged_study_folder_is_one_line(sweep_folder, tmp_path, capsys, damage):
    import shutil

    folder = tmp_path / "s"
    shutil.copytree(sweep_folder, folder)
    path = folder / "study.json"
    path.write_text(damage(path.read_text()))
    line = one_error(capsys, "report", folder, "--out", tmp_path / "p.html")
    assert str(path) in line and "damaged" in line


def test_report_of_a_damaged_tune_folder_is_one_line(tmp_path, capsys):
    from sim.config import load_study

    folder = tmp_path / "t"
    folder.mkdir()
    study = load_study(ROOT / "configs" / "base.yaml").to_yaml_dict()
    (folder / "study.json").write_text(json.dumps({"kind": "tune", "config": study}))
    (folder / "tune.json").write_text(json.dumps({"chosen_params": "x"}))
    line = one_error(capsys, "report", folder, "--out", tmp_path / "p.html")
    assert "study.json (or tune.json): damaged" in line
    (folder / "tune.json").write_text("{")
    assert f"{folder / 'tune.json'}: damaged" in one_error(capsys, "report", folder)


def test_a_rung_label_with_math_text_is_drawn_as_written(tmp_path, capsys):
    cfg = tmp_path / "l.yaml"
    cfg.write_text(BASE + "ladder: {rungs: [{policy: random, label: 'a $x^$ b'},"
                   " {policy: greedy}], skip: false}\n")  # fmt: skip
    page = tmp_path / "l.html"
    code, _, err = cli(capsys, "ladder", cfg, "--games", "4", "--jobs", "1", "--quiet",
                       "--out", tmp_path / "l", "--report", page)  # fmt: skip
    assert code == 0, err
    assert "a $x^$ b" in page.read_text()
