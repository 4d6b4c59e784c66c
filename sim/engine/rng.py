"""Seeding and per-stream random numbers for compiled code.

Game i's randomness derives only from (root seed, i): `game_words` is numpy's
`SeedSequence(root, spawn_key=(i,)).generate_state(n, uint64)` re-implemented
in numba (checked bit for bit against numpy in the tests), because building a
SeedSequence object costs about 12 us, a quarter of a random game.
Word 0 keys the shuffle, word 1 the R2.4 reshuffle, word 2+s seat s's stream.
Replay r > 0 of game i (the luck gauge) keeps words 0 and 1 and takes the seats'
words from `replay_words(root, i, r)`, numpy's SeedSequence(root, spawn_key=(i, r)).
`spawn_words` gives the words of many keys that differ in their last word (continuations).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.indexing import unwrapped_indices

unwrapped_indices()  # before anything here compiles (sim.engine.indexing)

WORD_SHUFFLE = 0
WORD_RESHUFFLE = 1
WORD_SEAT0 = 2

_INIT_A = np.uint32(0x43B0D7E5)
_MULT_A = np.uint32(0x931E8875)
_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_POOL = 4


@njit(cache=True, inline="always")
def _hashmix(value, hash_const):
    value = np.uint32(value ^ hash_const[0])
    hash_const[0] = np.uint32(hash_const[0] * _MULT_A)
    value = np.uint32(value * hash_const[0])
    return np.uint32(value ^ (value >> np.uint32(16)))


@njit(cache=True, inline="always")
def _mix(x, y):
    result = np.uint32(np.uint32(_MIX_MULT_L * x) - np.uint32(_MIX_MULT_R * y))
    return np.uint32(result ^ (result >> np.uint32(16)))


@njit(cache=True)
def _words32(n, out, k):
    """Append the little-endian 32-bit words of n >= 0 to out[k:] (numpy's coercion)."""
    if n == 0:
        out[k] = 0
        return k + 1
    while n > 0:
        out[k] = np.uint32(n & 0xFFFFFFFF)
        n >>= 32
        k += 1
    return k


@njit(cache=True)
def _generate(entropy, k, n_words):
    """SeedSequence's pool mixing of entropy[:k] and generate_state(n_words, np.uint64)."""
    pool = np.zeros(_POOL, np.uint32)
    hash_const = np.full(1, _INIT_A, np.uint32)
    for i in range(_POOL):
        pool[i] = _hashmix(entropy[i] if i < k else np.uint32(0), hash_const)
    for i_src in range(_POOL):
        for i_dst in range(_POOL):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
    for i_src in range(_POOL, k):
        for i_dst in range(_POOL):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(entropy[i_src], hash_const))
    out32 = np.zeros(2 * n_words, np.uint32)
    hb = _INIT_B
    for i_dst in range(2 * n_words):
        v = np.uint32(pool[i_dst % _POOL] ^ hb)
        hb = np.uint32(hb * _MULT_B)
        v = np.uint32(v * hb)
        out32[i_dst] = np.uint32(v ^ (v >> np.uint32(16)))
    out = np.zeros(n_words, np.uint64)
    for i in range(n_words):
        out[i] = np.uint64(out32[2 * i]) | (np.uint64(out32[2 * i + 1]) << np.uint64(32))
    return out


@njit(cache=True)
def game_words(root, index, n_words):
    """numpy SeedSequence(root, spawn_key=(index,)).generate_state(n_words, np.uint64)."""
    entropy = np.zeros(16, np.uint32)
    k = _words32(root, entropy, np.int64(0))  # not a literal: one compile
    if k < _POOL:
        k = _POOL  # spawn keys pad the run entropy to the pool size
    k = _words32(index, entropy, k)
    return _generate(entropy, k, n_words)


@njit(cache=True)
def replay_words(root, index, replay, n_words):
    """numpy SeedSequence(root, spawn_key=(index, replay)).generate_state(n_words, np.uint64).

    The luck gauge replays game `index`'s deal with these words for the seats' streams.
    """
    entropy = np.zeros(16, np.uint32)
    k = _words32(root, entropy, np.int64(0))  # not a literal: one compile
    if k < _POOL:
        k = _POOL
    k = _words32(index, entropy, k)
    k = _words32(replay, entropy, k)
    return _generate(entropy, k, n_words)


def spawn_words(root, prefix, last, n_words) -> np.ndarray:
    """[len(last), n_words]: row j is numpy's
    SeedSequence(root, spawn_key=(*prefix, last[j])).generate_state(n_words, np.uint64), every
    word >= 0 (`prefix`, `last`: integers). The continuations of a page's step (key (game,
    kind, step, j)) draw their words so: a SeedSequence object each cost about 12 us. Python
    over the game loop's own compiled pieces (`_words32`, `_generate`), so nothing new is
    compiled for it."""
    entropy = np.zeros(_POOL + 2 * (len(prefix) + 1), np.uint32)
    k0 = _words32(int(root), entropy, 0)
    k0 = max(k0, _POOL)  # spawn keys pad the run entropy to the pool size
    for word in prefix:
        k0 = _words32(int(word), entropy, k0)
    out = np.zeros((len(last), n_words), np.uint64)
    for j, word in enumerate(last):
        entropy[k0:] = 0
        out[j] = _generate(entropy, _words32(int(word), entropy, k0), n_words)
    return out


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's finaliser: a bijective 64-bit hash."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def next_u64(stream):
    """Advance a SplitMix64 stream (a one-element uint64 array) and return 64 bits."""
    stream[0] = stream[0] + np.uint64(0x9E3779B97F4A7C15)
    return mix64(stream[0])


@njit(cache=True, inline="always")
def randint(stream, n):
    """A uniform integer in [0, n) (Lemire's multiply-shift on 32 bits; n < 2**31)."""
    return np.int64(((next_u64(stream) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def uniform(stream):
    """A uniform float in [0, 1)."""
    return np.float64(next_u64(stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
