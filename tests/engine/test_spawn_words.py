"""`sim.engine.rng.spawn_words` is numpy's SeedSequence, bit for bit, for every shape of key."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine.rng import spawn_words


def _numpy(root, prefix, last, n_words):
    return np.stack(
        [
            np.random.SeedSequence(root, spawn_key=(*prefix, int(j))).generate_state(
                n_words, np.uint64
            )
            for j in last
        ]
    )


@pytest.mark.parametrize(
    ("root", "prefix", "n_words"),
    [
        (0, (0, 29, 0), 5),  # zeros everywhere
        (20261207, (3, 29, 17), 5),  # a page's spectator continuations
        (2**40 + 7, (2**33 + 1, 27, 5), 3),  # words of 64 bits: several entropy words each
        (2**63 - 1, (), 1),  # the largest root, no prefix
        (7, (1, 2, 3, 4, 5, 6), 8),  # a long key
    ],
)
def test_spawn_words_are_numpys_seed_sequence(root, prefix, n_words):
    last = np.array([0, 1, 2, 63, 64, 1000, 2**31, 2**32 - 1])
    assert np.array_equal(
        spawn_words(root, prefix, last, n_words), _numpy(root, prefix, last, n_words)
    )


def test_a_last_word_past_32_bits():
    last = [2**32, 5, 2**40]
    assert np.array_equal(spawn_words(11, (1,), last, 2), _numpy(11, (1,), last, 2))


def test_random_keys():
    rng = np.random.default_rng(0)
    for _ in range(20):
        root = int(rng.integers(0, 2**63, dtype=np.int64))
        prefix = tuple(int(v) for v in rng.integers(0, 2**20, rng.integers(0, 4)))
        last = rng.integers(0, 2**32, 7)
        n_words = int(rng.integers(1, 7))
        assert np.array_equal(
            spawn_words(root, prefix, last, n_words), _numpy(root, prefix, last, n_words)
        )
