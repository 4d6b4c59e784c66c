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


def bt_fit_sizes(counts: dict[int, np.ndarray]) -> tuple[np.ndarray, dict[int, float]]:
    """Bradley-Terry log-strengths on the smallest table's scale (rung 0 at 0) and each table
    size's factor β_s: rung i beats rung j at size s with chance σ(β_s (θ_i − θ_j)).
    Maximum likelihood with RIDGE pseudo-wins each way for every pair at β = 1."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    sizes = sorted(counts)
    k = len(next(iter(counts.values())))
    prior = RIDGE * (1 - np.eye(k))

    def nll(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta = np.r_[0.0, x[: k - 1]]
        logb = np.r_[0.0, x[k - 1 :]]
        value, g_theta, g_logb = 0.0, np.zeros(k), np.zeros(len(sizes))
        for i, (c, beta) in enumerate([(prior, 1.0), *((counts[s], None) for s in sizes)]):
            b = 1.0 if beta == 1.0 else float(np.exp(logb[i - 1]))
            d = b * (theta[:, None] - theta[None, :])
            value -= float((c * log_expit(d)).sum())
            g = c * expit(-d)  # d/dd of c·log σ(d)
            g_theta -= b * (g.sum(axis=1) - g.sum(axis=0))
            if i > 1:  # the smallest table's factor is 1
                g_logb[i - 1] -= float((g * d).sum())
        return value, np.r_[g_theta[1:], g_logb[1:]]

    start = np.zeros(k - 1 + len(sizes) - 1)
    fit = minimize(nll, start, jac=True, method="BFGS")
    theta = np.r_[0.0, fit.x[: k - 1]]
    scale = {s: float(np.exp(v)) for s, v in zip(sizes, np.r_[0.0, fit.x[k - 1 :]], strict=True)}
    return theta, scale


def _fit(pairs: list, sizes: list[int], k: int, weights=None):
    """(log-strengths, factor per table size) of some matches' pairs (frames or `_columns`)."""
    if len(set(sizes)) == 1:
        return bt_fit(_counts(pairs, k, weights)), {sizes[0]: 1.0}
    counts = {}
    for s in sorted(set(sizes)):
        mine = [i for i, size in enumerate(sizes) if size == s]
        w = None if weights is None else [weights[i] for i in mine]
        counts[s] = _counts([pairs[i] for i in mine], k, w)
    return bt_fit_sizes(counts)


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
    rng = np.random.default_rng(seed)
    draws = np.empty((RESAMPLES, k))
    codes = [pd.factorize(f["game"])[0] for f in pairs]
    for r in range(RESAMPLES):
        weights = []
        for code in codes:
            n_games = code.max() + 1 if len(code) else 0
            times = np.bincount(rng.integers(0, n_games, n_games), minlength=n_games)
            weights.append(times[code].astype(float))
        draws[r] = _fit(columns, sizes, k, weights)[0]
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
