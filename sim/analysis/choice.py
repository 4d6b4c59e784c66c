"""Conditional-logit choice models: the likelihood of logged decisions, fitted by Newton.

A decision offers alternatives; the player picks alternative a with probability
exp(u_a) / sum_b exp(u_b), where u_a = theta . x_a and x_a are the alternative's
features (McFadden's conditional logit). The heuristic policy is exactly this model
with theta = weights / temperature (its softmax draw, `sim.policies.heuristic._pick`),
so only theta is identified by choices: the scale is fixed afterwards
(`sim.analysis.choice_scale`).

One twist: an alternative may have several feature rows and be worth the best of them
(u_a = max_j theta . x_aj). The heuristic values the sleeping-cat action by its best
placement (R3.2), so that alternative carries one row per placement. The likelihood is
then piecewise smooth; Newton's method uses the active (best) row, which is the
derivative almost everywhere.

Standard errors: the observed information (the model's own) and the sandwich clustered
by game (robust when people are not logit players: decisions of one game share a
player and a table). Pure numpy and scipy: arrays in, arrays and DataFrames out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

MIN_CLUSTERS = 20  # below this many games the clustered sandwich is unreliable
SEPARATED = 40.0  # |utility per unit of a feature| beyond which the fit has run off
FADED = 1e-6  # information left at the fit, as a share of that at 0, of a separated feature
MAX_ITER = 100


@dataclass(frozen=True)
class Choices:
    """Logged decisions as flat arrays: feature rows, the alternative each row belongs to,
    the decision each alternative belongs to, and which alternative was chosen.

    Rows of one alternative and alternatives of one decision are contiguous and in
    order. `game` and `player` index `games` and `players` (one entry per decision);
    `greedy` is greedy's own objective of each alternative (a baseline). Legal actions
    of one decision with the same features (most placements on a table whose boxes are
    worth nothing) are one alternative standing for `count` actions: the model cannot
    tell them apart, and a fit on 20 times fewer rows is 20 times faster.
    """

    x: np.ndarray  # (rows, K) float
    row_alt: np.ndarray  # (rows,) int
    alt_dec: np.ndarray  # (alts,) int
    chosen: np.ndarray  # (decisions,) int: a global alternative index
    game: np.ndarray  # (decisions,) int
    player: np.ndarray  # (decisions,) int
    greedy: np.ndarray  # (alts,) float
    count: np.ndarray  # (alts,) float: legal actions this alternative stands for (>= 1)
    kind: np.ndarray  # (decisions,) str: the decision kind ("play", "item", ...)
    features: tuple[str, ...]
    players: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    _starts: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n(self) -> int:
        """Number of decisions."""
        return len(self.chosen)

    def alt_starts(self) -> np.ndarray:
        """Index of each decision's first alternative."""
        if "alt" not in self._starts:
            self._starts["alt"] = _starts(self.alt_dec, self.n)
        return self._starts["alt"]

    def row_starts(self) -> np.ndarray:
        """Index of each alternative's first row."""
        if "row" not in self._starts:
            self._starts["row"] = _starts(self.row_alt, len(self.alt_dec))
        return self._starts["row"]

    def n_alts(self) -> np.ndarray:
        """Alternatives offered at each decision."""
        return np.diff(np.append(self.alt_starts(), len(self.alt_dec)))

    def with_x(self, x: np.ndarray, features: tuple[str, ...]) -> Choices:
        """The same decisions with other feature columns (one row each as before)."""
        return replace(
            self,
            x=np.asarray(x, float).reshape(len(self.row_alt), -1),
            features=features,
            _starts={},
        )

    def subset(self, keep: np.ndarray) -> Choices:
        """The decisions where `keep` (a boolean per decision) holds, renumbered."""
        keep = np.asarray(keep, bool)
        alt_keep = keep[self.alt_dec]
        row_keep = alt_keep[self.row_alt]
        new_alt = np.cumsum(alt_keep) - 1  # old alternative -> new index
        new_dec = np.cumsum(keep) - 1
        return replace(
            self,
            x=self.x[row_keep],
            row_alt=new_alt[self.row_alt[row_keep]],
            alt_dec=new_dec[self.alt_dec[alt_keep]],
            chosen=new_alt[self.chosen[keep]],
            game=self.game[keep],
            player=self.player[keep],
            greedy=self.greedy[alt_keep],
            count=self.count[alt_keep],
            kind=self.kind[keep],
            _starts={},
        )


def _starts(owner: np.ndarray, groups: int) -> np.ndarray:
    """First index of each group 0..groups-1 in a sorted owner array (every group present)."""
    return np.searchsorted(owner, np.arange(groups))


def build_choices(
    decisions: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, int, int, str]],
    features: tuple[str, ...],
    players: tuple[str, ...] = (),
    games: tuple[str, ...] = (),
) -> Choices:
    """Choices from one tuple per decision: (feature rows, each row's alternative 0..n-1,
    greedy's value of each alternative, the chosen alternative, game, player, kind)."""
    k = len(features)
    if not decisions:
        none = np.zeros(0, np.int64)
        return Choices(
            np.zeros((0, k)),
            none,
            none,
            none,
            none,
            none,
            np.zeros(0),
            np.zeros(0),
            np.zeros(0, str),
            features,
            players,
            games,
        )
    xs, row_alt, alt_dec, greedy, count, chosen = [], [], [], [], [], []
    alts = 0
    for d, (x, alt, value, pick, _, _, _) in enumerate(decisions):
        x, alt, value, pick, n = _merged(np.asarray(x, float).reshape(-1, k), alt, value, pick)
        xs.append(x)
        row_alt.append(np.asarray(alt, np.int64) + alts)
        alt_dec.append(np.full(len(value), d, np.int64))
        greedy.append(np.asarray(value, float))
        count.append(n)
        chosen.append(alts + int(pick))
        alts += len(value)
    return Choices(
        x=np.concatenate(xs),
        row_alt=np.concatenate(row_alt),
        alt_dec=np.concatenate(alt_dec),
        chosen=np.array(chosen, np.int64),
        game=np.array([d[4] for d in decisions], np.int64),
        player=np.array([d[5] for d in decisions], np.int64),
        greedy=np.concatenate(greedy),
        count=np.concatenate(count),
        kind=np.array([d[6] for d in decisions]),
        features=features,
        players=players,
        games=games,
    )


def _merged(x: np.ndarray, alt, value, pick: int):
    """One decision's alternatives with equal features and greedy value merged into one
    (with its count); a decision with a many-row alternative is left as it is."""
    value = np.asarray(value, float)
    if len(x) != len(value):
        return x, alt, value, pick, np.ones(len(value))
    key = np.column_stack([x, value])
    order = np.lexsort(key.T[::-1])
    ordered = key[order]
    new = np.ones(len(key), bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(key), np.int64)
    inverse[order] = group
    unique = ordered[new]
    counts = np.bincount(group).astype(float)
    k = x.shape[1]
    return unique[:, :k], np.arange(len(unique)), unique[:, k], inverse[pick], counts


# ---------------------------------------------------------------- the likelihood


def alternative_utilities(c: Choices, row_u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each alternative's utility (the best of its rows) and the row that gives it."""
    u = np.maximum.reduceat(row_u, c.row_starts()) if len(row_u) else np.zeros(0)
    on_top = np.flatnonzero(row_u >= u[c.row_alt])
    first = np.ones(len(on_top), bool)
    first[1:] = c.row_alt[on_top[1:]] != c.row_alt[on_top[:-1]]
    return u, on_top[first]


def probabilities(c: Choices, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each alternative's choice probability (of any of the actions it stands for) and
    each decision's log normaliser: one action of alternative a has probability
    exp(u_a - normaliser)."""
    starts = c.alt_starts()
    top = np.maximum.reduceat(u, starts)
    e = c.count * np.exp(u - top[c.alt_dec])
    total = np.add.reduceat(e, starts)
    return e / total[c.alt_dec], top + np.log(total)


@dataclass(frozen=True)
class Evaluation:
    """The log-likelihood at theta, its gradient and Hessian, and each decision's score."""

    loglik: float
    grad: np.ndarray
    hess: np.ndarray
    scores: np.ndarray  # (decisions, K): the gradient of each decision's log-probability


def evaluate(c: Choices, theta: np.ndarray) -> Evaluation:
    """Log-likelihood of the chosen alternatives under utilities theta . x."""
    u, best = alternative_utilities(c, c.x @ theta)
    p, lognorm = probabilities(c, u)
    xa = c.x[best]
    mean = np.add.reduceat(p[:, None] * xa, c.alt_starts(), axis=0)
    scores = xa[c.chosen] - mean
    hess = -(xa.T @ (p[:, None] * xa) - mean.T @ mean)
    return Evaluation(float(np.sum(u[c.chosen] - lognorm)), scores.sum(0), hess, scores)


def loglik(c: Choices, theta: np.ndarray) -> float:
    """Log-likelihood only (for line searches)."""
    u, _ = alternative_utilities(c, c.x @ theta)
    _, lognorm = probabilities(c, u)
    return float(np.sum(u[c.chosen] - lognorm))


def varying(c: Choices) -> np.ndarray:
    """Per feature: decisions at which it takes more than one value among the feature rows
    offered (only those carry information about its weight)."""
    if c.n == 0:
        return np.zeros(c.x.shape[1], np.int64)
    dec_of_row = c.alt_dec[c.row_alt]
    starts = _starts(dec_of_row, c.n)
    spread = np.maximum.reduceat(c.x, starts, axis=0) - np.minimum.reduceat(c.x, starts, axis=0)
    return (spread > 1e-12).sum(0)


def free_features(c: Choices, tol: float = 1e-9) -> tuple[np.ndarray, dict[int, str]]:
    """Which features can be fitted: those that vary somewhere and are not a combination of
    earlier ones (in two-player games the rival is the only other seat, so `others_points`
    equals `rival_points`). Returns the mask and, for each feature left out, why."""
    k = c.x.shape[1]
    why: dict[int, str] = {}
    moves = varying(c)
    information = -evaluate(c, np.zeros(k)).hess  # the spread of x within decisions
    kept: list[int] = []
    for j in range(k):
        if moves[j] == 0:
            why[j] = "never varied among the actions offered"
            continue
        if kept:
            a = information[np.ix_(kept, kept)]
            b = information[np.ix_(kept, [j])]
            rest = information[j, j] - (b.T @ np.linalg.solve(a, b)).item()
        else:
            rest = information[j, j]
        if rest <= tol * max(information[j, j], 1e-300):
            named = ", ".join(c.features[i] for i in kept)
            why[j] = f"a combination of {named} in these games"
            continue
        kept.append(j)
    mask = np.zeros(k, bool)
    mask[kept] = True
    return mask, why


# ---------------------------------------------------------------- the fit


@dataclass(frozen=True)
class LogitFit:
    """A fitted conditional logit: utilities per unit of each feature and their covariance.

    `cov` is the one the intervals use: clustered by game when there are at least
    MIN_CLUSTERS games, else the observed information's (`se_kind` says which).
    Features left out (`why`) have utility 0 and no interval.
    """

    features: tuple[str, ...]
    theta: np.ndarray
    free: np.ndarray  # bool per feature
    cov: np.ndarray  # (K, K), NaN outside the free block
    cov_model: np.ndarray
    cov_robust: np.ndarray
    se_kind: str
    loglik: float
    n: int
    games: int
    n_varying: np.ndarray
    why: dict[int, str]
    converged: bool
    iterations: int

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.diag(self.cov))

    @property
    def k(self) -> int:
        """Parameters fitted."""
        return int(self.free.sum())


def fit_logit(c: Choices, free: np.ndarray | None = None) -> LogitFit:
    """Maximum-likelihood utilities of the features (Newton with a line search); a feature
    whose utility runs off (the choices are separated by it: every decision it varied at
    went its way) is left out and the rest refitted."""
    k = c.x.shape[1]
    why: dict[int, str] = {}
    if free is None:
        free, why = free_features(c)
    free = np.asarray(free, bool).copy()
    start = np.diag(-evaluate(c, np.zeros(k)).hess)
    while True:
        theta, converged, iterations = _newton(c, free)
        ev = evaluate(c, theta)
        # Separated: the likelihood keeps rising as the utility runs off, so the fit stops
        # far out where the feature's information has all but vanished.
        faded = np.diag(-ev.hess) < FADED * np.maximum(start, 1e-300)
        runaway = free & ((np.abs(theta) > SEPARATED) | faded)
        if not runaway.any():
            break
        for j in np.flatnonzero(runaway):
            why[j] = "separates the choices (its utility runs off: too few decisions)"
        free &= ~runaway
        theta[~free] = 0.0
    idx = np.flatnonzero(free)
    cov_model = np.full((k, k), np.nan)
    cov_robust = np.full((k, k), np.nan)
    games = len(np.unique(c.game))
    se_kind = "observed information"
    if len(idx):
        h = -ev.hess[np.ix_(idx, idx)]
        inv = np.linalg.pinv(h)
        cov_model[np.ix_(idx, idx)] = inv
        clusters = np.zeros((c.game.max() + 1 if c.n else 0, len(idx)))
        np.add.at(clusters, c.game, ev.scores[:, idx])
        meat = clusters.T @ clusters * (games / max(games - 1, 1))
        cov_robust[np.ix_(idx, idx)] = inv @ meat @ inv
        if games >= MIN_CLUSTERS:
            se_kind = "clustered by game"
    cov = cov_robust if se_kind == "clustered by game" else cov_model
    return LogitFit(
        features=c.features,
        theta=theta,
        free=free,
        cov=cov,
        cov_model=cov_model,
        cov_robust=cov_robust,
        se_kind=se_kind,
        loglik=ev.loglik,
        n=c.n,
        games=games,
        n_varying=varying(c),
        why=why,
        converged=converged,
        iterations=iterations,
    )


def _newton(c: Choices, free: np.ndarray) -> tuple[np.ndarray, bool, int]:
    """Newton's method on the free utilities from 0; (theta, converged, iterations)."""
    theta = np.zeros(c.x.shape[1])
    idx = np.flatnonzero(free)
    if not len(idx) or c.n == 0:
        return theta, True, 0
    for it in range(1, MAX_ITER + 1):
        ev = evaluate(c, theta)
        g, h = ev.grad[idx], -ev.hess[np.ix_(idx, idx)]
        if not np.isfinite(h).all() or not np.isfinite(g).all():
            return theta, False, it
        ridge, step = 0.0, g
        for _ in range(80):  # a Levenberg ridge where the max makes the surface non-concave
            try:
                step = np.linalg.solve(h + ridge * np.eye(len(idx)), g)
                if g @ step > 0 or not g.any():
                    break
            except np.linalg.LinAlgError:
                pass
            ridge = max(2 * ridge, 1e-8 * max(np.trace(h), 1.0))
        else:
            step = g / max(np.abs(h).max(), 1.0)  # a gradient step: ascent all the same
        decrement = float(g @ step)
        if decrement < 1e-10:
            return theta, True, it
        t = 1.0
        while t > 1e-8:
            trial = theta.copy()
            trial[idx] += t * step
            if loglik(c, trial) >= ev.loglik + 1e-4 * t * decrement:
                break
            t /= 2
        else:
            return theta, True, it  # no ascent left within rounding: at the top
        theta = trial
        if np.abs(theta).max() > 1e4:
            return theta, False, it
    return theta, False, MAX_ITER


def fit_scale(c: Choices, values: np.ndarray) -> tuple[float, float]:
    """One model's best temperature: utilities lambda * values (one value per feature
    row); returns (lambda, its log-likelihood). A policy whose value ordering never
    matches gets lambda <= 0."""
    one = c.with_x(values[:, None], ("value",))
    mask = np.array([varying(one)[0] > 0])
    if not mask[0]:
        return 0.0, loglik(one, np.zeros(1))
    theta, _, _ = _newton(one, mask)
    return float(theta[0]), loglik(one, theta)


# ---------------------------------------------------------------- per decision


def decision_scores(c: Choices, row_u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per decision, for utilities `row_u` (one per feature row): the log-probability of the
    chosen alternative, and top-1 match (1 / ties if the chosen one is among the model's
    best, else 0: a policy breaks ties at random)."""
    u, _ = alternative_utilities(c, row_u)
    p, lognorm = probabilities(c, u)
    logp = u[c.chosen] - lognorm
    top = np.maximum.reduceat(u, c.alt_starts())
    tol = 1e-9 * np.maximum(1.0, np.abs(top))
    best = u >= (top - tol)[c.alt_dec]
    ties = np.add.reduceat(best * c.count, c.alt_starts())
    hit = np.where(best[c.chosen], 1.0 / ties, 0.0)
    return logp, hit


def players_differ(pooled: LogitFit, each: list[LogitFit]) -> dict:
    """Likelihood-ratio test that every player has the same utilities: 2 (sum of the
    players' log-likelihoods - the pooled one), chi-squared with the extra parameters."""
    from scipy.stats import chi2

    lr = 2.0 * (sum(f.loglik for f in each) - pooled.loglik)
    df = sum(f.k for f in each) - pooled.k
    p = float(chi2.sf(max(lr, 0.0), df)) if df > 0 else float("nan")
    return {"lr": float(lr), "df": int(df), "p": p, "players": len(each)}
