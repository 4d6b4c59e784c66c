"""A validated study: game settings, line-up, run size, and what to sweep, target and report.

`parse_study` validates a parsed study mapping (every mistake one ConfigError
line); `StudyConfig.with_overrides` re-validates a copy with dotted keys changed.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import math
import re
import sys
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator

from sim.config.blocks import (
    BLOCKS,
    AdviseBlock,
    LadderBlock,
    LuckBlock,
    MapBlock,
    ValueBlock,
    parse_advise,
    parse_ban,
    parse_map,
    parse_primary,
    parse_report,
    parse_rungs_block,
    parse_targets,
    parse_value,
)
from sim.config.calibrated import CALIBRATED, calibrated_seat, check_label
from sim.config.keys import get_at, merged, resolve, set_at
from sim.config.limits import (
    DEFAULT_PLUGIN_TIME_LIMIT,
    MAX_GAMES,
    MAX_NAME,
    MAX_PLUGIN_TIME_LIMIT,
    MAX_REPLAYS,
)
from sim.config.messages import (
    Invalid,
    canonical_json,
    check_size,
    explain,
    fail,
    is_int,
    is_number,
    show,
    unknown,
)
from sim.config.models import GAME_KEYS, STUDY_KEYS, Frozen, GameConfig, SeatSpec, Target
from sim.config.spaces import TuneBlock, parse_space, parse_sweep, parse_tune
from sim.guard.foreign import ForeignError, call_limited
from sim.specs import check_seat, is_plugin

HASH_IGNORES = (
    "name",
    "games",
    "targets",
    "primary",
    "report",
    "tune",
    *BLOCKS,
    "plugin_time_limit",  # a game that runs over it fails; none that finishes changes
)


class StudyConfig(Frozen):
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
    tune: TuneBlock | None = None
    replays: int = Field(0, ge=0, le=MAX_REPLAYS)
    value: ValueBlock = Field(default_factory=ValueBlock)
    ladder: LadderBlock = Field(default_factory=LadderBlock)
    luck: LuckBlock = Field(default_factory=LuckBlock)
    # seconds a plug-in policy's every call (its constructor, each choose) may take
    plugin_time_limit: float = Field(DEFAULT_PLUGIN_TIME_LIMIT, gt=0, le=MAX_PLUGIN_TIME_LIMIT)
    advise: AdviseBlock = Field(default_factory=AdviseBlock)
    map: MapBlock = Field(default_factory=MapBlock)
    source: str = "<memory>"
    folder: str | None = None  # where plug-in policies are also looked for (the config's folder)
    # The command line's `--set KEY=VALUE` changes, as given (`sim.config.load.apply_sets`):
    # like `source`, a record of where the study came from, not a setting (not in the YAML).
    sets: tuple[str, ...] = ()

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        """The name makes file names (runs/<name>-<time>/, reports/<name>.html): no folders."""
        if name in (".", "..") or any(c in name for c in "/\\") or not name.isprintable():
            raise Invalid(
                "must be a plain file name: no '/' or '\\', no control characters, not '.' or '..'"
            )
        return name

    @model_validator(mode="after")
    def _one_seat_per_player(self) -> StudyConfig:
        if len(self.seats) != self.game.players:
            raise Invalid(seat_count_problem(len(self.seats), self.game.players), ("seats",))
        points = math.prod(len(v) for v in self.sweep.values())
        if points * self.games > MAX_GAMES:
            raise Invalid(
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
        if self.tune is not None:
            out["tune"] = self.tune.to_yaml()
        if self.replays:
            out["replays"] = self.replays
        if self.plugin_time_limit != DEFAULT_PLUGIN_TIME_LIMIT:
            out["plugin_time_limit"] = self.plugin_time_limit
        for key in BLOCKS:  # written only with a key of their own
            if block := getattr(self, key).to_yaml():
                out[key] = block
        return out

    def config_hash(self) -> str:
        """sha256[:16] of the canonical JSON of to_yaml_dict() without HASH_IGNORES keys.

        name, games, targets and report are left out: renaming a study, running
        more games, moving the report or changing a target leaves every game's
        result the same.
        """
        data = {k: v for k, v in self.to_yaml_dict().items() if k not in HASH_IGNORES}
        return hashlib.sha256(canonical_json(data).encode("ascii")).hexdigest()[:16]

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
                fail(where, (top,), unknown(top, STUDY_KEYS + GAME_KEYS, "key"))
            if (
                top in ("sweep", "targets", "primary", "report", "tune", *BLOCKS)
                and not rest
                and value is None
            ):
                data.pop(top, None)
            elif top in STUDY_KEYS and not rest:
                data[top] = merged(data.get(top), value, merge)
            elif top in ("targets", "report") and "." not in rest:
                section = data.setdefault(top, {})
                if not isinstance(section, dict):
                    fail(where, (top,), f"is {show(section)}; set it whole")
                section[rest] = merged(section.get(rest), value, merge)
            elif top == "seats":
                index, _, param = rest.partition(".")
                if not index.isdigit() or not param or int(index) >= len(data["seats"]):
                    fail(
                        where,
                        ("seats",),
                        f"give seats.<0..{len(self.seats) - 1}>.<key>"
                        " (e.g. seats.0.policy) or the whole line-up",
                    )
                seat = data["seats"][int(index)]
                seat[param] = merged(seat.get(param), value, merge)
            elif top in STUDY_KEYS:
                fail(where, tuple(key.split(".")), f"set {top!r} as a whole")
            else:
                path = resolve(base, key, where, ())
                set_at(data, path, merged(get_at(data, path), value, merge, path))
        players = dotted.get("players")
        if "seats" not in dotted and is_int(players) and len(set(self.seats)) == 1:
            data["seats"] = [self.seats[0].to_dict() for _ in range(max(players, 0))]
        return _parse(data, self.source, where, folder=self.folder, sets=self.sets)

    def sweep_points(self) -> list[dict[str, Any]]:
        """Every sweep combination as {path: value}, in listing order ([{}] without a sweep).

        Run one with `study.with_overrides(sweep=None, **point)`.
        """
        paths = list(self.sweep)
        return [
            dict(zip(paths, combo, strict=True))
            for combo in itertools.product(*self.sweep.values())
        ]


def parse_study(
    data: Any,
    source: str,
    *,
    where: str | None = None,
    folder: str | None = None,
    plugins: bool = True,
    sets: tuple[str, ...] = (),
) -> StudyConfig:
    """Validate a parsed study mapping; `source` names it in errors and gives the default name.

    `where` names it in errors instead (a run.json holding a config that came from
    `source`); `folder` is where plug-in policies are also looked for (default: the
    folder of `source`). With `plugins=False` a plug-in seat is not imported (to read
    a finished run, whose report needs no player). `sets` records the `--set` changes
    the study was made with (a run.json's "sets").
    """
    return _parse(data, source, where or source, folder=folder, plugins=plugins, sets=sets)


def _parse(
    data: Any,
    source: str,
    where: str,
    *,
    folder: str | None = None,
    plugins: bool = True,
    sets: tuple[str, ...] = (),
) -> StudyConfig:
    """parse_study with `where` (the error prefix) separate from `source` (stored)."""
    if not isinstance(data, Mapping):
        fail(where, (), f"top level must be a mapping of settings (key: value), got {show(data)}")
    for key in data:
        if not isinstance(key, str):
            fail(where, (), f"setting names must be text, got {show(key)}")
        if key not in STUDY_KEYS and key not in GAME_KEYS:
            fail(where, (key,), unknown(key, STUDY_KEYS + GAME_KEYS, "key"))
    if folder is None and not source.startswith("<"):
        folder = str(Path(source).resolve().parent)
    game = _validate_game({k: data[k] for k in GAME_KEYS if k in data}, where)
    fields: dict[str, Any] = {
        k: data[k] for k in ("games", "seed", "rotate_seats", "replays") if k in data
    }
    if "plugin_time_limit" in data:  # first: a plug-in's import is held to it
        fields["plugin_time_limit"] = _time_limit(data["plugin_time_limit"], where)
    limit = fields.get("plugin_time_limit", DEFAULT_PLUGIN_TIME_LIMIT)
    seats = _parse_seats(
        data.get("seats"), game.players, where, folder if plugins else False, game, folder, limit
    )
    fields["name"] = data["name"] if "name" in data else Path(source).stem
    fields.update(
        game=game,
        seats=seats,
        sweep=parse_sweep(data.get("sweep"), game, seats, where),
        targets=parse_targets(data.get("targets"), where, players=game.players),
        primary=parse_primary(data.get("primary"), where),
        report_path=parse_report(data.get("report"), where),
        tune=parse_tune(data.get("tune"), game, seats, data.get("targets"), where),
        source=source,
        folder=folder,
        sets=tuple(str(x) for x in sets),
    )
    blocks = {
        "value": parse_value(data.get("value"), game, where),
        "ladder": parse_rungs_block(data.get("ladder"), "ladder", where),
        "luck": parse_rungs_block(data.get("luck"), "luck", where),
        "advise": parse_advise(data.get("advise"), where, _block_space(data, game, where)),
        "map": parse_map(data.get("map"), where, _block_space(data, game, where, "map")),
    }
    fields.update({k: v for k, v in blocks.items() if v is not None})
    try:
        return StudyConfig.model_validate(fields)
    except ValidationError as exc:
        fail(where, *explain(exc, StudyConfig))


def _block_space(
    data: dict[str, Any], game: GameConfig, where: str, block: str = "advise"
) -> dict[str, Any] | None:
    """advise.space or map.space, in tune.space's syntax (checked against the game)."""
    raw = data.get(block)
    if not isinstance(raw, dict) or raw.get("space") is None:
        return None
    return parse_space(raw["space"], game.game_dict(), where, (block, "space"))


def _time_limit(value: Any, where: str) -> float:
    """plugin_time_limit: seconds, a number above 0 and at most MAX_PLUGIN_TIME_LIMIT."""
    if not is_number(value) or not 0 < value <= MAX_PLUGIN_TIME_LIMIT:
        fail(
            where,
            ("plugin_time_limit",),
            f"must be a number of seconds above 0 and at most"
            f" {MAX_PLUGIN_TIME_LIMIT:g}, got {show(value)}",
        )
    return float(value)


def _validate_game(data: dict[str, Any], where: str) -> GameConfig:
    """GameConfig.model_validate with the first error as a ConfigError line."""
    try:
        return GameConfig.model_validate(data)
    except ValidationError as exc:
        fail(where, *explain(exc, GameConfig))


def _parse_seats(
    raw: Any,
    players: int,
    where: str,
    folder: str | None | bool = None,
    game: GameConfig | None = None,
    base: str | None = None,
    limit: float = DEFAULT_PLUGIN_TIME_LIMIT,
) -> tuple[SeatSpec, ...]:
    """One SeatSpec per player; default all random. Policy names are checked by sim.specs,
    which imports a plug-in (from `folder` too; within `limit` seconds, and said on stderr
    once), unless `folder` is False. A `{calibrated: FILE}` entry is the seat in FILE (read
    from `base`, the study's folder; `sim.config.calibrated`)."""
    if raw is None:
        return tuple(SeatSpec(policy="random") for _ in range(players))
    if not isinstance(raw, list):
        fail(where, ("seats",), f"must be a list of {{policy: NAME}} seats, got {show(raw)}")
    if len(raw) != players:
        fail(where, ("seats",), seat_count_problem(len(raw), players))
    seats = []
    for i, item in enumerate(raw):
        at = ("seats", i)
        if not isinstance(item, Mapping):
            fail(where, at, f"must be a mapping like {{policy: random}}, got {show(item)}")
        if CALIBRATED in item:
            item = calibrated_seat(item, base, where, at)
        if "policy" not in item:
            fail(where, at, "no 'policy'; every seat needs one, e.g. {policy: random}")
        policy = item["policy"]
        if not isinstance(policy, str) or not policy:
            fail(where, (*at, "policy"), f"must be a policy name, got {show(policy)}")
        for key, value in item.items():
            if not isinstance(key, str):
                fail(where, at, f"parameter names must be text, got {show(key)}")
            check_size(value, where, (*at, key))
        params = {
            k: copy.deepcopy(v) for k, v in item.items() if k not in ("policy", "ban", "label")
        }
        ban = parse_ban(item.get("ban"), game, where, (*at, "ban"))
        label = check_label(item["label"], where, (*at, "label")) if "label" in item else None
        try:
            if folder is False:
                if not is_plugin(policy):
                    check_seat(policy, dict(params))
            elif is_plugin(policy):  # foreign code: imported within the limit, and said
                call_limited(partial(check_seat, policy, dict(params), folder), limit, where)
                announce_plugin(policy, f"seats[{i}]")
            else:
                check_seat(policy, dict(params), folder)
        except ValueError as exc:
            fail(where, (*at, getattr(exc, "key", "policy")), str(exc))
        except ForeignError as exc:
            fail(where, (*at, "policy"), f"importing {show(policy)} {exc.problem}")
        seats.append(SeatSpec(policy=policy, params=params, ban=ban, custom_label=label))
    return tuple(seats)


_announced: set[str] = set()  # the plug-ins this process has said it runs


def announce_plugin(policy: str, seat: str) -> None:
    """Say once per process, on stderr, which module and file a plug-in seat runs: a
    config that names one is a program."""
    if policy in _announced:
        return
    _announced.add(policy)
    module_name = policy.partition(":")[0]
    module = sys.modules.get(module_name)
    where = getattr(module, "__file__", None) or "(no file: a built-in or namespace module)"
    print(
        f"plug-in: {seat} runs {policy} (module {module_name}, file {where}): its code runs"
        " with your permissions",
        file=sys.stderr,
        flush=True,
    )


def seat_count_problem(n_seats: int, players: int) -> str:
    listed = "1 seat" if n_seats == 1 else f"{n_seats} seats"
    return f"{listed} listed but players is {players}; list exactly one seat per player"
