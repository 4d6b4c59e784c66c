"""Tests behind every verdict: p-values, families and their multiplicity control.

A table of many intervals flags some of them by chance: at 5% each, 31 null
metrics flag at least one about 80% of the time. So every verdict the reports
print ("real", "met", "best", "unfair") belongs to a named family of tests:

* headline metrics of a comparison or a sweep: family-wise error control by
  Holm's step-down method (the chance of any false "real" in the family is at
  most 5%);
* long tables (seats, policies, cards, every cell of a sweep): false-discovery
  control by Benjamini-Hochberg (at most about 5% of the flagged rows are
  false alarms);
* a study's `primary:` metric is tested on its own at 5%, outside the family;
* the 5% budget is split so that, when nothing changed, anything at all is
  flagged in at most about 5% of comparisons: half to the headline family,
  half shared by the long tables (`sim.analysis.paired.assign_verdicts`).

Rows that are exact functions of other rows (`sim.metrics.exact_relations`: seat 0's
win share is the first-player advantage plus 1/n; the seats' shares sum to 1; a seat's
edge at equal turns is its edge minus its edge from extra turns; ...) are kept in the
tables but left out of the families, so one finding is never counted twice.
`families_markdown` writes the families as the code builds them (docs/guide/verdicts.md).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sim.analysis.intervals import Z95
from sim.metrics import FEEL_COLUMNS, exact_relations, family_of, metric, metrics_for, quiet_nan

ALPHA = 0.05
METHODS = {"holm": "Holm (family-wise error)", "fdr_bh": "Benjamini-Hochberg (false discovery)"}


def p_from_draws(estimate: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Two-sided p-values of 'no difference' from bootstrap draws of a difference.

    The normal approximation with the bootstrap's standard error, z = estimate / sd(draws):
    smooth down to the small p-values a family correction needs (a percentile count of
    2,000 draws cannot go below 1/2,000). A difference with no spread at all is exactly
    0 (p = 1) or exactly known (p = 0). `draws` is resamples x metrics.
    """
    estimate = np.asarray(estimate, float)
    with np.errstate(invalid="ignore"), quiet_nan():
        se = np.nanstd(draws, axis=0, ddof=1)
    p = np.full(estimate.shape, np.nan)
    spread = np.isfinite(se) & (se > 0) & np.isfinite(estimate)
    z = np.abs(estimate[spread]) / se[spread]
    p[spread] = np.array([math.erfc(v / math.sqrt(2)) for v in z])
    flat = np.isfinite(estimate) & np.isfinite(se) & (se == 0)
    p[flat] = np.where(estimate[flat] == 0, 1.0, 0.0)
    return p


def adjust(p: np.ndarray, method: str, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Adjusted p-values and rejections within one family (NaN p-values stay out of it):
    Holm's step-down or Benjamini-Hochberg's step-up, as statsmodels' `multipletests` computes
    them (the tests compare the two exactly). Written here because importing statsmodels'
    multitest (it pulls in scipy.stats and statsmodels' linear model) took about 0.9 s of
    every report and study summary, for two short sorts."""
    p = np.asarray(p, float)
    adjusted = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, bool)
    ok = np.isfinite(p)
    if ok.any():
        adjusted[ok], reject[ok] = _STEPS[method](p[ok], alpha)
    return adjusted, reject


def _holm(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm: the k-th smallest p times (m - k + 1), made non-decreasing; rejections up to the
    first p above alpha / (m - k + 1)."""
    m = len(p)
    order = np.argsort(p)
    ranked = p[order]
    factor = np.arange(m, 0, -1)
    keep = ranked > alpha / factor
    stop = int(np.argmax(keep)) if keep.any() else m
    reject = np.arange(m) < stop
    corrected = np.minimum(np.maximum.accumulate(ranked * factor), 1.0)
    return _unsorted(order, corrected, reject)


def _bh(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini-Hochberg: the k-th smallest p times m / k, made non-decreasing from the top;
    rejections up to the largest k whose p is at most alpha k / m."""
    m = len(p)
    order = np.argsort(p)
    ranked = p[order]
    ecdf = np.arange(1, m + 1) / m
    below = ranked <= ecdf * alpha
    reject = np.zeros(m, bool)
    if below.any():
        reject[: int(np.nonzero(below)[0].max()) + 1] = True
    corrected = np.minimum(np.minimum.accumulate((ranked / ecdf)[::-1])[::-1], 1.0)
    return _unsorted(order, corrected, reject)


def _unsorted(order: np.ndarray, corrected: np.ndarray, reject: np.ndarray):
    """Values computed in sorted order, put back in the family's own order."""
    out_p = np.empty_like(corrected)
    out_r = np.empty_like(reject)
    out_p[order], out_r[order] = corrected, reject
    return out_p, out_r


_STEPS = {"holm": _holm, "fdr_bh": _bh}


def family_note(method: str, size: int, alpha: float = ALPHA) -> str:
    """How a table's verdicts were controlled, for its caption."""
    tests = "test" if size == 1 else "tests"
    return f"{METHODS[method]} over a family of {size} {tests} at {alpha * 100:.3g}%"


def wald_equal_shares(shares: np.ndarray) -> tuple[float, int, float]:
    """Joint test that every seat wins equally: Wald chi-square, degrees of freedom, p-value.

    `shares` is games x seats (each row sums to 1, so the last seat is implied
    and left out). Games are independent, so the covariance of the mean vector
    is the sample covariance of the rows over the number of games: the seats of
    one game are handled jointly, as clustering by game would.
    """
    x = np.asarray(shares, float)[:, :-1]
    n, k = x.shape
    if n < k + 2 or k < 1:
        return float("nan"), k, float("nan")
    fair = 1.0 / (k + 1)
    d = x.mean(axis=0) - fair
    cov = np.cov(x, rowvar=False, ddof=1).reshape(k, k) / n
    try:
        stat = float(d @ np.linalg.solve(cov, d))
    except np.linalg.LinAlgError:
        stat = float(d @ np.linalg.pinv(cov) @ d)
    return stat, k, float(chi2_sf(stat, k))


def chi2_sf(x: float, df: int) -> float:
    """Upper tail of the chi-square distribution with a whole number `df` of degrees of
    freedom, in closed form: for even df the Poisson sum e^(−x/2) Σ_{i<df/2} (x/2)^i / i!,
    for odd df erfc(√(x/2)) plus e^(−x/2) Σ_{i<(df−1)/2} (x/2)^(i+1/2) / Γ(i+3/2)
    (Abramowitz & Stegun 26.4.4–26.4.5). Each term is taken in logs, so a large df does not
    underflow; every term is positive, so a far tail keeps its relative precision.
    Pure Python: importing scipy.special costs a page about 0.2 CPU-s. A df that is not
    whole goes to scipy."""
    if not (df >= 1 and float(df).is_integer()):  # NaN and inf too
        from scipy.special import chdtrc

        return float(chdtrc(df, x))
    if math.isnan(x):
        return math.nan
    if x <= 0:
        return 1.0
    if x == math.inf:
        return 0.0
    half = x / 2
    log_half = math.log(half)
    df = int(df)
    if df % 2 == 0:
        total, first, terms = 0.0, 0.0, df // 2  # (x/2)^i / Γ(i + 1)
    else:
        total, first, terms = math.erfc(math.sqrt(half)), 0.5, (df - 1) // 2
    for i in range(terms):
        a = i + first
        total += math.exp(a * log_half - half - math.lgamma(a + 1))
    return min(total, 1.0)


@functools.cache
def chi2_isf(p: float, df: int) -> float:
    """The chi-square quantile with upper tail `p` (`chi2_sf`'s inverse; 3.84 for p = 0.05,
    df = 1), by bisection to the last bits of a double."""
    if not 0 < p < 1:
        return {0: math.inf, 1: 0.0}.get(p, math.nan)
    lo, hi = 0.0, float(df) + 1.0
    while chi2_sf(hi, df) > p:
        lo, hi = hi, 2 * hi
    while True:
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            return hi
        if chi2_sf(mid, df) > p:
            lo = mid
        else:
            hi = mid


def normal_sf2(z: float) -> float:
    """Two-sided normal tail probability of |Z| >= |z|."""
    return math.erfc(abs(z) / math.sqrt(2))


# ---------------------------------------------------------------- the families, as built


def family_members(names: list[str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """({family: tested metric names}, {implied name: the relation}) of a table's metrics,
    as `sim.analysis.paired.assign_verdicts` builds the families (without a primary)."""
    implied = exact_relations(names)
    families: dict[str, list[str]] = {}
    for name in names:
        if name not in implied:
            families.setdefault(family_of(metric(name).group), []).append(name)
    return families, implied


def lineup_metrics(seats: int, policies: tuple[str, ...] = ("greedy", "random")) -> list[str]:
    """The registry's metric names for a line-up of `seats` seats and these policies, with
    turn and card telemetry, one card kind standing for all (`<card>`)."""
    cols = [f"seat{k}" for k in range(seats)] + [f"policy:{p}" for p in policies]
    cols += [f"{c}{k}" for c in ("extra", "level", "turn_gain") for k in range(seats)]
    cols += ["had:<card>", "had_win:<card>", "dead:<card>", "got:<card>", *FEEL_COLUMNS]
    return [m.name for m in metrics_for(cols)]


def families_markdown(seats: int = 4, compare: tuple[int, ...] = (2, 3, 4, 5)) -> str:
    """The docs' table of families (docs/guide/verdicts.md): each family's tested members and
    its size for a line-up of `seats` seats (two policies, each card kind two rows), the rows
    shown but not tested with their relations, and the headline family's size by seats."""
    families, implied = family_members(lineup_metrics(seats))
    how = {
        "headline": "Holm (2.5%; 5% without long tables)",
        "seats": "Benjamini-Hochberg (the long tables share 2.5%)",
        "policies": "Benjamini-Hochberg (the long tables share 2.5%)",
        "cards": "Benjamini-Hochberg (the long tables share 2.5%)",
        "feel": "Benjamini-Hochberg (the long tables share 2.5%; where the feel is measured)",
    }
    lines = ["| family | control | tested rows |", "|---|---|---|"]
    for family, names in families.items():
        count = "2 per card kind" if family == "cards" else str(len(names))
        lines.append(f"| {family} | {how[family]} | {count} |")
    lines += ["", f"The tested rows ({seats} seats, policies greedy and random):", ""]
    for family, names in families.items():
        lines.append(f"* {family}: {', '.join(f'`{n}`' for n in names)}")
    sizes = ", ".join(
        f"{n} seats {len(family_members(lineup_metrics(n))[0]['headline'])}" for n in compare
    )
    lines += [
        "",
        f"Headline family size by seats: {sizes}.",
        "",
        f"Shown but not tested, as exact functions of other rows ({len(implied)} here):",
        "",
    ]
    lines += [f"* `{n}` = {rel}" for n, rel in implied.items()]
    return "\n".join(lines)


EXACT = 1e-12  # a win share's rounding: an edge or a standard error this small is none


class ClusteredOLS:
    """Least squares with a covariance clustered by group (CRV1, with the small-sample factor
    G/(G-1) (n-1)/(n-k)) and normal-theory intervals and tests: what statsmodels'
    `OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": g})` gives (the tests compare the
    two to 1e-9), without its import: statsmodels' linear model pulls in scipy.stats, about a
    second of every `sim run` (whose summary holds the seat model) and of every report (the
    card-impact model), for a few small fits. `group`: each row's game (any labels); `names`:
    the columns'; `qr`: statsmodels' method="qr" instead of its default, "pinv"."""

    @classmethod
    def of(cls, y: np.ndarray, design, group: np.ndarray, qr: bool = False) -> ClusteredOLS:
        """The fit of a design given as a DataFrame, its columns the parameters' names."""
        return cls(y, design.to_numpy(float), group, design.columns, qr)

    def __init__(self, y: np.ndarray, x: np.ndarray, group: np.ndarray, names, qr=False):
        self.names = list(names)
        self.nobs, k = x.shape
        if qr:  # statsmodels' method="qr"
            q, r = np.linalg.qr(x)
            diag = np.abs(np.diag(r))
            if k and diag.min() <= 1e-10 * diag.max():
                # collinear columns: statsmodels fits rounding noise there; here, no fit
                raise np.linalg.LinAlgError("collinear columns")
            bread = np.linalg.inv(r.T @ r)
            self.params = np.linalg.solve(r, q.T @ y)
        else:  # its default, "pinv"
            pinv = np.linalg.pinv(x)
            bread = pinv @ pinv.T
            self.params = pinv @ y
        scores = x * (y - x @ self.params)[:, None]
        _, group = np.unique(group, return_inverse=True)
        groups = int(group.max()) + 1 if len(group) else 0
        # each game's scores summed, column by column (bincount adds a game's rows in order,
        # as np.add.at does: the same sums, three times faster)
        summed = np.zeros((groups, k))
        for j in range(k):
            summed[:, j] = np.bincount(group, scores[:, j], groups)
        if groups < 2 or self.nobs <= k:  # one game, or no residual left: no interval
            self.cov = np.full((k, k), np.nan)
            return
        factor = groups / (groups - 1.0) * ((self.nobs - 1.0) / (self.nobs - k))
        self.cov = bread @ (summed.T @ summed) @ bread.T * factor

    def coef(self, name: str) -> tuple[float, float, float, float]:
        """One parameter: its estimate, 95% interval and two-sided p."""
        j = self.names.index(name)
        return estimate_of(float(self.params[j]), float(self.cov[j, j]))

    def wald(self, contrasts: np.ndarray) -> float:
        """The Wald statistic (chi-square) that every contrast of the parameters is 0."""
        d = contrasts @ self.params
        return float(d @ np.linalg.pinv(contrasts @ self.cov @ contrasts.T) @ d)


def estimate_of(est: float, var: float) -> tuple[float, float, float, float]:
    """A parameter's estimate, 95% normal interval and two-sided p from its variance."""
    se = math.sqrt(max(var, 0.0))
    if se <= EXACT:
        # No spread at all (say, a policy that never wins, in any seat): the estimate is
        # exact, and rounding must not pass for evidence. statsmodels gives an edge of
        # 1e-17 a p of 1e-45 there.
        est = 0.0 if abs(est) <= EXACT else est
        z = 0.0 if est == 0.0 else math.copysign(math.inf, est)
    else:
        z = est / se
    return est, est - Z95 * se, est + Z95 * se, normal_sf2(z)


def partialled_coefs(
    y: np.ndarray, x: np.ndarray, extra: np.ndarray, group: np.ndarray
) -> list[tuple[float, float, float, float] | None]:
    """For each column h of `extra`, what `ClusteredOLS(y, [x, h], group, qr=True).coef` gives
    for h (None where that fit raises: h, or x itself, collinear), from one QR of x for all
    of them. By Frisch, Waugh and Lovell, h's coefficient is that of y's residual on h's
    residual (both after x), and its row of the clustered sandwich is the residual's, so the
    estimate and its variance are the full fit's (the tests compare the two to 1e-9): a
    card-impact table of fifteen kinds costs one fit instead of fifteen."""
    n, p = x.shape
    q, r = np.linalg.qr(x)
    diag = np.abs(np.diag(r))  # the full fit's R has these, then |h's residual|, on its diagonal
    ry = y - q @ (q.T @ y)
    rh = extra - q @ (q.T @ extra)
    _, group = np.unique(group, return_inverse=True)
    groups = int(group.max()) + 1 if len(group) else 0
    k = p + 1
    factor = groups / (groups - 1.0) * ((n - 1.0) / (n - k)) if groups >= 2 and n > k else np.nan
    out: list[tuple[float, float, float, float] | None] = []
    for j in range(extra.shape[1]):
        h = rh[:, j]
        hh = float(h @ h)
        full = np.append(diag, math.sqrt(hh))
        if full.min() <= 1e-10 * full.max():
            out.append(None)  # collinear columns: the full fit raises
            continue
        est = float(h @ ry) / hh
        summed = np.bincount(group, h * (ry - est * h), groups)
        out.append(estimate_of(est, float(summed @ summed) / hh**2 * factor))
    return out
