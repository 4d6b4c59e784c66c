"""Built-in policies in compiled code: random and greedy (one-ply).

A policy reads only what its seat may know: the table, its own hand (through
the legal actions, which the engine derives from that hand alone), and public
counts. None of these functions reads the deck or another seat's hand.

Greedy scores a candidate by the change it makes to the boxes it touches,
never by rescoring the whole table: see `_place_delta` and friends.
"""

from __future__ import annotations

from numba import njit

from sim.engine.rng import randint
from sim.engine.state import (
    DEC_CAT,
    DEC_CHOOSE,
    DEC_ITEM,
    DEC_PLAY,
    DEC_SLEEP,
    SC_DECISION,
    SC_ITEM,
    SC_SEAT,
)
from sim.engine.table import (
    INLINE,
    best_toy,
    box_majority,
    box_points,
    cat_bonus,
    find,
    leads,
    offset,
    turned,
    value_of,
)
from sim.engine.turns import (
    A_CAT,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    action_arg1,
    action_arg2,
    action_kind,
    count_play_actions,
    legal_actions,
    nth_play_action,
    sleeping_placements,
)

POLICY_RANDOM = 0
POLICY_GREEDY = 1

# Layout of the int64 work array a game loop hands to greedy (no allocation per decision).
W_DELTA = 0  # [P] score change per seat
W_CUR = 1  # [P] scores as the table stands
W_AWAKE = 2  # [P] merged box: awake cats
W_SLEEP = 3  # [P] merged box: sleeping cats
W_BLOCKS = 4  # then toys [K], roots [4], sealed [4], merged [4], then the two flags:
F_CLOSES_OWN = 0  # boxes the deciding seat leads that a placement closes (R1.8)
F_FEEDS_RIVAL = 1  # 1 if a placement joins a box a rival leads and the seat does not


@njit(cache=True)
def work_size(players: int, ntoys: int) -> int:
    """Length of the work array for this game shape."""
    return W_BLOCKS * players + ntoys + 14


@njit(**INLINE)
def flags_at(pr):
    """Where the placement flags start in the work array."""
    return W_BLOCKS * pr.players + pr.ntoys + 12


@njit(cache=True)
def choose_random(s, pr, stream, buf):
    """Uniform over the legal actions; at a plain play decision, without listing them."""
    n = count_play_actions(s, pr)
    if n > 1:
        return nth_play_action(s, pr, randint(stream, n))
    n = legal_actions(s, pr, buf)
    if n == 1:
        return buf[0]
    return buf[randint(stream, n)]


# ---------------------------------------------------------------- box arithmetic


@njit(**INLINE)
def _majority(awake, sleep, sleep_majority):
    """R8.2 for a box described by its sums."""
    return awake + sleep if sleep_majority else awake


@njit(**INLINE)
def _bumped_majority(s, pr, r, q, seat_bump, bump):
    """Seat q's majority count in root r, with seat_bump's awake cats changed by bump."""
    return box_majority(s, pr, r, q) + (bump if q == seat_bump else 0)


@njit(**INLINE)
def _credit_root(s, pr, r, value, seat_bump, bump, sign, w):
    """Add sign*value to the leaders of root r (seat_bump's awake cats changed by bump)."""
    if value == 0:
        return
    top = 0
    for q in range(pr.players):
        top = max(top, _bumped_majority(s, pr, r, q, seat_bump, bump))
    if top == 0:
        return
    for q in range(pr.players):
        if _bumped_majority(s, pr, r, q, seat_bump, bump) == top:
            w[W_DELTA * pr.players + q] += sign * value


@njit(**INLINE)
def led_by_rival(s, pr, r, me):
    """Does some other seat lead root r while `me` does not?"""
    if leads(s, pr, r, me):
        return False
    for q in range(pr.players):
        if q != me and leads(s, pr, r, q):
            return True
    return False


@njit(cache=True)
def _root_value(s, pr, r, open_change):
    return value_of(best_toy(s, pr, r, -1), s[pr.o_spray + r], s[pr.o_open + r] + open_change)


@njit(cache=True)
def _place_delta(s, pr, x, mask, sleeper, me, w):
    """Score change per seat if walls `mask` went on x (with sleeper's sleeping cat; -1: none).

    Works on the work array by index (no slices: each view costs a reference count).
    """
    players, ntoys = pr.players, pr.ntoys
    o_d = W_DELTA * players
    o_awake = W_AWAKE * players
    o_sleep = W_SLEEP * players
    o_toys = W_BLOCKS * players
    o_roots = o_toys + ntoys
    o_sealed = o_roots + 4
    o_merged = o_roots + 8
    o_flags = o_roots + 12
    for q in range(players):
        w[o_d + q] = 0
    w[o_flags + F_CLOSES_OWN] = 0
    w[o_flags + F_FEEDS_RIVAL] = 0
    nroots = 0
    new_open = 0
    for dd in range(4):
        y = x + offset(pr, dd)
        wy = s[pr.o_walls + y]
        mine_open = ((mask >> dd) & 1) == 0
        if wy < 0:
            if mine_open:
                new_open += 1
            continue
        theirs_open = ((wy >> (dd ^ 2)) & 1) == 0
        r = find(s, pr, y)
        j = 0
        while j < nroots and w[o_roots + j] != r:
            j += 1
        if j == nroots:
            w[o_roots + j] = r
            w[o_sealed + j] = 0
            w[o_merged + j] = 0
            nroots += 1
        if theirs_open:
            w[o_sealed + j] += 1
        if mine_open and theirs_open:
            w[o_merged + j] = 1
    spray = 0
    open_sides = new_open
    any_merged = False
    for j in range(nroots):
        r = w[o_roots + j]
        sealed = w[o_sealed + j]
        if w[o_merged + j] == 0:
            # A neighbour box this card only touches: its value changes only if the
            # card seals its last open sides (R1.8); its leaders stay.
            if sealed > 0 and s[pr.o_open + r] == sealed:
                change = _root_value(s, pr, r, -sealed) - _root_value(s, pr, r, 0)
                _credit_root(s, pr, r, change, -1, 0, 1, w)
                if leads(s, pr, r, me):
                    w[o_flags + F_CLOSES_OWN] += 1
            continue
        if led_by_rival(s, pr, r, me):
            w[o_flags + F_FEEDS_RIVAL] = 1
        _credit_root(s, pr, r, _root_value(s, pr, r, 0), -1, 0, -1, w)  # it joins the new box
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
        open_sides += s[pr.o_open + r] - sealed
    if not any_merged:
        return  # the new card is a box of its own, with no items: worth 0
    if sleeper >= 0:
        w[o_sleep + sleeper] += 1
    best = 0
    for k in range(ntoys):
        best = max(best, w[o_toys + k])
    top = 0
    for q in range(players):
        top = max(top, _majority(w[o_awake + q], w[o_sleep + q], pr.sleep_majority))
    if top == 0:
        return
    if open_sides == 0 and _majority(w[o_awake + me], w[o_sleep + me], pr.sleep_majority) == top:
        w[o_flags + F_CLOSES_OWN] += 1
    value = value_of(best, spray, open_sides)
    if value == 0:
        return
    for q in range(players):
        if _majority(w[o_awake + q], w[o_sleep + q], pr.sleep_majority) == top:
            w[o_d + q] += value


@njit(cache=True)
def _item_delta(s, pr, x, t, w):
    """Score change per seat if item type t went on a seam of x's box."""
    for q in range(pr.players):
        w[W_DELTA * pr.players + q] = 0
    r = find(s, pr, x)
    toy = s[pr.t_toy + t]
    old = _root_value(s, pr, r, 0)
    spray = s[pr.o_spray + r] + (1 if toy < 0 else 0)
    new = value_of(best_toy(s, pr, r, toy), spray, s[pr.o_open + r])
    _credit_root(s, pr, r, new - old, -1, 0, 1, w)


@njit(cache=True)
def _cat_delta(s, pr, north, seat, bump, w):
    """Score change per seat if seat's awake cats in north's box changed by bump (+1 or -1)."""
    for q in range(pr.players):
        w[W_DELTA * pr.players + q] = 0
    r = find(s, pr, north)
    value = _root_value(s, pr, r, 0)
    _credit_root(s, pr, r, value, -1, 0, -1, w)
    _credit_root(s, pr, r, value, seat, bump, 1, w)
    w[W_DELTA * pr.players + seat] += bump  # R8.5: the cat bonus


@njit(**INLINE)
def _objective(pr, w, me):
    """Own score minus the best opponent's, after the candidate's change."""
    o_d = W_DELTA * pr.players
    o_cur = W_CUR * pr.players
    best_other = -(1 << 40)
    for q in range(pr.players):
        if q != me:
            best_other = max(best_other, w[o_cur + q] + w[o_d + q])
    return w[o_cur + me] + w[o_d + me] - best_other


@njit(cache=True)
def score_change(s, pr, a, me, w):
    """Fill the work array's score change per seat (and placement flags) for legal action a."""
    dec = s[SC_DECISION]
    kind = action_kind(a)
    fl = flags_at(pr)
    if dec == DEC_PLAY and kind == A_PLACE:
        code = action_arg1(a)
        m = s[pr.t_walls + (code >> 1)]
        _place_delta(s, pr, action_arg2(a), turned(m) if code & 1 else m, -1, me, w)
        return
    w[fl + F_CLOSES_OWN] = 0
    w[fl + F_FEEDS_RIVAL] = 0
    if dec == DEC_PLAY and kind == A_PRINCESS:
        north = action_arg2(a)
        _cat_delta(s, pr, north, s[pr.o_occ + north], -1, w)
    elif dec == DEC_SLEEP and kind == A_SLEEP:
        m = pr.sleep_walls
        _place_delta(s, pr, action_arg2(a), turned(m) if action_arg1(a) else m, me, me, w)
    elif dec == DEC_CAT and kind == A_CAT:
        _cat_delta(s, pr, action_arg2(a), me, 1, w)
    elif dec == DEC_ITEM:
        _item_delta(s, pr, action_arg2(a), s[SC_ITEM], w)
    else:
        for q in range(pr.players):  # discards, no cat, the box action: nothing changes
            w[W_DELTA * pr.players + q] = 0


@njit(cache=True)
def _evaluate(s, pr, a, me, w):
    """Greedy's objective for legal action a at the current decision."""
    score_change(s, pr, a, me, w)
    return _objective(pr, w, me)


@njit(cache=True)
def current_scores(s, pr, w):
    """Fill the work array's current-score row (box points plus cat bonus)."""
    cur = w[W_CUR * pr.players : (W_CUR + 1) * pr.players]
    cur[:] = 0
    box_points(s, pr, cur)
    cat_bonus(s, pr, cur)


@njit(cache=True)
def choose_greedy(s, pr, stream, buf, w):
    """One-ply greedy: maximise own minus best opponent's score as if scored now; ties at random."""
    me = s[SC_SEAT]
    n = legal_actions(s, pr, buf)
    if n == 1:
        return buf[0]
    current_scores(s, pr, w)
    if s[SC_DECISION] == DEC_CHOOSE:
        return _choose_action_kind(s, pr, me, stream, buf, w)
    best = -(1 << 40)
    ties = 0
    pick = buf[0]
    for i in range(n):
        v = _evaluate(s, pr, buf[i], me, w)
        if v > best:
            best = v
            ties = 1
            pick = buf[i]
        elif v == best:
            ties += 1
            if randint(stream, ties) == 0:  # reservoir sampling: uniform among ties
                pick = buf[i]
    return pick


@njit(cache=True)
def _choose_action_kind(s, pr, me, stream, buf, w):
    """Box action (the table unchanged now) or the sleeping-cat action at its best placement."""
    d = w[W_DELTA * pr.players : (W_DELTA + 1) * pr.players]
    d[:] = 0
    box = _objective(pr, w, me)
    n = sleeping_placements(s, pr, buf, 2)  # buf[0:2] holds the two choices
    best = -(1 << 40)
    for i in range(2, n):
        a = buf[i]
        m = pr.sleep_walls
        _place_delta(s, pr, action_arg2(a), turned(m) if action_arg1(a) else m, me, me, w)
        v = _objective(pr, w, me)
        if v > best:
            best = v
    if best > box or (best == box and randint(stream, 2) == 1):
        return buf[1]
    return buf[0]
