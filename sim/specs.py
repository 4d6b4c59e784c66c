"""Policy specs: every built-in policy's name, code, parameters, presets and chunk size.

A leaf module (numpy and the standard library only): the config loader checks
seats against it, and the compiled policies read their parameter vectors by
the offsets named here, so neither needs the other. A designer's own class,
named `"package.module:Class"`, is imported by name when a config names it;
that runs the module's code (a config that names a plug-in is code to trust).
Whatever goes wrong while importing it becomes a `SeatError`, and its
parameters are checked against the class's constructor signature.

`check_seat` raises `SeatError` (a ValueError) whose `key` names the seat key
at fault, so the config loader can point at `seats[i].policy` or
`seats[i].<param>`.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import math
import numbers
import reprlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# ---------------------------------------------------------------- compiled policy codes

POLICY_RANDOM, POLICY_GREEDY, POLICY_HEURISTIC, POLICY_LOOKAHEAD, POLICY_ISMCTS = 0, 1, 2, 3, 4
PLUGIN = -1  # the code of a seat played by a Python class

# ---------------------------------------------------------------- the parameter vector
# Every built-in seat gets one float vector: the heuristic's weights (FEATURES
# order), its temperature, then the search players' budgets (lookahead and
# ismcts share candidates, rollout_policy and horizon), then the seat's banned options.

# Heuristic feature names, in the order of the weight vector, with what each measures.
FEATURES: dict[str, str] = {
    "own_points": "change in the seat's own score (box points it leads, plus the cat bonus)",
    "rival_points": "change in the score of the rival now ahead (highest current score)",
    "others_points": "mean change in the other seats' scores",
    "closes_own_box": "boxes the seat leads that the action closes, doubling them (R8.4)",
    "feeds_rival_box": "1 if the card joins a box a rival leads and the seat does not",
    "cat_used": "1 when an awake cat is placed (a negative weight keeps cats for later)",
    "sleeping_used": "1 for the sleeping-cat action (claims a box early, costs a draw)",
    "sprayer_on_rival": "1 when a drawn sprayer lands in a box a rival leads and the seat does not",
    "princess_swing": "for a Princess: own score change minus the best rival's change",
    "toy_to_own": "1 when a drawn toy lands in a box the seat leads",
}
FEATURE_NAMES = tuple(FEATURES)
N_FEATURES = len(FEATURES)
(
    FEAT_OWN_POINTS,
    FEAT_RIVAL_POINTS,
    FEAT_OTHERS_POINTS,
    FEAT_CLOSES_OWN_BOX,
    FEAT_FEEDS_RIVAL_BOX,
    FEAT_CAT_USED,
    FEAT_SLEEPING_USED,
    FEAT_SPRAYER_ON_RIVAL,
    FEAT_PRINCESS_SWING,
    FEAT_TOY_TO_OWN,
) = range(N_FEATURES)
P_TEMPERATURE = N_FEATURES
P_CANDIDATES = N_FEATURES + 1
P_ROLLOUTS = N_FEATURES + 2
P_ROLLOUT_POLICY = N_FEATURES + 3
P_HORIZON = N_FEATURES + 4
P_BUDGET = N_FEATURES + 5  # ismcts: iterations per decision
P_EXPLORATION = N_FEATURES + 6  # ismcts: the UCB constant c
P_BAN = N_FEATURES + 7  # restricted play: the options this seat may not use (BAN_* bits)
N_PARAMS = N_FEATURES + 8

# Restricted play (`sim value`, a seat's `ban:`): the bits of a seat's P_BAN word. A banned
# option is used only when every legal action is banned (a fallback, counted by the study).
BAN_SLEEPING = 1  # the sleeping-cat action (R3.2)
BAN_CAT = 2  # the optional awake cat after a box card (R3.1.3)
BAN_CARD_SHIFT = 2  # bit BAN_CARD_SHIFT + t: playing card type t (a box kind or the Princess)
MAX_BAN_TYPE = 50  # type indices a ban can name: the word is stored exactly in a float64

# The kinds of player the heuristic presets stand for; every weight not listed is 0.
PRESETS: dict[str, dict[str, float]] = {
    # Builds and closes its own boxes, feeds them toys, avoids helping rivals.
    "builder": {
        "own_points": 1.0,
        "rival_points": -0.3,
        "closes_own_box": 1.5,
        "feeds_rival_box": -1.0,
        "cat_used": 0.3,
        "sleeping_used": -0.5,
        "toy_to_own": 0.5,
    },
    # Plays against whoever is ahead: sprayers and the Princess on the leader.
    "spoiler": {
        "own_points": 0.6,
        "rival_points": -1.5,
        "others_points": -0.3,
        "sprayer_on_rival": 1.5,
        "princess_swing": 1.0,
        "feeds_rival_box": -0.3,
        "sleeping_used": -0.5,
    },
    # Claims boxes early with sleeping cats, then builds.
    "sleeper": {
        "own_points": 1.0,
        "rival_points": -0.3,
        "sleeping_used": 2.0,
        "cat_used": 0.2,
        "closes_own_box": 0.5,
    },
}
LOOKAHEAD_DEFAULTS = {"candidates": 4, "rollouts": 8, "rollout_policy": "greedy", "horizon": 4}
# budget 26 costs about what lookahead's defaults cost per decision (4 x 8 playouts):
# an iteration costs a little more than a playout (it ranks the actions at each tree node).
ISMCTS_DEFAULTS = {
    "budget": 26,
    "c": 0.7,
    "candidates": 6,
    "rollout_policy": "greedy",
    "horizon": 4,
}
# Upper bounds of the numbers a seat may carry: finite, and small enough that the
# compiled policies never overflow (a softmax over weighted score changes, turn counts).
MAX_WEIGHT = 1e6
MAX_TEMPERATURE = 1e6
MAX_BUDGET = 10_000  # look-ahead candidates, rollouts and horizon; ismcts budget
MAX_EXPLORATION = 100.0  # ismcts c (rollout values are a few units: 0.25 per point of lead)
_SHORT = reprlib.Repr()  # error messages show a user's value cut short
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 2, 40, 40


class SeatError(ValueError):
    """A seat spec is invalid; `key` is 'policy' or the offending parameter name."""

    def __init__(self, message: str, key: str = "policy") -> None:
        super().__init__(message)
        self.key = key


def _hint(word: str, choices: list[str]) -> str:
    """A 'did you mean' for a close match, else nothing."""
    close = difflib.get_close_matches(word, choices, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _short(value) -> str:
    """repr of a user's value, cut short as it is built (a value may be huge)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    return _SHORT.repr(value)


def _number(value, limit: float) -> bool:
    """A real number, finite and at most `limit` in size."""
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and abs(value) <= limit
    )


def _count(value, lo: int, hi: int) -> bool:
    """An integer from lo to hi."""
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def _check_heuristic(params: dict) -> None:
    preset = params.get("preset", "builder")
    if not isinstance(preset, str) or preset not in PRESETS:
        hint = _hint(preset, list(PRESETS)) if isinstance(preset, str) else ""
        raise SeatError(
            f"unknown preset {_short(preset)}{hint} (known: {', '.join(PRESETS)})", key="preset"
        )
    weights = params.get("weights", {})
    if not isinstance(weights, dict):
        raise SeatError("weights must be a mapping of feature: number", key="weights")
    for name, value in weights.items():
        if not isinstance(name, str) or name not in FEATURE_NAMES:
            hint = _hint(name, list(FEATURE_NAMES)) if isinstance(name, str) else ""
            raise SeatError(
                f"unknown feature {_short(name)}{hint} (features: {', '.join(FEATURE_NAMES)})",
                key="weights",
            )
        if not _number(value, MAX_WEIGHT):
            raise SeatError(
                f"weight {name!r} must be a number from -{MAX_WEIGHT:g} to"
                f" {MAX_WEIGHT:g}, got {_short(value)}",
                key="weights",
            )
    temperature = params.get("temperature", 0.0)
    if not _number(temperature, MAX_TEMPERATURE) or temperature < 0:
        raise SeatError(
            f"must be a number from 0 to {MAX_TEMPERATURE:g}, got {_short(temperature)}",
            key="temperature",
        )


def _check_search(params: dict, defaults: dict, counts: tuple[str, ...]) -> None:
    """The budget keys shared by the search players: counts from 1, horizon, rollout policy."""
    for key in counts:
        value = params.get(key, defaults[key])
        if not _count(value, 1, MAX_BUDGET):
            raise SeatError(
                f"must be an integer from 1 to {MAX_BUDGET}, got {_short(value)}", key=key
            )
    horizon = params.get("horizon", defaults["horizon"])
    if not _count(horizon, 0, MAX_BUDGET):
        raise SeatError(
            f"must be an integer from 0 to {MAX_BUDGET} (0: to the end), got {_short(horizon)}",
            key="horizon",
        )
    rollout = params.get("rollout_policy", defaults["rollout_policy"])
    if not isinstance(rollout, str) or rollout not in ("random", "greedy"):
        raise SeatError(
            f"must be 'random' or 'greedy', got {_short(rollout)}", key="rollout_policy"
        )


def _check_lookahead(params: dict) -> None:
    _check_search(params, LOOKAHEAD_DEFAULTS, ("candidates", "rollouts"))


def _check_ismcts(params: dict) -> None:
    _check_search(params, ISMCTS_DEFAULTS, ("budget", "candidates"))
    c = params.get("c", ISMCTS_DEFAULTS["c"])
    if not _number(c, MAX_EXPLORATION) or c < 0:
        raise SeatError(f"must be a number from 0 to {MAX_EXPLORATION:g}, got {_short(c)}", key="c")


def heuristic_params(
    preset: str | None = None, weights: dict | None = None, temperature: float = 0.0
) -> np.ndarray:
    """The parameter vector of a heuristic seat: a preset's weights, overridden, and temperature."""
    vec = np.zeros(N_PARAMS, np.float64)
    chosen = dict(PRESETS[preset or "builder"])
    chosen.update(weights or {})
    for name, value in chosen.items():
        vec[FEATURE_NAMES.index(name)] = float(value)
    vec[P_TEMPERATURE] = float(temperature)
    return vec


def _heuristic_vector(params: dict) -> np.ndarray:
    return heuristic_params(
        params.get("preset"), params.get("weights"), params.get("temperature", 0.0)
    )


def _lookahead_vector(params: dict) -> np.ndarray:
    merged = {**LOOKAHEAD_DEFAULTS, **params}
    vec = np.zeros(N_PARAMS, np.float64)
    vec[P_CANDIDATES] = merged["candidates"]
    vec[P_ROLLOUTS] = merged["rollouts"]
    vec[P_ROLLOUT_POLICY] = POLICIES[merged["rollout_policy"]].code
    vec[P_HORIZON] = merged["horizon"]
    return vec


def _ismcts_vector(params: dict) -> np.ndarray:
    merged = {**ISMCTS_DEFAULTS, **params}
    vec = np.zeros(N_PARAMS, np.float64)
    vec[P_BUDGET] = merged["budget"]
    vec[P_EXPLORATION] = merged["c"]
    vec[P_CANDIDATES] = merged["candidates"]
    vec[P_ROLLOUT_POLICY] = POLICIES[merged["rollout_policy"]].code
    vec[P_HORIZON] = merged["horizon"]
    return vec


def _no_check(params: dict) -> None:
    """Policies without parameters have nothing to check beyond the names."""


def _zeros(params: dict) -> np.ndarray:
    return np.zeros(N_PARAMS, np.float64)


@dataclass(frozen=True)
class PolicySpec:
    """One built-in policy: what a config may write and how the compiled loop runs it.

    `chunk_games` is the runner's chunk size when this is a line-up's slowest
    policy, so that a chunk's fixed costs (a task, four Parquet files and their
    metadata, about 33 kB, its moments) stay small in time and on disk while the
    progress bar still moves. Measured with `sim bench --policies` (4 players,
    one core): 2,500 heuristic games take about a second, 4,000 greedy ones
    about 0.65 s; random's 4,000 take 0.1 s, but its finishing (tables,
    moments, Parquet) costs about half its play, so larger chunks would
    lengthen the last chunk's tail, which no play overlaps; 10 games (about
    0.25 s) for the search players. Small runs are cut finer
    (`sim.runs.orchestrate.chunk_games`). Results never depend on it.
    """

    name: str
    code: int
    params: frozenset[str]
    chunk_games: int
    check: Callable[[dict], None] = field(default=_no_check, repr=False)
    vector: Callable[[dict], np.ndarray] = field(default=_zeros, repr=False)


POLICIES: dict[str, PolicySpec] = {
    spec.name: spec
    for spec in (
        PolicySpec("random", POLICY_RANDOM, frozenset(), 4000),
        PolicySpec("greedy", POLICY_GREEDY, frozenset(), 4000),
        PolicySpec(
            "heuristic",
            POLICY_HEURISTIC,
            frozenset({"preset", "weights", "temperature"}),
            2500,
            _check_heuristic,
            _heuristic_vector,
        ),
        PolicySpec(
            "lookahead",
            POLICY_LOOKAHEAD,
            frozenset(LOOKAHEAD_DEFAULTS),
            10,
            _check_lookahead,
            _lookahead_vector,
        ),
        PolicySpec(
            "ismcts",
            POLICY_ISMCTS,
            frozenset(ISMCTS_DEFAULTS),
            10,
            _check_ismcts,
            _ismcts_vector,
        ),
    )
}
PLUGIN_CHUNK_GAMES = 10  # a designer's own policy, driven from Python


def is_plugin(policy: str) -> bool:
    """A designer's own policy class, written "package.module:Class"."""
    return ":" in policy


def load_plugin(policy: str, folder: str | Path | None = None) -> type:
    """Import a "package.module:Class" policy; SeatError when it cannot be used.

    `folder` (the folder of the config that names it) is added to the end of the
    import path, so a module beside the config imports wherever `sim` runs. Any
    failure of the module's own code (a syntax error, an exception at import) is
    reported, not raised through: the module is foreign code.
    """
    module_name, _, class_name = policy.partition(":")
    dotted = module_name.split(".")
    if len(policy) > 200 or not all(p.isidentifier() for p in (*dotted, class_name)):
        raise SeatError(
            f"policy {_short(policy)} must be written 'package.module:Class' (Python names)"
        )
    if folder is not None and str(folder) not in sys.path:
        sys.path.append(str(folder))
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:
        raise SeatError(
            f"cannot import {module_name!r} for policy {policy!r}: {_problem(exc)}"
        ) from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type) or not callable(getattr(cls, "choose", None)):
        raise SeatError(
            f"{policy!r}: {module_name} has no class {class_name!r} with a choose() method"
        )
    return cls


def _problem(exc: BaseException) -> str:
    """An exception from a plug-in's code as one short line: 'SyntaxError at m.py:3: ...'."""
    if isinstance(exc, SyntaxError):
        where = f" at {Path(exc.filename or '?').name}:{exc.lineno}"
        return f"SyntaxError{where}: {exc.msg}"
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _check_plugin_params(policy: str, cls: type, params: dict) -> None:
    """A plug-in's parameters must fit its constructor: no unknown name, none missing."""
    try:
        sig = inspect.signature(cls)
    except Exception:  # no signature to read (a C type, odd metaclass): the constructor will say
        return
    taken = sig.parameters
    if not any(p.kind is p.VAR_KEYWORD for p in taken.values()):
        names = sorted(
            n for n, p in taken.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        )
        for key in params:
            if key not in names:
                takes = ", ".join(names) if names else "no parameters"
                raise SeatError(
                    f"{policy}: {cls.__name__}() has no parameter {_short(key)}"
                    f"{_hint(str(key), names)} (it takes {takes})",
                    key=str(key),
                )
    for name, p in taken.items():
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            if name not in params:
                raise SeatError(f"{policy}: {cls.__name__}() needs the parameter {name!r}")
        elif p.default is p.empty and p.kind is p.POSITIONAL_ONLY:
            raise SeatError(f"{policy}: {cls.__name__}() needs a positional argument {name!r}")


def check_seat(policy: str, params: dict, folder: str | Path | None = None) -> None:
    """Reject an unknown policy name, a parameter it does not take, or a bad value.

    A plug-in is imported (from `folder` too, see `load_plugin`) and its parameters
    are checked against its constructor's signature.
    """
    if is_plugin(policy):
        _check_plugin_params(policy, load_plugin(policy, folder), params)
        return
    names = sorted(POLICIES)
    spec = POLICIES.get(policy)
    if spec is None:
        raise SeatError(
            f"unknown policy {policy!r}{_hint(policy, names)} (known: {', '.join(names)},"
            " or 'package.module:Class' for your own)"
        )
    allowed = sorted(spec.params)
    for key in params:
        if key not in spec.params:
            takes = ", ".join(allowed) if allowed else "no parameters"
            raise SeatError(
                f"policy {policy!r} has no parameter {key!r}{_hint(str(key), allowed)}"
                f" (it takes {takes})",
                key=str(key),
            )
    spec.check(params)


def policy_code(policy: str) -> int:
    """The compiled policy a seat's name runs as (PLUGIN for a Python class)."""
    return PLUGIN if is_plugin(policy) else POLICIES[policy].code


def seat_params(policy: str, params: dict) -> np.ndarray:
    """The parameter vector a built-in policy reads (zeros for those without parameters)."""
    return _zeros(params) if is_plugin(policy) else POLICIES[policy].vector(params)


def chunk_games(policy: str) -> int:
    """Games per chunk when `policy` is the slowest seat of a line-up."""
    return PLUGIN_CHUNK_GAMES if is_plugin(policy) else POLICIES[policy].chunk_games
