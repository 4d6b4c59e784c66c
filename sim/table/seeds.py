"""The random words of many continuations at once: numpy's SeedSequence, vectorised.

Continuation j of step k of game i draws from
`SeedSequence(seed, spawn_key=(i, KEY, k, j)).generate_state(n, np.uint64)` alone
(`sim.table.whatif`, `sim.table.spectator`, `sim.table.kingmaking`). Building one such
object costs about 12 us, a fifth of playing a continuation on; a page plays thousands.
The keys of one step differ only in their last word, so `spawn_words` mixes the shared
words once, in Python integers, and the last word and the output of every j as arrays:
numpy's algorithm (as `sim.engine.rng` re-implements it for the game loop), bit for bit
(`tests/table/test_seeds.py` checks it against numpy's own).
"""

from __future__ import annotations

import numpy as np

_MASK = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4


def _words32(n: int) -> list[int]:
    """numpy's coercion of an integer >= 0 to little-endian 32-bit words."""
    out = []
    while True:
        out.append(n & _MASK)
        n >>= 32
        if not n:
            return out


class _Hash:
    """SeedSequence's hashmix with its running constant (the same for every j: it does not
    depend on the values hashed). Values are Python ints or uint32 arrays."""

    def __init__(self) -> None:
        self.const = _INIT_A

    def __call__(self, value):
        value = value ^ self.const
        self.const = (self.const * _MULT_A) & _MASK
        value = (value * self.const) & _MASK
        return value ^ (value >> 16)


def _mix(x, y):
    result = (_MIX_L * x - _MIX_R * y) & _MASK
    return result ^ (result >> 16)


def spawn_words(root: int, prefix: tuple[int, ...], last, n_words: int) -> np.ndarray:
    """[len(last), n_words] uint64: row j is numpy's
    `SeedSequence(root, spawn_key=(*prefix, last[j])).generate_state(n_words, np.uint64)`.
    Every integer >= 0; a last word of 2**32 or more is handed to numpy itself."""
    last = np.asarray(last, np.int64)
    if len(last) and (last.min() < 0 or last.max() > _MASK):
        return np.stack(
            [
                np.random.SeedSequence(root, spawn_key=(*prefix, int(j))).generate_state(
                    n_words, np.uint64
                )
                for j in last
            ]
        )
    run = _words32(int(root))
    run += [0] * (_POOL - len(run))  # a spawn key pads the run's entropy to the pool
    shared = run + [w for key in prefix for w in _words32(int(key))]
    hashmix = _Hash()
    pool = [hashmix(shared[i]) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashmix(pool[src]))
    for word in shared[_POOL:]:
        for dst in range(_POOL):
            pool[dst] = _mix(pool[dst], hashmix(word))
    # the last word: from here on each j has its own pool, in uint64 arrays of 32-bit values
    j = last.astype(np.uint64)
    rows = [np.full(len(j), value, np.uint64) for value in pool]
    for dst in range(_POOL):
        rows[dst] = _mix_arrays(rows[dst], hashmix(j))
    out32 = np.empty((len(j), 2 * n_words), np.uint64)
    const = _INIT_B
    for k in range(2 * n_words):
        value = rows[k % _POOL] ^ np.uint64(const)
        const = (const * _MULT_B) & _MASK
        value = (value * np.uint64(const)) & np.uint64(_MASK)
        out32[:, k] = value ^ (value >> np.uint64(16))
    return out32[:, 0::2] | (out32[:, 1::2] << np.uint64(32))


def _mix_arrays(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`_mix` of uint64 arrays of 32-bit values (numpy's uint64 arrays wrap mod 2**64,
    which keeps every value mod 2**32)."""
    result = (np.uint64(_MIX_L) * x - np.uint64(_MIX_R) * y) & np.uint64(_MASK)
    return result ^ (result >> np.uint64(16))
