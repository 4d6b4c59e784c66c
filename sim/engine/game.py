"""One game driven from Python: legal actions, effects, player views, logs, positions.

The compiled functions do the work; this class names things for people,
checks actions from outside (policies, replays), and turns the event buffer
into the JSON Lines log of `sim play --log`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from sim.engine import actions as A  # the action encoding (describe reads it)
from sim.engine import state
from sim.engine.legal import legal_actions
from sim.engine.position import AwakeCat, Item, Position, Princess
from sim.engine.rng import WORD_SEAT0, game_words
from sim.engine.scoring import cat_bonus, final_scores, winners
from sim.engine.state import (
    DEC_OVER,
    DECISION_NAMES,
    DIR_E,
    DIR_S,
    FREE,
    PRINCESS,
    SC_DECISION,
    SC_DECK_LEN,
    SC_DECK_POS,
    SC_ITEM,
    SC_NCATS,
    SC_NEVENTS,
    SC_NPLACED,
    SC_PHASE,
    SC_PRINCESSES,
    SC_SEAT,
    SC_TRIGGER,
    SC_TURNS,
    SC_WASTED,
    SLEEP_BASE,
    ST_DEALT,
    ST_DISCARDED,
    ST_WASTED,
    TRIGGER_NAMES,
    Engine,
    StateView,
)
from sim.engine.turns import TURN_SKIP, TURN_SLEEPING, apply_action, setup
from sim.errors import IllegalAction
from sim.walls import walls_str

PHASE_NAMES = ("normal", "final", "over")


@dataclass(frozen=True)
class Outcome:
    """Final scores of a game (R8) and its winners (R8.6)."""

    scores: tuple[int, ...]
    cat_bonus: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class PlayerView:
    """What one seat may know (R2.4): own hand, the table, public counts; never the deck order
    or another seat's cards."""

    seat: int
    players: int
    phase: str
    decision: str
    pending_item: str | None
    hand: tuple[str, ...]
    table: Position
    awake_supply: tuple[int, ...]
    sleeping_supply: tuple[int, ...]
    deck_size: int
    hand_sizes: tuple[int, ...]
    discarded: dict[str, int]
    wasted: dict[str, int]
    turns: int
    end_triggered: str


class Game:
    """A game of one config, set up from (seed, game index) as the runner does it."""

    def __init__(self, engine: Engine, seed: int, index: int = 0, *, log: bool = False) -> None:
        self.engine = engine
        self.pr = engine.pr
        self.seed = seed
        self.index = index
        self.words = game_words(seed, index, WORD_SEAT0 + self.pr.players)
        self.s = engine.new_state(log=log)
        self.buf = np.empty(self.pr.max_actions, np.int32)
        deck, aside = setup(self.s, self.pr, self.words)
        self.deck_before = [int(t) for t in deck]
        self.aside = [int(t) for t in aside]
        self.view_ = StateView(self.s, self.pr)

    # ------------------------------------------------------------ the decision

    @property
    def over(self) -> bool:
        return self.s[SC_DECISION] == DEC_OVER

    @property
    def seat(self) -> int:
        """The seat whose decision is pending."""
        return int(self.s[SC_SEAT])

    @property
    def decision(self) -> str:
        return DECISION_NAMES[self.s[SC_DECISION]]

    def legal(self) -> np.ndarray:
        """The legal actions at the pending decision, in the engine's fixed order."""
        n = legal_actions(self.s, self.pr, self.buf)
        return self.buf[:n].copy()

    def apply(self, action: int) -> None:
        """Carry out one action; raises IllegalAction if it is not legal here."""
        if self.over:
            raise IllegalAction("the game is over")
        if int(action) not in set(self.legal().tolist()):
            raise IllegalAction(
                f"{self.describe(action)} is not legal at this {self.decision} decision"
            )
        apply_action(self.s, self.pr, np.int32(action))

    def seat_stream(self, seat: int) -> np.ndarray:
        """Seat's random stream seed word, for a policy's own generator."""
        return np.array([self.words[WORD_SEAT0 + seat]], np.uint64)

    def view(self, seat: int) -> PlayerView:
        """The seat's player view: built from public parts of the state and its own hand only."""
        v = self.view_
        names = self.engine.types.names
        discarded = v.stats[:, :, ST_DISCARDED].sum(axis=0)
        wasted = v.stats[:, :, ST_WASTED].sum(axis=0)
        return PlayerView(
            seat=seat,
            players=self.pr.players,
            phase=self.phase,
            decision=self.decision,
            pending_item=self.pending_item if seat == self.seat else None,
            hand=tuple(self.hand(seat)),
            table=self.position(),
            awake_supply=tuple(int(n) for n in v.awake),
            sleeping_supply=tuple(int(n) for n in v.asleep),
            deck_size=self.deck_size,
            hand_sizes=tuple(int(n) for n in v.hands.sum(axis=1)),
            discarded={names[t]: int(n) for t, n in enumerate(discarded) if n},
            wasted={names[t]: int(n) for t, n in enumerate(wasted) if n},
            turns=self.turns,
            end_triggered=self.trigger,
        )

    # ------------------------------------------------------------ names

    def card_name(self, t: int) -> str:
        return self.engine.types.names[t]

    def cell(self, x: int) -> list[int]:
        """[row, col] of a cell index."""
        return [int(x // self.pr.width - self.pr.rows), int(x % self.pr.width - self.pr.cols)]

    def seam(self, x: int, side: int) -> list[list[int]]:
        step = 1 if side == DIR_E else self.pr.width
        return [self.cell(x), self.cell(x + step)]

    def describe(self, action: int) -> str:
        """A readable form of an action, for messages and `--show`."""
        kind, a1, a2 = A.action_kind(action), A.action_arg1(action), A.action_arg2(action)
        if kind == A.A_BOX:
            return "box action"
        if kind == A.A_SLEEP_CHOICE:
            return "sleeping-cat action"
        if kind == A.A_PLACE:
            turned = " turned" if a1 & 1 else ""
            return f"place {self.card_name(a1 >> 1)}{turned} at {self.cell(a2)}"
        if kind == A.A_PRINCESS:
            return f"Princess evicts the cat at {self.cell(a2)}"
        if kind == A.A_DISCARD:
            return f"discard {self.card_name(a1)}"
        if kind == A.A_CAT:
            return f"cat at {self.cell(a2)}+{self.cell(a2 + self.pr.width)}"
        if kind == A.A_NO_CAT:
            return "no cat"
        if kind == A.A_ITEM:
            return f"item on {self.seam(a2, a1)}"
        if kind == A.A_SLEEP:
            return f"sleeping cat at {self.cell(a2)}{' turned' if a1 else ''}"
        return f"unknown action {action}"

    # ------------------------------------------------------------ results

    def outcome(self) -> Outcome:
        """Scores as the table stands now (final scores once the game is over)."""
        scores = final_scores(self.s, self.pr)
        bonus = np.zeros(self.pr.players, np.int64)
        cat_bonus(self.s, self.pr, bonus)
        mask, _ = winners(scores)
        seats = tuple(q for q in range(self.pr.players) if mask >> q & 1)
        return Outcome(tuple(int(v) for v in scores), tuple(int(v) for v in bonus), seats)

    def position(self) -> Position:
        """The table as a Position (what `sim score` reads)."""
        v, pr = self.view_, self.pr
        placed = [int(x) for x in v.placed[: self.s[SC_NPLACED]]]
        cards = {tuple(self.cell(x)): int(v.walls[x]) for x in placed}
        sleeping = {
            tuple(self.cell(x)): int(v.occupant[x]) - SLEEP_BASE
            for x in placed
            if FREE != v.occupant[x] and SLEEP_BASE <= v.occupant[x] < PRINCESS
        }
        cats = tuple(
            AwakeCat(
                int(v.cat_owner[i]),
                tuple(self.cell(v.cat_cell[i])),
                tuple(self.cell(v.cat_cell[i] + pr.width)),
            )
            for i in range(self.s[SC_NCATS])
        )
        princesses = tuple(
            Princess(
                tuple(self.cell(v.princess_cell[i])),
                tuple(self.cell(v.princess_cell[i] + pr.width)),
            )
            for i in range(self.s[SC_PRINCESSES])
        )
        items = []
        for x in placed:
            for side, slot in ((DIR_E, 2 * x), (DIR_S, 2 * x + 1)):
                t = int(v.seam_item[slot])
                if t >= 0:
                    a, b = self.seam(x, side)
                    items.append(Item(self.engine.types.item_name(t), tuple(a), tuple(b)))
        return Position(
            players=pr.players,
            cards=cards,
            sleeping=sleeping,
            cats=cats,
            princesses=princesses,
            items=tuple(items),
            rules=self.engine.rules,
        )

    # ------------------------------------------------------------ public facts

    @property
    def deck_size(self) -> int:
        return int(self.s[SC_DECK_LEN] - self.s[SC_DECK_POS])

    @property
    def deck(self) -> list[str]:
        """The draw deck, top first (hidden information: for logs and tests only)."""
        v = self.view_
        return [self.card_name(t) for t in v.deck[self.s[SC_DECK_POS] : self.s[SC_DECK_LEN]]]

    def hand(self, seat: int) -> list[str]:
        """Seat's hand as card names (hidden from the other seats)."""
        out = []
        for t, n in enumerate(self.view_.hands[seat]):
            out += [self.card_name(t)] * int(n)
        return out

    @property
    def turns(self) -> int:
        return int(self.s[SC_TURNS])

    @property
    def trigger(self) -> str:
        return TRIGGER_NAMES[self.s[SC_TRIGGER]]

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self.s[SC_PHASE]]

    @property
    def wasted(self) -> int:
        return int(self.s[SC_WASTED])

    @property
    def pending_item(self) -> str | None:
        """The drawn item waiting for a seam, at an item decision."""
        return self.card_name(int(self.s[SC_ITEM])) if self.decision == "item" else None

    # ------------------------------------------------------------ the log

    def setup_event(self) -> dict:
        """The `setup` log record: config, deck, start card, hands, aside, deck after setup."""
        start = self.position().cards[(0, 0)]
        start_type = next(t for t in self.deck_before if self.card_name(t).startswith("box:"))
        return {
            "event": "setup",
            "seed": self.seed,
            "game": self.index,
            "config": copy.deepcopy(dict(self.engine.settings)),
            "deck": [self.card_name(t) for t in self.deck_before],
            "start": {"card": self.card_name(start_type), "at": [0, 0], "walls": walls_str(start)},
            "hands": [self._dealt(p) for p in range(self.pr.players)],
            "aside": [self.card_name(t) for t in self.aside],
            "deck_after": self._deck_after_setup(),
        }

    def _dealt(self, seat: int) -> list[str]:
        out = []
        for t, n in enumerate(self.view_.stats[seat, :, ST_DEALT]):
            out += [self.card_name(t)] * int(n)
        return out

    def _deck_after_setup(self) -> list[str]:
        v = self.view_
        return [self.card_name(t) for t in v.deck[: self.s[SC_DECK_LEN]]]

    def events(self) -> list[dict]:
        """The game so far as log records (needs log=True); `end` is added once it is over."""
        out = [self.setup_event(), *self.event_records()]
        if self.over:
            result = self.outcome()
            out.append(
                {
                    "event": "end",
                    "scores": list(result.scores),
                    "cat_bonus": list(result.cat_bonus),
                    "winners": list(result.winners),
                }
            )
        return out

    def event_records(self, first: int = 0) -> list[dict]:
        """The log records of the engine's events from the `first` on (no setup, no end):
        what `events()` holds after its setup record, without rebuilding the earlier ones."""
        rows = self.view_.events[first : self.s[SC_NEVENTS]].tolist()
        return [self._event(kind, seat, a, b, c) for kind, seat, a, b, c, _ in rows]

    def _event(self, kind: int, seat: int, a: int, b: int, c: int) -> dict:
        if kind == state.EV_TURN:
            action = "skip" if b == TURN_SKIP else "sleeping" if b == TURN_SLEEPING else "box"
            return {"event": "turn", "seat": seat, "phase": PHASE_NAMES[a], "action": action}
        if kind == state.EV_DRAW:
            return {"event": "draw", "seat": seat, "card": self.card_name(a)}
        if kind == state.EV_ITEM:
            return {
                "event": "item",
                "seat": seat,
                "kind": self.engine.types.item_name(a),
                "between": self.seam(b, c),
            }
        if kind == state.EV_WASTED:
            return {"event": "item_wasted", "seat": seat, "kind": self.engine.types.item_name(a)}
        if kind == state.EV_PLACE:
            return {
                "event": "place",
                "seat": seat,
                "card": self.card_name(a),
                "at": self.cell(b),
                "walls": walls_str(c),
            }
        if kind == state.EV_CAT:
            return {
                "event": "cat",
                "seat": seat,
                "at": [self.cell(a), self.cell(a + self.pr.width)],
            }
        if kind == state.EV_SLEEPING:
            return {"event": "sleeping", "seat": seat, "at": self.cell(a), "walls": walls_str(b)}
        if kind == state.EV_PRINCESS:
            return {
                "event": "princess",
                "seat": seat,
                "at": [self.cell(a), self.cell(a + self.pr.width)],
                "evicted": b,
            }
        if kind == state.EV_DISCARD:
            return {"event": "discard", "seat": seat, "card": self.card_name(a)}
        if kind == state.EV_TRIGGER:
            return {"event": "end_trigger", "seat": seat, "reason": TRIGGER_NAMES[a]}
        raise ValueError(f"unknown event kind {kind}")
