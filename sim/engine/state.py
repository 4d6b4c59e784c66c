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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from sim.variants import Rules
from sim.walls import parse_walls

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
SC_LAST_SEAT = 25  # the seat whose turn ended last (-1 before the first turn ends)
SC_NITEMS = 26  # items on the table (their cells are listed in o_items)
N_SC = 28

# Per (seat, card type) counters for the results. Items land in a box the drawer leads
# (into_led) or not (into_other); into_nobody counts the part of into_other that went into a
# box nobody leads. final_hand: copies in hand when the final phase began (R7.2). first_turn:
# the turn (1 = the game's first) in which the seat first played or placed one, 0 if never.
ST_DEALT, ST_DRAWN, ST_PLAYED, ST_DISCARDED, ST_WASTED, ST_INTO_LED, ST_INTO_OTHER = range(7)
ST_INTO_NOBODY, ST_FINAL_HAND, ST_FIRST_TURN = 7, 8, 9
N_ST = 10
STAT_NAMES = (
    "dealt",
    "drawn",
    "played",
    "discarded",
    "wasted",
    "into_led",
    "into_other",
    "into_nobody",
    "final_hand",
    "first_turn",
)

# Per seat counters. PS_EVICTED: the seat's cats that a Princess evicted; PS_SELF_EVICT:
# Princesses the seat played on a cat of its own (R6.1 allows it).
PS_CATS, PS_SLEEPING, PS_PRINCESS, PS_EVICTED, PS_DISCARDS, PS_TURNS = range(6)
PS_SELF_EVICT = 6
N_PS = 7

# Event records: kind, seat, a, b, c, d.
EV_SETUP, EV_TURN, EV_DRAW, EV_ITEM, EV_WASTED, EV_PLACE = 0, 1, 2, 3, 4, 5
EV_CAT, EV_SLEEPING, EV_PRINCESS, EV_DISCARD, EV_TRIGGER, EV_END = 6, 7, 8, 9, 10, 11
EV_WIDTH = 6

# Params holds only ints (compiled code gets them as one record, ParamsRecord);
# the state is one int32 buffer. A compiled call then moves a single array and
# a pointer, which keeps numba's reference counting (atomic increments per
# array argument) off the hot path: that alone was a 17x speed-up over a tuple
# of arrays. The buffer holds the parts of LAYOUT in order (scalar slots, the
# mutable parts of the game, then a constant lookup table: per card type its
# kind, walls, toy index and name salt; per physical card its type and copy
# number; per cell its row and column), and with a log, the event records
# after them.


class Dims(NamedTuple):
    """The sizes that the state's parts are measured in, for one game shape."""

    ncells: int
    players: int
    ntypes: int
    ntoys: int
    ndeck: int
    max_cats: int
    ntab: int
    width: int  # the grid's columns (2 * table columns + 1); ncells // width rows


def seam_words(ncells: int) -> int:
    """Words of the free-seam bits: two seams per card, at most one card per cell."""
    return (2 * ncells + 31) // 32


class Part(NamedTuple):
    """One part of the state buffer: where its offset lives in Params, how StateView names
    it (None: internal bookkeeping), its shape, and its value in a blank state."""

    offset: str
    view: str | None
    shape: Callable[[Dims], tuple[int, ...]]
    blank: int = 0


# The state buffer, part by part. Everything up to o_scratch is what setup
# needs in its blank state; the rest is written before it is read (per-box
# data when a card is laid, list entries when they are appended), so a new
# game copies only the head.
LAYOUT: tuple[Part, ...] = (
    Part("o_sc", "sc", lambda d: (N_SC,)),
    Part("o_walls", "walls", lambda d: (d.ncells,), -1),  # -1: no card
    Part("o_occ", "occupant", lambda d: (d.ncells,), FREE),
    Part("o_seam", "seam_item", lambda d: (2 * d.ncells,), -1),  # -1: no item
    Part("o_fpos", None, lambda d: (d.ncells,), -1),  # index in the front list, -1: not there
    Part("o_deck", "deck", lambda d: (d.ndeck,)),
    Part("o_hands", "hands", lambda d: (d.players, d.ntypes)),
    Part("o_supply_awake", "awake", lambda d: (d.players,)),
    Part("o_supply_sleep", "asleep", lambda d: (d.players,)),
    Part("o_stats", "stats", lambda d: (d.players, d.ntypes, N_ST)),
    Part("o_seat_stats", "seat_stats", lambda d: (d.players, N_PS)),
    # the free seams by placement: bit 2i the east seam of the i-th card laid, 2i+1 its south
    # seam (legal_actions' order), 32 to a word
    Part("o_seam_bits", None, lambda d: (seam_words(d.ncells),)),
    # front cells per grid row, then per grid column (R1.5 excludes whole outer lines)
    Part("o_front_lines", None, lambda d: (d.ncells // d.width + d.width,)),
    Part("o_scratch", None, lambda d: (0,)),  # marks the end of what a new game resets
    Part("o_parent", "parent", lambda d: (d.ncells,)),
    Part("o_open", "box_open", lambda d: (d.ncells,)),
    Part("o_size", "box_size", lambda d: (d.ncells,)),
    Part("o_spray", "box_spray", lambda d: (d.ncells,)),
    Part("o_toys", "box_toys", lambda d: (d.ncells, d.ntoys)),
    Part("o_awake", "box_awake", lambda d: (d.ncells, d.players)),
    Part("o_sleep", "box_sleep", lambda d: (d.ncells, d.players)),
    Part("o_front", "front", lambda d: (d.ncells,)),
    Part("o_placed", "placed", lambda d: (d.ncells,)),
    Part("o_ppos", None, lambda d: (d.ncells,)),  # a laid card's index in placed
    Part("o_cat_cell", "cat_cell", lambda d: (d.max_cats,)),
    Part("o_cat_owner", "cat_owner", lambda d: (d.max_cats,)),
    Part("o_princess", "princess_cell", lambda d: (d.ndeck + 1,)),
    Part("o_items", "item_cell", lambda d: (d.ndeck,)),  # a card under each item on the table
    Part("o_tab", None, lambda d: (d.ntab,)),  # constant: never written during a game
)

# The lookup table's parts, in the order they sit inside o_tab.
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
        *TAB_PARTS,  # where the lookup table's parts start in the state buffer
        *(part.offset for part in LAYOUT),  # where each part starts
        "o_events",  # the event records (a logged game's buffer is longer)
        "state_size",
    ],
)


class ParamsRecord(np.record):
    """Params as the compiled code receives them: a record, passed as one pointer.

    A namedtuple is passed by value, every field an argument: a call of a compiled function
    copied all of them onto the stack (in perf, about a tenth of a random game went into
    those copies at the call of apply_action). Python code reads each field as a plain int
    from the instance's dict (about 0.2 us; a record's own field read takes about 4 us)."""

    def __getattribute__(self, name):
        try:
            return object.__getattribute__(self, "__dict__")[name]
        except KeyError:
            return np.record.__getattribute__(self, name)

    def __reduce__(self):
        return as_record, (Params(*(int(v) for v in self.item())),)


PARAMS_DTYPE = np.dtype((ParamsRecord, [(name, np.int64) for name in Params._fields]), align=True)


def as_record(params: Params) -> ParamsRecord:
    """The engine's parameters in the form every compiled function takes."""
    record = np.array([tuple(params)], dtype=PARAMS_DTYPE)[0]
    record.__dict__.update(params._asdict())
    # numba reads a record argument's `data` at every call from Python (about 4 us through
    # np.record's own lookup): the same buffer each time, so kept with the fields
    record.__dict__["data"] = np.record.__getattribute__(record, "data")
    return record


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


class CardTypes:
    """Names and kinds of the card types of one config, in a fixed order.

    Box kinds come first in the config's order, then the Princess, the
    sprayer, and the toys in the config's order.
    """

    def __init__(self, deck: Mapping[str, Any]) -> None:
        self.names: list[str] = []
        self.kinds: list[int] = []
        self.walls: list[int] = []
        self.toy_index: list[int] = []
        self.counts: list[int] = []
        for walls, count in deck["boxes"].items():
            self._add(f"box:{walls}", KIND_BOX, parse_walls(walls), -1, count)
        self.princess = self._add("princess", KIND_PRINCESS, -1, -1, deck["princesses"])
        self.sprayer = self._add("sprayer", KIND_SPRAYER, -1, -1, deck["sprayers"])
        self.toy_kinds = list(deck["toys"])
        for k, (kind, count) in enumerate(deck["toys"].items()):
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


def _make_params(settings: Mapping[str, Any]) -> tuple[ParamsRecord, list[int]]:
    """Compile a validated game's settings into the engine's flat parameters and lookup table."""
    types = CardTypes(settings["deck"])
    rows, cols = settings["table"]["rows"], settings["table"]["columns"]
    width = 2 * cols + 1
    ncells = (2 * rows + 1) * width
    deck_types, deck_copies = [], []
    for t, count in enumerate(types.counts):
        deck_types += [t] * count
        deck_copies += list(range(count))
    ndeck = len(deck_types)
    players, ntypes = settings["players"], len(types)
    hand_size, cats, sleeps = (
        settings["hand_size"],
        settings["cats_per_player"],
        settings["sleeping_per_player"],
    )
    ntoys = max(1, len(types.toy_kinds))
    tab_offsets, tab = _lookup_table(types, deck_types, deck_copies, rows, cols)
    max_cats = players * cats + 1
    dims = Dims(ncells, players, ntypes, ntoys, ndeck, max_cats, len(tab), width)
    offsets, at = {}, 0
    for part in LAYOUT:
        offsets[part.offset] = at
        at += _size(part.shape(dims))
    rules = settings["rules"]
    params = Params(
        players=players,
        rows=rows,
        cols=cols,
        width=width,
        ncells=ncells,
        origin=rows * width + cols,
        ntoys=ntoys,
        ntypes=ntypes,
        ndeck=ndeck,
        hand_size=hand_size,
        cats=cats,
        sleeps=sleeps,
        sleep_walls=parse_walls(settings["sleeping_card_walls"]),
        match_sides=int(rules["match_sides"] == "matching"),
        entry_any=int(rules["cat_entry"] == "any"),
        evict_discard=int(rules["evicted_cat"] == "discard"),
        sleep_majority=int(rules["sleeping_counts_for_majority"]),
        max_cats=max_cats,
        max_actions=2 * ncells * (hand_size + 2) + 64,
        max_events=12 * (ndeck + players * (cats + sleeps)) + 8 * players * (hand_size + 2) + 64,
        **{name: offsets["o_tab"] + at for name, at in zip(TAB_PARTS, tab_offsets, strict=True)},
        o_events=at,
        state_size=at,
        **offsets,
    )
    return as_record(params), tab


def _dims(pr: ParamsRecord) -> Dims:
    return Dims(pr.ncells, pr.players, pr.ntypes, pr.ntoys, pr.ndeck, pr.max_cats, 0, pr.width)


@dataclass(frozen=True, eq=False)
class Engine:
    """A game's settings compiled for the engine: parameters, card types, and a blank state.

    `settings` are the validated game settings as plain data, in the YAML layout
    (`sim.config.GameConfig.game_dict()`); the engine never sees a config object.
    """

    settings: Mapping[str, Any]
    types: CardTypes
    pr: ParamsRecord
    blank: np.ndarray  # an empty state with the lookup table filled in

    @property
    def rules(self) -> Rules:
        """The rule variants in force (for positions and their reference scoring)."""
        return Rules(**self.settings["rules"])

    def new_state(self, *, log: bool = False) -> np.ndarray:
        """A fresh state buffer (setup fills it); with room for events if `log`."""
        if not log:
            return self.blank.copy()
        s = np.zeros(self.pr.state_size + self.pr.max_events * EV_WIDTH, np.int32)
        s[: self.pr.state_size] = self.blank
        s[SC_LOG] = 1
        return s


def make_engine(settings: Mapping[str, Any]) -> Engine:
    """Compile a validated game's settings once; the result is shared by every game of a run."""
    pr, tab = _make_params(settings)
    blank = np.zeros(pr.state_size, np.int32)
    dims = _dims(pr)
    for part in LAYOUT:
        if part.blank != 0:
            at = getattr(pr, part.offset)
            blank[at : at + _size(part.shape(dims))] = part.blank
    blank[pr.o_tab : pr.o_tab + len(tab)] = tab
    blank.setflags(write=False)
    return Engine(settings=settings, types=CardTypes(settings["deck"]), pr=pr, blank=blank)


class StateView:
    """Named numpy views into a state buffer, for Python code and tests (not the hot path):
    one attribute per named part of LAYOUT, shaped, plus `events`."""

    def __init__(self, s: np.ndarray, pr: ParamsRecord) -> None:
        dims = _dims(pr)
        for part in LAYOUT:
            if part.view is not None:
                shape = part.shape(dims)
                at = getattr(pr, part.offset)
                setattr(self, part.view, s[at : at + _size(shape)].reshape(shape))
        n_ev = (len(s) - pr.o_events) // EV_WIDTH
        self.events = s[pr.o_events : pr.o_events + n_ev * EV_WIDTH].reshape(n_ev, EV_WIDTH)
