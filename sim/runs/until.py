"""`--until decided`: the questions a study asks, answered chunk by chunk while the pool plays.

A study run with `--until decided` plays its chunks as usual (all points together,
chunk-major) but stops as soon as every question it asks is decided, or at its cap
(`--max-games`). The questions (`study_questions`): each target met or missed; a
comparison's or sweep's `primary:` metric changed for real or negligibly; without
either, the first-player advantage (a run's own, a comparison's or sweep's change of
it). Each has an anytime-valid confidence sequence (`sim.analysis.sequential`), so
looking after every chunk keeps the error rates; the families split alpha as the
fixed-n verdicts do.

The decisions read the contiguous prefix of chunks in game-index order (`Monitor`),
looking after each chunk, so the stop is the same for any number of workers, any
backend and any resume. The chunk size of such a run does not depend on the worker
count either (`sim.runs.orchestrate.until_chunk`). The workers send back only the few
per-game columns the questions read; the looks happen here, in the parent, and the
forecasts for the progress line at most every PROGRESS_S seconds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import pandas as pd

from sim.analysis.differences import DIRECT
from sim.analysis.intervals import Z95
from sim.analysis.moments import Moments
from sim.analysis.paired import Streamed
from sim.analysis.sequential import (
    ALPHA,
    Monitor,
    Question,
    describe,
    seat_question,
    target_question,
)
from sim.analysis.stopping import stop_record
from sim.config import MAX_GAMES, StudyConfig
from sim.errors import SimError
from sim.metrics import matches, metric, target_band
from sim.runs.storage import resumed
from sim.units import plural

UNTIL = ("decided",)  # what --until accepts
CAP_FACTOR = 10  # without --max-games, a study plays at most this many times its games
MONITOR_RESAMPLES = 200  # resamples for a bootstrap sd (non-plain metrics of several points)
PROGRESS_S = 5.0  # the progress line's estimates and forecasts, at most this often
SHOWN = 3  # questions named on a progress line (the rest are counted)


@dataclass(frozen=True)
class Until:
    """A study's stopping rule: its questions and its cap of games per point (`min_games`:
    games it may not stop before, those a resumed complete run already holds)."""

    max_games: int
    questions: tuple[Question, ...]
    min_games: int = 0
    alpha: float = ALPHA

    def columns(self) -> tuple[str, ...]:
        """The game-value columns (or families such as `seat*`) the questions read."""
        return tuple(dict.fromkeys(c for q in self.questions for c in metric(q.metric).columns))

    def meta(self) -> dict:
        """What run.json and study.json record while the study plays (once it stops: the
        record of `sim.analysis.stopping.stop_record`)."""
        return {
            "until": "decided",
            "status": "running",
            "max_games": self.max_games,
            "min_games": self.min_games,
        }


def cap_of(study: StudyConfig, max_games: int | None) -> int:
    """The games per point a study may play until decided: `max_games`, else CAP_FACTOR
    times its games (within MAX_GAMES)."""
    cap = max_games if max_games is not None else min(MAX_GAMES, CAP_FACTOR * study.games)
    if not 2 <= cap <= MAX_GAMES:  # an interval needs two games
        raise SimError(f"--max-games must be a number of games from 2 to {MAX_GAMES:,}, got {cap}")
    return cap


def check_request(until: str | None, max_games: int | None, games: int | None) -> None:
    """Refuse --until and --max-games that cannot work together, before any game."""
    if until is None:
        if max_games is not None:
            raise SimError("--max-games caps a run with --until decided; add --until decided")
        return
    if until not in UNTIL:
        raise SimError(f"--until: know only {', '.join(UNTIL)}, got {until!r}")
    if games is not None:
        raise SimError(
            "--games: a run with --until decided stops by itself; cap it with --max-games N"
        )


@dataclass(frozen=True)
class Plan:
    """What a study command plays: the study (its games the cap when run until decided),
    the cap (None: a fixed number of games), the games it may not stop before, and more
    entries for run.json or study.json (a resumed run's record of how it stopped)."""

    study: StudyConfig
    cap: int | None = None
    min_games: int = 0
    extra: dict = field(default_factory=dict)

    def until(self, questions: list[Question]) -> Until | None:
        """The stopping rule for these questions (None for a fixed number of games)."""
        return None if self.cap is None else Until(self.cap, tuple(questions), self.min_games)


def new_plan(study: StudyConfig, until: str | None, max_games: int | None) -> Plan:
    """A new study's plan: run until decided (its games the cap), or as it is."""
    if until is None:
        return Plan(study)
    cap = cap_of(study, max_games)
    return Plan(study.with_overrides(games=cap), cap)


def resumed_plan(meta: dict, saved: StudyConfig, request, folder) -> Plan:
    """The plan of a resumed run or sweep (`meta`: its run.json or study.json, `saved`: its
    study as saved, `request`: a `Request`). It goes on until decided when asked to, or
    when it was so started and was interrupted (unless --games makes it a fixed run); a
    complete one is never cut below its games. A fixed resume keeps the record of how it
    stopped, or notes that --games extended it with fixed-n intervals."""
    old = meta.get("until")
    complete = meta.get("status") == "complete"
    check_request(request.until, request.max_games, request.games)
    going = old is not None and old.get("status") == "running" and request.games is None
    if request.until is not None or going:
        resumed(saved, folder, None, request.seed)  # the seed is the run's own
        cap = request.max_games or (old or {}).get("max_games") or cap_of(saved, None)
        if cap < saved.games:
            held = "holds" if complete else "was started with a cap of"
            raise SimError(
                f"--max-games {cap:,}: {folder} {held} {saved.games:,} games;"
                " a resumed run may go on to more games, not fewer"
            )
        study = saved.with_overrides(games=cap_of(saved, cap))
        return Plan(study, cap, saved.games if complete else 0)
    study = resumed(saved, folder, request.games, request.seed)
    if old is None:
        return Plan(study)
    if study.games == saved.games and old.get("status") != "running":
        return Plan(study, extra={"until": old})  # nothing to add: how it stopped stays
    note = (
        f"extended with --games to {study.games:,} games after"
        f" {'stopping when decided' if complete else 'an interrupted run until decided'}:"
        " fixed-n intervals"
    )
    return Plan(study, extra={"until": {"until": "fixed", "note": note, "before": old}})


def study_questions(
    kind: str, studies: list[StudyConfig], labels: list[str], noise: dict | None = None
) -> list[Question]:
    """The questions of a study of `kind` ("run", "compare" or "sweep") over its points
    (`labels` name them): each target at each point (a run's, a sweep's; a feel target with
    the slack of its model's `noise`, `sim.runs.chances.feel_noise`), the primary metric's
    change at each point from point 0 (a comparison's, a sweep's), and without either the
    first-player advantage (a run's own, else its change)."""
    first, several = studies[0], len(studies) > 1
    qs: list[Question] = []
    if kind in ("run", "sweep"):
        for p, label in enumerate(labels):
            for name, target in first.targets.items():
                slack = Z95 * (noise or {}).get(name, 0.0)
                q = target_question(name, target_band(name, target), point=p, slack=slack)
                qs.append(_named(q, f"{q.name} at {label}" if several else q.name))
    if kind in ("compare", "sweep") and first.primary:
        qs += _differences(metric(first.primary), labels, "primary")
    if not qs and kind == "run":
        qs.append(seat_question())
    elif not qs:
        qs += _differences(metric("first_player_advantage"), labels, "seats")
    return qs


def _differences(m, labels: list[str], family: str) -> list[Question]:
    """Every point's difference of metric `m` from the first point, in one family."""
    return [
        Question(
            f"{m.label}, {labels[p]} − {labels[0]}",
            m.name,
            "difference",
            margin=m.within,
            point=p,
            family=family,
        )
        for p in range(1, len(labels))
    ]


def _named(q: Question, name: str) -> Question:
    return replace(q, name=name)


def watched_columns(values: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """The columns of a chunk's game values the questions read (what a worker sends)."""
    return values[[c for c in values.columns if matches(c, columns)]]


@dataclass
class Watch:
    """The parent's side of `--until decided`: each point's chunk values come in (any order),
    a chunk is looked at once every point has it, and the monitor's state says whether the
    study is decided. `progress()` gives the progress line's text, at most every PROGRESS_S
    seconds."""

    until: Until
    points: int
    monitor: Monitor = field(init=False)
    _parts: dict[int, dict[int, pd.DataFrame]] = field(default_factory=dict)
    _said: float = -math.inf

    def __post_init__(self) -> None:
        self.monitor = Monitor(
            list(self.until.questions), alpha=self.until.alpha, min_games=self.until.min_games
        )
        # plain metrics are decided from the column sums: their bootstrap draws go unused,
        # so a study asking only those draws the fewest (they cost a third of the parent)
        plain = all(metric(q.metric).interval in DIRECT for q in self.until.questions)
        self._resamples = 2 if plain else MONITOR_RESAMPLES

    def add(self, point: int, first: int, count: int, values: pd.DataFrame) -> None:
        """One point's chunk of game values (the watched columns)."""
        got = self._parts.setdefault(first, {})
        got[point] = values
        if len(got) < self.points:
            return
        del self._parts[first]
        if self.points == 1:
            part = Moments.of(got[0])
        else:
            part = Streamed.of([got[i] for i in range(self.points)], self._resamples, 0, False)
        self.monitor.add(first, count, part)

    @property
    def games(self) -> int:
        """Games per point in the contiguous prefix looked at (the stop, once decided)."""
        return self.monitor.games

    @property
    def done(self) -> bool:
        """May the study stop? Every question decided, and no fewer games than it holds."""
        return self.monitor.stopped

    def progress(self, force: bool = False) -> str | None:
        """The progress line's estimates and forecasts (None: said too recently)."""
        now = time.perf_counter()
        if not self.monitor.answers or (not force and now - self._said < PROGRESS_S):
            return None
        self._said = now
        return progress_text(self.monitor)

    def record(self, played_all: bool) -> dict:
        """How the study stopped, for run.json, study.json and summary.json."""
        return stop_record(
            self.monitor, self.until.max_games, played_all, self.until.min_games, self.points
        )


def progress_text(monitor: Monitor) -> str:
    """'first-player advantage: +3.4 pp [+1.1, +5.8], decided: real: higher; turns target:
    57.0 [56.9, 57.1], about 6,000 more games to decide' (the open questions first, the one
    furthest from a decision leading; beyond SHOWN questions, the rest are counted)."""
    answers = monitor.forecast()
    if not answers:
        return ""

    def key(a):
        return (a.decision is not None, -(a.more_games if a.more_games is not None else 10**12))

    shown = sorted(answers, key=key)[:SHOWN]
    text = "; ".join(describe(a) for a in shown)
    decided = sum(a.decision is not None for a in answers)
    if len(answers) > SHOWN:
        text = f"{decided} of {plural(len(answers), 'question')} decided; {text}"
    return text
