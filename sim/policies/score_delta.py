"""Greedy's box arithmetic: the change a candidate makes to the scores of the boxes it
touches (R8), never a rescoring of the whole table, with the per-cell cache and memo of
`sim.policies.work` (`score_change`, `current_scores` and the deltas behind them)."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.actions import (
    A_CAT,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    action_arg1,
    action_arg2,
    action_kind,
)
from sim.engine.scoring import (
    best_toy,
    box_majority,
    box_top_count,
    box_value,
    leader_mask,
    leads,
    majority,
    read_root,
    value_of,
)
from sim.engine.state import (
    DEC_CAT,
    DEC_ITEM,
    DEC_PLAY,
    DEC_SLEEP,
    SC_DECISION,
    SC_ITEM,
    SC_NCATS,
    SC_NITEMS,
)
from sim.engine.table import CALLED, INLINE, find, offset, turned
from sim.policies.work import (
    B_BEST,
    B_LEADERS,
    B_STAMP,
    B_VALUE,
    B_WIDTH,
    C_CELL,
    C_CLASSIFIED,
    C_EMPTY,
    C_INERT,
    C_NROOTS,
    C_ROOT_WIDTH,
    C_ROOTS,
    C_SEALS,
    C_WORTHLESS,
    F_CLOSES_OWN,
    F_FEEDS_RIVAL,
    M_EPOCH,
    R_BEST,
    R_LEADERS,
    R_OPEN,
    R_ROOT,
    R_SEALED,
    R_SIDES,
    R_VALUE,
    w_awake,
    w_cache,
    w_cur,
    w_delta,
    w_flags,
    w_memo,
    w_roots,
    w_sleep,
    w_toys,
)


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
        mask = turned(m) if code & 1 else m
        _place_delta_once(s, pr, action_arg2(a), mask, np.int64(-1), me, w, flags)
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
    """_place_delta for seat me's sleeping-cat card (R3.2)."""
    _place_delta_once(s, pr, x, mask, me, me, w, flags)


@njit(**INLINE)
def _place_delta_once(s, pr, x, mask, sleeper, me, w, flags):
    """`_place_delta` called, not inlined: greedy's `objectives` and the heuristic score a
    placement here only when neither their memo nor their quiet shortcuts settle it (about 2%
    and 3% of the candidates), and the sleeping-cat card is rare. Each inlined copy cost about
    a second of the first compile."""
    _place_delta_called(
        s, pr, np.int64(x), np.int64(mask), np.int64(sleeper), np.int64(me), w, np.bool_(flags)
    )


@njit(**CALLED)
def _place_delta_called(s, pr, x, mask, sleeper, me, w, flags):
    """`_place_delta` compiled once, for `_place_delta_once`."""
    _place_delta(s, pr, x, mask, sleeper, me, w, flags)


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


@njit(**CALLED)
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


@njit(**INLINE)
def _no_leader_near(s, pr, x):
    """Does no box next to cell x have a leader (a cat that counts for its majority, R8.2)?
    Then a card on x changes no score, whatever the boxes hold: the boxes it touches, joins
    or makes have nobody to credit (`_place_delta`), and it sets no placement flag (it feeds
    no box a rival leads, and closes none anyone leads)."""
    for d in range(4):
        y = x + offset(pr, d)
        if s[pr.o_walls + y] >= 0 and box_top_count(s, pr, read_root(s, pr, y)) > 0:
            return False
    return True


@njit(**INLINE)
def _quiet_flags(pr, w, key, me):
    """The placement flags of a card with memo key `key` on the cached cell that keeps every
    score (`_keeps_scores`), read from the cell cache, with the score change cleared: what
    `_place_delta` finds for it without merging the boxes' toys and cats. It feeds a box a
    rival leads if it joins one (R1.6); it closes each box it only touches, and seals, that
    `me` leads (R1.8); the box it makes is open, or joins only inert boxes (nobody leads)."""
    c = w_cache(pr)
    o_flags = w_flags(pr)
    _clear_delta(pr, w)
    closes = 0
    feeds = 0
    for j in range(w[c + C_NROOTS]):
        base = c + C_ROOTS + C_ROOT_WIDTH * j
        leaders = w[base + R_LEADERS]
        if (key >> j) & 1:
            if leaders != 0 and not (leaders >> me) & 1:
                feeds = 1
        elif (leaders >> me) & 1:
            sealed = w[base + R_SEALED]
            if sealed > 0 and w[base + R_OPEN] == sealed:
                closes += 1
    w[o_flags + F_CLOSES_OWN] = closes
    w[o_flags + F_FEEDS_RIVAL] = feeds
