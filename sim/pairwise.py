"""numpy's order of adding a contiguous run of float64s, in compiled code.

numpy adds a contiguous array (and each row along a reduced last axis) pairwise
(`pairwise_sum` in its `loops_utils.h`): eight running sums over blocks of up to 128 values,
halves above that, cut at a multiple of eight; fewer than eight values one by one from 0.0.
Floating-point addition is not associative, so a compiled kernel whose sums must equal
numpy's to the last bit (a chunk's moments, `sim.analysis.moment_sums`; a game's feel,
`sim.feel.kernel`) adds in this order. Its own room, so that either imports it alone.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_BLOCK = 128  # numpy's PW_BLOCKSIZE


@njit(cache=True, nogil=True)
def _block(a, lo, n):
    """a[lo:lo + n].sum() for n <= 128 in numpy's order: eight running sums, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    whole = n - n % 8
    while i < whole:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def pairwise_sum(a, n):
    """a[:n].sum() in numpy's order: blocks of up to 128 (`_block`), and above that the
    sum of the two halves' sums, the first half cut at a multiple of eight. Without
    recursion (numba's cache cannot load a recursive function): a stack of halves, each
    frame waiting for its first half's sum (`state` 0) or its second's (1)."""
    if n <= _BLOCK:
        return _block(a, 0, n)
    starts = np.empty(64, np.int64)  # 64 halvings: far more than any length needs
    sizes = np.empty(64, np.int64)
    state = np.empty(64, np.int64)
    first = np.empty(64)
    top = 0
    starts[0], sizes[0], state[0] = 0, n, 0
    while True:
        if sizes[top] > _BLOCK:  # split: work on its first half
            half = sizes[top] // 2
            half -= half % 8
            starts[top + 1], sizes[top + 1], state[top + 1] = starts[top], half, 0
            top += 1
            continue
        v = _block(a, starts[top], sizes[top])
        top -= 1
        while top >= 0 and state[top] == 1:  # a second half done: its frame is done too
            v = first[top] + v
            top -= 1
        if top < 0:
            return v
        first[top], state[top] = v, 1  # a first half done: now the second
        half = sizes[top] // 2
        half -= half % 8
        starts[top + 1], sizes[top + 1], state[top + 1] = starts[top] + half, sizes[top] - half, 0
        top += 1
