"""Intervals that hold at the edges, from a few sums that merge chunk by chunk.

A mean of per-game values gets the t interval joined with a score interval, inside the
range the values can take:

* the variance of near-constant values (99.8% of games at 55 turns) rests on the few
  games that differ, so it is known to far fewer degrees of freedom than n − 1: the
  t quantile uses df = 2n/(κ − 1), κ the values' kurtosis (the variance estimate's own
  spread, Var(s²) ≈ σ⁴(κ − 1)/n; about n for spread-out values, about twice the number
  of differing games for near-constant ones);
* scaled to the observed range [lo, hi], the mean is a share p̂ in [0, 1] and the
  values' variance s² is at most p̂(1 − p̂); Wilson's interval at n_eff = n·p̂(1 − p̂)/s²
  games (the design effect, with Korn and Graubard's (1998) degrees-of-freedom factor
  (z / t_df)² for an estimated variance) is, for near-constant values, the asymmetric
  interval that reaches out on the side of the rare values;
* joined with the t interval (which it never narrows: for spread-out values the two
  agree, and the t interval is the wider at the centre), it is cut at the observed range:
  a mean never lies past the largest value seen...
* ...unless values beyond it are possible (55 turns is the most the data shows, not a
  rule of the game): at most z²/(n + z²) of the games may lie there unseen (Wilson's
  bound at 0 of n), a unit step away at least, so each end reaches at least that far
  past the estimate where the metric's range allows;
* the interval never leaves the metric's declared range (`sim.metrics.Metric.value_range`).

So a constant column is c ± z²/(n + z²) (one-sided at a bound of the range: a share of
0 of n games gets Wilson's [0, z²/(n + z²)]), never zero width; 0/1 values get Wilson's
interval exactly (`share_bounds`).

A paired difference of two 0/1 outcomes (the same game index under A and B) gets
Tango's score interval (1998) from the discordant games, which has width even when no
game differs; a paired difference of other values the mean interval above on the
per-game differences; an independent difference Newcombe's MOVER (Zou and Donner 2008)
from the two sides' intervals. A p-value of "no difference" is the level at which the
interval's end reaches 0 (`p_value`), so a "real" verdict and the interval beside it
never disagree.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile

# Student t 97.5% quantiles for 1..9 degrees of freedom; from 10 on the
# Cornish-Fisher expansion below is within 1e-5 of the exact value.
_T975_SMALL = (
    12.706205,
    4.302653,
    3.182446,
    2.776445,
    2.570582,
    2.446912,
    2.364624,
    2.306004,
    2.262157,
)


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with `df` degrees of freedom (normal when df is huge)."""
    if df < 1:
        return float("nan")
    if df <= len(_T975_SMALL):
        return _T975_SMALL[df - 1]
    return cornish_fisher(Z95, df, fifth=False)


def cornish_fisher(z: float, df: float, fifth: bool = True) -> float:
    """Student's quantile at the normal quantile z by Cornish and Fisher's expansion in 1/df
    (Abramowitz & Stegun 26.7.5 to 1/df⁴; `fifth`: Fisher and Cornish's 1/df⁵ term too)."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    g5 = (((((27 * z2 + 339) * z2 + 930) * z2 - 1782) * z2 - 765) * z2 + 17955) * z / 368640
    return z + (g1 + (g2 + (g3 + (g4 + (g5 if fifth else 0.0) / df) / df) / df) / df) / df


NORMAL = NormalDist()
INF = math.inf
Z_MAX = 12.0  # p-values below 2(1 − Φ(12)) ≈ 4e-33 are reported as 0
STEP = 1.0  # the least distance of an unseen value: a turn, a point, a whole win
Bounds = tuple[float, float]


@dataclass(frozen=True)
class Summary:
    """One column's sums: n values, their mean, m2 = Σ (x − mean)², the smallest and largest
    value, whether every value is 0 or 1, and m4 = Σ (x − mean)⁴ (NaN: not known)."""

    n: int
    mean: float
    m2: float
    lo: float
    hi: float
    binary: bool = False
    m4: float = math.nan

    @classmethod
    def of(cls, values) -> Summary:
        """The sums of an array of values."""
        x = np.asarray(values, float)
        if len(x) == 0:
            return cls(0, math.nan, math.nan, math.nan, math.nan)
        mean = float(x.mean())
        c2 = (x - mean) ** 2
        binary = bool(np.isin(x, (0.0, 1.0)).all())
        return cls(
            len(x),
            mean,
            float(c2.sum()),
            float(x.min()),
            float(x.max()),
            binary,
            float((c2 * c2).sum()),
        )

    def df(self) -> float:
        """Degrees of freedom of the variance estimate: 2n/(κ − 1) for kurtosis κ, at most
        n − 1 (n − 1 when the fourth moment is not known)."""
        n = self.n
        if not (math.isfinite(self.m4) and self.m2 > 0):
            return float(n - 1)
        kappa = n * self.m4 / (self.m2 * self.m2)
        return float(min(n - 1, max(1.0, 2 * n / max(kappa - 1, 1e-12))))


def merge_central(na: int, a: tuple, nb: int, b: tuple) -> tuple:
    """Merge (mean, m2, m3, m4) of two parts of n_a and n_b values, the central sums
    Σ (x − mean)^k (Pébay 2008's pairwise update; numpy arrays or floats)."""
    mean_a, m2a, m3a, m4a = a
    mean_b, m2b, m3b, m4b = b
    n = na + nb
    d = mean_b - mean_a
    mean = mean_a + d * (nb / n)
    m2 = m2a + m2b + d * d * (na * nb / n)
    m3 = m3a + m3b + d**3 * (na * nb * (na - nb) / n**2) + 3 * d * (na * m2b - nb * m2a) / n
    m4 = (
        m4a
        + m4b
        + d**4 * (na * nb * (na * na - na * nb + nb * nb) / n**3)
        + 6 * d * d * (na * na * m2b + nb * nb * m2a) / n**2
        + 4 * d * (na * m3b - nb * m3a) / n
    )
    return mean, m2, m3, m4


def z_of(level: float) -> float:
    """The normal quantile of a two-sided level (0.95 -> 1.96)."""
    return Z95 if level == 0.95 else NORMAL.inv_cdf(0.5 + level / 2)


def t_of(z: float, df: float) -> float:
    """Student's quantile at the normal tail of z (t975 at z = 1.96), df need not be whole."""
    if df < 1:
        return math.nan
    if z == Z95 and (df >= 10 or df == int(df)):
        return t975(df if df >= 10 else int(df))
    if z <= 0:
        return -t_of(-z, df) if z < 0 else 0.0
    return t_isf(0.5 * math.erfc(z / math.sqrt(2)), df)  # tails, not cdfs: exact far out


# Student's t by its incomplete beta function, in pure Python: importing scipy.special for
# `stdtrit` cost a tune or an advice about 0.2 CPU-s (a mean's interval at a df that is not
# whole, from a heavy-tailed column). Within 1e-10 of scipy's (tests/analysis/test_intervals).


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularised incomplete beta function (modified Lentz,
    Numerical Recipes' betacf)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for aa in (
            m * (b - m) * x / ((a - 1.0 + 2 * m) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1.0 + 2 * m)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float, y: float) -> float:
    """I_x(a, b), with y = 1 − x given exactly (1 − x itself loses digits when x is near 1)."""
    if x <= 0 or y <= 0:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, y) / b


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with df degrees of freedom (df need not be whole), t ≥ 0."""
    u = df + t * t
    return 0.5 * _incomplete_beta(df / 2, 0.5, df / u, t * t / u)


def t_isf(q: float, df: float) -> float:
    """The t with P(T > t) = q (0 < q < 1/2): Newton's method on `t_sf` from Cornish and
    Fisher's start (`_t_start`), kept inside the bracket its steps find (doubling up while
    the tail is too heavy, bisecting where a step would leave it), to the last bits of a
    double. A p-value's bisection asks for thousands of these: from that start most take
    three or four tails, not sixteen. From CF_DF degrees of freedom on the start is the
    quantile (the incomplete beta function loses digits there, the expansion none)."""
    t = _t_start(q, df)
    if df >= CF_DF:
        return t
    lo, hi = 0.0, math.inf
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    for _ in range(400):
        f = t_sf(t, df) - q
        lo, hi = (t, hi) if f > 0 else (lo, t)
        density = math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))
        new = t + f / density if density > 0 else math.nan
        if not lo < new < hi:  # (a NaN too)
            new = (lo + hi) / 2 if hi < math.inf else 2 * t
        elif hi == math.inf:  # a far tail of few df: Newton creeps up, so at least double
            new = max(new, 2 * t) if f > 0.5 * q else new
        if abs(new - t) <= 1e-15 * new or (hi < math.inf and hi - lo <= 4e-16 * hi):
            return new
        t = new
    return t


# From here on Cornish and Fisher's expansion to 1/df⁵ is Student's quantile: to the last bits
# of a double up to z = 6, within 1e-12 up to z = 12 (against mpmath at 40 digits), where the
# incomplete beta function has begun to lose digits (1e-10 at 1e5 df).
CF_DF = 2000.0


def _t_start(q: float, df: float) -> float:
    """`cornish_fisher` at the tail q, to 1/df⁵: exact from CF_DF on, close from about ten
    df, a positive start below."""
    z = -NORMAL.inv_cdf(q)
    t = cornish_fisher(z, df)
    return t if t > 0 else z


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of a share p of n (n need not be whole)."""
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z2 / (4 * n * n)) / denom
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def wilson_bounds(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval of `successes` of `n` 0/1 trials."""
    if n <= 0:
        return math.nan, math.nan
    return _wilson(successes / n, n, z)


def unseen(n: int, z: float = Z95) -> float:
    """How far unseen values beyond an observed extreme may move a mean: at most z²/(n + z²)
    of the games (Wilson's bound at 0 of n), a unit step each."""
    return STEP * z * z / (n + z * z)


def mean_bounds(s: Summary, bounds: Bounds = (-INF, INF), z: float = Z95) -> tuple[float, float]:
    """The interval of a mean (see the module's docstring): the t interval at the variance's
    degrees of freedom joined with Wilson's on the observed range at Korn and Graubard's
    effective n, kept inside the
    observed range, each end at least `unseen` past the estimate where values beyond the
    observed extreme are possible (it is not a bound of `bounds`), clipped to `bounds`."""
    n = s.n
    if n < 2 or not math.isfinite(s.mean):
        return math.nan, math.nan
    lo_b, hi_b = bounds
    width = s.hi - s.lo
    lo = hi = s.mean
    if width > 0:
        t = t_of(z, s.df())
        half = t * math.sqrt(max(s.m2, 0.0) / (n - 1) / n)
        p = min(max((s.mean - s.lo) / width, 0.0), 1.0)
        var = max(s.m2, 0.0) / n / (width * width)  # scaled, ddof 0: p(1 − p) for 0/1 data
        deff = p * (1 - p) / var if var > 0 else 1.0
        n_eff = n * deff * (z / t) ** 2
        a, b = _wilson(p, n_eff, z)
        lo = max(min(s.mean - half, s.lo + a * width), s.lo)  # never past what was seen...
        hi = min(max(s.mean + half, s.lo + b * width), s.hi)
    e = unseen(n, z)
    if s.lo > lo_b:  # ...unless values beyond it are possible: then at least e past the mean
        lo = min(lo, s.mean - e)
    if s.hi < hi_b:
        hi = max(hi, s.mean + e)
    return max(lo, lo_b), min(hi, hi_b)


def share_bounds(s: Summary, z: float = Z95) -> tuple[float, float]:
    """A share of games (values in [0, 1], ties counting in part): Wilson for 0/1 values,
    else `mean_bounds` inside [0, 1]."""
    if s.binary and s.n > 0:
        return wilson_bounds(s.mean * s.n, s.n, z)
    return mean_bounds(s, (0.0, 1.0), z)


# ---------------------------------------------------------------- differences


def discordant(d: Summary) -> tuple[int, int]:
    """(b, c) of a paired 0/1 comparison from the per-game differences d = B − A ∈ {−1, 0, 1}:
    b games with A = 1 and B = 0, c with A = 0 and B = 1 (Σ d = c − b, Σ d² = b + c)."""
    total = d.n * d.mean
    squares = d.m2 + d.n * d.mean * d.mean
    return int(round((squares - total) / 2)), int(round((squares + total) / 2))


def _tango_stat(delta: float, n: int, b: int, c: int) -> float:
    """Tango's score statistic for δ = P(B) − P(A) (his δ with n12 = c, n21 = b)."""
    a2 = 2.0 * n
    bq = -c - b + (2.0 * n - c + b) * delta
    cq = -b * delta * (1 - delta)
    p21 = (math.sqrt(max(bq * bq - 4 * a2 * cq, 0.0)) - bq) / (2 * a2)
    var = n * (2 * p21 + delta * (1 - delta))
    if var <= 0:
        return 0.0 if c - b - n * delta == 0 else math.copysign(INF, c - b - n * delta)
    return (c - b - n * delta) / math.sqrt(var)


def tango_bounds(n: int, b: int, c: int, z: float = Z95) -> tuple[float, float]:
    """Tango's score interval for a paired difference of proportions, B − A, from n pairs of
    which b have A = 1, B = 0 and c have A = 0, B = 1 (Tango 1998, Stat Med 17:891-908)."""
    if n <= 0:
        return math.nan, math.nan
    est = (c - b) / n

    def root(target: float, lo: float, hi: float) -> float:  # T is decreasing in delta
        for _ in range(80):
            mid = (lo + hi) / 2
            if _tango_stat(mid, n, b, c) > target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = -1.0 if est <= -1 else root(z, -1.0, est)
    upper = 1.0 if est >= 1 else root(-z, est, 1.0)
    return lower, upper


def mover(a: tuple[float, float, float], b: tuple[float, float, float]) -> tuple[float, float]:
    """Newcombe's MOVER interval of B − A for independent estimates, each (value, lo, hi)."""
    (va, la, ua), (vb, lb, ub) = a, b
    d = vb - va
    return d - math.hypot(vb - lb, ua - va), d + math.hypot(ub - vb, va - la)


def p_value(interval: Callable[[float], tuple[float, float]], null: float = 0.0) -> float:
    """Two-sided p-value of `null` by inverting a family of intervals indexed by the normal
    quantile z: the tail 2(1 − Φ(z*)) of the z* at which an end of the interval reaches
    `null` (intervals must widen with z). 1 when even z → 0 keeps `null` inside."""

    def outside(z: float) -> bool:
        lo, hi = interval(z)
        return not (lo <= null <= hi)

    if not outside(1e-6):
        return 1.0
    lo, hi = 1e-6, Z_MAX
    if outside(hi):
        return 0.0
    for _ in range(50):
        mid = (lo + hi) / 2
        if outside(mid):
            lo = mid
        else:
            hi = mid
    return math.erfc((lo + hi) / 2 / math.sqrt(2))
