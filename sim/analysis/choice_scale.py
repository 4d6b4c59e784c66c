"""From fitted utilities to a heuristic seat: the unit, the intervals, the warnings, and the
fit on held-out games beside other models.

Choices identify only theta = weight / temperature (`sim.analysis.choice`). The unit is
fixed by the weight of own points: own_points = 1, so every other weight is "worth this
many points" and the temperature is in points (T = 1 / theta_own). A weight's interval
is Fieller's for the ratio theta_k / theta_own (exact for normal estimates, and
unbounded when theta_own itself is not clearly positive); the temperature's is the
interval of theta_own turned over. When the player does not clearly value their own
points (theta_own's interval reaches 0, as for a random player), no temperature in
points exists: the seat is then written on the utility scale (temperature 1, weights =
theta) and the output says so.

Simultaneous intervals (Bonferroni over every parameter fitted) are given beside the
marginal ones: "every weight within its interval at once" is what they cover at 95%.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from sim.analysis.choice import Choices, LogitFit, decision_scores

UNIT = "own_points"
LEVEL = 0.95
MIN_DECISIONS = 300  # per weight: below this many informative decisions, a warning
MAX_WEIGHT = 1e6  # as sim.specs: what a seat may carry
MAX_TEMPERATURE = 1e6
POINTS_SCALE = "own_points weighs 1, so every weight and the temperature are in points"
UTILITY_SCALE = (
    "temperature 1, so every weight is a utility per unit of its feature (own points are"
    " not clearly valued: no temperature in points exists)"
)


def fieller(a: float, b: float, vaa: float, vbb: float, vab: float, z: float):
    """Fieller's interval for a / b from estimates a, b with covariance (vaa, vbb, vab):
    the r with (a - r b)^2 <= z^2 var(a - r b); (-inf, inf) when b is not clearly non-zero."""
    qa = b * b - z * z * vbb
    qb = a * b - z * z * vab
    qc = a * a - z * z * vaa
    if qa <= 0:
        return -np.inf, np.inf
    root = np.sqrt(max(qb * qb - qa * qc, 0.0))
    return (qb - root) / qa, (qb + root) / qa


def temperature_interval(lo: float, hi: float) -> tuple[float, float]:
    """The interval of T = 1 / theta from theta's [lo, hi] (only positive theta is a
    temperature): [1/hi, 1/lo], unbounded above when lo <= 0, NaN when hi <= 0."""
    if hi <= 0:
        return np.nan, np.nan
    return 1.0 / hi, (1.0 / lo if lo > 0 else np.inf)


@dataclass(frozen=True)
class Scale:
    """How a fit is written as a seat: the unit and the temperature with its intervals."""

    unit: str  # POINTS_SCALE or UTILITY_SCALE
    points: bool
    temperature: float
    lo: float
    hi: float
    sim_lo: float
    sim_hi: float


def weight_table(
    fit: LogitFit, level: float = LEVEL, min_decisions: int = MIN_DECISIONS
) -> tuple[pd.DataFrame, Scale]:
    """One row per feature: its utility (per unit of the feature) with standard errors and
    marginal and simultaneous intervals, the weight on the seat's scale with the same
    intervals, the decisions behind it, and a note; and the Scale."""
    k = len(fit.features)
    z = norm.ppf(0.5 + level / 2)
    m = max(fit.k, 1)
    z_sim = norm.ppf(1 - (1 - level) / (2 * m))
    theta, se, cov = fit.theta, fit.se, fit.cov
    u = fit.features.index(UNIT)
    points = bool(fit.free[u] and theta[u] - z * se[u] > 0 and 1 / theta[u] <= MAX_TEMPERATURE)
    rows = []
    for j, name in enumerate(fit.features):
        row = {"feature": name, "fitted": bool(fit.free[j]), "n_decisions": int(fit.n_varying[j])}
        row["utility"] = float(theta[j])
        row["se"] = float(se[j]) if fit.free[j] else np.nan
        row["se_model"] = float(np.sqrt(fit.cov_model[j, j])) if fit.free[j] else np.nan
        for tag, zz in (("", z), ("sim_", z_sim)):
            half = zz * row["se"]
            row[f"{tag}lo"], row[f"{tag}hi"] = theta[j] - half, theta[j] + half
        if points:
            row["weight"] = float(theta[j] / theta[u])
            for tag, zz in (("", z), ("sim_", z_sim)):
                if j == u:
                    lo = hi = 1.0
                elif fit.free[j]:
                    lo, hi = fieller(theta[j], theta[u], cov[j, j], cov[u, u], cov[j, u], zz)
                else:
                    lo = hi = np.nan
                row[f"weight_{tag}lo"], row[f"weight_{tag}hi"] = lo, hi
        else:
            row["weight"] = float(theta[j])
            for tag in ("", "sim_"):
                row[f"weight_{tag}lo"], row[f"weight_{tag}hi"] = row[f"{tag}lo"], row[f"{tag}hi"]
        row["note"] = _note(fit, j, min_decisions)
        rows.append(row)
    table = pd.DataFrame(rows)
    if points:
        t = 1.0 / theta[u]
        lo, hi = temperature_interval(theta[u] - z * se[u], theta[u] + z * se[u])
        sim_lo, sim_hi = temperature_interval(theta[u] - z_sim * se[u], theta[u] + z_sim * se[u])
        scale = Scale(POINTS_SCALE, True, float(t), lo, hi, sim_lo, sim_hi)
    else:
        scale = Scale(UTILITY_SCALE, False, 1.0, np.nan, np.nan, np.nan, np.nan)
    assert len(table) == k
    return table, scale


def _note(fit: LogitFit, j: int, min_decisions: int) -> str:
    """Why a weight is not fitted, or that too few decisions stand behind it."""
    if not fit.free[j]:
        return f"not fitted (set to 0): {fit.why.get(j, 'left out')}"
    n = int(fit.n_varying[j])
    if n < min_decisions:
        return f"only {n:,} decisions where it mattered (under {min_decisions:,}): a wide interval"
    return ""


def seat_spec(table: pd.DataFrame, scale: Scale, label: str | None = None) -> dict:
    """The seat to paste into a config: every weight written (none left to a preset), the
    temperature, and a label; numbers to four significant digits."""
    weights = {
        r.feature: float(f"{np.clip(r.weight, -MAX_WEIGHT, MAX_WEIGHT):.4g}")
        for r in table.itertuples()
    }
    spec = {
        "policy": "heuristic",
        "weights": weights,
        "temperature": float(f"{min(scale.temperature, MAX_TEMPERATURE):.4g}"),
    }
    if label:
        spec["label"] = label
    return spec


def data_warnings(table: pd.DataFrame, fit: LogitFit, min_decisions: int) -> list[str]:
    """What the reader must know before trusting the fit: too few decisions, features left
    out, a fit that did not converge, too few games for clustered errors."""
    out = []
    thin = table[table["fitted"] & (table["n_decisions"] < min_decisions)]
    if len(thin):
        out.append(
            f"too little data for {len(thin)} of {int(table['fitted'].sum())} fitted weights"
            f" (fewer than {min_decisions:,} decisions where each mattered): "
            + ", ".join(f"{r.feature} ({r.n_decisions:,})" for r in thin.itertuples())
        )
    left = table[~table["fitted"]]
    if len(left):
        out.append(
            "not fitted, set to 0: "
            + "; ".join(f"{r.feature}: {fit.why.get(i, 'left out')}" for i, r in left.iterrows())
        )
    if not fit.converged:
        out.append("the fit did not converge: treat every weight as unreliable")
    if fit.se_kind != "clustered by game":
        out.append(
            f"only {fit.games} games: standard errors from the model's observed information,"
            " which assume the player is a logit player (clustered errors need 20 games)"
        )
    return out


# ---------------------------------------------------------------- held-out games


@dataclass(frozen=True)
class Model:
    """A model of the player for held-out scoring: its value of every feature row, and the
    scale its probabilities use (values x scale; top-1 uses the values as they are)."""

    name: str
    values: np.ndarray
    scale: float = 1.0
    note: str = ""


def heldout_table(
    test: Choices, models: list[Model], draws: int = 2000, seed: int = 0, level: float = LEVEL
) -> pd.DataFrame:
    """Each model on held-out decisions: log-likelihood per decision and top-1 move
    matching, each with a percentile bootstrap interval over games, and both as the first
    model's advantage over this one (paired: the same resampled games)."""
    games, gid = np.unique(test.game, return_inverse=True)
    n_games = len(games)
    per_game = np.bincount(gid, minlength=n_games).astype(float)
    sums = []
    for model in models:
        logp, _ = decision_scores(test, model.values * model.scale)
        _, hit = decision_scores(test, model.values)
        sums.append((np.bincount(gid, logp, n_games), np.bincount(gid, hit, n_games), logp, hit))
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n_games, np.full(n_games, 1 / n_games), size=draws).astype(float)
    n_draw = weights @ per_game
    tail = (1 - level) / 2
    rows = []
    ref_ll = weights @ sums[0][0] / n_draw
    ref_hit = weights @ sums[0][1] / n_draw
    for model, (ll_g, hit_g, logp, hit) in zip(models, sums, strict=True):
        ll_d, hit_d = weights @ ll_g / n_draw, weights @ hit_g / n_draw
        row = {"model": model.name, "note": model.note, "decisions": test.n, "games": n_games}
        row["loglik"], row["top1"] = float(logp.mean()), float(hit.mean())
        for name, d in (("loglik", ll_d), ("top1", hit_d)):
            row[f"{name}_lo"], row[f"{name}_hi"] = np.quantile(d, [tail, 1 - tail])
        row["gain_loglik"] = float(sums[0][2].mean() - row["loglik"])
        row["gain_top1"] = float(sums[0][3].mean() - row["top1"])
        for name, d in (("gain_loglik", ref_ll - ll_d), ("gain_top1", ref_hit - hit_d)):
            row[f"{name}_lo"], row[f"{name}_hi"] = np.quantile(d, [tail, 1 - tail])
        row["scale"] = model.scale
        rows.append(row)
    return pd.DataFrame(rows)
