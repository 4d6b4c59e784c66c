"""Seeding: game_words is numpy's SeedSequence bit for bit; shuffle keys are per card."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from sim.config import GameConfig, StudyConfig
from sim.engine.game import Game
from sim.engine.rng import WORD_SEAT0, game_words
from sim.engine.turns import key_order
from sim.runs.lineup import engine_for

ROOTS = [
    0,
    1,
    2,
    12345,
    20261129,
    2**31 - 1,
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**40 + 7,
    2**62 + 12345,
    2**63 - 1,
]
INDICES = [0, 1, 2, 7, 1000, 2**31 - 1, 2**32, 2**32 + 5, 2**40 + 3]


def numpy_words(root: int, index: int, n: int) -> np.ndarray:
    return np.random.SeedSequence(root, spawn_key=(index,)).generate_state(n, np.uint64)


@pytest.mark.parametrize("root", ROOTS)
def test_game_words_equal_seed_sequence(root: int):
    """Every (root, index) gives numpy's SeedSequence(root, spawn_key=(index,)) words."""
    for index in INDICES:
        for n in (1, 2, 4, 7):
            got = game_words(root, index, n)
            assert got.dtype == np.uint64
            assert got.tolist() == numpy_words(root, index, n).tolist(), (root, index, n)


@settings(max_examples=200, deadline=None)
@given(root=st.integers(0, 2**63 - 1), index=st.integers(0, 2**40), n=st.integers(1, 8))
def test_game_words_equal_seed_sequence_random(root: int, index: int, n: int):
    """The same for random roots below 2**63, indices and lengths."""
    assert game_words(root, index, n).tolist() == numpy_words(root, index, n).tolist()


def test_game_words_cover_the_whole_seed_range_of_a_study():
    """Study seeds go up to 2**63 - 1 (StudyConfig.seed); the largest matches numpy too,
    for game indices across the 32-bit boundary."""
    top = StudyConfig.model_fields["seed"].metadata
    assert max(m.le for m in top if hasattr(m, "le")) == 2**63 - 1
    for index in (0, 2**32 - 1, 2**32):
        assert game_words(2**63 - 1, index, 3).tolist() == numpy_words(2**63 - 1, index, 3).tolist()


def test_word_streams_are_distinct():
    """The shuffle, reshuffle and seat streams of one game are different words."""
    words = game_words(20261129, 0, WORD_SEAT0 + 5)
    assert len(set(words.tolist())) == len(words)


def _common_order(cfg: GameConfig, seed: int, index: int, key: str) -> list[str]:
    game = Game(engine_for(cfg), seed, index)
    return [card for card in game.setup_event()[key] if card != "sprayer"]


@pytest.mark.parametrize("seed", [0, 3, 2**40 + 1])
@pytest.mark.parametrize("index", [0, 1, 9])
def test_changing_the_sprayer_count_keeps_the_order_of_the_other_cards(seed: int, index: int):
    """R2.2 shuffle keys are per card (name, copy): configs that differ only in deck.sprayers
    shuffle every common card into the same relative order, before and after dealing."""
    base = GameConfig()
    orders = []
    after = []
    for sprayers in (0, 1, 4, 9):
        cfg = base.model_copy(update={"deck": base.deck.model_copy(update={"sprayers": sprayers})})
        cfg = GameConfig.model_validate(cfg.game_dict())
        orders.append(_common_order(cfg, seed, index, "deck"))
        after.append(_common_order(cfg, seed, index, "deck_after"))
    assert all(order == orders[0] for order in orders)
    assert all(order == after[0] for order in after)


def test_changing_a_count_moves_only_that_kind():
    """Per-card keys: adding yarns leaves the relative order of all other cards unchanged."""
    base = GameConfig().game_dict()
    more = GameConfig().game_dict()
    more["deck"]["toys"]["yarn"] = 9
    a = Game(engine_for(GameConfig.model_validate(base)), 42).setup_event()["deck"]
    b = Game(engine_for(GameConfig.model_validate(more)), 42).setup_event()["deck"]
    assert [c for c in a if c != "toy:yarn"] == [c for c in b if c != "toy:yarn"]


@njit(cache=True)
def _compiled_argsort(keys):
    return np.argsort(keys)


def test_the_shuffles_key_order_is_argsorts():
    """R2.2: setup orders the deck by key_order, which must be exactly the order the
    compiled np.argsort gives (the golden games depend on it): for spread keys, for keys
    crowded into one group of top bits, and for keys that tie (where numba's quicksort is
    unstable and key_order hands over to it)."""
    rng = np.random.default_rng(7)
    cases = [np.zeros(0, np.uint64), np.array([5], np.uint64)]
    for n in (2, 3, 63, 64, 65, 100, 257):
        cases.append(rng.integers(0, 2**64, n, dtype=np.uint64))  # spread, like hashes
        cases.append(rng.integers(0, 1000, n, dtype=np.uint64))  # one group: all top bits 0
        cases.append(rng.integers(0, 4, n, dtype=np.uint64) << np.uint64(62))  # ties
    ties_unstable = False
    for keys in cases:
        expected = _compiled_argsort(keys)
        got = key_order(keys)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        stable = np.argsort(keys, kind="stable")
        ties_unstable |= not np.array_equal(expected, stable)
    assert ties_unstable  # the tie cases do reach an order a stable sort would not give
