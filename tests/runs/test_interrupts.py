"""A Ctrl-C that arrives inside compiled code reaches Python as a SystemError (numba: 'returned
a result with an exception set', the KeyboardInterrupt as its cause); it stops the command as
Ctrl-C does (exit 130, run.json interrupted), never as a bug. A study that stops says so in
its study.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli

from sim.errors import SimError
from sim.runs.parallel import interrupt_in
from sim.studies.common import stop_marked

ROOT = Path(__file__).resolve().parents[2]


def compiled_interrupt() -> SystemError:
    """What numba raises when Ctrl-C arrives inside a compiled call."""
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError(
                "CPUDispatcher(play_chunk) returned a result with an exception set"
            ) from exc
    except SystemError as exc:
        return exc


def test_the_interrupt_is_found_in_the_chain():
    assert isinstance(interrupt_in(compiled_interrupt()), KeyboardInterrupt)
    assert interrupt_in(SystemError("a real one")) is None


def test_a_run_interrupted_inside_compiled_code_stops_as_ctrl_c(tmp_path, capsys, monkeypatch):
    def play(*args, **kwargs):
        raise compiled_interrupt()

    monkeypatch.setattr("sim.runs.orchestrate.play_arrays", play)
    out = tmp_path / "run"
    code, _, err = cli(capsys, "run", ROOT / "configs" / "base.yaml", "--games", "20",
                       "--jobs", "1", "--quiet", "--out", out)  # fmt: skip
    assert code == 130 and "Traceback" not in err and f"sim run --resume {out}" in err
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"


def test_anywhere_else_too(capsys, monkeypatch):
    def validate(args):
        raise compiled_interrupt()

    monkeypatch.setattr("sim.cli.commands.validate", validate)
    code, _, err = cli(capsys, "validate", ROOT / "configs" / "base.yaml")
    assert (code, err.strip()) == (130, "interrupted")


@pytest.mark.parametrize(
    ("raised", "fresh", "status"),
    [
        (KeyboardInterrupt(), False, "interrupted"),
        (SimError("disk full"), True, "failed"),
        (SimError("not ours to mark"), False, "searching"),  # e.g. a resume refused
    ],
)
def test_a_stopped_study_says_so(tmp_path, raised, fresh, status):
    (tmp_path / "study.json").write_text(json.dumps({"kind": "tune", "status": "searching"}))
    with pytest.raises(type(raised)), stop_marked(tmp_path, fresh):
        raise raised
    assert json.loads((tmp_path / "study.json").read_text())["status"] == status


@pytest.mark.parametrize("phase", ["diagnose", "screen", "select", "confirm"])
def test_a_stopped_advice_says_so_in_every_phase(tmp_path, phase):
    (tmp_path / "study.json").write_text(json.dumps({"kind": "advise", "status": phase}))
    with pytest.raises(KeyboardInterrupt), stop_marked(tmp_path, False):
        raise KeyboardInterrupt
    meta = json.loads((tmp_path / "study.json").read_text())
    assert meta["status"] == "interrupted" and meta["reason"].startswith("interrupted")


def test_advise_marks_its_folder_when_it_stops(tmp_path, capsys, monkeypatch):
    def diagnose(state, workers, say):  # the folder is made, then the user presses Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr("sim.studies.advise._diagnose", diagnose)
    out = tmp_path / "a"
    code, _, _ = cli(capsys, "advise", ROOT / "configs" / "base.yaml", "--jobs", "1",
                     "--quiet", "--no-report", "--out", out)  # fmt: skip
    assert code == 130
    assert json.loads((out / "study.json").read_text())["status"] == "interrupted"
