"""Logged games as choices (`sim calibrate`): the log replayed through the engine gives the
decisions of the game itself, a log that is not the engine's is one error line, and the
players are named by the log (`sim table --name`), by their bot, or as a person."""

from __future__ import annotations

import json

import numpy as np
import pytest
from table_helpers import BASE, two_player_study

from sim.config import load_study
from sim.errors import SimError
from sim.table.choices import (
    UNNAMED_PERSON,
    log_paths,
    logged_choices,
    read_game,
    recorded_game,
)
from sim.table.logfile import check_log, write_log
from sim.table.record import DECISION, PLAYERS_KEY, RecordedGame, play_recorded
from sim.table.session import TableSession

MIXED = ["players=3", "seats=[{policy: heuristic, preset: spoiler}, {policy: greedy},"
         " {policy: random}]"]  # fmt: skip


def _log(tmp_path, study, seed, index=0, change=None):
    records = play_recorded(study, seed, index).records()
    if change is not None:
        change(records)
    path = tmp_path / f"g{seed}-{index}.jsonl"
    write_log(path, records)
    return path


def test_a_logs_choices_are_those_of_the_game_played(tmp_path):
    """The choices read from log files equal those of the recorded games themselves; every
    fitted decision offers more than one action and keeps its chosen one."""
    study = load_study(BASE, MIXED)
    paths = [_log(tmp_path, study, 5, i) for i in range(3)]
    from_files = logged_choices([read_game(p) for p in paths])
    from_games = logged_choices([recorded_game(play_recorded(study, 5, i)) for i in range(3)])
    np.testing.assert_array_equal(from_files.x, from_games.x)
    np.testing.assert_array_equal(from_files.chosen, from_games.chosen)
    assert set(from_files.players) == {"heuristic:spoiler", "greedy", "random"}
    offered = np.add.reduceat(from_files.count, from_files.alt_starts())  # legal actions
    assert (offered > 1).all()
    logged = [
        r
        for p in paths
        for r in map(json.loads, p.read_text().splitlines())
        if r["event"] == DECISION
    ]
    assert offered.tolist() == [len(r["legal"]) for r in logged if len(r["legal"]) > 1]
    # default: every seat of a log without people; --seats keeps those given
    assert logged_choices([read_game(paths[0])], seats=[1]).players == ("greedy",)


def test_a_log_that_is_not_the_engines_is_one_error(tmp_path):
    """A decision whose offered actions are not the engine's is one error naming the log's
    line and what differs (the replay's check, before anything is fitted)."""
    study = two_player_study()

    def shorten(records):
        for r in records:
            if r["event"] == DECISION and len(r["legal"]) > 2:
                r["legal"] = [a for a in r["legal"] if a != r["action"]][:1] + [r["action"]]
                return

    path = _log(tmp_path, study, 3, change=shorten)
    with pytest.raises(SimError, match=r"g3-0.jsonl:\d+: diverges from the engine: decision"):
        logged_choices([read_game(path)])


def _end(records):
    return next(r for r in records if r["event"] == "end")


@pytest.mark.parametrize(
    "tamper",
    [
        lambda rs: _end(rs).update(scores=[s + 5 for s in _end(rs)["scores"]]),
        lambda rs: _end(rs).update(winners=[1 - _end(rs)["winners"][0]]),
        lambda rs: rs[0].update(deck=list(reversed(rs[0]["deck"]))),
        lambda rs: rs[0].update(seats=list(reversed(rs[0]["seats"]))),
        lambda rs: rs[0].update(config_hash="0" * 16),
    ],
    ids=["scores", "winners", "deck order", "seats", "config"],
)
def test_a_tampered_log_is_never_fitted(tmp_path, tamper):
    """`sim calibrate` checks a log as `sim play --replay` does, every record against the
    engine, not only its decisions: a changed score, winner, deck, seat or config is one
    error line naming the file."""
    study = load_study(BASE, MIXED)
    path = _log(tmp_path, study, 5, change=tamper)
    with pytest.raises(SimError, match="g5-0.jsonl"):
        read_game(path)


def test_missing_sources_and_folders(tmp_path):
    with pytest.raises(SimError, match="no such log file or folder"):
        log_paths([tmp_path / "nope.jsonl"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SimError, match="without game logs"):
        log_paths([tmp_path / "empty"])
    path = _log(tmp_path, two_player_study(), 2)
    assert log_paths([tmp_path, path]) == [path]  # a folder's logs, each once


def test_players_are_named_by_the_log_their_bot_or_as_a_person(tmp_path):
    """`players` in the setup record names a seat; without it (older logs) a bot is its
    label and a person 'person'; a malformed entry is one error."""
    study = two_player_study()
    recorded = RecordedGame(study, 4, 0, frozenset({0}))
    for d in play_recorded(study, 4, 0).decisions:
        recorded.apply(d.action)
    records = recorded.records()
    path = tmp_path / "person.jsonl"
    write_log(path, records)
    game = read_game(path)
    assert game.names == (UNNAMED_PERSON, "greedy") and game.humans == {0}
    assert logged_choices([game]).players == (UNNAMED_PERSON,)  # the people's seats only
    records[0][PLAYERS_KEY] = ["olena", None]
    write_log(path, records)
    assert read_game(path).names == ("olena", "greedy")
    check_log(path)  # a sitting key: the log still replays exactly
    records[0][PLAYERS_KEY] = ["olena"]
    write_log(path, records)
    with pytest.raises(SimError, match="one name"):
        read_game(path)


def test_the_web_table_logs_the_peoples_names(tmp_path):
    """A session given names writes them in every game's setup record."""
    session = TableSession(two_player_study(), {1}, 7, 0, tmp_path, 0.0, {1: "taras"})
    session.close()
    setup = json.loads(session.log_path.read_text().splitlines()[0])
    assert setup[PLAYERS_KEY] == [None, "taras"]
