"""The compiled game state: flat arrays, small ints, lookup tables.

The grid is padded so that neighbour lookups never leave it: the start card
sits in the middle of a (2*rows+1) x (2*columns+1) array, room for any layout
whose bounding rectangle fits the table (R1.5) plus a one-cell rim.

    (r-1,c)          long seam (N)
    (r,c-1) [card] (r,c+1)   short seams (W, E)
    (r+1,c)          long seam (S)
"""

from __future__ import annotations

import hashlib
from collections import namedtuple

import numpy as np

from sim.config import GameConfig
from sim.engine.walls import parse_walls

ENGINE_VERSION = 1  # bump whenever game behaviour changes

# Sides: index d, bit 1 << d; the opposite side is d ^ 2.
DIR_N, DIR_E, DIR_S, DIR_W = 0, 1, 2, 3

# What a card type is.
KIND_BOX, KIND_PRINCESS, KIND_SPRAYER, KIND_TOY = 0, 1, 2, 3

# Cell occupants (R4.3): -1 free; p an awake cat of seat p; SLEEP_BASE + p a sleeping cat.
FREE = -1
SLEEP_BASE = 16
PRINCESS = 32

# Decisions the engine can be waiting for.
DEC_CHOOSE, DEC_ITEM, DEC_PLAY, DEC_CAT, DEC_SLEEP, DEC_OVER = 0, 1, 2, 3, 4, 5
DECISION_NAMES = ("choose", "item", "play", "cat", "sleep", "over")

# Phases (R3, R7.2).
PHASE_NORMAL, PHASE_FINAL, PHASE_OVER = 0, 1, 2

# End triggers (R7.1).
TRIGGER_NONE, TRIGGER_DECK, TRIGGER_CAT = 0, 1, 2
TRIGGER_NAMES = ("none", "deck_empty", "last_cat")

# Scalar slots in State.sc.
SC_SEAT = 0
SC_DECISION = 1
SC_PHASE = 2
SC_ITEM = 3  # card type of the item waiting to be placed
SC_PLACED = 4  # cell of the box card placed this turn, -1 if none
SC_TRIGGER = 5
SC_TRIGGER_SEAT = 6
SC_TURNS = 7
SC_DECK_POS = 8  # index of the deck's top card
SC_NCATS = 9  # awake cats on the table
SC_NPLACED = 10  # cards on the table
SC_MINR, SC_MAXR, SC_MINC, SC_MAXC = 11, 12, 13, 14
SC_NEVENTS = 15
SC_LOG = 16  # 1: record events
SC_NFRONT = 17  # empty cells next to a card
SC_WASTED = 18  # items removed from the game (R5.3)
SC_NDISCARD = 19
SC_TRIGGER_TURN = 20
SC_PRINCESSES = 21  # Princesses on the table
SC_DECK_LEN = 22  # cards in the deck after setup (the deck is deck[SC_DECK_POS:SC_DECK_LEN])
N_SC = 24

# Per (seat, card type) counters for the results.
ST_DEALT, ST_DRAWN, ST_PLAYED, ST_DISCARDED, ST_WASTED, ST_INTO_LED, ST_INTO_OTHER = range(7)
N_ST = 7
STAT_NAMES = ("dealt", "drawn", "played", "discarded", "wasted", "into_led", "into_other")

# Per seat counters.
PS_CATS, PS_SLEEPING, PS_PRINCESS, PS_EVICTED, PS_DISCARDS, PS_TURNS = range(6)
N_PS = 6

# Event records: kind, seat, a, b, c, d.
EV_SETUP, EV_TURN, EV_DRAW, EV_ITEM, EV_WASTED, EV_PLACE = 0, 1, 2, 3, 4, 5
EV_CAT, EV_SLEEPING, EV_PRINCESS, EV_DISCARD, EV_TRIGGER, EV_END = 6, 7, 8, 9, 10, 11
EV_WIDTH = 6

Params = namedtuple(
    "Params",
    [
        "players", "rows", "cols", "width", "ncells", "origin", "ntoys", "ntypes",
        "hand_size", "cats", "sleeps", "sleep_walls",
        "match_sides", "entry_any", "evict_discard", "sleep_majority",
        "type_kind", "type_walls", "type_toy", "type_salt",
        "deck_types", "deck_copies", "offsets", "max_actions", "max_events",
    ],
)

State = namedtuple(
    "State",
    [
        "sc", "walls", "parent", "occupant",
        "box_open", "box_size", "box_toys", "box_spray", "box_awake", "box_sleep",
        "seam_item", "front", "front_pos", "placed",
        "cat_cell", "cat_owner", "princess_cell",
        "deck", "hands", "awake", "asleep", "stats", "seat_stats", "events",
    ],
)


class CardTypes:
    """Names and kinds of the card types of one config, in a fixed order.

    Box kinds come first in the config's order, then the Princess, the
    sprayer, and the toys in the config's order.
    """

    def __init__(self, config: GameConfig) -> None:
        self.names: list[str] = []
        self.kinds: list[int] = []
        self.walls: list[int] = []
        self.toy_index: list[int] = []
        self.counts: list[int] = []
        for walls, count in config.deck.boxes.items():
            self._add(f"box:{walls}", KIND_BOX, parse_walls(walls), -1, count)
        self.princess = self._add("princess", KIND_PRINCESS, -1, -1, config.deck.princesses)
        self.sprayer = self._add("sprayer", KIND_SPRAYER, -1, -1, config.deck.sprayers)
        self.toy_kinds = list(config.deck.toys)
        for k, (kind, count) in enumerate(config.deck.toys.items()):
            self._add(f"toy:{kind}", KIND_TOY, -1, k, count)
        self.index = {name: t for t, name in enumerate(self.names)}

    def _add(self, name: str, kind: int, walls: int, toy: int, count: int) -> int:
        self.names.append(name)
        self.kinds.append(kind)
        self.walls.append(walls)
        self.toy_index.append(toy)
        self.counts.append(count)
        return len(self.names) - 1

    def __len__(self) -> int:
        return len(self.names)

    def item_name(self, t: int) -> str:
        """The `kind` an item event uses: the toy kind or "sprayer"."""
        return self.toy_kinds[self.toy_index[t]] if self.kinds[t] == KIND_TOY else "sprayer"


def card_salt(name: str) -> int:
    """A stable 64-bit key per card name, so a card's shuffle key never depends on the others."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


def make_params(config: GameConfig) -> Params:
    """Compile a validated config into the engine's flat parameters."""
    types = CardTypes(config)
    rows, cols = config.table.rows, config.table.columns
    width = 2 * cols + 1
    ncells = (2 * rows + 1) * width
    deck_types, deck_copies = [], []
    for t, count in enumerate(types.counts):
        deck_types += [t] * count
        deck_copies += list(range(count))
    n_cards = len(deck_types)
    players = config.players
    rules = config.rules
    return Params(
        players=players,
        rows=rows,
        cols=cols,
        width=width,
        ncells=ncells,
        origin=rows * width + cols,
        ntoys=max(1, len(types.toy_kinds)),
        ntypes=len(types),
        hand_size=config.hand_size,
        cats=config.cats_per_player,
        sleeps=config.sleeping_per_player,
        sleep_walls=parse_walls(config.sleeping_card_walls),
        match_sides=int(rules.match_sides == "matching"),
        entry_any=int(rules.cat_entry == "any"),
        evict_discard=int(rules.evicted_cat == "discard"),
        sleep_majority=int(rules.sleeping_counts_for_majority),
        type_kind=np.array(types.kinds, np.int8),
        type_walls=np.array(types.walls, np.int8),
        type_toy=np.array(types.toy_index, np.int8),
        type_salt=np.array([card_salt(n) for n in types.names], np.uint64),
        deck_types=np.array(deck_types, np.int8),
        deck_copies=np.array(deck_copies, np.int16),
        offsets=np.array([-width, 1, width, -1], np.int64),
        max_actions=2 * ncells * (config.hand_size + 2) + 64,
        max_events=12 * (n_cards + players * (config.cats_per_player + config.sleeping_per_player))
        + 8 * players * (config.hand_size + 2)
        + 64,
    )


def new_state(pr: Params) -> State:
    """An empty state shaped for these parameters (setup fills it)."""
    n, players, ntypes = pr.ncells, pr.players, pr.ntypes
    max_cats = players * pr.cats + 1
    return State(
        sc=np.zeros(N_SC, np.int64),
        walls=np.full(n, -1, np.int8),
        parent=np.full(n, -1, np.int16),
        occupant=np.full(n, FREE, np.int8),
        box_open=np.zeros(n, np.int16),
        box_size=np.zeros(n, np.int16),
        box_toys=np.zeros((n, pr.ntoys), np.int16),
        box_spray=np.zeros(n, np.int16),
        box_awake=np.zeros((n, players), np.int16),
        box_sleep=np.zeros((n, players), np.int16),
        seam_item=np.full(2 * n, -1, np.int8),
        front=np.zeros(n, np.int16),
        front_pos=np.full(n, -1, np.int16),
        placed=np.zeros(n, np.int16),
        cat_cell=np.zeros(max_cats, np.int16),
        cat_owner=np.zeros(max_cats, np.int8),
        princess_cell=np.zeros(len(pr.deck_types) + 1, np.int16),
        deck=np.zeros(len(pr.deck_types), np.int8),
        hands=np.zeros((players, ntypes), np.int8),
        awake=np.zeros(players, np.int16),
        asleep=np.zeros(players, np.int16),
        stats=np.zeros((players, ntypes, N_ST), np.int32),
        seat_stats=np.zeros((players, N_PS), np.int32),
        events=np.zeros((pr.max_events, EV_WIDTH), np.int32),
    )


def copy_state(st: State) -> State:
    """A deep copy, for look-ahead (cheap: a few small arrays)."""
    return State(*(a.copy() for a in st))
