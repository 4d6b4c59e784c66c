"""Why a click is refused, in one line that names the rule (for the web table).

Only what the deciding seat may know is used: its own `PlayerView` (its hand,
the table, the public counts) and the legal actions of its own decision. The
reasons follow the rules' paragraphs: placing (R1.4, R1.5, the matching
variant), cats (R4.1-R4.4), items (R5.1, R5.2), the Princess (R6.1, R6.3),
discarding (R3.1).
"""

from __future__ import annotations

from sim.engine.game import Game, PlayerView
from sim.engine.reference import boxes, is_open_seam, touching_sides
from sim.table.views import action_parts

PROMPTS = {
    "choose": "take the box action (draw, then play a card) or the sleeping-cat action (R3)",
    "item": "put the item you drew on a free open seam (R5.1)",
    "play": "play a card from your hand (R3.1)",
    "cat": "put an awake cat on this turn's card and its neighbour, or choose no cat (R4)",
    "sleep": "put your sleeping-cat card next to a card (R3.2)",
}


def explain(view: PlayerView, legal: list[int], request: dict, game: Game, fresh=None) -> str:
    """The one-line reason the click `request` names no legal action (`fresh`: the card
    placed this turn, at a cat decision)."""
    parts = [action_parts(game, code) for code in legal]
    kinds = {p["kind"] for p in parts}
    want = request.get("kind")
    decision = view.decision
    if want not in kinds:
        return _wrong_kind(view, kinds, want, request)
    if want == "place":
        return _place(view, parts, request, game)
    if want == "sleep_at":
        return _place(view, parts, {**request, "card": None}, game)
    if want == "princess":
        return (
            "click an awake cat: the Princess evicts one (R6.1); she never evicts another"
            " Princess or a sleeping cat (R6.3)"
        )
    if want == "cat":
        return _cat(view, request, _cell(fresh))
    if want == "item":
        return _item(view, request)
    if want == "discard":
        return f"{request.get('card')!s} is not in your hand"
    return f"this is a {decision} decision: {PROMPTS.get(decision, 'wait')}"


def _wrong_kind(view: PlayerView, kinds: set[str], want, request: dict) -> str:
    decision = view.decision
    if decision == "play" and kinds == {"discard"}:
        return (
            "no card in your hand can be played, so you discard one: click a card in your"
            " hand (R3.1)"
        )
    if decision == "play" and want == "princess":
        if "princess" not in view.hand:
            return "you have no Princess in your hand"
        return "the Princess needs an awake cat on the table to evict (R6.1)"
    if decision == "play" and want == "place":
        card = request.get("card")
        if card not in view.hand:
            return f"{card!s} is not in your hand"
        return f"{card} fits nowhere on the table, either way round (R1.4, R1.5)"
    if decision == "play" and want == "discard":
        return "you may discard only when no card in your hand can be played (R3.1)"
    return f"this is a {decision} decision: {PROMPTS.get(decision, 'wait for your turn')}"


def _cell(value) -> tuple[int, int] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return (value[0], value[1])
    return None


def _place(view: PlayerView, parts: list[dict], request: dict, game: Game) -> str:
    """Why a card (or the sleeping-cat card, card None) may not go where it was clicked."""
    card, at = request.get("card"), _cell(request.get("at"))
    if card is not None and card not in view.hand:
        return f"{card!s} is not in your hand"
    kind = "place" if card is not None else "sleep_at"
    mine = [p for p in parts if p["kind"] == kind and (card is None or p["card"] == card)]
    name = card or "your sleeping-cat card"
    if not mine:
        return f"{name} fits nowhere on the table, either way round (R1.4, R1.5)"
    if at is None:
        return "click an empty cell next to a card"
    cards = view.table.cards
    if at in cards:
        return f"{list(at)} already holds a card: cards never overlap (R1.4)"
    if not any((at[0] + dr, at[1] + dc) in cards for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))):
        return f"{list(at)} touches no card: a card goes next to one on the table (R1.4)"
    rows = [r for r, _ in cards] + [at[0]]
    cols = [c for _, c in cards] + [at[1]]
    settings = game.engine.settings["table"]
    for size, limit, what in (
        (max(cols) - min(cols) + 1, settings["columns"], "wide"),
        (max(rows) - min(rows) + 1, settings["rows"], "tall"),
    ):
        if size > limit:
            return f"the layout would be {size} cards {what}; the table allows {limit} (R1.5)"
    here = [p for p in mine if p["at"] == list(at)]
    if here:
        how = "turned" if here[0]["turned"] else "as printed"
        return f"{name} fits at {list(at)} only {how}: turn it (R1.3)"
    if game.engine.settings["rules"]["match_sides"] == "matching":
        return (
            f"{name} does not match its neighbours at {list(at)}: with match_sides: matching"
            " every touching side must match, open to open and wall to wall"
        )
    return f"{name} may not go at {list(at)} (R1.4, R1.5)"


def _cat(view: PlayerView, request: dict, fresh) -> str:
    """Why an awake cat may not lie on the clicked pair of cards (R4.1-R4.4)."""
    north = _cell(request.get("at"))
    if north is None:
        return "click the two cards, one above the other, your cat should lie on"
    pos = view.table
    south = (north[0] + 1, north[1])
    if north not in pos.cards or south not in pos.cards:
        return "an awake cat lies on two cards, one above the other (R4.1)"
    if not is_open_seam(pos, north, south):
        return "the long seam between those two cards has a wall: a cat needs an open one (R4.1)"
    if fresh is not None and fresh not in (north, south):
        return (
            f"one of the cat's two cards must be the card you placed this turn, {list(fresh)}"
            " (R4.2)"
        )
    taken = {c.north for c in pos.cats} | {c.south for c in pos.cats} | set(pos.sleeping)
    taken |= {p.north for p in pos.princesses} | {p.south for p in pos.princesses}
    if north in taken or south in taken:
        return "a card there already holds a cat, a sleeping cat or the Princess (R4.3)"
    box = next(b for b in boxes(pos) if north in b)
    others = [c.player for c in pos.cats if c.north in box] + [
        seat for cell, seat in pos.sleeping.items() if cell in box
    ]
    if others and view.seat not in others:
        return "that box holds other players' cats and none of yours, so yours may not enter (R4.4)"
    return "your cat may not lie there (R4)"


def _item(view: PlayerView, request: dict) -> str:
    """Why the drawn item may not go on the clicked seam (R5.1, R5.2)."""
    between = request.get("between")
    cells = [_cell(c) for c in between] if isinstance(between, list) and len(between) == 2 else []
    if len(cells) != 2 or None in cells:
        return "click the seam between two cards"
    a, b = cells
    pos = view.table
    if a not in pos.cards or b not in pos.cards or touching_sides(a, b) is None:
        return "an item goes across a seam between two cards on the table (R5.1)"
    if not is_open_seam(pos, a, b):
        return "that seam has a wall: an item goes only across an open seam (R5.1)"
    if any({i.a, i.b} == {a, b} for i in pos.items):
        return "that seam already holds an item: one per seam (R5.2)"
    return "the item may not go there (R5.1)"
