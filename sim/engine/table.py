"""The table: placing cards, boxes by union-find, seams and items, cats (R1, R4, R5, R6).

Boxes are kept incrementally: each box root carries its size, the number of
open sides that touch no card (R1.8: closed iff zero), its toys per kind,
sprayers, and cats per seat, so scoring never walks the layout.

All functions work on the flat state buffer `s` with the offsets in `pr`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.indexing import unwrapped_indices
from sim.engine.inliner import share_scope_copies
from sim.engine.loader import light_cache_loads
from sim.engine.state import (
    DIR_E,
    DIR_S,
    FREE,
    PRINCESS,
    SC_FREE_SEAMS,
    SC_MAXC,
    SC_MAXR,
    SC_MINC,
    SC_MINR,
    SC_NCATS,
    SC_NFRONT,
    SC_NITEMS,
    SC_NPLACED,
    SC_PRINCESSES,
    SLEEP_BASE,
)

share_scope_copies()  # before anything here compiles: a faster first compile, same code
light_cache_loads()  # and before anything loads: a faster start, the same cached code
unwrapped_indices()  # and before anything compiles: faster play, the same games
INLINE = {"cache": True, "inline": "always"}
# A card, an item or a cat is laid a few dozen times a game: these are compiled once and
# called (numba inlines an "always" function's code anew at every call site, which costs
# compile time), with every argument an int64 so that one signature serves every caller.
# Every function compiled with CALLED (these, and the turn steps, legal actions, scoring
# and the cheap policies' choices that call them) allocates nothing, so it is compiled
# without numba's reference counting (_nrt=False): otherwise every call increments and
# decrements, atomically, the count of each array passed in (the state buffer, the work
# arrays), which was about a sixth of the random kernel's time in perf. A function
# compiled so cannot call one that allocates.
CALLED = {"cache": True, "_nrt": False}


@njit(**INLINE)
def copy_state(dst, src, pr):
    """A search's private copy of the state: dst holds all that src's game reads. That is the
    head (what a new game resets), the per-box data of the grid rows that hold a card, the
    lists up to their counts, and the constant lookup table: the rest is written before it is
    read (a new game resets the head only). In random base games this is 54% of the state's
    51 kB on average (37-63%). Plain loops on unsigned indices, which LLVM turns into vector
    copies: numba's slice assignment copied one clamped index at a time, about a sixth of
    the look-ahead's time in perf."""
    _copy_range(dst, src, 0, pr.o_scratch)
    _copy_boxes(dst, src, pr)
    _copy_range(dst, src, pr.o_tab, pr.state_size)  # the lookup table


@njit(**INLINE)
def copy_live(dst, src, pr):
    """`copy_state` into a dst that holds a `copy_state` of an earlier or the same state of
    src's game, played on since (a search: one copy_state per decision, then this per
    playout). What such a dst already has alike is left: the lookup table (never written in
    a game), the cells of the grid rows that neither state has reached (blank in both: the
    rows span only grows), and the telemetry counters (o_stats, o_seat_stats: play writes
    them and never reads them; they are copied again at the next copy_state).

    The grid rows copied are those that hold a card in either state and the row beside each
    end (the front's cells, o_fpos), read from dst's head before it is overwritten."""
    top = max(min(src[SC_MINR], dst[SC_MINR]) - 1 + pr.rows, 0)
    bottom = min(max(src[SC_MAXR], dst[SC_MAXR]) + 2 + pr.rows, 2 * pr.rows + 1)
    lo, hi = top * pr.width, bottom * pr.width
    _copy_range(dst, src, 0, pr.o_walls)  # the scalars
    _copy_range(dst, src, pr.o_walls + lo, pr.o_walls + hi)
    _copy_range(dst, src, pr.o_occ + lo, pr.o_occ + hi)
    _copy_range(dst, src, pr.o_seam + 2 * lo, pr.o_seam + 2 * hi)
    _copy_range(dst, src, pr.o_fpos + lo, pr.o_fpos + hi)
    _copy_range(dst, src, pr.o_deck, pr.o_stats)  # the deck, the hands, the supplies
    _copy_range(dst, src, pr.o_seam_bits, pr.o_scratch)  # free seams, front counts
    _copy_boxes(dst, src, pr)


@njit(**INLINE)
def _copy_boxes(dst, src, pr):
    """The per-box data of the grid rows that hold a card in src, the front and placed lists
    up to their counts, the cats, Princesses and items (what copy_state copies past the
    head; a cell of another row is written before it is read)."""
    lo = (src[SC_MINR] + pr.rows) * pr.width  # the cells of the rows that hold a card
    hi = (src[SC_MAXR] + pr.rows + 1) * pr.width
    _copy_range(dst, src, pr.o_parent + lo, pr.o_parent + hi)
    _copy_range(dst, src, pr.o_open + lo, pr.o_open + hi)
    _copy_range(dst, src, pr.o_size + lo, pr.o_size + hi)
    _copy_range(dst, src, pr.o_spray + lo, pr.o_spray + hi)
    _copy_range(dst, src, pr.o_ppos + lo, pr.o_ppos + hi)
    _copy_range(dst, src, pr.o_toys + lo * pr.ntoys, pr.o_toys + hi * pr.ntoys)
    _copy_range(dst, src, pr.o_awake + lo * pr.players, pr.o_awake + hi * pr.players)
    _copy_range(dst, src, pr.o_sleep + lo * pr.players, pr.o_sleep + hi * pr.players)
    _copy_range(dst, src, pr.o_front, pr.o_front + src[SC_NFRONT])
    _copy_range(dst, src, pr.o_placed, pr.o_placed + src[SC_NPLACED])
    _copy_range(dst, src, pr.o_cat_cell, pr.o_tab)  # the cats, Princesses and items


@njit(**INLINE)
def _copy_range(dst, src, lo, hi):
    """dst[lo:hi] = src[lo:hi] with unsigned indices: numba fixes up a signed index that may
    be negative at every element, which keeps LLVM from a vector copy."""
    start = np.uint64(lo)
    for j in range(hi - lo):
        k = start + np.uint64(j)
        dst[k] = src[k]


@njit(**INLINE)
def turned(mask):
    """Walls of a card turned by 180 degrees: N<->S, E<->W (R1.3)."""
    return ((mask & 3) << 2) | ((mask >> 2) & 3)


@njit(**INLINE)
def offset(pr, d):
    """Cell-index step to the neighbour on side d: N -width, E +1, S +width, W -1."""
    return (1 - (d & 1)) * pr.width * (d - 1) + (d & 1) * (2 - d)


@njit(**INLINE)
def find(s, pr, x):
    """Root of x's box, halving paths as it goes (R1.7)."""
    par = pr.o_parent
    while s[par + x] != x:
        s[par + x] = s[par + s[par + x]]
        x = s[par + x]
    return x


@njit(**INLINE)
def cell_row(s, pr, x):
    return s[pr.t_row + x]


@njit(**INLINE)
def cell_col(s, pr, x):
    return s[pr.t_col + x]


@njit(**INLINE)
def fits_table(s, pr, x):
    """R1.5: the bounding rectangle with x added fits columns x rows."""
    r = cell_row(s, pr, x)
    c = cell_col(s, pr, x)
    return (
        max(s[SC_MAXR], r) - min(s[SC_MINR], r) < pr.rows
        and max(s[SC_MAXC], c) - min(s[SC_MINC], c) < pr.cols
    )


@njit(**INLINE)
def whole_front_fits(s, pr):
    """R1.5 for every front cell at once: a front cell touches a card, so it lies at most one
    step outside the bounding rectangle; while that rectangle is two short of the table's
    size both ways, every front cell fits."""
    return s[SC_MAXR] - s[SC_MINR] < pr.rows - 1 and s[SC_MAXC] - s[SC_MINC] < pr.cols - 1


@njit(**INLINE)
def sides_match(s, pr, x, mask):
    """Variant match_sides=matching: every touching pair is open-open or wall-wall."""
    for d in range(4):
        wy = s[pr.o_walls + x + offset(pr, d)]
        if wy >= 0 and ((mask >> d) & 1) != ((wy >> (d ^ 2)) & 1):
            return False
    return True


@njit(**INLINE)
def can_place(s, pr, x, mask):
    """R1.4, R1.5 (and the matching variant): may a card with these walls go on x?"""
    if s[pr.o_fpos + x] < 0 or not fits_table(s, pr, x):
        return False
    return pr.match_sides == 0 or sides_match(s, pr, x, mask)


@njit(**INLINE)
def front_row_slot(pr, r):
    """Where the count of front cells in row r is kept (rows -rows..rows of the grid)."""
    return pr.o_front_lines + r + pr.rows


@njit(**INLINE)
def front_col_slot(pr, c):
    """Where the count of front cells in column c is kept, after the rows' counts."""
    return pr.o_front_lines + 2 * pr.rows + 1 + c + pr.cols


@njit(**INLINE)
def _front_add(s, pr, y):
    if s[pr.o_fpos + y] < 0:
        n = s[SC_NFRONT]
        s[pr.o_front + n] = y
        s[pr.o_fpos + y] = n
        s[SC_NFRONT] = n + 1
        s[front_row_slot(pr, cell_row(s, pr, y))] += 1
        s[front_col_slot(pr, cell_col(s, pr, y))] += 1


@njit(**INLINE)
def _front_remove(s, pr, x):
    i = s[pr.o_fpos + x]
    if i >= 0:
        last = s[SC_NFRONT] - 1
        y = s[pr.o_front + last]
        s[pr.o_front + i] = y
        s[pr.o_fpos + y] = i
        s[pr.o_fpos + x] = -1
        s[SC_NFRONT] = last
        s[front_row_slot(pr, cell_row(s, pr, x))] -= 1
        s[front_col_slot(pr, cell_col(s, pr, x))] -= 1


@njit(**INLINE)
def fitting_front_cells(s, pr):
    """How many front cells fit (R1.5), from the kept counts per line. A front cell touches a
    card, so it lies at most one line outside the bounding rectangle, and never outside both
    its rows and its columns; a card there fits unless the rectangle already spans the
    table that way, and then the two lines just outside it are the ones that do not."""
    n = s[SC_NFRONT]
    if s[SC_MAXR] - s[SC_MINR] == pr.rows - 1:
        n -= s[front_row_slot(pr, s[SC_MINR] - 1)] + s[front_row_slot(pr, s[SC_MAXR] + 1)]
    if s[SC_MAXC] - s[SC_MINC] == pr.cols - 1:
        n -= s[front_col_slot(pr, s[SC_MINC] - 1)] + s[front_col_slot(pr, s[SC_MAXC] + 1)]
    return n


@njit(**INLINE)
def nth_fitting_front_cell(s, pr, k):
    """The k-th front cell that fits (R1.5), in front order."""
    for j in range(s[SC_NFRONT]):
        x = s[pr.o_front + j]
        if fits_table(s, pr, x):
            if k == 0:
                return x
            k -= 1
    return -1


@njit(**INLINE)
def _union(s, pr, a, b):
    """Merge the boxes rooted at a and b (R1.7); returns the new root."""
    if a == b:
        return a
    if s[pr.o_size + a] < s[pr.o_size + b]:
        a, b = b, a
    s[pr.o_parent + b] = a
    s[pr.o_size + a] += s[pr.o_size + b]
    s[pr.o_open + a] += s[pr.o_open + b]
    s[pr.o_spray + a] += s[pr.o_spray + b]
    for k in range(pr.ntoys):
        s[pr.o_toys + a * pr.ntoys + k] += s[pr.o_toys + b * pr.ntoys + k]
    for q in range(pr.players):
        s[pr.o_awake + a * pr.players + q] += s[pr.o_awake + b * pr.players + q]
        s[pr.o_sleep + a * pr.players + q] += s[pr.o_sleep + b * pr.players + q]
    return a


@njit(**CALLED)
def place_card(s, pr, x, mask):
    """Lay a card with walls `mask` on empty cell x; open seams merge boxes (R1.6, R1.7)."""
    s[pr.o_walls + x] = mask
    s[pr.o_parent + x] = x
    s[pr.o_size + x] = 1
    s[pr.o_open + x] = 0
    s[pr.o_spray + x] = 0
    for k in range(pr.ntoys):
        s[pr.o_toys + x * pr.ntoys + k] = 0
    for q in range(pr.players):
        s[pr.o_awake + x * pr.players + q] = 0
        s[pr.o_sleep + x * pr.players + q] = 0
    _front_remove(s, pr, x)
    n = s[SC_NPLACED]
    s[pr.o_placed + n] = x
    s[pr.o_ppos + x] = n
    s[SC_NPLACED] = n + 1
    r = cell_row(s, pr, x)
    c = cell_col(s, pr, x)
    if n == 0:
        s[SC_MINR] = r
        s[SC_MAXR] = r
        s[SC_MINC] = c
        s[SC_MAXC] = c
    else:
        s[SC_MINR] = min(s[SC_MINR], r)
        s[SC_MAXR] = max(s[SC_MAXR], r)
        s[SC_MINC] = min(s[SC_MINC], c)
        s[SC_MAXC] = max(s[SC_MAXC], c)
    root = x
    for d in range(4):
        y = x + offset(pr, d)
        wy = s[pr.o_walls + y]
        mine_open = ((mask >> d) & 1) == 0
        if wy < 0:
            if mine_open:
                s[pr.o_open + root] += 1  # an open side touching no card (R1.8)
            _front_add(s, pr, y)
            continue
        theirs_open = ((wy >> (d ^ 2)) & 1) == 0
        ry = find(s, pr, y)
        if theirs_open:
            s[pr.o_open + ry] -= 1  # their open side now touches a card: sealed or joined
        if mine_open and theirs_open:
            root = _union(s, pr, find(s, pr, root), ry)  # an open seam joins the boxes (R1.6)
            s[SC_FREE_SEAMS] += 1
            if d == DIR_E or d == DIR_S:  # the seam is x's own
                _seam_bit_flip(s, pr, x, d)
            else:  # the seam is y's: its east one (y west of x) or its south one (y north)
                _seam_bit_flip(s, pr, y, d ^ 2)
    return root


@njit(**INLINE)
def seam_slot(pr, x, dside):
    """Index of seam (x, dside) in the seam array; dside is DIR_E or DIR_S."""
    return pr.o_seam + 2 * x + (0 if dside == DIR_E else 1)


@njit(**INLINE)
def seam_open(s, pr, x, dside):
    """R1.6: both cards exist and both touching sides are open."""
    wx = s[pr.o_walls + x]
    wy = s[pr.o_walls + x + offset(pr, dside)]
    if wx < 0 or wy < 0:
        return False
    return ((wx >> dside) & 1) == 0 and ((wy >> (dside ^ 2)) & 1) == 0


@njit(**INLINE)
def _seam_bit_flip(s, pr, x, dside):
    """Flip the free-seam bit of seam (x, dside), an open seam without an item (R5.1, R5.2):
    set as the seam opens, cleared as an item fills it."""
    b = 2 * s[pr.o_ppos + x] + (0 if dside == DIR_E else 1)
    # the word's 32 bits in an int64, stored back truncated to the int32 slot
    s[pr.o_seam_bits + (b >> 5)] = seam_word(s, pr, b >> 5) ^ (1 << (b & 31))


@njit(**INLINE)
def popcount32(v):
    """Set bits of a 32-bit word held in an int64 (the usual SWAR count)."""
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    return ((v * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(**INLINE)
def seam_word(s, pr, j):
    """The j-th word of free-seam bits, as a non-negative int64."""
    return np.int64(s[pr.o_seam_bits + j]) & 0xFFFFFFFF


@njit(**INLINE)
def seam_words_laid(s):
    """How many words of free-seam bits the cards laid so far use (two bits a card)."""
    return (2 * s[SC_NPLACED] + 31) >> 5


@njit(**INLINE)
def lowest_free_seam(s, pr, j, w):
    """Cell and side (DIR_E or DIR_S) of the lowest set bit of w, a value of seam word j."""
    b = 32 * j + popcount32((w & -w) - 1)  # the bit's index: the zeros below it, counted
    return s[pr.o_placed + (b >> 1)], DIR_E if (b & 1) == 0 else DIR_S


@njit(**CALLED)
def place_item(s, pr, x, dside, t):
    """Lay item card type t (a toy or a sprayer) across seam (x, dside) (R5.1)."""
    s[seam_slot(pr, x, dside)] = t
    s[SC_FREE_SEAMS] -= 1
    _seam_bit_flip(s, pr, x, dside)
    n = s[SC_NITEMS]
    s[pr.o_items + n] = x  # both cards of an open seam are in one box (R1.6)
    s[SC_NITEMS] = n + 1
    toy = s[pr.t_toy + t]
    root = find(s, pr, x)
    if toy >= 0:
        s[pr.o_toys + root * pr.ntoys + toy] += 1
    else:
        s[pr.o_spray + root] += 1
    return root


@njit(**INLINE)
def cats_of(s, pr, root, q):
    """Seat q's awake plus sleeping cats in the box rooted at root."""
    i = root * pr.players + q
    return s[pr.o_awake + i] + s[pr.o_sleep + i]


@njit(**CALLED)  # a few times a turn; inlined it was four copies
def cat_spot_ok(s, pr, north, seat):
    """R4.1, R4.3, R4.4: may seat's awake cat lie on north and the card south of it?"""
    south = north + offset(pr, DIR_S)
    if not seam_open(s, pr, north, DIR_S):
        return False  # R4.1: a long seam with no wall
    if s[pr.o_occ + north] != FREE or s[pr.o_occ + south] != FREE:
        return False  # R4.3
    if pr.entry_any:
        return True
    root = find(s, pr, north)
    total = 0
    for q in range(pr.players):
        total += cats_of(s, pr, root, q)
    # R4.4: an empty box (the Princess ignored) or a friend of the seat's colour.
    return total == 0 or cats_of(s, pr, root, seat) > 0


@njit(**CALLED)
def place_cat(s, pr, north, seat):
    """Lay seat's awake cat on north and its southern neighbour (R4)."""
    south = north + offset(pr, DIR_S)
    s[pr.o_occ + north] = seat
    s[pr.o_occ + south] = seat
    s[pr.o_awake + find(s, pr, north) * pr.players + seat] += 1
    n = s[SC_NCATS]
    s[pr.o_cat_cell + n] = north
    s[pr.o_cat_owner + n] = seat
    s[SC_NCATS] = n + 1


@njit(**CALLED)
def place_sleeping(s, pr, x, mask, seat):
    """R3.2: a sleeping-cat card is a layout card carrying seat's sleeping cat."""
    root = place_card(s, pr, x, mask)
    s[pr.o_occ + x] = SLEEP_BASE + seat
    s[pr.o_sleep + root * pr.players + seat] += 1
    return root


@njit(**CALLED)
def evict_with_princess(s, pr, i):
    """R6.1: the Princess takes awake cat i's two cards; returns the evicted cat's owner."""
    north = s[pr.o_cat_cell + i]
    owner = s[pr.o_cat_owner + i]
    south = north + offset(pr, DIR_S)
    s[pr.o_occ + north] = PRINCESS
    s[pr.o_occ + south] = PRINCESS
    s[pr.o_awake + find(s, pr, north) * pr.players + owner] -= 1
    last = s[SC_NCATS] - 1
    s[pr.o_cat_cell + i] = s[pr.o_cat_cell + last]
    s[pr.o_cat_owner + i] = s[pr.o_cat_owner + last]
    s[SC_NCATS] = last
    k = s[SC_PRINCESSES]
    s[pr.o_princess + k] = north
    s[SC_PRINCESSES] = k + 1
    return owner
