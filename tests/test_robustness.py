"""The command line's one error boundary: bad input, bad paths and a failing machine give one
line `error: ...` and exit code 2, before any game is played; a bug gives its traceback.

Every command runs in process (`sim.cli.main`), so these tests are quick.
"""

from __future__ import annotations

import errno
import time
from pathlib import Path

import pytest
from cli_helpers import BASE_TEXT, cli, one_error

from sim.cli import BUG_REPORT

ROOT = Path(__file__).resolve().parents[1]
BASE = BASE_TEXT
GREEDY = "  - {policy: greedy}"


def base_with(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


# ---------------------------------------------------------------- paths, before any game


def test_out_is_a_file(study, tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    line = one_error(capsys, "run", study(), "--games", "5", "--out", tmp_path / "f", "--quiet")
    assert "is a file" in line and str(tmp_path / "f") in line


def test_report_under_a_file_is_refused_before_playing(study, tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    args = ("--games", "5", "--out", tmp_path / "run", "--quiet")
    line = one_error(capsys, "run", study(), *args, "--report", tmp_path / "f" / "r.html")
    assert "is a file, not a folder" in line
    assert not (tmp_path / "run" / "games.parquet").exists()


def test_report_folder_not_writable(study, tmp_path, capsys, monkeypatch):
    """A read-only folder (mocked: the tests may run as root, who writes anywhere)."""
    import sim.runs.storage

    real = sim.runs.storage.os.access
    ro = tmp_path / "ro"
    ro.mkdir()
    monkeypatch.setattr(sim.runs.storage.os, "access", lambda p, m: Path(p) != ro and real(p, m))
    args = ("--games", "5", "--out", tmp_path / "run", "--quiet")
    line = one_error(capsys, "run", study(), *args, "--report", ro / "r.html")
    assert "cannot write in" in line and str(ro) in line
    assert not (tmp_path / "run" / "games.parquet").exists()


def test_out_cannot_be_created(study, tmp_path, capsys, monkeypatch):
    def refuse(self, *a, **k):
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    line = one_error(capsys, "run", study(), "--games", "5", "--out", tmp_path / "x", "--quiet")
    assert "Read-only file system" in line and str(tmp_path / "x") in line


def test_any_os_error_is_one_line(study, tmp_path, capsys, monkeypatch):
    """An OS error nobody anticipated still ends in one line naming the file."""
    import sim.config

    def broken(path, *more):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(sim.config, "load_study", broken)
    line = one_error(capsys, "validate", study())
    assert "Permission denied" in line and "study.yaml" in line


def test_a_bug_shows_its_traceback_and_asks_for_a_report(study, capsys, monkeypatch):
    import sim.config

    monkeypatch.setattr(sim.config, "summarize", lambda s: 1 / 0)
    code, _, err = cli(capsys, "validate", study())
    assert code == 1
    assert "Traceback" in err and "ZeroDivisionError" in err
    assert BUG_REPORT in err


# ---------------------------------------------------------------- bounded inputs


def _bomb() -> str:
    items = ["&a [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        items.append(f"&{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "[" + ", ".join(items) + "]"


BAD_CONFIGS = {
    "unhashable preset": (base_with(GREEDY, "  - {policy: heuristic, preset: [a]}"), "preset"),
    "players 500 deep": (base_with("players: 4 ", "players: " + "[" * 500 + "]" * 500 + " "), ""),
    "5000-digit players": (base_with("players: 4 ", "players: " + "9" * 5000 + " "), "4300"),
    "bomb as players": (base_with("players: 4 ", f"players: {_bomb()} "), "expands"),
    "bomb as a target": (BASE + f"targets:\n  balance: {_bomb()}\n", "expands"),
    "self-reference": (BASE + "targets:\n  balance: &x [*x]\n", "contains itself"),
    "games 1e30": (base_with("games: 10000 ", "games: 1" + "0" * 30 + " "), "games"),
    "nan temperature": (base_with(GREEDY, "  - {policy: heuristic, temperature: .nan}"), "nan"),
    "inf weight": (
        base_with(GREEDY, "  - {policy: heuristic, weights: {own_points: .inf}}"),
        "weights",
    ),
    "huge horizon": (base_with(GREEDY, "  - {policy: lookahead, horizon: 99999999}"), "horizon"),
    "10,000-point sweep": (
        BASE
        + "sweep:\n  deck.sprayers: ["
        + ", ".join(map(str, range(100)))
        + "]\n  deck.princesses: ["
        + ", ".join(map(str, range(2, 102)))
        + "]\n",
        "at most 256 points",
    ),
    "sweep too many games": (
        base_with("games: 10000 ", "games: 60000000 ") + "sweep:\n  deck.sprayers: [0, 4]\n",
        "100,000,000 games",
    ),
    "name with a folder": (base_with("name: base", 'name: "../../../x"'), "plain file name"),
    "name with a NUL": (base_with("name: base", 'name: "a\\0b"'), "plain file name"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_is_refused_fast(case, study, capsys):
    text, needle = BAD_CONFIGS[case]
    t0 = time.perf_counter()
    line = one_error(capsys, "validate", study(text))
    assert time.perf_counter() - t0 < 5
    assert needle in line and len(line) < 400, line


def test_huge_games_option(study, tmp_path, capsys):
    out = tmp_path / "run"
    line = one_error(capsys, "run", study(), "--games", "1" + "0" * 30, "--out", out, "--quiet")
    assert "games: must be from 1 to 100000000" in line and "31 digits" in line
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--games", "-5"], "--games must be from 1"),
        (["--games", "0"], "--games must be from 1"),
        (["--runner", "--repeat", "0", "--games", "20"], "--repeat must be from 1"),
        (["--policies", "--games", "-1"], "--games must be from 1"),
        (["--share", "play", "--config", ROOT / "configs" / "base.yaml"], "--share play: one of"),
        (["--share", "tune"], "add --config"),
        (["--share", "tune", "--config", "nothing.yaml"], "nothing.yaml: no such config"),
        (["--share", "tune", "--config", ROOT / "configs" / "base.yaml"], "no 'tune:' block"),
    ],
)
def test_bench_counts(args, needle, capsys):
    assert needle in one_error(capsys, "bench", *args)


def test_bench_finds_its_config_outside_the_repository(tmp_path, monkeypatch):
    from sim.bench.engine import bench_study

    monkeypatch.chdir(tmp_path)
    assert bench_study(None).name == "base"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--backend", "dask", "--scheduler", "notanaddress"], "--scheduler notanaddress"),
        (["--scheduler", "tcp://x:1"], "add --backend dask"),
        (["--jobs", "100000"], "--jobs must be"),
        (["--jobs", "0"], "--jobs must be"),
    ],
)
def test_worker_options(args, needle, study, tmp_path, capsys):
    if "dask" in args:
        pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    line = one_error(capsys, "run", study(), "--games", "5", "--out", out, "--quiet", *args)
    assert needle in line


def test_play_game_index_is_bounded(study, capsys):
    assert "--game must be" in one_error(capsys, "play", study(), "--game", "-1")


# ---------------------------------------------------------------- where reports may go


def test_report_may_not_overwrite_the_config(study, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # report.path is relative to the working folder
    victim = study(BASE + "report: {path: victim.yaml}\n", "victim.yaml")
    before = victim.read_text()
    args = ("--games", "5", "--out", tmp_path / "run", "--quiet")
    line = one_error(capsys, "run", victim, *args)
    assert "not a report made by sim" in line and "--force" in line
    assert victim.read_text() == before and not (tmp_path / "run" / "games.parquet").exists()


def test_report_path_rules(tmp_path):
    from sim.errors import SimError
    from sim.runs.paths import REPORT_MARK, check_report_path

    run = tmp_path / "run"
    (run / "games.parquet").mkdir(parents=True)
    (run / "run.json").write_text("{}")
    page = tmp_path / "old.html"
    page.write_text(f"<!DOCTYPE html>\n<html><head>{REPORT_MARK}</head></html>")
    assert check_report_path(page) == page  # our own report: replaced
    assert check_report_path(run / "report.html")  # a new file beside a run's files
    for bad, needle in [
        (run / "run.json", "not a report"),
        (run / "games.parquet" / "r.html", "inside the run folder"),
        (run, "is a folder"),
        (tmp_path / "nothing" / "..", "not a file name"),
    ]:
        with pytest.raises(SimError, match=needle):
            check_report_path(bad)
    assert check_report_path(run / "run.json", force=True)


def test_a_run_inside_a_study_folder_is_refused_its_page_before_any_game(tmp_path, capsys):
    """Its own report.html would be inside the study's folder: refused before the page's
    games are played or a file is written into it."""
    inner = tmp_path / "study" / "diagnose" / "run"
    args = ("--games", "8", "--jobs", "1", "--out", inner, "--quiet", "--no-report")
    code, _, err = cli(capsys, "run", ROOT / "configs" / "base.yaml", *args)
    assert code == 0, err
    (tmp_path / "study" / "study.json").write_text("{}")
    before = sorted(p.name for p in inner.iterdir())
    line = one_error(capsys, "report", inner, "--out", tmp_path / "page.html")
    assert "inside the run folder" in line
    assert sorted(p.name for p in inner.iterdir()) == before


def _no_page_plays(run, pick):
    """A stand-in for the page's played parts (sent to the side process by name)."""
    return None


def _no_replay(run, pick):
    """A stand-in for the representative game's replay page: its line."""
    return "replay: (a stand-in)"


def test_report_of_a_run_may_not_clobber_its_run_json(tmp_path, capsys, monkeypatch):
    from sim.runs.paths import REPORT_MARK

    out = tmp_path / "run"
    code, _, err = cli(capsys, "run", ROOT / "configs" / "base.yaml", "--games", "8",
                       "--jobs", "1", "--out", out, "--quiet", "--no-report")  # fmt: skip
    assert code == 0, err
    line = one_error(capsys, "report", out, "--out", out / "run.json")
    assert "not a report made by sim" in line
    assert '"status": "complete"' in (out / "run.json").read_text()
    # the page itself is beside the point here: stand-ins keep the test quick, and its
    # played parts (which compile on a fresh cache) from printing heartbeats beside the error
    monkeypatch.setattr("sim.report.run_report.report_context", lambda *args: {})
    monkeypatch.setattr("sim.studies.run_page.page_plays", _no_page_plays)
    monkeypatch.setattr("sim.table.pages.representative_replay", _no_replay)
    monkeypatch.setattr(
        "sim.report.html.render_template", lambda name, c: f"<!DOCTYPE html>{REPORT_MARK}"
    )
    assert cli(capsys, "report", out, "--out", tmp_path / "r.html")[0] == 0
    assert cli(capsys, "report", out, "--out", tmp_path / "r.html")[0] == 0  # ours: replaced
    # a full disk while writing leaves the old page whole, and one line
    before = (tmp_path / "r.html").read_bytes()

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr("sim.runs.storage._write_bytes", full)
    line = one_error(capsys, "report", out, "--out", tmp_path / "r.html")
    # the run's own page (run/report.html) is written first, then copied to --out
    assert "No space left on device" in line and str(out / "report.html") in line
    assert (tmp_path / "r.html").read_bytes() == before
