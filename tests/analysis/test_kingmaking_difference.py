"""B − A of two kingmaking samples (`sim.analysis.sampled.kingmaking_difference`): the
point by hand, a true null (the same process on both sides) rarely called real, a clear
change found, and the edges (two players, no examined decision, a rare event)."""

import numpy as np
import pytest

from sim.analysis.sampled import (
    kingmaking_by_point,
    kingmaking_difference,
    kingmaking_sweep_words,
)


def _sample(per_game: list[tuple[int, int]], players: int = 4) -> dict:
    """A kingmaking.json: per sampled game (examined decisions, kingmaking ones)."""
    decisions = []
    for game, (n, k) in enumerate(per_game):
        decisions += [{"game": game, "kingmaking": i < k} for i in range(n)]
    return {"players": players, "sampled": list(range(len(per_game))), "decisions": decisions}


def _drawn(rng: np.random.Generator, games: int, rate: float, luck: np.ndarray) -> dict:
    """Games of up to four examined decisions, each kingmaking with the game's chance: the
    game's own luck (`luck`, shared by both sides when paired) moves it."""
    n = rng.integers(0, 5, games)
    p = np.clip(rate + luck, 0, 1)
    return _sample([(int(ni), int(rng.binomial(ni, pi))) for ni, pi in zip(n, p, strict=True)])


def test_the_difference_is_the_ratio_of_sums_on_each_side():
    a = _sample([(4, 1), (2, 0), (0, 0), (2, 1)])  # 2 of 8
    b = _sample([(4, 0), (2, 0), (0, 0), (2, 1)])  # 1 of 8
    out = kingmaking_difference(a, b)
    assert out["diff"] == pytest.approx(1 / 8 - 2 / 8)
    assert out["lo"] <= out["diff"] <= out["hi"] and out["paired"]


def test_the_same_games_on_both_sides_differ_by_exactly_nothing():
    a = _sample([(4, 1), (2, 0), (3, 2), (1, 0)] * 5)
    out = kingmaking_difference(a, a)
    assert (out["diff"], out["lo"], out["hi"], out["p"], out["real"]) == (0, 0, 0, 1, False)


@pytest.mark.parametrize("paired", [True, False])
def test_under_a_true_null_it_is_rarely_called_real(paired):
    """Both sides the same process (4% kingmaking, games' luck shared when paired), 100
    games each as a run samples them: called real in at most 8 of 100 seeds (5% nominal)."""
    real = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        luck = rng.normal(0, 0.03, 100)
        a = _drawn(rng, 100, 0.04, luck)
        b = _drawn(rng, 100, 0.04, luck if paired else rng.normal(0, 0.03, 100))
        real += kingmaking_difference(a, b, paired=paired, seed=seed)["real"]
    assert real <= 8


def test_a_clear_change_is_found():
    rng = np.random.default_rng(3)
    luck = rng.normal(0, 0.03, 100)
    out = kingmaking_difference(_drawn(rng, 100, 0.03, luck), _drawn(rng, 100, 0.25, luck))
    assert out["real"] and out["lo"] > 0.1


def test_two_players_are_zero_by_definition_and_an_empty_side_has_no_difference():
    two = _sample([(0, 0)] * 5, players=2)
    assert kingmaking_difference(two, two)["diff"] == 0.0
    assert "two players" in kingmaking_difference(two, two)["why"]
    empty = _sample([(0, 0)] * 5)
    out = kingmaking_difference(empty, _sample([(2, 1)] * 5))
    assert out["diff"] is None and not out["real"]


def test_a_rare_event_on_one_side_gives_an_interval_not_a_crash():
    a = _sample([(3, 0)] * 99 + [(3, 1)])  # one kingmaking decision in 300
    b = _sample([(3, 0)] * 100)
    out = kingmaking_difference(a, b)
    assert out["diff"] == pytest.approx(-1 / 300) and out["lo"] <= out["diff"] <= out["hi"] <= 0
    assert not out["real"]


def test_paired_samples_must_be_of_the_same_games():
    a = _sample([(1, 0)] * 4)
    b = _sample([(1, 0)] * 5)
    with pytest.raises(ValueError, match="same games"):
        kingmaking_difference(a, b)


def _rated(per_game: list[tuple[int, int]], players: int = 4) -> dict:
    """A kingmaking.json with its rate (as run_kingmaking writes it; the interval a stand-in)."""
    data = _sample(per_game, players)
    n = sum(g[0] for g in per_game)
    rate = sum(g[1] for g in per_game) / n if n else None
    lo, hi = (None, None) if rate is None else (max(rate - 0.05, 0), min(rate + 0.05, 1))
    extra = {"rate": rate, "lo": lo, "hi": hi, "examined": n, "games": len(per_game)}
    return {**data, **extra, "epsilon": 0.1}


def test_a_sweep_compares_each_later_point_with_the_first_at_a_bonferroni_level():
    same = [(4, 1), (2, 0), (3, 0), (1, 0)] * 25
    more = [(4, 3), (2, 2), (3, 1), (1, 1)] * 25
    samples = [_rated(same), _rated(same), _rated(more)]
    out = kingmaking_by_point(samples, ["p=0", "p=1", "p=2"])
    assert [d["label"] for d in out["against"]] == ["p=1", "p=2"]
    assert all(d["level"] == pytest.approx(0.975) for d in out["against"])
    assert out["against"][0]["diff"] == 0 and not out["against"][0]["real"]
    assert out["against"][1]["real"] and "2 tests, Bonferroni" in out["family"]
    lines = kingmaking_sweep_words(out)
    assert lines[0].startswith("Kingmaking by point (each point against p=0, 2 tests")
    assert "against p=0, a clear change" in lines[3] and "no clear change" in lines[2]
    two = kingmaking_by_point([_rated([(0, 0)], 2)] * 2, ["a", "b"])
    assert kingmaking_sweep_words(two) == [
        "Kingmaking: none at any point (no other seat to crown with two players)."
    ]
