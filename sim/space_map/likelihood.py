"""The emulator's kernel fitted by maximum marginal likelihood: scikit-learn's
`GaussianProcessRegressor.fit`, step for step, for the one kernel `sim map` uses.

The kernel is a constant times an RBF (one length scale per input) plus a fixed bias
constant plus white noise, each point's own simulation variance on the diagonal
(`sim.space_map.emulator`). scikit-learn fits it by L-BFGS-B on the negative log marginal
likelihood and its gradient (Rasmussen and Williams, eqs. 5.8-5.9), from the kernel's start
and then from `restarts` log-uniform starts within the bounds, keeping the best. Its kernel
objects price every evaluation with their hyper-parameter bookkeeping: in a map of the base
study, about 6 of its main process's 17.5 CPU-s went to it, not to the algebra of 30 points.
Here the same algebra, in the same order of floating-point operations (the same numpy and
scipy calls on arrays of the same layout) and the same scipy optimiser: a test fits random
problems both ways and finds the same hyper-parameters, bit for bit.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize
from scipy.linalg.lapack import dpotrf, dpotrs
from scipy.spatial.distance import pdist, squareform

AMPLITUDE = (1e-2, 1e2)  # bounds of the constant times the RBF (scaled units)
LENGTH_SCALE = (0.05, 100.0)  # of each RBF length scale (inputs scaled to [0, 1])
NUGGET = (1e-8, 1.0)  # of the white noise beyond the points' own
START = (1.0, 1.0, 1e-3)  # amplitude, every length scale, nugget: the first start


def fit_kernel(
    x: np.ndarray, y: np.ndarray, alpha: np.ndarray, bias: float, seed: int, restarts: int
) -> tuple[float, np.ndarray, float]:
    """The amplitude, length scales (one per column of x) and nugget that maximise the
    marginal likelihood of y at x, with alpha added to the kernel's diagonal and a fixed
    `bias` constant: `restarts` more starts drawn as scikit-learn draws them from `seed`."""
    d = x.shape[1]
    theta = np.log(np.hstack([START[0], np.full(d, START[1]), START[2]]))
    bounds = np.log(np.vstack([AMPLITUDE, *[LENGTH_SCALE] * d, NUGGET]))

    squares = _squares(x)  # the same at every theta: formed once

    def objective(t: np.ndarray):
        lml, grad = _log_marginal_likelihood(t, x, y, alpha, bias, squares)
        return -lml, -grad

    optima = [_minimise(objective, theta, bounds)]
    rng = np.random.RandomState(seed)
    for _ in range(restarts):
        optima.append(_minimise(objective, rng.uniform(bounds[:, 0], bounds[:, 1]), bounds))
    best = optima[int(np.argmin([value for _, value in optima]))][0]
    return float(np.exp(best[0])), np.exp(best[1 : 1 + d]), float(np.exp(best[-1]))


def _minimise(objective, start: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, float]:
    result = scipy.optimize.minimize(objective, start, method="L-BFGS-B", jac=True, bounds=bounds)
    return result.x, result.fun


def _squares(x: np.ndarray) -> np.ndarray:
    """(x_i - x_j)² per pair of points and input: the anisotropic RBF's gradient before the
    length scales (RBF.__call__ forms it in the same way at every call)."""
    return (x[:, np.newaxis, :] - x[np.newaxis, :, :]) ** 2


def _log_marginal_likelihood(theta, x, y, alpha, bias, squares=None):
    """The log marginal likelihood at log hyper-parameters theta and its gradient in them
    (scikit-learn's `log_marginal_likelihood` with its kernels' `__call__`, inlined). Each
    value is formed by the same floating-point operations on the same operands: a product
    by an array that holds one value is a product by that value, a sum with a diagonal
    matrix adds to the diagonal alone (the zeros elsewhere change nothing), and the LAPACK
    routines are called as `scipy.linalg.cholesky` and `cho_solve` call them, without their
    checks (about half the time of a call at 30 points)."""
    n, d = x.shape
    amplitude = np.exp(theta[0])
    scales = np.exp(theta[1 : 1 + d]) if d > 1 else np.exp(theta[1])
    nugget = np.exp(theta[-1])
    # RBF (sklearn.gaussian_process.kernels.RBF.__call__, Y None, with its gradient)
    scales = np.squeeze(scales).astype(float)  # (RBF's _check_length_scale)
    dists = pdist(x / scales, metric="sqeuclidean")
    rbf = squareform(np.exp(-0.5 * dists))
    np.fill_diagonal(rbf, 1)
    # ConstantKernel * RBF (Product), + the fixed bias (Sum), + WhiteKernel (Sum): the
    # gradient's layers in theta's order, as np.dstack lays them out
    gradient = np.empty((n, n, d + 2))
    np.multiply(amplitude, rbf, out=gradient[:, :, 0])
    if d > 1:
        rbf_gradient = (_squares(x) if squares is None else squares) / (scales**2)
        rbf_gradient *= rbf[..., np.newaxis]
    else:
        rbf_gradient = (rbf * squareform(dists))[:, :, np.newaxis]
    np.multiply(rbf_gradient, amplitude, out=gradient[:, :, 1 : 1 + d])
    gradient[:, :, -1] = 0.0
    diagonal = np.arange(n)
    gradient[diagonal, diagonal, -1] = nugget
    k = amplitude * rbf
    k += bias
    k[diagonal, diagonal] += nugget
    # GaussianProcessRegressor.log_marginal_likelihood
    k[diagonal, diagonal] += alpha
    lower, info = dpotrf(k, lower=True, clean=True)
    if info != 0:  # not positive definite (scipy's cholesky raises LinAlgError)
        return -np.inf, np.zeros_like(theta)
    y = y[:, np.newaxis]
    weights, _ = dpotrs(lower, y, lower=True)
    lml_dims = -0.5 * np.einsum("ik,ik->k", y, weights)
    lml_dims -= np.log(np.diag(lower)).sum()
    lml_dims -= k.shape[0] / 2 * np.log(2 * np.pi)
    inner = np.einsum("ik,jk->ijk", weights, weights)
    inverse, _ = dpotrs(lower, np.eye(n), lower=True)
    inner -= inverse[..., np.newaxis]
    grad_dims = 0.5 * np.einsum("ijl,jik->kl", inner, gradient)
    return lml_dims.sum(axis=-1), grad_dims.sum(axis=-1)
