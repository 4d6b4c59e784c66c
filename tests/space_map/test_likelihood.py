"""The emulator's kernel fit (`sim.space_map.likelihood`) is scikit-learn's, bit for bit:
the same hyper-parameters from the same starts on random problems of every shape a map
meets (one input or several, few points or many, noise large or small, restarts or none)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from sim.space_map.emulator import BIAS
from sim.space_map.likelihood import (
    AMPLITUDE,
    LENGTH_SCALE,
    NUGGET,
    START,
    _log_marginal_likelihood,
    fit_kernel,
)


def _sklearn(x, y, alpha, seed, restarts):
    """The fit as `sim map` made it with scikit-learn before (stop 72)."""
    kernel = (
        ConstantKernel(START[0], AMPLITUDE) * RBF(np.full(x.shape[1], START[1]), LENGTH_SCALE)
        + ConstantKernel(BIAS, "fixed")
        + WhiteKernel(START[2], NUGGET)
    )
    gp = GaussianProcessRegressor(
        kernel, alpha=alpha, n_restarts_optimizer=restarts, random_state=seed
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gp.fit(x, y)
    k = gp.kernel_
    scales = np.atleast_1d(np.asarray(k.k1.k1.k2.length_scale, float))
    return float(k.k1.k1.k1.constant_value), scales, float(k.k2.noise_level), gp


def _problem(seed: int, points: int, inputs: int, noise: float):
    rng = np.random.default_rng(seed)
    x = rng.random((points, inputs))
    truth = np.sin(3 * x[:, 0]) + (x[:, 1:] ** 2).sum(axis=1) if inputs > 1 else np.sin(3 * x[:, 0])
    y = truth + rng.normal(0, noise, points)
    y = (y - y.mean()) / y.std()
    alpha = np.full(points, noise**2) * rng.uniform(0.5, 2.0, points) / max(truth.std(), 1e-9) ** 2
    return x, y, alpha


@pytest.mark.parametrize(
    "seed,points,inputs,noise,restarts",
    [
        (0, 12, 1, 0.05, 3),
        (1, 30, 2, 0.2, 3),
        (2, 40, 4, 0.02, 3),
        (3, 24, 3, 1.0, 0),  # noise as large as the signal
        (4, 8, 5, 0.1, 3),  # fewer points than a length scale each could fit
        (5, 60, 2, 0.001, 0),
    ],
)
def test_the_fit_is_scikit_learns_bit_for_bit(seed, points, inputs, noise, restarts):
    x, y, alpha = _problem(seed, points, inputs, noise)
    amplitude, scales, nugget, gp = _sklearn(x, y, alpha, seed, restarts)
    got = fit_kernel(x, y, alpha, BIAS, seed, restarts)
    assert got[0] == amplitude and got[2] == nugget
    np.testing.assert_array_equal(got[1], scales)
    # and the likelihood and its gradient at any point, not only where both ended
    theta = np.random.default_rng(seed).uniform(gp.kernel_.bounds[:, 0], gp.kernel_.bounds[:, 1])
    want = gp.log_marginal_likelihood(theta, eval_gradient=True)
    lml, grad = _log_marginal_likelihood(theta, x, y, alpha, BIAS)
    assert lml == want[0]
    np.testing.assert_array_equal(grad, want[1])
