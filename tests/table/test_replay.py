"""`sim replay`: a run's game stepped through (the same game as the run's tables) and what-if
continuations from its steps."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from page_helpers import check_fits, measure
from table_helpers import two_player_study

from sim.cli import main
from sim.engine.state import SC_DECK_LEN, SC_DECK_POS, StateView
from sim.errors import SimError
from sim.report.board import table_data
from sim.runs.play import play_one
from sim.table.logfile import write_log
from sim.table.pages import continuations, replay_command, representative_replay, seat_specs
from sim.table.record import play_recorded
from sim.table.replay import default_marks, from_log, from_run, page_data
from sim.table.whatif import game_streams, position_at, whatif, win_shares


def page_json(path: Path) -> dict:
    """The data a replay page carries."""
    html = path.read_text(encoding="utf-8")
    found = re.search(r'<script id="replay-data"[^>]*>(.*?)</script>', html, re.S)
    return json.loads(found.group(1).replace("<\\/", "</"))


def _run_scores(run, index: int) -> list[int]:
    rows = run.players[run.players["game"] == index].sort_values("seat")
    return [int(s) for s in rows["score"]]


@pytest.mark.parametrize("index", [0, 13, 59])
def test_the_replay_of_a_runs_game_ends_as_the_runs_tables_say(small_run, tmp_path, index):
    """The page's last step: the final table play_one draws for that game, and the final
    scores of the run's players table; every step's scores are that table's scoring."""
    out = tmp_path / "page.html"
    lines = replay_command(str(small_run.run_dir), index, out=str(out), steps=[0], n=5)
    assert lines[0].startswith(f"replay: {out}")
    data = page_json(out)
    study = from_run(small_run.run_dir, index).study
    game = play_one(study, small_run.meta["seed"], index)
    final = data["steps"][-1]
    assert final["t"] == table_data(game.position())
    assert final["t"]["scores"] == _run_scores(small_run, index) == data["final"]["scores"]
    assert data["expected"] == _run_scores(small_run, index)
    assert len(data["steps"]) == int(game.s[24]) + 1  # after setup, then after each decision
    row = small_run.games[small_run.games["game"] == index].iloc[0]
    assert final["turns"] == row["turns"]
    # the page opens with the game in words: the winner, its points, the length and the end
    lead = re.search(r'<p class="lead">(.*?)</p>', out.read_text(encoding="utf-8"), re.S)[1]
    assert lead == data["lead"] and f"The game lasted {row['turns']} turns" in lead
    best = max(data["final"]["scores"])
    assert re.match(rf"Seat \d \([^)]+\) (wins|and seat .* share the win) with {best} point", lead)
    check_fits(measure(out))  # at 1280 px in real Chromium, as every page kind
    # each seat's chance at every step (sim.feel): a distribution, the last step the outcome,
    # moving only when a round ends
    chances = np.array(data["chances"])
    assert chances.shape == (len(data["steps"]), study.game.players)
    assert np.allclose(chances.sum(axis=1), 1.0, atol=1e-3)
    assert chances[-1].tolist() == win_shares(data["final"]["scores"])
    turns = np.array([s["turns"] for s in data["steps"]])
    same_round = turns[1:] // study.game.players == turns[:-1] // study.game.players
    assert (chances[1:-1][same_round[:-1]] == chances[:-2][same_round[:-1]]).all()


def test_continuations_from_the_last_step_and_the_last_decision_reproduce_the_result(small_run):
    """From the end there is nothing left to play; from the last decision, continued with the
    seats' own streams as they stood there (and the deck as it was), every continuation is
    the game's own last move and ends with the run's final scores."""
    replay = from_run(small_run.run_dir, 7)
    final = _run_scores(small_run, 7)
    shares = win_shares(final)
    last = len(replay.actions)
    ends = whatif(replay.study, replay.seed, 7, replay.actions, last, 20)
    assert [e.value for e in ends.shares] == shares and list(ends.mean_scores) == final
    streams = game_streams(replay.study, replay.seed, 7, replay.actions, last - 1)
    again = whatif(replay.study, replay.seed, 7, replay.actions, last - 1, 10, streams=streams)
    assert [e.value for e in again.shares] == shares and list(again.mean_scores) == final
    middle = last // 2  # and the whole second half of the game, the same way
    streams = game_streams(replay.study, replay.seed, 7, replay.actions, middle)
    half = whatif(replay.study, replay.seed, 7, replay.actions, middle, 3, streams=streams)
    assert list(half.mean_scores) == final


def test_fresh_continuations_from_the_last_decision_end_as_one_of_its_moves_would(small_run):
    """With fresh streams the last mover may choose otherwise, but every continuation ends as
    one of the ways the game can end from there (found by trying every move; the final phase
    draws nothing, so the deck no longer matters)."""
    replay = from_run(small_run.run_dir, 3)
    last = len(replay.actions) - 1
    outcomes = set()

    def every_end(moves: list[int]) -> None:
        actions = replay.actions[:last] + moves
        g = position_at(replay.study, replay.seed, 3, actions, len(actions))
        if g.over:
            outcomes.add(g.outcome().scores)
            return
        for a in g.legal():
            every_end([*moves, int(a)])

    every_end([])
    w = whatif(replay.study, replay.seed, 3, replay.actions, last, 40, policy="random")
    assert len(w.finals) == 40 and set(w.finals) <= outcomes
    assert tuple(_run_scores(small_run, 3)) in outcomes
    got = [e.value for e in w.shares]
    assert np.allclose(got, np.mean([win_shares(f) for f in w.finals], axis=0))


def test_continuations_are_reproducible_and_keep_what_is_known(small_run):
    """The same step twice gives the same chances; deck reshuffles keep every hand, a seat's
    determinization keeps that seat's hand and every public count."""
    replay = from_run(small_run.run_dir, 11)
    a = whatif(replay.study, replay.seed, 11, replay.actions, 20, 30)
    b = whatif(replay.study, replay.seed, 11, replay.actions, 20, 30)
    assert a == b
    c = whatif(replay.study, replay.seed, 11, replay.actions, 20, 30, as_seat=1)
    assert c.unseen == "seat 1" and abs(sum(e.value for e in c.shares) - 1) < 1e-9
    for e in a.shares:
        assert 0 <= e.lo <= e.value <= e.hi <= 1


def test_the_seats_determinization_keeps_its_knowledge(small_run):
    from sim.policies.lookahead import determinize

    replay = from_run(small_run.run_dir, 11)
    game = position_at(replay.study, replay.seed, 11, replay.actions, 20)
    view = game.view(1)
    pr = game.pr
    counts = np.zeros(pr.ntypes, np.int64)
    pool = np.zeros(pr.ntypes + pr.ndeck, np.int64)
    deck = StateView(game.s, pr).deck[game.s[SC_DECK_POS] : game.s[SC_DECK_LEN]].copy()
    determinize(game.s, pr, 1, np.array([5], np.uint64), counts, pool)
    assert game.view(1) == view  # seat 1 sees no difference
    after = StateView(game.s, pr).deck[game.s[SC_DECK_POS] : game.s[SC_DECK_LEN]]
    assert len(after) == len(deck)


def test_marked_steps_and_the_page_from_a_log(tmp_path):
    """A log's page: the marked steps carry their continuations; a step without one names
    the command that computes it."""
    recorded = play_recorded(two_player_study(), 4, 2)
    log = tmp_path / "g.jsonl"
    write_log(log, recorded.records())
    replay = from_log(log)
    marks = default_marks(replay)
    assert marks[0] == 0 and marks[-1] == len(replay.actions) - 1 and len(marks) == 5
    data = page_data(replay, continuations(replay, marks[:2], 10))
    assert sorted(map(int, data["whatif"])) == marks[:2]
    assert data["steps"][-1]["t"]["scores"] == list(recorded.game.outcome().scores)
    assert data["command"] == str(log)
    lines = replay_command(str(log), n=10, steps=[3])
    assert Path(lines[0].split()[1]) == log.with_suffix(".html")


def test_the_run_report_links_the_representative_games_page(small_run, tmp_path):
    line = representative_replay(small_run)
    page = Path(line.split()[1])
    assert page.parent == Path(small_run.run_dir) and page.is_file()
    data = page_json(page)
    assert len(data["whatif"]) == 5
    from sim import build_report

    report = build_report(small_run.run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.resolve().as_uri() in report


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--game", "60"], "--game must be a game of the run, 0 to 59"),
        ([], "say which game with --game I"),
        (["--game", "1", "--from", "9999"], "--from: step 9999 is not in the game"),
        (["--game", "1", "--continuations", "0"], "--continuations must be from 1"),
        (["--game", "1", "--policy", "randon"], "unknown policy 'randon'"),
        (["--game", "1", "--policy", "[1, 2]"], "neither a policy name"),
        (["--game", "1", "--as-seat", "4"], "--as-seat must be a seat from 0 to 3"),
    ],
)
def test_replay_mistakes_are_one_line_and_write_nothing(small_run, capsys, tmp_path, args, says):
    out = tmp_path / "page.html"
    code = main(["replay", str(small_run.run_dir), "--out", str(out), *args])
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and says in lines[0], err
    assert not out.exists()


def test_replay_refuses_to_overwrite_what_it_did_not_write(small_run, capsys, tmp_path):
    mine = tmp_path / "notes.html"
    mine.write_text("<p>my notes</p>")
    code = main(
        ["replay", str(small_run.run_dir), "--game", "2", "--out", str(mine), "--from", "0"]
    )
    assert code == 2 and "not a report made by sim" in capsys.readouterr().err
    assert mine.read_text() == "<p>my notes</p>"
    assert main(["replay", str(tmp_path / "nothing.jsonl")]) == 2
    assert "no such run folder or log file" in capsys.readouterr().err


def test_a_run_from_another_engine_version_is_refused(small_run, tmp_path):
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(small_run.run_dir, copy)
    meta = json.loads((copy / "run.json").read_text())
    meta["engine_version"] = -1
    (copy / "run.json").write_text(json.dumps(meta))
    with pytest.raises(SimError, match="played by engine version -1"):
        from_run(copy, 0)
    players = pd.read_parquet(copy / "players.parquet")
    assert len(players) == 240  # the copy is whole; only its version is wrong


@pytest.mark.parametrize(
    ("policy", "as_seat"),
    [
        (None, None),
        ("{policy: heuristic, preset: builder}", 2),
        ("{policy: lookahead, rollouts: 2}", None),
    ],
)
def test_compiled_continuations_are_the_python_driven_ones(small_run, policy, as_seat):
    """Continuations in compiled code (the game loop's step from a position) and driven from
    Python decision by decision (as `sim play` drives a plug-in) are the same games."""
    replay = from_run(small_run.run_dir, 9)
    seats, label = seat_specs(replay, policy)
    n = 4 if policy and "lookahead" in policy else 25
    for step in (0, len(replay.actions) // 2):
        args = (replay.study, replay.seed, 9, replay.actions, step, n)
        fast = whatif(*args, seats=seats, as_seat=as_seat)
        slow = whatif(*args, seats=seats, as_seat=as_seat, compiled=False)
        assert fast.finals == slow.finals and fast == slow
