"""What a page is sent: a seat's view as JSON, actions as clickable parts, events as words.

The live table's JSON for a seat is built from that seat's `PlayerView`
(R2.4: its own hand, the table, public counts) and the public words of what
happened (`event_text`), never from the game's hidden state: another seat's
hand reaches the page only as a count, the deck only as its size, and a card
another seat draws only as "drew a card".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from sim.engine.actions import (
    A_CAT,
    A_DISCARD,
    A_ITEM,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    ACTION_NAMES,
    action_arg1,
    action_arg2,
    action_kind,
)
from sim.engine.game import Game, PlayerView
from sim.report.board import table_data
from sim.units import card_label
from sim.walls import turned, walls_str

ITEM_CARDS = ("sprayer",)  # besides toy:<kind>: drawn face up and placed at once (R5.1)


def is_item(card: str) -> bool:
    """Toys and sprayers are placed as soon as they are drawn, so everybody sees them."""
    return card.startswith("toy:") or card in ITEM_CARDS


def action_parts(game: Game, code: int) -> dict:
    """An action as the page uses it: code, text, kind and the cells it concerns."""
    kind, a1, a2 = action_kind(code), action_arg1(code), action_arg2(code)
    out: dict = {"code": int(code), "text": game.describe(code), "kind": ACTION_NAMES[kind]}
    if kind == A_PLACE:
        t, turn = a1 >> 1, bool(a1 & 1)
        mask = game.engine.types.walls[t]
        out |= {
            "card": game.card_name(t),
            "turned": turn,
            "at": game.cell(a2),
            "walls": walls_str(turned(mask) if turn else mask),
        }
    elif kind == A_PRINCESS:
        out |= {"card": game.card_name(a1), "at": game.cell(a2)}
    elif kind == A_DISCARD:
        out |= {"card": game.card_name(a1)}
    elif kind == A_CAT:
        out |= {"at": game.cell(a2)}
    elif kind == A_ITEM:
        out |= {"between": game.seam(a2, a1)}
    elif kind == A_SLEEP:
        out |= {"at": game.cell(a2), "turned": bool(a1)}
    return out


def group_actions(game: Game, legal) -> list[str]:
    """The legal actions in few words: placements of one card (and turning), item seams
    and cat spots gathered into one line each, the rest one line per action."""
    groups: dict[str, list[str]] = defaultdict(list)
    order: list[str] = []
    for code in legal:
        kind, a1, a2 = action_kind(int(code)), action_arg1(int(code)), action_arg2(int(code))
        if kind == A_PLACE:
            head = f"place {game.card_name(a1 >> 1)}{' turned' if a1 & 1 else ''} at"
            where = str(game.cell(a2))
        elif kind == A_ITEM:
            head, where = "item on", "|".join(str(c) for c in game.seam(a2, a1))
        elif kind == A_CAT:
            head, where = "cat at", f"{game.cell(a2)}+{game.cell(a2 + game.pr.width)}"
        elif kind == A_SLEEP:
            head = f"sleeping cat{' turned' if a1 else ''} at"
            where = str(game.cell(a2))
        elif kind == A_PRINCESS:
            head, where = "Princess evicts the cat at", str(game.cell(a2))
        else:
            head, where = game.describe(int(code)), ""
        if head not in groups:
            order.append(head)
        if where:
            groups[head].append(where)
        else:
            groups[head] = []
    return [f"{h} {', '.join(groups[h])}" if groups[h] else h for h in order]


def _walls(record: dict) -> str:
    return record["walls"] or "none"


def _end_reason(record: dict) -> str:
    return "the deck is empty" if record["reason"] == "deck_empty" else "a last awake cat"


# The words of each event that reads the same to every viewer: (record, who) -> text.
_EVENT_WORDS: dict[str, Callable[[dict, str], str]] = {
    "item": lambda r, who: f"{who} put {r['kind']} on {'|'.join(map(str, r['between']))}",
    "item_wasted": lambda r, who: f"{who}: no free open seam for {r['kind']}, removed (R5.3)",
    "place": lambda r, who: (
        f"{who} placed {card_label(r['card'])} at {r['at']} (walls {_walls(r)})"
    ),
    "cat": lambda r, who: f"{who} put an awake cat on {'+'.join(map(str, r['at']))}",
    "sleeping": lambda r, who: f"{who} put a sleeping cat at {r['at']}",
    "princess": lambda r, who: (
        f"{who} played the Princess: seat {r['evicted']}'s cat on"
        f" {'+'.join(map(str, r['at']))} evicted"
    ),
    "discard": lambda r, who: f"{who} discarded {card_label(r['card'])} (nothing could be played)",
    "end_trigger": lambda r, who: f"end triggered: {_end_reason(r)} (R7.1)",
    "end": lambda r, who: (
        "game over: " + ", ".join(f"seat {p} {s}" for p, s in enumerate(r["scores"]))
    ),
}


def event_text(record: dict, viewer: int | None = None, omniscient: bool = False) -> str | None:
    """A log record in words, as `viewer` may read it (None: anybody; `omniscient`: the
    replay, which shows every card). None for records that say nothing to a person."""
    kind, seat = record.get("event"), record.get("seat")
    who = "you" if viewer is not None and seat == viewer and not omniscient else f"seat {seat}"
    if kind == "turn":
        action = record["action"]
        if action == "skip":
            return f"{who}: no cards left, turn skipped (R7.2)"
        what = "sleeping-cat action" if action == "sleeping" else "box action"
        phase = ", final phase" if record["phase"] == "final" else ""
        return f"{who}: turn ({what}{phase})"
    if kind == "draw":
        card = record["card"]
        if omniscient or is_item(card) or (viewer is not None and seat == viewer):
            return f"{who} drew {card_label(card)}"
        return f"{who} drew a card"
    words = _EVENT_WORDS.get(kind)
    return None if words is None else words(record, who)


def view_json(view: PlayerView, *, with_hand: bool) -> dict:
    """A seat's view as JSON: the public table and counts, and its own hand if asked."""
    out = {
        "players": view.players,
        "phase": view.phase,
        "decision": view.decision,
        "table": table_data(view.table),
        "deck": view.deck_size,
        "hand_sizes": list(view.hand_sizes),
        "awake_supply": list(view.awake_supply),
        "sleeping_supply": list(view.sleeping_supply),
        "discarded": dict(view.discarded),
        "wasted": dict(view.wasted),
        "turns": view.turns,
        "end_triggered": view.end_triggered,
    }
    if with_hand:
        out["seat"] = view.seat
        out["hand"] = list(view.hand)
        out["pending_item"] = view.pending_item
    return out


def highlight_of(records: list[dict]) -> dict:
    """What some events put on the table, to outline it: the cells placed, the pairs a cat
    or a Princess went into, the seams an item filled."""
    out: dict = {"cells": [], "pairs": [], "seams": []}
    for r in records:
        if r["event"] in ("place", "sleeping"):
            out["cells"].append(r["at"])
        elif r["event"] in ("cat", "princess"):
            out["pairs"].append(r["at"][0])
        elif r["event"] == "item":
            out["seams"].append(r["between"])
    return out
