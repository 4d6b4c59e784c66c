"""Plug-in policies are foreign code: whatever they do wrong is one line naming the seat, and
the game and seed to replay it with `sim play`; their parameters are checked at validate time;
a plug-in beside the config is found wherever `sim` runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from cli_helpers import cli, one_error
from cluster_helpers import local_cluster

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "configs" / "base.yaml").read_text()
GREEDY = "  - {policy: greedy}"


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """Write a plug-in module (a fresh name each time) and a config naming it, beside it."""
    monkeypatch.setattr(sys, "path", list(sys.path))  # load_plugin adds the config's folder

    def write(body: str, params: str = "", extra: str = "") -> tuple[Path, str]:
        name = f"plug_{uuid.uuid4().hex[:8]}"
        (tmp_path / f"{name}.py").write_text(body)
        seat = f'  - {{policy: "{name}:P"{", " + params if params else ""}}}'
        config = tmp_path / "study.yaml"
        config.write_text(BASE.replace(GREEDY, seat, 1) + extra)
        monkeypatch.delitem(sys.modules, name, raising=False)
        return config, name

    return write


CHOOSER = """
class P:
    def __init__(self, a=1):
        self.calls = 0

    def choose(self, view, legal, rng):
        self.calls += 1
        if self.calls < 3:
            return legal[0].code
        return {ret}
"""


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("raise RuntimeError('boom at import')\n", "RuntimeError: boom at import"),
        ("def (:\n", "SyntaxError at plug_"),
        ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
        ("class Q:\n    pass\n", "has no class 'P' with a choose() method"),
    ],
)
def test_import_failures(plugin, capsys, body, needle):
    config, name = plugin(body)
    line = one_error(capsys, "validate", config)
    assert "seats[0].policy" in line and needle in line and name in line


def test_constructor_parameters_checked_at_validate(plugin, capsys):
    body = CHOOSER.format(ret="legal[0].code")
    config, _ = plugin(body, "b: 2")
    line = one_error(capsys, "validate", config)
    assert "seats[0].b" in line and "has no parameter 'b'" in line and "it takes a" in line
    config, _ = plugin(body.replace("a=1", "a"))
    assert "needs the parameter 'a'" in one_error(capsys, "validate", config)
    config, _ = plugin(body, "a: 2")
    assert cli(capsys, "validate", config)[0] == 0


@pytest.mark.parametrize(
    ("ret", "needle"),
    [
        ("1 / 0", "choose() raised ZeroDivisionError: division by zero"),
        ("None", "choose() returned None, not an action code"),
        ("'left'", "choose() returned 'left', not an action code"),
        ("legal[0]", "choose() returned a LegalAction; return its .code"),
        ("987654", "choose() returned 987654, not the code of one of the"),
        ("10**5000", "choose() returned a huge integer"),
    ],
)
def test_choose_failures_name_seat_game_and_seed(plugin, tmp_path, capsys, ret, needle):
    config, name = plugin(CHOOSER.format(ret=ret))
    out = tmp_path / "run"
    line = one_error(capsys, "run", config, "--games", "3", "--jobs", "1", "--out", out, "--quiet")
    assert needle in line and f"policy {name}:P in seat" in line, line
    assert "game 0 of seed 20261129" in line and "--resume" in line
    # the message says how to replay the failure, and replaying gives it again
    replay = one_error(capsys, "play", config, "--seed", "20261129", "--game", "0")
    assert needle in replay


def test_constructor_failure(plugin, tmp_path, capsys):
    config, _ = plugin(CHOOSER.format(ret="0").replace("self.calls = 0", "raise ValueError(a)"))
    out = tmp_path / "run"
    line = one_error(capsys, "run", config, "--games", "3", "--jobs", "1", "--out", out, "--quiet")
    assert "building it raised ValueError: 1" in line


def test_report_of_a_plugin_run_without_the_plugin(plugin, tmp_path, capsys):
    """The report replays its representative game, plug-in included; when the plug-in is
    gone, the page says so instead of failing."""
    from sim.runs.storage import load_run
    from sim.studies.run_page import PAGE_FILE, page_plays, representative

    config, name = plugin(CHOOSER.format(ret="legal[-1].code"))
    out = tmp_path / "run"
    code, _, err = cli(capsys, "run", config, "--games", "4", "--jobs", "1", "--out", out,
                       "--quiet", "--no-report")  # fmt: skip
    assert code == 0, err
    run = load_run(out)
    assert page_plays(run, representative(run)).game.note == ""
    (out / PAGE_FILE).unlink()  # played again
    (tmp_path / f"{name}.py").unlink()
    del sys.modules[name]
    assert "could not be replayed" in page_plays(run, representative(run)).game.note


def test_plugin_beside_the_config_from_another_folder(tmp_path):
    """As the `sim` script runs (python -P: the working folder is not on the import path)."""
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "beside.py").write_text(CHOOSER.format(ret="legal[0].code"))
    (tmp_path / "cfg" / "study.yaml").write_text(
        BASE.replace(GREEDY, '  - {policy: "beside:P"}', 1)
    )
    (tmp_path / "elsewhere").mkdir()
    done = subprocess.run(
        [sys.executable, "-P", "-m", "sim.cli", "validate", str(tmp_path / "cfg" / "study.yaml")],
        cwd=tmp_path / "elsewhere",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stdout


@pytest.mark.slow
def test_plugin_missing_on_dask_workers(tmp_path):
    """Importable where `sim run` runs (its PYTHONPATH), not on the cluster's workers."""
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "only_here.py").write_text(CHOOSER.format(ret="legal[0].code"))
    (tmp_path / "cfg").mkdir()
    config = tmp_path / "cfg" / "study.yaml"
    config.write_text(BASE.replace(GREEDY, '  - {policy: "only_here:P"}', 1))
    with local_cluster() as cluster:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "sim.cli",
                "run",
                str(config),
                "--games",
                "4",
                "--quiet",
                "--no-report",
                "--backend",
                "dask",
                "--scheduler",
                cluster.scheduler_address,
                "--out",
                str(tmp_path / "run"),
            ],  # fmt: skip
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path / 'here'}"},
        )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "cannot import 'only_here'" in line and "seat" in line


# ---------------------------------------------------------------- foreign code that misbehaves

MISBEHAVES = """
import ctypes, os, time


class P:
    def __init__(self):
        self.calls = 0

    def choose(self, view, legal, rng):
        self.calls += 1
        if self.calls > 2:
            {body}
        return legal[0].code
"""
LIMIT = "plugin_time_limit: 1\n"  # seconds per call: the tests wait for it, so it is short
SLOW_LIMIT_S = 1 + 15  # the limit, then a few seconds: the chunk's child ends, the run stops


def run_fails(capsys, config, out, *flags) -> tuple[str, float]:
    """`sim run` of a plug-in that misbehaves: its one error line and how long it took."""
    t0 = time.perf_counter()
    line = one_error(capsys, "run", config, "--games", "30", "--out", out, "--quiet",
                     "--no-report", *flags)  # fmt: skip
    return line, time.perf_counter() - t0


def assert_named(line: str, name: str, out: Path, problem: str) -> None:
    """The line names the seat, game and seed, how to replay it, what went wrong; the run is
    failed and keeps its folder for --resume."""
    game = re.search(r"game (\d+) of seed 20261129", line)  # with workers: whichever first
    assert f"policy {name}:P in seat" in line and game, line
    assert f"sim play CONFIG --seed 20261129 --game {game[1]}" in line and problem in line, line
    assert f"sim run --resume {out}" in line
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "failed" and problem in meta["reason"]


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("raise SystemExit(0)", "choose() raised SystemExit: 0"),
        ("raise KeyboardInterrupt", "choose() raised KeyboardInterrupt"),
        ("os._exit(3)", "the plug-in ended its process (exit code 3)"),
        ("ctypes.string_at(0)", "the plug-in ended its process (killed by SIGSEGV (a crash))"),
        ("time.sleep(10**6)", "choose() took longer than 1 s (plugin_time_limit)"),
        ("while True: pass", "choose() took longer than 1 s (plugin_time_limit)"),
    ],
    ids=["SystemExit(0)", "KeyboardInterrupt", "os._exit", "segfault", "sleeps", "loops"],
)
def test_a_plugin_that_exits_crashes_or_hangs_is_named(plugin, tmp_path, capsys, body, problem):
    """One worker: the command itself supervises the child that plays the plug-in's games."""
    config, name = plugin(MISBEHAVES.format(body=body), extra=LIMIT)
    out = tmp_path / "run"
    line, took = run_fails(capsys, config, out, "--jobs", "1")
    assert_named(line, name, out, problem)
    assert took < SLOW_LIMIT_S


@pytest.mark.parametrize("backend", ["fork", pytest.param("loky", marks=pytest.mark.slow)])
def test_a_hung_plugin_ends_within_its_limit_on_local_workers(plugin, tmp_path, capsys, backend):
    config, name = plugin(MISBEHAVES.format(body="time.sleep(10**6)"), extra=LIMIT)
    out = tmp_path / "run"
    line, took = run_fails(capsys, config, out, "--jobs", "2", "--backend", backend)
    assert_named(line, name, out, "choose() took longer than 1 s")
    assert took < SLOW_LIMIT_S + 10  # two workers to start, each stops at the limit


def test_a_plugin_that_crashes_a_local_worker_is_named(plugin, tmp_path, capsys):
    config, name = plugin(MISBEHAVES.format(body="os._exit(3)"), extra=LIMIT)
    out = tmp_path / "run"
    line, _ = run_fails(capsys, config, out, "--jobs", "2", "--backend", "fork")
    assert_named(line, name, out, "the plug-in ended its process (exit code 3)")


def test_a_constructor_that_hangs_is_named(plugin, tmp_path, capsys):
    body = MISBEHAVES.format(body="pass").replace("self.calls = 0", "time.sleep(10**6)")
    config, name = plugin(body, extra=LIMIT)
    out = tmp_path / "run"
    line, took = run_fails(capsys, config, out, "--jobs", "1")
    assert "building it took longer than 1 s" in line and name in line and took < SLOW_LIMIT_S


def test_sim_play_of_a_hung_plugin_ends_within_its_limit(plugin, capsys):
    config, name = plugin(MISBEHAVES.format(body="time.sleep(10**6)"), extra=LIMIT)
    t0 = time.perf_counter()
    line = one_error(capsys, "play", config)
    assert "choose() took longer than 1 s" in line and "game 0 of seed 20261129" in line
    assert time.perf_counter() - t0 < SLOW_LIMIT_S


def test_the_time_limit_is_a_checked_setting(plugin, capsys):
    config, _ = plugin(CHOOSER.format(ret="legal[0].code"), extra="plugin_time_limit: 0\n")
    line = one_error(capsys, "validate", config)
    assert "plugin_time_limit: must be a number of seconds above 0 and at most 3600" in line


def test_running_a_plugin_says_which_module_and_file(plugin, tmp_path, capsys):
    """Once per command, on stderr, before its code runs for the first game."""
    config, name = plugin(CHOOSER.format(ret="legal[0].code"))
    code, out, err = cli(capsys, "validate", config)
    assert code == 0 and "OK" in out
    file = tmp_path / f"{name}.py"
    assert err.splitlines() == [
        f"plug-in: seats[0] runs {name}:P (module {name}, file {file}): its code runs with"
        " your permissions"
    ]
    code, _, err = cli(capsys, "run", config, "--games", "4", "--jobs", "1", "--out",
                       tmp_path / "run", "--quiet", "--no-report")  # fmt: skip
    assert code == 0 and [x for x in err.splitlines() if x.startswith("plug-in:")] == []
    # this test process said it already (once per process); a fresh process says it again
    done = subprocess.run(
        [sys.executable, "-m", "sim.cli", "play", str(config)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": f"{ROOT}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(f"plug-in: seats[0] runs {name}:P") == 1
    assert str(file) in done.stderr


@pytest.mark.slow
def test_a_hung_plugin_ends_within_its_limit_on_dask(tmp_path):
    """The cluster's workers run the same code (PYTHONPATH set before they start); the task
    ends at the limit and nothing is left running on the cluster."""
    distributed = pytest.importorskip("dask.distributed")
    (tmp_path / "hangs.py").write_text(MISBEHAVES.format(body="time.sleep(10**6)"))
    config = tmp_path / "study.yaml"
    config.write_text(BASE.replace(GREEDY, '  - {policy: "hangs:P"}', 1) + LIMIT)
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = env["PYTHONPATH"]
    try:
        with local_cluster() as cluster:
            t0 = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "sim.cli", "run", str(config), "--games", "20",
                 "--quiet", "--no-report", "--backend", "dask", "--scheduler",
                 cluster.scheduler_address, "--out", str(tmp_path / "run")],
                capture_output=True, text=True, timeout=300, env=env,
            )  # fmt: skip
            took = time.perf_counter() - t0
            with distributed.Client(cluster.scheduler_address) as client:
                time.sleep(1)
                left = sum(len(tasks) for tasks in client.processing().values())
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = old
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "choose() took longer than 1 s" in line and "game" in line and "seed" in line
    assert took < SLOW_LIMIT_S + 30 and left == 0


@pytest.mark.parametrize(
    ("body", "problem"),
    [("os._exit(3)", "exit code 3"), ("ctypes.string_at(0)", "killed by SIGSEGV (a crash)")],
)
def test_sim_play_of_a_plugin_that_ends_its_process_is_named(plugin, capsys, body, problem):
    """sim play rehearses a plug-in's game in a watched child first, then plays it here."""
    config, name = plugin(MISBEHAVES.format(body=body), extra=LIMIT)
    line = one_error(capsys, "play", config)
    assert f"policy {name}:P in seat" in line and "game 0 of seed 20261129" in line
    assert f"the plug-in ended its process ({problem})" in line


def test_a_dask_client_closing_under_a_stopped_run_adds_no_traceback():
    """The record of a callback failing on a closed connection is dropped; others pass."""
    import logging

    from sim.runs.parallel import _ClosedConnections

    class CommClosedError(OSError):  # named as distributed names it
        pass

    def record(exc: BaseException) -> logging.LogRecord:
        try:
            raise exc
        except BaseException:
            info = sys.exc_info()
        return logging.LogRecord("tornado.application", logging.ERROR, "", 0, "x", (), info)

    wrapped = RuntimeError("gather failed")
    wrapped.__cause__ = CommClosedError("Stream is closed")
    keep = _ClosedConnections()
    assert not keep.filter(record(CommClosedError("in <TCP (closed)>")))
    assert not keep.filter(record(wrapped))
    assert keep.filter(record(ValueError("a real error")))
    assert keep.filter(logging.LogRecord("tornado.application", 40, "", 0, "x", (), None))


def test_a_plugin_line_up_runs_without_the_feel_and_refuses_kingmaking(plugin, tmp_path, capsys):
    """A designer's own policy at the table: the run goes without the feel (no pilot games
    of it; run.json says so), and --kingmaking is one line before any game."""
    config, _ = plugin(CHOOSER.format(ret="legal[0].code"))
    out = tmp_path / "r"
    line = one_error(capsys, "run", config, "--kingmaking", "--games", "2", "--out", out)
    assert "built-in policies only" in line and not out.exists()
    code, _, err = cli(capsys, "run", config, "--games", "2", "--jobs", "1", "--out", out,
                       "--quiet", "--no-report")  # fmt: skip
    assert code == 0, err
    assert json.loads((out / "run.json").read_text())["feel"] is False
    assert not (out / "feel.npz").exists()
