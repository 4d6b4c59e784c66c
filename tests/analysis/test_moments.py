"""Moments of the per-game values merge chunk by chunk to those of the whole table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.analysis.balance import estimate_metrics, policy_win_shares, seat_win_shares, verdict
from sim.analysis.moments import PARTS_OF_A_WHOLE, Moments, estimate_from_moments
from sim.analysis.paired import bootstrap_draws
from sim.analysis.seats import balance_from_moments, seat_fairness
from sim.analysis.values import game_values
from sim.config import load_study
from sim.metrics import metrics_for
from sim.runs import run_chunk

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


@pytest.fixture(scope="module")
def tables():
    return run_chunk(load_study(BASE), 0, 600)


@pytest.fixture(scope="module")
def values(tables):
    return game_values(tables["games"], tables["players"], tables["cards"])


def _split(values: pd.DataFrame, cuts, order) -> list[Moments]:
    pieces = np.split(np.arange(len(values)), cuts)
    return [Moments.of(values.iloc[pieces[i]]) for i in order]


def test_merged_chunks_equal_the_whole_table_in_any_order(values):
    whole = Moments.of(values)
    for cuts, order in [([100, 350], [0, 1, 2]), ([100, 350], [2, 0, 1]), ([1, 599], [1, 2, 0])]:
        merged = Moments.combine(_split(values, cuts, order))
        assert merged.columns == whole.columns
        assert merged.n == whole.n == 600
        np.testing.assert_array_equal(merged.nonbinary, whole.nonbinary)  # counts: exactly
        np.testing.assert_allclose(merged.mean, whole.mean, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(merged.m2, whole.m2, rtol=1e-9, atol=1e-9)
    # the mean is the plain column mean, the covariance numpy's
    np.testing.assert_allclose(whole.mean, values[list(whole.columns)].mean().to_numpy())
    np.testing.assert_allclose(
        whole.cov(), np.cov(values[list(whole.columns)].T, ddof=1), rtol=1e-9, atol=1e-12
    )


def test_merged_estimates_equal_whole_table_estimates(values):
    metrics = metrics_for(values.columns)
    whole = estimate_metrics(values, metrics)
    merged = estimate_from_moments(
        Moments.combine(_split(values, [250, 251, 400], [3, 1, 0, 2])), metrics,
        balance_from_moments,
    )  # fmt: skip
    pd.testing.assert_frame_equal(whole, merged, rtol=1e-9)


def test_a_chunk_without_a_column_makes_it_nan_as_the_whole_table_does(values):
    a = Moments.of(values.iloc[:300])
    b = Moments.of(values.iloc[300:].drop(columns=["turns"]))
    merged = a.merge(b)
    assert np.isnan(merged.mean[merged.index("turns")])
    assert merged.mean[merged.index("margin")] == pytest.approx(values["margin"].mean())
    empty = Moments.of(values.iloc[:0])
    assert Moments.combine([empty, a]).n == 300 and a.merge(empty).n == 300


def test_storage_arrays_round_trip(values):
    m = Moments.of(values)
    back = Moments.from_arrays(m.to_arrays())
    assert back.columns == m.columns and back.n == m.n
    np.testing.assert_array_equal(back.m2, m.m2)  # stored as its upper triangle
    assert "m2" not in m.to_arrays()
    older = {k: v for k, v in m.to_arrays().items() if k != "m2_upper"}  # files of before
    np.testing.assert_array_equal(Moments.from_arrays({**older, "m2": m.m2}).m2, m.m2)


def test_seat_tests_from_moments_equal_those_from_rows(tables, values):
    players = tables["players"]
    m = Moments.of(values)
    by_rows = seat_win_shares(players)
    by_moments = seat_win_shares(players, m)
    pd.testing.assert_frame_equal(by_rows, by_moments, check_dtype=False, rtol=1e-9)
    # With the games table the rows give the turn-parity split too (when seat 0's edge is
    # real, as it is in these 600 games), as the moments do.
    assert verdict(players, games=tables["games"]) == verdict(players, m)
    rows, merged = policy_win_shares(players), policy_win_shares(players, m)
    pd.testing.assert_frame_equal(
        rows[["policy", "win_share", "n", "games"]],
        merged[["policy", "win_share", "n", "games"]],
        rtol=1e-12,
    )
    # the interval over games' means is the clustered interval but for its t quantile and,
    # near 0 (a weak policy), the score interval's longer end (under 1% here)
    pd.testing.assert_frame_equal(rows[["lo", "hi"]], merged[["lo", "hi"]], rtol=1e-2)
    f = seat_fairness(players)
    assert f.attrs["chi2"] > 0


def test_delta_intervals_agree_with_the_bootstrap(values):
    """The delta method replaces the percentile bootstrap for metrics that are not a plain
    mean: on 600 games the two intervals' ends agree to a small part of their width (a
    rare event's rate is kept inside [0, 1] instead)."""
    metrics = [m for m in metrics_for(values.columns) if m.interval == "bootstrap"]
    delta = estimate_metrics(values, metrics).set_index("metric")
    point, draws = bootstrap_draws([values], metrics, resamples=2000, seed=1)
    lo, hi = np.nanpercentile(draws[0], [2.5, 97.5], axis=0)
    checked = 0
    for j, m in enumerate(metrics):
        d = delta.loc[m.name]
        width = hi[j] - lo[j]
        if not np.isfinite(width) or lo[j] <= 0 <= point[0, j] <= 0.02:
            continue  # a rare event's rate (a handful of dead cards): no normal approximation
        checked += 1
        assert d["value"] == pytest.approx(point[0, j])
        assert abs(d["lo"] - lo[j]) < 0.15 * width, m.name
        assert abs(d["hi"] - hi[j]) < 0.15 * width, m.name
        assert (d["hi"] - d["lo"]) == pytest.approx(width, rel=0.15), m.name
    assert checked >= 10
    rates = delta[delta.index.str.startswith(PARTS_OF_A_WHOLE)]
    assert len(rates) > 5 and (rates["lo"] >= 0).all() and (rates["hi"] <= 1).all()
