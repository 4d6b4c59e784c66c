"""Scoring and winners (R8.1-R8.6): the one compiled home of box values, leaders and ranks.

The engine's final scores, greedy's and the heuristic's incremental score
changes, the result rows and the look-ahead's rollout values all call these
functions, so a change to a scoring rule is made once. Box contents come from
the union-find roots kept by `sim.engine.table`; the slow, independent
recount that the tests check all of this against is `sim.engine.reference`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.state import SC_NCATS, SC_NITEMS, SC_NPLACED
from sim.engine.table import CALLED, INLINE

# ---------------------------------------------------------------- one box (R8.2-R8.4)


@njit(**INLINE)
def best_toy(s, pr, root, extra_kind):
    """R8.3: count of the most numerous toy kind, with one more of extra_kind (-1: none)."""
    best = 0
    base = pr.o_toys + root * pr.ntoys
    for k in range(pr.ntoys):
        n = s[base + k] + (1 if k == extra_kind else 0)
        if n > best:
            best = n
    return best


@njit(**INLINE)
def value_of(best, sprayers, open_sides):
    """R8.3, R8.4: most numerous toy kind minus sprayers, doubled when no open side is left."""
    value = best - sprayers
    return 2 * value if open_sides == 0 else value


@njit(**INLINE)
def closure_bonus(best, sprayers, open_sides):
    """R8.4: the part of a box's value that closing it added (0 while it is open)."""
    return value_of(best, sprayers, open_sides) - value_of(best, sprayers, 1)


@njit(**INLINE)
def box_value(s, pr, root):
    """The value of the box rooted at root (R8.3, R8.4)."""
    return value_of(best_toy(s, pr, root, -1), s[pr.o_spray + root], s[pr.o_open + root])


@njit(**INLINE)
def majority(awake, sleeping, sleep_majority):
    """R8.2: the cats that count for a box majority (sleeping ones per the variant)."""
    return awake + sleeping if sleep_majority else awake


@njit(**INLINE)
def box_majority(s, pr, root, q):
    """R8.2: seat q's cats in the box rooted at root."""
    i = root * pr.players + q
    return majority(s[pr.o_awake + i], s[pr.o_sleep + i], pr.sleep_majority)


@njit(**INLINE)
def box_top_count(s, pr, root):
    """The leaders' cat count in the box (0: nobody leads)."""
    top = 0
    for q in range(pr.players):
        m = box_majority(s, pr, root, q)
        if m > top:
            top = m
    return top


@njit(**INLINE)
def leads(s, pr, root, p):
    """Is seat p one of the box's leaders (R8.2)?"""
    top = box_top_count(s, pr, root)
    return top > 0 and box_majority(s, pr, root, p) == top


@njit(**INLINE)
def leader_mask(s, pr, root):
    """The seats leading the box rooted at root as a bitmask (0: nobody leads, R8.2)."""
    top = box_top_count(s, pr, root)
    mask = 0
    if top > 0:
        for q in range(pr.players):
            if box_majority(s, pr, root, q) == top:
                mask |= 1 << q
    return mask


# ---------------------------------------------------------------- the table (R8.1, R8.5)


@njit(**INLINE)
def pay_leaders(s, pr, x, out):
    """R8.1, R8.2: add box x's value to each of its leaders in out[seat]."""
    value = box_value(s, pr, x)  # first: most boxes are worth 0 (no toy, no sprayer)
    if value == 0:
        return
    top = box_top_count(s, pr, x)
    if top == 0:
        return
    for q in range(pr.players):
        if box_majority(s, pr, x, q) == top:
            out[q] += value


@njit(**CALLED)
def box_points(s, pr, out):
    """R8.1, R8.2: add each box's value to each of its leaders in out[seat]."""
    for i in range(s[SC_NPLACED]):
        x = s[pr.o_placed + i]
        if s[pr.o_parent + x] != x:
            continue
        pay_leaders(s, pr, x, out)


@njit(**CALLED)
def cat_bonus(s, pr, out):
    """R8.5: one point per awake cat on the table."""
    for i in range(s[SC_NCATS]):
        out[s[pr.o_cat_owner + i]] += 1


@njit(cache=True)
def final_scores(s, pr):
    """R8: box points plus the cat bonus."""
    out = np.zeros(pr.players, np.int64)
    box_points(s, pr, out)
    cat_bonus(s, pr, out)
    return out


@njit(**INLINE)
def read_root(s, pr, x):
    """Root of x's box, read only (no path halving: scoring leaves the state as it is)."""
    while s[pr.o_parent + x] != x:
        x = s[pr.o_parent + x]
    return x


@njit(**CALLED)
def table_scores(s, pr, out, roots):
    """R8 on the table as it stands, into out[seat] (zeroed first): the score trace's entry.

    The same as box_points plus cat_bonus, but it visits only the boxes that hold an item:
    a box without toys or sprayers is worth 0 (R8.3), and there are far fewer items than
    cards. `roots` is scratch room for one root per item on the table.
    """
    out[:] = 0
    n = 0
    for i in range(s[SC_NITEMS]):
        x = read_root(s, pr, s[pr.o_items + i])
        seen = False
        for j in range(n):
            if roots[j] == x:
                seen = True
                break
        if seen:
            continue
        roots[n] = x
        n += 1
        pay_leaders(s, pr, x, out)
    cat_bonus(s, pr, out)


# ---------------------------------------------------------------- winners (R8.6)


@njit(**INLINE)
def _top(scores):
    """The highest score (a loop: numba's array max compiles its own code for every layout)."""
    top = scores[0]
    for q in range(1, len(scores)):
        if scores[q] > top:
            top = scores[q]
    return top


@njit(**INLINE)
def winners(scores):
    """R8.6: the seats with the top score, as a bitmask, and how many they are."""
    top = _top(scores)
    mask = 0
    n = 0
    for q in range(len(scores)):
        if scores[q] == top:
            mask |= 1 << q
            n += 1
    return mask, n


@njit(**INLINE)
def win_share(scores, p):
    """R8.6: seat p's share of the win: 1/k if it is one of k tied winners, else 0."""
    mask, n = winners(scores)
    return 1.0 / n if (mask >> p) & 1 else 0.0


@njit(**INLINE)
def margin(scores):
    """The winner's lead over the best other seat; 0 when the win is shared (R8.6)."""
    mask, n = winners(scores)
    if n > 1:
        return 0
    top = _top(scores)
    second = -(1 << 40)
    for q in range(len(scores)):
        if not (mask >> q) & 1:
            second = max(second, scores[q])
    return top - second


@njit(**INLINE)
def rank(scores, p):
    """Seat p's place, 1 the best; tied seats share the best place they tie for."""
    above = 0
    for q in range(len(scores)):
        above += scores[q] > scores[p]
    return 1 + above
