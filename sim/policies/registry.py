"""Policy names, their parameters, and the compiled code each built-in runs as.

`KNOWN` maps each policy name to the parameter names it accepts; `check_seat`
raises `SeatError` (a ValueError) whose `key` names the seat key at fault, so
the config loader can point at `seats[i].policy` or `seats[i].<param>`.
"""

from __future__ import annotations

import difflib

from sim.policies.compiled import POLICY_GREEDY, POLICY_RANDOM

KNOWN: dict[str, set[str]] = {"random": set(), "greedy": set()}
CODES: dict[str, int] = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY}


class SeatError(ValueError):
    """A seat spec is invalid; `key` is 'policy' or the offending parameter name."""

    def __init__(self, message: str, key: str = "policy") -> None:
        super().__init__(message)
        self.key = key


def _hint(word: str, choices: list[str]) -> str:
    """A 'did you mean' for a close match, else nothing."""
    close = difflib.get_close_matches(word, choices, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_seat(policy: str, params: dict) -> None:
    """Reject an unknown policy name or a parameter the policy does not take."""
    names = sorted(KNOWN)
    if policy not in KNOWN:
        raise SeatError(
            f"unknown policy {policy!r}{_hint(policy, names)} (known: {', '.join(names)})"
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


def policy_code(policy: str) -> int:
    """The compiled policy a seat's name runs as."""
    return CODES[policy]
