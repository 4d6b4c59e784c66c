"""The int64 work array a game loop hands to greedy and the heuristic: its blocks and the
per-cell cache, memo and per-root cache laid out in it (no allocation per decision)."""

from __future__ import annotations

from numba import njit

from sim.engine.table import INLINE

# The int64 work array a game loop hands to greedy and the heuristic (no
# allocation per decision), block by block (P seats, K toy kinds):
#
#   delta [P]   score change per seat of the candidate being evaluated
#   cur   [P]   scores as the table stands
#   awake [P]   the box a placement would make: awake cats per seat
#   sleep [P]   ... sleeping cats per seat
#   toys  [K]   ... toys per kind
#   flags [2]   the heuristic's placement flags (F_CLOSES_OWN, F_FEEDS_RIVAL)
#   cache [C_SIZE]  the per-cell cache (C_* below)
#   memo  [M_SIZE]  `objectives`' objective per (merged boxes, closed) on the cached cell
#   roots [1 + B_WIDTH*cells]  the decision's epoch, then per root its best toy count, value
#                   and leaders (`_prepare_cell`), stamped with the epoch they were read in
#                   (in all-greedy base games 66% of the reads hit: docs/dev/performance-log.md)
#   values[max_actions]  greedy's objective per candidate (`objectives`)


@njit(**INLINE)
def w_delta(pr):
    return 0


@njit(**INLINE)
def w_cur(pr):
    return pr.players


@njit(**INLINE)
def w_awake(pr):
    return 2 * pr.players


@njit(**INLINE)
def w_sleep(pr):
    return 3 * pr.players


@njit(**INLINE)
def w_toys(pr):
    return 4 * pr.players


@njit(**INLINE)
def w_flags(pr):
    return 4 * pr.players + pr.ntoys


@njit(**INLINE)
def w_cache(pr):
    return w_flags(pr) + 2


F_CLOSES_OWN = 0  # boxes the deciding seat leads that a placement closes (R1.8)
F_FEEDS_RIVAL = 1  # 1 if a placement joins a box a rival leads and the seat does not

# The per-cell cache: the cell, the bitmask of its sides that touch no card,
# the count of distinct neighbouring roots and, per distinct root (C_ROOT_WIDTH
# slots from C_ROOTS): its root, open sides, value, leader bitmask, best toy
# count, the bitmask of the cell's sides where that box's open side touches it
# (a card open there joins the box, R1.6), and how many such sides there are
# (the box's open sides any card on the cell seals, R1.8). C_WORTHLESS: no
# neighbouring box holds a toy or a sprayer, so no card on this cell can change
# a score (every box involved is worth 0). C_SEALS: the bitmask of the root slots
# whose every open side touches the cell, so that any card laid there closes the
# box if it does not join it (R1.8), and whose closing changes a score (it has
# leaders and a value that is not 0). C_INERT: the bitmask of the root slots whose box
# holds no toy, no sprayer and no cat that counts for a majority (R8.2): joining it
# changes nothing but the open sides. Greedy's `objectives` fills these two
# (`_classify_cell`) for the cell C_CLASSIFIED; the heuristic never reads them.
C_CELL, C_EMPTY, C_NROOTS, C_WORTHLESS, C_SEALS, C_INERT, C_CLASSIFIED, C_ROOTS = range(8)
R_ROOT, R_OPEN, R_VALUE, R_LEADERS, R_BEST, R_SIDES, R_SEALED = range(7)
C_ROOT_WIDTH = 7
C_SIZE = C_ROOTS + 4 * C_ROOT_WIDTH


# The memo: a placement's score change depends on its walls only through which of the cell's
# neighbouring boxes it joins (a bitmask over the cache's root slots) and whether the box it
# makes is closed (R8.4 doubles, whatever the count of open sides). In all-greedy base games
# 55% of the placements on a cell that can change a score share their key with an earlier one
# there (docs/dev/performance-log.md). Entry k (key k) is valid
# while its stamp equals the epoch, which `_prepare_cell` and `objectives` advance.
M_EPOCH, M_STAMPS = 0, 1
M_KEYS = 32  # 4 root slots, and the closed bit
M_VALUES = M_STAMPS + M_KEYS
M_SIZE = M_VALUES + M_KEYS


@njit(cache=True)
def work_size(pr) -> int:
    """Length of the work array for this game shape."""
    return w_values(pr) + pr.max_actions


@njit(**INLINE)
def w_memo(pr):
    return w_cache(pr) + C_SIZE


@njit(**INLINE)
def w_roots(pr):
    """The per-root cache: the decision epoch, then per cell (as a root) its stamp, best toy
    count, value and leader bitmask, valid while the stamp equals the epoch."""
    return w_memo(pr) + M_SIZE


B_STAMP, B_BEST, B_VALUE, B_LEADERS = range(4)
B_WIDTH = 4


@njit(**INLINE)
def w_values(pr):
    """Where `objectives` writes greedy's objective of each candidate (max_actions slots)."""
    return w_roots(pr) + 1 + B_WIDTH * pr.ncells
