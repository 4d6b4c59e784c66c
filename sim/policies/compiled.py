"""Built-in policies in compiled code: random and greedy (one-ply).

A policy reads only what its seat may know: the table, its own hand (through
the legal actions, which the engine derives from that hand alone), and public
counts. None of these functions reads the deck or another seat's hand.

Greedy scores a candidate by the change it makes to the boxes it touches,
never by rescoring the whole table: see `_place_delta` and friends.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.rng import randint
from sim.engine.scoring import (
    best_toy,
    box_majority,
    box_value,
    leader_mask,
    leads,
    majority,
    read_root,
    value_of,
)
from sim.engine.state import (
    DEC_CAT,
    DEC_CHOOSE,
    DEC_ITEM,
    DEC_PLAY,
    DEC_SLEEP,
    SC_DECISION,
    SC_ITEM,
    SC_NCATS,
    SC_NITEMS,
    SC_SEAT,
)
from sim.engine.table import CALLED, INLINE, find, offset, turned
from sim.engine.turns import (
    A_CAT,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    A_SLEEP_CHOICE,
    action_arg1,
    action_arg2,
    action_kind,
    legal_actions,
    random_legal_action,
    sleeping_placements,
)
from sim.specs import BAN_CARD_SHIFT, BAN_CAT, BAN_SLEEPING

# ---------------------------------------------------------------- restricted play


@njit(**INLINE)
def action_banned(a, ban):
    """Is legal action a one of the options in the ban word (sim.specs BAN_* bits)?"""
    kind = action_kind(a)
    if kind == A_SLEEP_CHOICE:
        return (ban & BAN_SLEEPING) != 0
    if kind == A_CAT:
        return (ban & BAN_CAT) != 0
    if kind == A_PLACE:
        return ((ban >> (BAN_CARD_SHIFT + (action_arg1(a) >> 1))) & 1) != 0
    if kind == A_PRINCESS:
        return ((ban >> (BAN_CARD_SHIFT + action_arg1(a))) & 1) != 0
    return False


@njit(**INLINE)
def allowed_actions(s, pr, out, ban):
    """The legal actions a seat with this ban word may take, in legal order, in out[:n].

    Every legal action when none is banned, or when all are (the fallback: the
    rules leave no other move). Nothing removed keeps the list and its length,
    so a ban that never bites plays the same game.
    """
    n = legal_actions(s, pr, out)
    if ban == 0:
        return n
    k = 0
    for i in range(n):
        if not action_banned(out[i], ban):
            out[k] = out[i]  # k <= i: compacting in place; if k stays 0 nothing was written
            k += 1
    return k if k > 0 else n


@njit(**INLINE)
def choose_random(s, pr, stream, buf, ban):
    """Uniform among the allowed actions (the engine's draw, without listing, when no ban)."""
    if ban == 0:
        return random_legal_action(s, pr, stream, buf)
    n = allowed_actions(s, pr, buf, ban)
    if n == 1:
        return buf[0]
    return buf[randint(stream, n)]


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


# ---------------------------------------------------------------- box arithmetic


@njit(**INLINE)
def _bumped_majority(s, pr, r, q, seat_bump, bump):
    """Seat q's majority count in root r, with seat_bump's awake cats changed by bump."""
    return box_majority(s, pr, r, q) + (bump if q == seat_bump else 0)


@njit(**CALLED)
def _credit_root(s, pr, r, value, seat_bump, bump, sign, w):
    """Add sign*value to the leaders of root r (seat_bump's awake cats changed by bump).

    Compiled once, every argument an int64: only cat and item candidates call it."""
    if value == 0:
        return
    top = 0
    for q in range(pr.players):
        top = max(top, _bumped_majority(s, pr, r, q, seat_bump, bump))
    if top == 0:
        return
    for q in range(pr.players):
        if _bumped_majority(s, pr, r, q, seat_bump, bump) == top:
            w[w_delta(pr) + q] += sign * value


@njit(**INLINE)
def led_by_rival(s, pr, r, me):
    """Does some other seat lead root r while `me` does not?"""
    if leads(s, pr, r, me):
        return False
    for q in range(pr.players):
        if q != me and leads(s, pr, r, q):
            return True
    return False


@njit(**CALLED)
def _item_delta(s, pr, x, t, w):
    """Score change per seat if item type t went on a seam of x's box."""
    _clear_delta(pr, w)
    r = find(s, pr, x)
    toy = s[pr.t_toy + t]
    old = box_value(s, pr, r)
    spray = s[pr.o_spray + r] + (1 if toy < 0 else 0)
    new = value_of(best_toy(s, pr, r, toy), spray, s[pr.o_open + r])
    _credit_root(s, pr, np.int64(r), np.int64(new - old), np.int64(-1), np.int64(0), np.int64(1), w)


@njit(**CALLED)
def _cat_delta(s, pr, north, seat, bump, w):
    """Score change per seat if seat's awake cats in north's box changed by bump (+1 or -1)."""
    _clear_delta(pr, w)
    r = find(s, pr, north)
    value = box_value(s, pr, r)
    r, value = np.int64(r), np.int64(value)
    _credit_root(s, pr, r, value, np.int64(-1), np.int64(0), np.int64(-1), w)
    _credit_root(s, pr, r, value, seat, bump, np.int64(1), w)
    w[w_delta(pr) + seat] += bump  # R8.5: the cat bonus


@njit(**INLINE)
def _objective(pr, w, me):
    """Own score minus the best opponent's, after the candidate's change."""
    o_d = w_delta(pr)
    o_cur = w_cur(pr)
    best_other = -(1 << 40)
    for q in range(pr.players):
        if q != me:
            best_other = max(best_other, w[o_cur + q] + w[o_d + q])
    return w[o_cur + me] + w[o_d + me] - best_other


@njit(**INLINE)
def score_change(s, pr, a, me, w, flags):
    """Fill the work array's score change per seat (and placement flags) for legal action a."""
    dec = s[SC_DECISION]
    kind = action_kind(a)
    fl = w_flags(pr)
    if dec == DEC_PLAY and kind == A_PLACE:
        code = action_arg1(a)
        m = s[pr.t_walls + (code >> 1)]
        _place_delta(s, pr, action_arg2(a), turned(m) if code & 1 else m, -1, me, w, flags)
        return
    if dec == DEC_SLEEP and kind == A_SLEEP:
        w[fl + F_CLOSES_OWN] = 0
        w[fl + F_FEEDS_RIVAL] = 0
        m = pr.sleep_walls
        _sleep_delta(s, pr, action_arg2(a), turned(m) if action_arg1(a) else m, me, w, flags)
        return
    _other_delta(s, pr, a, me, w)


@njit(**CALLED)
def _other_delta(s, pr, a, me, w):
    """The score change of an action that lays no card (a Princess, a cat, an item, and the
    rest, which change nothing), placement flags zeroed: one compiled home for
    `score_change` and `objectives` (an inlined copy in each cost compile time)."""
    dec = s[SC_DECISION]
    kind = action_kind(a)
    fl = w_flags(pr)
    w[fl + F_CLOSES_OWN] = 0
    w[fl + F_FEEDS_RIVAL] = 0
    if dec == DEC_PLAY and kind == A_PRINCESS:
        north = action_arg2(a)
        _cat_delta(s, pr, north, np.int64(s[pr.o_occ + north]), np.int64(-1), w)
    elif dec == DEC_CAT and kind == A_CAT:
        _cat_delta(s, pr, action_arg2(a), me, np.int64(1), w)
    elif dec == DEC_ITEM:
        _item_delta(s, pr, action_arg2(a), s[SC_ITEM], w)
    else:
        _clear_delta(pr, w)  # discards, no cat, the box action: nothing changes


@njit(**INLINE)
def _root_entry(s, pr, r, w):
    """Where root r's entry in the per-root cache starts, read in if it was of another decision.

    A box borders many cells of the front, and its best toy count, value and leaders stay put
    while one decision looks at it."""
    rb = w_roots(pr) + 1 + B_WIDTH * r
    epoch = w[w_roots(pr)]
    if w[rb + B_STAMP] != epoch or epoch == 0:
        best = best_toy(s, pr, r, -1)
        w[rb + B_STAMP] = epoch
        w[rb + B_BEST] = best
        w[rb + B_VALUE] = value_of(best, s[pr.o_spray + r], s[pr.o_open + r])
        w[rb + B_LEADERS] = leader_mask(s, pr, r)
    return rb


@njit(**CALLED)
def _prepare_cell(s, pr, x, w):
    """Cache what every card laid on x shares: its neighbours' boxes and their values."""
    c = w_cache(pr)
    w[w_memo(pr) + M_EPOCH] += 1  # the memo's entries were of another cell
    w[c + C_CELL] = x
    nroots = 0
    worthless = 1
    empty = 0
    for dd in range(4):
        y = x + offset(pr, dd)
        wy = s[pr.o_walls + y]
        if wy < 0:
            empty |= 1 << dd
            continue
        r = find(s, pr, y)
        j = 0
        while j < nroots and w[c + C_ROOTS + C_ROOT_WIDTH * j + R_ROOT] != r:
            j += 1
        base = c + C_ROOTS + C_ROOT_WIDTH * j
        if j == nroots:
            rb = _root_entry(s, pr, r, w)
            best = w[rb + B_BEST]
            w[base + R_ROOT] = r
            w[base + R_OPEN] = s[pr.o_open + r]
            w[base + R_VALUE] = w[rb + B_VALUE]
            w[base + R_LEADERS] = w[rb + B_LEADERS]
            w[base + R_BEST] = best
            w[base + R_SIDES] = 0
            w[base + R_SEALED] = 0
            nroots += 1
            if best > 0 or s[pr.o_spray + r] > 0:
                worthless = 0
        if ((wy >> (dd ^ 2)) & 1) == 0:  # the neighbour's side facing x is open
            w[base + R_SIDES] |= 1 << dd
            w[base + R_SEALED] += 1
    w[c + C_EMPTY] = empty
    w[c + C_NROOTS] = nroots
    w[c + C_WORTHLESS] = worthless
    w[c + C_CLASSIFIED] = -1  # the masks (`_classify_cell`) were of the cell before


@njit(**INLINE)
def _classify_cell(pr, w):
    """C_SEALS and C_INERT of the cached cell (`_keeps_scores` reads them)."""
    c = w_cache(pr)
    seals = 0
    inert = 0
    for j in range(w[c + C_NROOTS]):
        base = c + C_ROOTS + C_ROOT_WIDTH * j
        # The cached value is (best toy count - sprayers), doubled if closed (R8.3, R8.4): 0
        # exactly when they are equal, so with no toy, exactly when there is no sprayer.
        best, value, leaders = w[base + R_BEST], w[base + R_VALUE], w[base + R_LEADERS]
        if best == 0 and value == 0 and leaders == 0:
            inert |= 1 << j
        sealed = w[base + R_SEALED]
        if sealed > 0 and w[base + R_OPEN] == sealed and leaders != 0 and value != 0:
            seals |= 1 << j
    w[c + C_SEALS] = seals
    w[c + C_INERT] = inert
    w[c + C_CLASSIFIED] = w[c + C_CELL]


@njit(**INLINE)
def popcount4(m):
    """Set bits of a 4-bit side mask."""
    return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1)


@njit(**INLINE)
def _credit_mask(pr, w, leaders, value):
    """Add value to every seat in the leaders bitmask."""
    for q in range(pr.players):
        if (leaders >> q) & 1:
            w[w_delta(pr) + q] += value


@njit(**INLINE)
def _clear_delta(pr, w):
    for q in range(pr.players):
        w[w_delta(pr) + q] = 0


@njit(**INLINE)
def _place_delta(s, pr, x, mask, sleeper, me, w, flags):
    """Score change per seat if walls `mask` went on x, with sleeper's sleeping cat (-1: none).

    Only the boxes next to x can change (R1.7, R1.8); what they share for every
    card laid on x comes from the cell cache. With `flags`, also the heuristic's
    placement flags for seat `me`. Works on the work array by index: a view
    would cost a reference count per candidate.
    """
    players, ntoys = pr.players, pr.ntoys
    c = w_cache(pr)
    if w[c + C_CELL] != x:
        _prepare_cell(s, pr, x, w)
    o_delta = w_delta(pr)
    o_awake = w_awake(pr)
    o_sleep = w_sleep(pr)
    o_toys = w_toys(pr)
    o_flags = w_flags(pr)
    _clear_delta(pr, w)
    w[o_flags + F_CLOSES_OWN] = 0
    w[o_flags + F_FEEDS_RIVAL] = 0
    if w[c + C_WORTHLESS] and not flags:
        return
    nroots = w[c + C_NROOTS]
    mine_open = ~mask & 15  # the card's open sides
    open_sides = popcount4(w[c + C_EMPTY] & mine_open)  # open sides touching no card (R1.8)
    spray = 0
    any_merged = False
    for j in range(nroots):
        base = c + C_ROOTS + C_ROOT_WIDTH * j
        r, open_r = w[base + R_ROOT], w[base + R_OPEN]
        value_r, leaders_r = w[base + R_VALUE], w[base + R_LEADERS]
        sealed = w[base + R_SEALED]  # its open sides that now touch a card
        if (w[base + R_SIDES] & mine_open) == 0:  # no open seam joins it to the card (R1.6)
            # A box this card only touches changes only if the card seals its
            # last open sides (R1.8); its leaders stay.
            if sealed > 0 and open_r == sealed:
                change = value_of(w[base + R_BEST], s[pr.o_spray + r], 0) - value_r
                _credit_mask(pr, w, leaders_r, change)
                if flags and (leaders_r >> me) & 1:
                    w[o_flags + F_CLOSES_OWN] += 1
            continue
        if flags and leaders_r != 0 and not (leaders_r >> me) & 1:
            w[o_flags + F_FEEDS_RIVAL] = 1
        _credit_mask(pr, w, leaders_r, -value_r)  # it joins the new box
        if not any_merged:
            any_merged = True
            for k in range(ntoys):
                w[o_toys + k] = 0
            for q in range(players):
                w[o_awake + q] = 0
                w[o_sleep + q] = 0
        for k in range(ntoys):
            w[o_toys + k] += s[pr.o_toys + r * ntoys + k]
        for q in range(players):
            w[o_awake + q] += s[pr.o_awake + r * players + q]
            w[o_sleep + q] += s[pr.o_sleep + r * players + q]
        spray += s[pr.o_spray + r]
        open_sides += open_r - sealed
    if not any_merged:
        return  # the new card is a box of its own, with no items: worth 0
    if sleeper >= 0:
        w[o_sleep + sleeper] += 1
    top = 0
    for q in range(players):
        top = max(top, majority(w[o_awake + q], w[o_sleep + q], pr.sleep_majority))
    if top == 0:
        return
    if flags and open_sides == 0:
        if majority(w[o_awake + me], w[o_sleep + me], pr.sleep_majority) == top:
            w[o_flags + F_CLOSES_OWN] += 1
    best = 0
    for k in range(ntoys):
        best = max(best, w[o_toys + k])
    value = value_of(best, spray, open_sides)
    if value == 0:
        return
    for q in range(players):
        if majority(w[o_awake + q], w[o_sleep + q], pr.sleep_majority) == top:
            w[o_delta + q] += value


@njit(**INLINE)
def _sleep_delta(s, pr, x, mask, me, w, flags):
    """_place_delta for seat me's sleeping-cat card (R3.2); the only inlined copy is in
    `_sleep_delta_once`, as the sleeping-cat action is rare next to placements."""
    _sleep_delta_once(s, pr, np.int64(x), np.int64(mask), np.int64(me), w, np.bool_(flags))


@njit(**CALLED)
def _sleep_delta_once(s, pr, x, mask, me, w, flags):
    """Score change per seat (and with `flags`, the placement flags) of me's sleeping-cat card
    with walls `mask` on x."""
    _place_delta(s, pr, x, mask, me, me, w, flags)


@njit(**INLINE)
def _memo_key(pr, w, mask):
    """The memo key of walls `mask` on the cached cell: the root slots whose box the card joins
    (an open side of the card meets an open side of that box, R1.6), and 16 if the box it makes
    has no open side left (R1.8): what `_place_delta` reads of the mask, and nothing else."""
    c = w_cache(pr)
    mine_open = ~mask & 15
    open_sides = popcount4(w[c + C_EMPTY] & mine_open)
    merged = 0
    for j in range(w[c + C_NROOTS]):
        base = c + C_ROOTS + C_ROOT_WIDTH * j
        if w[base + R_SIDES] & mine_open:
            merged |= 1 << j
            open_sides += w[base + R_OPEN] - w[base + R_SEALED]
    return merged | (16 if open_sides == 0 else 0)


@njit(**INLINE)
def _keeps_scores(pr, w, key):
    """Does a card with memo key `key` on the cached cell leave every score as it is?

    Yes if it joins no box but inert ones (C_INERT), or one more that it leaves open (R1.6,
    R1.8), and closes no box it only touches whose closing changes a score (C_SEALS): the box it
    joins keeps its toys, sprayers and counting cats, so its leaders, and its value, which R8.4
    doubles only once no open side is left, whatever their count; a box of inert ones is worth
    0 (R8.3). In 60 all-greedy base games this spared 98% of `_place_delta`'s calls
    (docs/dev/performance-log.md)."""
    merged = key & 15
    if (w[w_cache(pr) + C_SEALS] & ~merged) != 0:
        return False
    live = merged & ~w[w_cache(pr) + C_INERT]
    return live == 0 or ((live & (live - 1)) == 0 and key < 16)


@njit(**INLINE)
def _one_live_box(pr, w):
    """Does every card on the cached cell keep every score (`_keeps_scores`)? Yes if at most
    one neighbouring box is not inert, and no box's closing by a card there changes a score:
    a card closes the one that is not inert only if it seals its last open sides (C_SEALS)."""
    c = w_cache(pr)
    if w[c + C_SEALS] != 0:
        return False
    live = ~w[c + C_INERT] & ((1 << w[c + C_NROOTS]) - 1)
    return (live & (live - 1)) == 0


@njit(**INLINE)
def _evaluate(s, pr, a, me, w):
    """Greedy's objective for legal action a at the current decision."""
    score_change(s, pr, a, me, w, False)
    return _objective(pr, w, me)


@njit(**INLINE)
def current_scores(s, pr, w):
    """Start a decision: the scores as the table stands, and empty cell and root caches.

    The scores are R8's, read from the boxes that hold an item (a box without toys or
    sprayers is worth 0, R8.3), each box once: its entry in the root cache, read in at its
    first item, marks it as counted. The entries stay for `_prepare_cell`."""
    o_cur = w_cur(pr)
    for q in range(pr.players):
        w[o_cur + q] = 0
    w[w_cache(pr) + C_CELL] = -1
    w[w_roots(pr)] += 1  # a new decision: the root cache's entries were of another table
    epoch = w[w_roots(pr)]
    for i in range(s[SC_NITEMS]):
        r = read_root(s, pr, s[pr.o_items + i])
        if w[w_roots(pr) + 1 + B_WIDTH * r + B_STAMP] == epoch:
            continue  # counted at an earlier item of this box
        rb = _root_entry(s, pr, r, w)
        value, leaders = w[rb + B_VALUE], w[rb + B_LEADERS]
        if value != 0:
            for q in range(pr.players):
                if (leaders >> q) & 1:
                    w[o_cur + q] += value
    for i in range(s[SC_NCATS]):  # R8.5: a point per awake cat
        w[o_cur + s[pr.o_cat_owner + i]] += 1


@njit(**INLINE)
def _no_item_near(s, pr, x):
    """Does no box next to cell x hold a toy or a sprayer? (roots read, the state untouched)"""
    for d in range(4):
        y = x + offset(pr, d)
        if s[pr.o_walls + y] < 0:
            continue
        r = read_root(s, pr, y)
        if s[pr.o_spray + r] > 0:
            return False
        for k in range(pr.ntoys):
            if s[pr.o_toys + r * pr.ntoys + k] > 0:
                return False
    return True


@njit(**CALLED)
def objectives(s, pr, buf, lo, n, me, w):
    """Greedy's objective of each candidate buf[lo:n] into w[w_values + i] (after
    current_scores): what _evaluate finds for it, computed here, the one compiled home of that
    code for greedy, the look-ahead's and ismcts's ranking.

    Placements come cell by cell; a card on a cell next to no box with a toy or a sprayer
    changes no score (R8.3: every box involved is worth 0), so the cell's every card is worth
    the table as it stands. So is a card that joins at most one box that is not inert and
    leaves it open, and closes no box it only touches whose closing would change a score
    (`_keeps_scores`; a whole cell where no card can do otherwise: `_one_live_box`).
    Placements on one cell that join the same boxes and close or leave open the box they make
    are worth the same (`_memo_key`): each is scored once. Sleeping-cat placements (A_SLEEP, at
    the sleeping decision or, for `_choose_action_kind`, at the choice) share the placements'
    one inlined `_place_delta`: each inlined copy costs seconds of compile time."""
    o_v = w_values(pr)
    o_m = w_memo(pr)
    w[o_m + M_EPOCH] += 1  # the memo holds objectives of seat me only (and of this table)
    _clear_delta(pr, w)
    still = _objective(pr, w, me)  # the table as it stands
    dec = s[SC_DECISION]
    play = dec == DEC_PLAY
    sleep = dec == DEC_SLEEP or dec == DEC_CHOOSE
    last = -1
    quiet = False
    for i in range(lo, n):
        a = buf[i]
        kind = action_kind(a)
        x = np.int64(-1)  # the cell of a placement or a sleeping-cat card, else -1
        key = np.int64(-1)  # a placement's memo key (`_memo_key`), else -1
        if play and kind == A_PLACE:
            if action_arg2(a) != last:
                last = action_arg2(a)
                quiet = _no_item_near(s, pr, last)
            if quiet:
                w[o_v + i] = still
                continue
            x = np.int64(action_arg2(a))
            code = action_arg1(a)
            m = s[pr.t_walls + (code >> 1)]
            mask = np.int64(turned(m) if code & 1 else m)
            sleeper = np.int64(-1)
            if w[w_cache(pr) + C_CELL] != x:
                _prepare_cell(s, pr, x, w)
            if w[w_cache(pr) + C_CLASSIFIED] != x:
                _classify_cell(pr, w)
                if _one_live_box(pr, w):
                    # Every card joins at most one box that is not inert and leaves it
                    # open, or closes one whose closing changes nothing (`_keeps_scores`)
                    quiet = True
                    w[o_v + i] = still
                    continue
            key = _memo_key(pr, w, mask)
            if w[o_m + M_STAMPS + key] == w[o_m + M_EPOCH]:
                w[o_v + i] = w[o_m + M_VALUES + key]
                continue
            if _keeps_scores(pr, w, key):
                w[o_v + i] = still
                w[o_m + M_STAMPS + key] = w[o_m + M_EPOCH]
                w[o_m + M_VALUES + key] = still
                continue
        elif sleep and kind == A_SLEEP:
            x = np.int64(action_arg2(a))
            m = pr.sleep_walls
            mask = np.int64(turned(m) if action_arg1(a) else m)
            sleeper = np.int64(me)
        else:  # no card laid: score_change's other branches
            mask = np.int64(0)
            sleeper = np.int64(-1)
            _other_delta(s, pr, a, me, w)
        if x >= 0:
            _place_delta(s, pr, x, mask, sleeper, me, w, False)
        v = _objective(pr, w, me)
        w[o_v + i] = v
        if key >= 0:
            w[o_m + M_STAMPS + key] = w[o_m + M_EPOCH]
            w[o_m + M_VALUES + key] = v


@njit(**CALLED)
def choose_greedy(s, pr, stream, buf, w, ban):
    """One-ply greedy: maximise own minus best opponent's score as if scored now; ties at random.

    Only among the actions the ban word allows (`allowed_actions`)."""
    me = s[SC_SEAT]
    n = allowed_actions(s, pr, buf, ban)
    if n == 1:
        return buf[0]
    current_scores(s, pr, w)
    if s[SC_DECISION] == DEC_CHOOSE:
        return _choose_action_kind(s, pr, me, stream, buf, w)
    objectives(s, pr, buf, np.int64(0), np.int64(n), np.int64(me), w)
    o_v = w_values(pr)
    best = w[o_v]
    ties = 1
    for i in range(1, n):
        v = w[o_v + i]
        if v > best:
            best = v
            ties = 1
        elif v == best:
            ties += 1
    # One draw per decision, uniform among the ties: most candidates tie (a card on a cell
    # next to no item changes no score), so a draw per tie (reservoir sampling) cost more
    # than scoring them.
    k = randint(stream, ties) if ties > 1 else 0
    for i in range(n):
        if w[o_v + i] == best:
            if k == 0:
                return buf[i]
            k -= 1
    return buf[0]


@njit(**INLINE)
def _choose_action_kind(s, pr, me, stream, buf, w):
    """Box action (the table unchanged now) or the sleeping-cat action at its best placement."""
    _clear_delta(pr, w)
    box = _objective(pr, w, me)
    n = sleeping_placements(s, pr, buf, np.int64(2))  # buf[0:2] holds the two choices
    objectives(s, pr, buf, np.int64(2), np.int64(n), np.int64(me), w)
    o_v = w_values(pr)
    best = -(1 << 40)
    for i in range(2, n):
        best = max(best, w[o_v + i])
    if best > box or (best == box and randint(stream, 2) == 1):
        return buf[1]
    return buf[0]


@njit(cache=True)
def top_actions(s, pr, mover, buf, n, k, w, values):
    """Keep greedy's k best of buf[:n] in buf[:k], best first (ties in enumeration order),
    and return k (at most n): the search players' candidates. `values` is float scratch."""
    if n <= 1:
        return n
    current_scores(s, pr, w)
    objectives(s, pr, buf, np.int64(0), np.int64(n), np.int64(mover), w)
    o_v = w_values(pr)
    # One pass keeping the k best so far in buf[:kept], best first, a newcomer placed after
    # every kept action at least as good (so ties keep their enumeration order): what a
    # stable sort by value, best first, would put in buf[:k], with no work for the actions
    # that do not beat the k-th (most of them, at a play decision).
    k = min(k, n)
    kept = 0
    for i in range(n):
        v = w[o_v + i]
        if kept == k and v <= values[k - 1]:
            continue
        a = buf[i]  # read before it is overwritten: writes land at kept <= i or below
        j = min(kept, k - 1)
        while j > 0 and values[j - 1] < v:
            buf[j] = buf[j - 1]
            values[j] = values[j - 1]
            j -= 1
        buf[j] = a
        values[j] = v
        if kept < k:
            kept += 1
    return k
