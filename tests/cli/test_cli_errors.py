"""Every error a user can cause gives one clear line and exit code 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import cli

BASE = (Path(__file__).resolve().parents[2] / "configs" / "base.yaml").read_text()

CASES = {
    "unknown key": (BASE + "\nfoo: 1\n", "foo"),
    "misspelt key": (BASE.replace("sprayers: 4", "sprayer: 4"), "did you mean 'sprayers'"),
    "wrong type": (BASE.replace("players: 4", "players: four"), "players"),
    "negative count": (BASE.replace("sprayers: 4", "sprayers: -2"), "deck.sprayers"),
    "one player": (BASE.replace("players: 4", "players: 1"), "players"),
    "six players": (BASE.replace("players: 4", "players: 6"), "players"),
    "two rotations": (BASE.replace("NE: 6", "NE: 3\n    SW: 3"), "R1.3"),
    "malformed walls": (BASE.replace("NE: 6", "NX: 6"), "malformed wall string"),
    "unknown policy": (BASE.replace("{policy: random}", "{policy: rnadom}", 1), "unknown policy"),
    "unknown variant value": (
        BASE.replace("match_sides: any", "match_sides: sometimes"),
        "match_sides",
    ),
    "broken yaml": ("players: [4\n", "YAML"),
}


def _sim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sim.cli", *args], capture_output=True, text=True, timeout=120
    )


def _bad_config(tmp_path, case: str, command: str) -> tuple[Path, list[str]]:
    text, _ = CASES[case]
    path = tmp_path / "study.yaml"
    path.write_text(text)
    extra = ["--out", str(tmp_path / "out"), "--quiet"] if command == "run" else []
    return path, [command, str(path), *extra]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_config_is_one_line(case, command, tmp_path, capsys):
    """Every case through the command's one error boundary (`sim.cli.main`, in this
    process: an exception escaping it would fail the test as a traceback would)."""
    path, args = _bad_config(tmp_path, case, command)
    code, _, err = cli(capsys, *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert str(path) in lines[0] and CASES[case][1] in lines[0], lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_config_is_one_line_from_the_real_command(command, tmp_path):
    """The same in a process of its own, as a designer runs it: exit code 2, one line."""
    path, args = _bad_config(tmp_path, "unknown policy", command)
    done = _sim(*args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert str(path) in lines[0] and "unknown policy" in lines[0], lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["run", "validate", "play"])
def test_missing_file(command, tmp_path):
    done = _sim(command, str(tmp_path / "nope.yaml"))
    assert done.returncode == 2
    assert "nope.yaml" in done.stderr and "Traceback" not in done.stderr


def test_run_into_a_used_folder_keeps_it(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("finished results")
    done = _sim(
        "run",
        str(Path(__file__).resolve().parents[2] / "configs" / "base.yaml"),
        "--games",
        "10",
        "--out",
        str(out),
        "--quiet",
    )
    assert done.returncode == 2 and "--resume" in done.stderr
    assert (out / "keep.txt").read_text() == "finished results"


def test_resume_of_a_non_run_folder(tmp_path):
    done = _sim("run", "--resume", str(tmp_path))
    assert done.returncode == 2 and "not a run folder" in done.stderr
