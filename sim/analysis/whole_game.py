"""The whole game as a fix's objective: every seat's edge at every skill level, each held
to its band.

A change is judged by all of its seat-levels at once, never by the one problem it was
sought for: a fix for seat 0 that hands the extra turn to seat 1 is no fix. Each
seat-level is a *cell*: the seat's win share minus a fair share (1/players), its interval,
and its mark against the band (the same words on every page):

* ✓ **inside**: the whole interval lies inside the band (an equivalence test);
* ✗ **outside**: the whole interval lies outside it;
* ? **unclear**: the interval straddles an edge of the band (more games would tell).

A game is *fair* when every cell is ✓, *not fair* when at least one is ✗, and *unclear*
otherwise. Candidates are ranked by `rank_key`: every cell inside first, then the fewest
cells outside, then the smallest worst edge (the largest |edge| of any cell), then the
fewest cards moved; `ranked` treats worst edges that cannot be told apart as a tie, broken
by the whole game's root-mean-square edge (steadier than a maximum) and then by size.
Intervals are the registry's (Wilson for 0/1 shares, the mean's interval kept inside [0, 1]
with ties), at any level for a Bonferroni split, or the
anytime-valid confidence sequence (`sim.analysis.sequential.bounded_cs`) for racing, which
may look after every rung without inflating its error.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from sim.analysis.intervals import Summary, share_bounds, z_of
from sim.analysis.moments import Moments
from sim.analysis.sequential import bounded_cs

MARKS = {"met": "✓", "missed": "✗", "unclear": "?"}


@dataclass(frozen=True)
class Cell:
    """One seat at one level: its edge over a fair share with its interval, and its band."""

    level: str
    seat: int
    estimate: float
    lo: float
    hi: float
    band: tuple[float, float]
    n: int = 0

    @property
    def verdict(self) -> str:
        """'met' (interval inside the band), 'missed' (wholly outside) or 'unclear'."""
        b_lo, b_hi = self.band
        if b_lo <= self.lo and self.hi <= b_hi:
            return "met"
        if self.hi < b_lo or self.lo > b_hi:
            return "missed"
        return "unclear"

    @property
    def mark(self) -> str:
        return MARKS[self.verdict]

    @property
    def excess(self) -> float:
        """How far the estimate lies outside the band (0 inside it)."""
        return max(self.band[0] - self.estimate, self.estimate - self.band[1], 0.0)

    @property
    def size(self) -> float:
        return abs(self.estimate)

    def to_json(self) -> dict:
        out = asdict(self)
        out.update(band=list(self.band), verdict=self.verdict, mark=self.mark)
        return out

    @classmethod
    def from_json(cls, d: dict) -> Cell:
        return cls(
            d["level"],
            int(d["seat"]),
            d["estimate"],
            d["lo"],
            d["hi"],
            tuple(d["band"]),
            int(d.get("n", 0)),
        )


def seat_values(players: pd.DataFrame) -> dict[int, np.ndarray]:
    """Each seat's win share per game (1 for a win, 1/k for a k-way tie), in game order."""
    t = players[["game", "seat", "win_share"]].sort_values(["seat", "game"], kind="stable")
    return {int(k): g["win_share"].to_numpy(float) for k, g in t.groupby("seat", sort=True)}


def seat_summaries(source: pd.DataFrame | Moments) -> dict[int, Summary]:
    """Each seat's win-share sums, from a players table or from a run's merged moments (its
    per-game columns seat0, seat1, ...: the same sums up to rounding, and no table read,
    which was a fifth of an advice's main process)."""
    if isinstance(source, Moments):
        seats = sorted(int(c[4:]) for c in source.columns if c[:4] == "seat" and c[4:].isdigit())
        return {k: source.summary(f"seat{k}") for k in seats}
    return {k: Summary.of(x) for k, x in seat_values(source).items()}


def level_cells(
    source: pd.DataFrame | Moments,
    level: str,
    bands: dict[int, tuple[float, float]],
    alpha: float = 0.05,
    anytime: bool = False,
) -> list[Cell]:
    """Every seat's cell at one level from a run's players table or merged moments
    (`seat_summaries`): the fixed-n interval at 1 − alpha (the registry's for alpha 0.05), or
    with `anytime` the confidence sequence."""
    summaries = seat_summaries(source)
    fair = 1.0 / len(summaries)
    out = []
    for seat, s in summaries.items():
        if anytime:
            lo, hi = bounded_cs(s, (0.0, 1.0), alpha)
        else:
            lo, hi = share_bounds(s, z_of(1 - alpha))
        out.append(Cell(level, seat, s.mean - fair, lo - fair, hi - fair, bands[seat], s.n))
    return out


@dataclass(frozen=True)
class WholeGame:
    """A game's cells at every level it was played at, summed up."""

    cells: tuple[Cell, ...]

    @classmethod
    def of(cls, cells: Iterable[Cell]) -> WholeGame:
        return cls(tuple(cells))

    def count(self, verdict: str) -> int:
        return sum(c.verdict == verdict for c in self.cells)

    @property
    def inside(self) -> int:
        return self.count("met")

    @property
    def outside(self) -> int:
        return self.count("missed")

    @property
    def unclear(self) -> int:
        return self.count("unclear")

    @property
    def all_inside(self) -> bool:
        return bool(self.cells) and self.inside == len(self.cells)

    @property
    def worst(self) -> Cell:
        """The cell whose edge is largest in size."""
        return max(self.cells, key=lambda c: (c.size, -c.seat))

    @property
    def rms(self) -> float:
        """The root-mean-square edge of every cell: how far from fair the whole game is. Less
        noisy than the worst edge (a mean over cells, not a maximum)."""
        return float(np.sqrt(np.mean([c.estimate**2 for c in self.cells])))

    def worst_bounds(self) -> tuple[float, float]:
        """An interval for the worst |edge|: from the largest lower bound of any cell's
        |edge| to the largest upper bound (each cell's interval folded at 0)."""
        low = max((0.0 if c.lo <= 0 <= c.hi else min(abs(c.lo), abs(c.hi))) for c in self.cells)
        high = max(max(abs(c.lo), abs(c.hi)) for c in self.cells)
        return low, high

    @property
    def status(self) -> str:
        """'fair' (every cell ✓), 'not fair' (at least one ✗), else 'unclear'."""
        if self.all_inside:
            return "fair"
        return "not fair" if self.outside else "unclear"

    def at(self, level: str) -> list[Cell]:
        return [c for c in self.cells if c.level == level]

    def cell(self, level: str, seat: int) -> Cell | None:
        return next((c for c in self.cells if c.level == level and c.seat == seat), None)


def rank_key(game: WholeGame, size: int) -> tuple:
    """Best first: every cell inside, then the fewest cells outside, then the smallest worst
    edge, then the fewest cards moved."""
    return (not game.all_inside, game.outside, round(game.worst.size, 6), size)


def screen_key(game: WholeGame, size: int) -> tuple:
    """The screen's rank (estimates on few games, no verdicts): the smallest root-mean-square
    edge (a mean over cells, steadier than their maximum), then the fewest cards moved."""
    return (round(game.rms, 6), size)


def ranked(entries: Sequence[tuple]) -> list[list[tuple]]:
    """(item, WholeGame, size) entries, best first, in tie groups: every cell inside first,
    then the fewest cells outside; within those, the smallest worst edge, where every entry
    whose worst edge cannot be told from the best's (their intervals, `worst_bounds`,
    overlap) is as good, ordered among themselves by the whole game's root-mean-square edge
    and then by the fewest cards moved. The first group is the answer's set."""
    out: list[list[tuple]] = []
    classes: dict[tuple, list[tuple]] = {}
    for e in entries:
        classes.setdefault(rank_key(e[1], e[2])[:2], []).append(e)
    for key in sorted(classes):
        group = list(classes[key])
        while group:
            best = min(group, key=lambda e: (e[1].worst.size, e[1].rms, e[2]))
            high = best[1].worst_bounds()[1]
            tied = [e for e in group if e[1].worst_bounds()[0] <= high]
            tied.sort(key=lambda e: (round(e[1].rms, 6), e[2]))
            out.append(tied)
            group = [e for e in group if all(e is not t for t in tied)]
    return out


def moves_problem(fix: WholeGame, start: WholeGame) -> list[Cell]:
    """The cells a change makes worse than the start where it matters: outside their band
    (✗) and further outside than the start's cell was. A change with any is no fix."""
    out = []
    for c in fix.cells:
        before = start.cell(c.level, c.seat)
        if c.verdict == "missed" and (before is None or c.excess > before.excess):
            out.append(c)
    return out


def clearly_worse(games: Sequence[WholeGame]) -> list[bool]:
    """Racing's drop rule: a candidate whose worst |edge| is surely larger than the best
    candidate's can be (its lower bound above the smallest upper bound of any)."""
    if not games:
        return []
    best_high = min(g.worst_bounds()[1] for g in games)
    return [g.worst_bounds()[0] > best_high for g in games]
