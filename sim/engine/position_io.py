"""Position files: read, check and write the JSON `sim score` takes (RULES.md "Position files").

A position is rejected with one PositionError line that names the file and the
offending entry, e.g. `pos.json: cards[3]: cell [0, 1] is already used by cards[1]`.
Checks follow RULES.md: R1.2 (wall strings), R1.4 (one connected layout),
R4.1 and R4.3 (cats, sleeping cats, Princesses), R5.1 and R5.2 (items), player
count and indices. The table size (R1.5) is not checked, nor is the
`match_sides: matching` variant: a scoring position need not be reachable.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from sim.engine.position import AwakeCat, Cell, Item, Position, Princess
from sim.engine.reference import SPRAYER, STEPS, is_open_seam, touching_sides
from sim.errors import PositionError
from sim.guard.inputs import TooLarge, read_text_bounded
from sim.variants import Rules
from sim.walls import parse_walls, walls_str

MIN_PLAYERS, MAX_PLAYERS = 2, 5  # R2.1
TOP_KEYS = ("players", "rules", "cards", "cats", "princesses", "items")
CARD_KEYS = ("at", "walls", "sleeping")
CAT_KEYS = ("player", "at")
PRINCESS_KEYS = ("at",)
ITEM_KEYS = ("kind", "between")
# A position file is small: a 40 x 40 table is about 100 KB of JSON, five levels deep.
MAX_FILE_BYTES = 10_000_000
MAX_DEPTH = 16
MAX_INT = 2**63 - 1


# ---------------------------------------------------------------- small helpers


def _fail(where: str, message: str) -> NoReturn:
    """Raise the one-line PositionError every check uses."""
    raise PositionError(f"{where}: {message}")


def _cell_text(cell: Cell) -> str:
    """A cell as the file writes it: [row, col]."""
    return f"[{cell[0]}, {cell[1]}]"


def _seam_text(a: Cell, b: Cell) -> str:
    """A seam between two cells, as `[r, c]|[r, c]`."""
    return f"{_cell_text(a)}|{_cell_text(b)}"


def _shown(value: Any, limit: int = 60) -> str:
    """repr of a bad value, cut short so the error stays one readable line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_int(value: Any) -> bool:
    """True for a JSON whole number (bool is not one, though Python says it is an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_item_kind(kind: Any) -> bool:
    """A toy kind is a plain word like 'yarn' (as in config deck.toys); 'sprayer' is the sprayer."""
    return isinstance(kind, str) and (
        kind == SPRAYER or (kind != "" and kind.replace("_", "").isalnum())
    )


# ---------------------------------------------------------------- reading JSON shapes


def _object(value: Any, where: str, allowed: tuple[str, ...], required: tuple[str, ...]) -> dict:
    """Check a JSON object: no unknown keys (named), no missing required keys."""
    if not isinstance(value, dict):
        _fail(where, f"expected an object with keys {', '.join(allowed)}, got {_shown(value)}")
    unknown = [key for key in value if key not in allowed]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        _fail(where, f"unknown key(s) {names}; allowed keys are {', '.join(allowed)}")
    missing = [key for key in required if key not in value]
    if missing:
        _fail(where, f"missing key(s) {', '.join(repr(key) for key in missing)}")
    return value


def _list(value: Any, where: str) -> list:
    """Check a JSON list."""
    if not isinstance(value, list):
        _fail(where, f"expected a list, got {_shown(value)}")
    return value


def _int(value: Any, where: str) -> int:
    """Check a JSON whole number."""
    if not _is_int(value):
        _fail(where, f"expected a whole number, got {_shown(value)}")
    return value


def _is_cell(value: Any) -> bool:
    """True for [row, col] with two whole numbers."""
    return isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value)


def _cell(value: Any, where: str) -> Cell:
    """Read a cell written as [row, col]."""
    if not _is_cell(value):
        _fail(where, f"a cell must be [row, col] with two whole numbers, got {_shown(value)}")
    return (value[0], value[1])


def _two_cells(value: Any, where: str) -> tuple[Cell, Cell]:
    """Read a pair of cells written as [[row, col], [row, col]]."""
    if not (isinstance(value, list) and len(value) == 2 and all(_is_cell(v) for v in value)):
        _fail(where, f"expected two cells [[row, col], [row, col]], got {_shown(value)}")
    return _cell(value[0], where), _cell(value[1], where)


def _north_first(a: Cell, b: Cell) -> tuple[Cell, Cell]:
    """Order north-south neighbours north first; other pairs stay as given for the R4.1 check."""
    if b == (a[0] - 1, a[1]):
        return b, a
    return a, b


def _read_rules(value: Any, where: str) -> Rules:
    """Read the optional `rules` object through sim.variants.Rules, strictly (no 'yes' for true)."""
    if not isinstance(value, dict):
        _fail(where, f"expected an object of rule variants, got {_shown(value)}")
    try:
        return Rules.model_validate(value, strict=True)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(part) for part in err["loc"])
            if err["type"] == "extra_forbidden":
                known = ", ".join(Rules.model_fields)
                problems.append(f"unknown rule {key!r}; known rules are {known}")
            else:
                problems.append(f"{key}: {err['msg']}, got {_shown(err['input'])}")
        _fail(where, "; ".join(problems))


def _read_cards(value: Any, source: str) -> tuple[dict[Cell, int], dict[Cell, int]]:
    """Read `cards` into cell -> wall mask and cell -> sleeping-cat owner; one card per cell."""
    cards: dict[Cell, int] = {}
    sleeping: dict[Cell, int] = {}
    entry_of: dict[Cell, str] = {}
    for i, raw in enumerate(_list(value, f"{source}: cards")):
        where = f"{source}: cards[{i}]"
        entry = _object(raw, where, CARD_KEYS, ("at", "walls"))
        cell = _cell(entry["at"], f"{where}: at")
        mask = parse_walls(entry["walls"], where=where, error=PositionError)
        if cell in cards:
            _fail(where, f"cell {_cell_text(cell)} is already used by {entry_of[cell]}")
        cards[cell] = mask
        entry_of[cell] = f"cards[{i}]"
        if "sleeping" in entry:
            sleeping[cell] = _int(entry["sleeping"], f"{where}: sleeping")
    return cards, sleeping


def _entries(value: Any, source: str, name: str, keys) -> Iterator[tuple[str, dict]]:
    """Each entry of the list `name` as (where, the object with exactly `keys`)."""
    for i, raw in enumerate(_list(value, f"{source}: {name}")):
        where = f"{source}: {name}[{i}]"
        yield where, _object(raw, where, keys, keys)


def _read_cats(value: Any, source: str) -> tuple[AwakeCat, ...]:
    """Read `cats`: each an awake cat of `player` on two cells."""
    cats = []
    for where, entry in _entries(value, source, "cats", CAT_KEYS):
        player = _int(entry["player"], f"{where}: player")
        north, south = _north_first(*_two_cells(entry["at"], f"{where}: at"))
        cats.append(AwakeCat(player=player, north=north, south=south))
    return tuple(cats)


def _read_princesses(value: Any, source: str) -> tuple[Princess, ...]:
    """Read `princesses`: each a Princess on two cells."""
    return tuple(
        Princess(*_north_first(*_two_cells(entry["at"], f"{where}: at")))
        for where, entry in _entries(value, source, "princesses", PRINCESS_KEYS)
    )


def _read_items(value: Any, source: str) -> tuple[Item, ...]:
    """Read `items`: each a toy kind or 'sprayer' between two cells."""
    items = []
    for where, entry in _entries(value, source, "items", ITEM_KEYS):
        kind = entry["kind"]
        if not isinstance(kind, str):
            _fail(f"{where}: kind", f"expected a toy word or 'sprayer', got {_shown(kind)}")
        a, b = _two_cells(entry["between"], f"{where}: between")
        items.append(Item(kind=kind, a=a, b=b))
    return tuple(items)


# ---------------------------------------------------------------- checking a Position


def _check_players(pos: Position, source: str) -> None:
    """The player count is 2..5 (R2.1) and every owner is a seat of this game."""
    if not _is_int(pos.players) or not MIN_PLAYERS <= pos.players <= MAX_PLAYERS:
        _fail(
            f"{source}: players",
            f"must be {MIN_PLAYERS}..{MAX_PLAYERS} (R2.1), got {_shown(pos.players)}",
        )
    names = list(pos.cards)
    for cell, owner in pos.sleeping.items():
        where = f"cards[{names.index(cell)}]: sleeping" if cell in pos.cards else "sleeping"
        _check_seat(owner, pos.players, f"{source}: {where}")
    for i, cat in enumerate(pos.cats):
        _check_seat(cat.player, pos.players, f"{source}: cats[{i}]: player")


def _check_seat(seat: Any, players: int, where: str) -> None:
    """A player index is a whole number 0..players-1."""
    if not _is_int(seat) or not 0 <= seat < players:
        _fail(
            where,
            f"player index must be 0..{players - 1} for {players} players, got {_shown(seat)}",
        )


def _check_layout(pos: Position, source: str) -> None:
    """At least one card, wall masks 0..15, and one layout connected orthogonally (R1.4)."""
    if not pos.cards:
        _fail(f"{source}: cards", "a position needs at least one card")
    names = list(pos.cards)
    for i, mask in enumerate(pos.cards.values()):
        if not _is_int(mask) or not 0 <= mask <= 15:
            _fail(f"{source}: cards[{i}]", f"wall mask must be 0..15, got {_shown(mask)}")
    # R1.4: every card was placed next to a card already there, so all are reachable
    # from the first one by orthogonal steps (walls do not matter for this).
    reached = {names[0]}
    queue = deque([names[0]])
    while queue:
        r, c = queue.popleft()
        for dr, dc, _, _ in STEPS:
            other = (r + dr, c + dc)
            if other in pos.cards and other not in reached:
                reached.add(other)
                queue.append(other)
    for i, cell in enumerate(names):
        if cell not in reached:
            _fail(
                f"{source}: cards[{i}]",
                f"card at {_cell_text(cell)} is not connected to the layout of cards[0] "
                f"at {_cell_text(names[0])} (R1.4)",
            )


def _check_lying(pos: Position, north: Cell, south: Cell, where: str) -> None:
    """A cat or Princess lies on two north-south neighbour cards joined by an open seam (R4.1)."""
    for cell in (north, south):
        if cell not in pos.cards:
            _fail(where, f"{_cell_text(cell)} is not a card (R4.1)")
    if south != (north[0] + 1, north[1]):
        _fail(
            where,
            f"{_cell_text(north)} and {_cell_text(south)} are not north-south neighbours (R4.1)",
        )
    if not is_open_seam(pos, north, south):
        _fail(where, f"seam {_seam_text(north, south)} is walled (R4.1)")


def _check_cats(pos: Position, source: str) -> None:
    """Cats and Princesses fit R4.1; no card carries two of them or a sleeping cat (R4.3)."""
    names = list(pos.cards)
    carrier: dict[Cell, str] = {}
    for cell in pos.sleeping:
        if cell not in pos.cards:
            _fail(f"{source}: sleeping", f"sleeping cat at {_cell_text(cell)} is not on a card")
        carrier[cell] = f"the sleeping cat of cards[{names.index(cell)}]"
    lying = [(f"cats[{i}]", cat.north, cat.south) for i, cat in enumerate(pos.cats)]
    lying += [(f"princesses[{i}]", p.north, p.south) for i, p in enumerate(pos.princesses)]
    for name, north, south in lying:
        where = f"{source}: {name}"
        _check_lying(pos, north, south, where)
        for cell in (north, south):
            if cell in carrier:
                _fail(where, f"card {_cell_text(cell)} already carries {carrier[cell]} (R4.3)")
            carrier[cell] = name


def _check_items(pos: Position, source: str) -> None:
    """Each item is a toy word or 'sprayer' on its own open seam between two cards (R5.1, R5.2)."""
    holder: dict[frozenset[Cell], str] = {}
    for i, item in enumerate(pos.items):
        where = f"{source}: items[{i}]"
        if not _is_item_kind(item.kind):
            _fail(
                where, f"kind must be a toy word like 'yarn' or 'sprayer', got {_shown(item.kind)}"
            )
        for cell in (item.a, item.b):
            if cell not in pos.cards:
                _fail(where, f"{_cell_text(cell)} is not a card (R5.1)")
        seam = _seam_text(item.a, item.b)
        if touching_sides(item.a, item.b) is None:
            _fail(
                where,
                f"{_cell_text(item.a)} and {_cell_text(item.b)} are not neighbours, "
                "so no seam joins them (R5.1)",
            )
        if not is_open_seam(pos, item.a, item.b):
            _fail(where, f"seam {seam} is walled (R5.1)")
        key = frozenset((item.a, item.b))  # the same seam written either way round
        if key in holder:
            _fail(where, f"seam {seam} already holds {holder[key]} (R5.2)")
        holder[key] = f"items[{i}]"


def validate_position(pos: Position, *, source: str = "position") -> None:
    """Check a Position as a position file is checked; raise a one-line PositionError if not."""
    _check_players(pos, source)
    _check_layout(pos, source)
    _check_cats(pos, source)
    _check_items(pos, source)


# ---------------------------------------------------------------- public entry points


def parse_position(data: dict, *, source: str = "position") -> Position:
    """Build and check a Position from a parsed position file; `source` prefixes every error."""
    top = _object(data, source, TOP_KEYS, ("players", "cards"))
    players = _int(top["players"], f"{source}: players")
    rules = _read_rules(top.get("rules", {}), f"{source}: rules")
    cards, sleeping = _read_cards(top["cards"], source)
    pos = Position(
        players=players,
        cards=cards,
        sleeping=sleeping,
        cats=_read_cats(top.get("cats", []), source),
        princesses=_read_princesses(top.get("princesses", []), source),
        items=_read_items(top.get("items", []), source),
        rules=rules,
    )
    validate_position(pos, source=source)
    return pos


def _no_duplicate_keys(source: str):
    """A json object hook that rejects a key written twice (json.loads would keep the last)."""

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                _fail(source, f"key {key!r} appears twice in one object")
            out[key] = value
        return out

    return hook


def load_position(path: str | Path) -> Position:
    """Read and check a position file; every problem is one PositionError line naming the file."""
    source = str(path)
    try:
        text = read_text_bounded(path, MAX_FILE_BYTES)  # counted while read: /dev/zero ends
    except TooLarge:
        _fail(source, f"is larger than {MAX_FILE_BYTES:,} bytes; not a position file")
    except FileNotFoundError:
        _fail(source, "no such file")
    except IsADirectoryError:
        _fail(source, "is a directory, not a position file")
    except UnicodeDecodeError:
        _fail(source, "is not UTF-8 text")
    except OSError as exc:
        _fail(source, f"cannot be read: {exc.strerror}")
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys(source))
    except json.JSONDecodeError as exc:
        _fail(source, f"is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
    except RecursionError:
        _fail(source, f"is nested more than {MAX_DEPTH} levels deep")
    except ValueError:  # Python reads no whole number of more than 4300 digits
        _fail(source, "has a number too long to read (more than 4300 digits)")
    _check_shape(data, source)
    return parse_position(data, source=source)


def _check_shape(data: Any, source: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH and whole numbers beyond 64 bits, before any
    check prints a value (walked with a stack: the depth is not known yet)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            _fail(source, f"is nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif _is_int(value) and abs(value) > MAX_INT:
            _fail(source, f"has a whole number of {value.bit_length()} bits; the limit is 64")


def position_to_json(pos: Position) -> dict:
    """The position file for a Position (inverse of parse_position); walls in NESW order."""
    cards = []
    for cell, mask in pos.cards.items():
        entry: dict[str, Any] = {"at": list(cell), "walls": walls_str(mask)}
        if cell in pos.sleeping:
            entry["sleeping"] = pos.sleeping[cell]
        cards.append(entry)
    return {
        "players": pos.players,
        "rules": pos.rules.model_dump(mode="json"),
        "cards": cards,
        "cats": [
            {"player": cat.player, "at": [list(cat.north), list(cat.south)]} for cat in pos.cats
        ],
        "princesses": [{"at": [list(p.north), list(p.south)]} for p in pos.princesses],
        "items": [
            {"kind": item.kind, "between": [list(item.a), list(item.b)]} for item in pos.items
        ],
    }
