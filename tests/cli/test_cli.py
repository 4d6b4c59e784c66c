"""The `sim` command: score, play (its JSON Lines log) and validate, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.cli import main
from sim.runs.paths import FIGURE_MARK

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
WORKED = ROOT / "configs" / "positions" / "worked_example.json"
SETUP_KEYS = {"seed", "config", "deck", "start", "hands", "aside", "deck_after"}


def sim(*args: str) -> subprocess.CompletedProcess:
    """Run `python -m sim.cli` in a fresh process, as the `sim` script does."""
    return subprocess.run(
        [sys.executable, "-m", "sim.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def score_json(path: Path, capsys) -> dict:
    """`sim score path` in process: its exit code must be 0 and its output one JSON document."""
    assert main(["score", str(path)]) == 0
    return json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------- sim score


def test_score_the_worked_example(capsys):
    """RULES.md worked example: `sim score` prints scores [3, 3] and the full breakdown."""
    result = score_json(WORKED, capsys)
    assert result["scores"] == [3, 3]
    assert result["cat_bonus"] == [1, 1]
    assert result["winners"] == [0, 1]
    (box,) = result["boxes"]
    assert (box["closed"], box["value"], box["leaders"], box["sprayers"]) == (True, 2, [0, 1], 1)
    assert box["toys"] == {"mouse": 1, "yarn": 2}


def test_score_the_worked_example_as_a_command():
    done = sim("score", str(WORKED))
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["scores"] == [3, 3]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"players": 2, "cards": [{"at": [0, 0], "walls": "NX"}]}', "cards[0]"),
        (
            '{"players": 2, "cards": [{"at": [0, 0], "walls": ""}, {"at": [0, 0], "walls": "N"}]}',
            "cards[1]",
        ),
        (
            '{"players": 2, "cards": [{"at": [0, 0], "walls": ""}, {"at": [5, 5], "walls": ""}]}',
            "R1.4",
        ),
        ('{"players": 7, "cards": [{"at": [0, 0], "walls": ""}]}', "players"),
        ("{not json", "JSON"),
    ],
)
def test_score_an_invalid_position_is_one_line_and_exit_2(tmp_path: Path, text: str, needle: str):
    """A bad position file exits 2 with one line on stderr naming the file and the entry."""
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    line = one_error_line(sim("score", str(path)))
    assert str(path) in line and needle in line


def test_score_a_missing_file(tmp_path: Path, capsys):
    assert main(["score", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "nope.json" in err


# ---------------------------------------------------------------- sim play


@pytest.fixture(scope="module")
def play_log(tmp_path_factory) -> tuple[list[dict], str]:
    """`sim play configs/base.yaml --seed 3 --log F --show`: the log records and stdout."""
    path = tmp_path_factory.mktemp("play") / "game.jsonl"
    done = sim("play", str(BASE), "--seed", "3", "--log", str(path), "--show")
    assert done.returncode == 0, done.stderr
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines], done.stdout


def test_play_log_setup_record(play_log):
    """The log opens with `setup`: seed, resolved config, deck, start card, hands, aside, deck."""
    events, _ = play_log
    setup = events[0]
    assert setup["event"] == "setup"
    assert SETUP_KEYS <= set(setup)
    assert setup["seed"] == 3
    assert setup["config"]["players"] == 4 and len(setup["hands"]) == 4
    assert all(len(hand) == setup["config"]["hand_size"] for hand in setup["hands"])
    assert setup["start"]["at"] == [0, 0]
    assert setup["start"]["card"] == next(c for c in setup["deck"] if c.startswith("box:"))
    assert sorted(setup["deck"]) == sorted(
        [setup["start"]["card"], *sum(setup["hands"], []), *setup["deck_after"]]
    )
    assert set(setup["aside"]) <= set(setup["deck_after"])
    assert sum(e["event"] == "setup" for e in events) == 1


def test_play_log_turns_and_triggers(play_log):
    """Each turn opens with a `turn` record whose seat does the turn's events; `end_trigger`
    comes right after the draw of the last card or the cat that emptied a supply; `end` last."""
    events, _ = play_log
    setup = events[0]
    cats = {p: setup["config"]["cats_per_player"] for p in range(setup["config"]["players"])}
    draws = 0
    seat = None
    triggers = 0
    for i, event in enumerate(events[1:-1], 1):
        kind = event["event"]
        if kind == "turn":
            assert set(event) == {"event", "seat", "phase", "action"}
            seat = event["seat"]
            continue
        if kind == "end_trigger":
            triggers += 1
            before = events[i - 1]
            if before["event"] == "setup":
                assert event["seat"] == -1 and not setup["deck_after"]
            elif before["event"] == "draw":
                assert event["reason"] == "deck_empty" and draws == len(setup["deck_after"])
            else:
                assert before["event"] == "cat" and event["reason"] == "last_cat"
                assert cats[before["seat"]] == 0
            assert event["seat"] == before.get("seat", -1)
            continue
        assert seat is not None, f"record {i} comes before any turn: {event}"
        assert event["seat"] == seat, f"record {i} is not by the turn's seat: {event}"
        if kind == "draw":
            draws += 1
        elif kind == "cat":
            cats[seat] -= 1
        elif kind == "princess" and setup["config"]["rules"]["evicted_cat"] == "return":
            cats[event["evicted"]] += 1
    assert triggers == 1
    end = events[-1]
    assert end["event"] == "end"
    assert {"scores", "cat_bonus", "winners"} <= set(end)
    assert sum(e["event"] == "end" for e in events) == 1


def final_position(events: list[dict]) -> dict:
    """The final table as a position file, rebuilt from the log's records alone."""
    setup = events[0]
    cards = {(0, 0): {"at": [0, 0], "walls": setup["start"]["walls"]}}
    cats: dict[tuple, dict] = {}
    princesses, items = [], []
    for e in events:
        if e["event"] == "place":
            cards[tuple(e["at"])] = {"at": e["at"], "walls": e["walls"]}
        elif e["event"] == "sleeping":
            cards[tuple(e["at"])] = {"at": e["at"], "walls": e["walls"], "sleeping": e["seat"]}
        elif e["event"] == "cat":
            cats[tuple(map(tuple, e["at"]))] = {"player": e["seat"], "at": e["at"]}
        elif e["event"] == "princess":
            gone = cats.pop(tuple(map(tuple, e["at"])))
            assert gone["player"] == e["evicted"]
            princesses.append({"at": e["at"]})
        elif e["event"] == "item":
            items.append({"kind": e["kind"], "between": e["between"]})
    return {
        "players": setup["config"]["players"],
        "rules": setup["config"]["rules"],
        "cards": list(cards.values()),
        "cats": list(cats.values()),
        "princesses": princesses,
        "items": items,
    }


def test_play_log_end_scores_equal_sim_score_of_the_final_table(play_log, tmp_path, capsys):
    """The `end` record's scores equal `sim score` on the table rebuilt from the log."""
    events, stdout = play_log
    path = tmp_path / "final.json"
    path.write_text(json.dumps(final_position(events)), encoding="utf-8")
    result = score_json(path, capsys)
    end = events[-1]
    assert result["scores"] == end["scores"]
    assert result["cat_bonus"] == end["cat_bonus"]
    assert result["winners"] == end["winners"]
    for seat, score in enumerate(end["scores"]):  # "1 point", "2 points"
        assert f"seat {seat} " in stdout and f"{score} point{'' if score == 1 else 's'}" in stdout


def test_play_show_draws_the_table(play_log):
    """--show prints the final table with its legend before the scores."""
    _, stdout = play_log
    assert "A<seat> awake cat" in stdout
    assert "seed 3" in stdout


def test_play_is_reproducible(tmp_path: Path):
    """The same config and --seed write the same log twice."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["play", str(BASE), "--seed", "5", "--log", str(a)]) == 0
    assert main(["play", str(BASE), "--seed", "5", "--log", str(b)]) == 0
    assert a.read_text() == b.read_text()


@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_play_rejects_a_seed_outside_the_study_range(seed: str, capsys):
    """--seed must obey the same bounds as the config's `seed` (0 .. 2**63 - 1): a negative
    seed must not silently play another seed's game."""
    assert main(["play", str(BASE), "--seed", seed]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "seed" in err


# ---------------------------------------------------------------- sim validate


def test_validate_the_base_config(capsys):
    assert main(["validate", str(BASE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{BASE}: OK")


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (("players: 4", "players: 9"), "players"),
        (("NE: 6", "NE: 3\n    SW: 3"), "R1.3"),
        (("sprayers: 4", "sprayers: -1"), "deck.sprayers"),
    ],
)
def test_validate_a_bad_config_is_one_line_and_exit_2(tmp_path: Path, change, needle):
    """`sim validate` on a bad config exits 2 with one line naming the file and the key."""
    path = tmp_path / "bad.yaml"
    path.write_text(BASE.read_text(encoding="utf-8").replace(*change), encoding="utf-8")
    line = one_error_line(sim("validate", str(path)))
    assert str(path) in line and needle in line


# ---------------------------------------------------------------- sim turns


def test_turns_prints_parity_against_deck_size(tmp_path: Path, capsys):
    figure = tmp_path / "turns.svg"
    args = ["turns", str(BASE), "--games", "20", "--players", "3", "4", "--figure", str(figure)]
    assert main(args) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("base: turns per seat against deck size (20 games per point")
    rows = [line.split() for line in lines[2:] if line.split() and line.split()[0] in "34"]
    assert [(r[0], r[1]) for r in rows] == [("3", str(b)) for b in range(45, 52)] + [
        ("4", str(b)) for b in range(44, 53)
    ]
    assert "(config)" in out and "every seat equal" in out
    mark, svg = figure.read_text(encoding="utf-8").split("\n", 1)
    assert mark == FIGURE_MARK and svg.startswith("<svg")  # ours: a later --figure replaces it


def test_turns_refuses_a_player_count_out_of_range():
    line = one_error_line(sim("turns", str(BASE), "--players", "6"))
    assert "--players: player counts are 2 to 5, got 6" in line


BLAS_PROBE = (
    "import sys; from sim.cli import _one_blas_thread; _one_blas_thread(); import numpy;"
    " from threadpoolctl import threadpool_info;"
    " print(max(p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'))"
)


@pytest.mark.parametrize(("chosen", "threads"), [(None, "1"), ("2", "2")])
def test_a_command_runs_blas_on_one_thread_unless_the_user_chose(chosen, threads):
    """BLAS's spinning threads cost about an eighth of `sim report`'s CPU: one thread by
    default, a user's own OPENBLAS_NUM_THREADS kept."""
    import os

    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    if chosen is not None:
        env["OPENBLAS_NUM_THREADS"] = chosen
    out = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == threads


LEAVE_PROBE = """
import atexit, sys, threading, time, weakref
from sim.cli import leave

class Held:
    pass

held = Held()
weakref.finalize(held, print, "finalizer ran")
atexit.register(print, "atexit ran")
threading.Thread(target=lambda: (time.sleep(0.3), print("thread finished"))).start()
print("x" * 100_000, end="")  # buffered: a file or a pipe, not a terminal
print()
leave(int(sys.argv[1]))
print("not reached")
"""


@pytest.mark.parametrize("code", [0, 2, 130])
def test_the_script_leaves_without_teardown_but_with_everything_shutdown_does(code, tmp_path):
    """`sim` ends with `leave`: the exit code kept, a running thread waited for, the atexit
    handlers and weakref finalizers run, buffered output written whole, nothing after."""
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        probe = [sys.executable, "-c", LEAVE_PROBE, str(code)]
        done = subprocess.run(probe, stdout=sink, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == code, done.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "x" * 100_000
    # shutdown's order: threads joined, then the atexit handlers, last registered first
    # (weakref registered its hook with the first finalizer, before this probe's handler)
    assert lines[1:] == ["thread finished", "atexit ran", "finalizer ran"]
    assert done.stderr == ""


def test_the_script_is_cli_and_keeps_the_exit_code():
    """`python -m sim.cli` (what the `sim` script runs) exits 2 on a user's mistake."""
    done = sim("run", "/nonexistent/config.yaml")
    assert "no such file" in one_error_line(done)


PLUGIN_LEAVE_PROBE = """
import sys
from sim.cli import leave

sys.path.append(sys.argv[1])
import a_designers_policy  # foreign code: a file it opened is never closed

leave(0)
"""


def test_the_script_leaves_the_ordinary_way_after_foreign_code(tmp_path):
    """A plug-in may leave a file for the interpreter's teardown to close: after code from
    outside the standard library, the installed packages and sim was imported, `leave` is a
    plain exit, which writes it."""
    log = tmp_path / "plugin.log"
    (tmp_path / "a_designers_policy.py").write_text(
        f"log = open({str(log)!r}, 'w')\nlog.write('kept')\n"
    )
    probe = [sys.executable, "-c", PLUGIN_LEAVE_PROBE, str(tmp_path)]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "kept"


KNOWN_PROBE = """
import site, sys
import sim.cli.commands  # every command's imports
from sim.cli import _only_known_code
if sys.argv[1] == "old-site":
    del site.getsitepackages
print(_only_known_code())
"""


@pytest.mark.parametrize(("site_kind", "known"), [("site", "True"), ("old-site", "False")])
def test_the_script_knows_its_own_code_unless_it_cannot_tell(site_kind, known):
    """A command imports only the standard library, installed packages and sim (the fast exit);
    an old virtualenv's `site` without `getsitepackages` cannot tell (the ordinary exit)."""
    probe = [sys.executable, "-c", KNOWN_PROBE, site_kind]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.stdout.strip() == known, done.stderr
