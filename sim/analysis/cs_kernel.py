"""The exact confidence sequence's search in compiled code: the first candidate mean rejected.

`sim.analysis.sequential.bounded_cs` searches each end of its interval on grids of candidate
means, from the estimate outwards, for the first one the mixture e-value rejects. In numpy
each grid is a candidates × bets array built several times over (about 12 ms an interval);
`sim advise` judges hundreds of runs between its rounds of games, while the workers wait.
Here one candidate at a time, the same sums in two passes over the bets and no arrays, and a
bisection rather than a scan (rejection is monotone from the estimate outwards): the same
answer (`log_e_sums`, to rounding in the last digit) at about a twentieth of the cost. Kept
apart so that only what computes an interval imports numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _log_e_one(n, mean, m2, mu, a, b, bets, psi, log_w):
    """`sequential.log_e_sums` for one candidate mean `mu` (NaN terms, 0/0 at a bound, count
    as 0)."""
    u = mean - mu
    q = max(m2, 0.0) + n * u * u
    c1, c2 = mu - a, b - mu
    up_lin, up_sq = n * u / c1, q / (c1 * c1)
    down_lin, down_sq = -n * u / c2, q / (c2 * c2)
    top_up, top_down = -np.inf, -np.inf
    for k in range(bets.size):
        x = up_lin * bets[k] - up_sq * psi[k] + log_w[k]
        if x > top_up:  # False for NaN
            top_up = x
        y = down_lin * bets[k] - down_sq * psi[k] + log_w[k]
        if y > top_down:
            top_down = y
    safe_up = top_up if math.isfinite(top_up) else 0.0
    safe_down = top_down if math.isfinite(top_down) else 0.0
    sum_up, sum_down = 0.0, 0.0
    for k in range(bets.size):
        x = up_lin * bets[k] - up_sq * psi[k] + log_w[k]
        if not math.isnan(x):
            sum_up += math.exp(x - safe_up)
        y = down_lin * bets[k] - down_sq * psi[k] + log_w[k]
        if not math.isnan(y):
            sum_down += math.exp(y - safe_down)
    log_up = safe_up + math.log(sum_up) if sum_up > 0 else -np.inf
    log_down = safe_down + math.log(sum_down) if sum_down > 0 else -np.inf
    return np.logaddexp(log_up, log_down) - math.log(2.0)


@njit(cache=True, error_model="numpy")
def first_rejected(n, mean, m2, mus, a, b, limit, bets, psi, log_w):
    """The index of the first of `mus` whose log e-value reaches `limit`, or -1.

    `mus` run from the estimate outwards, and the means not rejected form an interval but
    for a sliver within about 1e-14 of a bound (`bounded_cs`): rejection is monotone along
    them but perhaps at the last, which may lie on the bound. So a bisection over all but the
    last finds what a scan from the first would (about log2(len) evaluations, not len)."""
    last = mus.size - 1
    if last < 0:
        return -1
    if _log_e_one(n, mean, m2, mus[max(last - 1, 0)], a, b, bets, psi, log_w) < limit:
        if last >= 1 and _log_e_one(n, mean, m2, mus[last], a, b, bets, psi, log_w) >= limit:
            return last
        return -1
    lo, hi = -1, max(last - 1, 0)  # hi rejected; lo not (-1: the estimate itself)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _log_e_one(n, mean, m2, mus[mid], a, b, bets, psi, log_w) >= limit:
            hi = mid
        else:
            lo = mid
    return hi
