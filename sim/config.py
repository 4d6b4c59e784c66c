"""Typed, frozen, validated configuration (game settings and studies).

The models here are the single source of truth for config keys. A config is
validated once, when loaded; the engine trusts it afterwards.

A study file (YAML) holds the game settings at top level (the `GameConfig`
keys) plus the study keys in `STUDY_KEYS`. Every mistake in it becomes one
`ConfigError` line, `<file>: <dotted.path>: <problem>`.

Every input is bounded before anything is built from it: the file's size, its
nesting depth and the number of values it expands to (YAML aliases repeat what
they point to), the number of games, the sweep grid; an error message shows
at most a few dozen characters of a value, cut before the value is written out.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import itertools
import json
import math
import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from sim.errors import ConfigError
from sim.metrics import TARGET_METRICS
from sim.metrics import metric as registry_metric
from sim.specs import check_seat, is_plugin
from sim.variants import Rules
from sim.walls import canonical, parse_walls, walls_str

# A card count in the deck: a strict non-negative integer.
Count = Annotated[int, Field(ge=0)]

MAX_GAMES = 100_000_000  # games of a run; a sweep's points share this budget
MAX_SWEEP_POINTS = 256  # grid points of a sweep (each is a run folder)
MAX_REPLAYS = 10_000  # replays per deal of the luck gauge
MAX_FILE_BYTES = 1_000_000  # a study file is a few KB
MAX_DEPTH = 20  # nesting of mappings and lists in a study (a real one needs 4)
MAX_VALUES = 50_000  # values a study file may expand to, YAML aliases counted as used
MAX_NAME = 200  # characters of a study name (it names files)


class _Invalid(ValueError):
    """A validator's complaint about `at`, a key path below the value it validates."""

    def __init__(self, problem: str, at: tuple[str, ...] = ()) -> None:
        super().__init__(problem)
        self.problem = problem
        self.at = at


def _walls(text: str) -> int:
    """parse_walls, reporting a malformed string as _Invalid (message without a path)."""
    try:
        return parse_walls(text, where="", error=ValueError)
    except ValueError as exc:
        raise _Invalid(str(exc).removeprefix(": ")) from None


class _Frozen(BaseModel):
    # strict: YAML ints stay ints; 4.0, true or "4" are refused, never coerced.
    # validate_default: defaults are normalised like loaded values (walls in NESW order).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, validate_default=True)

    def __hash__(self) -> int:
        # pydantic's frozen hash fails on dict fields (deck counts, seat params).
        return hash((type(self).__name__, _canonical_json(self.model_dump(mode="json"))))


class Table(_Frozen):
    """R1.5: the layout's bounding rectangle must fit columns x rows cards."""

    columns: int = Field(10, ge=1, le=40)
    rows: int = Field(10, ge=1, le=40)


class Deck(_Frozen):
    """R2.2: draw-deck contents by kind."""

    boxes: dict[str, Count] = Field(
        default_factory=lambda: {
            "": 6,
            "N": 8,
            "E": 6,
            "NS": 4,
            "EW": 4,
            "NE": 6,
            "NW": 6,
            "NEW": 4,
            "NES": 4,
        }
    )
    toys: dict[str, Count] = Field(
        default_factory=lambda: {"yarn": 4, "mouse": 4, "feather": 4, "fish": 4}
    )
    sprayers: int = Field(4, ge=0)
    princesses: int = Field(2, ge=0)

    @field_validator("boxes")
    @classmethod
    def _boxes_are_distinct_cards(cls, boxes: dict[str, int]) -> dict[str, int]:
        """Normalise wall strings to NESW order and reject two turnings of one card (R1.3)."""
        out: dict[str, int] = {}
        first: dict[int, str] = {}  # canonical mask -> the key as first written
        for key, count in boxes.items():
            mask = _walls(key)
            earlier = first.get(canonical(mask))
            if earlier is not None:
                how = (
                    "the same card (wall letters may come in any order)"
                    if _walls(earlier) == mask
                    else "the same card turned by 180 degrees (R1.3)"
                )
                raise _Invalid(f"{earlier!r} and {key!r} are {how}; list it once")
            first[canonical(mask)] = key
            out[walls_str(mask)] = count
        return out

    @field_validator("toys")
    @classmethod
    def _toy_kinds(cls, toys: dict[str, int]) -> dict[str, int]:
        """Toy kinds are plain words; sprayers and Princesses have their own keys (R5)."""
        for kind in toys:
            if kind.lower().rstrip("s") == "sprayer":
                raise _Invalid("a sprayer is not a toy (R5); count them in deck.sprayers", (kind,))
            if kind.lower().rstrip("s") in ("princes", "princesse"):
                raise _Invalid(
                    "a Princess is not a toy (R6); count them in deck.princesses", (kind,)
                )
            if not kind or not kind.replace("_", "").isalnum():
                raise _Invalid(f"toy kind {kind!r} must be a plain word like 'yarn'")
        return dict(toys)


class GameConfig(_Frozen):
    """Everything that decides how one game is played (R2)."""

    players: int = Field(4, ge=2, le=5)
    table: Table = Field(default_factory=Table)
    hand_size: int = Field(3, ge=1, le=20)
    cats_per_player: int = Field(6, ge=0, le=60)
    sleeping_per_player: int = Field(2, ge=0, le=60)
    sleeping_card_walls: str = ""
    deck: Deck = Field(default_factory=Deck)
    rules: Rules = Field(default_factory=Rules)

    @field_validator("sleeping_card_walls")
    @classmethod
    def _sleeping_walls(cls, text: str) -> str:
        return walls_str(_walls(text))

    @model_validator(mode="after")
    def _deck_can_deal(self) -> GameConfig:
        """The deck must hold a start box card and enough cards to deal the hands (R2.3, R2.4)."""
        n_boxes = sum(self.deck.boxes.values())
        if n_boxes < 1:
            raise _Invalid(
                "the deck needs at least one box card for the start card (R2.3)", ("deck", "boxes")
            )
        dealable = n_boxes - 1 + self.deck.princesses
        need = self.players * self.hand_size
        if dealable < need:
            raise _Invalid(
                f"{dealable} box and Princess cards after the start card cannot deal "
                f"{self.players} hands of {self.hand_size} ({need} needed, R2.4)",
                ("deck",),
            )
        return self

    def game_dict(self) -> dict:
        """The resolved settings with the same keys as the YAML."""
        return self.model_dump(mode="json")


# ---------------------------------------------------------------------------
# Studies

STUDY_KEYS = (
    "name",
    "games",
    "seed",
    "seats",
    "rotate_seats",
    "sweep",
    "targets",
    "primary",
    "report",
    "tune",
    "replays",
    "value",
    "ladder",
    "luck",
)
GAME_KEYS = tuple(GameConfig.model_fields)
# Left out of config_hash: they change neither which games run nor how (see config_hash).
HASH_IGNORES = (
    "name", "games", "targets", "primary", "report", "tune", "value", "ladder", "luck"
)  # fmt: skip
# A target as written: a number (within the metric's default margin), [lo, hi], or
# {value: v, within: m} (see sim.metrics.target_band).
Target = float | tuple[float, float] | dict[str, float]


class SeatSpec(_Frozen):
    """One seat of the line-up: a policy name and its parameters, stored unchanged.

    `ban` lists the options the seat may not use (restricted play, `sim value`): names
    from `ban_options` of the game; it keeps to them unless every legal move is banned.
    """

    policy: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    ban: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """Short name for tables and plots: 'greedy', or 'heuristic:spoiler' with a preset;
        a restricted seat adds its bans: 'greedy[-princess]'."""
        preset = self.params.get("preset")
        name = self.policy if preset is None else f"{self.policy}:{preset}"
        return f"{name}[{','.join('-' + b for b in self.ban)}]" if self.ban else name

    def to_dict(self) -> dict[str, Any]:
        """The seat as written in YAML: {policy: NAME, **params} (and `ban` if any)."""
        out = {"policy": self.policy, **copy.deepcopy(self.params)}
        if self.ban:
            out["ban"] = list(self.ban)
        return out


# Restricted play: the options a seat can be banned from besides playing a card kind.
BAN_ACTIONS = {
    "sleeping": "the sleeping-cat action (R3.2)",
    "cat": "the optional awake cat after a box card (R3.1.3)",
}


def ban_options(game: GameConfig) -> list[str]:
    """Every option a seat can be banned from in this game: playing each box kind
    ('box:NE', 'box:' for the card without walls), the Princess, and BAN_ACTIONS."""
    return [f"box:{w}" for w in game.deck.boxes] + ["princess", *BAN_ACTIONS]


class StudyConfig(_Frozen):
    """A validated study: game settings, line-up, run size and what to sweep and report."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    games: int = Field(10000, ge=1, le=MAX_GAMES)
    seed: int = Field(0, ge=0, le=2**63 - 1)
    game: GameConfig = Field(default_factory=GameConfig)
    seats: tuple[SeatSpec, ...]
    rotate_seats: bool = True
    sweep: dict[str, tuple[Any, ...]] = Field(default_factory=dict)
    targets: dict[str, Target] = Field(default_factory=dict)
    primary: str | None = None
    report_path: str | None = None
    tune: dict[str, Any] = Field(default_factory=dict)
    replays: int = Field(0, ge=0, le=MAX_REPLAYS)
    value: dict[str, Any] = Field(default_factory=dict)
    ladder: dict[str, Any] = Field(default_factory=dict)
    luck: dict[str, Any] = Field(default_factory=dict)
    source: str = "<memory>"
    folder: str | None = None  # where plug-in policies are also looked for (the config's folder)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        """The name makes file names (runs/<name>-<time>/, reports/<name>.html): no folders."""
        if name in (".", "..") or any(c in name for c in "/\\") or not name.isprintable():
            raise _Invalid(
                "must be a plain file name: no '/' or '\\', no control characters, not '.' or '..'"
            )
        return name

    @model_validator(mode="after")
    def _one_seat_per_player(self) -> StudyConfig:
        if len(self.seats) != self.game.players:
            raise _Invalid(_seat_count_problem(len(self.seats), self.game.players), ("seats",))
        points = math.prod(len(v) for v in self.sweep.values())
        if points * self.games > MAX_GAMES:
            raise _Invalid(
                f"{points} sweep points x {self.games:,} games is more than {MAX_GAMES:,} games",
                ("games",),
            )
        return self

    def to_yaml_dict(self) -> dict[str, Any]:
        """The resolved study as a plain dict in the YAML layout (game keys at top level)."""
        out: dict[str, Any] = {"name": self.name, "games": self.games, "seed": self.seed}
        out.update(self.game.game_dict())
        out["seats"] = [seat.to_dict() for seat in self.seats]
        out["rotate_seats"] = self.rotate_seats
        if self.sweep:
            out["sweep"] = {path: copy.deepcopy(list(vals)) for path, vals in self.sweep.items()}
        if self.targets:
            out["targets"] = {
                k: list(v) if isinstance(v, tuple) else copy.deepcopy(v)
                for k, v in self.targets.items()
            }
        if self.primary is not None:
            out["primary"] = self.primary
        if self.report_path is not None:
            out["report"] = {"path": self.report_path}
        if self.tune:
            out["tune"] = _tune_yaml(self.tune)
        if self.replays:
            out["replays"] = self.replays
        for key in ("value", "ladder", "luck"):
            if getattr(self, key):
                out[key] = copy.deepcopy(getattr(self, key))
        return out

    def config_hash(self) -> str:
        """sha256[:16] of the canonical JSON of to_yaml_dict() without HASH_IGNORES keys.

        name, games, targets and report are left out: renaming a study, running
        more games, moving the report or changing a target leaves every game's
        result the same.
        """
        data = {k: v for k, v in self.to_yaml_dict().items() if k not in HASH_IGNORES}
        return hashlib.sha256(_canonical_json(data).encode("ascii")).hexdigest()[:16]

    def with_overrides(self, **dotted: Any) -> StudyConfig:
        """A re-validated copy with dotted keys replaced, e.g. {"deck.sprayers": 6, "games": 100}.

        Game settings take any existing dotted path; study keys are replaced whole
        (`report.path`, `targets.<metric>` and `seats.<i>.<key>` also work); None removes
        sweep, targets or report. Changing `players` resizes a line-up of identical seats.
        """
        return self.overridden(dotted, where=f"{self.source} (overrides)")

    def overridden(self, dotted: Mapping[str, Any], *, where: str, merge: bool = False):
        """`with_overrides` with errors prefixed by `where`; with `merge`, a mapping value
        merges into the mapping it replaces key by key (`merge_settings`), as `--set` does."""
        data = self.to_yaml_dict()
        base = self.game.game_dict()
        for key, value in dotted.items():
            value = copy.deepcopy(value)
            key = re.sub(r"\[(\d+)\]", r".\1", key)  # seats[0].policy = seats.0.policy
            top, _, rest = key.partition(".")
            if top not in STUDY_KEYS and top not in GAME_KEYS:
                _fail(where, (top,), _unknown(top, STUDY_KEYS + GAME_KEYS, "key"))
            if (
                top in ("sweep", "targets", "primary", "report", "tune", "value", "ladder", "luck")
                and not rest
                and value is None
            ):
                data.pop(top, None)
            elif top in STUDY_KEYS and not rest:
                data[top] = _merged(data.get(top), value, merge)
            elif top in ("targets", "report") and "." not in rest:
                section = data.setdefault(top, {})
                if not isinstance(section, dict):
                    _fail(where, (top,), f"is {_show(section)}; set it whole")
                section[rest] = _merged(section.get(rest), value, merge)
            elif top == "seats":
                index, _, param = rest.partition(".")
                if not index.isdigit() or not param or int(index) >= len(data["seats"]):
                    _fail(where, ("seats",), f"give seats.<0..{len(self.seats) - 1}>.<key>"
                          " (e.g. seats.0.policy) or the whole line-up")  # fmt: skip
                seat = data["seats"][int(index)]
                seat[param] = _merged(seat.get(param), value, merge)
            elif top in STUDY_KEYS:
                _fail(where, tuple(key.split(".")), f"set {top!r} as a whole")
            else:
                path = _resolve(base, key, where, ())
                _set(data, path, _merged(_get(data, path), value, merge, path))
        players = dotted.get("players")
        if "seats" not in dotted and _is_int(players) and len(set(self.seats)) == 1:
            data["seats"] = [self.seats[0].to_dict() for _ in range(max(players, 0))]
        return _parse(data, self.source, where, folder=self.folder)

    def sweep_points(self) -> list[dict[str, Any]]:
        """Every sweep combination as {path: value}, in listing order ([{}] without a sweep).

        Run one with `study.with_overrides(sweep=None, **point)`.
        """
        paths = list(self.sweep)
        return [
            dict(zip(paths, combo, strict=True))
            for combo in itertools.product(*self.sweep.values())
        ]


EXTENDS = "extends"  # a study file's key naming the file it builds on
NOT_INHERITED = ("name", "report")  # a study's identity: never taken from the parent
MAX_CHAIN = 20  # files in one chain of `extends`


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


def merge_settings(parent: Mapping, child: Mapping, at: tuple = ()) -> dict:
    """`child` over `parent`, key by key: a mapping given in both is merged the same way,
    anything else (a number, text, a list, null) in the child replaces the parent's whole.
    Box cards are matched by their walls (`NES` in the parent and `SEN` in the child name
    the same card)."""
    out = copy.deepcopy(dict(parent))
    same = _box_aliases(out) if at == ("deck", "boxes") else {}
    for key, value in child.items():
        key = same.get(_walls_or_none(key), key) if same else key
        old = out.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            out[key] = merge_settings(old, value, (*at, key))
        else:
            out[key] = copy.deepcopy(value)
    return out


def _box_aliases(boxes: dict) -> dict[int, str]:
    """Wall mask -> the box key that names it."""
    masks = {_walls_or_none(k): k for k in boxes}
    masks.pop(None, None)
    return masks


def _walls_or_none(key: Any) -> int | None:
    try:
        return parse_walls(key) if isinstance(key, str) else None
    except ValueError:
        return None


def _read_chain(path: Path, seen: tuple[Path, ...]) -> tuple[Any, tuple[Path, ...]]:
    """The study mapping of `path` with every file it extends merged under it, and the
    chain of files (child first). A cycle or a chain of more than MAX_CHAIN files is
    one error line naming the chain."""
    data = _read_file(path)
    if not isinstance(data, Mapping) or EXTENDS not in data:
        return data, (path,)
    where = str(seen[0] if seen else path)
    ref = data[EXTENDS]
    if not isinstance(ref, str) or not ref.strip():
        _fail(str(path), (EXTENDS,), f"must be the path of a study file, got {_show(ref)}")
    parent = path.parent / ref
    chain = (*seen, path)
    if parent.resolve() in [p.resolve() for p in chain]:
        names = " -> ".join(str(p) for p in (*chain, parent))
        raise ConfigError(f"{where}: extends: a cycle: {names}")
    if len(chain) >= MAX_CHAIN:
        raise ConfigError(f"{where}: extends: more than {MAX_CHAIN} files in one chain")
    if not parent.exists():
        _fail(str(path), (EXTENDS,), f"no such file: {parent}")
    base, files = _read_chain(parent, chain)
    if not isinstance(base, Mapping):  # the parent's own check names its problem
        return base, (path, *files)
    base = {k: v for k, v in base.items() if k not in NOT_INHERITED}
    own = {k: v for k, v in data.items() if k != EXTENDS}
    merged = merge_settings(base, own)
    _check_size(merged, where, ())
    return merged, (path, *files)


def _read_file(path: Path) -> Any:
    """One study file as parsed YAML (not yet validated)."""
    where = str(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ConfigError(f"{where}: larger than {MAX_FILE_BYTES:,} bytes; not a study file")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{where}: is a directory, not a study file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror}") from None
    data = _load_yaml(text, where)
    if data is None:
        raise ConfigError(f"{where}: file is empty; expected study settings such as 'players: 4'")
    return data


def apply_sets(study: StudyConfig, sets: Sequence[str]) -> StudyConfig:
    """The study with command-line `--set KEY=VALUE` changes (values read as YAML), as if a
    child file extended it: a mapping value merges key by key, anything else replaces."""
    dotted: dict[str, Any] = {}
    for text in sets:
        key, value = parse_override(text)
        dotted[key] = value
    return study.overridden(dotted, where="--set", merge=True)


def study_changes(before: StudyConfig, after: StudyConfig) -> list[str]:
    """What differs between two studies, one 'dotted.key: old -> new' line per setting."""
    a, b = _flat(before.to_yaml_dict()), _flat(after.to_yaml_dict())
    out = []
    for key in [*a, *(k for k in b if k not in a)]:
        if a.get(key, _MISSING) != b.get(key, _MISSING):
            old, new = (_plain(d[key]) if key in d else "(none)" for d in (a, b))
            out.append(f"{key}: {old} -> {new}")
    return out


_MISSING = object()


def _flat(data: Mapping, path: tuple = ()) -> dict[str, Any]:
    """{'deck': {'toys': {'fish': 4}}} -> {'deck.toys.fish': 4}; lists stay whole, but for
    lists of mappings (the seats): {'seats[0].policy': 'greedy'}."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            out.update(_flat(value, (*path, key)))
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            for i, item in enumerate(value):  # seats: one line per seat's key
                out.update(_flat(item, (*path, key, i)))
        else:
            out[_fmt_path((*path, key))] = value
    return out


def parse_study(
    data: Any,
    source: str,
    *,
    where: str | None = None,
    folder: str | None = None,
    plugins: bool = True,
) -> StudyConfig:
    """Validate a parsed study mapping; `source` names it in errors and gives the default name.

    `where` names it in errors instead (a run.json holding a config that came from
    `source`); `folder` is where plug-in policies are also looked for (default: the
    folder of `source`). With `plugins=False` a plug-in seat is not imported (to read
    a finished run, whose report needs no player).
    """
    return _parse(data, source, where or source, folder=folder, plugins=plugins)


def parse_override(text: str) -> tuple[str, Any]:
    """Split a CLI 'deck.sprayers=6' into ('deck.sprayers', 6); the value is read as YAML."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise ConfigError(f"override {text!r}: expected KEY=VALUE, e.g. deck.sprayers=6")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        _, problem = _yaml_problem(exc)
        raise ConfigError(f"override {text!r}: value is not valid YAML: {problem}") from None
    return key.strip(), value


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
        parts.append("variants " + ", ".join(f"{k}={_plain(v)}" for k, v in variants.items()))
    if study.sweep:
        parts.append("sweep " + " × ".join(f"{p} ({len(v)})" for p, v in study.sweep.items()))
    if study.tune:
        parts.append("tune " + ", ".join(study.tune["space"]))
    return f"{study.source}: OK — " + ", ".join(parts)


# ---------------------------------------------------------------------------
# Parsing a study mapping


def _parse(
    data: Any, source: str, where: str, *, folder: str | None = None, plugins: bool = True
) -> StudyConfig:
    """parse_study with `where` (the error prefix) separate from `source` (stored)."""
    if not isinstance(data, Mapping):
        _fail(where, (), f"top level must be a mapping of settings (key: value), got {_show(data)}")
    for key in data:
        if not isinstance(key, str):
            _fail(where, (), f"setting names must be text, got {_show(key)}")
        if key not in STUDY_KEYS and key not in GAME_KEYS:
            _fail(where, (key,), _unknown(key, STUDY_KEYS + GAME_KEYS, "key"))
    if folder is None and not source.startswith("<"):
        folder = str(Path(source).resolve().parent)
    game = _validate_game({k: data[k] for k in GAME_KEYS if k in data}, where)
    seats = _parse_seats(data.get("seats"), game.players, where, folder if plugins else False, game)
    fields: dict[str, Any] = {
        k: data[k] for k in ("games", "seed", "rotate_seats", "replays") if k in data
    }
    fields["name"] = data["name"] if "name" in data else Path(source).stem
    fields.update(
        game=game,
        seats=seats,
        sweep=_parse_sweep(data.get("sweep"), game, seats, where),
        targets=_parse_targets(data.get("targets"), where),
        primary=_parse_primary(data.get("primary"), where),
        report_path=_parse_report(data.get("report"), where),
        tune=_parse_tune(data.get("tune"), game, seats, data.get("targets"), where),
        value=_parse_value(data.get("value"), game, where),
        ladder=_parse_rungs_block(data.get("ladder"), "ladder", LADDER_KEYS, where, folder),
        luck=_parse_rungs_block(data.get("luck"), "luck", LUCK_KEYS, where, folder),
        source=source,
        folder=folder,
    )
    try:
        return StudyConfig.model_validate(fields)
    except ValidationError as exc:
        _fail(where, *_explain(exc, StudyConfig))


def _validate_game(data: dict[str, Any], where: str) -> GameConfig:
    """GameConfig.model_validate with the first error as a ConfigError line."""
    try:
        return GameConfig.model_validate(data)
    except ValidationError as exc:
        _fail(where, *_explain(exc, GameConfig))


def _parse_seats(
    raw: Any,
    players: int,
    where: str,
    folder: str | None | bool = None,
    game: GameConfig | None = None,
) -> tuple[SeatSpec, ...]:
    """One SeatSpec per player; default all random. Policy names are checked by sim.specs,
    which imports a plug-in (from `folder` too), unless `folder` is False."""
    if raw is None:
        return tuple(SeatSpec(policy="random") for _ in range(players))
    if not isinstance(raw, list):
        _fail(where, ("seats",), f"must be a list of {{policy: NAME}} seats, got {_show(raw)}")
    if len(raw) != players:
        _fail(where, ("seats",), _seat_count_problem(len(raw), players))
    seats = []
    for i, item in enumerate(raw):
        at = ("seats", i)
        if not isinstance(item, Mapping):
            _fail(where, at, f"must be a mapping like {{policy: random}}, got {_show(item)}")
        if "policy" not in item:
            _fail(where, at, "no 'policy'; every seat needs one, e.g. {policy: random}")
        policy = item["policy"]
        if not isinstance(policy, str) or not policy:
            _fail(where, (*at, "policy"), f"must be a policy name, got {_show(policy)}")
        for key, value in item.items():
            if not isinstance(key, str):
                _fail(where, at, f"parameter names must be text, got {_show(key)}")
            _check_size(value, where, (*at, key))
        params = {k: copy.deepcopy(v) for k, v in item.items() if k not in ("policy", "ban")}
        ban = _parse_ban(item.get("ban"), game, where, (*at, "ban"))
        try:
            if folder is False:
                if not is_plugin(policy):
                    check_seat(policy, dict(params))
            else:
                check_seat(policy, dict(params), folder)
        except ValueError as exc:
            _fail(where, (*at, getattr(exc, "key", "policy")), str(exc))
        seats.append(SeatSpec(policy=policy, params=params, ban=ban))
    return tuple(seats)


def _parse_ban(raw: Any, game: GameConfig | None, where: str, at: tuple) -> tuple[str, ...]:
    """A seat's `ban:` list: option names of `ban_options(game)`, each at most once."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(b, str) for b in raw):
        _fail(where, at, f"must be a list of option names like [princess], got {_show(raw)}")
    known = ban_options(game) if game is not None else []
    for name in raw:
        if name not in known:
            _fail(where, at, f"{_show(name)}: " + _unknown(name, known, "option"))
    if len(set(raw)) != len(raw):
        _fail(where, at, "names an option twice")
    return tuple(raw)


# ---------------------------------------------------------------------------
# value, ladder, luck: the blocks of `sim value`, `sim ladder` and `sim luck`

VALUE_KEYS = ("options", "seat", "ablate", "games")
LADDER_KEYS = ("rungs", "games", "threshold", "skip")
LUCK_KEYS = ("rungs", "deals", "replays")


def ablation_cards(game: GameConfig) -> list[str]:
    """Card kinds of the deck with at least one copy: what `sim value` can remove one of."""
    deck = game.deck
    names = [f"box:{w}" for w, n in deck.boxes.items() if n > 0]
    names += ["princess"] * (deck.princesses > 0) + ["sprayer"] * (deck.sprayers > 0)
    return names + [f"toy:{k}" for k, n in deck.toys.items() if n > 0]


def _parse_value(raw: Any, game: GameConfig, where: str) -> dict[str, Any]:
    """value: {options: [...], seat: slot, ablate: [...] or true/false, games: N}."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        _fail(
            where, ("value",), f"must be a mapping like {{options: [princess]}}, got {_show(raw)}"
        )
    for key in raw:
        if key not in VALUE_KEYS:
            _fail(where, ("value", key), _unknown(key, VALUE_KEYS, "key"))
    out: dict[str, Any] = {}
    if "options" in raw:
        out["options"] = list(_parse_ban(raw["options"], game, where, ("value", "options")))
    if "seat" in raw:
        if not _is_int(raw["seat"]) or not 0 <= raw["seat"] < game.players:
            _fail(where, ("value", "seat"), f"must be a seat from 0 to {game.players - 1}")
        out["seat"] = raw["seat"]
    if "ablate" in raw:
        ablate = raw["ablate"]
        if isinstance(ablate, bool):
            out["ablate"] = ablate
        elif isinstance(ablate, list) and all(isinstance(c, str) for c in ablate):
            for name in ablate:
                if name not in ablation_cards(game):
                    cards = ablation_cards(game)
                    _fail(
                        where,
                        ("value", "ablate"),
                        f"{_show(name)}: " + _unknown(name, cards, "card"),
                    )
            out["ablate"] = list(ablate)
        else:
            _fail(
                where,
                ("value", "ablate"),
                f"must be true, false or card names, got {_show(ablate)}",
            )
    if "games" in raw:
        out["games"] = _block_count(raw["games"], where, ("value", "games"), MAX_GAMES)
    return out


def _block_count(value: Any, where: str, at: tuple, hi: int) -> int:
    if not _is_int(value) or not 1 <= value <= hi:
        _fail(where, at, f"must be an integer from 1 to {hi:,}, got {_show(value)}")
    return value


def _parse_rungs_block(
    raw: Any, name: str, keys: tuple[str, ...], where: str, folder: Any
) -> dict[str, Any]:
    """ladder: {rungs, games, threshold} / luck: {rungs, deals, replays}; rungs are seats
    ({policy: NAME, ...params, label: TEXT}) checked like the line-up's (no plug-ins)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        _fail(where, (name,), f"must be a mapping with keys {', '.join(keys)}, got {_show(raw)}")
    for key in raw:
        if key not in keys:
            _fail(where, (name, key), _unknown(key, keys, "key"))
    out: dict[str, Any] = {}
    if "rungs" in raw:
        rungs = raw["rungs"]
        if (
            not isinstance(rungs, list)
            or not rungs
            or not all(isinstance(r, Mapping) for r in rungs)
        ):
            _fail(where, (name, "rungs"), "must be a list of seats like {policy: greedy}")
        labels = []
        for i, rung in enumerate(rungs):
            at = (name, "rungs", i)
            label = rung.get("label")
            if label is not None and (not isinstance(label, str) or not label.strip()):
                _fail(where, (*at, "label"), f"must be a short text, got {_show(label)}")
            labels.append(label if label is not None else rung_label(_rung_seat(rung, where, at)))
        if len(set(labels)) != len(labels):
            _fail(where, (name, "rungs"), "two rungs share a label; give each a distinct 'label'")
        out["rungs"] = [copy.deepcopy(dict(r)) for r in rungs]
    if name == "ladder" and "rungs" in out and len(out["rungs"]) < 2:
        _fail(where, (name, "rungs"), "a ladder needs at least 2 rungs")
    for key, hi in (("games", MAX_GAMES), ("deals", MAX_GAMES), ("replays", MAX_REPLAYS)):
        if key in raw:
            out[key] = _block_count(raw[key], where, (name, key), hi)
    if "skip" in raw:
        if not isinstance(raw["skip"], bool):
            _fail(where, (name, "skip"), f"must be true or false, got {_show(raw['skip'])}")
        out["skip"] = raw["skip"]
    if "threshold" in raw:
        th = raw["threshold"]
        if not _is_number(th) or not 0.5 < th < 1:
            _fail(where, (name, "threshold"), f"must be a share between 0.5 and 1, got {_show(th)}")
        out["threshold"] = float(th)
    return out


def _rung_seat(rung: Mapping, where: str, at: tuple) -> SeatSpec:
    """A rung as a seat spec, checked like a line-up seat; built-in policies only."""
    policy = rung.get("policy")
    if not isinstance(policy, str) or not policy:
        _fail(where, (*at, "policy"), f"must be a policy name, got {_show(policy)}")
    if is_plugin(policy):
        _fail(where, (*at, "policy"), "rungs are built-in policies (compiled games)")
    params = {k: copy.deepcopy(v) for k, v in rung.items() if k not in ("policy", "label")}
    for key, value in params.items():
        _check_size(value, where, (*at, key))
    try:
        check_seat(policy, dict(params))
    except ValueError as exc:
        _fail(where, (*at, getattr(exc, "key", "policy")), str(exc))
    return SeatSpec(policy=policy, params=params)


def rung_seat(rung: Mapping) -> SeatSpec:
    """A validated rung of a `ladder:` or `luck:` block as a seat spec."""
    return _rung_seat(rung, "<rung>", ())


def rung_label(seat: SeatSpec) -> str:
    """A rung's default label: the seat label, plus a look-ahead's budget ('lookahead r8')."""
    keys = ("candidates", "rollouts", "horizon", "rollout_policy", "budget")
    extra = " ".join(f"{k[0]}{seat.params[k]}" for k in keys if k in seat.params)
    return f"{seat.label} {extra}" if extra else seat.label


def _seat_count_problem(n_seats: int, players: int) -> str:
    listed = "1 seat" if n_seats == 1 else f"{n_seats} seats"
    return f"{listed} listed but players is {players}; list exactly one seat per player"


def _parse_sweep(
    raw: Any, game: GameConfig, seats: tuple[SeatSpec, ...], where: str
) -> dict[str, tuple[Any, ...]]:
    """Check 1 or 2 dotted game settings -> value lists by validating every grid point."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        _fail(
            where,
            ("sweep",),
            f"must map settings to value lists like {{deck.sprayers: [0, 2]}}, got {_show(raw)}",
        )
    if not 1 <= len(raw) <= 2:
        _fail(where, ("sweep",), f"give 1 or 2 settings to sweep, got {len(raw)}")
    base = game.game_dict()
    out: dict[tuple[str, ...], tuple[Any, ...]] = {}
    for key, values in raw.items():
        if not isinstance(key, str):
            _fail(
                where,
                ("sweep",),
                f"setting names must be text like 'deck.sprayers', got {_show(key)}",
            )
        path = _resolve(base, key, where, ("sweep",))
        at = ("sweep", *path)
        for other in out:
            if other[: len(path)] == path or path[: len(other)] == other:
                _fail(where, at, f"overlaps {_join(other)!r}; sweep two separate settings")
        if not isinstance(values, list) or not values:
            _fail(where, at, f"must be a non-empty list of values, got {_show(values)}")
        points = len(values) * math.prod(len(v) for v in out.values())
        if points > MAX_SWEEP_POINTS:
            _fail(where, at, f"a sweep has at most {MAX_SWEEP_POINTS} points, this one {points}")
        clean: list[Any] = []
        for i, value in enumerate(values):
            resolved = _get(_sweep_game(base, {path: value}, where, (*at, i)).game_dict(), path)
            if resolved in clean:
                _fail(where, (*at, i), f"{_show(value)} is already in the list")
            clean.append(resolved)
        out[path] = tuple(clean)
    if len(out) == 2:
        (p1, v1), (p2, v2) = out.items()
        for a, b in itertools.product(v1, v2):
            _sweep_game(base, {p1: a, p2: b}, where, ("sweep",))
    if ("players",) in out and len(set(seats)) > 1:
        _fail(
            where,
            ("sweep", "players"),
            "sweeping players needs all seats alike (one line-up copied per player count)",
        )
    return {_join(path): vals for path, vals in out.items()}


def _sweep_game(
    base: dict, changes: dict[tuple[str, ...], Any], where: str, at: tuple
) -> GameConfig:
    """Validate base with `changes` applied; name the sweep entry `at` on failure."""
    data = copy.deepcopy(base)
    for path, value in changes.items():
        _set(data, path, copy.deepcopy(value))
    try:
        return GameConfig.model_validate(data)
    except ValidationError as exc:
        loc, problem = _explain(exc, GameConfig)
    if len(changes) == 1:
        ((path, value),) = changes.items()
        if loc[: len(path)] == path:  # the swept value itself is wrong
            _fail(where, at + loc[len(path) :], problem)
    point = " with ".join(f"{_join(p)}={_show(v)}" for p, v in changes.items())
    _fail(where, at, f"{point} gives an invalid game: {_fmt_path(loc) or 'game'}: {problem}")


def _parse_targets(raw: Any, where: str, root: tuple = ("targets",)) -> dict[str, Target]:
    """metric -> number, [lo, hi] or {value, within}; names from sim.metrics.TARGET_METRICS."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        _fail(
            where,
            root,
            f"must map metrics to a number, [lo, hi] or {{value, within}}, got {_show(raw)}",
        )
    out: dict[str, Target] = {}
    for metric, target in raw.items():
        at = (*root, metric)
        if metric not in TARGET_METRICS:
            _fail(where, at, _unknown(metric, TARGET_METRICS, "metric"))
        if _is_number(target):
            out[metric] = float(target)
        elif isinstance(target, list) and len(target) == 2 and all(map(_is_number, target)):
            lo, hi = float(target[0]), float(target[1])
            if lo > hi:
                _fail(where, at, f"range [lo, hi] needs lo <= hi, got {_show(target)}")
            out[metric] = (lo, hi)
        elif isinstance(target, Mapping):
            out[metric] = _equivalence_target(target, where, at)
        else:
            _fail(
                where,
                at,
                "must be a number, a range [lo, hi] or {value: v, within: m},"
                f" got {_show(target)}",
            )
    return out


def _equivalence_target(target: Mapping, where: str, at: tuple) -> dict[str, float]:
    """{value: v, within: m}: met when the whole interval lies within m of v."""
    for key in target:
        if key not in ("value", "within"):
            _fail(where, (*at, key), _unknown(key, ("value", "within"), "key"))
    for key in ("value", "within"):
        if key not in target:
            _fail(where, at, f"needs '{key}', e.g. {{value: 0, within: 0.01}}")
        if not _is_number(target[key]) or not math.isfinite(target[key]):
            _fail(where, (*at, key), f"must be a number, got {_show(target[key])}")
    if target["within"] <= 0:
        _fail(where, (*at, "within"), f"must be > 0, got {_show(target['within'])}")
    return {"value": float(target["value"]), "within": float(target["within"])}


def _parse_primary(raw: Any, where: str) -> str | None:
    """primary: one metric name, tested on its own at 5% in comparisons and sweeps."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        _fail(where, ("primary",), f"must be a metric name, got {_show(raw)}")
    try:
        registry_metric(raw)
    except ValueError as exc:
        _fail(where, ("primary",), str(exc))
    return raw


def _parse_report(raw: Any, where: str) -> str | None:
    """report: {path: str} -> the path (None when absent)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        _fail(
            where,
            ("report",),
            f"must be a mapping like {{path: reports/base.html}}, got {_show(raw)}",
        )
    for key in raw:
        if key != "path":
            _fail(where, ("report", key), _unknown(key, ("path",), "key"))
    path = raw.get("path")
    if not isinstance(path, str) or not path.strip():
        _fail(where, ("report", "path"), f"must be a file path, got {_show(path)}")
    return path


# ---------------------------------------------------------------------------
# tune: the search space, constraints, targets and budget of `sim tune`

TUNE_KEYS = ("space", "constraints", "targets", "budget")
TUNE_CONSTRAINTS = ("deck_size",)
# budget keys: total search games, games per candidate on the first racing rung, games per
# finalist in the confirmation on fresh seeds, finalists confirmed (besides the start).
TUNE_BUDGET = {"games": None, "first": 1000, "confirm": 10000, "finalists": 3}
_SPACE_SAMPLES = 256  # random points tried to show a space holds at least one valid game


def deck_size(game: dict) -> int:
    """Cards in the draw deck of a game dict: boxes, toys, sprayers and Princesses."""
    deck = game["deck"]
    return (
        sum(deck["boxes"].values())
        + sum(deck["toys"].values())
        + deck["sprayers"]
        + deck["princesses"]
    )


def tune_values(space: dict[str, Any]) -> dict[str, list[Any]]:
    """Every value each setting of a normalised tune space may take, in order."""
    return {
        path: list(range(spec[0], spec[1] + 1)) if isinstance(spec, list) else list(spec["choices"])
        for path, spec in space.items()
    }


def tune_game_problem(base: dict, tune: dict[str, Any], point: dict[str, Any]) -> str | None:
    """Why game settings `base` with the tune point applied are not a playable candidate
    (an invalid game, or outside a constraint), or None when they are."""
    data = copy.deepcopy(base)
    for path, value in point.items():
        _set(data, _resolve(base, path, "tune", ()), copy.deepcopy(value))
    try:
        game = GameConfig.model_validate(data).game_dict()
    except ValidationError as exc:
        loc, problem = _explain(exc, GameConfig)
        return f"{_fmt_path(loc) or 'game'}: {problem}"
    bounds = tune.get("constraints", {}).get("deck_size")
    if bounds is not None and not bounds[0] <= deck_size(game) <= bounds[1]:
        return f"deck size {deck_size(game)} is outside constraints.deck_size {list(bounds)}"
    return None


def _tune_yaml(tune: dict[str, Any]) -> dict[str, Any]:
    """A normalised tune block in its YAML form (ranges as lists)."""
    out = copy.deepcopy(tune)
    if "targets" in out:
        out["targets"] = {
            k: list(v) if isinstance(v, tuple) else v for k, v in out["targets"].items()
        }
    return out


def _parse_tune(
    raw: Any, game: GameConfig, seats: tuple[SeatSpec, ...], study_targets: Any, where: str
) -> dict[str, Any]:
    """tune: {space, constraints, targets, budget}, each mistake one line naming its key.

    The space maps dotted game settings to integer bounds [lo, hi] or {choices: [...]};
    targets default to the study's `targets:`; the budget is {games: N} plus optional
    `first`, `confirm` and `finalists` (TUNE_BUDGET).
    """
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        _fail(
            where, ("tune",), f"must be a mapping with space, targets and budget, got {_show(raw)}"
        )
    for key in raw:
        if key not in TUNE_KEYS:
            _fail(where, ("tune", key), _unknown(key, TUNE_KEYS, "key"))
    base = game.game_dict()
    out: dict[str, Any] = {"space": _parse_space(raw.get("space"), base, where)}
    if "players" in out["space"] and len(set(seats)) > 1:
        alike = "tuning players needs all seats alike (one line-up copied per player count)"
        _fail(where, ("tune", "space", "players"), alike)
    out["constraints"] = _parse_constraints(raw.get("constraints"), where)
    root = ("tune", "targets") if "targets" in raw else ("targets",)
    targets = raw.get("targets", study_targets)
    if not targets:
        _fail(where, ("tune", "targets"), "needs targets, e.g. {first_player_advantage: 0}")
    out["targets"] = _parse_targets(targets, where, root)
    out["budget"] = _parse_budget(raw.get("budget"), where)
    _space_has_a_game(base, out, where)
    return out


def _parse_space(raw: Any, base: dict, where: str) -> dict[str, Any]:
    """Dotted game setting -> [lo, hi] (integers, lo <= hi) or {choices: [...]}."""
    at = ("tune", "space")
    if not isinstance(raw, Mapping) or not raw:
        _fail(where, at, f"must map settings to [lo, hi] or {{choices: [...]}}, got {_show(raw)}")
    out: dict[str, Any] = {}
    for key, spec in raw.items():
        if not isinstance(key, str):
            _fail(where, at, f"setting names must be text like 'deck.sprayers', got {_show(key)}")
        path = _resolve(base, key, where, at)
        name, here = _join(path), (*at, *path)
        if name in out:
            _fail(where, here, "is listed twice")
        current = _get(base, path)
        if isinstance(current, dict):
            _fail(where, here, f"is a group of settings; tune its members, e.g. {name}.<key>")
        if isinstance(spec, list):
            if len(spec) != 2 or not all(_is_int(v) for v in spec):
                _fail(where, here, f"bounds must be two integers [lo, hi], got {_show(spec)}")
            if not _is_int(current):
                _fail(where, here, f"is not a count ({_show(current)}); give {{choices: [...]}}")
            if spec[0] > spec[1]:
                _fail(where, here, f"bounds reversed: {spec}; write [lo, hi] with lo <= hi")
            out[name] = list(spec)
        elif isinstance(spec, Mapping) and list(spec) == ["choices"]:
            choices = spec["choices"]
            if not isinstance(choices, list) or not choices:
                _fail(where, (*here, "choices"), f"must be a non-empty list, got {_show(choices)}")
            for value in choices:
                if not isinstance(value, str | int | float) or choices.count(value) > 1:
                    _fail(where, (*here, "choices"), f"{_show(value)}: choices are distinct "
                          "numbers or words")  # fmt: skip
            out[name] = {"choices": list(choices)}
        else:
            _fail(where, here, f"must be [lo, hi] or {{choices: [...]}}, got {_show(spec)}")
    return out


def _parse_constraints(raw: Any, where: str) -> dict[str, list[int]]:
    """constraints: {deck_size: [lo, hi]} (cards in the draw deck)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        _fail(where, ("tune", "constraints"), f"must be a mapping like {{deck_size: [50, 90]}}, "
              f"got {_show(raw)}")  # fmt: skip
    out = {}
    for key, bounds in raw.items():
        at = ("tune", "constraints", key)
        if key not in TUNE_CONSTRAINTS:
            _fail(where, at, _unknown(key, TUNE_CONSTRAINTS, "constraint"))
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(map(_is_int, bounds))):
            _fail(where, at, f"must be two integers [lo, hi], got {_show(bounds)}")
        if bounds[0] > bounds[1]:
            _fail(where, at, f"bounds reversed: {bounds}; write [lo, hi] with lo <= hi")
        out[key] = list(bounds)
    return out


def _parse_budget(raw: Any, where: str) -> dict[str, int]:
    """budget: {games: N, first: 1000, confirm: 10000, finalists: 3}; games can pay for one
    candidate's first rung."""
    at = ("tune", "budget")
    if not isinstance(raw, Mapping) or "games" not in raw:
        _fail(where, at, f"must be a mapping like {{games: 400000}}, got {_show(raw)}")
    out = dict(TUNE_BUDGET)
    for key, value in raw.items():
        if key not in TUNE_BUDGET:
            _fail(where, (*at, key), _unknown(key, tuple(TUNE_BUDGET), "key"))
        if not _is_int(value) or value < 1:
            _fail(where, (*at, key), f"must be an integer >= 1, got {_show(value)}")
        out[key] = value
    if out["games"] < out["first"]:
        _fail(where, (*at, "games"), f"{out['games']} games cannot evaluate one candidate, which "
              f"plays {out['first']} games on the first rung (budget.first)")  # fmt: skip
    return out


def _space_has_a_game(base: dict, tune: dict[str, Any], where: str) -> None:
    """Refuse a space all of whose points tried (its corners and random points) are invalid."""
    values = tune_values(tune["space"])
    rng = random.Random(0)
    points = [{p: v[0] for p, v in values.items()}, {p: v[-1] for p, v in values.items()}]
    points += [{p: rng.choice(v) for p, v in values.items()} for _ in range(_SPACE_SAMPLES)]
    first = None
    for point in points:
        problem = tune_game_problem(base, tune, point)
        if problem is None:
            return
        first = first or (point, problem)
    point, problem = first
    shown = ", ".join(f"{k}={_plain(v)}" for k, v in point.items())
    _fail(where, ("tune", "space"), f"gives only invalid games (e.g. {shown}: {problem})")


# ---------------------------------------------------------------------------
# Dotted paths into the YAML layout

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_]+")


def _fmt_path(loc: tuple) -> str:
    """('seats', 2, 'policy') -> 'seats[2].policy'; odd keys quoted: deck.boxes.''."""
    out = ""
    for seg in loc:
        if isinstance(seg, int) and not isinstance(seg, bool):
            out += f"[{seg}]"
        else:
            plain = isinstance(seg, str) and len(seg) <= 40 and _PLAIN_KEY.fullmatch(seg)
            text = seg if plain else _show(seg)
            out += f".{text}" if out else text
    return out


def _join(path: tuple[str, ...]) -> str:
    """The canonical dotted name of a game setting, as used for sweep keys."""
    return _fmt_path(path)


def _resolve(base: dict, dotted: str, where: str, prefix: tuple) -> tuple[str, ...]:
    """Turn 'deck.toys.yarn' into a key path that exists in the game dict `base`."""
    parts = [
        p[1:-1] if len(p) >= 2 and p[0] == p[-1] and p[0] in "'\"" else p for p in dotted.split(".")
    ]
    node: Any = base
    path: tuple[str, ...] = ()
    for part in parts:
        if not isinstance(node, dict):
            _fail(where, prefix + path, f"is a single setting; it has no {part!r}")
        if path == ("deck", "boxes"):
            part = _box_key(node, part, where, prefix + path)
        elif part not in node:
            here = (*prefix, *path, part)
            if not path and part in STUDY_KEYS:
                _fail(where, here, "not a game setting; sweep game settings such as deck.sprayers")
            close = difflib.get_close_matches(dotted, _all_paths(base), n=1)
            if close:
                _fail(where, here, f"unknown setting; did you mean {close[0]!r}?")
            valid = ", ".join(_join((*path, k)) for k in node)
            _fail(where, here, f"unknown setting; valid here: {valid}")
        path = (*path, part)
        node = node[part]
    return path


def _box_key(boxes: dict, text: str, where: str, at: tuple) -> str:
    """The deck.boxes key naming the same card as `text` (letters in any order)."""
    try:
        mask = _walls(text)
    except _Invalid as exc:
        _fail(where, at, exc.problem)
    for key in boxes:
        if parse_walls(key) == mask:
            return key
        if canonical(parse_walls(key)) == canonical(mask):
            _fail(
                where, (*at, text), f"is {key!r} turned by 180 degrees (R1.3); use deck.boxes.{key}"
            )
    _fail(
        where,
        (*at, text),
        "the deck has no such box card; add it to deck.boxes (count 0 is fine) to vary it",
    )


def _all_paths(node: dict, path: tuple[str, ...] = ()) -> list[str]:
    """Every dotted setting path in a game dict, mappings included."""
    out = []
    for key, value in node.items():
        out.append(_join((*path, key)))
        if isinstance(value, dict):
            out.extend(_all_paths(value, (*path, key)))
    return out


def _merged(old: Any, new: Any, merge: bool, at: tuple = ()) -> Any:
    """`new`, merged into `old` key by key when both are mappings and `merge` is on."""
    if merge and isinstance(old, Mapping) and isinstance(new, Mapping):
        return merge_settings(old, new, at)
    return new


def _get(data: dict, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: dict, path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


# ---------------------------------------------------------------------------
# Error lines


def _fail(where: str, loc: tuple, problem: str) -> NoReturn:
    """Raise the one-line ConfigError '<where>: <dotted.path>: <problem>'."""
    path = _fmt_path(loc)
    text = f"{where}: {path}: {problem}" if path else f"{where}: {problem}"
    raise ConfigError(" ".join(text.split()))


def _unknown(key: Any, valid: tuple[str, ...] | list[str], what: str) -> str:
    """'unknown key; did you mean ...?' or, when nothing is close, the valid names."""
    hint = _HINTS.get(key) if what == "key" else None
    if hint:
        return f"unknown key; {hint}"
    close = difflib.get_close_matches(str(key), list(valid), n=1)
    if close:
        return f"unknown {what}; did you mean {close[0]!r}?"
    return f"unknown {what}; valid {what}s: {', '.join(valid)}"


_HINTS = {
    "game": "game settings go at the top level (players: 4, deck: {...}), not under 'game'",
    "report_path": "write report: {path: ...}",
}


def _explain(exc: ValidationError, root: type[BaseModel]) -> tuple[tuple, str]:
    """The first pydantic error as (key path, human problem): no URLs, no [type=...]."""
    err = exc.errors()[0]
    loc, kind, ctx = tuple(err["loc"]), err["type"], err.get("ctx") or {}
    got = _show(err["input"])
    if loc and loc[-1] == "[key]":
        return loc[:-2], f"key {_show(loc[-2])} must be text"
    if kind == "value_error" and isinstance(ctx.get("error"), _Invalid):
        return loc + ctx["error"].at, ctx["error"].problem
    if kind == "extra_forbidden":
        model = _model_at(root, loc[:-1])
        return loc, _unknown(loc[-1], tuple(model.model_fields) if model else (), "key")
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


def _show(value: Any, limit: int = 50) -> str:
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


def _check_size(value: Any, where: str, at: tuple) -> None:
    """Refuse a value of more than MAX_VALUES values or MAX_DEPTH levels (a seat parameter
    reaches a plug-in, run.json and the config hash as it is)."""
    count, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_VALUES or depth > MAX_DEPTH:
            _fail(where, at, f"is larger than {MAX_VALUES:,} values or {MAX_DEPTH} levels deep")
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for kv in item.items() for v in kv)
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)


def _plain(value: Any) -> str:
    return _show(value).strip("'")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _canonical_json(data: Any) -> str:
    """Key-sorted compact JSON: the same text in every process."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)


# ---------------------------------------------------------------------------
# YAML


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last) and
    nesting deeper than MAX_DEPTH (composing is recursive)."""

    depth = 0

    def compose_node(self, parent, index):
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"nested more than {MAX_DEPTH} levels deep",
                    self.peek_event().start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=deep)
        try:
            first = seen.setdefault(key, key_node.start_mark.line)
        except TypeError:
            continue  # unhashable key: construct_mapping reports it
        if first != key_node.start_mark.line:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {_show(key)} (first given on line {first + 1})",
                key_node.start_mark,
            )
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes the empty key of the no-wall box card as `'': 6`, not as the
    complex-key form `? ''` / `: 6` PyYAML uses for every empty key."""

    def check_simple_key(self) -> bool:
        if isinstance(self.event, yaml.ScalarEvent) and self.event.value == "":
            if self.analysis is None:
                self.analysis = self.analyze_scalar(self.event.value)
            return True
        return super().check_simple_key()


def dump_yaml(data: Any) -> str:
    """A study mapping as YAML in its own key order, readable by `load_study`."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def _load_yaml(text: str, where: str) -> Any:
    """yaml load with syntax errors as one line that carries the line number; the document
    is measured before it is built, so an alias bomb is refused before it explodes."""
    loader = None
    try:
        loader = _Loader(text)  # its reader refuses control characters at once
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, where)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        at, problem = _yaml_problem(exc)
        raise ConfigError(" ".join(f"{where}: {at}invalid YAML: {problem}".split())) from None
    except ValueError:  # Python reads no whole number of more than 4300 digits
        raise ConfigError(f"{where}: a number is too long to read (over 4300 digits)") from None
    finally:
        if loader is not None:
            loader.dispose()


def _check_expansion(root: yaml.Node, where: str) -> None:
    """Refuse a document that expands to more than MAX_VALUES values, every alias counted as
    a copy of what it points to, or that contains itself. Each node is sized once."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being sized
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        kids = _kids(node)
        if children_done:
            open_.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(k)] for k in kids)
            if sizes[id(node)] > MAX_VALUES:
                mark = node.start_mark
                raise ConfigError(
                    f"{where}: line {mark.line + 1}: expands to more than {MAX_VALUES:,} values"
                    " (YAML aliases repeat what they point to); a study needs far fewer"
                )
        elif id(node) in open_:
            raise ConfigError(
                f"{where}: line {node.start_mark.line + 1}: a value contains itself (YAML alias)"
            )
        elif id(node) not in sizes:
            open_.add(id(node))
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in sizes)


def _kids(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _yaml_problem(exc: yaml.YAMLError) -> tuple[str, str]:
    """('line 3, column 5: ', problem) from a PyYAML error, whose str() spans lines."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return "", " ".join(str(exc).split())
    mark = exc.problem_mark or exc.context_mark
    at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    problem = exc.problem or exc.context or "unreadable"
    if exc.context and exc.problem:
        started = f" on line {exc.context_mark.line + 1}" if exc.context_mark else ""
        problem += f" ({exc.context}{started})"
    return at, problem
