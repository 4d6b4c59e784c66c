"""Error lines of a study: one `ConfigError` line per mistake, naming the key at fault.

`fail` raises '<file>: <dotted.path>: <problem>'; `explain` turns pydantic's first
error into such a problem without URLs or type tags; `unknown` adds a "did you mean";
`show` writes a user's value as YAML would, cut short (only as much of a huge value is
built as is shown).
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from typing import Any, NoReturn

from pydantic import BaseModel, ValidationError

from sim.config.limits import MAX_DEPTH, MAX_VALUES
from sim.errors import ConfigError


class Invalid(ValueError):
    """A validator's complaint about `at`, a key path below the value it validates."""

    def __init__(self, problem: str, at: tuple[str, ...] = ()) -> None:
        super().__init__(problem)
        self.problem = problem
        self.at = at


def fail(where: str, loc: tuple, problem: str) -> NoReturn:
    """Raise the one-line ConfigError '<where>: <dotted.path>: <problem>'."""
    path = fmt_path(loc)
    text = f"{where}: {path}: {problem}" if path else f"{where}: {problem}"
    raise ConfigError(" ".join(text.split()))


def unknown(key: Any, valid: tuple[str, ...] | list[str], what: str) -> str:
    """'unknown key; did you mean ...?' or, when nothing is close, the valid names."""
    hint = _HINTS.get(key) if what == "key" else None
    if hint:
        return f"unknown key; {hint}"
    close = difflib.get_close_matches(str(key), list(valid), n=1)
    if close:
        return f"unknown {what}; did you mean {close[0]!r}?"
    return f"unknown {what}; valid {what}s: {', '.join(valid)}"


def check_block(raw: Any, at: tuple, keys: tuple[str, ...], where: str, like: str) -> None:
    """A study block must be a mapping (`like` says of what) of known keys: one error line
    naming the block, or the first unknown key with a "did you mean"."""
    if not isinstance(raw, Mapping):
        fail(where, at, f"must be {like}, got {show(raw)}")
    for key in raw:
        if key not in keys:
            fail(where, (*at, key), unknown(key, keys, "key"))


_HINTS = {
    "game": "game settings go at the top level (players: 4, deck: {...}), not under 'game'",
    "report_path": "write report: {path: ...}",
}


def explain(exc: ValidationError, root: type[BaseModel]) -> tuple[tuple, str]:
    """The first pydantic error as (key path, human problem): no URLs, no [type=...]."""
    err = exc.errors()[0]
    loc, kind, ctx = tuple(err["loc"]), err["type"], err.get("ctx") or {}
    got = show(err["input"])
    if loc and loc[-1] == "[key]":
        return loc[:-2], f"key {show(loc[-2])} must be text"
    if kind == "value_error" and isinstance(ctx.get("error"), Invalid):
        return loc + ctx["error"].at, ctx["error"].problem
    if kind == "extra_forbidden":
        model = _model_at(root, loc[:-1])
        return loc, unknown(loc[-1], tuple(model.model_fields) if model else (), "key")
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        return loc, f"{_bounds(root, loc, kind, ctx)}, got {got}"
    simple = {
        "int_type": "must be an integer",
        "bool_type": "must be true or false",
        "string_type": "must be text",
        "float_type": "must be a number",
        "dict_type": "must be a mapping (key: value)",
        "model_type": "must be a mapping (key: value)",
        "model_attributes_type": "must be a mapping (key: value)",
        "string_too_short": "must not be empty",
        "missing": "is required",
    }
    if kind in simple:
        return loc, f"{simple[kind]}, got {got}" if kind != "missing" else simple[kind]
    if kind == "literal_error":
        return loc, f"must be {ctx['expected']}, got {got}"
    message = err["msg"].removeprefix("Value error, ")
    return loc, f"{message[:1].lower()}{message[1:]}, got {got}"


def _model_at(root: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The model class whose fields sit at `loc` below `root` (None below a plain dict)."""
    model = root
    for seg in loc:
        field = model.model_fields.get(seg) if isinstance(seg, str) else None
        ann = field.annotation if field else None
        if not (isinstance(ann, type) and issubclass(ann, BaseModel)):
            return None
        model = ann
    return model


def _bounds(root: type[BaseModel], loc: tuple, kind: str, ctx: dict) -> str:
    """'must be >= 0', or 'must be from 2 to 5' when the field has both bounds."""
    model = _model_at(root, loc[:-1])
    field = model.model_fields.get(loc[-1]) if model and isinstance(loc[-1], str) else None
    ge = next((m.ge for m in field.metadata if hasattr(m, "ge")), None) if field else None
    le = next((m.le for m in field.metadata if hasattr(m, "le")), None) if field else None
    if ge is not None and le is not None:
        return f"must be from {ge} to {le}"
    sign = {"greater_than_equal": ">=", "less_than_equal": "<=", "greater_than": ">"}.get(kind, "<")
    return f"must be {sign} {next(iter(ctx.values()))}"


def show(value: Any, limit: int = 50) -> str:
    """A value as a YAML user would write it, short: 'four', 4.0, true, null, a list [1, 2].

    Only as much of the value is written out as is shown, so a huge value (a YAML
    alias bomb, a million-digit number) costs no more than a small one."""
    if isinstance(value, bool) or value is None:
        return _scalar(value)
    if isinstance(value, int):
        return _scalar(value) if value.bit_length() <= 64 else _digits(value)
    if isinstance(value, str):
        text = repr(value[: limit + 1])
        return text if len(value) <= limit else text[: limit - 4] + "...'"
    if isinstance(value, float):
        return repr(value)
    kind = (
        "a list "
        if isinstance(value, list | tuple)
        else "a mapping "
        if isinstance(value, Mapping)
        else ""
    )
    text = ""
    for token in _tokens(value, 0):
        text += token
        if len(text) > limit:
            return kind + text[: limit - 3] + "..."
    return kind + text


def _tokens(value: Any, depth: int):
    """The JSON text of `value`, piece by piece (lazily: a reader stops when it has enough)."""
    if depth > MAX_DEPTH:
        yield "..."
    elif isinstance(value, Mapping):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield ", " if i else ""
            yield from _tokens(key if isinstance(key, str) else str(key)[:60], depth + 1)
            yield ": "
            yield from _tokens(item, depth + 1)
        yield "}"
    elif isinstance(value, list | tuple):
        yield "["
        for i, item in enumerate(value):
            yield ", " if i else ""
            yield from _tokens(item, depth + 1)
        yield "]"
    else:
        yield _scalar(value)


def _scalar(value: Any) -> str:
    """One JSON scalar, strings and numbers cut short."""
    if isinstance(value, bool) or value is None:
        return "true" if value else "false" if value is not None else "null"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 64 else _digits(value)
    if isinstance(value, float):
        return json.dumps(value)
    return json.dumps(value[:60] if isinstance(value, str) else str(value)[:60], ensure_ascii=False)


def _digits(value: int) -> str:
    """'an integer of 5000 digits' without writing the digits (Python refuses beyond 4300)."""
    return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"


def check_size(value: Any, where: str, at: tuple) -> None:
    """Refuse a value of more than MAX_VALUES values or MAX_DEPTH levels (a seat parameter
    reaches a plug-in, run.json and the config hash as it is)."""
    count, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_VALUES or depth > MAX_DEPTH:
            fail(where, at, f"is larger than {MAX_VALUES:,} values or {MAX_DEPTH} levels deep")
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for kv in item.items() for v in kv)
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)


def plain(value: Any) -> str:
    return show(value).strip("'")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def canonical_json(data: Any) -> str:
    """Key-sorted compact JSON: the same text in every process."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_]+")


def fmt_path(loc: tuple) -> str:
    """('seats', 2, 'policy') -> 'seats[2].policy'; odd keys quoted: deck.boxes.''."""
    out = ""
    for seg in loc:
        if isinstance(seg, int) and not isinstance(seg, bool):
            out += f"[{seg}]"
        else:
            plain = isinstance(seg, str) and len(seg) <= 40 and _PLAIN_KEY.fullmatch(seg)
            text = seg if plain else show(seg)
            out += f".{text}" if out else text
    return out


def join_path(path: tuple[str, ...]) -> str:
    """The canonical dotted name of a game setting, as used for sweep keys."""
    return fmt_path(path)
