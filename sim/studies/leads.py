"""The first sentences of every study, from its results: what the terminal prints first, what
each page opens with and what its summary file keeps as `headline`.

The words are `sim.analysis.findings`'; this module only hands each study's tables to them,
so the command line and the page always say the same.
"""

from __future__ import annotations

import pandas as pd

from sim.analysis import findings as W
from sim.analysis.paired import SweepStats
from sim.config import StudyConfig
from sim.studies.ladder import LadderResult
from sim.studies.luck import LuckResult
from sim.studies.sweep import SweepResult
from sim.studies.value import ValueResult


def lineup(study: StudyConfig, short: bool = True) -> str:
    """The study's line-up in words: 'equal players (every seat greedy)', 'mixed players'."""
    return W.lineup_text([seat.label for seat in study.seats], study.rotate_seats, short)


def sweep_lead(result: SweepResult, stats: SweepStats) -> str:
    """A sweep's first sentences (`findings.sweep_headline`)."""
    v = stats.verdict
    return W.sweep_headline(
        stats.table,
        result.labels,
        lineup(result.study),
        v.best_set if v else None,
        v.ranking if v else None,
    )


def compare_lead(studies: tuple[StudyConfig, StudyConfig], table: pd.DataFrame, change: str) -> str:
    """A comparison's first sentences (`findings.compare_headline`); `change` is the config
    difference of B against A ('deck.sprayers: 4 → 6')."""
    a, b = studies
    la, lb = table.attrs.get("labels", ("A", "B"))
    who = lineup(a) if lineup(a) == lineup(b) else f"{lineup(a)} in {la}, {lineup(b)} in {lb}"
    return W.compare_headline(table, change.replace(": ", " "), who)


def tune_lead(study: StudyConfig, verdict: dict) -> str:
    """A tune's first sentences from tune.json (`findings.tune_headline`)."""
    return W.tune_headline(verdict, lineup(study))


def value_lead(result: ValueResult) -> str:
    """The value study's first sentences (`findings.value_headline`)."""
    seat = result.seat
    label = result.study.seats[seat].label
    return W.value_headline(result.values, result.ablation, seat, label, lineup(result.study))


def ladder_lead(result: LadderResult) -> str:
    """The ladder's first sentences (`findings.ladder_headline`)."""
    return W.ladder_headline(
        result.steps, result.ratings, result.labels, result.depth, result.threshold
    )


def luck_lead(result: LuckResult) -> str:
    """The luck gauge's first sentences (`findings.luck_headline`)."""
    return W.luck_headline(result.table)
