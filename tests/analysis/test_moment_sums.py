"""The compiled column sums of a chunk's moments are numpy's, bit for bit, at every length
numpy's pairwise summation treats differently, with NaN, ties and 0/1 columns."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from sim.analysis.moment_sums import deviations_and_sums
from sim.analysis.moments import Moments, gram


def _numpy(x: np.ndarray) -> Moments:
    return Moments.of_matrix(tuple(f"c{j}" for j in range(x.shape[1])), x)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 16, 17, 127, 128, 129, 136, 300, 2000, 8193])
def test_the_compiled_sums_are_numpys(n):
    rng = np.random.default_rng(n)
    x = np.asfortranarray(
        np.column_stack(
            [
                rng.standard_normal(n) * 1e3,  # large and small values together
                rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n),
                rng.integers(0, 2, n).astype(float),  # a 0/1 column
                np.full(n, 0.25),  # a constant
                rng.integers(-3, 4, n).astype(float),  # ties, negative values
                np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),  # NaN sometimes
            ]
        )
    )
    expected = _numpy(x.copy(order="F"))
    d = x.copy(order="F")
    mean, nonbinary, lo, hi, m3, m4 = deviations_and_sums(d.T)
    got = Moments(expected.columns, n, mean, gram(d), nonbinary, lo, hi, m3, m4)
    for part in ("mean", "m2", "nonbinary", "lo", "hi", "m3", "m4"):
        np.testing.assert_array_equal(getattr(got, part), getattr(expected, part), err_msg=part)
    np.testing.assert_array_equal(d, x - x.mean(axis=0))  # x now holds its deviations


def test_loading_the_kernel_loads_the_one_the_workers_call():
    """`load` (before a pool forks) leaves the workers nothing to load: a worker's value
    matrix, of any shape (a chunk of one game too), calls the one kernel it loaded. In a
    fresh process, where nothing else called the kernel first."""
    probe = (
        "import numpy as np\n"
        "from sim.analysis import moment_sums as m\n"
        "m.load()\n"
        "loaded = set(m.deviations_and_sums.signatures)\n"
        "for shape in ((300, 7), (1, 7), (300, 1)):\n"
        "    m.deviations_and_sums(np.zeros(shape, order='F').T)\n"
        "assert set(m.deviations_and_sums.signatures) == loaded, 'another kernel loaded'\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)
