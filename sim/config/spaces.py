"""The spaces of game settings a study explores: the `sweep:` grid and the `tune:` space.

Every sweep point is validated as a game on load; a tune space is checked to hold at
least one valid game (its corners and a few hundred random points).
"""

from __future__ import annotations

import copy
import itertools
import math
import random
from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError, model_validator

from sim.config.blocks import parse_targets
from sim.config.keys import get_at, resolve, set_at
from sim.config.limits import MAX_SWEEP_POINTS, MAX_TUNE_RANGE, TUNE_BUDGET_LIMITS
from sim.config.messages import (
    check_block,
    explain,
    fail,
    fmt_path,
    is_int,
    join_path,
    plain,
    show,
    unknown,
)
from sim.config.models import Frozen, GameConfig, SeatSpec, Target


def parse_sweep(
    raw: Any, game: GameConfig, seats: tuple[SeatSpec, ...], where: str
) -> dict[str, tuple[Any, ...]]:
    """Check 1 or 2 dotted game settings -> value lists by validating every grid point."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        fail(
            where,
            ("sweep",),
            f"must map settings to value lists like {{deck.sprayers: [0, 2]}}, got {show(raw)}",
        )
    if not 1 <= len(raw) <= 2:
        fail(where, ("sweep",), f"give 1 or 2 settings to sweep, got {len(raw)}")
    base = game.game_dict()
    out: dict[tuple[str, ...], tuple[Any, ...]] = {}
    for key, values in raw.items():
        if not isinstance(key, str):
            fail(
                where,
                ("sweep",),
                f"setting names must be text like 'deck.sprayers', got {show(key)}",
            )
        path = resolve(base, key, where, ("sweep",))
        at = ("sweep", *path)
        for other in out:
            if other[: len(path)] == path or path[: len(other)] == other:
                fail(where, at, f"overlaps {join_path(other)!r}; sweep two separate settings")
        if not isinstance(values, list) or not values:
            fail(where, at, f"must be a non-empty list of values, got {show(values)}")
        points = len(values) * math.prod(len(v) for v in out.values())
        if points > MAX_SWEEP_POINTS:
            fail(where, at, f"a sweep has at most {MAX_SWEEP_POINTS} points, this one {points}")
        clean: list[Any] = []
        for i, value in enumerate(values):
            resolved = get_at(sweep_game(base, {path: value}, where, (*at, i)).game_dict(), path)
            if resolved in clean:
                fail(where, (*at, i), f"{show(value)} is already in the list")
            clean.append(resolved)
        out[path] = tuple(clean)
    if len(out) == 2:
        (p1, v1), (p2, v2) = out.items()
        for a, b in itertools.product(v1, v2):
            sweep_game(base, {p1: a, p2: b}, where, ("sweep",))
    if ("players",) in out and len(set(seats)) > 1:
        fail(
            where,
            ("sweep", "players"),
            "sweeping players needs all seats alike (one line-up copied per player count)",
        )
    return {join_path(path): vals for path, vals in out.items()}


def sweep_game(
    base: dict, changes: dict[tuple[str, ...], Any], where: str, at: tuple
) -> GameConfig:
    """Validate base with `changes` applied; name the sweep entry `at` on failure."""
    data = copy.deepcopy(base)
    for path, value in changes.items():
        set_at(data, path, copy.deepcopy(value))
    try:
        return GameConfig.model_validate(data)
    except ValidationError as exc:
        loc, problem = explain(exc, GameConfig)
    if len(changes) == 1:
        ((path, value),) = changes.items()
        if loc[: len(path)] == path:  # the swept value itself is wrong
            fail(where, at + loc[len(path) :], problem)
    point = " with ".join(f"{join_path(p)}={show(v)}" for p, v in changes.items())
    fail(where, at, f"{point} gives an invalid game: {fmt_path(loc) or 'game'}: {problem}")


TUNE_KEYS = ("space", "constraints", "targets", "budget")
TUNE_CONSTRAINTS = ("deck_size",)
_SPACE_SAMPLES = 256  # random points tried to show a space holds at least one valid game


class TuneBudget(Frozen):
    """tune.budget: every game `sim tune` may play (`games`: the start's check, the search,
    the selection and the confirmation together), games per candidate on the search's first
    racing rung, finalists replayed on fresh games to choose from and games each (`select`,
    default half of `confirm`), and games of the start's check and of the confirmation."""

    games: int = Field(ge=1)
    first: int = Field(1000, ge=1)
    confirm: int = Field(10000, ge=1)
    finalists: int = Field(3, ge=1)
    select: int = Field(ge=1)

    @model_validator(mode="before")
    @classmethod
    def _select_default(cls, data: Any) -> Any:
        """`select` defaults to half of `confirm` (declared here, once)."""
        if isinstance(data, Mapping) and "select" not in data:
            confirm = data.get("confirm", cls.model_fields["confirm"].default)
            data = {**data, "select": max(1, confirm // 2) if isinstance(confirm, int) else 1}
        return data

    def least(self) -> int:
        """The fewest games that pay for the start's check, the selection, the confirmation
        and one search candidate's first rung."""
        return self.confirm + self.finalists * self.select + self.confirm + self.first

    def too_small(self, games: int) -> str | None:
        """Why `games` cannot pay for a tune with these settings, or None."""
        if games >= self.least():
            return None
        return (
            f"{games:,} games is too small a budget: the start's check and the confirmation"
            f" ({self.confirm:,} games each, budget.confirm), the selection ({self.finalists} x"
            f" {self.select:,}, budget.finalists x budget.select) and one search candidate"
            f" ({self.first:,}, budget.first) need at least {self.least():,}"
        )


class TuneBlock(Frozen):
    """tune: the space `sim tune` searches, its constraints, targets and budget."""

    space: dict[str, Any]  # dotted game setting -> [lo, hi] or {"choices": [...]}
    constraints: dict[str, list[int]] = Field(default_factory=dict)  # {deck_size: [lo, hi]}
    targets: dict[str, Target]
    budget: TuneBudget

    def to_yaml(self) -> dict[str, Any]:
        """The block in its YAML form, every key written out (ranges as lists)."""
        return self.model_dump(mode="json")

    def values(self) -> dict[str, list[Any]]:
        """Every value each setting of the space may take, in order."""
        return tune_values(self.space)


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


def tune_game_problem(base: dict, tune: TuneBlock, point: dict[str, Any]) -> str | None:
    """Why game settings `base` with the tune point applied are not a playable candidate
    (an invalid game, or outside a constraint), or None when they are."""
    data = copy.deepcopy(base)
    for path, value in point.items():
        set_at(data, resolve(base, path, "tune", ()), copy.deepcopy(value))
    try:
        game = GameConfig.model_validate(data).game_dict()
    except ValidationError as exc:
        loc, problem = explain(exc, GameConfig)
        return f"{fmt_path(loc) or 'game'}: {problem}"
    bounds = tune.constraints.get("deck_size")
    if bounds is not None and not bounds[0] <= deck_size(game) <= bounds[1]:
        return f"deck size {deck_size(game)} is outside constraints.deck_size {list(bounds)}"
    return None


def parse_tune(
    raw: Any, game: GameConfig, seats: tuple[SeatSpec, ...], study_targets: Any, where: str
) -> TuneBlock | None:
    """tune: {space, constraints, targets, budget}, each mistake one line naming its key.

    The space maps dotted game settings to integer bounds [lo, hi] or {choices: [...]};
    targets default to the study's `targets:`; the budget is {games: N} plus optional
    `first`, `confirm` and `finalists` (TuneBudget).
    """
    if raw is None:
        return None
    check_block(raw, ("tune",), TUNE_KEYS, where, "a mapping with space, targets and budget")
    base = game.game_dict()
    out: dict[str, Any] = {"space": parse_space(raw.get("space"), base, where)}
    if "players" in out["space"] and len(set(seats)) > 1:
        alike = "tuning players needs all seats alike (one line-up copied per player count)"
        fail(where, ("tune", "space", "players"), alike)
    out["constraints"] = _parse_constraints(raw.get("constraints"), where)
    root = ("tune", "targets") if "targets" in raw else ("targets",)
    targets = raw.get("targets", study_targets)
    if not targets:
        fail(where, ("tune", "targets"), "needs targets, e.g. {first_player_advantage: 0}")
    out["targets"] = parse_targets(targets, where, root, game.players)
    out["budget"] = _parse_budget(raw.get("budget"), where)
    tune = TuneBlock(**out)
    _space_has_a_game(base, tune, where)
    return tune


def parse_space(
    raw: Any, base: dict, where: str, at: tuple[str, ...] = ("tune", "space")
) -> dict[str, Any]:
    """Dotted game setting -> [lo, hi] (integers, lo <= hi) or {choices: [...]}: `tune.space`,
    and `advise.space` (the settings a fix may move) in the same syntax."""
    if not isinstance(raw, Mapping) or not raw:
        fail(where, at, f"must map settings to [lo, hi] or {{choices: [...]}}, got {show(raw)}")
    out: dict[str, Any] = {}
    for key, spec in raw.items():
        if not isinstance(key, str):
            fail(where, at, f"setting names must be text like 'deck.sprayers', got {show(key)}")
        path = resolve(base, key, where, at)
        name, here = join_path(path), (*at, *path)
        if name in out:
            fail(where, here, "is listed twice")
        current = get_at(base, path)
        if isinstance(current, dict):
            fail(where, here, f"is a group of settings; tune its members, e.g. {name}.<key>")
        if isinstance(spec, list):
            if len(spec) != 2 or not all(is_int(v) for v in spec):
                fail(where, here, f"bounds must be two integers [lo, hi], got {show(spec)}")
            if not is_int(current):
                fail(where, here, f"is not a count ({show(current)}); give {{choices: [...]}}")
            if spec[0] > spec[1]:
                fail(where, here, f"bounds reversed: {spec}; write [lo, hi] with lo <= hi")
            check_tune_range(spec, where, here)
            out[name] = list(spec)
        elif isinstance(spec, Mapping) and list(spec) == ["choices"]:
            choices = spec["choices"]
            if not isinstance(choices, list) or not choices:
                fail(where, (*here, "choices"), f"must be a non-empty list, got {show(choices)}")
            for value in choices:
                if not isinstance(value, str | int | float) or choices.count(value) > 1:
                    fail(
                        where,
                        (*here, "choices"),
                        f"{show(value)}: choices are distinct numbers or words",
                    )
            out[name] = {"choices": list(choices)}
        else:
            fail(where, here, f"must be [lo, hi] or {{choices: [...]}}, got {show(spec)}")
    return out


def _parse_constraints(raw: Any, where: str) -> dict[str, list[int]]:
    """constraints: {deck_size: [lo, hi]} (cards in the draw deck)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        fail(
            where,
            ("tune", "constraints"),
            f"must be a mapping like {{deck_size: [50, 90]}}, got {show(raw)}",
        )
    out = {}
    for key, bounds in raw.items():
        at = ("tune", "constraints", key)
        if key not in TUNE_CONSTRAINTS:
            fail(where, at, unknown(key, TUNE_CONSTRAINTS, "constraint"))
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(map(is_int, bounds))):
            fail(where, at, f"must be two integers [lo, hi], got {show(bounds)}")
        if bounds[0] > bounds[1]:
            fail(where, at, f"bounds reversed: {bounds}; write [lo, hi] with lo <= hi")
        out[key] = list(bounds)
    return out


def _parse_budget(raw: Any, where: str) -> TuneBudget:
    """budget: {games: N, first: 1000, confirm: 10000, finalists: 3}."""
    at = ("tune", "budget")
    if not isinstance(raw, Mapping) or "games" not in raw:
        fail(where, at, f"must be a mapping like {{games: 400000}}, got {show(raw)}")
    keys = tuple(TuneBudget.model_fields)
    for key, value in raw.items():
        if key not in keys:
            fail(where, (*at, key), unknown(key, keys, "key"))
        check_budget_value(key, value, where, (*at, key))
    # whether `games` can pay for the checks is asked when the tune starts (sim.studies.tune
    # .plan), where a --budget on the command line replaces it
    return TuneBudget(**raw)


def check_tune_range(spec: list[int], where: str, at: tuple) -> None:
    """A tune range [lo, hi] spans at most MAX_TUNE_RANGE values (the tuner lists them):
    checked from its ends, never by listing it."""
    span = spec[1] - spec[0] + 1
    if span > MAX_TUNE_RANGE:
        fail(
            where,
            at,
            f"[{spec[0]}, {spec[1]}] spans {span:,} values; a tune range spans at"
            f" most {MAX_TUNE_RANGE:,}",
        )


def check_budget_value(key: str, value: Any, where: str, at: tuple) -> None:
    """A tune.budget value: an integer up to its bound (limits.TUNE_BUDGET_LIMITS), from 2
    for the games of one candidate's check (an interval needs two), else from 1."""
    hi = TUNE_BUDGET_LIMITS[key]
    lo = 2 if key in ("first", "select", "confirm") else 1
    if not is_int(value) or not lo <= value <= hi:
        fail(where, at, f"must be an integer from {lo} to {hi:,}, got {show(value)}")


def _space_value(spec: Any, rng: random.Random | None = None, end: int = 0) -> Any:
    """One value of a space entry without listing its values: drawn with `rng` (as
    rng.choice of the listed values would draw it), else its first (`end` 0) or last (-1)."""
    if isinstance(spec, list):
        lo, hi = spec
        return rng.randint(lo, hi) if rng is not None else (lo if end == 0 else hi)
    choices = spec["choices"]
    return rng.choice(choices) if rng is not None else choices[end]


def _space_has_a_game(base: dict, tune: TuneBlock, where: str) -> None:
    """Refuse a space all of whose points tried (its corners and random points) are invalid."""
    space = tune.space
    rng = random.Random(0)
    points = [{p: _space_value(v, end=end) for p, v in space.items()} for end in (0, -1)]
    points += [{p: _space_value(v, rng) for p, v in space.items()} for _ in range(_SPACE_SAMPLES)]
    first = None
    for point in points:
        problem = tune_game_problem(base, tune, point)
        if problem is None:
            return
        first = first or (point, problem)
    point, problem = first
    shown = ", ".join(f"{k}={plain(v)}" for k, v in point.items())
    fail(where, ("tune", "space"), f"gives only invalid games (e.g. {shown}: {problem})")
