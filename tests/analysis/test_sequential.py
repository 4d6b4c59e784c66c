"""Anytime-valid confidence sequences (sim.analysis.sequential): looked at after every chunk
under a true null they flag at most alpha of the time (fixed-n intervals, looked at the same
way, far more), they cover at the stop, and a monitor decides a study's questions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from sim.analysis.intervals import Summary, wilson_bounds
from sim.analysis.moments import Moments
from sim.analysis.paired import Streamed
from sim.analysis.sequential import (
    BETS,
    Monitor,
    Question,
    asymptotic_margin,
    bounded_cs,
    decide,
    describe,
    family_levels,
    log_e,
    log_e_sums,
    seat_question,
    target_question,
)

CHUNK, LOOKS = 100, 200  # every 100 games up to 20,000


def _running(x: np.ndarray):
    """Cumulative (n, mean, m2) after each chunk of the rows of x (reps x games)."""
    n = np.arange(CHUNK, x.shape[1] + 1, CHUNK)
    s1 = np.cumsum(x, axis=1)[:, n - 1]
    s2 = np.cumsum(x * x, axis=1)[:, n - 1]
    mean = s1 / n
    return n, mean, np.maximum(s2 - n * mean * mean, 0.0)


def _ever_rejected(x: np.ndarray, truth: float, bounds, alpha: float) -> np.ndarray:
    """Per replication: did the sequence ever leave out the truth at any of the looks?"""
    n, mean, m2 = _running(x)
    return (log_e_sums(n[None, :], mean, m2, truth, bounds) >= math.log(1 / alpha)).any(axis=1)


def test_the_supermartingale_inequality_holds():
    """exp(λξ − ψ(λ)ξ²) ≤ 1 + λξ for ξ ≥ −1 and λ in [0, 1) (Fan, Grama and Liu 2015): what
    makes each game's factor have expectation at most 1 under the candidate mean."""
    xi = np.r_[np.linspace(-1, 3, 4001), np.geomspace(3, 1e6, 200)][:, None]
    lam = BETS[None, :]
    psi = -np.log1p(-lam) - lam
    assert (np.exp(lam * xi - psi * xi * xi) <= 1 + lam * xi + 1e-12).all()


def test_the_compiled_search_finds_the_set_of_means_not_rejected():
    """bounded_cs bisects in compiled code (rejection is monotone from the estimate outwards):
    on shares, ties, constants and paired differences of any size, every mean on a dense grid
    inside its interval is not rejected and every one outside is (but for the sliver at a
    bound that the smallest bet cannot reach)."""
    rng = np.random.default_rng(7)
    for t in range(24):
        n, p = int(rng.integers(1, 20_000)), rng.uniform() ** rng.choice([1, 4])
        x = [
            (rng.uniform(size=n) < p).astype(float),
            np.where(rng.uniform(size=n) < p, rng.choice([1.0, 0.5, 1 / 3], size=n), 0.0),
            np.full(n, float(p < 0.5)),
        ][t % 3]
        bounds = (0.0, 1.0)
        if t % 4 == 0:
            x, bounds = x - (rng.uniform(size=n) < p), (-1.0, 1.0)
        s, alpha = Summary.of(x), (0.05, 0.05 / 12)[t % 2]
        lo, hi = bounded_cs(s, bounds, alpha)
        mus = np.linspace(bounds[0] + 1e-9, bounds[1] - 1e-9, 2_001)
        out = log_e(s, mus, bounds) >= math.log(1 / alpha)
        tol = 1e-9 + 1e-6 * (hi - lo)  # the search's last step
        assert not out[(mus > lo + tol) & (mus < hi - tol)].any()
        assert out[(mus < lo - tol) | (mus > hi + tol)].all()


def test_by_hand_and_at_the_edges():
    s = Summary.of(np.r_[np.ones(300), np.zeros(700)])
    assert log_e(s, [0.3], (0, 1))[0] < 0  # at the estimate there is no evidence at all
    lo, hi = bounded_cs(s, (0, 1), 0.05)
    w_lo, w_hi = wilson_bounds(300, 1000)
    assert lo < w_lo < 0.3 < w_hi < hi  # wider than the fixed-n interval, as it must be
    assert (hi - lo) / (w_hi - w_lo) < 2.3
    # never zero width, never outside the range: no event in 1,500 games
    lo, hi = bounded_cs(Summary.of(np.zeros(1500)), (0, 1), 0.05)
    assert lo == 0 and 0.0026 < hi < 0.01
    lo, hi = bounded_cs(Summary.of(np.zeros(1500)), (-1, 1), 0.05)  # a paired difference
    assert lo == pytest.approx(-hi) and 0 < hi < 0.01
    with pytest.raises(ValueError, match="outside the declared range"):
        bounded_cs(Summary.of([0.0, 2.0]), (0, 1), 0.05)
    # the asymptotic sequence is wider than z·sd/√n and shrinks like √(log n / n)
    assert asymptotic_margin(1.0, 3000, 0.05) > 1.96 / math.sqrt(3000)
    assert asymptotic_margin(1.0, 4 * 10**6, 0.05) < asymptotic_margin(1.0, 10**6, 0.05) / 1.8


@pytest.mark.parametrize(
    "reps", [100, pytest.param(1000, marks=pytest.mark.slow)], ids=["100", "1000"]
)
def test_monitored_after_every_chunk_a_null_flags_at_most_alpha(reps):
    """Streams of 20,000 games looked at after every 100: shares of 0/1 outcomes, shares
    with ties, a rare event, and paired differences with a shared game effect."""
    rng = np.random.default_rng(1)
    games = CHUNK * LOOKS
    cases = {
        "share 0.3": ((rng.random((reps, games)) < 0.3) * 1.0, 0.3, (0, 1)),
        "ties": (rng.choice([0.0, 0.5, 1.0], (reps, games), p=[0.6, 0.1, 0.3]), 0.35, (0, 1)),
        "rare 0.002": ((rng.random((reps, games)) < 0.002) * 1.0, 0.002, (0, 1)),
    }
    p = rng.beta(2, 5, (reps, games))  # a game's own chance, shared by A and B
    a, b = (rng.random((reps, games)) < p) * 1.0, (rng.random((reps, games)) < p) * 1.0
    cases["paired difference"] = (b - a, 0.0, (-1, 1))
    rates = {}
    for name, (x, truth, bounds) in cases.items():
        rates[name] = float(_ever_rejected(x, truth, bounds, 0.05).mean())
    # the fixed-n 95% Wilson interval looked at in the same way
    x, truth, _ = cases["share 0.3"]
    n, mean, _ = _running(x)
    fixed = np.zeros(reps, bool)
    for j, k in enumerate(n):
        lo, hi = np.array([wilson_bounds(m * k, int(k)) for m in mean[:, j]]).T
        fixed |= (truth < lo) | (truth > hi)
    print(f"\n{reps} streams, ever flagged a true null in 200 looks: {rates};"
          f" fixed-n Wilson: {fixed.mean():.0%}")  # fmt: skip
    assert all(r <= 0.05 for r in rates.values()) and fixed.mean() > 0.2


@pytest.mark.parametrize(
    "reps", [100, pytest.param(1000, marks=pytest.mark.slow)], ids=["100", "1000"]
)
def test_a_family_split_by_bonferroni_keeps_the_familywise_rate(reps):
    rng = np.random.default_rng(2)
    k = 5
    levels = family_levels([Question(f"q{i}", "shared_wins", family="f") for i in range(k)])
    assert set(levels.values()) == {0.05 / k}
    any_flag = np.zeros(reps, bool)
    for _ in range(k):
        x = (rng.random((reps, CHUNK * LOOKS)) < 0.2) * 1.0
        any_flag |= _ever_rejected(x, 0.2, (0, 1), 0.05 / k)
    print(f"\na family of {k} nulls, each at 1%: any flagged in {any_flag.mean():.1%} of {reps}")
    assert any_flag.mean() <= 0.05


# ---------------------------------------------------------------- a monitor of a study


def _seat_chunk(rng, first: int, games: int, edge: float) -> Moments:
    """Game values of a two-seat chunk where seat 0 wins 1/2 + edge of the games."""
    win = (rng.random(games) < 0.5 + edge) * 1.0
    values = pd.DataFrame({"seat0": win, "seat1": 1 - win, "n_players": 2.0},
                          index=pd.RangeIndex(first, first + games, name="game"))  # fmt: skip
    return Moments.of(values)


@pytest.mark.parametrize("reps", [20, pytest.param(200, marks=pytest.mark.slow)], ids=["20", "200"])
def test_a_monitor_stops_when_decided_and_covers_at_the_stop(reps):
    """A real first-player edge of 3 pp: monitored every 1,000 games, the seat question is
    decided ('real: higher') at a median of a few thousand games, and the interval at the
    stop covers the truth; a fair game is never called real."""
    stops, covered, calls = [], 0, []
    for rep in range(reps + reps // 2):
        rng = np.random.default_rng(100 + rep)
        edge = 0.03 if rep < reps else 0.0
        mon = Monitor([seat_question()], alpha=0.05)
        first = 0
        while not mon.decided and first < 50_000:
            mon.add(first, 1000, _seat_chunk(rng, first, 1000, edge))
            first += 1000
        a = mon.answers[0]
        if rep < reps:
            stops.append(mon.games)
            covered += a.lo <= edge <= a.hi
        calls.append(a.decision)
    real, null = calls[:reps], calls[reps:]
    print(f"\n3 pp edge, {reps} runs: decided 'real: higher' in {real.count('real: higher')},"
          f" at a median of {np.median(stops):,.0f} games; covered at the stop {covered};"
          f" fair game, {len(null)} runs: {null.count('negligible')} negligible,"
          f" {sum(1 for c in null if c and c.startswith('real'))} real")  # fmt: skip
    assert real.count("real: higher") >= 0.85 * reps and covered >= 0.95 * reps
    assert not any(c and c.startswith("real") for c in null)


def test_chunks_out_of_order_wait_for_the_ones_before_them():
    """The monitor looks after every chunk of the contiguous prefix, in game-index order, and
    stops looking once decided: the stop and its interval do not depend on the order the
    chunks finished in (a pool of any size)."""
    rng = np.random.default_rng(3)
    parts = [(f, _seat_chunk(rng, f, 500, 0.05)) for f in range(0, 5000, 500)]
    in_order = Monitor([seat_question()])
    for f, p in parts:
        in_order.add(f, 500, p)
    assert in_order.decided and in_order.games < 5000  # later chunks are not taken in
    shuffled = Monitor([seat_question()])
    looks = [shuffled.add(f, 500, p) for f, p in reversed(parts[1:])]
    assert not any(looks) and shuffled.games == 0  # nothing seen until game 0's chunk
    assert shuffled.add(*parts[0][:1], 500, parts[0][1])
    got, want = shuffled.answers[0], in_order.answers[0]
    assert shuffled.games == in_order.games and got.decision == want.decision
    assert (got.value, got.lo, got.hi) == (want.value, want.lo, want.hi)


def test_targets_and_paired_differences_and_forecasts():
    rng = np.random.default_rng(4)
    q_turns = target_question("shared_wins", (0.15, 0.25))
    q_diff = Question("ties, B − A", "shared_wins", "difference", margin=0.01)
    mon = Monitor([q_turns, q_diff])
    for first in range(0, 20_000, 2000):
        a = (rng.random(2000) < 0.2) * 1.0
        b = np.where(rng.random(2000) < 0.9, a, (rng.random(2000) < 0.2) * 1.0)
        idx = pd.RangeIndex(first, first + 2000, name="game")
        part = Streamed.of([pd.DataFrame({"tie": a}, index=idx),
                            pd.DataFrame({"tie": b}, index=idx)], 50, 0, False)  # fmt: skip
        mon.add(first, 2000, part)
    target, diff = mon.answers
    assert target.decision == "met" and target.method.endswith("(bounded mixture)")
    assert diff.lo < 0 < diff.hi and diff.method.endswith("(bounded mixture)")
    forecast = mon.forecast()
    assert forecast[0].more_games is None or forecast[0].more_games == 0
    if diff.decision is None:
        assert forecast[1].more_games is None or forecast[1].more_games > 0
    text = describe(forecast[0])
    assert text.startswith("shared_wins target: ") and "decided: met" in text
    assert decide(q_diff, -0.004, 0.006) == "negligible"
    assert decide(q_diff, 0.001, 0.02) == "real: higher"
    assert mon.reason().startswith(("every question decided", "1 of 2 questions open"))


def test_a_decision_from_point_checks_is_the_interval_s():
    """The forecasts decide from a few evaluations at the thresholds, the looks from the
    interval: on the exact sequence both give the same answer (its acceptance set is an
    interval holding the estimate)."""
    from sim.analysis.sequential import _decision_at, _interval

    rng = np.random.default_rng(7)
    qs = [seat_question(), target_question("shared_wins", (0.15, 0.25)),
          Question("ties, B − A", "shared_wins", "difference", margin=0.01)]  # fmt: skip
    seen = set()
    for _ in range(300):
        q = qs[rng.integers(len(qs))]
        n = int(rng.integers(50, 40_000))
        p = rng.uniform(0.0, 0.4)
        x = (rng.random(n) < p) * 1.0
        if q.kind == "difference":
            x = x - (rng.random(n) < p + rng.normal(0, 0.01))
        s = Summary.of(x)
        value = s.mean + (-0.5 if q.metric == "first_player_advantage" else 0.0)
        lo, hi, _ = _interval(q, s, value, 0.05)
        got = _decision_at(q, s, value, 0.05)
        assert got == decide(q, lo, hi), (q.name, n, p, lo, hi)
        seen.add(got)
    assert {None, "met", "missed", "real: higher", "negligible"} <= seen


def test_a_feel_targets_slack_makes_the_stop_agree_with_the_final_verdict():
    """A target measured with a fitted yardstick (the feel) is met at a stop only inside the
    band narrowed by the slack, and missed only outside it widened: then the final interval,
    which adds the yardstick's noise in quadrature, gives the same verdict."""
    plain = Question("suspense target", "suspense", "target", band=(2.0, 3.0))
    felt = Question("suspense target", "suspense", "target", band=(2.0, 3.0), slack=0.1)
    assert decide(plain, 2.05, 2.95) == "met" and decide(felt, 2.05, 2.95) is None
    assert decide(felt, 2.15, 2.85) == "met"
    assert decide(plain, 3.05, 3.2) == "missed" and decide(felt, 3.05, 3.2) is None
    assert decide(felt, 3.15, 3.3) == "missed"
    # the final interval: half-width and the slack in quadrature, inside whenever the stop was
    for lo, hi in ((2.15, 2.85), (2.4, 2.6)):
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        wide = (mid - (half**2 + 0.1**2) ** 0.5, mid + (half**2 + 0.1**2) ** 0.5)
        assert decide(plain, *wide) == "met"
