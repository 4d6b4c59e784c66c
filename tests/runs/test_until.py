"""`--until decided`: a study stops once its questions are decided, the same on any pool, and
its files say where and why; resumes go on consistently; user errors are one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import cli, one_error

from sim import run
from sim.config import load_study
from sim.runs.orchestrate import Heartbeat, until_chunk
from sim.runs.results import TABLES
from sim.runs.until import CAP_FACTOR, study_questions

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
CAP = 6000  # base.yaml's first-player edge (+4 pp at 4 players) is decided in about 1,500


@pytest.fixture(scope="module")
def study():
    return load_study(BASE).with_overrides(games=1000)


@pytest.fixture(scope="module")
def stopped(study, tmp_path_factory):
    return run(study, jobs=1, out=tmp_path_factory.mktemp("u") / "one", quiet=True,
               until="decided", max_games=CAP)  # fmt: skip


def _tables_equal(a, b) -> None:
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def _chunks(folder: Path) -> list[int]:
    return sorted(int(p.stem[6:]) for p in (folder / "chunks").glob("chunk-*.json"))


def test_a_run_stops_when_its_seat_question_is_decided(stopped):
    record, n = stopped.meta["until"], stopped.meta["games"]
    size = stopped.meta["chunk_games"]
    assert record["status"] == "stopped" and record["decided"] and record["games"] == n
    assert n < CAP and n % size == 0 and record["max_games"] == CAP
    (q,) = record["questions"]
    assert q["question"] == "first-player advantage" and q["decision"] == "real: higher"
    assert q["lo"] > 0 and q["interval"].startswith("anytime-valid") and q["level"] == 0.05
    assert stopped.meta["config"]["games"] == n == len(stopped.games)
    # exactly the games the decision read: the chunks past it are gone
    assert _chunks(Path(stopped.run_dir)) == list(range(0, n, size))


@pytest.mark.parametrize("backend", ["fork", "loky"])
def test_workers_and_backends_do_not_move_the_stop(study, stopped, tmp_path, backend):
    two = run(study, jobs=2, backend=backend, out=tmp_path / "two", quiet=True,
              until="decided", max_games=CAP)  # fmt: skip
    assert two.meta["until"]["questions"] == stopped.meta["until"]["questions"]
    assert two.meta["games"] == stopped.meta["games"]
    assert _chunks(tmp_path / "two") == _chunks(Path(stopped.run_dir))  # in-flight ones dropped
    _tables_equal(stopped, two)


def test_the_chunk_size_does_not_follow_the_workers(study):
    plain = study.with_overrides(seats=[{"policy": "random"}] * 4)
    assert until_chunk([plain], 10**6) == 4000  # the policy's size
    assert until_chunk([plain], 20_000) == 1000  # at least 20 looks up to the cap
    assert until_chunk([plain] * 10, 10**8) == 10_000  # never more than 100,000 chunks


def test_an_interrupted_run_resumed_stops_at_the_same_game(stopped, tmp_path):
    """As if killed mid-run: run.json says interrupted and plans the cap, and a chunk of the
    prefix is missing; the resume looks at the chunks on disk first, plays the missing one
    and stops where the run did."""
    folder = tmp_path / "cut"
    shutil.copytree(stopped.run_dir, folder)
    meta = json.loads((folder / "run.json").read_text())
    size, n = meta["chunk_games"], meta["games"]
    meta.update(status="interrupted", games=CAP, until={"until": "decided", "status": "running",
                "max_games": CAP, "min_games": 0})  # fmt: skip
    meta["config"]["games"] = CAP
    (folder / "run.json").write_text(json.dumps(meta))
    (folder / "chunks" / f"chunk-{size:09d}.json").unlink()  # the second chunk: not done
    again = run(None, resume=folder, jobs=2, quiet=True)
    assert again.meta["games"] == n and again.meta["until"]["questions"] == (
        stopped.meta["until"]["questions"])  # fmt: skip
    _tables_equal(stopped, again)


def test_resumes_keep_the_record_or_say_they_extended_it(stopped, tmp_path):
    folder = tmp_path / "again"
    shutil.copytree(stopped.run_dir, folder)
    n = stopped.meta["games"]
    same = run(None, resume=folder, quiet=True)  # nothing to play: how it stopped stays
    assert same.meta["until"] == stopped.meta["until"] and same.meta["games"] == n
    more = run(None, resume=folder, quiet=True, until="decided")  # decided already
    assert more.meta["games"] == n and more.meta["until"]["decided"]
    assert more.meta["until"]["min_games"] == n
    longer = run(None, resume=folder, games=n + 300, quiet=True)
    note = longer.meta["until"]
    assert longer.meta["games"] == n + 300 and note["until"] == "fixed"
    assert "fixed-n intervals" in note["note"] and note["before"]["games"] == n


def test_a_run_with_targets_asks_each_target(study, tmp_path, capsys):
    """Targets are the questions (no seat question); the summary marks their anytime-valid
    intervals beside the fixed-n ones, and the page says where and why it stopped."""
    path = tmp_path / "t.yaml"
    path.write_text(f"extends: {BASE}\ngames: 1000\ntargets:\n  turns: [40, 70]\n"
                    "  unequal_turns: 0.5\n")  # fmt: skip
    code, out, _ = cli(
        capsys,
        "run",
        path,
        "--until",
        "decided",
        "--max-games",
        CAP,
        "--jobs",
        1,
        "--out",
        tmp_path / "r",
        "--report",
        tmp_path / "r.html",
        "--quiet",
    )
    assert code == 0 and "Stopped after " in out and "every question decided" in out
    assert "turns target: " in out and "unequal_turns target: " in out
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    stopped = summary["stopped"]
    assert {q["question"]: q["decision"] for q in stopped["questions"]} == {
        "turns target": "met", "unequal_turns target": "missed"}  # fmt: skip
    assert all(q["level"] == 0.025 for q in stopped["questions"])  # Bonferroni over two
    turns = next(m for m in summary["metrics"] if m["metric"] == "turns")
    assert turns["anytime"]["decision"] == "met" and turns["interval"].startswith("95%")
    assert turns["anytime"]["lo"] <= turns["lo"] and turns["hi"] <= turns["anytime"]["hi"]
    page = (tmp_path / "r.html").read_text()
    assert 'class="stopped"' in page and "Stopped after " in page


def test_a_comparison_of_identical_games_is_decided_negligible_at_once(tmp_path, capsys):
    code, out, _ = cli(
        capsys,
        "compare",
        BASE,
        BASE,
        "--until",
        "decided",
        "--max-games",
        3000,
        "--jobs",
        1,
        "--out",
        tmp_path / "c",
        "--no-report",
        "--quiet",
    )
    assert code == 0, out
    meta = json.loads((tmp_path / "c" / "study.json").read_text())
    (q,) = meta["until"]["questions"]
    assert q["kind"] == "difference" and q["decision"] == "negligible"
    n = meta["games"]  # every difference is 0: within ±1 pp once the sequence is that narrow
    assert meta["chunk_games"] == 150 and n % 150 == 0 and 600 < n < 1500
    for p in ("p00", "p01"):
        point = json.loads((tmp_path / "c" / "points" / p / "run.json").read_text())
        assert point["games"] == n and point["until"]["status"] == "stopped"
    assert f"Stopped after {n:,} games per point" in out


@pytest.mark.parametrize("primary", ["primary: mean_score\n", ""], ids=["stops", "cap"])
def test_a_sweep_until_decided_stops_alike_on_one_or_two_workers(primary, tmp_path, capsys):
    """Two points whose chunks finish out of order on two workers: the same stop, the same
    record and the same points.csv as on one (mean score: decided after a few looks; the
    first-player advantage's change: open at the cap after 20)."""
    path = tmp_path / "s.yaml"
    path.write_text(f"extends: {BASE}\n{primary}sweep:\n  deck.sprayers: [4, 5]\n")
    got = []
    for jobs in (1, 2):
        out = tmp_path / f"s{jobs}"
        code, _, err = cli(capsys, "sweep", path, "--until", "decided", "--max-games", 1500,
                           "--jobs", jobs, "--out", out, "--no-report", "--no-feel",
                           "--quiet")  # fmt: skip
        assert code == 0, err
        meta = json.loads((out / "study.json").read_text())
        got.append((meta["games"], meta["chunk_games"], meta["until"],
                    (out / "points.csv").read_text()))  # fmt: skip
    assert got[0] == got[1]
    assert got[0][1] == 75  # 20 looks up to the cap, whatever the workers
    assert got[0][2]["decided"] == bool(primary) and (got[0][0] < 1500) == bool(primary)


def test_the_questions_of_each_kind_of_study(study):
    sweep = study.with_overrides(targets={"turns": 55}, primary="mean_score")
    points = [sweep, sweep.with_overrides(**{"deck.sprayers": 5})]
    qs = study_questions("sweep", points, ["a", "b"])
    assert [q.name for q in qs] == ["turns target at a", "turns target at b",
                                    "mean score, b − a"]  # fmt: skip
    assert [q.family for q in qs] == ["targets", "targets", "primary"]
    (q,) = study_questions("compare", [study, study], ["a", "b"])
    assert q.kind == "difference" and q.metric == "first_player_advantage" and q.point == 1
    (q,) = study_questions("run", [study.with_overrides(primary="mean_score")], ["a"])
    assert q.name == "first-player advantage" and q.kind == "value"


def test_the_heartbeat_says_the_estimates(monkeypatch, capsys):
    monkeypatch.setattr("sim.runs.orchestrate.HEARTBEAT_S", 0.0)
    beat = Heartbeat(1000, 0, lambda: "turns target: 55.0 [54.9, 55.1], decided: met")
    beat.update(100)
    err = capsys.readouterr().err
    assert "played 100 of at most 1,000 games" in err and "decided: met" in err


def test_a_run_until_decided_says_its_estimates_while_it_plays(monkeypatch, tmp_path, capsys):
    """Not a terminal (a pipe, a log): the heartbeat lines of a real run carry the estimate,
    its anytime-valid interval and a forecast or the decision."""
    monkeypatch.setattr("sim.runs.orchestrate.HEARTBEAT_S", 0.0)
    monkeypatch.setattr("sim.runs.until.PROGRESS_S", 0.0)
    code, out, err = cli(capsys, "run", BASE, "--until", "decided", "--max-games", CAP,
                         "--jobs", 1, "--out", tmp_path / "r", "--no-report")  # fmt: skip
    assert code == 0, err
    beats = [line for line in err.splitlines() if "played " in line]
    assert beats and all("of at most 6,000 games" in line for line in beats)
    assert all("first-player advantage: +" in line for line in beats)
    assert any("more games to decide" in line for line in beats)
    assert "Stopped after " in out


@pytest.mark.parametrize(
    "args, says",
    [
        (["--until", "decided", "--games", "500"], "--games: a run with --until decided"),
        (["--max-games", "500"], "--max-games caps a run with --until decided"),
        (["--until", "decided", "--max-games", "0"], "--max-games must be a number of games"),
        (["--until", "decided", "--max-games", "-5"], "--max-games must be a number of games"),
        (["--until", "soon"], "--until: know only decided, got 'soon'"),
        (["--until", "soon", "--max-games", "500"], "--until: know only decided"),
    ],
)
@pytest.mark.parametrize("command", ["run", "compare", "sweep"])
def test_user_errors_are_one_line_before_any_game(command, args, says, tmp_path, capsys):
    configs = [BASE, BASE] if command == "compare" else [BASE]
    if command == "sweep":
        configs = [tmp_path / "s.yaml"]
        configs[0].write_text(f"extends: {BASE}\nsweep:\n  deck.sprayers: [3, 4]\n")
    line = one_error(capsys, command, *configs, *args, "--out", tmp_path / "r", "--quiet")
    assert says in line and not (tmp_path / "r").exists()


def test_only_run_compare_and_sweep_take_until(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli(capsys, "value", BASE, "--until", "decided")
    assert exit_.value.code == 2 and "unrecognized arguments: --until" in capsys.readouterr().err


def test_the_default_cap_is_ten_times_the_games(study):
    from sim.runs.until import new_plan

    plan = new_plan(study, "decided", None)
    assert plan.cap == plan.study.games == CAP_FACTOR * study.games
