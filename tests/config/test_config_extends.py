"""`extends:` between study files and `--set KEY=VALUE`, as a designer uses them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.cli import main
from sim.config import load_study, merge_settings

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def validate(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["validate", *args])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- extends


def test_a_child_changes_one_toy_and_keeps_the_rest(tmp_path, capsys):
    """deck: {toys: {fish: 6}} in a child replaces fish only: 70 cards become 72, not 60."""
    child = write(tmp_path / "fish.yaml", f"extends: {BASE}\ndeck: {{toys: {{fish: 6}}}}\n")
    base, study = load_study(BASE), load_study(child)
    assert study.game.deck.toys == {**base.game.deck.toys, "fish": 6}
    assert study.seats == base.seats and study.seed == base.seed
    assert study.name == "fish"  # a study's name is its own, never the parent's
    code, out, _ = validate(capsys, str(child))
    assert code == 0 and "72 cards" in out
    assert f"differs from {BASE} (extends): 2 settings" in out
    assert "deck.toys.fish: 4 -> 6" in out and "name: base -> fish" in out


def test_without_extends_a_given_map_replaces_the_default_whole(tmp_path):
    """Today's semantics, documented: a map in a config without extends is the whole map."""
    study = load_study(write(tmp_path / "own.yaml", "deck: {toys: {fish: 6}}\n"))
    assert study.game.deck.toys == {"fish": 6}


def test_lists_and_scalars_replace_whole_and_null_removes(tmp_path):
    write(
        tmp_path / "p.yaml",
        "games: 50\nseats: [{policy: greedy}, {policy: random}]\nplayers: 2\n"
        "sweep: {deck.sprayers: [0, 2]}\ntargets: {turns: 40, balance: 0.9}\n",
    )
    child = write(
        tmp_path / "c.yaml",
        "extends: p.yaml\nseats: [{policy: random}, {policy: random}]\nsweep: null\n"
        "targets: {turns: 50}\n",
    )
    study = load_study(child)
    assert [s.policy for s in study.seats] == ["random", "random"]
    assert study.sweep == {} and study.games == 50
    assert study.targets == {"turns": 50, "balance": 0.9}  # a map merges key by key


def test_a_chain_with_paths_relative_to_each_file(tmp_path, capsys):
    """c.yaml (in sub/) extends ../b.yaml, which extends base/a.yaml: each path is read
    from the folder of the file that names it, not from the working folder."""
    write(tmp_path / "base" / "a.yaml", "players: 3\nhand_size: 4\ngames: 10\n")
    write(tmp_path / "b.yaml", "extends: base/a.yaml\nhand_size: 5\ndeck: {sprayers: 1}\n")
    child = write(tmp_path / "sub" / "c.yaml", "extends: ../b.yaml\ndeck: {princesses: 3}\n")
    study = load_study(child)
    game = study.game
    assert (game.players, game.hand_size, game.deck.sprayers, game.deck.princesses) == (3, 5, 1, 3)
    code, out, _ = validate(capsys, str(child))
    assert code == 0 and "deck.princesses: 2 -> 3" in out and "hand_size" not in out


def test_box_cards_merge_by_their_walls(tmp_path):
    """SEN and NES are one card (letters in any order): the child changes the parent's."""
    child = write(tmp_path / "c.yaml", f"extends: {BASE}\ndeck: {{boxes: {{SEN: 1}}}}\n")
    assert load_study(child).game.deck.boxes["NES"] == 1


@pytest.mark.parametrize("cycle", [["a"], ["a", "b"], ["a", "b", "c"]])
def test_a_cycle_is_one_line_naming_the_chain(tmp_path, capsys, cycle):
    for name, nxt in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        write(tmp_path / f"{name}.yaml", f"extends: {nxt}.yaml\ngames: 5\n")
    code, out, err = validate(capsys, str(tmp_path / "a.yaml"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    chain = " -> ".join(str(tmp_path / f"{n}.yaml") for n in [*cycle, cycle[0]])
    assert "a cycle" in err and chain in err


def test_a_missing_parent_and_a_parent_mistake_name_their_file(tmp_path, capsys):
    child = write(tmp_path / "c.yaml", "extends: nowhere.yaml\n")
    code, _, err = validate(capsys, str(child))
    assert code == 2 and f"{child}: extends: no such file" in err
    write(tmp_path / "p.yaml", "hand_sise: 3\n")
    child = write(tmp_path / "c.yaml", "extends: p.yaml\n")
    code, _, err = validate(capsys, str(child))
    assert code == 2 and f"{tmp_path / 'p.yaml'}: hand_sise: unknown key" in err
    assert "did you mean 'hand_size'" in err


def test_merge_settings_does_not_touch_its_inputs():
    parent = {"deck": {"toys": {"fish": 4, "yarn": 4}}, "seats": [1]}
    child = {"deck": {"toys": {"fish": 6}}, "seats": [2, 3]}
    merged = merge_settings(parent, child)
    assert merged == {"deck": {"toys": {"fish": 6, "yarn": 4}}, "seats": [2, 3]}
    assert parent["deck"]["toys"]["fish"] == 4 and child == {"deck": {"toys": {"fish": 6}},
                                                            "seats": [2, 3]}  # fmt: skip


# ---------------------------------------------------------------- --set


def test_set_values_are_read_as_yaml(capsys):
    study = load_study(
        BASE,
        [
            "games=120",
            "rotate_seats=false",
            "sleeping_card_walls=NS",
            "rules.cat_entry=any",
            "deck.toys={ball: 2}",  # a mapping merges: a new kind, the others kept
            "seats[0].policy=lookahead",
            "seats.1.policy=heuristic",
            "targets={turns: [40, 60]}",
        ],
    )
    assert study.games == 120 and study.rotate_seats is False
    assert study.game.sleeping_card_walls == "NS" and study.game.rules.cat_entry == "any"
    assert study.game.deck.toys == {"yarn": 4, "mouse": 4, "feather": 4, "fish": 4, "ball": 2}
    assert [s.policy for s in study.seats] == ["lookahead", "heuristic", "random", "random"]
    assert study.targets == {"turns": (40.0, 60.0)}
    code, out, _ = validate(capsys, str(BASE), "--set", "games=7", "--set", "deck.sprayers=6")
    assert code == 0 and "7 games" in out and "--set changes 2 settings" in out
    assert "deck.sprayers: 4 -> 6" in out


@pytest.mark.parametrize(
    ("setting", "needle"),
    [
        ("gmaes=3", "--set: gmaes: unknown key; did you mean 'games'?"),
        ("deck.toyz.fish=3", "did you mean 'deck.toys.fish'?"),
        ("deck.toys.fihs=3", "did you mean 'deck.toys.fish'?"),
        ("games=3.0", "games: must be an integer"),
        ("games='5'", "games: must be an integer"),
        ("hand_size=[", "invalid YAML"),
        ("players", "expected KEY=VALUE"),
        ("seats.7.policy=greedy", "seats: give seats.<0..3>.<key>"),
    ],
)
def test_a_bad_set_is_one_line_with_a_hint(capsys, setting, needle):
    code, out, err = validate(capsys, str(BASE), "--set", setting)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert needle in err, err


def test_set_is_on_every_study_command():
    """One helper gives the study commands their flags: --set everywhere, the rest where
    they make sense."""
    from sim.cli.parser import build_parser

    parser = build_parser()
    for command in (
        "run",
        "sweep",
        "compare",
        "tune",
        "turns",
        "validate",
        "value",
        "ladder",
        "luck",
    ):
        args = ["a.yaml", "b.yaml"] if command == "compare" else ["a.yaml"]
        ns = parser.parse_args([command, *args, "--set", "games=5", "--set", "seed=2"])
        assert ns.set == ["games=5", "seed=2"], command
    for command in ("run", "sweep", "compare", "tune", "value", "ladder", "luck"):
        args = ["a.yaml", "b.yaml"] if command == "compare" else ["a.yaml"]
        flags = ["--no-report", "--quiet", "--jobs", "1", "--backend", "loky", "--seed", "3",
                 "--out", "x", "--report", "r.html", "--force"]  # fmt: skip
        ns = parser.parse_args([command, *args, *flags])
        assert (ns.no_report, ns.quiet, ns.jobs, ns.seed, ns.out) == (True, True, 1, 3, "x")
