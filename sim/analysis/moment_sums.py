"""A chunk's column sums in compiled code, bit for bit numpy's (`Moments.of_matrix`).

Every worker turns its chunk's per-game values into moments (`sim.runs.values`). In numpy
that is a dozen passes over the value matrix and four temporary matrices of its size (the
mean, the deviations, a mask for the values that are not 0 or 1, the third and fourth
powers), about 3 ms of a tune candidate's 22 ms chunk. Here two passes a column and no
matrix but the deviations, written over the caller's copy.

The sums must be numpy's to the last bit: a chunk's moments equal those of the same values
read from its table (`tests/runs/test_chunk_values.py`). numpy adds a contiguous column
pairwise (`pairwise_sum` in its `loops_utils.h`: eight running sums over blocks of up to
128 values, halves above that, cut at a multiple of eight); `_pairwise` is that order, and
the powers are formed as numpy forms them, ((d·d)·d)·d. Kept apart so that only a process
that plays games imports numba for it.
"""

from __future__ import annotations

import math

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
def _pairwise(a, n):
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


@njit(cache=True, nogil=True)
def deviations_and_sums(columns):
    """Per row of `columns` (k × n, row-major, n > 0: one value column a row): the mean, the
    count of values that are not 0 or 1, the smallest and largest value (NaN if the column
    holds one, as numpy's min and max), and the central sums Σ d³ and Σ d⁴; each row is
    overwritten with its deviations d = x − mean. Row-major whatever the shape (numba would
    type a column-major matrix of one row or one column as row-major: another kernel)."""
    k, n = columns.shape
    mean = np.empty(k)
    nonbinary = np.zeros(k, np.int64)
    lo = np.empty(k)
    hi = np.empty(k)
    m3 = np.empty(k)
    m4 = np.empty(k)
    cube = np.empty(n)
    fourth = np.empty(n)
    for j in range(k):
        col = columns[j]
        small, large, nan = col[0], col[0], False
        count = 0
        for i in range(n):
            v = col[i]
            if v != 0.0 and v != 1.0:
                count += 1
            if math.isnan(v):
                nan = True
            elif v < small:
                small = v
            elif v > large:
                large = v
        nonbinary[j] = count
        lo[j] = np.nan if nan else small
        hi[j] = np.nan if nan else large
        m = _pairwise(col, n) / n
        mean[j] = m
        for i in range(n):
            d = col[i] - m
            col[i] = d
            cube[i] = d * d * d
            fourth[i] = cube[i] * d
        m3[j] = _pairwise(cube, n)
        m4[j] = _pairwise(fourth, n)
    return mean, nonbinary, lo, hi, m3, m4


def load() -> None:
    """Load (or compile) the kernel in this process, so that the workers it forks have it."""
    deviations_and_sums(np.zeros((2, 2)))
