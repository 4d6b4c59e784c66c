"""One phase machine for the studies that go in phases and resume (tune, advise).

Such a study keeps its state in its folder's study.json: the phase it is in, what each
phase found, and the wall time of every session so far. Each phase is a function that
does its work and names the phase that follows; the state is saved after it, so a study
stopped anywhere goes on (`--resume`) from the phase it was in, and its wall time counts
every session.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol


class Phased(Protocol):
    """A study's state as the machine reads it (`TuneState`, `AdviseState`)."""

    phase: str
    wall_s: float

    def save(self) -> None: ...


class Checkpoint:
    """Saves the state at a phase (or within one, a long search): its phase, and the wall
    time of the earlier sessions plus this one's so far."""

    def __init__(self, state: Phased) -> None:
        self.state, self.t0, self.wall0 = state, time.perf_counter(), state.wall_s

    def __call__(self, phase: str) -> None:
        self.state.phase = phase
        self.state.wall_s = self.wall0 + time.perf_counter() - self.t0
        self.state.save()


def run_phases(
    state: Phased, steps: Sequence[tuple[str, Callable[[], str]]], saved: Checkpoint
) -> None:
    """Run the phases from the one the state is in, in order: each step returns the phase
    that follows (a later one, or 'done'), saved before the next begins."""
    for phase, step in steps:
        if state.phase == phase:
            saved(step())
