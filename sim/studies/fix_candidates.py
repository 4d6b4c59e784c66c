"""The one-setting changes a fix is sought among, and what each one acts on.

Every change is one card kind one or two copies either way, a deck size (mix kept) that
gives every seat the same turns, or a rule variant. What it can do follows from the rules:

* **The turns.** A normal turn draws until a box or Princess card reaches the hand (R3.1),
  so the hand cards left in the deck after the start card and the deal (R2.3, R2.4) set how
  many turns the normal phase has, and the seats that take one more turn than the others
  are the first `left mod players` (R2.5, R7.1). A change of the box or Princess count
  moves that; toys and spray bottles are drawn within a turn and never do, and neither
  does a rule variant that leaves the deck alone (the diagnosis measures how far the extra
  turn drives each seat's edge, `sim.analysis.turn_split.turn_decomposition`).
* **The group** (the cause a change acts on, what the advice names a set by): the same
  number of hand cards added or removed, whatever their kind, gives the same turns; the
  group says which seats then take an extra turn. Toy and spray-bottle counts act on what a
  box scores; rule variants on how the cards are played.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim import units
from sim.config import Settings, Space, StudyConfig, setting
from sim.errors import ConfigError
from sim.studies.deck_parity import resized_boxes

# A change to a study: dotted setting -> its new value ({"deck.princesses": 1}), what
# `StudyConfig.with_overrides` takes and advice.json's `changes` records.
Changes = Settings

WIDE = (-1, 1, -2, 2)  # copies of one card kind either way, nearest first
RESIZE_FROM = 3  # deck sizes this many hand cards or more away from the config's


@dataclass(frozen=True)
class Turns:
    """Who takes one more turn than the others, as the rules give it for a deck."""

    hand_cards: int  # box and Princess cards in the deck
    extra: tuple[int, ...]  # the seats that take one more turn

    def text(self) -> str:
        if not self.extra:
            return "every seat takes the same turns"
        return f"{_seats(self.extra)} {'takes' if len(self.extra) == 1 else 'take'} an extra turn"


def turns_of(study: StudyConfig, changes: Changes | None = None) -> Turns:
    """The seats that take an extra turn in a study (with `changes`), by the rules: the hand
    cards left after the start card and the deal, modulo the players, are the first seats'
    extra turns (R2.3, R2.4, R3.1, R7.1). A last cat placed (R7.1) or a sleeping cat can end
    the normal phase earlier; the diagnosis measures how often."""
    if changes:
        study = study.with_overrides(**changes)
    deck, players = study.game.deck, study.game.players
    hand = sum(deck.boxes.values()) + deck.princesses
    return Turns(hand, extra_turn_seats(hand, players, study.game.hand_size))


def extra_turn_seats(hand: int, players: int, hand_size: int) -> tuple[int, ...]:
    """The seats that take one more turn than the others with `hand` box and Princess cards
    in the deck: the first (hand - start card - deal) mod players (R2.3, R2.4, R3.1, R7.1)."""
    left = max(hand - 1 - players * hand_size, 0)
    return tuple(range(left % players))


def hand_delta(study: StudyConfig, changes: Changes) -> int:
    """Box and Princess cards a change adds (negative: removes)."""
    return turns_of(study, changes).hand_cards - turns_of(study).hand_cards


def moves_turns(study: StudyConfig, changes: Changes) -> bool:
    """Can the change alter who takes an extra turn? Only by the hand cards it adds or removes
    (toys, spray bottles and rules are played within a turn)."""
    return turns_of(study, changes).extra != turns_of(study).extra


def group_of(study: StudyConfig, changes: Changes) -> str:
    """The cause a change acts on, in a designer's words: '1 card fewer (box or Princess):
    every seat takes the same turns', 'toy counts (the turns stay as they are)'."""
    (path,) = changes
    delta = hand_delta(study, changes)
    if delta:
        cards = units.plural(abs(delta), "card")
        way = "fewer" if delta < 0 else "more"
        return f"{cards} {way} (box or Princess): {turns_of(study, changes).text()}"
    if path.startswith("deck.toys"):
        return "toy counts (the turns stay as they are)"
    if path == "deck.sprayers":
        return "spray bottles (the turns stay as they are)"
    return "rule variants (the turns stay as they are)"


def fix_candidates(study: StudyConfig) -> list[Changes]:
    """Every one-setting change worth trying: each card kind one and two copies either way,
    the deck sizes (mix kept) further away that give every seat the same turns, each rule
    variant; with `advise.space`, only those it allows. Changes the config refuses (too few
    cards to deal, say) are left out."""
    deck = study.game.deck
    out: list[dict] = []

    def counts(path: str, n: int) -> None:
        out.extend({path: n + d} for d in WIDE if n + d >= 0)

    for walls, n in deck.boxes.items():
        counts(f"deck.boxes.{walls or chr(39) * 2}", n)
    counts("deck.princesses", deck.princesses)
    counts("deck.sprayers", deck.sprayers)
    for toy, n in deck.toys.items():
        counts(f"deck.toys.{toy}", n)
    for name, spec in type(study.game.rules).model_fields.items():
        now = getattr(study.game.rules, name)
        values = [True, False] if isinstance(now, bool) else list(spec.annotation.__args__)
        out.extend({f"rules.{name}": v} for v in values if v != now)
    total = sum(deck.boxes.values())
    players = study.game.players
    for delta in range(-RESIZE_FROM - players, RESIZE_FROM + players + 1):
        if abs(delta) < RESIZE_FROM or total + delta <= 0:
            continue
        boxes = resized_boxes(dict(deck.boxes), total + delta)
        try:
            if not turns_of(study, {"deck.boxes": boxes}).extra:
                out.append({"deck.boxes": boxes})
        except ConfigError:
            continue
    valid = []
    for change in out:
        if not in_space(change, study.advise.space):
            continue
        try:
            study.with_overrides(**change)
        except ConfigError:
            continue
        valid.append(change)
    return valid


def in_space(changes: Changes, space: Space | None) -> bool:
    """Does a one-setting change stay in `advise.space` (None: every change does)?"""
    if space is None:
        return True
    ((path, value),) = changes.items()
    spec = space.get(path)
    if spec is None:
        return False
    return spec[0] <= value <= spec[1] if isinstance(spec, list) else value in spec["choices"]


def size_of(study: StudyConfig, changes: Changes) -> int:
    """How big a change is for a designer: cards added or removed (a rule: one)."""
    total = 0
    for path, value in changes.items():
        old = setting(study, path)
        if isinstance(value, dict):  # the whole box mix resized
            total += abs(sum(value.values()) - sum(old.values()))
        elif isinstance(value, int) and not isinstance(value, bool):
            total += abs(value - old)
        else:
            total += 1
    return total


def neighbours(best: Changes, changes: Changes) -> bool:
    """Whether `changes` sets the same count as `best` one copy further or nearer: the
    question a designer asks next ("one Princess fewer, or none?"), which the screen's few
    games cannot answer (the two are often within noise of each other)."""
    if len(best) != 1 or set(changes) != set(best):
        return False
    (path,) = best
    a, b = best[path], changes[path]
    ints = isinstance(a, int) and isinstance(b, int)
    return ints and not isinstance(a, bool) and not isinstance(b, bool) and abs(a - b) == 1


def label_of(study: StudyConfig, changes: Changes) -> str:
    """A change as a short label: 'deck.princesses=1', 'deck.boxes=47' (a resized mix)."""
    return ", ".join(
        f"{p}={v if not isinstance(v, dict) else sum(v.values())}" for p, v in changes.items()
    )


def _seats(seats: tuple[int, ...]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return f"seats {', '.join(map(str, seats[:-1]))} and {seats[-1]}"
