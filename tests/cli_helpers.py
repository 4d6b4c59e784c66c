"""Run the command line in-process for tests: exit code, stdout and stderr; the base study's
text (the `study` fixture that writes it is in conftest.py)."""

from __future__ import annotations

from pathlib import Path

from sim.cli import main

PLUGIN_NOTICE = "plug-in: "  # the line naming a plug-in's module and file (sim.config.study)
# The compile heartbeat's lines (sim.runs.compile_watch): a test that is first to need the
# game loop on a cold cache (the suite's workers share it) compiles it and says so.
COMPILING = ("compiling ", "compiling: ", "compiled in ")


def cli(capsys, *args) -> tuple[int, str, str]:
    """`sim ARGS` in this process; returns (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(capsys, *args) -> str:
    """Run a command that must fail with one line `error: ...`, exit code 2 and no traceback
    (besides the notice `plug-in: ...` that a config naming a plug-in prints first, and the
    compile heartbeat of a cold cache)."""
    code, out, err = cli(capsys, *args)
    assert code == 2, (out, err)
    lines = [
        line
        for line in err.strip().splitlines()
        if not line.startswith(PLUGIN_NOTICE) and not line.lstrip().startswith(COMPILING)
    ]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


def sim_cli(*args) -> str:
    """`sim ARGS` in this process, for fixtures without capsys: its stdout; any exit code
    but 0 fails with what it printed on stderr."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    assert code == 0, err.getvalue()
    return out.getvalue()


BASE_TEXT = (Path(__file__).resolve().parents[1] / "configs" / "base.yaml").read_text()
