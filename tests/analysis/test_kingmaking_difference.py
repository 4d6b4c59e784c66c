"""B − A of two kingmaking samples (`sim.analysis.sampled.kingmaking_difference`): the
point by hand, a true null (the same process on both sides) rarely called real, a clear
change found, and the edges (two players, no examined decision, a rare event)."""

import numpy as np
import pytest

from sim.analysis.sampled import kingmaking_difference


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
