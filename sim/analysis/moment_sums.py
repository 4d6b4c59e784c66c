"""A chunk's column sums in compiled code, bit for bit numpy's (`Moments.of_matrix`).

Every worker turns its chunk's per-game values into moments (`sim.runs.values`). In numpy
that is a dozen passes over the value matrix and four temporary matrices of its size (the
mean, the deviations, a mask for the values that are not 0 or 1, the third and fourth
powers), about 3 ms of a tune candidate's 22 ms chunk. Here two passes a column and no
matrix but the deviations, written over the caller's copy.

The sums must be numpy's to the last bit: a chunk's moments equal those of the same values
read from its table (`tests/runs/test_chunk_values.py`): a column is added in numpy's
pairwise order (`sim.pairwise`), and the powers are formed as numpy forms them,
((d·d)·d)·d. Kept apart so that only a process that plays games imports numba for it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.pairwise import pairwise_sum


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
        m = pairwise_sum(col, n) / n
        mean[j] = m
        for i in range(n):
            d = col[i] - m
            col[i] = d
            cube[i] = d * d * d
            fourth[i] = cube[i] * d
        m3[j] = pairwise_sum(cube, n)
        m4[j] = pairwise_sum(fourth, n)
    return mean, nonbinary, lo, hi, m3, m4


def load() -> None:
    """Load (or compile) the kernel in this process, so that the workers it forks have it."""
    deviations_and_sums(np.zeros((2, 2)))
