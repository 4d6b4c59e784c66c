"""The study blocks that are not game settings: targets, primary, report, and the blocks of
`sim value`, `sim ladder` and `sim luck`, as typed models with their defaults declared once.

Each `parse_*` turns the block as written into its model (or plain value), every
mistake one line naming its key; a model remembers which keys were written
(`model_fields_set`), so a study writes back exactly what it was given.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field

from sim.config.calibrated import CALIBRATED, calibrated_seat
from sim.config.limits import MAX_GAMES, MAX_LABEL, MAX_REPLAYS, MIN_LUCK
from sim.config.messages import check_block, check_size, fail, is_int, is_number, show, unknown
from sim.config.models import Frozen, GameConfig, SeatSpec, Target, ablation_cards, ban_options
from sim.metrics import SAMPLED_TARGETS, TARGET_METRICS, is_target
from sim.metrics import metric as registry_metric
from sim.specs import check_seat, is_plugin

# The blocks of the study commands that do not change its games (out of the config hash).
BLOCKS = ("value", "ladder", "luck", "advise", "map")
# The overrides that turn a study into one point of another (its own blocks dropped).
NO_BLOCKS: dict[str, None] = {"sweep": None, "tune": None, **dict.fromkeys(BLOCKS)}

# ---------------------------------------------------------------- the blocks' models


class Block(Frozen):
    """A study block: its defaults are its fields'; `to_yaml` writes only the keys given."""

    def to_yaml(self) -> dict[str, Any]:
        """The block as written in the study (keys given, in their declared order)."""
        return self.model_dump(mode="json", exclude_unset=True)


class ValueBlock(Block):
    """value: what `sim value` restricts (one line-up slot) and ablates (one copy each)."""

    DEFAULT_GAMES: ClassVar[int] = 2000  # games per point: the study's games, at most this
    options: tuple[str, ...] | None = None  # None: every option of ban_options(game)
    seat: int = 0  # the restricted line-up slot
    ablate: bool | tuple[str, ...] = True  # True: every card kind in the deck; False: none
    games: int | None = Field(None, ge=2)  # games per point (an interval needs two)

    def point_games(self, study_games: int) -> int:
        """Games per point when --games does not say: `games`, else the study's, at most
        DEFAULT_GAMES."""
        return self.games or min(study_games, self.DEFAULT_GAMES)

    def option_names(self, game: GameConfig) -> list[str]:
        """The options to restrict, in order."""
        return list(self.options) if self.options is not None else ban_options(game)

    def cards(self, game: GameConfig) -> list[str]:
        """The card kinds to ablate, in order."""
        if self.ablate is True:
            return ablation_cards(game)
        return list(self.ablate or ())


# The default ladder: random, the heuristic presets, greedy, the look-ahead at doubling
# rollout budgets and ismcts, the strongest built-in player (at its default budget).
DEFAULT_RUNGS: tuple[dict[str, Any], ...] = (
    {"policy": "random"},
    {"policy": "heuristic", "preset": "sleeper"},
    {"policy": "heuristic", "preset": "spoiler"},
    {"policy": "heuristic", "preset": "builder"},
    {"policy": "greedy"},
    *({"policy": "lookahead", "rollouts": r} for r in (2, 4, 8)),
    {"policy": "ismcts"},
)


class LadderBlock(Block):
    """ladder: the rungs of `sim ladder`, games per match, the depth threshold, and whether
    each rung also plays the rung two below (a transitivity check)."""

    rungs: tuple[dict[str, Any], ...] | None = None  # None: DEFAULT_RUNGS
    games: int = Field(400, ge=1)  # games per match
    skip: bool = True
    threshold: float = 0.6  # a heads-up step counts for depth when its upper rung wins this

    def rung_list(self) -> list[dict[str, Any]]:
        """The rungs as written (or the default ladder), weakest first."""
        return [copy.deepcopy(dict(r)) for r in (self.rungs or DEFAULT_RUNGS)]


class LuckBlock(Block):
    """luck: the policies of `sim luck` (None: the line-up's distinct seats), deals, replays."""

    rungs: tuple[dict[str, Any], ...] | None = None
    deals: int = Field(200, ge=MIN_LUCK)
    replays: int = Field(10, ge=MIN_LUCK)


# The skill levels `sim advise` asks "is it fair?" at, every seat playing the level: the
# weakest player, the strongest one-ply player, and the weighted heuristic at its default
# weights (a player that plans a little). The search players are a hundred times slower
# per decision: name them in `advise.levels` when the wait is worth it.
DEFAULT_LEVELS: tuple[dict[str, Any], ...] = (
    {"policy": "random"},
    {"policy": "greedy"},
    {"policy": "heuristic"},
)


ADVISE_SHARPEN = 3  # a level with an unclear seat is played again on this many times the games
ADVISE_SET = 2  # changes confirmed at most (the start is confirmed beside them)
# the best finalists whose neighbours (the same count one copy further or nearer) join the
# selection: the screen's few games cannot tell "one Princess fewer" from "none"
ADVISE_NEIGHBOURS = 2


class AdviseBlock(Block):
    """advise: the skill levels of `sim advise`, and its games: per level for the diagnosis,
    per candidate fix screened (the best few get three times as many at every level),
    finalists replayed (`select` games each level) and the confirmation's (`confirm` each
    level); `budget` caps every game it plays."""

    levels: tuple[dict[str, Any], ...] | None = None  # None: DEFAULT_LEVELS
    # players like yours: the seat `sim calibrate` fitted to people's games, played as one
    # more level after the bots' (its verdicts are the ones the bots' are checked against)
    calibrated: dict[str, Any] | None = None
    games: int = Field(6000, ge=1)
    budget: int = Field(600_000, ge=1)
    screen: int = Field(1500, ge=1)
    finalists: int = Field(4, ge=1)
    select: int = Field(4000, ge=1)
    confirm: int = Field(6000, ge=1)
    # the settings a fix may move, in tune.space's syntax; None: every one-setting change
    space: dict[str, Any] | None = None

    def level_list(self) -> list[dict[str, Any]]:
        """The levels as written (or the default ones), weakest first, then the calibrated
        seat's (labelled, by default 'calibrated')."""
        out = [copy.deepcopy(dict(r)) for r in (self.levels or DEFAULT_LEVELS)]
        if self.calibrated is not None:
            out.append({**copy.deepcopy(self.calibrated), "label": self.people_label()})
        return out

    def people_label(self) -> str | None:
        """The label of the calibrated level (players like yours), None without one."""
        if self.calibrated is None:
            return None
        return str(self.calibrated.get("label") or CALIBRATED)

    def selected(self) -> int:
        """Changes the selection plays at most: the finalists and their neighbours."""
        return self.finalists + ADVISE_NEIGHBOURS

    def least(self) -> int:
        """The fewest games that pay for the diagnosis at every level, one screened
        candidate, the selection and one confirmation."""
        n = len(self.level_list())
        confirm = (min(ADVISE_SET, self.finalists) + 1) * self.confirm  # the set and the start
        return n * (
            self.games * ADVISE_SHARPEN + self.screen + self.selected() * self.select + confirm
        )

    def too_small(self, budget: int | None = None) -> str | None:
        """Why the budget (this block's, or `budget`) cannot pay for an advice, or None."""
        games = self.budget if budget is None else budget
        if games >= self.least():
            return None
        return (
            f"{games:,} games is too small a budget: the diagnosis (up to"
            f" {ADVISE_SHARPEN * self.games:,} games at each of {len(self.level_list())} levels),"
            f" one screened fix ({self.screen:,} each), the selection ({self.selected()} x"
            f" {self.select:,} each) and the confirmation ({min(ADVISE_SET, self.finalists) + 1}"
            f" x {self.confirm:,} each) need at least {self.least():,}"
        )


def parse_targets(
    raw: Any, where: str, root: tuple = ("targets",), players: int | None = None
) -> dict[str, Target]:
    """metric -> number, [lo, hi] or {value, within}; names from sim.metrics.TARGET_METRICS or
    a seat's edge, `seat_edge.seat<k>` (k below `players`)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        fail(
            where,
            root,
            f"must map metrics to a number, [lo, hi] or {{value, within}}, got {show(raw)}",
        )
    out: dict[str, Target] = {}
    for metric, target in raw.items():
        at = (*root, metric)
        if not is_target(str(metric)):
            fail(where, at, unknown(metric, TARGET_METRICS + SAMPLED_TARGETS, "metric"))
        seat = str(metric).removeprefix("seat_edge.seat")
        if players is not None and seat != metric and int(seat) >= players:
            fail(where, at, f"there are seats 0 to {players - 1} only")
        if is_number(target):
            out[metric] = float(target)
        elif isinstance(target, list) and len(target) == 2 and all(map(is_number, target)):
            lo, hi = float(target[0]), float(target[1])
            if lo > hi:
                fail(where, at, f"range [lo, hi] needs lo <= hi, got {show(target)}")
            out[metric] = (lo, hi)
        elif isinstance(target, Mapping):
            out[metric] = _equivalence_target(target, where, at)
        else:
            fail(
                where,
                at,
                "must be a number, a range [lo, hi] or {value: v, within: m},"
                f" got {show(target)}",
            )
    return out


def _equivalence_target(target: Mapping, where: str, at: tuple) -> dict[str, float]:
    """{value: v, within: m}: met when the whole interval lies within m of v."""
    for key in target:
        if key not in ("value", "within"):
            fail(where, (*at, key), unknown(key, ("value", "within"), "key"))
    for key in ("value", "within"):
        if key not in target:
            fail(where, at, f"needs '{key}', e.g. {{value: 0, within: 0.01}}")
        if not is_number(target[key]) or not math.isfinite(target[key]):
            fail(where, (*at, key), f"must be a number, got {show(target[key])}")
    if target["within"] <= 0:
        fail(where, (*at, "within"), f"must be > 0, got {show(target['within'])}")
    return {"value": float(target["value"]), "within": float(target["within"])}


def parse_primary(raw: Any, where: str) -> str | None:
    """primary: one metric name, tested on its own at 5% in comparisons and sweeps."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        fail(where, ("primary",), f"must be a metric name, got {show(raw)}")
    try:
        registry_metric(raw)
    except ValueError as exc:
        fail(where, ("primary",), str(exc))
    return raw


def parse_report(raw: Any, where: str) -> str | None:
    """report: {path: str} -> the path (None when absent)."""
    if raw is None:
        return None
    check_block(raw, ("report",), ("path",), where, "a mapping like {path: reports/base.html}")
    path = raw.get("path")
    if not isinstance(path, str) or not path.strip():
        fail(where, ("report", "path"), f"must be a file path, got {show(path)}")
    return path


def parse_ban(raw: Any, game: GameConfig | None, where: str, at: tuple) -> tuple[str, ...]:
    """A seat's `ban:` list: option names of `ban_options(game)`, each at most once."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(b, str) for b in raw):
        fail(where, at, f"must be a list of option names like [princess], got {show(raw)}")
    known = ban_options(game) if game is not None else []
    for name in raw:
        if name not in known:
            fail(where, at, f"{show(name)}: " + unknown(name, known, "option"))
    if len(set(raw)) != len(raw):
        fail(where, at, "names an option twice")
    return tuple(raw)


VALUE_KEYS = ("options", "seat", "ablate", "games")


LADDER_KEYS = ("rungs", "games", "threshold", "skip")


LUCK_KEYS = ("rungs", "deals", "replays")


def parse_value(raw: Any, game: GameConfig, where: str) -> ValueBlock | None:
    """value: {options: [...], seat: slot, ablate: [...] or true/false, games: N}."""
    if raw is None:
        return None
    check_block(raw, ("value",), VALUE_KEYS, where, "a mapping like {options: [princess]}")
    out: dict[str, Any] = {}
    if "options" in raw:
        out["options"] = parse_ban(raw["options"], game, where, ("value", "options"))
    if "seat" in raw:
        if not is_int(raw["seat"]) or not 0 <= raw["seat"] < game.players:
            fail(where, ("value", "seat"), f"must be a seat from 0 to {game.players - 1}")
        out["seat"] = raw["seat"]
    if "ablate" in raw:
        ablate = raw["ablate"]
        if isinstance(ablate, bool):
            out["ablate"] = ablate
        elif isinstance(ablate, list) and all(isinstance(c, str) for c in ablate):
            for name in ablate:
                if name not in ablation_cards(game):
                    cards = ablation_cards(game)
                    fail(
                        where,
                        ("value", "ablate"),
                        f"{show(name)}: " + unknown(name, cards, "card"),
                    )
            out["ablate"] = tuple(ablate)
        else:
            fail(
                where,
                ("value", "ablate"),
                f"must be true, false or card names, got {show(ablate)}",
            )
    if "games" in raw:
        # two games at least: an interval of one game is [–, –]
        out["games"] = _block_count(raw["games"], where, ("value", "games"), MAX_GAMES, lo=2)
    block = ValueBlock(**out)
    if not block.option_names(game) and not block.cards(game):  # nothing but the base point
        fail(
            where,
            ("value",),
            "nothing to measure: no option to restrict (options) and no"
            " card to remove (ablate); leave options out for all of them",
        )
    return block


def _block_count(value: Any, where: str, at: tuple, hi: int, lo: int = 1) -> int:
    if not is_int(value) or not lo <= value <= hi:
        fail(where, at, f"must be an integer from {lo} to {hi:,}, got {show(value)}")
    return value


def parse_rungs_block(raw: Any, name: str, where: str) -> LadderBlock | LuckBlock | None:
    """ladder: {rungs, games, threshold, skip} / luck: {rungs, deals, replays}; rungs are seats
    ({policy: NAME, ...params, label: TEXT}) checked like the line-up's (no plug-ins)."""
    model, keys = {"ladder": (LadderBlock, LADDER_KEYS), "luck": (LuckBlock, LUCK_KEYS)}[name]
    if raw is None:
        return None
    check_block(raw, (name,), keys, where, f"a mapping with keys {', '.join(keys)}")
    out: dict[str, Any] = {}
    if "rungs" in raw:
        out["rungs"] = _rung_list(raw["rungs"], (name, "rungs"), where)
    if name == "ladder" and "rungs" in out and len(out["rungs"]) < 2:
        fail(where, (name, "rungs"), "a ladder needs at least 2 rungs")
    for key, lo, hi in (
        ("games", 2, MAX_GAMES),  # a match's interval needs two games
        ("deals", MIN_LUCK, MAX_GAMES),  # a variance between deals needs two of them
        ("replays", MIN_LUCK, MAX_REPLAYS),  # ... and one within a deal two replays
    ):
        if key in raw:
            out[key] = _block_count(raw[key], where, (name, key), hi, lo)
    if name == "luck":
        fields = LuckBlock.model_fields
        deals = out.get("deals", fields["deals"].default)
        replays = out.get("replays", fields["replays"].default)
        if deals * replays > MAX_GAMES:
            fail(
                where,
                (name,),
                f"{deals:,} deals x {replays:,} replays is more than {MAX_GAMES:,} games",
            )
    if "skip" in raw:
        if not isinstance(raw["skip"], bool):
            fail(where, (name, "skip"), f"must be true or false, got {show(raw['skip'])}")
        out["skip"] = raw["skip"]
    if "threshold" in raw:
        th = raw["threshold"]
        if not is_number(th) or not 0.5 < th < 1:
            fail(where, (name, "threshold"), f"must be a share between 0.5 and 1, got {show(th)}")
        out["threshold"] = float(th)
    return model(**out)


def _rung_list(rungs: Any, at: tuple, where: str) -> tuple[dict[str, Any], ...]:
    """A list of rungs: seats ({policy: NAME, ...params, label: TEXT}) of built-in policies,
    checked like the line-up's, with distinct labels."""
    if not isinstance(rungs, list) or not rungs or not all(isinstance(r, Mapping) for r in rungs):
        fail(where, at, "must be a list of seats like {policy: greedy}")
    labels = []
    for i, rung in enumerate(rungs):
        label = rung.get("label")
        if label is not None:
            _check_label(label, where, (*at, i, "label"))
        seat = _rung_seat(rung, where, (*at, i))  # checked whether or not it has a label
        labels.append(label if label is not None else rung_label(seat))
    if len(set(labels)) != len(labels):
        fail(where, at, "two rungs share a label; give each a distinct 'label'")
    return tuple(copy.deepcopy(dict(r)) for r in rungs)


class MapBlock(Block):
    """map: the space `sim map` charts (tune.space's syntax: counts and choices), its design
    points (and those `refine` adds where a first fit is least sure), the games at each
    point and level, and the region's nearest points it confirms on fresh games (`confirm`
    games each level)."""

    space: dict[str, Any] | None = None
    points: int = Field(32, ge=4)
    refine: int = Field(8, ge=0)  # points added where a first fit is least sure near a band
    games: int = Field(2000, ge=2)
    nearest: int = Field(2, ge=0)
    confirm: int = Field(6000, ge=2)  # as advise.confirm: the same rule on as many games


def parse_map(raw: Any, where: str, space: dict[str, Any] | None = None) -> MapBlock | None:
    """map: {space, points, refine, games, nearest, confirm}; `space` comes checked against
    the game (`sim.config.spaces.parse_space`): counts with [lo, hi] bounds, or choices."""
    if raw is None:
        return None
    keys = tuple(MapBlock.model_fields)
    check_block(raw, ("map",), keys, where, f"a mapping with keys {', '.join(keys)}")
    out: dict[str, Any] = {}
    if space is not None:
        out["space"] = space
    limits = {
        "points": (4, 512),
        "refine": (0, 512),
        "games": (2, MAX_GAMES),
        "nearest": (0, 10),
        "confirm": (2, MAX_GAMES),
    }
    for key, (lo, hi) in limits.items():
        if key in raw:
            out[key] = _block_count(raw[key], where, ("map", key), hi, lo)
    return MapBlock(**out)


def parse_advise(raw: Any, where: str, space: dict[str, Any] | None = None) -> AdviseBlock | None:
    """advise: {levels, calibrated, games, budget, screen, finalists, select, confirm, space};
    levels are seats like ladder rungs (built-in policies, optional labels), at least one;
    `calibrated` is the path of a `calibrated.yaml` (`sim calibrate`), or the seat it holds;
    `space` comes checked against the game (`sim.config.spaces.parse_space`)."""
    if raw is None:
        return None
    keys = tuple(AdviseBlock.model_fields)
    check_block(raw, ("advise",), keys, where, f"a mapping with keys {', '.join(keys)}")
    out: dict[str, Any] = {}
    if "levels" in raw:
        out["levels"] = _rung_list(raw["levels"], ("advise", "levels"), where)
    if raw.get("calibrated") is not None:
        out["calibrated"] = _people_seat(raw["calibrated"], where, out.get("levels"))
    if space is not None:
        out["space"] = space
    for key in ("games", "budget", "screen", "finalists", "select", "confirm"):
        if key in raw:  # games a level or a change: an interval needs two (finalists: one)
            lo = 1 if key in ("finalists", "budget") else 2
            out[key] = _block_count(raw[key], where, ("advise", key), MAX_GAMES, lo)
    # whether the budget can pay is asked when the advice starts (sim.studies.advise.plan),
    # where a --budget on the command line replaces it
    return AdviseBlock(**out)


def _people_seat(raw: Any, where: str, levels: tuple | None) -> dict[str, Any]:
    """advise.calibrated: the seat of a calibrated.yaml (a path, read now) or the seat
    itself (a saved study's), checked like a level, its label unlike the bots'."""
    at = ("advise", CALIBRATED)
    if isinstance(raw, Mapping):
        seat = dict(raw)
    else:
        seat = calibrated_seat({CALIBRATED: raw}, None, where, ("advise",))
    if seat.get("policy") != "heuristic":
        fail(
            where,
            at,
            "must be a calibrated seat ({policy: heuristic, weights, temperature}),"
            " as sim calibrate writes it",
        )
    _rung_seat(seat, where, at)
    label = seat.get("label") or CALIBRATED
    taken = [
        r.get("label") or rung_label(_rung_seat(r, where, at)) for r in levels or DEFAULT_LEVELS
    ]
    if label in taken:
        fail(where, at, f"its label {label!r} is a bot level's too; give the seat another label")
    return seat


def _check_label(label: Any, where: str, at: tuple) -> None:
    """A rung's label: short plain text. It names the match's study (and so its files), so
    no '/' or '\\' and no control characters."""
    if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
        fail(where, at, f"must be a short text (1 to {MAX_LABEL} characters), got {show(label)}")
    if any(c in label for c in "/\\") or not label.isprintable():
        no = "no '/' or '\\', no control characters"
        fail(where, at, f"{show(label)}: a label names the match's files; {no}")


def _rung_seat(rung: Mapping, where: str, at: tuple) -> SeatSpec:
    """A rung as a seat spec, checked like a line-up seat; built-in policies only."""
    policy = rung.get("policy")
    if not isinstance(policy, str) or not policy:
        fail(where, (*at, "policy"), f"must be a policy name, got {show(policy)}")
    if is_plugin(policy):
        fail(where, (*at, "policy"), "rungs are built-in policies (compiled games)")
    params = {k: copy.deepcopy(v) for k, v in rung.items() if k not in ("policy", "label")}
    for key, value in params.items():
        check_size(value, where, (*at, key))
    try:
        check_seat(policy, dict(params))
    except ValueError as exc:
        fail(where, (*at, getattr(exc, "key", "policy")), str(exc))
    return SeatSpec(policy=policy, params=params)


def rung_seat(rung: Mapping) -> SeatSpec:
    """A validated rung of a `ladder:` or `luck:` block as a seat spec."""
    return _rung_seat(rung, "<rung>", ())


def rung_label(seat: SeatSpec) -> str:
    """A rung's default label: the seat label, plus a look-ahead's budget ('lookahead r8')."""
    keys = ("candidates", "rollouts", "horizon", "rollout_policy", "budget")
    extra = " ".join(f"{k[0]}{seat.params[k]}" for k in keys if k in seat.params)
    return f"{seat.label} {extra}" if extra else seat.label
