"""The streaming Poisson bootstrap: replicate sums that accumulate chunk by chunk.

A bootstrap resample gives each game a weight, how often it is drawn. The
multinomial weights of the textbook bootstrap need every game at once (they sum
to the number of games); Poisson(1) weights, one per game and resample, are
independent, and differ from them only by O(1/n) in the weighted means. So each
game's weights are drawn from (seed, stream, game index) alone, by a counter-based
hash (splitmix64) and the Poisson(1) inverse distribution function, and a
resample's weighted column sums (Σ w, Σ w·x) add up over chunks in any order. A
comparison or a sweep reads one chunk of every point at a time and keeps only
resamples × columns sums per point; the paired interval uses the same weights for
every point (the same game index, the same weights), the unpaired one a stream per
point. The resampled means are Σ w·x / Σ w.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

# Poisson(1) distribution function at 0, 1, ..., 29 (beyond: below 1e-32)
_POISSON_CDF = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(30)])
# Poisson(1) by its inverse distribution function at 2^16 evenly spaced points: a weight is
# a lookup of 16 random bits (mean and variance within 2e-5 of 1)
_TABLE = np.searchsorted(_POISSON_CDF, (np.arange(2**16) + 0.5) / 2**16, side="right").astype(float)
GROUP = 256  # games that share one counter of the random stream (aligned on game indices)


def _groups(games: np.ndarray, resamples: int, seed: int, stream: int):
    """(positions in `games`, their weights: resamples x positions) per group of GROUP games.

    The games i with the same i // GROUP draw from one counter of a Philox stream keyed by
    (seed, stream), each its own column of that block: counter-based, so any subset of
    games gets the weights it would get among all of them. (Weights are made group by
    group: a fresh resamples x games array cost more in page faults than the drawing.)"""
    groups = games // GROUP
    order = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.diff(groups[order])) + 1
    words = -(-resamples * GROUP // 4)  # 64 random bits make four weights
    for at in np.split(order, bounds):
        if not len(at):
            continue
        gen = np.random.Philox(key=[seed, stream], counter=[int(groups[at[0]]), 0, 0, 0])
        bits = gen.random_raw(words).view(np.uint16)[: resamples * GROUP]
        block = _TABLE[bits].reshape(resamples, GROUP)
        cols = games[at] % GROUP
        whole = len(at) == GROUP and (cols == np.arange(GROUP)).all()
        yield at, block if whole else block[:, cols]


def poisson_weights(games, resamples: int, seed: int, stream: int = 0) -> np.ndarray:
    """resamples x games Poisson(1) weights; game i's column depends only on (seed, stream, i)."""
    games = np.asarray(games, np.int64)
    out = np.empty((resamples, len(games)))
    for at, w in _groups(games, resamples, seed, stream):
        out[:, at] = w
    return out


@dataclass(frozen=True)
class Replicates:
    """Sums over games of a game-values table, plain and under each resample's weights:
    n, total (k,), weight (R,) = Σ w, weighted (R, k) = Σ w·x, over `columns` (sorted)."""

    columns: tuple[str, ...]
    n: int
    total: np.ndarray
    weight: np.ndarray
    weighted: np.ndarray

    @classmethod
    def of(cls, values: pd.DataFrame, resamples: int, seed: int, stream: int = 0) -> Replicates:
        """The sums of a game-values table (index: game numbers) under the weights of
        (seed, stream)."""
        columns = tuple(sorted(values.columns))
        x = values.reindex(columns=list(columns)).to_numpy(float)
        games = values.index.to_numpy()
        weight = np.zeros(resamples)
        weighted = np.zeros((resamples, len(columns)))
        for at, w in _groups(np.asarray(games, np.int64), resamples, seed, stream):
            weight += w.sum(axis=1)
            weighted += w @ x[at]
        return cls(columns, len(games), x.sum(axis=0), weight, weighted)

    @classmethod
    def of_points(
        cls, values: list[pd.DataFrame], resamples: int, seed: int, stream: int = 0
    ) -> list[Replicates]:
        """`of` of several tables of the same games under the same weights (the paired
        bootstrap), each group's weights drawn once for all of them: the same sums, bit for
        bit, as one `of` per table, for a fraction of the drawing."""
        columns = [tuple(sorted(v.columns)) for v in values]
        xs = [
            v.reindex(columns=list(v_columns)).to_numpy(float)
            for v, v_columns in zip(values, columns, strict=True)
        ]
        games = values[0].index.to_numpy()
        weight = np.zeros(resamples)
        weighted = [np.zeros((resamples, len(c))) for c in columns]
        for at, w in _groups(np.asarray(games, np.int64), resamples, seed, stream):
            weight += w.sum(axis=1)
            for sums, x in zip(weighted, xs, strict=True):
                sums += w @ x[at]
        return [
            cls(c, len(games), x.sum(axis=0), weight.copy(), sums)
            for c, x, sums in zip(columns, xs, weighted, strict=True)
        ]

    def expand(self, columns: tuple[str, ...]) -> Replicates:
        """Over more columns: a column this part lacks is NaN, as in a whole table."""
        if columns == self.columns:
            return self
        where = {c: i for i, c in enumerate(self.columns)}
        idx = np.array([where.get(c, -1) for c in columns])
        have = idx >= 0
        total = np.full(len(columns), np.nan)
        total[have] = self.total[idx[have]]
        weighted = np.full((len(self.weight), len(columns)), np.nan)
        weighted[:, have] = self.weighted[:, idx[have]]
        return Replicates(columns, self.n, total, self.weight, weighted)

    def merge(self, other: Replicates) -> Replicates:
        """The sums of both parts' games together (parts must share seed, stream, resamples)."""
        columns = tuple(sorted(set(self.columns) | set(other.columns)))
        a, b = self.expand(columns), other.expand(columns)
        return Replicates(
            columns, a.n + b.n, a.total + b.total, a.weight + b.weight, a.weighted + b.weighted
        )

    def means(self) -> np.ndarray:
        """The column means (k,)."""
        return self.total / self.n

    def resampled(self) -> np.ndarray:
        """Each resample's weighted column means (R, k)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.weighted / self.weight[:, None]


def merge_all(parts) -> Replicates:
    """Merge parts in the order given."""
    it = iter(parts)
    out = next(it)
    for p in it:
        out = out.merge(p)
    return out
