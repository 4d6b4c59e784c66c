"""Nothing silent for more than about ten seconds (`sim.runs.pulse`): a silence gets a line
saying what the command is doing and how far along it is; a command that talks is never
interrupted; --quiet and the interactive commands get nothing."""

from __future__ import annotations

import time

from cli_helpers import cli

from sim.runs import pulse as P


def test_a_silence_gets_a_line_saying_what_and_how_far(capsys):
    with P.pulse("sim test", silence=0.3):
        P.progress(5, 20)
        time.sleep(1.0)
        P.doing("building the page")
        time.sleep(1.0)
    err = capsys.readouterr().err
    assert "  sim test: playing games, 5 of 20 games (25%)," in err
    assert "  sim test: building the page (" in err
    P.doing("outside a pulse")  # nothing to tell: no error, nothing said
    assert capsys.readouterr().err == ""


def test_a_command_that_talks_is_not_interrupted(capsys):
    with P.pulse("sim test", silence=0.5):
        for i in range(15):
            print(f"line {i}")
            time.sleep(0.1)
    out, err = capsys.readouterr()
    assert out.count("line") == 15 and "sim test" not in err


def test_quiet_says_nothing(capsys):
    with P.pulse("sim test", quiet=True, silence=0.1):
        time.sleep(0.5)
    assert capsys.readouterr().err == ""


def test_every_working_command_gets_a_pulse(capsys, monkeypatch, tmp_path):
    from pathlib import Path

    base = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
    monkeypatch.setattr(P, "SILENCE_S", 0.05)
    code, _, err = cli(capsys, "turns", base, "--games", "400", "--players", "2", "3")
    assert code == 0 and "  sim turns: " in err
    code, _, err = cli(capsys, "validate", base)  # a quick check: no pulse
    assert code == 0 and "sim validate:" not in err
