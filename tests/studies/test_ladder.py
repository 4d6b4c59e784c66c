"""`sim ladder` and `sim luck`: matches, one rating model, depth; replayed deals and the ICC."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from cli_helpers import sim_cli

from sim.analysis import ladder as L
from sim.config import parse_study
from sim.engine.rng import WORD_SEAT0, game_words, replay_words
from sim.errors import ConfigError
from sim.runs.play import play_arrays
from sim.studies.ladder import load_ladder


def _write(tmp_path, data: dict):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- analysis


def test_icc_recovers_a_known_deal_share():
    """Deal effects with variance 1 and noise with variance 3: the deal explains 25%."""
    rng = np.random.default_rng(1)
    deal = rng.normal(0, 1, (400, 1, 2))
    y = deal + rng.normal(0, np.sqrt(3), (400, 8, 2))
    assert abs(L.icc(y) - 0.25) < 0.05
    assert L.icc(rng.normal(0, 1, (400, 8, 2))) < 0.03  # no deal effect


def test_bradley_terry_recovers_known_strengths():
    """Pairs drawn from known log-strengths 0, 1, 2 (adjacent only, as a ladder plays them)."""
    rng = np.random.default_rng(2)
    truth = [0.0, 1.0, 2.0]
    pairs = []
    for lower in (0, 1):
        p = 1 / (1 + np.exp(truth[lower] - truth[lower + 1]))
        win = (rng.random(3000) < p).astype(float)
        pairs.append(
            pd.DataFrame({"game": np.arange(3000), "a": lower + 1, "b": lower, "win": win})
        )
    theta = L.bt_fit(L._counts(pairs, 3))
    assert np.allclose(theta, truth, atol=0.15)


def _pairs(upper: int, lower: int, gap: float, size: int, games: int, rng) -> pd.DataFrame:
    """Pair outcomes of a match: the upper rung beats the lower with chance σ(gap); a game of
    four seats gives four pairs (two seats of each rung)."""
    per = 1 if size == 2 else 4
    win = (rng.random(games * per) < 1 / (1 + np.exp(-gap))).astype(float)
    return pd.DataFrame({"game": np.repeat(np.arange(games), per), "a": upper, "b": lower,
                         "win": win, "players": size})  # fmt: skip


def test_table_size_enters_the_model_as_a_factor():
    """Strengths 0, 1, 2 heads-up, every gap times 0.4 at four seats: the model recovers the
    heads-up strengths and the factor; one plain model pooling both sizes does not."""
    rng = np.random.default_rng(3)
    pairs = [_pairs(k + 1, k, 1.0 * f, size, 3000, rng) for k in (0, 1)
             for size, f in ((2, 1.0), (4, 0.4))]  # fmt: skip
    theta, scale = L.bt_fit_sizes(
        {s: L._counts([p for p in pairs if p["players"].iat[0] == s], 3) for s in (2, 4)}
    )
    assert np.allclose(theta, [0, 1, 2], atol=0.12) and scale[4] == pytest.approx(0.4, abs=0.05)
    assert L.bt_fit(L._counts(pairs, 3))[2] < 1.6  # pooled: pulled towards the 4-seat gaps
    frame, _ = L.ratings(pairs, ["a", "b", "c"])
    assert frame.attrs["scale"] == pytest.approx(scale)
    assert L.bt_prob(1.0, 0.0, 0.4) == pytest.approx(1 / (1 + np.exp(-0.4)))


def test_the_sizes_model_is_fitted_by_newton_with_exact_derivatives(monkeypatch):
    """`_bt_terms`' gradient and Hessian are the likelihood's (finite differences); a fit is
    the maximum scipy's BFGS finds, and a refit from a nearby start (a bootstrap's) is
    Newton's alone: it converges without falling back to BFGS."""
    import scipy.optimize
    from scipy.optimize import approx_fprime, minimize

    rng = np.random.default_rng(5)
    k = 4
    groups = [L.RIDGE * (1 - np.eye(k))]
    groups += [rng.integers(0, 40, (k, k)) * (1.0 - np.eye(k)) for _ in range(3)]
    x = rng.normal(size=k + 1) * 0.5
    value, grad, hess = L._bt_terms(groups, x, k)
    numeric = approx_fprime(x, lambda y: L._bt_terms(groups, y, k)[0], 1e-6)
    assert np.allclose(grad, numeric, rtol=1e-5, atol=1e-4)
    rows = [
        approx_fprime(x, lambda y, i=i: L._bt_terms(groups, y, k)[1][i], 1e-6) for i in range(k + 1)
    ]
    assert np.allclose(hess, np.array(rows), rtol=1e-5, atol=1e-4)
    tables = ((2, 1.0), (4, 0.4))
    pairs = [_pairs(j + 1, j, 1.0 * f, size, 2000, rng) for j in (0, 1) for size, f in tables]
    counts = {s: L._counts([p for p in pairs if p["players"].iat[0] == s], 3) for s in (2, 4)}
    theta, scale = L.bt_fit_sizes(counts)
    prior = [L.RIDGE * (1 - np.eye(3)), counts[2], counts[4]]
    exact = {"gtol": 1e-10}
    best = minimize(lambda y: L._bt_terms(prior, y, 3)[:2], np.zeros(3), jac=True, options=exact)
    best = best.x  # BFGS, scipy's default here
    assert np.allclose(L.bt_sizes_start(theta, scale), best, atol=1e-6)

    def no_bfgs(*args, **kwargs):
        raise AssertionError("a refit from a nearby start fell back to BFGS")

    monkeypatch.setattr(scipy.optimize, "minimize", no_bfgs)
    nearby = {s: c * rng.uniform(0.9, 1.1, c.shape) for s, c in counts.items()}
    again, _ = L.bt_fit_sizes(nearby, L.bt_sizes_start(theta, scale))
    assert np.allclose(again, theta, atol=0.1) and not np.allclose(again, theta, atol=1e-9)


def test_two_identical_rungs_come_out_equal(monkeypatch):
    """The ladder null in small: rungs random < greedy = greedy B, heads-up and at four seats
    (skill counts 1.0 heads-up, 0.35 at four), B against random heads-up only, on the very
    games greedy played (common random numbers). Pooling the sizes in one plain model put B
    above greedy in every seed; with table size in the model they are equal within their
    intervals, and the gap averages about 0."""
    monkeypatch.setattr(L, "RESAMPLES", 60)
    old, new, inside = [], [], 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        step_2p = _pairs(1, 0, 1.0, 2, 400, rng)
        pairs = [step_2p, _pairs(1, 0, 0.35, 4, 400, rng), _pairs(2, 1, 0.0, 2, 400, rng),
                 _pairs(2, 1, 0.0, 4, 400, rng), step_2p.assign(a=2)]  # fmt: skip
        frame, _ = L.ratings(pairs, ["random", "greedy", "greedy B"], seed=seed)
        a, b = frame.iloc[1], frame.iloc[2]
        new.append(b["elo"] - a["elo"])
        inside += b["elo_lo"] <= a["elo"] <= b["elo_hi"] and a["elo_lo"] <= b["elo"] <= a["elo_hi"]
        theta = L.bt_fit(L._counts(pairs, 3))
        old.append(L.ELO * (theta[2] - theta[1]))
    print(f"\nidentical rungs, 10 seeds: plain pooled model {np.mean(old):+.1f} Elo on average"
          f" ({sum(d > 0 for d in old)} of 10 above); table size in the model"
          f" {np.mean(new):+.1f} ({inside} of 10 inside each other's interval)")  # fmt: skip
    assert all(d > 0 for d in old) and np.mean(old) > 8
    assert inside == 10 and abs(np.mean(new)) < 2 * np.std(new, ddof=1) / np.sqrt(10)


def test_depth_counts_consecutive_clear_steps_only():
    steps = pd.DataFrame({"share": [0.9, 0.7, 0.55, 0.9], "lo": [0.85, 0.62, 0.51, 0.8]})
    assert L.depth(steps, 0.6) == 2  # the third step is below 60%, the fourth does not count
    steps.loc[1, "lo"] = 0.49
    assert L.depth(steps, 0.6) == 1  # 70% but its interval reaches 50%


def test_chain_depth_skips_rungs_too_close_to_count():
    """log-strength gap for 60% is ln 1.5 = 0.405: 0 -> 0.45 -> 1.2 (0.5 is too close)."""
    assert L.chain_depth(np.array([0.0, 0.5, 0.45, 1.2]), 0.6) == 2
    assert L.chain_depth(np.array([0.0, 0.1, 0.2]), 0.6) == 0


# ---------------------------------------------------------------- replays


@pytest.mark.parametrize(
    ("root", "index", "replay"), [(0, 0, 1), (20261129, 7, 3), (2**63 - 1, 2**40, 9)]
)
def test_replay_words_are_numpys_two_key_spawn(root, index, replay):
    want = np.random.SeedSequence(root, spawn_key=(index, replay)).generate_state(5, np.uint64)
    assert replay_words(root, index, replay, 5).tolist() == want.tolist()


def test_replays_keep_the_deal_and_change_only_the_seats_streams():
    study = parse_study(
        {"players": 3, "seats": [{"policy": "random"}] * 3, "seed": 5, "replays": 4}, "<t>"
    )
    plain = parse_study({"players": 3, "seats": [{"policy": "random"}] * 3, "seed": 5}, "<t>")
    chunk = play_arrays(study, 0, 12)  # deals 0, 1, 2, four replays each
    dealt = chunk.cards[:, :, :, 0]  # ST_DEALT: the hands dealt
    for k in range(3):
        for r in range(1, 4):
            assert np.array_equal(dealt[4 * k], dealt[4 * k + r])
    assert not all(np.array_equal(chunk.seats[0], chunk.seats[r]) for r in range(1, 4))
    own = play_arrays(plain, 0, 3)  # replay 0 of deal k is game k itself
    for k in range(3):
        assert np.array_equal(chunk.seats[4 * k], own.seats[k])
    assert game_words(5, 1, WORD_SEAT0).tolist() == game_words(5, 1, WORD_SEAT0).tolist()


def test_bad_ladder_settings_are_one_error_line():
    base = {"players": 2, "seats": [{"policy": "random"}] * 2}
    with pytest.raises(ConfigError, match=r"ladder\.rungs\[1\]\.policy"):
        parse_study(
            {**base, "ladder": {"rungs": [{"policy": "random"}, {"policy": "gredy"}]}}, "<t>"
        )
    with pytest.raises(ConfigError, match=r"ladder\.threshold"):
        parse_study({**base, "ladder": {"threshold": 0.4}}, "<t>")
    with pytest.raises(ConfigError, match="share a label"):
        parse_study(
            {**base, "ladder": {"rungs": [{"policy": "greedy"}, {"policy": "greedy"}]}}, "<t>"
        )


# ---------------------------------------------------------------- whole commands


def test_ladder_end_to_end(tmp_path):
    """random < greedy heads-up and 3-handed; the one rating model predicts the pairwise
    shares it was fitted to; depth 1."""
    data = {
        "players": 3,
        "seats": [{"policy": "random"}] * 3,
        "seed": 3,
        "ladder": {"rungs": [{"policy": "random"}, {"policy": "greedy"}]},
    }
    text = sim_cli(
        "ladder",
        _write(tmp_path, data),
        "--games",
        200,
        "--jobs",
        1,
        "--out",
        tmp_path / "l",
        "--report",
        tmp_path / "l.html",
        "--quiet",
    )
    steps = pd.read_csv(tmp_path / "l" / "ladder.csv")
    assert list(steps["players"]) == [2, 3]
    assert (steps["lo"] > steps["fair"]).all()  # greedy clearly above its fair share
    ratings = pd.read_csv(tmp_path / "l" / "ratings.csv")
    assert ratings.loc[1, "rating"] > 0 and ratings.loc[1, "lo"] > 0
    # one strength for both table sizes: its prediction lies between their pairwise shares;
    # the model of each table size predicts its own match
    lo, hi = sorted(steps["pair_share"])
    assert lo - 0.02 <= steps["bt_pooled"].iloc[0] <= hi + 0.02
    assert steps["agrees"].all()
    assert {"elo_2p", "elo_3p"} <= set(ratings.columns)
    summary = json.loads((tmp_path / "l" / "summary.json").read_text())
    assert summary["depth"] == 1 and summary["threshold"] == 0.6
    assert summary["chain_depth"] == 1
    assert "<svg" in (tmp_path / "l.html").read_text()
    assert "Depth 1 of 1" in text
    from sim.report.tune_report import build_folder_report

    assert "<svg" in build_folder_report(tmp_path / "l", tmp_path / "again.html").read_text()


def test_luck_end_to_end(tmp_path):
    data = {"players": 2, "seats": [{"policy": "random"}, {"policy": "greedy"}], "seed": 9}
    sim_cli(
        "luck",
        _write(tmp_path, data),
        "--deals",
        40,
        "--replays",
        4,
        "--jobs",
        1,
        "--out",
        tmp_path / "k",
        "--report",
        tmp_path / "k.html",
        "--quiet",
    )
    table = pd.read_csv(tmp_path / "k" / "luck.csv")
    assert set(table["policy"]) == {"random", "greedy"}
    assert ((table["lo"] <= table["deal_share"]) & (table["deal_share"] <= table["hi"])).all()
    assert table["deal_share"].between(0, 1).all()
    assert "<svg" in (tmp_path / "k.html").read_text()
    from sim.report.tune_report import build_folder_report

    assert "<svg" in build_folder_report(tmp_path / "k", tmp_path / "again.html").read_text()


@pytest.mark.slow
def test_ladder_orders_random_greedy_lookahead(tmp_path):
    """random < greedy < look-ahead heads-up with clear margins; the fitted ratings order the
    rungs the same way and predict each pair's share within its interval. (About 3 min.)"""
    data = {
        "players": 2,
        "seats": [{"policy": "random"}] * 2,
        "seed": 13,
        "ladder": {
            "rungs": [
                {"policy": "random"},
                {"policy": "greedy"},
                {"policy": "lookahead", "rollouts": 8},
            ]
        },
    }
    sim_cli(
        "ladder",
        _write(tmp_path, data),
        "--games",
        400,
        "--out",
        tmp_path / "l",
        "--no-report",
        "--quiet",
    )
    result = load_ladder(tmp_path / "l")
    s = result.steps
    assert len(s) == 3  # two steps and random v look-ahead, the transitivity check
    assert (s["lo"] > 0.55).all()
    assert list(result.ratings["rating"].diff().dropna() > 0) == [True, True]
    # Fitted to all three matches at once, the ratings predict each one within its interval
    # (widened by 2 points for the ridge): the results are transitive.
    inside = (s["bt_predicted"] >= s["pair_lo"] - 0.02) & (s["bt_predicted"] <= s["pair_hi"] + 0.02)
    assert inside.all(), s
    assert result.chain_depth == 2


@pytest.mark.slow
def test_the_ladder_null_two_identical_rungs(tmp_path):
    """Real games: random < greedy = greedy B (one policy, two labels), heads-up and at four
    seats, 400 games a match, 10 seeds. Each identical rung's rating lies inside the
    other's interval, and their gap averages 0 within its noise. (About 3 minutes.)"""
    from types import SimpleNamespace

    from sim.runs import run_chunk
    from sim.studies.ladder import ladder_matches, ladder_tables, rungs_of

    rungs = [{"policy": "random"}, {"policy": "greedy"}, {"policy": "greedy", "label": "greedy B"}]
    base = parse_study(
        {"players": 4, "seats": [{"policy": "random"}] * 4, "ladder": {"rungs": rungs}}, "<t>"
    )
    gaps, inside, old = [], 0, []
    for seed in range(10):
        study = base.with_overrides(seed=seed)
        labels, _ = rungs_of(study)
        matches = ladder_matches(study, 400)
        runs = [SimpleNamespace(players=run_chunk(m.study, 0, 400)["players"]) for m in matches]
        _, ratings, *_ = ladder_tables(labels, matches, runs, 0.6, seed)
        a, b = ratings.iloc[1], ratings.iloc[2]
        gaps.append(b["elo"] - a["elo"])
        inside += b["elo_lo"] <= a["elo"] <= b["elo_hi"] and a["elo_lo"] <= b["elo"] <= a["elo_hi"]
        pairs = [
            L.pair_outcomes(r.players, {q: m.step if q in m.upper_slots else m.lower
                                        for q in range(m.players)})
            for m, r in zip(matches, runs, strict=True)
        ]  # fmt: skip
        theta = L.bt_fit(L._counts(pairs, 3))
        old.append(L.ELO * (theta[2] - theta[1]))
    se = np.std(gaps, ddof=1) / np.sqrt(len(gaps))
    print(f"\nladder null, 10 seeds: greedy B - greedy {np.mean(gaps):+.1f} Elo (se {se:.1f}),"
          f" {sum(g > 0 for g in gaps)} of 10 above, {inside} of 10 inside each other's"
          f" interval; one plain pooled model: {np.mean(old):+.1f}"
          f" ({sum(g > 0 for g in old)} of 10 above)")  # fmt: skip
    assert inside == 10 and abs(np.mean(gaps)) < 2.5 * se
