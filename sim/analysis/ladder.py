"""Skill ladder, ratings and depth (`sim ladder`); the luck gauge's variance share (`sim luck`).

Ladder: every rung plays the rung below it in matches (heads-up, and at the
config's table size with the seats split between the two). A match's result
is the upper rung's share of the wins (ties shared), against its fair share.

Ratings: one Bradley-Terry model fitted to every pairwise outcome of every
match: in a heads-up game the winner beats the loser; a game of more seats is
broken into all its pairs of seats of different rungs, the higher score beating
the lower, a tie half each ("full rank breaking", which is consistent for
Plackett-Luce, Azari Soufiani et al. 2013). Skill tells less at a full table than
heads-up, so table size enters the model: at a table of s seats rung i beats rung j
with chance σ(β_s (θ_i − θ_j)), the log-strengths θ on the heads-up scale (β = 1 at
the smallest table) and one factor β_s per larger table, fitted with them. Pooling
the sizes in one plain model instead biased the ratings towards whichever size a
rung played more (two identical rungs under two labels came out about 21 Elo apart).
A fit of one table size is `choix`'s. A small ridge (RIDGE) keeps the fit finite when
a rung wins every game. Intervals: a bootstrap over games within each match
(RESAMPLES fits).

Depth (Lantz et al. 2017): the number of consecutive steps from the bottom
rung where the upper rung wins at least `threshold` of heads-up games (60% by
default) AND the 95% interval of its share lies above 50%. Its interval is
the bootstrap percentile interval of the same count, with the rule applied to
each resample's point shares (share >= threshold). Rungs of about equal
strength stop that count early, so the ratings give a second figure, the
chain depth: the longest chain of rungs each of which the fitted model says
beats the previous one with at least `threshold`, built greedily from the
weakest (interval over the bootstrap fits).

Luck gauge (Goodman et al.): a deal is replayed R times with only the seats'
own random streams changed; the share of a seat's outcome variance that the
deal explains is the intraclass correlation of a one-way random-effects model,
sigma2_deal / (sigma2_deal + sigma2_within), pooled over seats; interval by a
bootstrap over deals.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim.analysis.inference import normal_sf2
from sim.analysis.stats import wilson

RESAMPLES = 200
RIDGE = 0.01  # choix's regularisation (alpha): a prior of a few hundredths of a game per pair
ELO = 400 / math.log(10)  # Bradley-Terry log-strength to Elo points
DEFAULT_THRESHOLD = 0.6


# ---------------------------------------------------------------- matches


MATCH_COLUMNS = ["game", "slot", "score", "win_share"]  # of the players table, read below


def team_shares(players: pd.DataFrame, upper_slots: list[int]) -> pd.Series:
    """Per game, the upper rung's total win share (its seats are the line-up slots given)."""
    upper = players[players["slot"].isin(upper_slots)]
    return upper.groupby("game")["win_share"].sum().sort_index()


def match_row(shares: pd.Series, fair: float) -> dict:
    """The upper rung's mean share with its 95% Wilson interval, n and p against `fair`.

    A share per game lies in [0, 1] (a tie counts in part), so its variance is at most
    p(1 - p): the Wilson score interval over the summed shares is valid, slightly
    conservative with ties, and never leaves [0, 1] (a normal one did on small matches).
    """
    x = shares.to_numpy(float)
    n = len(x)
    est = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    p = normal_sf2((est - fair) / se) if n > 1 and se > 0 else (1.0 if est == fair else 0.0)
    ci = wilson(float(x.sum()), n)
    return {"share": est, "lo": ci.lo, "hi": ci.hi, "n": n, "fair": fair, "p": p}


def pair_outcomes(players: pd.DataFrame, rung_of_slot: dict[int, int]) -> pd.DataFrame:
    """Every pair of seats of different rungs in every game: (game, a, b, win of a).

    The higher score wins (ties: 0.5). With two seats this is the game's result. `players`
    is the game's table size, which the rating model reads."""
    p = players[["game", "slot", "score"]].copy()
    p["rung"] = p["slot"].map(rung_of_slot)
    seats = p.groupby("game")["slot"].size()
    m = p.merge(p, on="game", suffixes=("_a", "_b"))
    m = m[(m["slot_a"] < m["slot_b"]) & (m["rung_a"] != m["rung_b"])]
    win = np.where(
        m["score_a"] > m["score_b"], 1.0, np.where(m["score_a"] == m["score_b"], 0.5, 0.0)
    )
    return pd.DataFrame(
        {
            "game": m["game"].to_numpy(),
            "a": m["rung_a"].to_numpy(),
            "b": m["rung_b"].to_numpy(),
            "win": win,
            "players": m["game"].map(seats).to_numpy(),
        }
    )


def _sizes(pairs: list[pd.DataFrame]) -> list[int]:
    """Each match's table size (2 when a frame does not say)."""
    out = []
    for f in pairs:
        sizes = f["players"].unique() if "players" in f and len(f) else [2]
        if len(sizes) > 1:
            raise ValueError("one match, one table size: its pairs must share it")
        out.append(int(sizes[0]))
    return out


def _counts(pairs: list, k: int, weights: list[np.ndarray] | None = None):
    """The wins matrix C[i, j] (times rung i beat rung j) of all matches (frames, or their
    `_columns`), optionally with per-pair bootstrap weights. Wins are whole or halves and
    weights whole, so every sum is exact: bincount adds the same numbers as np.add.at."""
    c = np.zeros(k * k)
    for m, frame in enumerate(pairs):
        a, b, win = frame if isinstance(frame, tuple) else _columns(frame)
        w = np.ones(len(a)) if weights is None else weights[m]
        c += np.bincount(a * k + b, w * win, k * k)
        c += np.bincount(b * k + a, w * (1 - win), k * k)
    return c.reshape(k, k)


def _columns(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A match's pairs as arrays (rung a, rung b, a's win), read once for many fits."""
    return (
        frame["a"].to_numpy(np.int64),
        frame["b"].to_numpy(np.int64),
        frame["win"].to_numpy(np.float64),
    )


def bt_fit(counts: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths from a wins matrix (choix, RIDGE); rung 0 at 0."""
    import choix  # one model for all results; a well-kept library (docs/dev/libraries.md)

    theta = choix.ilsr_pairwise_dense(counts, alpha=RIDGE, max_iter=1000)
    return theta - theta[0]


def bt_fit_sizes(
    counts: dict[int, np.ndarray], start: np.ndarray | None = None
) -> tuple[np.ndarray, dict[int, float]]:
    """Bradley-Terry log-strengths on the smallest table's scale (rung 0 at 0) and each table
    size's factor β_s: rung i beats rung j at size s with chance σ(β_s (θ_i − θ_j)).
    Maximum likelihood with RIDGE pseudo-wins each way for every pair at β = 1: Newton's
    method with the exact gradient and Hessian (`_bt_terms`) from `start` (θ_1.., then log β
    of every size but the smallest; a bootstrap refit starts at the fit to all the games and
    takes a few steps), else, or where Newton does not converge, scipy's BFGS from 0, then
    Newton from there. A ladder's 201 fits took 1.1 s by BFGS alone, 0.2 s so."""
    sizes = sorted(counts)
    k = len(next(iter(counts.values())))
    groups = [RIDGE * (1 - np.eye(k)), *(np.asarray(counts[s], float) for s in sizes)]

    def terms(x: np.ndarray):
        return _bt_terms(groups, x, k)

    x = None if start is None else _newton(terms, start)
    if x is None:
        from scipy.optimize import minimize

        fit = minimize(
            lambda y: terms(y)[:2], np.zeros(k + len(sizes) - 2), jac=True, method="BFGS"
        )
        x = _newton(terms, fit.x)
        x = fit.x if x is None else x
    theta = np.r_[0.0, x[: k - 1]]
    scale = {s: float(np.exp(v)) for s, v in zip(sizes, np.r_[0.0, x[k - 1 :]], strict=True)}
    return theta, scale


def bt_sizes_start(theta: np.ndarray, scale: dict[int, float]) -> np.ndarray:
    """`bt_fit_sizes`' result as the start of another fit of the same sizes."""
    return np.r_[theta[1:], np.log([scale[s] for s in sorted(scale)][1:])]


NEWTON_STEPS = 25  # from a nearby start a fit takes about 3 to 5
NEWTON_TOL = 1e-8  # the largest gradient component (in games) at which a fit has converged


def _newton(terms, x: np.ndarray) -> np.ndarray | None:
    """Newton's method on a negative log-likelihood from x, each step halved until it falls
    (Armijo); None where the Hessian is not positive definite on the way (not a neighbourhood
    of a minimum) or it does not converge in NEWTON_STEPS."""
    value, grad, hess = terms(x)
    for _ in range(NEWTON_STEPS):
        if np.max(np.abs(grad), initial=0.0) < NEWTON_TOL:
            return x
        try:
            np.linalg.cholesky(hess)
        except np.linalg.LinAlgError:
            return None
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            new = x - t * step
            after = terms(new)
            if after[0] <= value - 1e-4 * t * float(grad @ step):
                break
            t /= 2
            if t < 1e-6:  # no descent along Newton's direction: not a neighbourhood of one
                return None
        x, (value, grad, hess) = new, after
    return x if np.max(np.abs(grad), initial=0.0) < NEWTON_TOL else None


def _bt_terms(groups: list[np.ndarray], x: np.ndarray, k: int):
    """The negative log-likelihood of `bt_fit_sizes`' model at x, its gradient and Hessian.
    groups[0] is the prior (β = 1), then one wins matrix per table size, the first at β = 1.
    With d = β (θ_i − θ_j), a pair's term is −c log σ(d): its derivatives in d are −c σ(−d)
    and c σ(d) σ(−d), and d's in log β is d itself."""
    from scipy.special import expit, log_expit

    theta = np.r_[0.0, x[: k - 1]]
    diff = theta[:, None] - theta[None, :]
    n = k + len(groups) - 2  # θ_0.., then log β of the sizes past the smallest
    value, g, h = 0.0, np.zeros(n), np.zeros((n, n))
    for i, c in enumerate(groups):
        b = math.exp(x[k - 3 + i]) if i >= 2 else 1.0
        d = b * diff
        first = c * expit(-d)  # minus each pair's derivative in d
        second = first * expit(d)  # its second derivative
        value -= float((c * log_expit(d)).sum())
        g[:k] -= b * (first.sum(axis=1) - first.sum(axis=0))
        both = second + second.T
        h[:k, :k] += b * b * (np.diag(both.sum(axis=1)) - both)
        if i >= 2:  # this size's log β
            j = k + i - 2
            g[j] -= float((first * d).sum())
            mixed = second * d - first
            h[:k, j] = h[j, :k] = b * (mixed.sum(axis=1) - mixed.sum(axis=0))
            h[j, j] = float((second * d * d - first * d).sum())
    return value, g[1:], h[1:, 1:]  # rung 0 is held at 0


def _fit(pairs: list, sizes: list[int], k: int, weights=None, start=None):
    """(log-strengths, factor per table size) of some matches' pairs (frames or `_columns`);
    `start`: where a fit of several sizes starts (`bt_sizes_start`)."""
    if len(set(sizes)) == 1:
        return bt_fit(_counts(pairs, k, weights)), {sizes[0]: 1.0}
    counts = {}
    for s in sorted(set(sizes)):
        mine = [i for i, size in enumerate(sizes) if size == s]
        w = None if weights is None else [weights[i] for i in mine]
        counts[s] = _counts([pairs[i] for i in mine], k, w)
    return bt_fit_sizes(counts, start)


def ratings(
    pairs: list[pd.DataFrame], labels: list[str], seed: int = 0
) -> tuple[pd.DataFrame, np.ndarray]:
    """One Bradley-Terry fit to every match's pairs, table size entering as a factor per size
    (`bt_fit_sizes`; one size: `bt_fit`); bootstrap intervals over games. Returns the
    ratings table (`attrs["scale"]`: the factor per table size) and the bootstrap draws
    (RESAMPLES x rungs)."""
    k = len(labels)
    sizes = _sizes(pairs)
    columns = [_columns(f) for f in pairs]  # read once: the bootstrap fits them 200 times
    theta, scale = _fit(columns, sizes, k)
    start = bt_sizes_start(theta, scale) if len(set(sizes)) > 1 else None  # refits start there
    rng = np.random.default_rng(seed)
    draws = np.empty((RESAMPLES, k))
    codes = [pd.factorize(f["game"])[0] for f in pairs]
    for r in range(RESAMPLES):
        weights = []
        for code in codes:
            n_games = code.max() + 1 if len(code) else 0
            times = np.bincount(rng.integers(0, n_games, n_games), minlength=n_games)
            weights.append(times[code].astype(float))
        draws[r] = _fit(columns, sizes, k, weights, start)[0]
    lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
    frame = pd.DataFrame(
        {
            "rung": labels,
            "rating": theta,
            "lo": lo,
            "hi": hi,
            "elo": ELO * theta,
            "elo_lo": ELO * lo,
            "elo_hi": ELO * hi,
        }
    )
    frame.attrs["scale"] = scale
    return frame, draws


def chain_depth(theta: np.ndarray, threshold: float = DEFAULT_THRESHOLD) -> int:
    """Steps of the longest chain the fitted ratings allow: from the weakest rung, each next
    link the weakest rung the model says beats the current one with at least `threshold`
    (Lantz et al.'s depth measured with the ratings rather than only adjacent rungs)."""
    need = math.log(threshold / (1 - threshold))  # log-strength gap for the threshold
    order = np.sort(np.asarray(theta, float))
    steps, current = 0, order[0]
    for value in order[1:]:
        if value - current >= need:
            steps += 1
            current = value
    return steps


def chain_depth_interval(draws: np.ndarray, threshold: float = DEFAULT_THRESHOLD):
    """Bootstrap percentile 95% interval of `chain_depth` over the rating draws."""
    found = [chain_depth(d, threshold) for d in draws]
    lo, hi = np.percentile(found, [2.5, 97.5])
    return float(lo), float(hi)


def bt_prob(theta_upper: float, theta_lower: float, scale: float = 1.0) -> float:
    """The Bradley-Terry chance that the upper rung beats the lower (at a table whose size
    scales the log-strength gap by `scale`)."""
    return 1 / (1 + math.exp(scale * (theta_lower - theta_upper)))


def depth(steps: pd.DataFrame, threshold: float = DEFAULT_THRESHOLD) -> int:
    """Consecutive steps from the bottom where share >= threshold and lo > 0.5."""
    count = 0
    for share, lo in zip(steps["share"], steps["lo"], strict=True):
        if share >= threshold and lo > 0.5:
            count += 1
        else:
            break
    return count


def depth_interval(
    shares: list[pd.Series], threshold: float = DEFAULT_THRESHOLD, seed: int = 0
) -> tuple[float, float]:
    """Bootstrap percentile 95% interval of depth (consecutive steps whose resampled
    heads-up share is at least `threshold`), resampling games within each step."""
    rng = np.random.default_rng(seed)
    values = [s.to_numpy(float) for s in shares]
    found = np.empty(RESAMPLES)
    for r in range(RESAMPLES):
        count = 0
        for x in values:
            if x[rng.integers(0, len(x), len(x))].mean() >= threshold:
                count += 1
            else:
                break
        found[r] = count
    lo, hi = np.percentile(found, [2.5, 97.5])
    return float(lo), float(hi)


# ---------------------------------------------------------------- the luck gauge


def seat_outcomes(players: pd.DataFrame) -> pd.DataFrame:
    """Per (game, seat): win share and lead (score minus the best other seat's)."""
    p = players[["game", "seat", "score", "win_share"]].copy()
    game, score = p["game"].to_numpy(), p["score"].to_numpy()
    order = np.lexsort((-score, game))  # by game, the highest score first
    starts = np.flatnonzero(np.r_[True, game[order][1:] != game[order][:-1]])
    ends = np.r_[starts[1:], len(order)]
    top = score[order][starts]
    second = score[order][np.minimum(starts + 1, ends - 1)]  # a tie for the top: the top
    at = np.searchsorted(game[order][starts], game)
    p["lead"] = np.where(score == top[at], score - second[at], score - top[at])
    return p


def _components(y: np.ndarray) -> tuple[float, float]:
    """One-way random effects on deals x replays x seats: (sigma2_deal, sigma2_within),
    each the mean over seats of the ANOVA estimates (sigma2_deal clipped at 0)."""
    r = y.shape[1]
    msw = y.var(axis=1, ddof=1).mean(axis=0)
    msb = r * y.mean(axis=1).var(axis=0, ddof=1)
    between = np.maximum((msb - msw) / r, 0)
    return float(between.mean()), float(msw.mean())


def icc(y: np.ndarray) -> float:
    """Share of the outcome variance the deal explains (deals x replays x seats)."""
    between, within = _components(y)
    total = between + within
    return between / total if total > 0 else math.nan


def luck_share(players: pd.DataFrame, replays: int, seed: int = 0) -> pd.DataFrame:
    """Luck gauge of one line-up: for win share and lead, the deal's share of the variance
    with a bootstrap interval over deals. Game g is replay g mod R of deal g // R."""
    p = seat_outcomes(players).sort_values(["game", "seat"])
    seats = int(p["seat"].max()) + 1
    deals = int(p["game"].max()) // replays + 1
    rng = np.random.default_rng(seed)
    rows = []
    for outcome in ("win_share", "lead"):
        y = p[outcome].to_numpy(float).reshape(deals, replays, seats)
        share = icc(y)
        boot = np.array([icc(y[rng.integers(0, deals, deals)]) for _ in range(RESAMPLES)])
        lo, hi = np.nanpercentile(boot, [2.5, 97.5])
        between, within = _components(y)
        rows.append(
            {
                "outcome": outcome,
                "deal_share": share,
                "lo": float(lo),
                "hi": float(hi),
                "var_deal": between,
                "var_within": within,
                "deals": deals,
                "replays": replays,
            }
        )
    return pd.DataFrame(rows)
