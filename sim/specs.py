"""Policy specs: every built-in policy's name, code, parameters, presets and chunk size.

A leaf module (numpy and the standard library only): the config loader checks
seats against it, and the compiled policies read their parameter vectors by
the offsets named here, so neither needs the other. A designer's own class,
named `"package.module:Class"`, is imported by name when a config names it;
that runs the module's code.

`check_seat` raises `SeatError` (a ValueError) whose `key` names the seat key
at fault, so the config loader can point at `seats[i].policy` or
`seats[i].<param>`.
"""

from __future__ import annotations

import difflib
import importlib
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# ---------------------------------------------------------------- compiled policy codes

POLICY_RANDOM, POLICY_GREEDY, POLICY_HEURISTIC, POLICY_LOOKAHEAD = 0, 1, 2, 3
PLUGIN = -1  # the code of a seat played by a Python class

# ---------------------------------------------------------------- the parameter vector
# Every built-in seat gets one float vector: the heuristic's weights (FEATURES
# order), its temperature, then the look-ahead's budget.

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
N_PARAMS = N_FEATURES + 5

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


class SeatError(ValueError):
    """A seat spec is invalid; `key` is 'policy' or the offending parameter name."""

    def __init__(self, message: str, key: str = "policy") -> None:
        super().__init__(message)
        self.key = key


def _hint(word: str, choices: list[str]) -> str:
    """A 'did you mean' for a close match, else nothing."""
    close = difflib.get_close_matches(word, choices, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_heuristic(params: dict) -> None:
    preset = params.get("preset", "builder")
    if preset not in PRESETS:
        raise SeatError(
            f"unknown preset {preset!r}{_hint(str(preset), list(PRESETS))}"
            f" (known: {', '.join(PRESETS)})",
            key="preset",
        )
    weights = params.get("weights", {})
    if not isinstance(weights, dict):
        raise SeatError("weights must be a mapping of feature: number", key="weights")
    for name, value in weights.items():
        if name not in FEATURE_NAMES:
            raise SeatError(
                f"unknown feature {name!r}{_hint(str(name), list(FEATURE_NAMES))}"
                f" (features: {', '.join(FEATURE_NAMES)})",
                key="weights",
            )
        if not _number(value):
            raise SeatError(f"weight {name!r} must be a number, got {value!r}", key="weights")
    temperature = params.get("temperature", 0.0)
    if not _number(temperature) or temperature < 0:
        raise SeatError(f"must be a number >= 0, got {temperature!r}", key="temperature")


def _check_lookahead(params: dict) -> None:
    for key in ("candidates", "rollouts"):
        value = params.get(key, LOOKAHEAD_DEFAULTS[key])
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10_000:
            raise SeatError(f"must be an integer from 1 to 10000, got {value!r}", key=key)
    horizon = params.get("horizon", LOOKAHEAD_DEFAULTS["horizon"])
    if not isinstance(horizon, int) or isinstance(horizon, bool) or horizon < 0:
        raise SeatError(f"must be an integer >= 0 (0: to the end), got {horizon!r}", key="horizon")
    rollout = params.get("rollout_policy", LOOKAHEAD_DEFAULTS["rollout_policy"])
    if rollout not in ("random", "greedy"):
        raise SeatError(f"must be 'random' or 'greedy', got {rollout!r}", key="rollout_policy")


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


def _no_check(params: dict) -> None:
    """Policies without parameters have nothing to check beyond the names."""


def _zeros(params: dict) -> np.ndarray:
    return np.zeros(N_PARAMS, np.float64)


@dataclass(frozen=True)
class PolicySpec:
    """One built-in policy: what a config may write and how the compiled loop runs it.

    `chunk_games` is the runner's chunk size when this is a line-up's slowest
    policy: roughly a quarter of a second of one core's work, so a chunk's
    fixed costs (a task, four Parquet files) stay small while the progress
    bar still moves. Results never depend on it.
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
        PolicySpec("greedy", POLICY_GREEDY, frozenset(), 500),
        PolicySpec(
            "heuristic",
            POLICY_HEURISTIC,
            frozenset({"preset", "weights", "temperature"}),
            400,
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
    )
}
PLUGIN_CHUNK_GAMES = 10  # a designer's own policy, driven from Python


def is_plugin(policy: str) -> bool:
    """A designer's own policy class, written "package.module:Class"."""
    return ":" in policy


def load_plugin(policy: str) -> type:
    """Import a "package.module:Class" policy; SeatError when it cannot be used."""
    module_name, _, class_name = policy.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SeatError(f"cannot import {module_name!r} for policy {policy!r}: {exc}") from None
    cls = getattr(module, class_name, None)
    if cls is None or not callable(getattr(cls, "choose", None)):
        raise SeatError(
            f"{policy!r}: {module_name} has no class {class_name!r} with a choose() method"
        )
    return cls


def check_seat(policy: str, params: dict) -> None:
    """Reject an unknown policy name, a parameter it does not take, or a bad value."""
    if is_plugin(policy):
        load_plugin(policy)
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
