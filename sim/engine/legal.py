"""The legal actions of a decision (R3-R7): the placements of a card, the shapes a play can
take, a Princess's and a free seam's actions, sleeping cats' spots, and a uniformly random
legal action for the random player. `sim.engine.turns` applies them."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.actions import (
    A_BOX,
    A_CAT,
    A_DISCARD,
    A_ITEM,
    A_NO_CAT,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    A_SLEEP_CHOICE,
    action,
    hand_at,
    kind_of,
)
from sim.engine.rng import randint
from sim.engine.state import (
    DEC_CAT,
    DEC_CHOOSE,
    DEC_ITEM,
    DEC_PLAY,
    DEC_SLEEP,
    DIR_N,
    KIND_BOX,
    KIND_PRINCESS,
    SC_DECISION,
    SC_FREE_SEAMS,
    SC_NCATS,
    SC_NFRONT,
    SC_PLACED,
    SC_SEAT,
)
from sim.engine.table import (
    CALLED,
    INLINE,
    can_place,
    cat_spot_ok,
    fits_table,
    fitting_front_cells,
    lowest_free_seam,
    nth_fitting_front_cell,
    offset,
    popcount32,
    seam_word,
    seam_words_laid,
    sides_match,
    turned,
    whole_front_fits,
)


@njit(**INLINE)
def _placements(s, pr, p, out, n):
    """Box cards from hand x empty cells x turnings (R1.3-R1.5), in cell, type, turn order."""
    # The box types in hand lie between lo and hi; walking that range (rather than
    # collecting the types in an array) keeps this loop free of allocation.
    lo = pr.ntypes
    hi = -1
    for t in range(pr.ntypes):
        if s[hand_at(pr, p, t)] > 0 and kind_of(s, pr, t) == KIND_BOX:
            lo = min(lo, t)
            hi = t
    codes = 0  # the cards and turnings every fitting cell takes, packed (match_sides=any)
    per_cell = 0
    if pr.match_sides == 0 and hi < 32:  # codes 2t + turned fit six bits
        for t in range(lo, hi + 1):
            if s[hand_at(pr, p, t)] > 0 and kind_of(s, pr, t) == KIND_BOX:
                m = s[pr.t_walls + t]
                for code in range(2 * t, 2 * t + (2 if turned(m) != m else 1)):
                    if per_cell < 10:  # ten codes fill 60 bits
                        codes |= code << (6 * per_cell)
                    per_cell += 1
    if 0 < per_cell <= 10:
        # Every fitting cell takes the same codes: packed once, written out per cell.
        whole = whole_front_fits(s, pr)  # then every front cell fits (R1.5)
        for i in range(s[SC_NFRONT]):
            x = s[pr.o_front + i]
            if not whole and not fits_table(s, pr, x):
                continue
            word = codes
            for _ in range(per_cell):
                out[n] = action(A_PLACE, word & 63, x)
                n += 1
                word >>= 6
        return n
    for i in range(s[SC_NFRONT]):
        x = s[pr.o_front + i]
        if not fits_table(s, pr, x):  # R1.5, the same for every card
            continue
        for t in range(lo, hi + 1):
            if s[hand_at(pr, p, t)] <= 0 or kind_of(s, pr, t) != KIND_BOX:
                continue
            m = s[pr.t_walls + t]
            m2 = turned(m)
            if pr.match_sides == 0 or sides_match(s, pr, x, m):
                out[n] = action(A_PLACE, 2 * t, x)
                n += 1
            if m2 != m and (pr.match_sides == 0 or sides_match(s, pr, x, m2)):
                out[n] = action(A_PLACE, 2 * t + 1, x)
                n += 1
    return n


@njit(**INLINE)
def _play_shape(s, pr):
    """At a play decision with match_sides=any: the box cards-and-turnings every fitting
    cell admits, and the Princess types in hand that can be played (awake cats on the
    table, R6.1); (-1, 0) at any other decision."""
    if pr.match_sides != 0 or s[SC_DECISION] != DEC_PLAY:
        return -1, 0
    p = s[SC_SEAT]
    per_cell = 0
    princesses = 0
    for t in range(pr.ntypes):
        if s[hand_at(pr, p, t)] > 0:
            kind = kind_of(s, pr, t)
            if kind == KIND_BOX:
                m = s[pr.t_walls + t]
                per_cell += 1 if turned(m) == m else 2
            elif kind == KIND_PRINCESS and s[SC_NCATS] > 0:
                princesses += 1
    return per_cell, princesses


@njit(**CALLED)
def legal_actions(s, pr, out):
    """Fill out[:n] with the legal actions at the current decision; return n."""
    dec = s[SC_DECISION]
    p = s[SC_SEAT]
    n = 0
    if dec == DEC_CHOOSE:
        out[0] = action(A_BOX, 0, 0)
        out[1] = action(A_SLEEP_CHOICE, 0, 0)
        return 2
    if dec == DEC_ITEM:  # the free seams of the placed cards in order, east before south
        for j in range(seam_words_laid(s)):
            w = seam_word(s, pr, j)
            while w != 0:
                x, side = lowest_free_seam(s, pr, j, w)
                out[n] = action(A_ITEM, side, x)
                n += 1
                w &= w - 1
        return n
    if dec == DEC_PLAY:
        n = _placements(s, pr, p, out, 0)
        if s[SC_NCATS] > 0:
            for t in range(pr.ntypes):
                if kind_of(s, pr, t) == KIND_PRINCESS and s[hand_at(pr, p, t)] > 0:
                    for i in range(s[SC_NCATS]):  # R6.1: any awake cat, own included
                        out[n] = action(A_PRINCESS, t, s[pr.o_cat_cell + i])
                        n += 1
        if n == 0:  # R3.1: discard only when nothing can be played
            for t in range(pr.ntypes):
                if s[hand_at(pr, p, t)] > 0:
                    out[n] = action(A_DISCARD, t, 0)
                    n += 1
        return n
    if dec == DEC_CAT:
        out[0] = action(A_NO_CAT, 0, 0)
        return _cat_spots(s, pr, p, s[SC_PLACED], out, 1)
    if dec == DEC_SLEEP:
        return sleeping_placements(s, pr, out, np.int64(0))
    return 0


@njit(**INLINE)
def _card_on_cell(s, pr, p, rest, x):
    """The rest-th card-and-turning of seat p's box cards laid on x, in legal_actions' order."""
    for t in range(pr.ntypes):
        if s[hand_at(pr, p, t)] > 0 and kind_of(s, pr, t) == KIND_BOX:
            m = s[pr.t_walls + t]
            if rest == 0:
                return action(A_PLACE, 2 * t, x)
            if turned(m) != m:
                if rest == 1:
                    return action(A_PLACE, 2 * t + 1, x)
                rest -= 1
            rest -= 1
    return np.int32(-1)


@njit(**CALLED)
def _princess_action(s, pr, p, j):
    """The j-th Princess action of seat p, in legal_actions' order (by type, then cat);
    called, not inlined: a draw lands here rarely, and each inlined copy costs compile time."""
    for t in range(pr.ntypes):
        if kind_of(s, pr, t) == KIND_PRINCESS and s[hand_at(pr, p, t)] > 0:
            if j < s[SC_NCATS]:
                return action(A_PRINCESS, t, s[pr.o_cat_cell + j])
            j -= s[SC_NCATS]
    return np.int32(-1)


@njit(**CALLED)
def _free_seam_action(s, pr, k):
    """At an item decision, the k-th action of legal_actions' list (the free seams of the
    placed cards in order, east before south): counted off the free-seam bits a word at a
    time, with no walk over the cards."""
    for j in range(seam_words_laid(s)):
        w = seam_word(s, pr, j)
        c = popcount32(w)
        if k < c:
            for _ in range(k):
                w &= w - 1  # drop the lowest set bit
            x, side = lowest_free_seam(s, pr, j, w)
            return action(A_ITEM, side, x)
        k -= c
    return np.int32(-1)


@njit(**INLINE)
def random_legal_action(s, pr, stream, buf):
    """A uniformly random legal action; at a play decision (match_sides=any), without
    listing them.

    There legal_actions lists every fitting cell's cards-and-turnings, then each playable
    Princess's awake cats: the fitting cells are counted from the front's kept counts per
    line, and the draw picks a card on a cell (found by a walk that stops there) or a
    Princess's cat (the same action the list would give at that index, so the same game).
    At an item decision the count of free seams is kept (SC_FREE_SEAMS), so the draw comes
    first and the free-seam bits give its seam."""
    per_cell, princesses = _play_shape(s, pr)
    if per_cell >= 0:
        whole_front = whole_front_fits(s, pr)  # then the front is the list of fitting cells
        cells = 0
        if per_cell > 0:
            cells = s[SC_NFRONT] if whole_front else fitting_front_cells(s, pr)
        placements = cells * per_cell
        n = placements + princesses * s[SC_NCATS]
        if n > 1:
            i = randint(stream, n)
            if i < placements:
                cell = i // per_cell
                x = s[pr.o_front + cell] if whole_front else nth_fitting_front_cell(s, pr, cell)
                return _card_on_cell(s, pr, s[SC_SEAT], i - cell * per_cell, x)
            return _princess_action(s, pr, s[SC_SEAT], i - placements)
    elif s[SC_DECISION] == DEC_CHOOSE:  # legal_actions' two, the box action first
        return action(A_BOX, 0, 0) if randint(stream, 2) == 0 else action(A_SLEEP_CHOICE, 0, 0)
    elif s[SC_DECISION] == DEC_ITEM:  # the free seams are counted as they open and fill
        n = s[SC_FREE_SEAMS]
        return _free_seam_action(s, pr, randint(stream, n) if n > 1 else np.int64(0))
    n = legal_actions(s, pr, buf)
    if n == 1:
        return buf[0]
    return buf[randint(stream, n)]


@njit(**CALLED)
def sleeping_placements(s, pr, out, n):
    """R3.2: where the sleeping-cat card may go, appended to out from n; returns the new n."""
    m = pr.sleep_walls
    m2 = turned(m)
    for i in range(s[SC_NFRONT]):
        x = s[pr.o_front + i]
        if can_place(s, pr, x, m):
            out[n] = action(A_SLEEP, 0, x)
            n += 1
        if m2 != m and can_place(s, pr, x, m2):
            out[n] = action(A_SLEEP, 1, x)
            n += 1
    return n


@njit(**INLINE)
def _cat_spots(s, pr, p, x, out, n):
    """R4.2: cat spots with this turn's card x as the south or the north card.

    cat_spot_ok checks that both cards exist (an open seam needs two cards).
    """
    north = x + offset(pr, DIR_N)
    if cat_spot_ok(s, pr, np.int64(north), np.int64(p)):
        out[n] = action(A_CAT, 0, north)
        n += 1
    if cat_spot_ok(s, pr, np.int64(x), np.int64(p)):
        out[n] = action(A_CAT, 0, x)
        n += 1
    return n


@njit(**INLINE)
def _can_cat(s, pr, p, x):
    """R3.1.3: is a cat decision worth offering (a cat in supply and a spot for it)?"""
    if s[pr.o_supply_awake + p] == 0:
        return False
    north, seat = np.int64(x + offset(pr, DIR_N)), np.int64(p)
    return cat_spot_ok(s, pr, north, seat) or cat_spot_ok(s, pr, np.int64(x), seat)
