"""Position files: every rejection names its entry in one line; writing and reading round-trip."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.config import Rules
from sim.engine.position import AwakeCat, Item, Position, Princess
from sim.engine.position_io import (
    load_position,
    parse_position,
    position_to_json,
    validate_position,
)
from sim.errors import PositionError
from sim.walls import E, N, S, W

POSITIONS = Path(__file__).resolve().parents[2] / "configs" / "positions"


def base() -> dict:
    """The example from RULES.md "Position files" (valid):

    (0,0) NW  (0,1) NE+sleeping P1  (0,2) ""
    (1,0) SW                        (1,2) S
    cat P0 on (0,0)+(1,0), Princess on (0,2)+(1,2),
    yarn on (0,0)|(0,1), sprayer on (0,0)|(1,0).
    """
    return {
        "players": 2,
        "rules": {"sleeping_counts_for_majority": True},
        "cards": [
            {"at": [0, 0], "walls": "NW"},
            {"at": [1, 0], "walls": "SW"},
            {"at": [0, 1], "walls": "NE", "sleeping": 1},
            {"at": [0, 2], "walls": ""},
            {"at": [1, 2], "walls": "S"},
        ],
        "cats": [{"player": 0, "at": [[0, 0], [1, 0]]}],
        "princesses": [{"at": [[0, 2], [1, 2]]}],
        "items": [
            {"kind": "yarn", "between": [[0, 0], [0, 1]]},
            {"kind": "sprayer", "between": [[0, 0], [1, 0]]},
        ],
    }


def rejected(data: object, source: str = "pos.json") -> str:
    """Parse data that must fail; return its message, checked to be one line naming the source."""
    with pytest.raises(PositionError) as info:
        parse_position(data, source=source)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{source}: ")
    return message


def test_rules_md_example_parses() -> None:
    """The example in RULES.md "Position files" is a valid position."""
    pos = parse_position(base())
    assert pos.players == 2
    assert pos.cards[(0, 0)] == N | W
    assert pos.sleeping == {(0, 1): 1}
    assert pos.cats == (AwakeCat(player=0, north=(0, 0), south=(1, 0)),)
    assert pos.princesses == (Princess(north=(0, 2), south=(1, 2)),)
    assert pos.items[1] == Item(kind="sprayer", a=(0, 0), b=(1, 0))


def test_optional_keys_default() -> None:
    """`rules`, `cats`, `princesses` and `items` may be left out."""
    pos = parse_position({"players": 3, "cards": [{"at": [0, 0], "walls": "NESW"}]})
    assert pos.rules == Rules()
    assert pos.cats == pos.princesses == pos.items == ()


def test_cat_cells_in_either_order() -> None:
    """A cat written south cell first is stored north first (R4.1)."""
    data = base()
    data["cats"][0]["at"] = [[1, 0], [0, 0]]
    assert parse_position(data).cats[0] == AwakeCat(player=0, north=(0, 0), south=(1, 0))


# ---------------------------------------------------------------- files


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    with pytest.raises(PositionError, match=r"nope\.json: no such file"):
        load_position(path)


def test_broken_json(tmp_path: Path) -> None:
    path = tmp_path / "pos.json"
    path.write_text('{"players": 2,\n "cards": [}', encoding="utf-8")
    with pytest.raises(PositionError, match=r"pos\.json: is not valid JSON: .* line 2"):
        load_position(path)


def test_duplicate_key_in_file(tmp_path: Path) -> None:
    path = tmp_path / "pos.json"
    path.write_text('{"players": 2, "players": 3, "cards": []}', encoding="utf-8")
    with pytest.raises(PositionError, match="'players' appears twice"):
        load_position(path)


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(PositionError, match="is a directory"):
        load_position(tmp_path)


def test_load_names_the_file_in_errors(tmp_path: Path) -> None:
    data = base()
    data["cards"].append({"at": [0, 1], "walls": ""})
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PositionError) as info:
        load_position(path)
    assert str(info.value) == f"{path}: cards[5]: cell [0, 1] is already used by cards[2]"


# ---------------------------------------------------------------- rejections

Mutation = Callable[[dict], object]


def _set(path: tuple, value: object) -> Mutation:
    """A mutation that sets data[path...] = value."""

    def apply(data: dict) -> dict:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return data

    return apply


def _append(key: str, value: object) -> Mutation:
    """A mutation that appends value to data[key]."""

    def apply(data: dict) -> dict:
        data.setdefault(key, []).append(value)
        return data

    return apply


def _delete(key: str) -> Mutation:
    def apply(data: dict) -> dict:
        del data[key]
        return data

    return apply


REJECTIONS: list[tuple[str, Mutation, list[str]]] = [
    # shape and types
    ("top level not an object", lambda d: [d], ["expected an object"]),
    ("unknown top-level keys", _set(("board",), 1), ["'board'", "unknown key"]),
    (
        "two unknown top-level keys",
        lambda d: {**d, "board": 1, "cat": []},
        ["'board', 'cat'"],
    ),
    ("missing players", _delete("players"), ["missing key", "'players'"]),
    ("missing cards", _delete("cards"), ["missing key", "'cards'"]),
    ("players not a number", _set(("players",), "two"), ["players", "whole number"]),
    ("players a bool", _set(("players",), True), ["players", "whole number"]),
    ("cards not a list", _set(("cards",), {"at": [0, 0]}), ["cards", "expected a list"]),
    ("card not an object", _set(("cards", 1), [1, 0]), ["cards[1]", "expected an object"]),
    ("card unknown key", _set(("cards", 1, "turned"), True), ["cards[1]", "'turned'"]),
    ("card without walls", lambda d: (d["cards"][1].pop("walls"), d)[1], ["cards[1]", "'walls'"]),
    ("cell of one number", _set(("cards", 3, "at"), [0]), ["cards[3]: at", "[row, col]"]),
    ("cell with text", _set(("cards", 3, "at"), [0, "2"]), ["cards[3]: at", "[row, col]"]),
    ("cell with a float", _set(("cards", 3, "at"), [0, 2.0]), ["cards[3]: at"]),
    ("walls not text", _set(("cards", 0, "walls"), 9), ["cards[0]", "wall string must be text"]),
    ("sleeping not a number", _set(("cards", 2, "sleeping"), "1"), ["cards[2]: sleeping"]),
    ("cats not a list", _set(("cats",), {}), ["cats", "expected a list"]),
    ("cat player text", _set(("cats", 0, "player"), "0"), ["cats[0]: player", "whole number"]),
    ("cat on one cell", _set(("cats", 0, "at"), [0, 0]), ["cats[0]: at", "two cells"]),
    ("cat unknown key", _set(("cats", 0, "colour"), "red"), ["cats[0]", "'colour'"]),
    ("princess missing at", _set(("princesses", 0), {}), ["princesses[0]", "'at'"]),
    ("item kind not text", _set(("items", 0, "kind"), 3), ["items[0]: kind"]),
    ("item between three", _set(("items", 0, "between"), [[0, 0]] * 3), ["items[0]: between"]),
    # R1.2 wall strings
    ("wall letter", _set(("cards", 0, "walls"), "NX"), ["cards[0]", "malformed wall string"]),
    ("wall twice", _set(("cards", 0, "walls"), "NWN"), ["cards[0]", "'N' appears twice"]),
    ("wall lower case", _set(("cards", 4, "walls"), "s"), ["cards[4]", "malformed"]),
    # one card per cell
    (
        "two cards in a cell",
        _append("cards", {"at": [0, 1], "walls": ""}),
        ["cards[5]: cell [0, 1] is already used by cards[2]"],
    ),
    ("no cards", _set(("cards",), []), ["cards", "at least one card"]),
    # R1.4 connected layout
    (
        "card off on its own",
        _append("cards", {"at": [5, 5], "walls": ""}),
        ["cards[5]", "[5, 5]", "not connected", "R1.4"],
    ),
    (
        "diagonal is not adjacent",
        _append("cards", {"at": [2, 1], "walls": ""}),
        ["cards[5]", "not connected", "R1.4"],
    ),
    # R4.1 cat and Princess shape
    (
        "cat across a short seam",
        _set(("cats", 0, "at"), [[0, 0], [0, 1]]),
        ["cats[0]: [0, 0] and [0, 1] are not north-south neighbours (R4.1)"],
    ),
    (
        "cat on one card twice",
        _set(("cats", 0, "at"), [[0, 0], [0, 0]]),
        ["cats[0]", "not north-south neighbours (R4.1)"],
    ),
    (
        "cat on a missing card",
        _set(("cats", 0, "at"), [[1, 0], [2, 0]]),
        ["cats[0]: [2, 0] is not a card (R4.1)"],
    ),
    (
        "cat across a wall",
        _set(("cards", 1, "walls"), "NSW"),
        ["cats[0]: seam [0, 0]|[1, 0] is walled (R4.1)"],
    ),
    (
        "Princess across a short seam",
        _set(("princesses", 0, "at"), [[0, 1], [0, 2]]),
        ["princesses[0]", "not north-south neighbours (R4.1)"],
    ),
    (
        "Princess across a wall",
        _set(("cards", 3, "walls"), "S"),
        ["princesses[0]: seam [0, 2]|[1, 2] is walled (R4.1)"],
    ),
    (
        "Princess on a missing card",
        _set(("princesses", 0, "at"), [[-1, 2], [0, 2]]),
        ["princesses[0]: [-1, 2] is not a card (R4.1)"],
    ),
    # R4.3 one cat per card
    (
        "two cats on the same cards",
        _append("cats", {"player": 1, "at": [[0, 0], [1, 0]]}),
        ["cats[1]: card [0, 0] already carries cats[0] (R4.3)"],
    ),
    (
        "cat on a sleeping cat",
        _set(("cards", 1, "sleeping"), 1),
        ["cats[0]: card [1, 0] already carries the sleeping cat of cards[1] (R4.3)"],
    ),
    (
        "Princess on a cat",
        _set(("princesses", 0, "at"), [[0, 0], [1, 0]]),
        ["princesses[0]: card [0, 0] already carries cats[0] (R4.3)"],
    ),
    (
        "Princess on a sleeping cat",
        _set(("cards", 3, "sleeping"), 0),
        ["princesses[0]: card [0, 2] already carries the sleeping cat of cards[3] (R4.3)"],
    ),
    # R5.1, R5.2 items
    (
        "item not between neighbours",
        _set(("items", 0, "between"), [[0, 0], [0, 2]]),
        ["items[0]: [0, 0] and [0, 2] are not neighbours", "R5.1"],
    ),
    (
        "item on a diagonal",
        _set(("items", 0, "between"), [[0, 1], [1, 0]]),
        ["items[0]", "not neighbours", "R5.1"],
    ),
    (
        "item on a missing card",
        _set(("items", 1, "between"), [[1, 2], [2, 2]]),
        ["items[1]: [2, 2] is not a card (R5.1)"],
    ),
    (
        "item across a wall",
        _set(("cards", 2, "walls"), "NEW"),
        ["items[0]: seam [0, 0]|[0, 1] is walled (R5.1)"],
    ),
    (
        "item across the neighbour's wall only",
        _set(("cards", 0, "walls"), "NEW"),
        ["items[0]: seam [0, 0]|[0, 1] is walled (R5.1)"],
    ),
    (
        "two items on one seam",
        _append("items", {"kind": "mouse", "between": [[0, 0], [0, 1]]}),
        ["items[2]: seam [0, 0]|[0, 1] already holds items[0] (R5.2)"],
    ),
    (
        "two items on one seam written the other way round",
        _append("items", {"kind": "sprayer", "between": [[1, 0], [0, 0]]}),
        ["items[2]: seam [1, 0]|[0, 0] already holds items[1] (R5.2)"],
    ),
    ("item kind empty", _set(("items", 0, "kind"), ""), ["items[0]", "toy word"]),
    ("item kind two words", _set(("items", 0, "kind"), "yarn ball"), ["items[0]", "toy word"]),
    # players
    ("one player", _set(("players",), 1), ["players", "2..5", "got 1"]),
    ("six players", _set(("players",), 6), ["players", "2..5", "got 6"]),
    (
        "cat of seat 2 in a 2-player game",
        _set(("cats", 0, "player"), 2),
        ["cats[0]: player", "0..1"],
    ),
    ("cat of a negative seat", _set(("cats", 0, "player"), -1), ["cats[0]: player", "got -1"]),
    ("sleeping cat of seat 5", _set(("cards", 2, "sleeping"), 5), ["cards[2]: sleeping", "0..1"]),
    # rules
    ("rules not an object", _set(("rules",), ["any"]), ["rules", "expected an object"]),
    (
        "unknown rule",
        _set(("rules", "sleeping_counts"), True),
        ["rules", "unknown rule 'sleeping_counts'", "sleeping_counts_for_majority"],
    ),
    ("bad rule value", _set(("rules", "match_sides"), "sometimes"), ["rules", "match_sides"]),
    (
        "rule flag not a bool",
        _set(("rules", "sleeping_counts_for_majority"), "yes"),
        ["rules", "sleeping_counts_for_majority"],
    ),
]


@pytest.mark.parametrize(
    ("mutate", "fragments"),
    [pytest.param(m, f, id=name) for name, m, f in REJECTIONS],
)
def test_rejection_names_the_entry(mutate: Mutation, fragments: list[str]) -> None:
    """Each broken position raises one PositionError line naming the offending entry."""
    message = rejected(mutate(base()))
    for fragment in fragments:
        assert fragment in message, message


def test_match_sides_variant_is_not_checked() -> None:
    """Positions are not checked against `match_sides: matching` (an open side may face a wall)."""
    data = base()
    data["rules"] = {"match_sides": "matching"}
    # (0,1) NE faces (0,2) "" across an E wall against an open W side: kept.
    assert parse_position(data).rules.match_sides == "matching"


def test_validate_hand_built_position() -> None:
    """validate_position checks Positions built in code, naming entries by their index."""
    pos = Position(players=2, cards={(0, 0): 0, (0, 1): 0}, sleeping={(1, 1): 0})
    with pytest.raises(PositionError, match=r"^position: sleeping: sleeping cat at \[1, 1\]"):
        validate_position(pos)
    bad_mask = Position(players=2, cards={(0, 0): 16})
    with pytest.raises(PositionError, match=r"cards\[0\]: wall mask must be 0..15"):
        validate_position(bad_mask)


# ---------------------------------------------------------------- writing


def test_position_to_json_writes_walls_in_nesw_order() -> None:
    data = base()
    data["cards"][0]["walls"] = "WN"
    out = position_to_json(parse_position(data))
    assert out["cards"][0] == {"at": [0, 0], "walls": "NW"}
    assert out["cards"][2] == {"at": [0, 1], "walls": "NE", "sleeping": 1}


def test_round_trip_rules_md_example() -> None:
    """position_to_json is the inverse of parse_position."""
    pos = parse_position(base())
    out = position_to_json(pos)
    assert parse_position(out) == pos
    assert position_to_json(parse_position(out)) == out
    assert json.loads(json.dumps(out)) == out  # plain JSON types only


def test_round_trip_keeps_variants() -> None:
    data = base()
    data["rules"] = {"sleeping_counts_for_majority": False, "cat_entry": "any"}
    pos = parse_position(data)
    assert parse_position(position_to_json(pos)).rules == pos.rules
    assert pos.rules.switched_on() == {"sleeping_counts_for_majority": False, "cat_entry": "any"}


@pytest.mark.parametrize(
    "name", sorted(p.name for p in POSITIONS.glob("*.json") if p.name != "expected.json")
)
def test_round_trip_example_files(name: str) -> None:
    pos = load_position(POSITIONS / name)
    assert parse_position(position_to_json(pos), source=name) == pos


# ---------------------------------------------------------------- properties


@st.composite
def grid_positions(draw: st.DrawFn) -> Position:
    """A valid random position: a full rectangle of random cards, items on free open seams."""
    rows = draw(st.integers(1, 4))
    cols = draw(st.integers(1, 4))
    cards = {(r, c): draw(st.integers(0, 15)) for r in range(rows) for c in range(cols)}
    seams = []
    for (r, c), mask in cards.items():
        for other, mine, theirs in (((r, c + 1), E, W), ((r + 1, c), S, N)):
            if other in cards and not mask & mine and not cards[other] & theirs:
                seams.append(((r, c), other))
    chosen = draw(st.lists(st.sampled_from(seams), unique=True) if seams else st.just([]))
    kinds = st.sampled_from(["yarn", "mouse", "sprayer"])
    items = tuple(Item(kind=draw(kinds), a=a, b=b) for a, b in chosen)
    players = draw(st.integers(2, 5))
    sleepers = draw(st.sets(st.sampled_from(sorted(cards)), max_size=2))
    sleeping = {cell: draw(st.integers(0, players - 1)) for cell in sleepers}
    return Position(players=players, cards=cards, sleeping=sleeping, items=items)


@settings(max_examples=150, deadline=None)
@given(grid_positions())
def test_round_trip_random_positions(pos: Position) -> None:
    """Any valid position survives position_to_json then parse_position unchanged."""
    validate_position(pos)
    assert parse_position(position_to_json(pos)) == pos


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 6)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside nested dicts and lists."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out += _paths(inner, (*prefix, i))
    return out


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_broken_json_gives_position_error(data: st.DataObject) -> None:
    """Any JSON value put anywhere in a valid file parses or raises PositionError, nothing else."""
    doc = copy.deepcopy(base())
    path = data.draw(st.sampled_from(_paths(doc)))
    _set(path, data.draw(JSON_VALUES))(doc)
    try:
        parse_position(doc, source="fuzz.json")
    except PositionError as exc:
        assert str(exc).startswith("fuzz.json: ")
        assert "\n" not in str(exc)


def test_wall_strings_round_trip_every_mask():
    """R1.2: each of the 16 wall masks is written in NESW order and read back, whatever
    integer type holds it (a replay writes numpy integers)."""
    import numpy as np

    from sim.walls import parse_walls, walls_str

    assert [walls_str(m) for m in (0, 1, 2, 4, 8, 5, 15)] == ["", "N", "E", "S", "W", "NS", "NESW"]
    for mask in range(16):
        assert parse_walls(walls_str(np.int32(mask))) == mask == parse_walls(walls_str(mask))
