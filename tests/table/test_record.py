"""The replayable log (format 2): the recorded game is the game, and `sim play --replay` finds
the first divergence of a log that is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from table_helpers import BASE, two_player_study

from sim.cli import main
from sim.config import load_study
from sim.engine.game import Game
from sim.errors import SimError
from sim.runs.lineup import engine_for
from sim.runs.play import play_one
from sim.table.logfile import check_log, write_log
from sim.table.record import DECISION, RecordedGame, play_recorded
from sim.version import ENGINE_VERSION

CASES = [
    ([], 3, 0),  # base: greedy, greedy, random, random; four seats
    (["players=2", "seats=[{policy: random}, {policy: greedy}]"], 8, 5),
    (
        [
            "players=3",
            "seats=[{policy: heuristic, preset: spoiler}, {policy: random}, {policy: greedy}]",
            "rules.match_sides=matching",
        ],
        1,
        2,
    ),  # fmt: skip
    (
        [
            "players=5",
            "seats=[{policy: random}, {policy: random}, {policy: random},"
            " {policy: greedy}, {policy: random}]",
        ],
        4,
        7,
    ),  # fmt: skip
]


@pytest.mark.parametrize(("sets", "seed", "index"), CASES)
def test_the_recorded_game_is_the_game_play_one_plays(sets, seed, index):
    """Recording changes nothing: same scores, table and engine records as play_one (which
    equals the compiled loop), and one decision record per decision."""
    study = load_study(BASE, sets)
    recorded = play_recorded(study, seed, index)
    plain = play_one(study, seed, index, log=True)
    assert recorded.game.outcome() == plain.outcome()
    assert recorded.game.position() == plain.position()
    records = recorded.records()
    assert [r for r in records if r["event"] != DECISION][1:] == plain.events()[1:]
    decisions = [r for r in records if r["event"] == DECISION]
    assert len(decisions) == int(plain.s[24])  # SC_DECISIONS: every action applied
    assert [d["step"] for d in decisions] == list(range(len(decisions)))


def test_every_decision_record_names_what_the_engine_offered():
    """Replaying the decisions one by one: the seat, decision kind and legal actions of each
    record are the engine's at that moment, and the action is among them."""
    study = two_player_study()
    records = play_recorded(study, 21, 3).records()
    game = Game(engine_for(study.game), 21, 3)
    for r in (r for r in records if r["event"] == DECISION):
        assert (r["seat"], r["decision"]) == (game.seat, game.decision)
        assert r["legal"] == game.legal().tolist()
        assert r["action"] in r["legal"] and r["chose"] == game.describe(r["action"])
        game.apply(r["action"])
    assert game.over


def test_every_record_between_two_turns_is_by_that_turns_seat():
    """A decision that opens a turn comes after its `turn` record, the others before what
    they cause, so every record of a turn names the turn's seat (as format 1 promised)."""
    records = play_recorded(load_study(BASE), 3, 0).records()
    seat = None
    for r in records[1:-1]:
        if r["event"] == "turn":
            seat = r["seat"]
        elif r["event"] != "end_trigger":
            assert seat is not None and r["seat"] == seat, r


def test_the_setup_record_holds_what_a_replay_needs():
    study = load_study(BASE)
    setup = play_recorded(study, 3, 0).records()[0]
    assert setup["event"] == "setup" and setup["log_format"] == 2
    assert setup["engine_version"] == ENGINE_VERSION
    assert setup["config_hash"] == study.config_hash()
    assert setup["study"] == study.to_yaml_dict()
    assert [s["policy"] for s in setup["seats"]] == ["greedy", "greedy", "random", "random"]
    assert not any(s["human"] for s in setup["seats"])


@pytest.fixture
def log(tmp_path) -> tuple[Path, list[dict]]:
    """A two-player game's log on disk, and its records."""
    records = play_recorded(two_player_study(), 5, 1).records()
    path = tmp_path / "game.jsonl"
    write_log(path, records)
    return path, records


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_log_replays_exactly(log):
    path, records = log
    checked = check_log(path)
    assert checked.finished
    assert list(checked.recorded.game.outcome().scores) == records[-1]["scores"]
    assert checked.bots_checked == sum(r["event"] == DECISION for r in records)
    assert "replays exactly" in checked.summary()


def _divergence(path: Path, line: int) -> str:
    with pytest.raises(SimError) as caught:
        check_log(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}:"), message
    return message


def test_a_changed_event_is_the_divergence_at_its_line(log, tmp_path):
    _, records = log
    i = next(i for i, r in enumerate(records) if r["event"] == "place" and i > 20)
    records[i] = {**records[i], "at": [40, 40]}
    message = _divergence(_write(tmp_path / "bad.jsonl", records), i + 1)
    assert "place record, at: the log has [40, 40]" in message


def test_a_bot_that_would_choose_otherwise_diverges_at_its_decision(log, tmp_path):
    _, records = log
    i = next(i for i, r in enumerate(records) if r["event"] == DECISION and len(r["legal"]) > 2)
    other = next(a for a in records[i]["legal"] if a != records[i]["action"])
    records[i] = {**records[i], "action": other}
    path = _write(tmp_path / "bad.jsonl", records)
    assert "now chooses" in _divergence(path, i + 1)
    # without the bots, the engine itself diverges at that record (its 'chose' text)
    with pytest.raises(SimError, match=f":{i + 1}: diverges from the engine: decision record"):
        check_log(path, bots=False)


def test_an_offered_list_that_is_not_the_engines_diverges(log, tmp_path):
    _, records = log
    i = next(i for i, r in enumerate(records) if r["event"] == DECISION and len(r["legal"]) > 2)
    records[i] = {**records[i], "legal": records[i]["legal"][:-1]}
    assert "legal: the log has" in _divergence(_write(tmp_path / "bad.jsonl", records), i + 1)


def test_an_illegal_action_diverges_at_its_decision(log, tmp_path):
    _, records = log
    i = next(i for i, r in enumerate(records) if r["event"] == DECISION)
    records[i] = {**records[i], "action": 123456789}
    path = _write(tmp_path / "bad.jsonl", records)
    with pytest.raises(SimError, match=f":{i + 1}: .*not legal"):
        check_log(path, bots=False)


def test_a_log_cut_short_or_run_on_diverges(log, tmp_path):
    _, records = log
    cut = _write(tmp_path / "cut.jsonl", records[:-1])  # no end record
    with pytest.raises(SimError, match="no end record"):
        check_log(cut)
    middle = next(i for i, r in enumerate(records) if r["event"] == "place" and i > 30)
    half = _write(tmp_path / "half.jsonl", records[:middle])
    with pytest.raises(SimError, match="stops before the engine's 'place' record"):
        check_log(half)
    more = _write(tmp_path / "more.jsonl", [*records, records[-1]])
    _divergence(more, len(records) + 1)


def test_an_abandoned_log_replays_to_where_it_stopped(tmp_path):
    """The web table's log of a game left after 11 decisions: its records so far, then
    `abandoned`."""
    study = two_player_study()
    whole = play_recorded(study, 5, 1)
    part = RecordedGame(study, 5, 1)
    for d in whole.decisions[:11]:
        part.apply(d.action)
    path = _write(tmp_path / "left.jsonl", [*part.records(), {"event": "abandoned", "step": 11}])
    checked = check_log(path)
    assert checked.abandoned and not checked.finished and checked.recorded.step == 11
    assert "abandoned after" in checked.summary()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"engine_version": ENGINE_VERSION + 1}, "written by engine version"),
        ({"config_hash": "0" * 16}, "hashes to"),
        ({"log_format": 7}, "log format 7"),
        ({"seats": []}, "'seats' must list"),
    ],
)
def test_a_setup_record_that_cannot_be_this_game_is_refused(log, tmp_path, change, message):
    _, records = log
    records[0] = {**records[0], **change}
    with pytest.raises(SimError, match=message):
        check_log(_write(tmp_path / "bad.jsonl", records))


def test_a_changed_deal_diverges_on_the_first_line(log, tmp_path):
    _, records = log
    records[0] = {**records[0], "hands": records[0]["hands"][::-1]}
    assert "hands: the log has" in _divergence(_write(tmp_path / "bad.jsonl", records), 1)


def test_an_old_log_or_a_broken_line_is_one_error(tmp_path, log):
    _, records = log
    old = {k: v for k, v in records[0].items() if k != "log_format"}
    with pytest.raises(SimError, match="no log_format"):
        check_log(_write(tmp_path / "old.jsonl", [old, *records[1:]]))
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(records[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SimError, match=r"broken.jsonl:2: not a JSON record"):
        check_log(broken)


def test_a_persons_time_is_kept_and_not_compared(tmp_path):
    """A human seat's decision records carry `ms`; the check ignores it and does not play a
    bot for that seat."""
    study = two_player_study()
    recorded = RecordedGame(study, 9, 0, frozenset({0}))
    bots = play_recorded(study, 9, 0)  # the same game, every seat a bot
    for d in bots.decisions:
        recorded.apply(d.action, ms=1234 if d.seat == 0 else None)
    records = recorded.records()
    assert all(("ms" in r) == (r["seat"] == 0) for r in records if r["event"] == DECISION)
    assert records[0]["seats"][0]["human"] and not records[0]["seats"][1]["human"]
    path = _write(tmp_path / "human.jsonl", records)
    checked = check_log(path)
    assert checked.bots_checked == sum(d.seat == 1 for d in bots.decisions)
    assert "by a person" in checked.summary()


def test_sim_play_replay_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    assert main(["play", str(BASE), "--seed", "4", "--log", str(path)]) == 0
    capsys.readouterr()
    assert main(["play", "--replay", str(path)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "replays exactly" in out[0]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[5] = {**records[5], "seat": 3} if records[5]["seat"] != 3 else {**records[5], "seat": 2}
    _write(path, records)
    assert main(["play", "--replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {path}:6: diverges from the engine")


def test_sim_play_replay_refuses_another_config_and_extra_flags(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    assert main(["play", str(BASE), "--seed", "4", "--log", str(path)]) == 0
    capsys.readouterr()
    other = BASE.parent / "base_more_sprayers.yaml"
    assert main(["play", str(other), "--replay", str(path)]) == 2
    assert "not of the given config" in capsys.readouterr().err
    assert main(["play", "--replay", str(path), "--seed", "3"]) == 2
    assert "leave out --seed" in capsys.readouterr().err
    assert main(["play"]) == 2
    assert "give a CONFIG" in capsys.readouterr().err
