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
from dataclasses import dataclass

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
SC_FREE_SEAMS = 23  # open seams without an item (R5.3 needs only whether one exists)
SC_DECISIONS = 24  # actions applied so far (every decision a player made)
N_SC = 26

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

# Params holds only ints; the state is one int32 buffer. A compiled call then
# moves a single array, which keeps numba's reference counting (atomic
# increments per array argument) off the hot path: that alone was a 17x
# speed-up over a tuple of arrays. The buffer starts with the scalar slots,
# then a constant lookup table (per card type: kind, walls, toy index, name
# salt; per physical card: type and copy number; the neighbour offsets),
# then the mutable parts of the game.
TAB_PARTS = ("t_kind", "t_walls", "t_toy", "t_salt", "t_deck_type", "t_deck_copy", "t_row", "t_col")

Params = namedtuple(
    "Params",
    [
        "players",
        "rows",
        "cols",
        "width",
        "ncells",
        "origin",
        "ntoys",
        "ntypes",
        "ndeck",
        "hand_size",
        "cats",
        "sleeps",
        "sleep_walls",
        "match_sides",
        "entry_any",
        "evict_discard",
        "sleep_majority",
        "max_cats",
        "max_actions",
        "max_events",
        # where the lookup table's parts start in the state buffer
        "t_kind",
        "t_walls",
        "t_toy",
        "t_salt",
        "t_deck_type",
        "t_deck_copy",
        "t_row",
        "t_col",
        # offsets into the state buffer
        "o_sc",
        "o_tab",
        "o_walls",
        "o_parent",
        "o_occ",
        "o_open",
        "o_size",
        "o_spray",
        "o_toys",
        "o_awake",
        "o_sleep",
        "o_seam",
        "o_front",
        "o_fpos",
        "o_placed",
        "o_cat_cell",
        "o_cat_owner",
        "o_princess",
        "o_deck",
        "o_hands",
        "o_supply_awake",
        "o_supply_sleep",
        "o_stats",
        "o_seat_stats",
        "o_scratch",
        "o_events",
        "state_size",
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
    """A stable 31-bit key per card name, so a card's shuffle key never depends on the others."""
    digest = hashlib.blake2b(name.encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def _lookup_table(
    types: CardTypes, deck_types: list[int], deck_copies: list[int], rows: int, cols: int
):
    """The constant part of the state buffer and where each part starts within it.

    Cell rows and columns are tabulated because an integer division per cell
    check cost a fifth of a random game.
    """
    width = 2 * cols + 1
    ncells = (2 * rows + 1) * width
    salts = [card_salt(n) for n in types.names]
    parts = [
        types.kinds,
        types.walls,
        types.toy_index,
        salts,
        deck_types,
        deck_copies,
        [x // width - rows for x in range(ncells)],
        [x % width - cols for x in range(ncells)],
    ]
    offsets, tab = [], []
    for part in parts:
        offsets.append(len(tab))
        tab += part
    return offsets, tab


def _make_params(config: GameConfig) -> tuple[Params, list[int]]:
    """Compile a validated config into the engine's flat parameters and lookup table."""
    types = CardTypes(config)
    rows, cols = config.table.rows, config.table.columns
    width = 2 * cols + 1
    ncells = (2 * rows + 1) * width
    deck_types, deck_copies = [], []
    for t, count in enumerate(types.counts):
        deck_types += [t] * count
        deck_copies += list(range(count))
    ndeck = len(deck_types)
    players, ntypes = config.players, len(types)
    ntoys = max(1, len(types.toy_kinds))
    tab_offsets, tab = _lookup_table(types, deck_types, deck_copies, rows, cols)
    max_cats = players * config.cats_per_player + 1
    # Parts that setup needs in their blank state come first, up to o_scratch;
    # the rest is written before it is read (per-box data when a card is laid,
    # list entries when they are appended), so a new game copies only the head.
    sizes = [
        ("o_sc", N_SC),
        ("o_walls", ncells),
        ("o_occ", ncells),
        ("o_seam", 2 * ncells),
        ("o_fpos", ncells),
        ("o_deck", ndeck),
        ("o_hands", players * ntypes),
        ("o_supply_awake", players),
        ("o_supply_sleep", players),
        ("o_stats", players * ntypes * N_ST),
        ("o_seat_stats", players * N_PS),
        ("o_scratch", 0),
        ("o_parent", ncells),
        ("o_open", ncells),
        ("o_size", ncells),
        ("o_spray", ncells),
        ("o_toys", ncells * ntoys),
        ("o_awake", ncells * players),
        ("o_sleep", ncells * players),
        ("o_front", ncells),
        ("o_placed", ncells),
        ("o_cat_cell", max_cats),
        ("o_cat_owner", max_cats),
        ("o_princess", ndeck + 1),
        ("o_tab", len(tab)),  # constant: never written during a game
    ]
    offsets, at = {}, 0
    for name, size in sizes:
        offsets[name] = at
        at += size
    rules = config.rules
    return Params(
        players=players,
        rows=rows,
        cols=cols,
        width=width,
        ncells=ncells,
        origin=rows * width + cols,
        ntoys=ntoys,
        ntypes=ntypes,
        ndeck=ndeck,
        hand_size=config.hand_size,
        cats=config.cats_per_player,
        sleeps=config.sleeping_per_player,
        sleep_walls=parse_walls(config.sleeping_card_walls),
        match_sides=int(rules.match_sides == "matching"),
        entry_any=int(rules.cat_entry == "any"),
        evict_discard=int(rules.evicted_cat == "discard"),
        sleep_majority=int(rules.sleeping_counts_for_majority),
        max_cats=max_cats,
        max_actions=2 * ncells * (config.hand_size + 2) + 64,
        max_events=12 * (ndeck + players * (config.cats_per_player + config.sleeping_per_player))
        + 8 * players * (config.hand_size + 2)
        + 64,
        **{name: offsets["o_tab"] + at for name, at in zip(TAB_PARTS, tab_offsets, strict=True)},
        o_events=at,
        state_size=at,
        **offsets,
    ), tab


@dataclass(frozen=True, eq=False)
class Engine:
    """A config compiled for the engine: parameters, card types, and a blank state."""

    config: GameConfig
    types: CardTypes
    pr: Params
    blank: np.ndarray  # an empty state with the lookup table filled in

    def new_state(self, *, log: bool = False) -> np.ndarray:
        """A fresh state buffer (setup fills it); with room for events if `log`."""
        if not log:
            return self.blank.copy()
        s = np.zeros(self.pr.state_size + self.pr.max_events * EV_WIDTH, np.int32)
        s[: self.pr.state_size] = self.blank
        s[SC_LOG] = 1
        return s


def make_engine(config: GameConfig) -> Engine:
    """Compile a validated config once; the result is shared by every game of a run."""
    pr, tab = _make_params(config)
    blank = np.zeros(pr.state_size, np.int32)
    blank[pr.o_tab : pr.o_tab + len(tab)] = tab
    for off, n in (
        (pr.o_walls, pr.ncells),
        (pr.o_occ, pr.ncells),
        (pr.o_seam, 2 * pr.ncells),
        (pr.o_fpos, pr.ncells),
    ):
        blank[off : off + n] = -1
    blank.setflags(write=False)
    return Engine(config=config, types=CardTypes(config), pr=pr, blank=blank)


class StateView:
    """Named numpy views into a state buffer, for Python code and tests (not the hot path)."""

    def __init__(self, s: np.ndarray, pr: Params) -> None:
        n, players, ntypes = pr.ncells, pr.players, pr.ntypes
        self.sc = s[pr.o_sc : pr.o_sc + N_SC]
        self.walls = s[pr.o_walls : pr.o_walls + n]
        self.parent = s[pr.o_parent : pr.o_parent + n]
        self.occupant = s[pr.o_occ : pr.o_occ + n]
        self.box_open = s[pr.o_open : pr.o_open + n]
        self.box_size = s[pr.o_size : pr.o_size + n]
        self.box_spray = s[pr.o_spray : pr.o_spray + n]
        self.box_toys = s[pr.o_toys : pr.o_toys + n * pr.ntoys].reshape(n, pr.ntoys)
        self.box_awake = s[pr.o_awake : pr.o_awake + n * players].reshape(n, players)
        self.box_sleep = s[pr.o_sleep : pr.o_sleep + n * players].reshape(n, players)
        self.seam_item = s[pr.o_seam : pr.o_seam + 2 * n]
        self.front = s[pr.o_front : pr.o_front + n]
        self.placed = s[pr.o_placed : pr.o_placed + n]
        self.cat_cell = s[pr.o_cat_cell : pr.o_cat_cell + pr.max_cats]
        self.cat_owner = s[pr.o_cat_owner : pr.o_cat_owner + pr.max_cats]
        self.princess_cell = s[pr.o_princess : pr.o_princess + pr.ndeck + 1]
        self.deck = s[pr.o_deck : pr.o_deck + pr.ndeck]
        self.hands = s[pr.o_hands : pr.o_hands + players * ntypes].reshape(players, ntypes)
        self.awake = s[pr.o_supply_awake : pr.o_supply_awake + players]
        self.asleep = s[pr.o_supply_sleep : pr.o_supply_sleep + players]
        self.stats = s[pr.o_stats : pr.o_stats + players * ntypes * N_ST].reshape(
            players, ntypes, N_ST
        )
        self.seat_stats = s[pr.o_seat_stats : pr.o_seat_stats + players * N_PS].reshape(
            players, N_PS
        )
        n_ev = (len(s) - pr.o_events) // EV_WIDTH
        self.events = s[pr.o_events : pr.o_events + n_ev * EV_WIDTH].reshape(n_ev, EV_WIDTH)
