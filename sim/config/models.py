"""The game's models: table, deck, game settings and a line-up seat (frozen, strict).

The engine takes `GameConfig.game_dict()` as plain data; nothing here knows the engine.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sim.config.limits import MAX_DECK_CARDS, MAX_TOY_KINDS
from sim.config.messages import Invalid, canonical_json
from sim.variants import Rules
from sim.walls import canonical, parse_walls, walls_str

Count = Annotated[int, Field(ge=0, le=MAX_DECK_CARDS)]


def wall_mask(text: str) -> int:
    """parse_walls, reporting a malformed string as Invalid (message without a path)."""
    try:
        return parse_walls(text, where="", error=ValueError)
    except ValueError as exc:
        raise Invalid(str(exc).removeprefix(": ")) from None


class Frozen(BaseModel):
    # strict: YAML ints stay ints; 4.0, true or "4" are refused, never coerced.
    # validate_default: defaults are normalised like loaded values (walls in NESW order).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, validate_default=True)

    def __hash__(self) -> int:
        # pydantic's frozen hash fails on dict fields (deck counts, seat params).
        return hash((type(self).__name__, canonical_json(self.model_dump(mode="json"))))


class Table(Frozen):
    """R1.5: the layout's bounding rectangle must fit columns x rows cards."""

    columns: int = Field(10, ge=1, le=40)
    rows: int = Field(10, ge=1, le=40)


class Deck(Frozen):
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
    sprayers: int = Field(4, ge=0, le=MAX_DECK_CARDS)
    princesses: int = Field(2, ge=0, le=MAX_DECK_CARDS)

    @field_validator("boxes")
    @classmethod
    def _boxes_are_distinct_cards(cls, boxes: dict[str, int]) -> dict[str, int]:
        """Normalise wall strings to NESW order and reject two turnings of one card (R1.3)."""
        out: dict[str, int] = {}
        first: dict[int, str] = {}  # canonical mask -> the key as first written
        for key, count in boxes.items():
            mask = wall_mask(key)
            earlier = first.get(canonical(mask))
            if earlier is not None:
                how = (
                    "the same card (wall letters may come in any order)"
                    if wall_mask(earlier) == mask
                    else "the same card turned by 180 degrees (R1.3)"
                )
                raise Invalid(f"{earlier!r} and {key!r} are {how}; list it once")
            first[canonical(mask)] = key
            out[walls_str(mask)] = count
        return out

    @field_validator("toys")
    @classmethod
    def _toy_kinds(cls, toys: dict[str, int]) -> dict[str, int]:
        """Toy kinds are plain words; sprayers and Princesses have their own keys (R5)."""
        for kind in toys:
            if kind.lower().rstrip("s") == "sprayer":
                raise Invalid("a sprayer is not a toy (R5); count them in deck.sprayers", (kind,))
            if kind.lower().rstrip("s") in ("princes", "princesse"):
                raise Invalid(
                    "a Princess is not a toy (R6); count them in deck.princesses", (kind,)
                )
            if not kind or not kind.replace("_", "").isalnum():
                raise Invalid(f"toy kind {kind!r} must be a plain word like 'yarn'")
        if len(toys) > MAX_TOY_KINDS:
            raise Invalid(f"{len(toys)} toy kinds; at most {MAX_TOY_KINDS}")
        return dict(toys)

    @model_validator(mode="after")
    def _deck_fits(self) -> Deck:
        """A bounded deck: a game lasts about as many turns as the deck has cards, and the
        run's tables (the score trace) grow with the turns (limits.MAX_DECK_CARDS)."""
        total = sum(self.boxes.values()) + sum(self.toys.values()) + self.sprayers
        total += self.princesses
        if total > MAX_DECK_CARDS:
            raise Invalid(
                f"{total:,} cards in the draw deck; at most {MAX_DECK_CARDS:,} (a game lasts"
                " about a turn per card, and a run's tables grow with the turns)"
            )
        return self


class GameConfig(Frozen):
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
        return walls_str(wall_mask(text))

    @model_validator(mode="after")
    def _deck_can_deal(self) -> GameConfig:
        """The deck must hold a start box card and enough cards to deal the hands (R2.3, R2.4)."""
        n_boxes = sum(self.deck.boxes.values())
        if n_boxes < 1:
            raise Invalid(
                "the deck needs at least one box card for the start card (R2.3)", ("deck", "boxes")
            )
        dealable = n_boxes - 1 + self.deck.princesses
        need = self.players * self.hand_size
        if dealable < need:
            raise Invalid(
                f"{dealable} box and Princess cards after the start card cannot deal "
                f"{self.players} hands of {self.hand_size} ({need} needed, R2.4)",
                ("deck",),
            )
        return self

    def game_dict(self) -> dict:
        """The resolved settings with the same keys as the YAML."""
        return self.model_dump(mode="json")


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
    "advise",
    "map",
    "plugin_time_limit",
)


GAME_KEYS = tuple(GameConfig.model_fields)


Target = float | tuple[float, float] | dict[str, float]


class SeatSpec(Frozen):
    """One seat of the line-up: a policy name and its parameters, stored unchanged.

    `ban` lists the options the seat may not use (restricted play, `sim value`): names
    from `ban_options` of the game; it keeps to them unless every legal move is banned.
    `custom_label` is the seat's `label:` (a calibrated seat's 'calibrated:alice').
    """

    policy: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    ban: tuple[str, ...] = ()
    custom_label: str | None = None

    @property
    def label(self) -> str:
        """Short name for tables and plots: its `label:` if given, else 'greedy', or
        'heuristic:spoiler' with a preset; a restricted seat adds its bans:
        'greedy[-princess]'."""
        preset = self.params.get("preset")
        name = self.policy if preset is None else f"{self.policy}:{preset}"
        name = self.custom_label or name
        return f"{name}[{','.join('-' + b for b in self.ban)}]" if self.ban else name

    def to_dict(self) -> dict[str, Any]:
        """The seat as written in YAML: {policy: NAME, **params} (and `ban`, `label` if any)."""
        out = {"policy": self.policy, **copy.deepcopy(self.params)}
        if self.ban:
            out["ban"] = list(self.ban)
        if self.custom_label is not None:
            out["label"] = self.custom_label
        return out


BAN_ACTIONS = {
    "sleeping": "the sleeping-cat action (R3.2)",
    "cat": "the optional awake cat after a box card (R3.1.3)",
}


def ban_options(game: GameConfig) -> list[str]:
    """Every option a seat can be banned from in this game: playing each box kind
    ('box:NE', 'box:' for the card without walls), the Princess, and BAN_ACTIONS."""
    return [f"box:{w}" for w in game.deck.boxes] + ["princess", *BAN_ACTIONS]


def ablation_cards(game: GameConfig) -> list[str]:
    """Card kinds of the deck with at least one copy: what `sim value` can remove one of."""
    deck = game.deck
    names = [f"box:{w}" for w, n in deck.boxes.items() if n > 0]
    names += ["princess"] * (deck.princesses > 0) + ["sprayer"] * (deck.sprayers > 0)
    return names + [f"toy:{k}" for k, n in deck.toys.items() if n > 0]
