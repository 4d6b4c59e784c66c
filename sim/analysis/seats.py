"""Seat fairness as one joint question, and seat effects separated from policy effects.

Win shares of the seats of one game sum to 1, so a seat's surplus is the
others' deficit and "seat by seat against 1/n" flags seats that are equal to
one another. The questions asked here instead:

1. Do all seats win equally? One joint Wald test on the vector of seat shares
   (`sim.analysis.inference.wald_equal_shares`: games are independent, the
   seats of a game are handled together).
2. Which seats stand apart? A step-down of the same test: the seat farthest
   from the rest leaves the group until the seats left win equally (closed
   testing keeps the family-wise error at 5%).
3. How large is the largest gap? Ludii's balance, 1 − (largest − smallest seat
   share), with an interval from the joint 95% region of the shares (projected
   onto every pairwise gap, Scheffé's way), which reaches 1 for a fair game
   (a plain bootstrap of a largest gap never does: its estimate is biased
   towards unbalance by noise).
4. Is it the seat or the policy? With several policies, each policy's share
   in seat 0 is compared with its own share in the other seats (a regression
   with policy and seat-0 terms, standard errors clustered by game), and an
   interaction test says whether the seat-0 edge differs between policies.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim.analysis.inference import ALPHA, ClusteredOLS, chi2_isf, chi2_sf
from sim.analysis.stats import t975


def share_matrix(players: pd.DataFrame) -> np.ndarray:
    """Games x seats array of win shares (seat order)."""
    return players.pivot(index="game", columns="seat", values="win_share").to_numpy(float)


def seat_fairness(players: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Per seat: its win share, its edge over the other seats' mean, and whether it stands apart.

    The seats that stand apart come from a step-down (closed) procedure: while
    the seats still in the group do not all win equally (a Wald test of their
    pairwise differences at `alpha`), the one farthest from the group's mean
    leaves it. With all seats equal the first test already keeps them together,
    so a fair game flags no seat; with seat 0 ahead and seats 1-3 equal to one
    another, only seat 0 stands apart (the others' deficit is its surplus).

    Columns: seat, win_share, vs_others (the seat's share minus the others'
    mean), lo, hi (its 95% t interval over games), apart (bool). `attrs`: chi2,
    df, p (the joint test that all seats win equally), games, and `group`: the
    seats left together with their own test (seats, chi2, df, p).
    """
    shares = share_matrix(players)
    return fairness_from_moments(
        shares.mean(axis=0), np.cov(shares, rowvar=False, ddof=1), len(shares), alpha
    )


def fairness_from_moments(
    mean: np.ndarray, cov: np.ndarray, games: int, alpha: float = ALPHA
) -> pd.DataFrame:
    """`seat_fairness` from the seat shares' mean vector and per-game covariance (ddof 1)
    alone: every test in it is a Wald test on linear contrasts of the shares, so these
    are all it needs (merged chunk moments give them for any number of games)."""
    mean = np.asarray(mean, float)
    cov = np.atleast_2d(np.asarray(cov, float))
    n = len(mean)
    stat, df, p_joint = wald_from_moments(mean, cov, games)
    rows = []
    for k in range(n):
        contrast = (n * mean[k] - 1) / (n - 1)  # share_k − mean of the others
        sd = n / (n - 1) * math.sqrt(max(cov[k, k], 0.0))
        half = t975(games - 1) * sd / math.sqrt(games)
        rows.append(
            {
                "seat": k,
                "win_share": float(mean[k]),
                "vs_others": float(contrast),
                "lo": contrast - half,
                "hi": contrast + half,
            }
        )
    out = pd.DataFrame(rows)
    group = list(range(n))
    test = _equal_within(mean, cov, games, group)
    while len(group) > 1 and test[2] < alpha:
        means = mean[group]
        group.pop(int(np.argmax(np.abs(means - means.mean()))))
        test = _equal_within(mean, cov, games, group)
    out["apart"] = ~out["seat"].isin(group)
    out.attrs.update(
        chi2=stat,
        df=df,
        p=p_joint,
        games=games,
        group={"seats": group, "chi2": test[0], "df": test[1], "p": test[2]},
        method=f"step-down Wald tests at {alpha:.0%} (closed testing)",
    )
    return out


def wald_from_moments(mean: np.ndarray, cov: np.ndarray, games: int) -> tuple[float, int, float]:
    """`sim.analysis.inference.wald_equal_shares` from the shares' mean and row covariance."""
    k = len(mean) - 1
    if games < k + 2 or k < 1:
        return float("nan"), k, float("nan")
    d = np.asarray(mean, float)[:-1] - 1.0 / (k + 1)
    return _wald(d, np.asarray(cov, float)[:k, :k] / games, k)


def _wald(d: np.ndarray, cov: np.ndarray, k: int) -> tuple[float, int, float]:
    try:
        stat = float(d @ np.linalg.solve(cov, d))
    except np.linalg.LinAlgError:
        stat = float(d @ np.linalg.pinv(cov) @ d)
    return stat, k, chi2_sf(stat, k)


def equal_within(shares: np.ndarray, seats: list[int]) -> tuple[float, int, float]:
    """Wald test that the given seats win equally often (to each other): chi2, df, p."""
    x = np.asarray(shares, float)
    return _equal_within(x.mean(axis=0), np.cov(x, rowvar=False, ddof=1), len(x), seats)


def _equal_within(
    mean: np.ndarray, cov: np.ndarray, games: int, seats: list[int]
) -> tuple[float, int, float]:
    if len(seats) < 2:
        return 0.0, 0, 1.0
    k = len(seats) - 1
    a = np.zeros((k, len(mean)))  # each seat against the last of the group
    for r, s in enumerate(seats[:-1]):
        a[r, s], a[r, seats[-1]] = 1.0, -1.0
    d = a @ mean
    return _wald(d, (a @ np.atleast_2d(cov) @ a.T).reshape(k, k) / games, k)


def balance_interval(shares: np.ndarray) -> tuple[float, float, float]:
    """Ludii's balance, 1 − largest gap between two seats' shares, with a 95% interval.

    The interval holds every gap of a share vector in the joint 95% region of
    the seat shares (a Wald ellipsoid): for each pair of seats the region's
    extent along their difference is d ± sqrt(chi2_95(n−1) var(d)), so the
    largest gap is at most max(d + r) and at least max(|d| − r, 0). For a fair
    game the lower end is 0 (balance 1) about 95% of the time or more.
    """
    x = np.asarray(shares, float)
    return balance_from_moments(x.mean(axis=0), np.cov(x, rowvar=False, ddof=1), len(x))


def balance_from_moments(m: np.ndarray, cov_rows: np.ndarray, games: int):
    """`balance_interval` from the seat shares' mean and per-game covariance (ddof 1)."""
    m = np.asarray(m, float)
    n = len(m)
    cov = np.atleast_2d(np.asarray(cov_rows, float)) / games
    c = chi2_isf(0.05, n - 1)
    gap_lo = gap_hi = 0.0
    for i in range(n):
        for j in range(n):
            if i != j:
                d = m[i] - m[j]
                r = math.sqrt(max(c * (cov[i, i] + cov[j, j] - 2 * cov[i, j]), 0.0))
                gap_hi = max(gap_hi, d + r)
                gap_lo = max(gap_lo, abs(d) - r)
    value = 1.0 - float(m.max() - m.min())
    return value, max(0.0, 1.0 - gap_hi), min(1.0, 1.0 - gap_lo)


def seat_effects(players: pd.DataFrame, seat: int = 0) -> pd.DataFrame:
    """The edge of sitting in `seat`, per policy and adjusted for policy.

    One row per policy: its win share in `seat` minus its share in the other
    seats (the policy compared with itself), with a 95% interval clustered by
    game; then a row 'adjusted' (policy = None) from the pooled model with one
    seat term and a term per policy. `attrs`: interaction_p, the test that the
    edge is the same for every policy (NaN with one policy).
    """
    win = players["win_share"].to_numpy(float)
    policy_of = players["policy"].astype(str).to_numpy()  # each row's
    here = (players["seat"].to_numpy() == seat).astype(float)
    policies = sorted(set(policy_of))
    game = players["game"].to_numpy()
    several = len(policies) > 1
    by_policy = ClusteredOLS.of(win, seat_design(policy_of, here, policies, pooled=False), game)
    rows = []
    names = []
    for policy in policies:
        name = f"C(policy)[{policy}]:here" if several else "here"
        names.append(name)
        rows.append(_coef_row(by_policy, name, policy))
    interaction = float("nan")
    if several:
        pooled = ClusteredOLS.of(win, seat_design(policy_of, here, policies, pooled=True), game)
        rows.append(_coef_row(pooled, "here", None))
        contrasts = np.zeros((len(policies) - 1, len(by_policy.names)))
        for r in range(len(policies) - 1):
            contrasts[r, by_policy.names.index(names[r])] = 1
            contrasts[r, by_policy.names.index(names[-1])] = -1
        interaction = chi2_sf(by_policy.wald(contrasts), len(policies) - 1)
    out = pd.DataFrame(rows)
    out.attrs.update(seat=seat, interaction_p=interaction)
    return out


def seat_design(policy: np.ndarray, here: np.ndarray, policies: list[str], pooled: bool):
    """The design matrices of `seat_effects`, named as the formulas' terms would be.

    statsmodels' formulas (patsy) took 0.37 s of each call on a 10,000-game base run, 0.05 s
    now, about a second of its report. With several policies: per policy, its level and its
    seat term ("win ~ C(policy) + C(policy):here - 1"), or, pooled, an intercept, treatment
    levels against the first policy and one seat term ("win ~ C(policy) + here"); with one
    policy, an intercept and the seat term ("win ~ here").
    """
    level = {p: (policy == p).astype(float) for p in policies}
    if len(policies) == 1:
        return pd.DataFrame({"Intercept": np.ones(len(here)), "here": here})
    if pooled:
        treat = {f"C(policy)[T.{p}]": level[p] for p in policies[1:]}
        return pd.DataFrame({"Intercept": np.ones(len(here)), **treat, "here": here})
    levels = {f"C(policy)[{p}]": level[p] for p in policies}
    seats = {f"C(policy)[{p}]:here": level[p] * here for p in policies}
    return pd.DataFrame({**levels, **seats})


def _coef_row(fit: ClusteredOLS, name: str, policy: str | None) -> dict:
    edge, lo, hi, p = fit.coef(name)
    return {"policy": policy, "edge": edge, "lo": lo, "hi": hi, "p": p, "n": fit.nobs}
