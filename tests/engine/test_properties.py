"""Property tests over random games and random configs (hypothesis).

Each example draws a config (2-5 players, odd decks with zero of a kind, small
tables, every variant on or off, hand sizes 1-4) and plays it to the end,
choosing uniformly among `game.legal()`. The checks:

(a) every game ends within a bound on decisions computed from the config;
(b) every logged action is legal when replayed by `Replay`, an independent
    pure-Python reading of RULES.md (it never calls the engine's legal_actions);
(c) every card is accounted for after every action;
(d) the engine's incremental boxes, closure and box contents equal the slow
    recomputation of `sim.engine.reference` after every action;
(e) final scores equal the reference scoring (and `sim score` on the position file);
(f) the same (seed, index) replays the same game, and the compiled random loop
    agrees with the Python driver.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from game_strategies import drawn_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli import main as cli_main
from sim.config import GameConfig, load_study, parse_study
from sim.engine import reference
from sim.engine.actions import (
    A_BOX,
    A_CAT,
    A_DISCARD,
    A_ITEM,
    A_NO_CAT,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    A_SLEEP_CHOICE,
    action_arg1,
    action_arg2,
    action_kind,
)
from sim.engine.fastplay import random_turns
from sim.engine.game import Game
from sim.engine.legal import random_legal_action
from sim.engine.position_io import position_to_json
from sim.engine.rng import randint
from sim.engine.state import (
    DEC_ITEM,
    DIR_E,
    KIND_BOX,
    PS_EVICTED,
    SC_DECISION,
    SC_FREE_SEAMS,
    SC_ITEM,
    SC_MAXC,
    SC_MAXR,
    SC_MINC,
    SC_MINR,
    SC_NCATS,
    SC_NFRONT,
    SC_NPLACED,
    ST_DISCARDED,
    ST_WASTED,
    StateView,
    seam_words,
)
from sim.engine.table import fitting_front_cells
from sim.runs.lineup import engine_for
from sim.runs.play import play_one
from sim.walls import parse_walls, turned

Cell = tuple[int, int]

BOX_KINDS = ["", "N", "E", "NE", "NW", "NS", "EW", "NES", "NEW", "NESW"]
TABLES = [(3, 3), (4, 6), (6, 4), (1, 5), (5, 1), (2, 2), (10, 10)]  # (columns, rows)
PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- random configs and games


@st.composite
def configs(draw) -> GameConfig:
    """A valid GameConfig with an odd deck (zero of a kind allowed) and any variants."""
    players = draw(st.integers(2, 5))
    hand_size = draw(st.integers(1, 4))
    kinds = draw(st.lists(st.sampled_from(BOX_KINDS), min_size=1, max_size=5, unique=True))
    boxes = {k: draw(st.integers(0, 6)) for k in kinds}
    princesses = draw(st.integers(0, 3))
    toys = draw(
        st.dictionaries(st.sampled_from(["yarn", "mouse", "fish"]), st.integers(0, 4), max_size=3)
    )
    sprayers = draw(st.integers(0, 3))
    # Top up the first kind so the start card and the hands can be dealt (R2.3, R2.4).
    short = players * hand_size + 1 - princesses - sum(boxes.values())
    boxes[kinds[0]] += max(short, 0, 1 - sum(boxes.values()))
    return drawn_game(
        draw,
        players=players,
        hand_size=hand_size,
        table=draw(st.sampled_from(TABLES)),
        cats=draw(st.integers(0, 4)),
        sleeping=draw(st.integers(0, 3)),
        deck={"boxes": boxes, "toys": toys, "sprayers": sprayers, "princesses": princesses},
    )


def decision_bound(cfg: GameConfig) -> int:
    """An upper bound on a game's decisions from RULES.md alone.

    Normal-phase box turns each draw a card (<= deck size), sleeping turns use a
    sleeping cat (<= players * sleeping), final turns each take a card from a hand
    or skip one of the players; a turn has at most a choice, its items, a play
    and a cat.
    """
    deck = cfg.deck
    ndeck = sum(deck.boxes.values()) + sum(deck.toys.values()) + deck.sprayers + deck.princesses
    p, h = cfg.players, cfg.hand_size
    turns = ndeck + p * cfg.sleeping_per_player + p * (p * (h + 1) + 1)
    return 3 * turns + ndeck


def play(cfg: GameConfig, seed: int, rng: random.Random, each=None) -> Game:
    """Play a logged game of cfg to the end, uniformly over game.legal(); each(game) after
    setup and after every action. Asserts the game ends within decision_bound (a)."""
    game = Game(engine_for(cfg), seed, log=True)
    if each:
        each(game)
    for _ in range(decision_bound(cfg)):
        if game.over:
            return game
        game.apply(rng.choice(game.legal().tolist()))
        if each:
            each(game)
    assert game.over, f"no end after {decision_bound(cfg)} decisions"
    return game


# ---------------------------------------------------------------- (b) the independent replayer

STEPS = ((-1, 0, 1, 4), (0, 1, 2, 8), (1, 0, 4, 1), (0, -1, 8, 2))  # dr, dc, my side, theirs


def _side_towards(a: Cell, b: Cell) -> tuple[int, int]:
    for dr, dc, mine, theirs in STEPS:
        if (a[0] + dr, a[1] + dc) == b:
            return mine, theirs
    raise AssertionError(f"{a} and {b} are not neighbours")


def _item_kind(card: str) -> str:
    return card.removeprefix("toy:")


class Replay:
    """Walk a game's log and check every action against RULES.md, from the log alone."""

    def __init__(self, cfg: GameConfig) -> None:
        self.cfg = cfg
        self.rules = cfg.rules
        self.players = cfg.players
        self.cards: dict[Cell, int] = {}
        self.sleeping: dict[Cell, int] = {}
        self.cats: dict[Cell, int] = {}  # north cell -> owner
        self.princesses: list[Cell] = []  # north cells
        self.items: dict[frozenset[Cell], str] = {}
        self.hands: list[Counter] = []
        self.deck: list[str] = []
        self.awake = [cfg.cats_per_player] * cfg.players
        self.asleep = [cfg.sleeping_per_player] * cfg.players
        self.phase = "normal"
        self.trigger: str | None = None
        self.trigger_in_turn = False
        self.expect_trigger: tuple[int, str] | None = None
        self.seat: int | None = None
        self.turn_kind: str | None = None
        self.turn_done: list[str] = []
        self.fresh: Cell | None = None
        self.pending: str | None = None
        self.drawing = False

    # -------------------------------------------------------- the table

    def occupied(self, cell: Cell) -> bool:
        """R4.3: a card carries an awake cat, a sleeping cat or the Princess."""
        south_of = (cell[0] - 1, cell[1])
        return (
            cell in self.sleeping
            or cell in self.cats
            or south_of in self.cats
            or cell in self.princesses
            or south_of in self.princesses
        )

    def open_seam(self, a: Cell, b: Cell) -> bool:
        """R1.6: two adjacent cards whose touching sides are both open."""
        if a not in self.cards or b not in self.cards:
            return False
        mine, theirs = _side_towards(a, b)
        return not self.cards[a] & mine and not self.cards[b] & theirs

    def free_open_seams(self) -> set[frozenset[Cell]]:
        out = set()
        for r, c in self.cards:
            for other in ((r, c + 1), (r + 1, c)):
                seam = frozenset(((r, c), other))
                if self.open_seam((r, c), other) and seam not in self.items:
                    out.add(seam)
        return out

    def can_lay(self, cell: Cell, mask: int) -> bool:
        """R1.4 adjacency, R1.5 table size, and the matching variant, for an empty cell."""
        if cell in self.cards:
            return False
        near = [(cell[0] + dr, cell[1] + dc, mine, theirs) for dr, dc, mine, theirs in STEPS]
        if not any((r, c) in self.cards for r, c, _, _ in near):
            return False
        cells = [*self.cards, cell]
        if (
            max(r for r, _ in cells) - min(r for r, _ in cells) >= self.cfg.table.rows
            or max(c for _, c in cells) - min(c for _, c in cells) >= self.cfg.table.columns
        ):
            return False
        if self.rules.match_sides == "matching":
            for r, c, mine, theirs in near:
                other = self.cards.get((r, c))
                if other is not None and bool(mask & mine) != bool(other & theirs):
                    return False
        return True

    def fits_anywhere(self, mask: int) -> bool:
        candidates = {(r + dr, c + dc) for r, c in self.cards for dr, dc, _, _ in STEPS}
        return any(self.can_lay(x, m) for x in candidates for m in (mask, turned(mask)))

    def can_play_something(self, seat: int) -> bool:
        """R3.1, R6.1: some box card of the hand fits, or a Princess has an awake cat to evict."""
        for card, n in self.hands[seat].items():
            if n and card.startswith("box:") and self.fits_anywhere(parse_walls(card[4:])):
                return True
            if n and card == "princess" and self.cats:
                return True
        return False

    def position(self):
        from sim.engine.position import AwakeCat, Item, Position, Princess

        return Position(
            players=self.players,
            cards=dict(self.cards),
            sleeping=dict(self.sleeping),
            cats=tuple(AwakeCat(p, n, (n[0] + 1, n[1])) for n, p in self.cats.items()),
            princesses=tuple(Princess(n, (n[0] + 1, n[1])) for n in self.princesses),
            items=tuple(Item(k, *sorted(s)) for s, k in self.items.items()),
            rules=self.rules,
        )

    # -------------------------------------------------------- the log

    def run(self, log: list[dict]) -> None:
        assert log[0]["event"] == "setup"
        self.setup(log[0])
        for i, event in enumerate(log[1:], 1):
            if self.expect_trigger is not None:
                seat, reason = self.expect_trigger
                assert event == {"event": "end_trigger", "seat": seat, "reason": reason}, (i, event)
                self.expect_trigger = None
                continue
            kind = event["event"]
            assert kind != "end_trigger", f"event {i}: a trigger nothing caused: {event}"
            getattr(self, "on_" + kind)(event)
        assert log[-1]["event"] == "end"

    def setup(self, event: dict) -> None:
        """R2.3, R2.4: start card, dealt hands and the deck after dealing."""
        deck = event["deck"]
        first = next(i for i, card in enumerate(deck) if card.startswith("box:"))
        assert event["start"]["card"] == deck[first]
        self.cards[(0, 0)] = parse_walls(deck[first][4:])
        rest = deck[:first] + deck[first + 1 :]
        hands: list[list[str]] = [[] for _ in range(self.players)]
        aside, pos = [], 0
        for _ in range(self.cfg.hand_size):
            for p in range(self.players):
                while not (rest[pos].startswith("box:") or rest[pos] == "princess"):
                    aside.append(rest[pos])
                    pos += 1
                hands[p].append(rest[pos])
                pos += 1
        self.hands = [Counter(h) for h in hands]
        assert [Counter(h) for h in event["hands"]] == self.hands
        assert event["aside"] == aside
        assert Counter(event["deck_after"]) == Counter(rest[pos:] + aside)
        self.deck = list(event["deck_after"])
        if not self.deck:  # R7.1: setup emptied the deck
            self.trigger, self.phase = "deck_empty", "final"
            self.expect_trigger = (-1, "deck_empty")

    def finish_turn(self) -> None:
        """The previous turn did exactly what its kind requires (R3.1, R3.2, R7.2)."""
        if self.seat is None:
            return
        assert self.pending is None, "an item was left unplaced"
        plays = [k for k in self.turn_done if k in ("place", "princess", "discard", "sleeping")]
        if self.turn_kind == "sleeping":
            assert plays == ["sleeping"]
        elif self.turn_kind == "skip":
            assert self.turn_done == []
        else:
            assert len(plays) == 1 or (not plays and not self.hands[self.seat]), self.turn_done
        if self.trigger_in_turn:
            self.phase = "final"  # R7.1: the turn in progress has finished
            self.trigger_in_turn = False

    def on_turn(self, event: dict) -> None:
        self.finish_turn()
        seat = event["seat"]
        # R2.5: seat 0 starts, then increasing seat order, wrapping.
        want = 0 if self.seat is None else (self.seat + 1) % self.players
        assert seat == want, f"turn of seat {seat}, expected {want}"
        assert event["phase"] == self.phase
        assert any(self.hands), "R7.3: the game should have ended"
        self.seat, self.turn_kind, self.turn_done = seat, event["action"], []
        self.fresh, self.drawing = None, False
        if event["action"] == "skip":
            assert self.phase == "final" and not self.hands[seat]  # R7.2
        elif event["action"] == "sleeping":
            assert self.phase == "normal" and self.asleep[seat] > 0  # R3.2, R7.2
        else:
            if self.phase == "final":
                assert self.hands[seat], "R7.2: an empty hand is skipped"
            else:
                assert self.deck, "a normal-phase deck is never empty"
                self.drawing = True  # R3.1.1: the box action starts with a draw

    def on_draw(self, event: dict) -> None:
        """R3.1.1: the top card, by the active seat, in a normal-phase box turn, until a card
        reaches the hand."""
        assert event["seat"] == self.seat and self.turn_kind == "box" and self.phase == "normal"
        assert self.drawing and self.pending is None
        assert event["card"] == self.deck.pop(0)
        card = event["card"]
        if card.startswith("box:") or card == "princess":
            self.hands[self.seat][card] += 1
            self.drawing = False
        else:
            self.pending = card
        if not self.deck:
            self.drawing = False
            self.note_trigger(self.seat, "deck_empty")  # R7.1, even on an item

    def note_trigger(self, seat: int, reason: str) -> None:
        if self.trigger is None:  # R7.1: the first trigger is the one recorded
            self.trigger = reason
            self.trigger_in_turn = True
            self.expect_trigger = (seat, reason)

    def on_item(self, event: dict) -> None:
        """R5.1, R5.2: the drawer lays it on a free open seam."""
        assert event["seat"] == self.seat and self.pending is not None
        assert event["kind"] == _item_kind(self.pending)
        a, b = (tuple(x) for x in event["between"])
        seam = frozenset((a, b))
        assert self.open_seam(a, b), f"R5.1: {a}|{b} is not an open seam"
        assert seam not in self.items, f"R5.2: {a}|{b} already holds an item"
        self.items[seam] = event["kind"]
        self.pending = None

    def on_item_wasted(self, event: dict) -> None:
        """R5.3: wasted only when no free open seam exists."""
        assert event["seat"] == self.seat and self.pending is not None
        assert event["kind"] == _item_kind(self.pending)
        assert not self.free_open_seams(), "R5.3: a free open seam existed"
        self.pending = None

    def on_place(self, event: dict) -> None:
        """R1.3-R1.5, R3.1.2: a box card from the hand, as written or turned, on a legal cell."""
        seat, card, cell = event["seat"], event["card"], tuple(event["at"])
        assert seat == self.seat and self.turn_kind == "box" and not self.drawing
        assert self.pending is None and self.hands[seat][card] > 0 and card.startswith("box:")
        mask, laid = parse_walls(card[4:]), parse_walls(event["walls"])
        assert laid in (mask, turned(mask)), f"R1.3: {card} cannot lie as {event['walls']!r}"
        assert self.can_lay(cell, laid), f"R1.4/R1.5/match: {card} on {cell}"
        self.cards[cell] = laid
        self.hands[seat][card] -= 1
        self.fresh = cell
        self.turn_done.append("place")

    def on_cat(self, event: dict) -> None:
        """R4.1-R4.4 and R3.1.3: one optional cat after the turn's box card."""
        seat = event["seat"]
        north, south = (tuple(x) for x in event["at"])
        assert seat == self.seat and self.turn_done == ["place"] and self.awake[seat] > 0
        assert south == (north[0] + 1, north[1])
        assert self.open_seam(north, south), "R4.1: no open long seam"
        assert self.fresh in (north, south), "R4.2: neither card is fresh"
        assert not self.occupied(north) and not self.occupied(south), "R4.3"
        if self.rules.cat_entry == "friend_or_empty":
            pos = self.position()
            (box,) = [b for b in reference.boxes(pos) if north in b]
            seats = [p for n, p in self.cats.items() if n in box]
            seats += [p for c, p in self.sleeping.items() if c in box]
            assert not seats or seat in seats, "R4.4: another player's box"
        self.cats[north] = seat
        self.awake[seat] -= 1
        self.turn_done.append("cat")
        if self.awake[seat] == 0:
            self.note_trigger(seat, "last_cat")  # R7.1

    def on_sleeping(self, event: dict) -> None:
        """R3.2: a sleeping-cat card with the configured walls, laid by R1.4-R1.5."""
        seat, cell = event["seat"], tuple(event["at"])
        assert seat == self.seat and self.turn_kind == "sleeping" and not self.turn_done
        mask, laid = parse_walls(self.cfg.sleeping_card_walls), parse_walls(event["walls"])
        assert laid in (mask, turned(mask))
        assert self.can_lay(cell, laid)
        self.cards[cell] = laid
        self.sleeping[cell] = seat
        self.asleep[seat] -= 1
        self.turn_done.append("sleeping")

    def on_princess(self, event: dict) -> None:
        """R6.1, R6.2: a Princess from hand evicts an awake cat and lies on its cards."""
        seat = event["seat"]
        north, south = (tuple(x) for x in event["at"])
        assert seat == self.seat and self.turn_kind == "box" and not self.drawing
        assert not self.turn_done and self.hands[seat]["princess"] > 0
        assert self.cats.get(north) == event["evicted"] and south == (north[0] + 1, north[1])
        owner = self.cats.pop(north)
        self.princesses.append(north)
        if self.rules.evicted_cat == "return":
            self.awake[owner] += 1
        self.hands[seat]["princess"] -= 1
        self.turn_done.append("princess")

    def on_discard(self, event: dict) -> None:
        """R3.1, R7.2: a discard only when no card of the hand can be played."""
        seat, card = event["seat"], event["card"]
        assert seat == self.seat and self.turn_kind == "box" and not self.drawing
        assert not self.turn_done and self.hands[seat][card] > 0
        assert not self.can_play_something(seat), f"R3.1: seat {seat} could play"
        self.hands[seat][card] -= 1
        self.turn_done.append("discard")

    def on_end(self, event: dict) -> None:
        """R7.3: the game ends when every hand is empty, in the final phase."""
        self.finish_turn()
        assert self.phase == "final" and not any(+h for h in self.hands)


# ---------------------------------------------------------------- (c), (d) per-action checks


def check_accounting(game: Game) -> None:
    """(c) Per card type: deck + hands + table + pending item + discarded + wasted = dealt deck;
    and per seat, the cat supplies plus the cats on the table add up."""
    cfg, types, view = (
        GameConfig.model_validate(game.engine.settings),
        game.engine.types,
        StateView(game.s, game.pr),
    )
    pos = game.position()
    total = Counter(types.names[t] for t, n in enumerate(types.counts) for _ in range(n))
    seen = Counter(game.deck)
    for p in range(cfg.players):
        seen += Counter(game.hand(p))
    for cell, mask in pos.cards.items():
        if cell in pos.sleeping:
            continue  # sleeping-cat cards come from the supplies, not the deck
        kinds = [
            t
            for t in range(len(types))
            if types.kinds[t] == KIND_BOX and mask in (types.walls[t], turned(types.walls[t]))
        ]
        assert len(kinds) == 1, f"card {mask} on {cell} matches {kinds}"
        seen[types.names[kinds[0]]] += 1
    for it in pos.items:
        seen["sprayer" if it.kind == "sprayer" else f"toy:{it.kind}"] += 1
    seen["princess"] += len(pos.princesses)
    if game.s[SC_DECISION] == DEC_ITEM:
        seen[types.names[int(game.s[SC_ITEM])]] += 1  # drawn, waiting for a seam
    for t, name in enumerate(types.names):
        seen[name] += int(view.stats[:, t, ST_DISCARDED].sum() + view.stats[:, t, ST_WASTED].sum())
    assert +seen == +total
    for p in range(cfg.players):
        on_table = sum(1 for c in pos.cats if c.player == p)
        gone = int(view.seat_stats[p, PS_EVICTED]) if cfg.rules.evicted_cat == "discard" else 0
        assert int(view.awake[p]) + on_table + gone == cfg.cats_per_player
        asleep = sum(1 for q in pos.sleeping.values() if q == p)
        assert int(view.asleep[p]) + asleep == cfg.sleeping_per_player


def _root(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        x = int(parent[x])
    return x


def check_boxes(game: Game) -> None:
    """(d) Union-find boxes, open-side counters and box contents equal the slow recount;
    the incremental frontier, bounding box, free-seam and cat counters too."""
    pos, pr, view = game.position(), game.pr, StateView(game.s, game.pr)
    toy_kinds = game.engine.types.toy_kinds

    def at(cell: Cell) -> int:
        return (cell[0] + pr.rows) * pr.width + (cell[1] + pr.cols)

    roots = set()
    for box in reference.boxes(pos):
        row = reference.score_box(pos, box)
        (root,) = {_root(view.parent, at(cell)) for cell in box}
        assert root not in roots, "two reference boxes share an engine root"
        roots.add(root)
        assert int(view.box_size[root]) == len(box)
        assert (int(view.box_open[root]) == 0) == row["closed"]
        toys = {k: int(view.box_toys[root, i]) for i, k in enumerate(toy_kinds)}
        assert +Counter(toys) == Counter(row["toys"])
        assert int(view.box_spray[root]) == row["sprayers"]
        assert list(view.box_awake[root]) == row["awake"]
        assert list(view.box_sleep[root]) == row["sleeping"]
    cards = pos.cards
    front = {tuple(game.cell(x)) for x in view.front[: game.s[SC_NFRONT]]}
    assert front == {(r + dr, c + dc) for r, c in cards for dr, dc, _, _ in STEPS} - set(cards)
    # the front's kept counts per grid row and column, and the count of its cells that fit
    height = 2 * pr.rows + 1
    lines = [int(v) for v in game.s[pr.o_front_lines : pr.o_front_lines + height + pr.width]]
    assert lines[:height] == [sum(r == rr for r, _ in front) for rr in range(-pr.rows, pr.rows + 1)]
    assert lines[height:] == [sum(c == cc for _, c in front) for cc in range(-pr.cols, pr.cols + 1)]
    rows_at, cols_at = [r for r, _ in cards], [c for _, c in cards]
    fitting = sum(
        max(rows_at + [r]) - min(rows_at + [r]) < pr.rows
        and max(cols_at + [c]) - min(cols_at + [c]) < pr.cols
        for r, c in front
    )
    assert fitting_front_cells(game.s, pr) == fitting
    assert int(game.s[SC_NPLACED]) == len(cards)
    assert (int(game.s[SC_MINR]), int(game.s[SC_MAXR])) == (
        min(r for r, _ in cards),
        max(r for r, _ in cards),
    )
    assert (int(game.s[SC_MINC]), int(game.s[SC_MAXC])) == (
        min(c for _, c in cards),
        max(c for _, c in cards),
    )
    used = {frozenset((it.a, it.b)) for it in pos.items}
    free = 0
    for r, c in cards:
        for other in ((r, c + 1), (r + 1, c)):
            if (
                reference.is_open_seam(pos, (r, c), other)
                and frozenset(((r, c), other)) not in used
            ):
                free += 1
    assert int(game.s[SC_FREE_SEAMS]) == free
    # the free-seam bits: seam e (east 0, south 1) of the i-th card laid is bit 2i + e
    bits = []
    for i, x in enumerate(view.placed[: game.s[SC_NPLACED]]):
        r, c = game.cell(x)
        for e, other in enumerate(((r, c + 1), (r + 1, c))):
            if (
                reference.is_open_seam(pos, (r, c), other)
                and frozenset(((r, c), other)) not in used
            ):
                bits.append(2 * i + e)
    words = game.s[pr.o_seam_bits : pr.o_seam_bits + seam_words(pr.ncells)]
    held = [32 * j + k for j, w in enumerate(words) for k in range(32) if (int(w) >> k) & 1]
    assert held == bits
    assert int(game.s[SC_NCATS]) == len(pos.cats)


def check_fast_sampler(game: Game) -> None:
    """The random policy's shortcut: random_legal_action draws the action legal() holds at
    the drawn index (a Princess's included), consuming the same draws (none when only one
    action is legal)."""
    legal = game.legal().tolist()
    if not legal:
        return
    buf = np.zeros(game.pr.max_actions, np.int32)
    for word in (1, 2**63 + 12_345, 987_654_321):
        stream = np.array([word], np.uint64)
        listed = stream.copy()
        got = int(random_legal_action(game.s.copy(), game.pr, stream, buf))
        expected = legal[0] if len(legal) == 1 else legal[int(randint(listed, len(legal)))]
        assert got == expected and stream[0] == listed[0]


def table_of(game: Game) -> Replay:
    """A Replay holding the game's current table, hands and supplies (for the legal-set check)."""
    pos, view = game.position(), StateView(game.s, game.pr)
    table = Replay(GameConfig.model_validate(game.engine.settings))
    table.cards = dict(pos.cards)
    table.sleeping = dict(pos.sleeping)
    table.cats = {c.north: c.player for c in pos.cats}
    table.princesses = [p.north for p in pos.princesses]
    table.items = {frozenset((i.a, i.b)): i.kind for i in pos.items}
    table.hands = [Counter(game.hand(p)) for p in range(game.pr.players)]
    table.awake = [int(n) for n in view.awake]
    table.asleep = [int(n) for n in view.asleep]
    table.phase = game.phase
    return table


def _turnings(mask: int) -> list[tuple[bool, int]]:
    """R1.3: as written, and turned when that is a different card face."""
    return [(False, mask)] + ([(True, turned(mask))] if turned(mask) != mask else [])


def sleeping_fits(table: Replay, seat: int) -> bool:
    """R3.2, R7.2: the seat may take the sleeping-cat action."""
    mask = parse_walls(table.cfg.sleeping_card_walls)
    return table.phase == "normal" and table.asleep[seat] > 0 and table.fits_anywhere(mask)


def cat_spots(table: Replay, seat: int, fresh: Cell) -> set[Cell]:
    """R4.1-R4.4: north cells of the spots for seat's cat with this turn's card `fresh`."""
    if table.awake[seat] == 0:
        return set()
    out = set()
    pos = table.position()
    for north in ((fresh[0] - 1, fresh[1]), fresh):
        south = (north[0] + 1, north[1])
        if not table.open_seam(north, south) or table.occupied(north) or table.occupied(south):
            continue
        if table.rules.cat_entry == "friend_or_empty":
            (box,) = [b for b in reference.boxes(pos) if north in b]
            seats = [p for n, p in table.cats.items() if n in box]
            seats += [p for c, p in table.sleeping.items() if c in box]
            if seats and seat not in seats:
                continue
        out.add(north)
    return out


def expected_legal(game: Game) -> set[tuple]:
    """The legal actions at the pending decision, from RULES.md and the table alone."""
    table, seat, decision = table_of(game), game.seat, game.decision
    near = {(r + dr, c + dc) for r, c in table.cards for dr, dc, _, _ in STEPS} - set(table.cards)
    if decision == "choose":
        assert sleeping_fits(table, seat), "the sleeping-cat action is offered but impossible"
        return {("box",), ("sleeping",)}
    if decision == "sleep":
        mask = parse_walls(table.cfg.sleeping_card_walls)
        return {("sleep", t, x) for x in near for t, m in _turnings(mask) if table.can_lay(x, m)}
    if decision == "item":
        return {("item", seam) for seam in table.free_open_seams()}
    if decision == "cat":
        fresh = tuple(game.events()[-1]["at"])
        return {("no_cat",)} | {("cat", n) for n in cat_spots(table, seat, fresh)}
    if decision == "play":
        out = set()
        for card, n in table.hands[seat].items():
            if n and card.startswith("box:"):
                for t, m in _turnings(parse_walls(card[4:])):
                    out |= {("place", card, t, x) for x in near if table.can_lay(x, m)}
            if n and card == "princess":
                out |= {("princess", north) for north in table.cats}
        if not out:
            out = {("discard", card) for card, n in table.hands[seat].items() if n}
        return out
    return set()


def decoded_legal(game: Game) -> set[tuple]:
    """game.legal() in the same readable form as expected_legal."""
    out = set()
    for a in game.legal().tolist():
        kind, a1, x = action_kind(a), action_arg1(a), action_arg2(a)
        cell = tuple(game.cell(x))
        if kind == A_BOX:
            out.add(("box",))
        elif kind == A_SLEEP_CHOICE:
            out.add(("sleeping",))
        elif kind == A_SLEEP:
            out.add(("sleep", bool(a1), cell))
        elif kind == A_ITEM:
            step = 1 if a1 == DIR_E else game.pr.width
            out.add(("item", frozenset((cell, tuple(game.cell(x + step))))))
        elif kind == A_NO_CAT:
            out.add(("no_cat",))
        elif kind == A_CAT:
            out.add(("cat", cell))
        elif kind == A_PLACE:
            out.add(("place", game.card_name(a1 >> 1), bool(a1 & 1), cell))
        elif kind == A_PRINCESS:
            out.add(("princess", cell))
        elif kind == A_DISCARD:
            out.add(("discard", game.card_name(a1)))
    assert len(out) == len(game.legal()), "an action is listed twice"
    return out


class LegalSetCheck:
    """After every action: game.legal() is exactly the RULES.md set, and the choices the engine
    made silently (no sleeping-cat choice, no cat decision) were forced."""

    def __init__(self) -> None:
        self.seen = 0

    def __call__(self, game: Game) -> None:
        log = game.events()
        new = log[self.seen :] if self.seen else log[1:]
        self.seen = len(log)
        table = table_of(game)
        for i, event in enumerate(new):
            # A normal box turn begun without a choice: no sleeping-cat action was possible
            # (only draws and items, which lay no card, happen before the next decision).
            if event == {
                "event": "turn",
                "seat": event.get("seat"),
                "phase": "normal",
                "action": "box",
            } and not (i == 0 and self.chose):
                table.phase = "normal"
                assert not sleeping_fits(table, event["seat"]), "R3.2: a sleeping cat fitted"
            # A placed box card not followed by a cat decision: no cat spot was free.
            if event["event"] == "place" and not (game.decision == "cat" and event is log[-1]):
                assert not cat_spots(table, event["seat"], tuple(event["at"])), "R4: a spot"
        self.chose = game.decision == "choose"
        if not game.over:
            assert decoded_legal(game) == expected_legal(game)

    chose = False


# ---------------------------------------------------------------- the properties


@PROPERTY
@given(cfg=configs(), seed=st.integers(0, 2**40), rng=st.randoms(use_true_random=False))
def test_every_game_ends_and_every_logged_action_replays_legally(cfg, seed, rng):
    """(a) every game ends within the decision bound; (b) the independent replayer accepts the
    whole log and rebuilds the engine's final table."""
    game = play(cfg, seed, rng)
    replay = Replay(cfg)
    replay.run(game.events())
    pos, mine = game.position(), replay.position()
    assert pos.cards == mine.cards and pos.sleeping == mine.sleeping
    assert set(pos.cats) == set(mine.cats) and set(pos.princesses) == set(mine.princesses)
    assert {(i.kind, frozenset((i.a, i.b))) for i in pos.items} == {
        (i.kind, frozenset((i.a, i.b))) for i in mine.items
    }
    assert game.trigger == replay.trigger


@PROPERTY
@given(cfg=configs(), seed=st.integers(0, 2**40), rng=st.randoms(use_true_random=False))
def test_cards_accounted_and_fast_boxes_equal_slow_boxes_after_every_action(cfg, seed, rng):
    """(c) every card accounted for, (d) incremental boxes and closure equal the reference,
    after setup and after every action; legal() is exactly the set RULES.md allows, computed
    independently; the fast sampler agrees with legal()."""

    legal_set = LegalSetCheck()

    def each(game: Game) -> None:
        check_accounting(game)
        check_boxes(game)
        check_fast_sampler(game)
        legal_set(game)

    play(cfg, seed, rng, each)


@PROPERTY
@given(cfg=configs(), seed=st.integers(0, 2**40), rng=st.randoms(use_true_random=False))
def test_final_scores_equal_the_reference_scoring(cfg, seed, rng):
    """(e) R8: the engine's final scores, bonuses and winners equal reference.score_position of
    the final table, and the log's `end` record says the same."""
    game = play(cfg, seed, rng)
    result = game.outcome()
    ref = reference.score_position(game.position())
    assert list(result.scores) == ref["scores"]
    assert list(result.cat_bonus) == ref["cat_bonus"]
    assert list(result.winners) == ref["winners"]
    end = game.events()[-1]
    assert (end["scores"], end["cat_bonus"], end["winners"]) == (
        ref["scores"],
        ref["cat_bonus"],
        ref["winners"],
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_final_scores_equal_sim_score_on_the_written_position(seed: int, tmp_path: Path):
    """(e) `sim score` on the final position file prints the engine's scores."""
    cfg = GameConfig.model_validate(
        {
            "players": 3,
            "hand_size": 2,
            "table": {"columns": 6, "rows": 6},
            "rules": {"sleeping_counts_for_majority": seed != 2},
        }
    )
    game = play(cfg, seed, random.Random(seed))
    path = tmp_path / "final.json"
    path.write_text(json.dumps(position_to_json(game.position())), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["score", str(path)]) == 0
    printed = json.loads(out.getvalue())
    assert printed["scores"] == list(game.outcome().scores)
    assert printed["cat_bonus"] == list(game.outcome().cat_bonus)


# ---------------------------------------------------------------- (f) determinism


@settings(max_examples=15, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 2**40), index=st.integers(0, 1000))
def test_same_seed_and_index_give_the_same_log(cfg, seed, index):
    """(f) A game is a function of (seed, index): two runs log identical events."""
    study = parse_study({**cfg.game_dict(), "seats": [{"policy": "random"}] * cfg.players}, "t")
    one = play_one(study, seed, index, log=True).events()
    two = play_one(study, seed, index, log=True).events()
    assert one == two


def test_compiled_random_loop_matches_the_python_driver():
    """(f) fastplay.random_turns plays the same games as sim.runs.play.play_one for the same
    (seed, index): equal turn counts for every game of a batch, over several configs."""
    for players, variant in [(2, "any"), (3, "matching"), (4, "any"), (5, "any")]:
        study = parse_study(
            {
                "players": players,
                "seats": [{"policy": "random"}] * players,
                "table": {"columns": 8, "rows": 8},
                "rules": {"match_sides": variant},
            },
            "t",
        )
        engine = engine_for(study.game)
        for seed in (0, 11, 2**35 + 3):
            first, count = 5, 8
            fast = random_turns(engine.pr, engine.blank, seed, first, count)
            slow = [play_one(study, seed, first + i).turns for i in range(count)]
            assert fast.tolist() == slow


def test_different_indices_give_different_games():
    """(f) The game index feeds the shuffle: ten indices of one root give ten decks."""
    engine = engine_for(GameConfig())
    decks = {tuple(Game(engine, 7, i).setup_event()["deck"]) for i in range(10)}
    assert len(decks) == 10


# ---------------------------------------------------------------- the replayer can fail


def _tamper(log: list[dict], kind: str, change) -> list[dict]:
    """A copy of the log with the first record of `kind` changed by change(record)."""
    out = [dict(e) for e in log]
    i = next(i for i, e in enumerate(out) if e["event"] == kind)
    out[i] = change(out[i])
    return out


TAMPERINGS = {
    "R1.4 a card far from the layout": ("place", lambda e: {**e, "at": [e["at"][0] + 3, 9]}),
    "R1.3 a card laid with other walls": ("place", lambda e: {**e, "walls": "NESW"}),
    "R2.5 a turn out of seat order": ("turn", lambda e: {**e, "seat": 1}),
    "R3.1 a draw that is not the top card": ("draw", lambda e: {**e, "card": "box:NESW"}),
    "R4.1 a cat on cells without cards": ("cat", lambda e: {**e, "at": [[5, 5], [6, 5]]}),
    "R5.1 an item across a gap": ("item", lambda e: {**e, "between": [[7, 7], [7, 8]]}),
    "R6.1 a Princess on no cat": ("princess", lambda e: {**e, "at": [[7, 7], [8, 7]]}),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_the_replayer_rejects_a_tampered_log(name: str):
    """The replayer is a real check: one changed record in a legal log makes it fail."""
    cfg = GameConfig.model_validate(
        {
            "players": 3,
            "hand_size": 2,
            "deck": {
                "boxes": {"": 8, "N": 8, "NE": 6},
                "princesses": 3,
                "toys": {"yarn": 3},
                "sprayers": 1,
            },
        }
    )
    kind, change = TAMPERINGS[name]
    for seed in range(50):
        log = play(cfg, seed, random.Random(seed)).events()
        if any(e["event"] == kind for e in log):
            break
    Replay(cfg).run(log)
    with pytest.raises(AssertionError):
        Replay(cfg).run(_tamper(log, kind, change))


def test_the_random_draw_with_a_princess_in_hand_is_legals_action_at_its_index():
    """The random policy's draw at a play decision where a Princess can evict one of several
    cats (the shortcut's own branch) is legal()'s action at the drawn index: base games with
    more Princesses, checked after every action; such positions do occur."""
    base = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
    cfg = load_study(base).with_overrides(deck={"princesses": 6}).game
    seen = 0

    def each(game: Game) -> None:
        nonlocal seen
        legal = game.legal()
        if sum(action_kind(int(a)) == A_PRINCESS for a in legal) >= 2:
            seen += 1
        check_fast_sampler(game)

    for seed in range(6):
        play(cfg, seed, random.Random(seed), each)
    assert seen >= 20
