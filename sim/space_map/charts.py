"""What a map says about its space, from the emulators: which counts matter for which
metric (Sobol indices), and which points meet every target (history matching).

* **Sensitivity.** Sobol first-order and total indices of each metric's emulated mean over
  the space, every count uniform over its integers (`scipy.stats.sobol_indices`, Saltelli's
  estimators); the interval is the bootstrap's over the Monte-Carlo sample. It speaks of
  the emulator's mean, whose own uncertainty the held-out check measures.
* **The region.** For a target band [lo, hi] the implausibility of a point is how far the
  emulated mean lies outside the band in emulator standard deviations (0 inside it);
  a point is *not ruled out* when every target's implausibility is at most 3 (Pukelsheim's
  three-sigma rule, as history matching uses it, Vernon et al. 2010).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy import stats

from sim.space_map.design import Axis, sobol_points, space_size

CUTOFF = 3.0  # implausibility above this rules a point out
SOBOL_N = 1024  # base sample of the Sobol estimators (a power of two)
MAX_GRID = 200_000  # points of a space judged one by one; a larger one by a Sobol sample

Emulate = Callable[[list[dict]], tuple[np.ndarray, np.ndarray]]  # points -> (mean, sd) per metric


def sensitivity(axes: tuple[Axis, ...], names: list[str], emulate: Emulate, seed: int) -> dict:
    """metric -> count -> {"first", "total"}, each {"estimate", "lo", "hi"}."""

    def mean_of(x: np.ndarray) -> np.ndarray:  # (settings, n) of value indices -> (metrics, n)
        points = [{a.name: a.values[int(i)] for a, i in zip(axes, col, strict=True)} for col in x.T]
        return emulate(points)[0]

    dists = [stats.randint(0, a.size) for a in axes]
    rng = np.random.default_rng(seed)
    result = stats.sobol_indices(func=mean_of, n=SOBOL_N, dists=dists, rng=rng)
    with warnings.catch_warnings(), _seeded_global(seed):
        warnings.simplefilter("ignore")  # a count that does nothing: a degenerate resample
        boot = result.bootstrap(confidence_level=0.95, n_resamples=200)
    out: dict[str, dict] = {}
    shape = (len(names), len(axes))
    for m, name in enumerate(names):
        out[name] = {}
        for j, axis in enumerate(axes):
            out[name][axis.name] = {
                kind: _index(
                    getattr(result, f"{kind}_order"), getattr(boot, f"{kind}_order"), m, j, shape
                )
                for kind in ("first", "total")
            }
    return out


@contextmanager
def _seeded_global(seed: int) -> Iterator[None]:
    """numpy's global random state seeded from `seed`, and put back after: scipy's
    `SobolResult.bootstrap` takes no generator and resamples with that state, so unseeded a
    map's intervals changed from one run of the same seed to the next."""
    saved = np.random.get_state()
    np.random.seed(np.random.SeedSequence(seed).generate_state(1)[0])
    try:
        yield
    finally:
        np.random.set_state(saved)


def _index(values: np.ndarray, ci, m: int, j: int, shape: tuple[int, int]) -> dict:
    """One index and its interval (scipy drops an axis of length one: put it back)."""
    at = lambda a: np.reshape(a, shape)[m, j]  # noqa: E731
    value, lo, hi = at(values), at(ci.confidence_interval.low), at(ci.confidence_interval.high)
    clean = lambda v: None if not np.isfinite(v) else float(v)  # noqa: E731
    return {"estimate": clean(value), "lo": clean(lo), "hi": clean(hi)}


def grid(axes: tuple[Axis, ...], seed: int, valid=lambda p: True) -> list[dict]:
    """Every valid point of the space, or of a Sobol sample of a larger one."""
    names = [a.name for a in axes]
    if space_size(axes) <= MAX_GRID:
        every = (
            dict(zip(names, v, strict=True)) for v in itertools.product(*(a.values for a in axes))
        )
        return [p for p in every if valid(p)]
    return sobol_points(axes, 1 << 15, seed, valid)


def distance(axes: tuple[Axis, ...], p: dict, q: dict) -> int:
    """Steps between two points: a count's difference, a choice's 1 when it differs (a start
    outside the space is as far as its value says)."""
    out = 0
    for a in axes:
        if a.choices or not isinstance(p[a.name], int) or not isinstance(q[a.name], int):
            out += int(p[a.name] != q[a.name])
        else:
            out += abs(p[a.name] - q[a.name])
    return out


@dataclass(frozen=True)
class Band:
    """A target the region must meet: the metric's emulator name and its band."""

    name: str
    lo: float
    hi: float


def implausibility(mean: np.ndarray, sd: np.ndarray, band: Band) -> np.ndarray:
    """How far outside the band the emulated mean lies, in emulator standard deviations."""
    out = np.maximum(band.lo - mean, mean - band.hi)
    return np.maximum(out, 0.0) / np.maximum(sd, 1e-12)


def region(
    axes: tuple[Axis, ...],
    bands: list[Band],
    emulate: Emulate,
    start: dict,
    seed: int,
    valid=lambda p: True,
) -> dict:
    """The points not ruled out, the smallest moves from the start into them, and when the
    region is empty, which targets pull apart."""
    points = grid(axes, seed, valid)
    mean, sd = emulate(points)
    worst = np.zeros(len(points))
    by_band = {}
    for i, band in enumerate(bands):
        imp = implausibility(mean[i], sd[i], band)
        by_band[band.name] = imp
        worst = np.maximum(worst, imp)
    inside = worst <= CUTOFF
    moves = np.array([distance(axes, p, start) for p in points])
    order = np.lexsort((worst, moves))
    nearest = [
        {"point": points[i], "move": int(moves[i]), "implausibility": float(worst[i])}
        for i in order
        if inside[i]
    ][:10]
    out = {
        "cutoff": CUTOFF,
        "judged": len(points),
        "not_ruled_out": int(inside.sum()),
        "share": float(inside.mean()),
        "nearest": nearest,
        "targets": [b.__dict__ for b in bands],
        "slices": [],
    }
    if not inside.any():  # which targets each rule the most points out
        out["pulling_apart"] = sorted(
            ((name, float(np.mean(imp > CUTOFF))) for name, imp in by_band.items()),
            key=lambda kv: -kv[1],
        )
    start_imp = dict.fromkeys((b.name for b in bands), None)
    if all(a.reads(start[a.name]) for a in axes):  # a count may lie outside, a choice not
        s_mean, s_sd = emulate([start])
        start_imp = {
            b.name: float(implausibility(s_mean[i], s_sd[i], b)[0]) for i, b in enumerate(bands)
        }
    out["start"] = {"point": start, "implausibility": start_imp}
    return out


def refine(
    axes: tuple[Axis, ...],
    bands: list[Band],
    emulate: Emulate,
    taken: list[dict],
    k: int,
    seed: int,
    valid=lambda p: True,
) -> list[dict]:
    """k more points where a first fit is least sure near a target's boundary: among the
    points a band's edge lies within CUTOFF standard deviations of, the largest standard
    deviation relative to the band's width (anywhere, when no point is near an edge),
    taken greedily and at least two counts' steps apart, so they spread out."""
    seen = {tuple(p.values()) for p in taken}
    cands = [p for p in grid(axes, seed, valid) if tuple(p.values()) not in seen]
    if not cands or not bands or k <= 0:
        return []
    mean, sd = emulate(cands)
    lo = np.array([b.lo for b in bands])[:, None]
    hi = np.array([b.hi for b in bands])[:, None]
    sd = np.maximum(sd, 1e-12)
    relative = sd / np.maximum(hi - lo, 1e-12)
    near = np.minimum(np.abs(mean - lo), np.abs(mean - hi)) / sd <= CUTOFF
    score = np.where(near, relative, 0.0).max(0)
    if not score.any():
        score = relative.max(0)
    picked: list[dict] = []
    for i in np.argsort(-score, kind="stable"):
        p = cands[i]
        if all(distance(axes, p, q) >= 2 for q in picked):
            picked.append(p)
        if len(picked) == k:
            break
    return picked
