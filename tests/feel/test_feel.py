"""How the game feels: the chances round by round and what their curves say."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.feel.curves import COMEBACK, DECIDED, _state, expected_moves, game_feel
from sim.feel.winprob import fit_chances, reliability


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """3,000 games of the base study: its tables."""
    from pathlib import Path

    from sim import run
    from sim.config import load_study

    root = Path(__file__).resolve().parents[2]
    study = load_study(root / "configs" / "base.yaml").with_overrides(games=3000)
    result = run(study, jobs=1, out=tmp_path_factory.mktemp("feel") / "run", quiet=True)
    return result.games, result.players, result.turns


@pytest.fixture(scope="module")
def chances(played):
    games, players, turns = played
    return fit_chances(turns, games, players)


def test_the_chances_are_calibrated_on_held_out_games(chances):
    """Every game's chances come from the model of the other half; binned by chance, the
    outcomes match them (expected calibration error at most 0.02), and the Brier score is
    well below that of 'the leaders share the win'."""
    assert chances.ece <= 0.02
    assert chances.brier < 0.9 * chances.brier_lead
    sums = chances.table.groupby(["game", "round"])["p"].sum()
    assert np.allclose(sums, 1.0)


def test_a_sample_of_every_other_game_still_learns(played):
    """The page reads every other game of a large run: both halves must still learn (a split
    by the game index's parity would leave one half empty and every chance flat)."""
    games, players, turns = played
    even = games["game"] % 2 == 0
    keep = set(games.loc[even, "game"])
    sample = fit_chances(
        turns[turns["game"].isin(keep)], games[even], players[players["game"].isin(keep)]
    )
    assert len(sample.calibration) == 10 and sample.brier < 0.9 * sample.brier_lead


def test_at_the_end_every_chance_is_the_outcome(chances, played):
    _, players, _ = played
    t = chances.table
    last = t[t["round"] == t.groupby("game")["round"].transform("max")]
    shares = players.set_index(["game", "seat"])["win_share"]
    assert np.allclose(last["p"], shares.reindex(pd.MultiIndex.from_frame(last[["game", "seat"]])))


def test_surprise_is_the_sum_of_the_moves_of_the_saved_curves(chances):
    per = game_feel(chances.table).set_index("game")
    for game in per.index[:25]:
        wide = chances.table[chances.table["game"] == game].pivot(
            index="round", columns="seat", values="p"
        )
        moved = np.sqrt((np.diff(wide.to_numpy(), axis=0) ** 2).sum(axis=1)).sum()
        assert per.loc[game, "surprise"] == pytest.approx(moved)


def test_suspense_matches_surprise_in_expectation(chances):
    """Ely-Frankel-Kamenica: with beliefs a martingale, the expected squared moves sum to the
    realised ones on average; the cross-fitted regression keeps that within 15%."""
    state = _state(chances.table)
    expected, has_next = expected_moves(state)
    nxt = state.groupby("game")["moved"].shift(-1).fillna(0.0)
    realised = (nxt**2).groupby(state["game"]).sum().mean()
    predicted = pd.Series(expected).groupby(state["game"].to_numpy()).sum().mean()
    assert predicted == pytest.approx(realised, rel=0.15)
    assert has_next.sum() == len(state) - state["game"].nunique()


def _certain_games(n: int = 40) -> pd.DataFrame:
    """Games of two seats whose winner (seat 0) is certain from round 3 on; before it the
    chances wander."""
    rng = np.random.default_rng(0)
    rows = []
    for g in range(n):
        walk = np.clip(0.5 + np.cumsum(rng.normal(0, 0.1, 3)), 0.05, 0.95)
        p0 = [0.5, *walk, 1.0, 1.0, 1.0, 1.0]
        for r, p in enumerate(p0):
            rows += [(g, r, 0, p, 1.0), (g, r, 1, 1.0 - p, 0.0)]
    return pd.DataFrame(rows, columns=["game", "round", "seat", "p", "won"])


def test_a_game_decided_for_certain_has_no_suspense_after_it():
    table = _certain_games()
    state = _state(table)
    per = game_feel(table).set_index("game")
    # from round 4 on seat 0's chance is 1: no move can be expected (the cap is 0)
    assert (state.loc[state["round"] >= 4, "spread"] == 0).all()
    assert per["decisive_moment"].max() <= 4 / 7  # decided at round 4 of 7 at the latest
    assert (per["surprise"] > 0).all()


def test_decisive_moment_and_comeback_by_hand():
    rows = []
    # seat 1 wins: its chance 0.4, 0.1 (below half a fair share of two: a comeback), 0.6,
    # 0.7, then the outcome 1.0: decided after round 1 (never below DECIDED from round 2)
    for r, p in enumerate([0.4, 0.1, 0.6, 0.7, 1.0]):
        rows += [(0, r, 0, 1 - p, 0.0), (0, r, 1, p, 1.0)]
    for g in range(1, 30):  # other games, for the regression's two halves
        for r, p in enumerate([0.5, 0.6, 0.7, 0.8, 1.0]):
            rows += [(g, r, 0, p, 1.0), (g, r, 1, 1 - p, 0.0)]
    per = game_feel(pd.DataFrame(rows, columns=["game", "round", "seat", "p", "won"]))
    one = per.set_index("game").loc[0]
    assert one["decisive_moment"] == pytest.approx(2 / 4)
    assert bool(one["comeback"]) and 0.1 < COMEBACK / 2 * 2 and DECIDED == 0.5
    assert not per.set_index("game").loc[1, "comeback"]


def test_reliability_of_perfect_chances_is_exact():
    rng = np.random.default_rng(3)
    p = rng.random(20000)
    cal, ece = reliability(p, (rng.random(20000) < p).astype(float))
    assert ece < 0.02 and len(cal) == 10


def test_the_run_page_feels_unless_told_not_to(tmp_path):
    """With --no-feel the run page's section says it was left out (with it, the golden run
    page's text holds the section: tests/report/test_golden_folders.py)."""
    import shutil
    from pathlib import Path

    from cli_helpers import sim_cli

    golden = Path(__file__).resolve().parents[1] / "golden_folders"
    assert "expected calibration error" in (golden / "run.txt").read_text()
    folder = tmp_path / "run"
    shutil.copytree(golden / "run", folder)
    sim_cli("report", folder, "--out", tmp_path / "b.html", "--quiet", "--no-feel")
    without = (tmp_path / "b.html").read_text()
    assert 'id="fig-feel"' not in without and "Left out (<code>--no-feel</code>)" in without
