"""Typed, frozen, validated configuration (game settings and studies).

The models here are the single source of truth for config keys. A config is
validated once, when loaded; the engine trusts it afterwards.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sim.engine.walls import canonical, parse_walls, walls_str


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Table(_Frozen):
    """R1.5: the layout's bounding rectangle must fit columns x rows cards."""

    columns: int = Field(10, ge=1, le=40)
    rows: int = Field(10, ge=1, le=40)


class Deck(_Frozen):
    """R2.2: draw-deck contents by kind."""

    boxes: dict[str, int] = Field(
        default_factory=lambda: {
            "": 6, "N": 8, "E": 6, "NS": 4, "EW": 4, "NE": 6, "NW": 6, "NEW": 4, "NSE": 4,
        }
    )
    toys: dict[str, int] = Field(
        default_factory=lambda: {"yarn": 4, "mouse": 4, "feather": 4, "fish": 4}
    )
    sprayers: int = Field(4, ge=0)
    princesses: int = Field(2, ge=0)

    @field_validator("boxes")
    @classmethod
    def _boxes_are_distinct_cards(cls, boxes: dict[str, int]) -> dict[str, int]:
        """Normalise wall strings to NESW order and reject two turnings of one card (R1.3)."""
        out: dict[str, int] = {}
        seen: dict[int, str] = {}
        for key, count in boxes.items():
            mask = parse_walls(key, where=f"boxes.{key!r}", error=ValueError)
            if not isinstance(count, int) or count < 0:
                raise ValueError(f"boxes.{key!r}: count must be >= 0, got {count!r}")
            if canonical(mask) in seen:
                raise ValueError(
                    f"boxes: {key!r} and {seen[canonical(mask)]!r} are the same card "
                    "turned by 180 degrees (R1.3); list it once"
                )
            seen[canonical(mask)] = key
            out[walls_str(mask)] = count
        return out

    @field_validator("toys")
    @classmethod
    def _toy_counts(cls, toys: dict[str, int]) -> dict[str, int]:
        for kind, count in toys.items():
            if not kind or not kind.replace("_", "").isalnum():
                raise ValueError(f"toys: kind name {kind!r} must be a plain word like 'yarn'")
            if kind == "sprayer":
                raise ValueError("toys: 'sprayer' is not a toy; use deck.sprayers")
            if not isinstance(count, int) or count < 0:
                raise ValueError(f"toys.{kind}: count must be >= 0, got {count!r}")
        return dict(toys)


class Rules(_Frozen):
    """Rule variants; defaults are the canonical reading of RULES.md."""

    match_sides: Literal["any", "matching"] = "any"
    cat_entry: Literal["friend_or_empty", "any"] = "friend_or_empty"
    evicted_cat: Literal["return", "discard"] = "return"
    sleeping_counts_for_majority: bool = True

    def switched_on(self) -> dict[str, object]:
        """The variants that differ from the canonical reading."""
        default = Rules()
        return {k: v for k, v in self.model_dump().items() if getattr(default, k) != v}


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
        return walls_str(parse_walls(text, where="sleeping_card_walls", error=ValueError))

    @model_validator(mode="after")
    def _deck_can_deal(self) -> GameConfig:
        """The deck must hold a start box card and enough non-item cards to deal the hands (R2.3, R2.4)."""
        n_boxes = sum(self.deck.boxes.values())
        if n_boxes < 1:
            raise ValueError("deck.boxes: the deck needs at least one box card for the start card (R2.3)")
        dealable = n_boxes - 1 + self.deck.princesses
        need = self.players * self.hand_size
        if dealable < need:
            raise ValueError(
                f"deck: {dealable} box and Princess cards after the start card cannot deal "
                f"{self.players} hands of {self.hand_size} ({need} needed, R2.4)"
            )
        return self

    def game_dict(self) -> dict:
        """The resolved settings with the same keys as the YAML."""
        return self.model_dump(mode="json")
