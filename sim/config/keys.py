"""Dotted keys into the YAML layout, and merging: `extends`, `--set` and overrides.

`resolve` turns 'deck.toys.yarn' into a key path that exists in a game dict (box
cards matched by their walls, a "did you mean" otherwise); `merge_settings` lays a
child over its parent key by key.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping
from typing import Any

from sim.config.limits import MAX_FILE_BYTES
from sim.config.messages import Invalid, fail, fmt_path, join_path, show
from sim.config.models import STUDY_KEYS, wall_mask
from sim.config.yamlio import load_yaml
from sim.errors import ConfigError
from sim.walls import canonical, parse_walls

# The maps a study passes between its parts, named for what they hold:
Settings = dict[str, Any]  # dotted game setting -> value: a change, a point of a space
Space = dict[str, Any]  # dotted game setting -> [lo, hi] or {"choices": [...]}
Targets = dict[str, Any]  # metric name -> its target ({value, within} or [lo, hi])
Json = dict[str, Any]  # a record as a folder keeps it (study.json, tune.json, advice.json)


def merge_settings(parent: Mapping, child: Mapping, at: tuple = ()) -> dict:
    """`child` over `parent`, key by key: a mapping given in both is merged the same way,
    anything else (a number, text, a list, null) in the child replaces the parent's whole.
    Box cards are matched by their walls (`NES` in the parent and `SEN` in the child name
    the same card)."""
    out = copy.deepcopy(dict(parent))
    same = _box_aliases(out) if at == ("deck", "boxes") else {}
    for key, value in child.items():
        key = same.get(walls_or_none(key), key) if same else key
        old = out.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            out[key] = merge_settings(old, value, (*at, key))
        else:
            out[key] = copy.deepcopy(value)
    return out


def _box_aliases(boxes: dict) -> dict[int, str]:
    """Wall mask -> the box key that names it."""
    masks = {walls_or_none(k): k for k in boxes}
    masks.pop(None, None)
    return masks


def walls_or_none(key: Any) -> int | None:
    try:
        return parse_walls(key) if isinstance(key, str) else None
    except ValueError:
        return None


def resolve(base: dict, dotted: str, where: str, prefix: tuple) -> tuple[str, ...]:
    """Turn 'deck.toys.yarn' into a key path that exists in the game dict `base`."""
    parts = [
        p[1:-1] if len(p) >= 2 and p[0] == p[-1] and p[0] in "'\"" else p for p in dotted.split(".")
    ]
    node: Any = base
    path: tuple[str, ...] = ()
    for part in parts:
        if not isinstance(node, dict):
            fail(where, prefix + path, f"is a single setting; it has no {part!r}")
        if path == ("deck", "boxes"):
            part = _box_key(node, part, where, prefix + path)
        elif part not in node:
            here = (*prefix, *path, part)
            if not path and part in STUDY_KEYS:
                fail(where, here, "not a game setting; sweep game settings such as deck.sprayers")
            close = difflib.get_close_matches(dotted, _all_paths(base), n=1)
            if close:
                fail(where, here, f"unknown setting; did you mean {close[0]!r}?")
            valid = ", ".join(join_path((*path, k)) for k in node)
            fail(where, here, f"unknown setting; valid here: {valid}")
        path = (*path, part)
        node = node[part]
    return path


def _box_key(boxes: dict, text: str, where: str, at: tuple) -> str:
    """The deck.boxes key naming the same card as `text` (letters in any order)."""
    try:
        mask = wall_mask(text)
    except Invalid as exc:
        fail(where, at, exc.problem)
    for key in boxes:
        if parse_walls(key) == mask:
            return key
        if canonical(parse_walls(key)) == canonical(mask):
            fail(
                where, (*at, text), f"is {key!r} turned by 180 degrees (R1.3); use deck.boxes.{key}"
            )
    fail(
        where,
        (*at, text),
        "the deck has no such box card; add it to deck.boxes (count 0 is fine) to vary it",
    )


def _all_paths(node: dict, path: tuple[str, ...] = ()) -> list[str]:
    """Every dotted setting path in a game dict, mappings included."""
    out = []
    for key, value in node.items():
        out.append(join_path((*path, key)))
        if isinstance(value, dict):
            out.extend(_all_paths(value, (*path, key)))
    return out


def merged(old: Any, new: Any, merge: bool, at: tuple = ()) -> Any:
    """`new`, merged into `old` key by key when both are mappings and `merge` is on."""
    if merge and isinstance(old, Mapping) and isinstance(new, Mapping):
        return merge_settings(old, new, at)
    return new


def get_at(data: dict, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def set_at(data: dict, path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def parse_override(text: str) -> tuple[str, Any]:
    """Split a CLI 'deck.sprayers=6' into ('deck.sprayers', 6); the value is read as YAML by
    the study files' own loader, with their limits (size, nesting, aliases, no key twice)."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise ConfigError(f"override {show(text)}: expected KEY=VALUE, e.g. deck.sprayers=6")
    if len(raw.encode("utf-8", "replace")) > MAX_FILE_BYTES:
        raise ConfigError(
            f"--set {show(key.strip())}: the value is larger than {MAX_FILE_BYTES:,} bytes"
        )
    value = load_yaml(raw, f"--set {show(key.strip())}") if raw.strip() else ""
    return key.strip(), value


MISSING = object()


def flat_settings(data: Mapping, path: tuple = ()) -> dict[str, Any]:
    """{'deck': {'toys': {'fish': 4}}} -> {'deck.toys.fish': 4}; lists stay whole, but for
    lists of mappings (the seats): {'seats[0].policy': 'greedy'}."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            out.update(flat_settings(value, (*path, key)))
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            for i, item in enumerate(value):  # seats: one line per seat's key
                out.update(flat_settings(item, (*path, key, i)))
        else:
            out[fmt_path((*path, key))] = value
    return out
