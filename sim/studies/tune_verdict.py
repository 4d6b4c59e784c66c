"""`sim tune`'s answer: the verdict from the phases' results (`sim.studies.tune`), what
tune.json holds, the lines to print and the study to write. The seeds the phases play and
the family of tests the verdict belongs to are declared here, where they are reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim import units
from sim.analysis.findings import metric_interval
from sim.analysis.tuning import pareto_front, target_misses
from sim.config import Json, Settings, StudyConfig, describe_changes
from sim.metrics import describe_target
from sim.studies import tune_search as S
from sim.studies.checks import Checked

# The state is `sim.studies.tune.TuneState`, which imports this module: it is not imported
# back, so the tune's rooms keep one direction (the annotations name it as text).
TuneState = Any

SELECT_SEED_OFFSET = 1  # the selection plays seed + 1: games the search never saw
CONFIRM_SEED_OFFSET = 2  # the start's check and the confirmation: games neither saw
FAMILY = (
    "every target must be met: each 95% interval inside its band (an intersection-union"
    " test, so no correction over targets); one candidate is confirmed, on games that played"
    " no part in choosing it, so none over candidates either"
)
FEEL_FAMILY = "; a feel target's interval adds its chance model's own noise"
# How a feel target is judged (sim.studies.tune: `search_model`, `_check`), said where it is.
FEEL_JUDGING = (
    "the search ranked every candidate by the start's chance model (one yardstick for games"
    " on common random numbers); each check (the start, the finalists, the confirmation)"
    " judged its config by that config's own model, the one sim run of it reads, its"
    " interval widened by that model's own noise"
)


@dataclass(frozen=True)
class TuneRow:
    """One config of the space checked on fresh games: the start, a finalist of the
    selection, or the chosen one confirmed. study.json and tune.json keep `to_json()`."""

    label: str
    params: Settings
    changes: Settings
    checked: Checked

    @property
    def met(self) -> int:
        return self.checked.met

    @property
    def distance(self) -> float:
        return self.checked.distance

    @property
    def games(self) -> int:
        return self.checked.games

    @property
    def targets(self) -> dict[str, dict]:
        return self.checked.targets

    def to_json(self) -> Json:
        about = {"label": self.label, "params": self.params, "changes": self.changes}
        return {**about, **self.checked.to_json()}

    @classmethod
    def from_json(cls, d: Json) -> TuneRow:
        checked = Checked(d["targets"], d["met"], d["distance"], d["games"], d["seed"])
        return cls(d["label"], d["params"], d["changes"], checked)


@dataclass
class TuneResults:
    """What the checks found: the start, the selection's finalists, the label chosen among
    them (None: nothing worth confirming) and its confirmation."""

    start: TuneRow | None = None
    selection: list[TuneRow] = field(default_factory=list)
    chosen: str | None = None
    confirmation: TuneRow | None = None

    def to_json(self) -> Json:
        return {
            "start": self.start.to_json() if self.start else None,
            "selection": [r.to_json() for r in self.selection],
            "chosen": self.chosen,
            "confirmation": self.confirmation.to_json() if self.confirmation else None,
        }

    @classmethod
    def from_json(cls, d: Json) -> TuneResults:
        def row(x):
            return TuneRow.from_json(x) if x else None

        selection = [TuneRow.from_json(r) for r in d.get("selection", [])]
        return cls(row(d.get("start")), selection, d.get("chosen"), row(d.get("confirmation")))


def live_candidates(state: TuneState) -> list[S.TuneCandidate]:
    """Evaluated candidates that may be recommended: not the start, no inert setting."""
    return [
        c
        for c in state.candidates[1:]
        if c.distance is not None and not c.inert and not set(c.changes) & set(state.inert)
    ]


@dataclass
class Verdict:
    """The answer: what tune.json holds, the lines to print, and the study to write."""

    state: TuneState
    data: dict
    lines: list[str]
    recommended_study: StudyConfig | None
    closest_study: StudyConfig


def verdict_of(state: TuneState) -> Verdict:
    """The tune's answer from its phases' results."""
    targets, res = state.tune.targets, state.results
    start, n = res.start, len(targets)
    confirmed = res.confirmation
    if start.met == n:
        status, shown = "no change needed", start
        head = "no change needed: the start meets every target"
    elif confirmed is not None and confirmed.met == n:
        status, shown = "recommended", confirmed
        k = len(confirmed.changes)
        head = f"recommended ({units.plural(k, 'setting')} changed): " + "; ".join(
            describe_changes(state.study, confirmed.changes)
        )
    else:
        rows = [r for r in (confirmed, *res.selection) if r is not None]
        shown = min(rows, key=lambda r: (-r.met, r.distance)) if rows else start
        status = "not met"
        why = (
            "the chosen candidate does not meet every target on fresh games"
            if confirmed
            else "the best finalist misses a target on the selection's games"
            if rows
            else "no candidate to try"
        )
        moves = "; ".join(describe_changes(state.study, shown.changes)) or "the start"
        head = (
            f"no change recommended: {why}. Closest ({shown.met} of {n} met on"
            f" {shown.games:,} games): {moves}"
        )
    lines = [head]
    for name in targets:
        after = shown.targets[name]
        was = metric_interval(name, start.targets[name])
        tail = "" if shown is start else f"   (start: {was})"
        lines.append(f"  {_target_line(name, targets[name], after)}{tail}")
    if state.feel_targets:
        lines.append(f"  {', '.join(state.feel_targets)}: {FEEL_JUDGING}")
    spent = f"{state.spent:,} games in all ({_by_phase(state)}); budget {state.budget.games:,}"
    lines.append(f"  {spent}")
    recommended = shown.changes if status == "recommended" else {}
    rows = [r for r in (start, *res.selection, confirmed) if r is not None]
    data = {
        "status": status,
        "recommended": {p: S.plain(v) for p, v in recommended.items()},
        "changes": describe_changes(state.study, recommended),
        "settings_changed": len(recommended),
        "start": {p: S.plain(v) for p, v in state.start_point().items()},
        "chosen": shown.label,
        "chosen_params": shown.params,
        "targets": {m: {**shown.targets[m], "start": start.targets[m]} for m in targets},
        "start_check": start.to_json(),
        "selection": [r.to_json() for r in res.selection],
        "confirmation": confirmed.to_json() if confirmed else None,
        "finalists": [r.to_json() for r in (*res.selection, confirmed) if r is not None],
        "pareto": _pareto(rows, targets),
        "inert": state.inert,
        "family": FAMILY + (FEEL_FAMILY if state.feel_targets else ""),
        "feel": FEEL_JUDGING if state.feel_targets else None,
        "distance": "sqrt(sum over targets of (|estimate - band centre| / band half-width)^2)",
        "search": {
            "candidates": len(state.candidates),
            "rounds": len(state.rounds),
            "games": state.spent_by["search"],
            "budget": state.budget.games,
            "wall_time_s": round(state.wall_s, 3),
        },
        "games": {**state.spent_by, "total": state.spent, "budget": state.budget.games},
        "select": {"games": state.budget.select, "seed": state.study.seed + SELECT_SEED_OFFSET},
        "confirm": {"games": state.budget.confirm, "seed": state.study.seed + CONFIRM_SEED_OFFSET},
        "text": lines,
    }
    chosen = S.apply_point(state.study, shown.params)
    tuned = chosen.with_overrides(name=f"{state.study.name}-tuned", targets=_yaml_targets(targets))
    return Verdict(state, data, lines, tuned if status != "not met" else None, tuned)


def _pareto(rows: list[TuneRow], targets: dict) -> list[str]:
    """The checked configs no other is closer to on every target (two targets or more), each
    named once (a finalist and its confirmation are two checks of one config)."""
    if len(targets) < 2 or not rows:
        return []
    misses = np.array(
        [
            [
                target_misses({m: r.targets[m]["estimate"] for m in targets}, targets)[m]
                for m in targets
            ]
            for r in rows
        ]
    )
    return list(dict.fromkeys(rows[i].label for i in pareto_front(misses)))


def _target_line(name: str, target: Any, est: dict) -> str:
    """'mean_score 0.57 [0.53, 0.61] (met, target 0.57 ± 0.15)'."""
    return (
        f"{name} {metric_interval(name, est)} ({est['verdict']}, target"
        f" {describe_target(name, target)})"
    )


def targets_text(state: TuneState, row: TuneRow) -> str:
    return "; ".join(f"{n} {metric_interval(n, e)} {e['verdict']}" for n, e in row.targets.items())


def _by_phase(state: TuneState) -> str:
    names = {
        "start": "start check",
        "search": "search",
        "select": "selection",
        "confirm": "confirmation",
    }
    return ", ".join(f"{names[p]} {g:,}" for p, g in state.spent_by.items() if g)


def _yaml_targets(targets: dict) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in targets.items()}
