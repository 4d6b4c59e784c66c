"""Study config loading: every user mistake is one ConfigError line naming file and key."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim import specs
from sim.config import (
    GameConfig,
    SeatSpec,
    StudyConfig,
    load_study,
    parse_override,
    parse_study,
    summarize,
)
from sim.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"


def write(tmp_path: Path, text: str, name: str = "x.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path | str) -> str:
    """The ConfigError message of loading `path`; it must be one line naming the file."""
    with pytest.raises(ConfigError) as info:
        load_study(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert "pydantic" not in message and "type=" not in message
    return message


@pytest.fixture
def more_policies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the registry knows a parametrised policy."""
    spec = dataclasses.replace(specs.POLICIES["heuristic"], params=frozenset({"preset", "depth"}))
    monkeypatch.setitem(specs.POLICIES, "heuristic", spec)


# --- the default study ---------------------------------------------------------


def test_base_yaml_is_the_default_game():
    study = load_study(BASE)
    assert study.game == GameConfig()
    assert (study.name, study.games, study.seed) == ("base", 10000, 20261129)
    assert study.seats == (SeatSpec(policy="greedy"),) * 2 + (SeatSpec(policy="random"),) * 2
    assert study.rotate_seats is True
    assert (study.sweep, study.targets, study.report_path) == ({}, {}, None)
    assert study.source == str(BASE)


def test_base_yaml_writes_out_every_game_setting():
    import yaml

    raw = yaml.safe_load(BASE.read_text())
    assert set(GameConfig.model_fields) <= set(raw)
    assert set(raw["rules"]) == set(GameConfig.model_fields["rules"].annotation.model_fields)


def test_summarize_base():
    line = summarize(load_study(BASE))
    assert line == f"{BASE}: OK — base, 4 players, 70 cards, 10000 games, seats greedy×2, random×2"


def test_defaults_when_keys_are_left_out():
    study = parse_study({"players": 3}, "studies/mini.yaml")
    assert study.name == "mini"
    assert (study.games, study.seed, study.rotate_seats) == (10000, 0, True)
    assert [s.label for s in study.seats] == ["random"] * 3


def test_wall_strings_are_normalised_to_nesw_order():
    study = parse_study({"deck": {"boxes": {"SEN": 20, "WN": 30}}}, "x.yaml")
    assert study.game.deck.boxes == {"NES": 20, "NW": 30}
    assert "NES" in GameConfig().deck.boxes  # defaults go through the same validator


def test_to_yaml_dict_round_trips():
    study = parse_study(
        {
            "deck": {"sprayers": 3},
            "sweep": {"deck.toys.yarn": [2, 6]},
            "targets": {"turns": [40, 50], "balance": 0.1},
            "report": {"path": "reports/x.html"},
        },
        "x.yaml",
    )
    data = study.to_yaml_dict()
    assert data["players"] == 4 and data["deck"]["sprayers"] == 3  # game keys at top level
    assert data["seats"] == [{"policy": "random"}] * 4
    assert data["report"] == {"path": "reports/x.html"}
    assert parse_study(data, "x.yaml") == study


# --- config_hash --------------------------------------------------------------------


def test_hash_is_short_hex_and_ignores_name_and_games():
    study = load_study(BASE)
    digest = study.config_hash()
    assert len(digest) == 16 and int(digest, 16) >= 0
    assert study.with_overrides(name="other", games=5).config_hash() == digest


def test_hash_changes_with_a_count_seed_or_seat():
    study = load_study(BASE)
    digest = study.config_hash()
    assert study.with_overrides(**{"deck.toys.yarn": 5}).config_hash() != digest
    assert study.with_overrides(seed=1).config_hash() != digest
    assert study.with_overrides(rotate_seats=False).config_hash() != digest


def test_hash_is_the_same_in_another_process():
    code = f"from sim.config import load_study; print(load_study({str(BASE)!r}).config_hash())"
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert digests == {load_study(BASE).config_hash()}


# --- with_overrides ----------------------------------------------------------------


def test_with_overrides_applies_and_revalidates():
    study = load_study(BASE)
    changed = study.with_overrides(**{"deck.sprayers": 6, "games": 100})
    assert changed.game.deck.sprayers == 6 and changed.games == 100
    assert study.game.deck.sprayers == 4 and study.games == 10000  # original untouched
    assert changed.source == study.source


def test_with_overrides_errors_name_the_key():
    study = load_study(BASE)
    bound = r"\(overrides\): deck\.sprayers: must be from 0 to 2000, got -1$"
    with pytest.raises(ConfigError, match=bound):
        study.with_overrides(**{"deck.sprayers": -1})
    with pytest.raises(ConfigError, match=r"deck\.sprayer: unknown setting; did you mean"):
        study.with_overrides(**{"deck.sprayer": 1})
    with pytest.raises(ConfigError, match=r"games: must be an integer, got '100'"):
        study.with_overrides(games="100")


def test_with_overrides_players_resizes_a_uniform_line_up():
    uniform = load_study(BASE).with_overrides(seats=[{"policy": "random"}] * 4)
    assert len(uniform.with_overrides(players=3).seats) == 3
    with pytest.raises(ConfigError, match="4 seats listed but players is 3"):
        load_study(BASE).with_overrides(players=3)  # a mixed line-up is not guessed


def test_with_overrides_sections():
    study = load_study(BASE).with_overrides(**{"report.path": "r.html", "targets.turns": 40})
    assert study.report_path == "r.html" and study.targets == {"turns": 40.0}
    assert study.with_overrides(report=None, targets=None).report_path is None


def test_parse_override_reads_yaml_values():
    assert parse_override("deck.sprayers=6") == ("deck.sprayers", 6)
    assert parse_override("rules.match_sides = matching") == ("rules.match_sides", "matching")
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        parse_override("deck.sprayers")


# --- error lines: one per mistake ------------------------------------------------

CASES = [
    # (yaml, key path, problem fragment)
    ("deck:\n  sprayers: -2\n", "deck.sprayers", "must be from 0 to 2000, got -2"),
    ("deck:\n  sprayer: 2\n", "deck.sprayer", "unknown key; did you mean 'sprayers'?"),
    ("deck:\n  zzz: 2\n", "deck.zzz", "unknown key; valid keys: boxes, toys, sprayers, princesses"),
    ("player: 4\n", "player", "unknown key; did you mean 'players'?"),
    ("table: {colums: 8}\n", "table.colums", "did you mean 'columns'?"),
    ("game: {players: 3}\n", "game", "at the top level"),
    ("players: four\n", "players", "must be an integer, got 'four'"),
    ("players: 4.0\n", "players", "must be an integer, got 4.0"),
    ("games: true\n", "games", "must be an integer, got true"),
    ("seed: '7'\n", "seed", "must be an integer, got '7'"),
    ("players: 1\n", "players", "must be from 2 to 5, got 1"),
    ("players: 6\n", "players", "must be from 2 to 5, got 6"),
    ("games: 0\n", "games", "must be from 1 to 100000000, got 0"),
    ("seed: -1\n", "seed", "must be from 0 to 9223372036854775807, got -1"),
    ("table: 10\n", "table", "must be a mapping"),
    ("rotate_seats: 1\n", "rotate_seats", "must be true or false, got 1"),
    (
        "deck:\n  boxes: {NE: 6, SW: 2}\n",
        "deck.boxes",
        "'NE' and 'SW' are the same card turned by 180 degrees (R1.3); list it once",
    ),
    ("deck:\n  boxes: {NE: 6, EN: 2}\n", "deck.boxes", "'NE' and 'EN' are the same card"),
    ("deck:\n  boxes: {NX: 6}\n", "deck.boxes", "malformed wall string 'NX'"),
    ("deck:\n  boxes: {NE: -1}\n", "deck.boxes.NE", "must be >= 0, got -1"),
    ("deck:\n  boxes: {'': 1.5}\n", "deck.boxes.''", "must be an integer, got 1.5"),
    ("deck:\n  boxes: {}\n", "deck.boxes", "at least one box card"),
    ("deck:\n  toys: {sprayer: 2}\n", "deck.toys.sprayer", "not a toy"),
    ("sleeping_card_walls: NNE\n", "sleeping_card_walls", "'N' appears twice"),
    (
        "rules:\n  match_sides: both\n",
        "rules.match_sides",
        "must be 'any' or 'matching', got 'both'",
    ),
    ("rules:\n  evicted_cat: burn\n", "rules.evicted_cat", "'return' or 'discard'"),
    (
        "rules:\n  sleeping_counts_for_majority: 'yes'\n",
        "rules.sleeping_counts_for_majority",
        "true or false",
    ),
    ("hand_size: 20\n", "deck", "cannot deal 4 hands of 20 (80 needed, R2.4)"),
    (
        "players: 3\nseats: [{policy: random}, {policy: random}]\n",
        "seats",
        "2 seats listed but players is 3",
    ),
    ("seats: {policy: random}\n", "seats", "must be a list"),
    (
        "seats: [random, random, random, random]\n",
        "seats[0]",
        "must be a mapping like {policy: random}",
    ),
    ("seats: [{}, {}, {}, {}]\n", "seats[0]", "no 'policy'"),
    (
        "seats: [{policy: random}, {policy: random}, {policy: gredy}, {policy: random}]",
        "seats[2].policy",
        "unknown policy 'gredy'; did you mean 'greedy'? (known: greedy, heuristic, ismcts,",
    ),
    (
        "seats: [{policy: random}, {policy: random}, {policy: random, depth: 2}, {}]",
        "seats[2].depth",
        "has no parameter 'depth'",
    ),
    ("targets: {balanse: 0.1}\n", "targets.balanse", "unknown metric; did you mean 'balance'?"),
    ("targets: {fun: 1}\n", "targets.fun", "valid metrics: first_player_advantage, balance"),
    ("targets: {turns: [50, 40]}\n", "targets.turns", "lo <= hi"),
    ("targets: {turns: many}\n", "targets.turns", "must be a number, a range [lo, hi]"),
    ("report: {paht: r.html}\n", "report.paht", "did you mean 'path'?"),
    ("report: r.html\n", "report", "must be a mapping like {path: "),
    ("name: ''\n", "name", "must not be empty"),
]


@pytest.mark.parametrize(
    ("text", "key", "problem"), CASES, ids=[c[1] + ":" + c[2][:20] for c in CASES]
)
def test_error_names_file_key_and_problem(tmp_path, text, key, problem):
    path = write(tmp_path, text)
    message = error_of(path)
    assert message.startswith(f"{path}: {key}: ")
    assert problem in message


def test_exact_message_for_a_negative_count(tmp_path):
    path = write(tmp_path, "deck:\n  sprayers: -2\n")
    assert error_of(path) == f"{path}: deck.sprayers: must be from 0 to 2000, got -2"


def test_exact_message_for_a_turned_duplicate(tmp_path):
    path = write(tmp_path, "deck:\n  boxes: {NE: 6, SW: 2}\n")
    assert error_of(path) == (
        f"{path}: deck.boxes: 'NE' and 'SW' are the same card turned by 180 degrees (R1.3);"
        " list it once"
    )


def test_unknown_top_key_far_from_all_lists_the_valid_keys(tmp_path):
    message = error_of(write(tmp_path, "qqqqq: 1\n"))
    assert "qqqqq: unknown key; valid keys: name, games, seed" in message
    assert "players" in message and "deck" in message


def test_seat_param_errors_are_wrapped(tmp_path, more_policies):
    seats = "seats: [{policy: heuristic, prest: spoiler}, {policy: random}, {}, {}]"
    message = error_of(write(tmp_path, seats))
    assert (
        ": seats[0].prest: policy 'heuristic' has no parameter 'prest'; did you mean 'preset'?"
        in message
    )


def test_seat_spec_label_and_params(tmp_path, more_policies):
    text = "players: 2\nseats: [{policy: heuristic, preset: spoiler, depth: 2}, {policy: random}]\n"
    study = load_study(write(tmp_path, text))
    assert study.seats[0].params == {"preset": "spoiler", "depth": 2}
    assert [seat.label for seat in study.seats] == ["heuristic:spoiler", "random"]
    assert summarize(study).endswith("seats heuristic:spoiler, random")
    same = SeatSpec(policy="heuristic", params={"depth": 2, "preset": "spoiler"})
    assert len({study.seats[0], same}) == 1  # hashable; params order does not matter


# --- file-level errors -------------------------------------------------------------


def test_missing_file(tmp_path):
    assert error_of(tmp_path / "nope.yaml").endswith("nope.yaml: no such file")


def test_directory_instead_of_file(tmp_path):
    assert "is a directory" in error_of(tmp_path)


@pytest.mark.parametrize("text", ["", "\n", "# only a comment\n"])
def test_empty_file(tmp_path, text):
    assert "file is empty" in error_of(write(tmp_path, text))


@pytest.mark.parametrize(("text", "got"), [("- players: 4\n", "a list"), ("hello\n", "'hello'")])
def test_top_level_not_a_mapping(tmp_path, text, got):
    message = error_of(write(tmp_path, text))
    assert "top level must be a mapping" in message and got in message


def test_broken_yaml_gives_the_line(tmp_path):
    path = write(tmp_path, "players: 4\ndeck:\n  sprayers: : 3\n")
    assert error_of(path).startswith(f"{path}: line 3, column 13: invalid YAML: ")


def test_unclosed_bracket_gives_the_line(tmp_path):
    message = error_of(write(tmp_path, "players: [4\nhand_size: 3\n"))
    assert "line 2, column 10: invalid YAML" in message and "on line 1" in message


def test_duplicate_key_is_an_error_not_last_wins(tmp_path):
    message = error_of(write(tmp_path, "players: 4\nhand_size: 3\nplayers: 3\n"))
    assert "line 3" in message and "duplicate key 'players' (first given on line 1)" in message


def test_parse_study_rejects_a_non_mapping():
    with pytest.raises(ConfigError, match=r"^inline: top level must be a mapping"):
        parse_study(["players"], "inline")


# --- sweeps ------------------------------------------------------------------------


def test_sweep_values_are_validated_and_normalised(tmp_path):
    text = "sweep:\n  deck.boxes.EN: [0, 2]\n  sleeping_card_walls: ['', SN]\n"
    study = load_study(write(tmp_path, text))
    assert study.sweep == {"deck.boxes.NE": (0, 2), "sleeping_card_walls": ("", "NS")}
    assert study.sweep_points() == [
        {"deck.boxes.NE": 0, "sleeping_card_walls": ""},
        {"deck.boxes.NE": 0, "sleeping_card_walls": "NS"},
        {"deck.boxes.NE": 2, "sleeping_card_walls": ""},
        {"deck.boxes.NE": 2, "sleeping_card_walls": "NS"},
    ]
    point = study.with_overrides(sweep=None, **study.sweep_points()[1])
    assert point.game.deck.boxes["NE"] == 0 and point.game.sleeping_card_walls == "NS"
    assert not point.sweep


def test_sweep_of_the_empty_card():
    study = parse_study({"sweep": {"deck.boxes.": [0, 2]}}, "x.yaml")
    assert study.sweep == {"deck.boxes.''": (0, 2)}
    assert study.with_overrides(**study.sweep_points()[0]).game.deck.boxes[""] == 0


def test_no_sweep_is_one_point():
    assert load_study(BASE).sweep_points() == [{}]


SWEEP_CASES = [
    (
        "deck.sprayer: [0, 2]",
        "sweep.deck.sprayer",
        "unknown setting; did you mean 'deck.sprayers'?",
    ),
    ("deck.toys.yarm: [1]", "sweep.deck.toys.yarm", "did you mean 'deck.toys.yarn'?"),
    ("foo: [1]", "sweep.foo", "unknown setting; valid here: players, table"),
    ("seed: [1, 2]", "sweep.seed", "not a game setting"),
    ("players.x: [1]", "sweep.players", "is a single setting"),
    ("deck.boxes.SW: [1]", "sweep.deck.boxes.SW", "is 'NE' turned by 180 degrees (R1.3)"),
    ("deck.boxes.NX: [1]", "sweep.deck.boxes", "malformed wall string 'NX'"),
    ("deck.sprayers: [0, -2]", "sweep.deck.sprayers[1]", "must be from 0 to 2000, got -2"),
    ("deck.sprayers: []", "sweep.deck.sprayers", "must be a non-empty list"),
    ("deck.sprayers: 4", "sweep.deck.sprayers", "must be a non-empty list"),
    ("deck.sprayers: [2, 2]", "sweep.deck.sprayers[1]", "already in the list"),
    ("hand_size: [3, 20]", "sweep.hand_size[1]", "hand_size=20 gives an invalid game: deck: "),
    ("{deck: [{}], deck.sprayers: [1]}", "sweep.deck.sprayers", "overlaps 'deck'"),
    ("{players: [2], hand_size: [2], cats_per_player: [1]}", "sweep", "give 1 or 2 settings"),
    ("{}", "sweep", "give 1 or 2 settings"),
    (
        "{hand_size: [3, 12], players: [2, 5]}",
        "sweep",
        "hand_size=12 with players=5 gives an invalid game: deck: ",
    ),
]


@pytest.mark.parametrize(("sweep", "key", "problem"), SWEEP_CASES, ids=[c[1] for c in SWEEP_CASES])
def test_sweep_errors_name_the_setting(tmp_path, sweep, key, problem):
    body = sweep if sweep.startswith("{") else "\n  " + sweep
    path = write(tmp_path, f"sweep: {body}\n")
    message = error_of(path)
    assert message.startswith(f"{path}: {key}: ")
    assert problem in message


def test_sweeping_players_needs_alike_seats(tmp_path, more_policies):
    text = "players: 2\nseats: [{policy: heuristic}, {policy: random}]\nsweep: {players: [2, 3]}\n"
    assert "sweep.players: sweeping players needs all seats alike" in error_of(
        write(tmp_path, text)
    )
    study = parse_study({"players": 2, "sweep": {"players": [2, 3]}}, "x.yaml")
    assert [len(study.with_overrides(**p).seats) for p in study.sweep_points()] == [2, 3]


def test_study_config_is_frozen():
    study = load_study(BASE)
    with pytest.raises(Exception):  # noqa: B017 (pydantic's frozen-instance error)
        study.games = 5  # type: ignore[misc]
    assert isinstance(study, StudyConfig)


def test_models_are_hashable_and_hash_like_equality():
    study = load_study(BASE)
    assert hash(study.game) == hash(GameConfig())
    assert len({study, study.with_overrides(games=10000)}) == 1
    assert len({study.game, study.with_overrides(**{"deck.sprayers": 5}).game}) == 2


# --- targets as equivalence tests, and the primary metric -------------------------------


def test_targets_take_value_and_within(tmp_path):
    path = write(tmp_path, "targets:\n  first_player_advantage: {value: 0, within: 0.01}\n")
    study = load_study(path)
    assert study.targets == {"first_player_advantage": {"value": 0.0, "within": 0.01}}
    again = parse_study(study.to_yaml_dict(), "again")
    assert again.targets == study.targets


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("targets: {turns: {value: 50}}\n", "targets.turns", "needs 'within'"),
        ("targets: {turns: {value: 50, within: 0}}\n", "targets.turns.within", "must be > 0"),
        ("targets: {turns: {value: 50, whithin: 1}}\n", "targets.turns.whithin",
         "did you mean 'within'"),
        ("primary: balanse\n", "primary", "did you mean 'balance'"),
        ("primary: [turns]\n", "primary", "must be a metric name"),
    ],
)  # fmt: skip
def test_bad_equivalence_targets_and_primary(tmp_path, text, key, problem):
    message = error_of(write(tmp_path, text))
    assert key in message and problem in message


def test_primary_is_kept_and_left_out_of_the_hash(tmp_path):
    plain = load_study(write(tmp_path, "games: 10\n"))
    with_primary = plain.with_overrides(primary="turns")
    assert with_primary.primary == "turns"
    assert with_primary.config_hash() == plain.config_hash()
    assert with_primary.to_yaml_dict()["primary"] == "turns"
