"""Verdicts that change with the players: the findings a bot line-up and a calibrated one
disagree on ("first-player advantage: real for greedy, not for players like yours").

Designers act on a bot's verdict only where bots and people agree. Given each
finding's verdict under the calibrated seats (players fitted to logged games, `sim
calibrate`) and under each bot level, `verdict_flips` lists every finding whose verdict
differs, and `flip_banner` says it in one sentence per finding, or nothing when every
level agrees. Pure: mappings in, sentences out; verdicts are compared as words
(case and surrounding spaces aside), so any family of verdicts works.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

PEOPLE = "players like yours"
REAL = "real"


@dataclass(frozen=True)
class Flip:
    """One finding whose verdict under a bot level is not its verdict under the
    calibrated seats."""

    finding: str
    bot: str
    bot_verdict: str
    calibrated_verdict: str


def _same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def verdict_flips(
    calibrated: Mapping[str, str], bots: Mapping[str, Mapping[str, str]]
) -> list[Flip]:
    """Every (finding, bot level) whose verdict differs from the calibrated seats' verdict,
    findings in the calibrated order, bots in the order given. A finding one side did not
    measure is not a flip (nothing to compare)."""
    out = []
    for finding, mine in calibrated.items():
        for bot, verdicts in bots.items():
            theirs = verdicts.get(finding)
            if theirs is not None and mine is not None and not _same(theirs, mine):
                out.append(Flip(finding, bot, theirs, mine))
    return out


def flip_sentences(flips: list[Flip], people: str = PEOPLE) -> list[str]:
    """One sentence per finding that flips, the bots with one verdict named together:
    'first-player advantage: real for greedy, not for players like yours (within noise)'."""
    by_finding: dict[str, dict[str, list[str]]] = {}
    theirs: dict[str, str] = {}
    for f in flips:
        by_finding.setdefault(f.finding, {}).setdefault(f.bot_verdict, []).append(f.bot)
        theirs[f.finding] = f.calibrated_verdict
    out = []
    for finding, groups in by_finding.items():
        mine = theirs[finding]
        parts = [f"{verdict} for {' and '.join(bots)}" for verdict, bots in groups.items()]
        if len(groups) == 1 and _same(next(iter(groups)), REAL):
            tail = f"not for {people} ({mine})"
        else:
            tail = f"{mine} for {people}"
        out.append(f"{finding}: {', '.join(parts)}, {tail}")
    return out


def flip_banner(
    calibrated: Mapping[str, str], bots: Mapping[str, Mapping[str, str]], people: str = PEOPLE
) -> str | None:
    """The page's banner: every finding whose verdict changes between the bots and the
    calibrated seats, in one line each; None when they all agree."""
    sentences = flip_sentences(verdict_flips(calibrated, bots), people)
    if not sentences:
        return None
    return "Verdicts that change with the players: " + "; ".join(sentences) + "."
