"""The table: placing cards, boxes by union-find, seams and items, cats (R1, R4, R5, R6).

Boxes are kept incrementally: each box root carries its size, the number of
open sides that touch no card (R1.8: closed iff zero), its toys per kind,
sprayers, and cats per seat, so scoring never walks the layout.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.state import (
    DIR_E,
    DIR_S,
    FREE,
    PRINCESS,
    SC_MAXC,
    SC_MAXR,
    SC_MINC,
    SC_MINR,
    SC_NCATS,
    SC_NFRONT,
    SC_NPLACED,
    SC_PRINCESSES,
    SLEEP_BASE,
)


@njit(cache=True, inline="always")
def turned(mask):
    """Walls of a card turned by 180 degrees: N<->S, E<->W (R1.3)."""
    return ((mask & 3) << 2) | ((mask >> 2) & 3)


@njit(cache=True, inline="always")
def find(parent, x):
    """Root of x's box, halving paths as it goes."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, inline="always")
def cell_row(pr, x):
    return x // pr.width - pr.rows


@njit(cache=True, inline="always")
def cell_col(pr, x):
    return x % pr.width - pr.cols


@njit(cache=True, inline="always")
def cell_at(pr, r, c):
    return (r + pr.rows) * pr.width + (c + pr.cols)


@njit(cache=True, inline="always")
def fits_table(st, pr, x):
    """R1.5: the bounding rectangle with x added fits columns x rows."""
    r = cell_row(pr, x)
    c = cell_col(pr, x)
    sc = st.sc
    return (
        max(sc[SC_MAXR], r) - min(sc[SC_MINR], r) < pr.rows
        and max(sc[SC_MAXC], c) - min(sc[SC_MINC], c) < pr.cols
    )


@njit(cache=True, inline="always")
def sides_match(st, pr, x, mask):
    """Variant match_sides=matching: every touching pair is open-open or wall-wall."""
    for d in range(4):
        y = x + pr.offsets[d]
        wy = st.walls[y]
        if wy >= 0 and ((mask >> d) & 1) != ((wy >> (d ^ 2)) & 1):
            return False
    return True


@njit(cache=True, inline="always")
def can_place(st, pr, x, mask):
    """R1.4, R1.5 (and the matching variant): may a card with these walls go on x?"""
    if st.front_pos[x] < 0 or not fits_table(st, pr, x):
        return False
    return pr.match_sides == 0 or sides_match(st, pr, x, mask)


@njit(cache=True, inline="always")
def _front_add(st, y):
    if st.front_pos[y] < 0:
        n = st.sc[SC_NFRONT]
        st.front[n] = y
        st.front_pos[y] = n
        st.sc[SC_NFRONT] = n + 1


@njit(cache=True, inline="always")
def _front_remove(st, x):
    i = st.front_pos[x]
    if i >= 0:
        last = st.sc[SC_NFRONT] - 1
        y = st.front[last]
        st.front[i] = y
        st.front_pos[y] = i
        st.front_pos[x] = -1
        st.sc[SC_NFRONT] = last


@njit(cache=True)
def _union(st, a, b):
    """Merge the boxes rooted at a and b (R1.7); returns the new root."""
    if a == b:
        return a
    if st.box_size[a] < st.box_size[b]:
        a, b = b, a
    st.parent[b] = a
    st.box_size[a] += st.box_size[b]
    st.box_open[a] += st.box_open[b]
    st.box_spray[a] += st.box_spray[b]
    st.box_toys[a, :] += st.box_toys[b, :]
    st.box_awake[a, :] += st.box_awake[b, :]
    st.box_sleep[a, :] += st.box_sleep[b, :]
    return a


@njit(cache=True)
def place_card(st, pr, x, mask):
    """Lay a card with walls `mask` on empty cell x, merging boxes through open seams (R1.6, R1.7)."""
    st.walls[x] = mask
    st.parent[x] = x
    st.box_size[x] = 1
    st.box_open[x] = 0
    st.box_spray[x] = 0
    st.box_toys[x, :] = 0
    st.box_awake[x, :] = 0
    st.box_sleep[x, :] = 0
    _front_remove(st, x)
    n = st.sc[SC_NPLACED]
    st.placed[n] = x
    st.sc[SC_NPLACED] = n + 1
    r = cell_row(pr, x)
    c = cell_col(pr, x)
    if n == 0:
        st.sc[SC_MINR] = r
        st.sc[SC_MAXR] = r
        st.sc[SC_MINC] = c
        st.sc[SC_MAXC] = c
    else:
        st.sc[SC_MINR] = min(st.sc[SC_MINR], r)
        st.sc[SC_MAXR] = max(st.sc[SC_MAXR], r)
        st.sc[SC_MINC] = min(st.sc[SC_MINC], c)
        st.sc[SC_MAXC] = max(st.sc[SC_MAXC], c)
    root = x
    for d in range(4):
        y = x + pr.offsets[d]
        wy = st.walls[y]
        mine_open = ((mask >> d) & 1) == 0
        if wy < 0:
            if mine_open:
                st.box_open[root] += 1  # an open side touching no card (R1.8)
            _front_add(st, y)
            continue
        theirs_open = ((wy >> (d ^ 2)) & 1) == 0
        ry = find(st.parent, y)
        if theirs_open:
            st.box_open[ry] -= 1  # their open side now touches a card: sealed or joined
        if mine_open and theirs_open:
            root = _union(st, root, ry)  # an open seam joins the boxes (R1.6)
    return root


@njit(cache=True, inline="always")
def seam_cells(pr, x, dside):
    """The two cells of seam (x, dside) where dside is DIR_E or DIR_S."""
    return x, x + pr.offsets[dside]


@njit(cache=True, inline="always")
def seam_open(st, pr, x, dside):
    """R1.6: both cards exist and both touching sides are open."""
    y = x + pr.offsets[dside]
    wx = st.walls[x]
    wy = st.walls[y]
    if wx < 0 or wy < 0:
        return False
    return ((wx >> dside) & 1) == 0 and ((wy >> (dside ^ 2)) & 1) == 0


@njit(cache=True, inline="always")
def seam_free(st, pr, x, dside):
    """R5.1, R5.2: an open seam without an item."""
    slot = 2 * x + (0 if dside == DIR_E else 1)
    return st.seam_item[slot] < 0 and seam_open(st, pr, x, dside)


@njit(cache=True)
def place_item(st, pr, x, dside, t):
    """Lay item card type t (a toy or a sprayer) across seam (x, dside) (R5.1)."""
    slot = 2 * x + (0 if dside == DIR_E else 1)
    st.seam_item[slot] = t
    toy = pr.type_toy[t]
    root = find(st.parent, x)
    if toy >= 0:
        st.box_toys[root, toy] += 1
    else:
        st.box_spray[root] += 1
    return root


@njit(cache=True, inline="always")
def cat_spot_ok(st, pr, north, seat):
    """R4.1, R4.3, R4.4: may seat's awake cat lie on north and the card south of it?"""
    south = north + pr.offsets[DIR_S]
    if not seam_open(st, pr, north, DIR_S):
        return False  # R4.1: a long seam with no wall
    if st.occupant[north] != FREE or st.occupant[south] != FREE:
        return False  # R4.3
    if pr.entry_any:
        return True
    root = find(st.parent, north)
    total = 0
    for q in range(pr.players):
        total += st.box_awake[root, q] + st.box_sleep[root, q]
    # R4.4: an empty box (the Princess ignored) or a friend of the seat's colour.
    return total == 0 or st.box_awake[root, seat] + st.box_sleep[root, seat] > 0


@njit(cache=True)
def place_cat(st, pr, north, seat):
    """Lay seat's awake cat on north and its southern neighbour (R4)."""
    south = north + pr.offsets[DIR_S]
    st.occupant[north] = seat
    st.occupant[south] = seat
    st.box_awake[find(st.parent, north), seat] += 1
    n = st.sc[SC_NCATS]
    st.cat_cell[n] = north
    st.cat_owner[n] = seat
    st.sc[SC_NCATS] = n + 1


@njit(cache=True)
def place_sleeping(st, pr, x, mask, seat):
    """R3.2: a sleeping-cat card is a layout card carrying seat's sleeping cat."""
    root = place_card(st, pr, x, mask)
    st.occupant[x] = SLEEP_BASE + seat
    st.box_sleep[root, seat] += 1
    return root


@njit(cache=True)
def evict_with_princess(st, pr, i):
    """R6.1: the Princess takes awake cat i's two cards; returns the evicted cat's owner."""
    north = st.cat_cell[i]
    owner = st.cat_owner[i]
    south = north + pr.offsets[DIR_S]
    st.occupant[north] = PRINCESS
    st.occupant[south] = PRINCESS
    st.box_awake[find(st.parent, north), owner] -= 1
    last = st.sc[SC_NCATS] - 1
    st.cat_cell[i] = st.cat_cell[last]
    st.cat_owner[i] = st.cat_owner[last]
    st.sc[SC_NCATS] = last
    k = st.sc[SC_PRINCESSES]
    st.princess_cell[k] = north
    st.sc[SC_PRINCESSES] = k + 1
    return owner


@njit(cache=True, inline="always")
def box_value(st, pr, root):
    """R8.3, R8.4: most numerous toy kind minus sprayers, doubled when closed."""
    best = 0
    for k in range(st.box_toys.shape[1]):
        if st.box_toys[root, k] > best:
            best = st.box_toys[root, k]
    value = best - st.box_spray[root]
    if st.box_open[root] == 0:
        value *= 2
    return value


@njit(cache=True, inline="always")
def box_majority(st, pr, root, q):
    """R8.2: seat q's cats in the box (sleeping cats per the variant)."""
    n = st.box_awake[root, q]
    if pr.sleep_majority:
        n += st.box_sleep[root, q]
    return n


@njit(cache=True, inline="always")
def box_top_count(st, pr, root):
    """The leaders' cat count in the box (0: nobody leads)."""
    top = 0
    for q in range(pr.players):
        m = box_majority(st, pr, root, q)
        if m > top:
            top = m
    return top


@njit(cache=True)
def box_points(st, pr, out):
    """R8.1, R8.2: add each box's value to each of its leaders in out[seat]."""
    for i in range(st.sc[SC_NPLACED]):
        x = st.placed[i]
        if st.parent[x] != x:
            continue
        top = box_top_count(st, pr, x)
        if top == 0:
            continue
        value = box_value(st, pr, x)
        if value == 0:
            continue
        for q in range(pr.players):
            if box_majority(st, pr, x, q) == top:
                out[q] += value


@njit(cache=True)
def final_scores(st, pr):
    """R8: box points plus one point per awake cat on the table (R8.5)."""
    out = np.zeros(pr.players, np.int64)
    box_points(st, pr, out)
    for i in range(st.sc[SC_NCATS]):
        out[st.cat_owner[i]] += 1
    return out
