"""Loading a study file: `extends` chains, `--set` changes, and what differs between studies.

A file with `extends: other.yaml` (relative to the file) is merged over that study,
which must be valid on its own; `--set KEY=VALUE` changes come last, as if a
one-line child extended the file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sim.config.blocks import BLOCKS
from sim.config.calibrated import anchored
from sim.config.keys import MISSING, flat_settings, get_at, merge_settings, parse_override, resolve
from sim.config.limits import MAX_CHAIN
from sim.config.messages import check_size, fail, plain, show
from sim.config.spaces import deck_size
from sim.config.study import StudyConfig, parse_study
from sim.config.yamlio import read_file
from sim.errors import ConfigError

EXTENDS = "extends"  # a study file's key naming the file it builds on


NOT_INHERITED = ("name", "report")  # a study's identity: never taken from the parent


def load_study(path: str | Path, sets: Sequence[str] = ()) -> StudyConfig:
    """Read and validate a study YAML file; every mistake is one ConfigError line.

    A file with `extends: other.yaml` (relative to the file) is merged over that
    study (`merge_settings`), which must be valid on its own; `sets` are command-line
    `--set KEY=VALUE` changes applied last (`apply_sets`).
    """
    where = str(path)
    data, chain = _read_chain(Path(path), ())
    if len(chain) > 1:
        load_study(chain[1])  # the parent first: its mistakes are named in its own file
    study = parse_study(data, where)
    return apply_sets(study, sets) if sets else study


def extends_chain(path: str | Path) -> list[Path]:
    """The study file and the files it extends, child first: [child.yaml, base.yaml]."""
    return list(_read_chain(Path(path), ())[1])


def _read_chain(path: Path, seen: tuple[Path, ...]) -> tuple[Any, tuple[Path, ...]]:
    """The study mapping of `path` with every file it extends merged under it, and the
    chain of files (child first). A cycle or a chain of more than MAX_CHAIN files is
    one error line naming the chain."""
    data = anchored(read_file(path), path.parent)  # calibrated seats: paths from this file
    if not isinstance(data, Mapping) or EXTENDS not in data:
        return data, (path,)
    where = str(seen[0] if seen else path)
    ref = data[EXTENDS]
    if not isinstance(ref, str) or not ref.strip():
        fail(str(path), (EXTENDS,), f"must be the path of a study file, got {show(ref)}")
    parent = path.parent / ref
    chain = (*seen, path)
    if parent.resolve() in [p.resolve() for p in chain]:
        names = " -> ".join(str(p) for p in (*chain, parent))
        raise ConfigError(f"{where}: extends: a cycle: {names}")
    if len(chain) >= MAX_CHAIN:
        raise ConfigError(f"{where}: extends: more than {MAX_CHAIN} files in one chain")
    if not parent.exists():
        fail(str(path), (EXTENDS,), f"no such file: {parent}")
    base, files = _read_chain(parent, chain)
    if not isinstance(base, Mapping):  # the parent's own check names its problem
        return base, (path, *files)
    base = {k: v for k, v in base.items() if k not in NOT_INHERITED}
    own = {k: v for k, v in data.items() if k != EXTENDS}
    merged = merge_settings(base, own)
    check_size(merged, where, ())
    return merged, (path, *files)


def apply_sets(study: StudyConfig, sets: Sequence[str]) -> StudyConfig:
    """The study with command-line `--set KEY=VALUE` changes (values read as YAML), as if a
    child file extended it: a mapping value merges key by key, anything else replaces.

    The result records the changes (`StudyConfig.sets`) and, unless a change sets `name`,
    its name shows those that change the game played (`set_name`: base[deck.sprayers=6]),
    so that its folders and pages never take over the config's own; a configured
    report.path gets the same suffix unless a change sets `report`.
    """
    dotted: dict[str, Any] = {}
    given = []
    for text in sets:
        key, value = parse_override(text)
        dotted[key] = value
        given.append(f"{key}={text.partition('=')[2].strip()}")
    keys = {_top(key) for key in dotted}
    changed = study.overridden(dotted, where="--set", merge=True)
    suffix = set_suffix([g for g in given if _top(g.partition("=")[0]) not in UNNAMED_SETS])
    renamed: dict[str, Any] = {}
    if suffix and "name" not in keys:
        renamed["name"] = f"{changed.name}[{suffix}]"
        if changed.report_path and "report" not in keys:
            page = Path(changed.report_path)
            renamed["report"] = {"path": str(page.with_name(f"{page.stem}[{suffix}]{page.suffix}"))}
    if renamed:
        changed = changed.overridden(renamed, where="--set")
    return changed.model_copy(update={"sets": tuple(given)})


# Study keys whose change leaves the games played alone, as `--games` and `--seed` do: a
# `--set` of one is listed with the study but does not rename it.
UNNAMED_SETS = ("name", "games", "seed", "targets", "primary", "report", "tune", *BLOCKS)
SUFFIX_CHARS = 80  # longest name suffix; a longer one is cut and ends in a hash of the whole


def set_suffix(given: Sequence[str]) -> str:
    """'deck.sprayers=6,hand_size=2' from `--set` texts, safe in a file name on every system
    (letters, digits and . _ = + - , only; other characters become _), at most SUFFIX_CHARS
    characters (a longer one is cut and ends in ~ and 8 hex digits of a hash of the whole)."""
    text = ",".join(given)
    safe = ",".join(re.sub(r"[^A-Za-z0-9._=+,-]+", "_", g).strip("_") for g in given)
    if len(safe) > SUFFIX_CHARS:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        safe = f"{safe[: SUFFIX_CHARS - 9]}~{digest}"
    return safe


def _top(key: str) -> str:
    return re.split(r"[.\[]", key.strip(), maxsplit=1)[0]


def study_changes(before: StudyConfig, after: StudyConfig) -> list[str]:
    """What differs between two studies, one 'dotted.key: old -> new' line per setting."""
    a, b = flat_settings(before.to_yaml_dict()), flat_settings(after.to_yaml_dict())
    out = []
    for key in [*a, *(k for k in b if k not in a)]:
        if a.get(key, MISSING) != b.get(key, MISSING):
            old, new = (plain(d[key]) if key in d else "(none)" for d in (a, b))
            out.append(f"{key}: {old} -> {new}")
    return out


def summarize(study: StudyConfig) -> str:
    """One line for `sim validate`: 'configs/base.yaml: OK — base, 4 players, 70 cards, ...'."""
    game, deck = study.game, study.game.deck
    cards = sum(deck.boxes.values()) + sum(deck.toys.values()) + deck.sprayers + deck.princesses
    counts: dict[str, int] = {}
    for seat in study.seats:
        counts[seat.label] = counts.get(seat.label, 0) + 1
    seats = ", ".join(label if n == 1 else f"{label}×{n}" for label, n in counts.items())
    parts = [
        study.name,
        f"{game.players} players",
        f"{cards} cards",
        f"{study.games} games",
        f"seats {seats}" + ("" if study.rotate_seats else " (not rotated)"),
    ]
    if variants := game.rules.switched_on():
        parts.append("variants " + ", ".join(f"{k}={plain(v)}" for k, v in variants.items()))
    if study.sweep:
        parts.append("sweep " + " × ".join(f"{p} ({len(v)})" for p, v in study.sweep.items()))
    if study.tune:
        parts.append("tune " + ", ".join(study.tune.space))
    return f"{study.source}: OK — " + ", ".join(parts)


def setting(study: StudyConfig, dotted: str) -> Any:
    """A game setting's value by its dotted name ('deck.boxes.N', 'rules.cat_entry')."""
    base = study.game.game_dict()
    return get_at(base, resolve(base, dotted, study.source, ()))


def describe_changes(study: StudyConfig, changes: Mapping[str, Any]) -> list[str]:
    """Each change of a study's game settings as a designer reads it, one line each:
    'deck.boxes.N 8 → 7 (48 → 47 box cards)', 'deck.sprayers 4 → 3 (70 → 69 cards in the
    deck)', 'hand_size 3 → 2'."""
    base = study.game.game_dict()
    out = []
    for path, new in changes.items():
        old = get_at(base, resolve(base, path, "change", ()))
        if path == "deck.boxes":  # the whole mix resized
            moved = [
                f"{k or '(no walls)'} {old.get(k, 0)} → {n}"
                for k, n in new.items()
                if n != old.get(k, 0)
            ]
            out.append(
                f"deck.boxes {sum(old.values())} → {sum(new.values())} box cards, the"
                f" mix kept ({', '.join(moved)})"
            )
            continue
        line = f"{path} {plain(old)} → {plain(new)}"
        if path.startswith("deck."):
            after = study.with_overrides(**{path: new}).game.game_dict()
            if path.startswith("deck.boxes."):
                counts = (sum(d["deck"]["boxes"].values()) for d in (base, after))
                line += " ({} → {} box cards)".format(*counts)
            else:
                line += f" ({deck_size(base)} → {deck_size(after)} cards in the deck)"
        out.append(line)
    return out
