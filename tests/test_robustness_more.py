"""Issue 26's cases, one test each: nothing of the user's is overwritten (every output path is
checked before any game), inputs are bounded while they are read, counts are bounded on every
command, and damaged study folders end in one line.

Commands run in process (`sim.cli.main`); a case that could hang runs in a subprocess with a
timeout instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from cli_helpers import BASE_TEXT, cli, one_error

ROOT = Path(__file__).resolve().parents[1]
BASE = BASE_TEXT


def no_games(monkeypatch, *targets: str) -> None:
    """Make playing a game fail the test: the refusal must come first. The studies are
    imported first, so that a module imported during the test (the commands import theirs
    late) never keeps the stand-in as its own `execute` after the test."""
    import importlib

    for name in ("advise", "tune", "value", "ladder", "luck", "compare", "sweep", "calibrate"):
        importlib.import_module(f"sim.studies.{name}")

    def played(*args, **kwargs):
        raise AssertionError("a game was played before the refusal")

    for target in targets:
        monkeypatch.setattr(target, played)


# ---------------------------------------------------------------- nothing overwritten


def test_turns_figure_over_a_config_is_refused_before_any_game(
    study, tmp_path, capsys, monkeypatch
):
    victim = study(name="x.yaml")
    before = victim.read_bytes()
    no_games(monkeypatch, "sim.studies.deck_parity.deck_scan")
    line = one_error(capsys, "turns", study(), "--games", "5", "--figure", victim)
    assert f"{victim}: exists and is not a figure made by sim; use --force" in line
    assert victim.read_bytes() == before  # byte for byte


def test_play_log_over_a_config_is_refused_before_the_game(study, capsys, monkeypatch):
    victim = study(name="x.yaml")
    before = victim.read_bytes()
    no_games(monkeypatch, "sim.table.record.play_recorded")
    line = one_error(capsys, "play", study(), "--log", victim)
    assert f"{victim}: exists and is not a game log made by sim" in line
    assert victim.read_bytes() == before


def test_a_log_of_ours_is_replaced_and_force_replaces_any(study, tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    assert cli(capsys, "play", study(), "--log", log)[0] == 0
    assert cli(capsys, "play", study(), "--game", "1", "--log", log)[0] == 0  # ours: replaced
    assert json.loads(log.read_text().splitlines()[0])["game"] == 1
    other = study("just: text\n", "other.txt")
    assert cli(capsys, "play", study(), "--log", other, "--force")[0] == 0
    assert other.read_text().startswith('{"event": "setup"')


def test_replay_page_over_a_config_is_refused_before_replaying(
    study, tmp_path, capsys, monkeypatch
):
    log = tmp_path / "g.jsonl"
    assert cli(capsys, "play", study(), "--log", log)[0] == 0
    victim = study(name="x.yaml")
    before = victim.read_bytes()
    no_games(monkeypatch, "sim.table.pages.replay_source")
    line = one_error(capsys, "replay", log, "--out", victim, "--continuations", "2")
    assert "not a report made by sim" in line and victim.read_bytes() == before
    assert "--continuations must be" in one_error(capsys, "replay", log, "--continuations", "0")


def test_bench_keep_never_overwrites_a_page_of_the_users(tmp_path, capsys, monkeypatch):
    (tmp_path / "mine").mkdir()
    page = tmp_path / "mine" / "report.html"
    page.write_text("my own page")
    no_games(monkeypatch, "sim.runs.run")
    line = one_error(capsys, "bench", "--report", "--games", "50", "--keep", tmp_path / "mine")
    assert "report.html: exists and is not a report" in line and page.read_text() == "my own page"
    assert "--keep DIR keeps the run of --report" in one_error(capsys, "bench", "--keep", "x")


# ---------------------------------------------------------------- bounded while read


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "/dev/zero"], "/dev/zero: is larger than 10,000,000 bytes; not a position"),
        (["validate", "/dev/zero"], "/dev/zero: larger than 1,000,000 bytes; not a study file"),
        (["play", "--replay", "/dev/zero"], "/dev/zero: not a log file"),
    ],
)
def test_dev_zero_ends_in_one_line_with_bounded_memory(capsys, args, needle):
    tracemalloc.start()
    try:
        line = one_error(capsys, *args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert needle in line
    assert peak < 64_000_000  # the bound and a block, not the device's endless zeros


def test_an_extends_parent_is_bounded_while_read(study, capsys):
    line = one_error(capsys, "validate", study("extends: /dev/zero\n", "child.yaml"))
    assert "/dev/zero: larger than 1,000,000 bytes" in line


@pytest.mark.parametrize(("command", "name"), [("validate", "f.yaml"), ("score", "p.json")])
def test_a_named_pipe_nobody_writes_to_does_not_hang(tmp_path, command, name):
    os.mkfifo(tmp_path / name)
    done = subprocess.run(
        [sys.executable, "-m", "sim.cli", command, str(tmp_path / name)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"error: {tmp_path / name}: ")


# ---------------------------------------------------------------- bounded values


@pytest.mark.parametrize(
    ("sets", "needle"),
    [
        (["deck.sprayers=1000000000000"], "deck.sprayers: must be from 0 to 2000"),
        (["deck.boxes.N=1000000000"], "deck.boxes.N: must be <= 2000"),
        (["deck.sprayers=1990"], "deck: 2,056 cards in the draw deck; at most 2,000"),
        (["deck.toys={" + ", ".join(f"t{i}: 1" for i in range(60)) + "}"], "64 toy kinds"),
        (["luck={deals: 1}"], "luck.deals: must be an integer from 2 to"),
        (["luck={replays: 1}"], "luck.replays: must be an integer from 2 to"),
        (["value={options: [], ablate: false}"], "value: nothing to measure"),
        (["plugin_time_limit=-1"], "plugin_time_limit: must be a number of seconds above 0"),
        (["deck.toys=" + "[" * 3000 + "]" * 3000], "nested more than 20 levels deep"),
        (["deck.toys={fish: 1, fish: 9}"], "duplicate key 'fish'"),
        (["ladder={rungs: [{policy: random, label: a/b}, {policy: greedy}]}"],
         "ladder.rungs[0].label: 'a/b': a label names the match's files"),
    ],
    ids=["deck 1e12", "box kind 1e9", "deck total", "toy kinds", "luck deals", "luck replays",
         "empty value", "time limit", "--set deep", "--set duplicate", "label with /"],
)  # fmt: skip
def test_bounded_settings(study, capsys, sets, needle):
    t0 = time.perf_counter()
    args = [a for s in sets for a in ("--set", s)]
    line = one_error(capsys, "validate", study(), *args)
    assert needle in line and time.perf_counter() - t0 < 10, line


def test_a_set_alias_bomb_is_refused_at_once(study, capsys):
    items = ["&a [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        items.append(f"&{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    line = one_error(capsys, "validate", study(), "--set", "targets=[" + ", ".join(items) + "]")
    assert "expands to more than 50,000 values" in line


TUNE = (
    "tune:\n  space: {{deck.sprayers: {space}}}\n  targets: {{mean_score: 1}}\n  budget: {budget}\n"
)
SMALL = "{games: 2000, first: 100, confirm: 100}"  # the tune needs 2 x 100 + 3 x 50 + 100


@pytest.mark.parametrize(
    ("space", "budget", "needle"),
    [
        ("[0, 1000000000000]", SMALL, "spans 1,000,000,000,001 values"),
        ("[0, 6]", "{games: 2000, first: 100, finalists: 100000000}",
         "tune.budget.finalists: must be an integer from 1 to 100"),
        ("[0, 6]", "{games: 1000000000000, first: 100}", "tune.budget.games: must be an integer"),
    ],
)  # fmt: skip
def test_tune_bounds_without_listing_a_range(study, capsys, space, budget, needle):
    t0 = time.perf_counter()
    line = one_error(capsys, "validate", study(BASE + TUNE.format(space=space, budget=budget)))
    assert needle in line and time.perf_counter() - t0 < 10, line


def test_tune_space_is_still_checked_for_a_valid_game(study, capsys):
    text = BASE + TUNE.format(space="[1990, 2000]", budget=SMALL)
    assert "gives only invalid games" in one_error(capsys, "validate", study(text))
    text = BASE + TUNE.format(space="[0, 10]", budget=SMALL)
    code, out, _ = cli(capsys, "validate", study(text))
    assert code == 0 and "tune deck.sprayers" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["luck", "--deals", "0"], "--deals must be from 2 to 100,000,000, got 0"),
        (["luck", "--deals", "1"], "--deals must be from 2"),
        (["luck", "--replays", "0"], "--replays must be from 2 to 10,000, got 0"),
        (["luck", "--deals", "100000000", "--replays", "10"], "is more than 100,000,000 games"),
        (["turns", "--games", "1000000000000"], "--games must be from 1 to 100,000, got"),
        (["turns", "--players", "2", "2", "2"], "--players: each player count once"),
        (["sweep", "--games", "1"], "need at least 2 games per point"),
        (["value", "--games", "1000000000000"], "--games must be from 2 to 100,000,000"),
        (["ladder", "--games", "1"], "need at least 2 games per point"),
        (["tune", "--budget", "1000000000000000"], "--budget must be from 1 to 100,000,000"),
        (["advise", "--budget", "1000000000000000"], "--budget must be from 1 to 100,000,000"),
        (["advise", "--budget", "0"], "--budget must be from 1 to 100,000,000, got 0"),
    ],
)
def test_counts_on_the_command_line_are_bounded_before_any_game(
    study, tmp_path, capsys, monkeypatch, args, needle
):
    no_games(monkeypatch, "sim.runs.orchestrate.execute", "sim.studies.deck_parity.deck_scan")
    extra = "sweep: {deck.sprayers: [2, 4]}\n" if args[0] == "sweep" else ""
    if args[0] == "tune":
        extra = TUNE.format(space="[0, 6]", budget=SMALL)
    config = study(BASE + extra)
    out = ["--out", tmp_path / "o", "--quiet"] if args[0] != "turns" else []
    line = one_error(capsys, args[0], config, *args[1:], *out)
    assert needle in line, line


TUNE_ONE_GAME = (
    "tune: {space: {deck.sprayers: [0, 4]}, targets: {mean_score: 1.6},"
    " budget: {games: 50000, first: 1}}"
)


def test_compare_needs_two_games(study, tmp_path, capsys, monkeypatch):
    no_games(monkeypatch, "sim.runs.orchestrate.execute")
    a, b = study(name="a.yaml"), study(BASE.replace("sprayers: 4", "sprayers: 5"), "b.yaml")
    line = one_error(capsys, "compare", a, b, "--games", "1", "--out", tmp_path / "c")
    assert "need at least 2 games per point" in line
    until_one = ["--until", "decided", "--max-games", "1", "--out", tmp_path / "c"]
    assert "--max-games must be a number of games from 2" in one_error(
        capsys, "compare", a, b, *until_one
    )
    line = one_error(capsys, "compare", a, b, "--labels", " ", "B", "--out", tmp_path / "c")
    assert "--labels: give each side a name" in line
    for block, says in [
        ("value: {games: 1}", "value.games: must be an integer from 2"),
        ("ladder: {games: 1}", "ladder.games: must be an integer from 2"),
        ("advise: {screen: 1}", "advise.screen: must be an integer from 2"),
        ("advise: {confirm: 1}", "advise.confirm: must be an integer from 2"),
        (TUNE_ONE_GAME, "tune.budget.first: must be an integer from 2"),
    ]:  # one game a point, however it is asked: refused before any game
        one = study(BASE + block + "\n", "one.yaml")
        assert says in one_error(capsys, "validate", one)


# ---------------------------------------------------------------- logs and --policy


def test_a_deeply_nested_log_record_is_one_line(tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    log.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    assert f"{log}:1: not a JSON record" in one_error(capsys, "play", "--replay", log)


def test_replay_policy_is_read_by_the_bounded_loader(study, tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    assert cli(capsys, "play", study(), "--log", log)[0] == 0
    deep = "[" * 3000 + "]" * 3000
    line = one_error(capsys, "replay", log, "--policy", deep, "--continuations", "2")
    assert "--policy: " in line and "is neither a policy name nor a YAML seat" in line
