"""Anytime-valid confidence sequences: look after every chunk, stop when the answer is known.

A fixed-n 95% interval is valid once, at the n planned. Looked at after every chunk
and acted on when it first excludes 0, it flags a true null far more often than 5%
(about 30% after 30 looks). A confidence sequence holds at every n at once: the chance
that it ever excludes the truth, however often it is looked at and whenever the looking
stops, is at most alpha. So a run may stop as soon as every question it asks is
decided, and the interval at the stop is still honest.

Two constructions, both computed from sums that merge chunk by chunk (n, mean and
the centred square sum of a column, `sim.analysis.intervals.Summary`):

* **Values with a known range [a, b]** (shares in [0, 1], a share's paired difference
  in [−1, 1], a count with a caller's bound): an exact mixture of nonnegative
  supermartingales. For a candidate mean μ, ξ = (x − μ)/(μ − a) is at least −1, and
  exp(λξ − ψ(λ)ξ²) with ψ(λ) = −log(1 − λ) − λ has expectation at most 1 for every
  λ in [0, 1) (Fan, Grama and Liu 2015; the sub-exponential case of Howard, Ramdas,
  McAuliffe and Sekhon 2020, 2021). The product over games is a function of
  n(x̄ − μ) and Σ(x − μ)² = m2 + n(x̄ − μ)² alone; mixed over a log-uniform grid of λ
  (BETS) and averaged with the mirror image for "mean below μ", it is an e-process,
  and by Ville's inequality μ is rejected at any look with chance at most alpha when
  it is the true mean. The set of μ not rejected is the confidence sequence. It adapts
  to the variance (near-constant values get a short interval), never leaves [a, b],
  and needs no asymptotics.
* **Anything else** (a count without an upper bound, a ratio of means): the
  asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas
  (2024), the estimate ± sd·sqrt(2(nρ²+1)/(n²ρ²)·log(sqrt(nρ²+1)/(α/2))) with the
  per-game sd (a plain mean's, or the delta method's for a function of means, or the
  paired bootstrap's for a difference), tuned by ρ for a planned number of games, and
  never narrower than the fixed-n interval at the edges (`mean_bounds`).

Each question of a study (`Question`: a target met or missed, a metric or a paired
difference real or negligible, the seat verdict) gets its own sequence at its share
of alpha: the families split alpha as the fixed-n verdicts do (`family_levels`), and
within a family Bonferroni splits it over the questions. The running intersection of
a sequence's intervals is kept (`Monitor`): still valid, never widening. `Monitor.add`
takes chunks in any order but looks only at the contiguous prefix of game indices: a
chunk of long games finishes later, so looking at whatever finished first would favour
short games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from sim import units
from sim.analysis.differences import DIRECT, difference_range
from sim.analysis.intervals import Summary, mean_bounds, z_of
from sim.analysis.moments import Moments, delta_se, evaluate
from sim.analysis.paired import Streamed, draws_of
from sim.metrics import Metric, metric

ALPHA = 0.05
# The mixture's λ, log-uniform so that no number of games is favoured: 90% of the weight on
# 1e-5 .. 0.98 (where a decision at a few hundred to a billion games lives), 10% on
# 1e-14 .. 1e-5 (candidates next to a bound of the range, far from any data)
BETS = np.r_[np.geomspace(1e-14, 1e-5, 80, endpoint=False), np.geomspace(1e-5, 0.98, 240)]
_PSI = -np.log1p(-BETS) - BETS
_LOG_W = np.r_[np.full(80, math.log(0.1 / 80)), np.full(240, math.log(0.9 / 240))]
T_OPT = 10_000  # games at which the asymptotic sequence is tightest
_GRID = np.geomspace(1e-12, 1.0 - 1e-12, 160)  # candidate distances, as shares of the range
_STEPS = np.linspace(0.0, 1.0, 33)[1:]  # ... of a running interval (its end is near the last)
MAX_GAMES = 10**9  # forecasts beyond this say "not in any practical run"


# ---------------------------------------------------------------- one sequence


def log_e(s: Summary, mu, bounds: tuple[float, float]) -> np.ndarray:
    """log of the two-sided mixture e-value against mean `mu` (array) of values in `bounds`
    after the games summed in `s` (see the module's docstring)."""
    return log_e_sums(s.n, s.mean, s.m2, mu, bounds)


def log_e_sums(n, mean, m2, mu, bounds: tuple[float, float]) -> np.ndarray:
    """`log_e` from arrays of sums (n, mean, m2 and mu broadcast together: many sequences at
    once, as a calibration check needs)."""
    a, b = bounds
    n, mean, m2, mu = np.broadcast_arrays(*(np.asarray(x, float) for x in (n, mean, m2, mu)))
    shape = mu.shape
    n, mean, m2, mu = (x.reshape(-1) for x in (n, mean, m2, mu))
    u = mean - mu
    q = np.maximum(m2, 0.0) + n * u * u
    c1, c2 = mu - a, b - mu
    with np.errstate(divide="ignore", invalid="ignore"):
        up = (n * u / c1)[:, None] * BETS - (q / (c1 * c1))[:, None] * _PSI
        down = (-n * u / c2)[:, None] * BETS - (q / (c2 * c2))[:, None] * _PSI
    both = np.logaddexp(_logsumexp(up + _LOG_W), _logsumexp(down + _LOG_W)) - math.log(2)
    return both.reshape(shape) if shape else both


def _logsumexp(x: np.ndarray) -> np.ndarray:
    """log Σ exp over the last axis (NaN terms, from 0/0 at a bound, count as 0)."""
    x = np.where(np.isnan(x), -np.inf, x)
    top = x.max(axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(x - safe[:, None]).sum(axis=1))


def bounded_cs(
    s: Summary, bounds: tuple[float, float], alpha: float, window: tuple[float, float] | None = None
) -> tuple[float, float]:
    """The exact confidence sequence's interval after the games of `s`, values in `bounds`:
    the means not rejected at level alpha around the estimate (a grid from the estimate
    outwards, then finer grids at the first change; each end is the first rejected
    candidate, so the interval holds every mean not rejected between them). The set is
    an interval but for a sliver within about 1e-14 of a bound, which the smallest bet
    (BETS) cannot reach and which is left out. With `window` (a monitor's running
    interval), only the part inside it: both window ends are checked first (one
    evaluation; an end not rejected is kept), a rejected one searched for between the
    estimate and it."""
    a, b = bounds
    if s.n == 0 or not math.isfinite(s.mean):
        return a, b
    if s.lo < a - 1e-12 or s.hi > b + 1e-12:
        raise ValueError(
            f"values in [{s.lo:g}, {s.hi:g}] lie outside the declared range [{a:g}, {b:g}]"
        )
    limit = math.log(1 / alpha)
    mean = min(max(s.mean, a), b)
    edges, grid, rounds = [a, b], _GRID, 4
    if window is not None:
        w_lo, w_hi = max(a, window[0]), min(b, window[1])
        if w_lo <= mean <= w_hi:  # else the estimate left it: search the whole range
            edges, grid, rounds = [w_lo, w_hi], _STEPS, 2  # the new end is near the last
            out = log_e(s, np.array(edges), bounds) >= limit
            edges = [e if r else None for e, r in zip(edges, out, strict=True)]
            if edges == [None, None]:
                return w_lo, w_hi
    from sim.analysis.cs_kernel import first_rejected  # compiled: imported where it is used

    def first(mus: np.ndarray) -> int:
        return int(first_rejected(s.n, s.mean, s.m2, mus, a, b, limit, BETS, _PSI, _LOG_W))

    ends = []
    for edge, sign in zip(edges, (-1.0, 1.0), strict=True):
        if edge is None:  # the window's end, not rejected: the hull reaches past it
            ends.append((w_lo, w_hi)[sign > 0])
            continue
        room = abs(edge - mean)
        if room <= 0:
            ends.append(mean)
            continue
        mus = mean + sign * room * grid
        k = first(mus)  # the first candidate rejected, from the estimate outwards
        if k < 0:
            ends.append(edge)
            continue
        inside, outside = (mean if k == 0 else mus[k - 1]), mus[k]
        for _ in range(rounds):  # finer grids between the two: 1/65 of the step each
            finer = np.linspace(inside, outside, 66)[1:-1]
            k = first(finer)
            if k >= 0:
                inside, outside = (inside if k == 0 else finer[k - 1]), finer[k]
            else:
                inside = finer[-1]
        ends.append(outside)
    return min(ends[0], mean), max(ends[1], mean)


def rejected(s: Summary, mus, bounds: tuple[float, float], alpha: float) -> np.ndarray:
    """Is each candidate mean in `mus` left out of the exact sequence after the games of `s`?
    (What a decision needs: a few evaluations instead of the interval's search.)"""
    return log_e(s, np.asarray(mus, float), bounds) >= math.log(1 / alpha)


def asymptotic_margin(sd: float, n: int, alpha: float, t_opt: int = T_OPT) -> float:
    """Half-width of the two-sided asymptotic confidence sequence at n games (Waudby-Smith
    et al. 2024, the normal mixture with α/2 a side, ρ tuned for t_opt games)."""
    if n < 2 or not math.isfinite(sd):
        return math.inf
    a = alpha / 2
    rho2 = (2 * math.log(1 / a) + math.log(1 + 2 * math.log(1 / a))) / t_opt
    spread = n * rho2 + 1
    return sd * math.sqrt(2 * spread / (n * n * rho2) * math.log(math.sqrt(spread) / a))


# ---------------------------------------------------------------- questions and answers


@dataclass(frozen=True)
class Question:
    """One thing a study asks. `kind`: "target" (the metric at `point` inside `band`: met;
    wholly outside: missed), "value" (the metric at `point` against `null`: real when the
    sequence leaves it out, negligible when it lies within null ± `margin`), or
    "difference" (the metric at `point` minus at point 0, game by game, against `null`).
    `family` names the share of alpha it draws on; `bounds` the range one game's value of
    a plain mean can take, when tighter than the registry's (a count's largest turns);
    `slack` (a target measured with a fitted yardstick, the feel: z times the yardstick's own
    noise) narrows the band a "met" needs and widens the one a "missed" needs, so a run
    stops only where its final interval, which adds that noise, agrees."""

    name: str
    metric: str
    kind: str = "value"
    band: tuple[float, float] | None = None
    null: float = 0.0
    margin: float | None = None
    point: int | None = None  # default: 1 for a difference (B − A), else 0
    family: str = "questions"
    bounds: tuple[float, float] | None = None
    slack: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in ("target", "value", "difference"):
            raise ValueError(f"question {self.name}: kind {self.kind!r} is not known")
        if self.kind == "target" and self.band is None:
            raise ValueError(f"question {self.name}: a target needs its band")
        if self.point is None:
            object.__setattr__(self, "point", 1 if self.kind == "difference" else 0)


@dataclass(frozen=True)
class Answer:
    """A question's state after a look: estimate, the sequence's interval (running
    intersection), its level, the decision (None: not yet) and how it was computed."""

    question: Question
    games: int
    value: float
    lo: float
    hi: float
    level: float
    decision: str | None
    method: str
    more_games: int | None = None  # forecast: about how many more games to a decision


def decide(q: Question, lo: float, hi: float) -> str | None:
    """The decision an interval gives a question, or None while it is undecided."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    if q.kind == "target":
        b_lo, b_hi = q.band
        if b_lo + q.slack <= lo and hi <= b_hi - q.slack:
            return "met"
        if hi < b_lo - q.slack or lo > b_hi + q.slack:
            return "missed"
        return None
    if lo > q.null:
        return "real: higher"
    if hi < q.null:
        return "real: lower"
    if q.margin is not None and q.null - q.margin <= lo and hi <= q.null + q.margin:
        return "negligible"
    return None


def target_question(
    name: str, band: tuple[float, float], point: int = 0, slack: float = 0.0
) -> Question:
    """A target of the study (`sim.metrics.target_band` gives its band; `slack`: see
    `Question`)."""
    return Question(
        f"{name} target", name, "target", band=band, point=point, family="targets", slack=slack
    )


def seat_question(margin: float | None = None) -> Question:
    """The seat verdict: seat 0's first-player advantage against 0, fair within `margin`
    (the registry's target margin, 1 pp, by default)."""
    m = metric("first_player_advantage")
    return Question(
        "first-player advantage", m.name, "value", margin=margin or m.within, family="seats"
    )


def family_levels(questions: Iterable[Question], alpha: float = ALPHA) -> dict[str, float]:
    """Each question's level: its family's share of alpha, split by Bonferroni over the
    family's questions. A "primary" family gets all of alpha, like the fixed-n primary
    metric; the others split it as the fixed-n verdicts do when a run asks several things
    (the headline half, the rest shared), here simply in equal parts."""
    qs = list(questions)
    families = list(dict.fromkeys(q.family for q in qs))
    others = [f for f in families if f != "primary"]
    share = {f: alpha / max(1, len(others)) for f in others}
    share["primary"] = alpha
    size = {f: sum(q.family == f for q in qs) for f in families}
    return {q.name: share[q.family] / size[q.family] for q in qs}


# ---------------------------------------------------------------- reading a state


def _plain(m: Metric) -> bool:
    return m.interval in DIRECT


def _bounds_of(q: Question, m: Metric) -> tuple[float, float]:
    if q.bounds is not None:
        lo, hi = q.bounds
        return (lo - hi, hi - lo) if q.kind == "difference" else (lo, hi)
    return difference_range(m) if q.kind == "difference" else m.value_range


def _interval(q: Question, s: Summary, value: float, alpha: float, window=None) -> tuple:
    """(lo, hi, method) of a plain mean's sequence from its summary, shifted to `value`
    (`window`: the running interval, in the metric's units, that the result is cut to)."""
    m = metric(q.metric)
    bounds = _bounds_of(q, m)
    shift = value - s.mean
    if all(math.isfinite(x) for x in bounds):
        inside = None if window is None else (window[0] - shift, window[1] - shift)
        lo, hi = bounded_cs(s, bounds, alpha, inside)
        return lo + shift, hi + shift, "anytime-valid (bounded mixture)"
    sd = math.sqrt(max(s.m2, 0.0) / (s.n - 1)) if s.n > 1 else math.nan
    half = asymptotic_margin(sd, s.n, alpha)
    f_lo, f_hi = mean_bounds(s, bounds, z_of(1 - alpha))  # never narrower at the edges
    lo, hi = min(s.mean - half, f_lo), max(s.mean + half, f_hi)
    return lo + shift, hi + shift, "anytime-valid (asymptotic)"


def _look(q: Question, state, alpha: float, window=None) -> tuple:
    """(value, lo, hi, method, summary) of one question on a merged state (a run's
    `Moments`, or a comparison's or sweep's `Streamed`); `window` as for `_interval`."""
    m = metric(q.metric)
    if isinstance(state, Moments):
        if q.kind == "difference":
            raise ValueError(f"question {q.name}: a difference needs a comparison's sums")
        value = float(evaluate(state, [m])[0, 0])
        if _plain(m):
            s = state.summary(m.columns[0])
            return (value, *_interval(q, s, value, alpha, window), s)
        sd = delta_se(state, m, value) * math.sqrt(state.n)
        half = asymptotic_margin(sd, state.n, alpha)
        return value, value - half, value + half, "anytime-valid (asymptotic, delta method)", None
    points = [0, q.point] if q.kind == "difference" else [q.point]
    point, draws = draws_of([state.paired[p] for p in points], [m])
    value = float(point[-1, 0] - point[0, 0]) if q.kind == "difference" else float(point[0, 0])
    if _plain(m) and state.sums is not None:
        sums = state.differences if q.kind == "difference" else state.sums
        s = sums[q.point].summary(m.columns[0])
        if s is not None:
            return (value, *_interval(q, s, value, alpha, window), s)
    spread = draws[-1, :, 0] - (draws[0, :, 0] if q.kind == "difference" else 0.0)
    with np.errstate(invalid="ignore"):
        sd = float(np.nanstd(spread, ddof=1)) * math.sqrt(state.games)
    half = asymptotic_margin(sd, state.games, alpha)
    return value, value - half, value + half, "anytime-valid (asymptotic, bootstrap sd)", None


def _decision_at(q: Question, s: Summary, value: float, alpha: float) -> str | None:
    """The decision the sequence (not its running intersection) gives after the games of
    `s`: for the exact sequence from a few point evaluations (its acceptance set is an
    interval holding the estimate, so an end lies past a threshold exactly when the
    threshold is rejected on that side), else from the closed-form interval."""
    m = metric(q.metric)
    bounds = _bounds_of(q, m)
    if not all(math.isfinite(x) for x in bounds):
        lo, hi, _ = _interval(q, s, value, alpha)
        return decide(q, lo, hi)
    a, b = bounds
    shift = value - s.mean
    marks = list(q.band) if q.kind == "target" else [q.null]
    if q.kind != "target" and q.margin is not None:
        marks += [q.null - q.margin, q.null + q.margin]
    cols = [x - shift for x in marks]  # in the column's units
    out = dict(
        zip(marks, rejected(s, [min(max(c, a), b) for c in cols], bounds, alpha), strict=True)
    )

    def lo_past(x: float, strict: bool = False) -> bool:  # lo > x (or >= x, not strict)
        c = x - shift
        return (c < a or (not strict and c <= a)) or (bool(out[x]) and a < c < s.mean)

    def hi_below(x: float, strict: bool = False) -> bool:  # hi < x (or <= x)
        c = x - shift
        return (c > b or (not strict and c >= b)) or (bool(out[x]) and s.mean < c < b)

    if q.kind == "target":
        b_lo, b_hi = q.band
        if lo_past(b_lo) and hi_below(b_hi):
            return "met"
        return "missed" if hi_below(b_lo, True) or lo_past(b_hi, True) else None
    if lo_past(q.null, True):
        return "real: higher"
    if hi_below(q.null, True):
        return "real: lower"
    if q.margin is not None and lo_past(q.null - q.margin) and hi_below(q.null + q.margin):
        return "negligible"
    return None


def more_games(q: Question, s: Summary | None, value: float, alpha: float) -> int | None:
    """About how many more games until the question is decided, if the estimate and the
    per-game spread stay as they are (None: not within MAX_GAMES, or not a plain mean)."""
    if s is None or s.n < 2:
        return None

    def decided(n: int) -> bool:
        grown = replace(s, n=n, m2=s.m2 * n / s.n, m4=math.nan)
        return _decision_at(q, grown, value, alpha) is not None

    if decided(s.n):
        return 0
    hi = s.n
    while not decided(hi):
        hi *= 2
        if hi > MAX_GAMES:
            return None
    lo = hi // 2
    while hi - lo > max(1, lo // 50):  # 2% is as precise as a forecast can be
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decided(mid) else (mid, hi)
    return hi - s.n


# ---------------------------------------------------------------- monitoring a study


@dataclass
class Monitor:
    """The questions of a study, answered after every look. `add(first, games, part)` takes
    a chunk's sums (a run's `Moments`, or a comparison's or sweep's `Streamed.of` of the
    chunk's per-point game values); the state advances over the contiguous prefix of game
    indices only, a look after each chunk, until `stopped`. `answers` hold the latest look;
    `decided` is True once every question is; `forecast` adds each undecided question's
    games to a decision."""

    questions: list[Question]
    alpha: float = ALPHA
    first_game: int = 0
    min_games: int = 0  # looks go on to at least this many games (a resumed run's own)
    state: Moments | Streamed | None = None
    games: int = 0
    answers: list[Answer] = field(default_factory=list)
    _pending: dict[int, tuple[int, object]] = field(default_factory=dict)
    _running: dict[str, tuple[float, float]] = field(default_factory=dict)
    _summaries: dict[str, Summary | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.levels = family_levels(self.questions, self.alpha)
        self._next = self.first_game

    def add(self, first: int, games: int, part) -> bool:
        """Take one chunk (games first .. first + games − 1) and look after each chunk the
        contiguous prefix grows by, in game-index order, until every question is decided:
        the looks, and so the stop, are the same whatever order the chunks come in.
        Returns whether a look happened."""
        self._pending[first] = (games, part)
        looked = False
        while self._next in self._pending and not self.stopped:
            n, p = self._pending.pop(self._next)
            self.state = p if self.state is None else self.state.merge(p)
            self._next += n
            self.games += n
            self.look()
            looked = True
        return looked

    def look(self) -> list[Answer]:
        """Answer every question on the state so far (running intersections kept)."""
        out = []
        for q in self.questions:
            level = self.levels[q.name]
            window = self._running.get(q.name)
            value, lo, hi, method, s = _look(q, self.state, level, window)
            old_lo, old_hi = window or (-math.inf, math.inf)
            lo, hi = max(lo, old_lo), min(hi, old_hi)
            if lo > hi:  # the sequence has ruled out everything: keep the last interval
                lo, hi = old_lo, old_hi
            self._running[q.name] = (lo, hi)
            self._summaries[q.name] = s
            out.append(Answer(q, self.games, value, lo, hi, level, decide(q, lo, hi), method))
        self.answers = out
        return out

    @property
    def decided(self) -> bool:
        """Is every question answered?"""
        return bool(self.answers) and all(a.decision is not None for a in self.answers)

    @property
    def stopped(self) -> bool:
        """Decided, with at least `min_games` games: no further chunk is taken in."""
        return self.decided and self.games >= self.min_games

    def forecast(self) -> list[Answer]:
        """The latest answers with `more_games` filled in for the undecided ones."""
        return [
            a
            if a.decision is not None
            else replace(
                a,
                more_games=more_games(
                    a.question, self._summaries[a.question.name], a.value, a.level
                ),
            )
            for a in self.answers
        ]

    def reason(self) -> str:
        """Why the monitoring stands where it does, in one sentence."""
        if self.decided:
            return f"every question decided after {self.games:,} games"
        open_ = [a.question.name for a in self.answers if a.decision is None]
        return f"{len(open_)} of {len(self.answers)} questions open after {self.games:,} games"


def describe(answer: Answer) -> str:
    """'first-player advantage: +3.4 pp [+1.1, +5.8], decided: real: higher' or
    '... about 6,000 more games to decide' (for a progress line)."""
    m = metric(answer.question.metric)
    diff = answer.question.kind == "difference" or m.fair == 0.0
    shown = units.interval(answer.value, answer.lo, answer.hi, m.unit, diff=diff)
    text = f"{answer.question.name}: {shown}"
    if answer.decision is not None:
        return f"{text}, decided: {answer.decision}"
    if answer.more_games is None:
        return f"{text}, undecided"
    step = 10 ** max(0, len(str(answer.more_games)) - 2)  # two significant figures
    return f"{text}, about {round(answer.more_games / step) * step:,} more games to decide"
