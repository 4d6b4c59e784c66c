"""Rule variants: the alternative readings of the rules a config may switch on.

A leaf module, so that the config loader and the engine (positions and their
reference scoring) share one declaration. Each field names the rule it
changes; the defaults are the canonical reading of docs/RULES.md. Adding a
variant: a field here, the engine code that implements it (read from
`Params`, see `sim.engine.state`), a rule test and its line in RULES.md.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class Rules(BaseModel):
    """Rule variants; defaults are the canonical reading of RULES.md."""

    # strict: 'yes' or 1 is never read as true; frozen: shared safely.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    match_sides: Literal["any", "matching"] = "any"  # R1: touching sides must match
    cat_entry: Literal["friend_or_empty", "any"] = "friend_or_empty"  # R4.4
    evicted_cat: Literal["return", "discard"] = "return"  # R6.2
    sleeping_counts_for_majority: bool = True  # R8.2

    def switched_on(self) -> dict[str, object]:
        """The variants that differ from the canonical reading."""
        default = Rules()
        return {k: v for k, v in self.model_dump().items() if getattr(default, k) != v}
