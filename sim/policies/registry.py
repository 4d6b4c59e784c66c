"""Policy names, their parameters, and how each seat is run.

`check_seat` is called when a config is loaded; it raises `SeatError` (a
ValueError) whose `key` names the seat key at fault, so the config loader can
point at `seats[i].policy` or `seats[i].<param>`. Built-in policies run as a
compiled code plus a parameter vector; a designer's own class, named
`"package.module:Class"`, runs from Python (see sim.policies.base).
"""

from __future__ import annotations

import difflib
import importlib
import numbers

import numpy as np

from sim.policies.dispatch import (
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
)
from sim.policies.heuristic import FEATURE_NAMES, N_PARAMS, PRESETS, heuristic_params
from sim.policies.lookahead import (
    P_CANDIDATES,
    P_HORIZON,
    P_ROLLOUT_POLICY,
    P_ROLLOUTS,
)

KNOWN: dict[str, set[str]] = {
    "random": set(),
    "greedy": set(),
    "heuristic": {"preset", "weights", "temperature"},
    "lookahead": {"candidates", "rollouts", "rollout_policy", "horizon"},
}
CODES: dict[str, int] = {
    "random": POLICY_RANDOM,
    "greedy": POLICY_GREEDY,
    "heuristic": POLICY_HEURISTIC,
    "lookahead": POLICY_LOOKAHEAD,
}
PLUGIN = -1  # the code of a seat played by a Python class
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
    names = sorted(KNOWN)
    if policy not in KNOWN:
        raise SeatError(
            f"unknown policy {policy!r}{_hint(policy, names)} (known: {', '.join(names)},"
            " or 'package.module:Class' for your own)"
        )
    allowed = sorted(KNOWN[policy])
    for key in params:
        if key not in KNOWN[policy]:
            takes = ", ".join(allowed) if allowed else "no parameters"
            raise SeatError(
                f"policy {policy!r} has no parameter {key!r}{_hint(str(key), allowed)}"
                f" (it takes {takes})",
                key=str(key),
            )
    if policy == "heuristic":
        _check_heuristic(params)
    if policy == "lookahead":
        _check_lookahead(params)


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


def policy_code(policy: str) -> int:
    """The compiled policy a seat's name runs as (PLUGIN for a Python class)."""
    return PLUGIN if is_plugin(policy) else CODES[policy]


def seat_params(policy: str, params: dict) -> np.ndarray:
    """The parameter vector a built-in policy reads (zeros for those without parameters)."""
    if policy == "heuristic":
        return heuristic_params(
            params.get("preset"), params.get("weights"), params.get("temperature", 0.0)
        )
    vec = np.zeros(N_PARAMS, np.float64)
    if policy == "lookahead":
        merged = {**LOOKAHEAD_DEFAULTS, **params}
        vec[P_CANDIDATES] = merged["candidates"]
        vec[P_ROLLOUTS] = merged["rollouts"]
        vec[P_ROLLOUT_POLICY] = CODES[merged["rollout_policy"]]
        vec[P_HORIZON] = merged["horizon"]
    return vec
