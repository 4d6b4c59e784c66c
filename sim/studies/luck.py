"""`sim luck`: how much of a game's outcome the deal decides (Goodman et al.'s luck gauge).

For each policy (the config's `luck.rungs`, default the distinct seats of its
line-up), every seat plays that policy. K deals (`luck.deals`, default 200)
are each replayed R times (`luck.replays`, default 10): replay r of deal k is
game k*R + r of a study with `replays: R`, which keeps game k's shuffle and
draws the seats' own streams from SeedSequence(seed, spawn_key=(k, r))
(`sim.engine.rng.replay_words`; replay 0 is game k itself). So the cards come
in the same order in every replay, and only the players' own randomness (ties,
random moves, the look-ahead's samples) differs; what varies between deals and
not within them is the deal's doing. `sim.analysis.ladder.luck_share` turns
that into the share of variance the deal explains, with intervals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from sim.analysis import ladder as L
from sim.config import NO_BLOCKS, StudyConfig, rung_label, rung_seat
from sim.config.limits import MAX_GAMES, MIN_LUCK
from sim.errors import SimError
from sim.runs.options import Request, Workers
from sim.runs.paths import STUDY_FILE, check_page
from sim.runs.storage import RunResult
from sim.specs import is_plugin
from sim.studies.common import new_study, open_study, play_new_study, resume_points, resuming


@dataclass
class LuckResult:
    """A finished luck gauge: one run per policy and the variance shares."""

    study: StudyConfig
    out_dir: Path
    labels: list[str]
    runs: list[RunResult]
    table: pd.DataFrame
    meta: dict = field(default_factory=dict)


def luck_policies(study: StudyConfig) -> tuple[list[str], list[dict]]:
    """(labels, seat dicts) of the policies to gauge."""
    if study.luck.rungs is not None:
        raw = study.luck.rungs
        return [r.get("label") or rung_label(rung_seat(r)) for r in raw], [
            rung_seat(r).to_dict() for r in raw
        ]
    seats = list(dict.fromkeys(study.seats))
    if any(is_plugin(s.policy) for s in seats):
        raise SimError(f"{study.source}: the luck gauge plays built-in policies; list luck.rungs")
    return [rung_label(s) for s in seats], [s.to_dict() for s in seats]


def luck_studies(
    study: StudyConfig, deals: int | None = None, replays: int | None = None
) -> tuple[list[str], list[StudyConfig], int]:
    """(labels, one study per policy with every seat playing it, replays)."""
    k = study.luck.deals if deals is None else deals
    r = study.luck.replays if replays is None else replays
    if k < MIN_LUCK or r < MIN_LUCK:  # a variance between deals and one within a deal
        raise SimError(f"luck: deals and replays must be at least {MIN_LUCK}, got {k} and {r}")
    if k * r > MAX_GAMES:
        raise SimError(f"luck: {k:,} deals x {r:,} replays is more than {MAX_GAMES:,} games")
    labels, seats = luck_policies(study)
    base = study.with_overrides(games=k * r, replays=r, **NO_BLOCKS)
    players = study.game.players
    studies = [
        base.with_overrides(seats=[seat] * players, name=f"{study.name}[luck {label}]")
        for label, seat in zip(labels, seats, strict=True)
    ]
    return labels, studies, r


def run_luck(
    study: StudyConfig,
    request: Request,
    workers: Workers,
    deals: int | None = None,
    replays: int | None = None,
) -> LuckResult:
    """Play every policy's replays in one pool and measure the deal's share. With
    `request.resume`, finish the luck folder a stopped call left (its games kept)."""
    if request.resume is not None:
        with resuming(request, "luck", study) as (out_dir, saved, study):
            r = saved.get("replays")
            if not isinstance(r, int) or r < MIN_LUCK:
                raise SimError(f"{out_dir / STUDY_FILE}: damaged (no replays recorded)")
            k = saved.get("games", 0) // r
            if (deals is not None and deals != k) or (replays is not None and replays != r):
                raise SimError(
                    f"--deals, --replays: {out_dir} plays {k:,} deals x {r:,} replays; a resumed"
                    " study keeps them (leave them out)"
                )
            labels, studies, r = luck_studies(study, k, r)
            check_page(request, "luck", study)
            runs, meta = resume_points(out_dir, saved, studies, labels, workers)
    else:
        study = new_study(study, request, "luck")
        labels, studies, r = luck_studies(study, deals, replays)
        head = {"replays": r, "points": [{"label": lab, "values": {}} for lab in labels]}
        out_dir, runs, meta = play_new_study(study, "luck", studies, head, request, workers)
    return LuckResult(study, out_dir, labels, runs, luck_table(labels, runs, r, study.seed), meta)


def luck_table(labels: list[str], runs: list[RunResult], replays: int, seed: int) -> pd.DataFrame:
    """The deal's share per policy and outcome (`sim.analysis.ladder.luck_share`)."""
    frames = []
    for label, run in zip(labels, runs, strict=True):
        t = L.luck_share(run.players, replays, seed=seed)
        t.insert(0, "policy", label)
        frames.append(t)
    return pd.concat(frames, ignore_index=True)


def load_luck(out_dir: str | Path) -> LuckResult:
    """Open a finished luck folder (for `sim report`) and analyse it again."""
    o = open_study(out_dir, "luck")
    labels = [p["label"] for p in o.meta["points"]]
    table = luck_table(labels, o.runs, o.meta["replays"], o.study.seed)
    return LuckResult(o.study, o.out_dir, labels, o.runs, table, o.meta)
