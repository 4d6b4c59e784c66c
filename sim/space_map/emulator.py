"""An emulator of one metric over the space: a Gaussian process fitted to the simulated
points, each point's own simulation variance as its noise.

The fit is scikit-learn's `GaussianProcessRegressor`'s (a constant times an anisotropic RBF
kernel, plus a white-noise nugget for what the inputs leave unexplained; the kernel's
hyper-parameters by maximum marginal likelihood with restarts, step for step as scikit-learn
fits them: `sim.space_map.likelihood`), plus a fixed constant
kernel of one (scaled) unit: the metric's overall level is itself estimated from noisy
points, so an emulator that finds the metric flat is still only as sure of its level as
the points' noise allows (without it, a flat fit would claim to know the level exactly).
What it learns is kept as plain numbers (`Fit`), so the prediction is the same in Python
(`Fit.predict`), in `sim map --predict` and in the page's script, which repeats these few
lines of algebra.
A metric that does not vary over the points (within its noise) is a constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from sim.analysis.intervals import Z95
from sim.space_map.likelihood import fit_kernel

RESTARTS = 3  # of the marginal-likelihood optimiser, from random length scales


@dataclass(frozen=True)
class Fit:
    """A fitted emulator: the training inputs and what the process learnt, in the units of
    the metric scaled by (y - centre) / spread."""

    x: np.ndarray  # (points, inputs)
    centre: float
    spread: float
    amplitude: float  # the kernel's variance (scaled units); 0: a constant
    scales: np.ndarray  # one RBF length scale per input
    bias: float  # the prior variance of the overall level (scaled units)
    nugget: float  # white noise beyond the simulations' own (scaled units)
    weights: np.ndarray  # K^-1 (y - centre) / spread
    inverse: np.ndarray  # K^-1, for the predictive variance

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The mean and standard deviation of the metric at each row of x (the emulator's
        uncertainty about the metric's value there, nugget included)."""
        x = np.atleast_2d(x)
        if self.amplitude == 0.0:
            n = len(x)
            return np.full(n, self.centre), np.full(n, np.sqrt(self.nugget) * self.spread)
        k = self.bias + self.amplitude * np.exp(
            -0.5 * _sqdist(x / self.scales, self.x / self.scales)
        )
        mean = self.centre + self.spread * (k @ self.weights)
        prior = self.bias + self.amplitude + self.nugget
        var = prior - np.einsum("ij,jk,ik->i", k, self.inverse, k)
        return mean, self.spread * np.sqrt(np.maximum(var, 1e-12))

    def to_json(self) -> dict:
        """The fit as map.json and the page hold it."""
        return {
            "centre": self.centre,
            "spread": self.spread,
            "amplitude": self.amplitude,
            "scales": self.scales.tolist(),
            "bias": self.bias,
            "nugget": self.nugget,
            "weights": self.weights.tolist(),
            "inverse": self.inverse.tolist(),
        }

    @classmethod
    def from_json(cls, data: dict, x: np.ndarray) -> Fit:
        return cls(
            x=x,
            centre=data["centre"],
            spread=data["spread"],
            amplitude=data["amplitude"],
            scales=np.asarray(data["scales"], float),
            bias=data["bias"],
            nugget=data["nugget"],
            weights=np.asarray(data["weights"], float),
            inverse=np.asarray(data["inverse"], float),
        )


def _sqdist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T, 0.0)


BIAS = 1.0  # prior variance of the metric's level, in units of its spread over the points
IGNORED = 1e6  # the length scale of an input that never varies over the points: no effect


def fit(
    x: np.ndarray, y: np.ndarray, se: np.ndarray, seed: int = 0, restarts: int = RESTARTS
) -> Fit:
    """Fit the emulator of one metric: values y with standard errors se at inputs x. An
    input that is the same at every point (a seat that never takes an extra turn there)
    tells nothing: it is left out of the optimisation and given an IGNORED length scale."""
    centre = float(np.mean(y))
    spread = float(np.std(y))
    noise = np.maximum(np.asarray(se, float), 1e-9) ** 2
    if spread <= 0 or spread**2 <= np.mean(noise) / 4:  # no signal over its noise: a constant
        pooled = float(np.mean(noise) / len(y) + np.var(y))
        return Fit(
            x, centre, 1.0, 0.0, np.ones(x.shape[1]), 0.0, pooled, np.zeros(0), np.zeros((0, 0))
        )
    active = x.std(0) > 0
    amplitude, fitted, nugget = fit_kernel(
        x[:, active], (y - centre) / spread, noise / spread**2, BIAS, seed, restarts
    )
    scales = np.full(x.shape[1], IGNORED)
    scales[active] = fitted
    gram = BIAS + amplitude * np.exp(-0.5 * _sqdist(x / scales, x / scales))
    gram[np.diag_indices_from(gram)] += nugget + noise / spread**2
    factor = cho_factor(gram, lower=True)
    inverse = cho_solve(factor, np.eye(len(x)))
    weights = cho_solve(factor, (y - centre) / spread)
    return Fit(x, centre, spread, amplitude, scales, BIAS, nugget, weights, inverse)


@dataclass(frozen=True)
class Check:
    """The held-out check of one metric's emulator: each point predicted by a fit without it."""

    covered: int  # held-out points inside the 95% interval (widened by their own noise)
    points: int
    width: float  # mean width of the emulator's 95% interval at the held-out points
    spread: float  # the metric's standard deviation over the simulated points


def held_out(x: np.ndarray, y: np.ndarray, se: np.ndarray, folds: int = 5) -> Check:
    """K-fold check: every point predicted by a fit on the other folds (the same fit, its
    kernel optimised afresh from the default start alone: the restarts of the full fit
    would make the check three times as long for the same verdict)."""
    order = np.random.default_rng(0).permutation(len(y))
    covered, widths = 0, []
    for f in range(folds):
        test = order[f::folds]
        train = np.setdiff1d(order, test)
        model = fit(x[train], y[train], se[train], restarts=0)
        mean, sd = model.predict(x[test])
        half = Z95 * np.sqrt(sd**2 + se[test] ** 2)
        covered += int(np.sum(np.abs(y[test] - mean) <= half))
        widths.extend(2 * Z95 * sd)
    return Check(covered, len(y), float(np.mean(widths)), float(np.std(y)))
