"""`sim advise`'s answer: the confirmed set of fixes ranked by the whole game, advice.json's
data, and the lines to print (worded by `sim.analysis.advice_words`)."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.analysis.whole_game import WholeGame, moves_problem
from sim.config import Settings, StudyConfig, describe_changes
from sim.errors import SimError
from sim.metrics import target_band
from sim.runs.paths import STUDY_FILE
from sim.runs.storage import read_study_meta, saved_study
from sim.studies.advise_state import (
    CONFIRM_SEED_OFFSET,
    FAMILY,
    SELECT_SEED_OFFSET,
    AdviseState,
    LevelRow,
    is_problem,
    state_of,
    turn_driven,
    whole_of,
)


@dataclass
class Advice:
    """The answer: advice.json's data and the lines to print."""

    state: AdviseState
    data: dict
    lines: list[str]


def fixes_of(state: AdviseState) -> list[dict]:
    """The confirmed set, best first: each member's changes, group, worst seat-level edge
    with its interval, cells inside of all, whether it is confirmed (every cell inside) and
    offered (no seat-level further outside than the start's, a smaller worst edge than the
    start's on all its games)."""
    rows = state.results.confirmation
    if not rows:
        return []
    # the start on every game it played (the diagnosis's and the confirmation's, the same
    # change on independent games): what a fix must beat
    pooled = state.results.start_pooled
    start = WholeGame.of(pooled) if pooled else rows[0].game()
    order = state.results.chosen
    out = []
    for r in rows[1:]:
        game = r.game()
        moved = moves_problem(game, start)
        worst = game.worst
        lo, hi = game.worst_bounds()
        out.append(
            {
                "changes": r.change.changes,
                "label": r.change.label,
                "text": describe_changes(state.study, r.change.changes),
                "group": r.change.group,
                "turns": r.change.turns,
                "worst_edge_pp": round(100 * worst.estimate, 2),
                "worst_abs_pp": [round(100 * lo, 2), round(100 * hi, 2)],
                "worst_edge_ci_pp": [round(100 * worst.lo, 2), round(100 * worst.hi, 2)],
                "worst_at": {"level": worst.level, "seat": worst.seat},
                "inside": game.inside,
                "outside": game.outside,
                "cells": len(game.cells),
                "confirmed": game.all_inside,
                "offered": not moved and worst.size < start.worst.size,
                "moved": [c.to_json() for c in moved],
                "cells_detail": [c.to_json() for c in game.cells],
                "command": compare_command(state.study, r.change.changes),
                "size": r.change.size,
                "rank": order.index(r.id) if r.id in order else 99,
                **_feel_after(state, r),
            }
        )
    out = lead_order(out)
    for f in out:  # every member was chosen as good as the best on the selection's games
        f["as_good_as_lead"] = f["offered"]
    return out


def _feel_after(state: AdviseState, row) -> dict:
    """With a target on the feel: each feel target at every level after the change (its
    estimate, interval with the model's noise and verdict) and whether any is missed there,
    which a fix must not do (a game made fair but flat is no fix)."""
    if not state.feel_targets:
        return {}
    feel = {
        level: {n: checked["targets"][n] for n in state.feel_targets if n in checked["targets"]}
        for level, checked in row.levels.items()
    }
    missed = any(e["verdict"] == "missed" for at in feel.values() for e in at.values())
    return {"feel": feel, "feel_missed": missed}


def lead_order(fixes: list[dict]) -> list[dict]:
    """The set's order: the offered first, then those that miss no target on the feel (a game
    made fair but flat is no fix), then the confirmed (every seat-level inside),
    then the selection's rank (the confirmation only checks); then a smaller change leads
    the first when its worst edge on the confirmation lies inside the first's interval (the
    ranking's last key, fewest cards moved, among changes as good: the lead no seed's noise
    picks). The selection's tie, overlapping intervals, is too loose for that: one E box
    card fewer (3.5 pp) once led one Princess fewer (1.8 pp) by it."""

    def order(f: dict) -> tuple:
        return (not f["offered"], f.get("feel_missed", False), not f["confirmed"], f["rank"])

    out = sorted(fixes, key=order)
    if not out:
        return out
    best = out[0]

    def as_good(f: dict) -> bool:
        same = (f["offered"], f["confirmed"], f.get("feel_missed")) == (
            best["offered"],
            best["confirmed"],
            best.get("feel_missed"),
        )
        return same and abs(f["worst_edge_pp"]) <= best["worst_abs_pp"][1]

    keys = [(not as_good(f), f["size"] if as_good(f) else 0, i) for i, f in enumerate(out)]
    return [f for _, f in sorted(zip(keys, out, strict=True), key=lambda kf: kf[0])]


def advice(state: AdviseState) -> Advice:
    """The findings of an advise folder, and the answer in a designer's words."""
    study, diag = state.study, state.results.diagnosis
    levels = [r.level for r in diag]
    start = state.start_game()
    fixes = fixes_of(state)
    confirm = state.results.confirmation
    data = {
        "name": study.name,
        "asked_by": state.asked_by,
        "status": start.status,
        "fair": start.status == "fair",
        "levels": levels,
        "bands": {n: list(target_band(n, t)) for n, t in state.targets.items()},
        "cells": [c.to_json() for c in start.cells],
        "counts": {
            "inside": start.inside,
            "outside": start.outside,
            "unclear": start.unclear,
            "cells": len(start.cells),
        },
        "problems": [c.to_json() for c in start.cells if is_problem(c)],
        "worst": start.worst.to_json(),
        "start_confirmed": [c.to_json() for r in confirm[:1] for c in r.cells],
        "turn_driven": turn_driven(state) if state.results.diagnosis else False,
        "fixes": fixes,
        "diagnosis": {r.level: r.checked.targets for r in diag},
        "diagnosis_games": {r.level: r.games for r in diag},
        "play": {r.level: r.play for r in diag},
        "why": {r.level: r.why for r in diag},
        "family": FAMILY,
        "games": {**state.spent_by, "total": state.spent, "budget": study.advise.budget},
        "seeds": {
            "diagnose": study.seed,
            "screen": study.seed,
            "select": study.seed + SELECT_SEED_OFFSET,
            "confirm": study.seed + CONFIRM_SEED_OFFSET,
        },
        "screened": _screen_table(state),
        "inert": [
            describe_changes(study, c.change.changes)[0] for c in state.candidates if c.inert
        ],
    }
    data["answer"] = answer_block(data)
    data.update(_people(state, diag))
    data["lines"] = answer_lines(data)
    return Advice(state, data, data["lines"])


def answer_block(data: dict) -> dict:
    """advice.json's `answer`: the status and the fixes, best first (what a script reads)."""
    fixes = [f for f in data["fixes"] if f["offered"]]
    keep = (
        "changes",
        "group",
        "worst_edge_pp",
        "worst_edge_ci_pp",
        "worst_at",
        "inside",
        "cells",
        "confirmed",
    )
    return {"status": data["status"], "fixes": [{k: f[k] for k in keep} for f in fixes]}


def _screen_table(state: AdviseState) -> list[dict]:
    """Every candidate's fate in the screen: its group, games, worst edge so far, why it
    dropped out (None: a finalist), and whether the selection played it (the finalists and
    their neighbours)."""
    out, selected = [], {r.id for r in state.results.selection}
    for c in state.candidates:
        game = whole_of(c) if c.cells else None
        out.append(
            {
                "label": c.change.label,
                "group": c.change.group,
                "dropped": c.dropped,
                "selected": c.id in selected,  # a finalist, or one beside a finalist
                "games": sum(c.games.values()),
                "worst_pp": round(100 * game.worst.estimate, 2) if game else None,
            }
        )
    return out


def _people(state: AdviseState, diag: list[LevelRow]) -> dict[str, Any]:
    """With a calibrated level: its label, the bots', and the banner of the verdicts that
    change between them (`sim.analysis.flips`); without one, people is None."""
    from sim.analysis.advice_words import level_verdicts
    from sim.analysis.flips import flip_banner

    people = next((lv.label for lv in state.levels if lv.people), None)
    if people is None:
        return {"people": None, "bots": [r.level for r in diag], "flips": None}
    words = {r.level: level_verdicts(r.checked.targets, r.play) for r in diag}
    bots = {lv: v for lv, v in words.items() if lv != people}
    return {"people": people, "bots": list(bots), "flips": flip_banner(words[people], bots)}


def compare_command(study: StudyConfig, changes: Settings) -> str:
    """The one line that shows a change beside the config: sim compare CONFIG --b-set ..."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        return json.dumps(v, separators=(",", ":")) if isinstance(v, dict) else str(v)

    sets = " ".join(
        f"--b-set '{p.replace(chr(39) * 2, chr(34) * 2)}={value(v)}'" for p, v in changes.items()
    )
    # the advised study's own --set changes go on both sides, so the line compares the fix
    # against the game that was advised, not against the config file's
    both = "".join(f" --set {shlex.quote(s)}" for s in study.sets)
    return f"sim compare {study.source}{both} {sets}"


def answer_lines(data: dict) -> list[str]:
    """The advice in a designer's words (`sim.analysis.findings.advice_lines`)."""
    from sim.analysis.advice_words import advice_lines

    return advice_lines(data)


def load_advice(out_dir: str | Path) -> Advice:
    """Open a finished advise folder (for `sim report`)."""
    out_dir = Path(out_dir)
    meta = read_study_meta(out_dir, "advise")
    if meta.get("status") != "done":
        raise SimError(f"{out_dir}: advice not finished; sim advise --resume {out_dir}")
    study = saved_study(meta, out_dir / STUDY_FILE, plugins=False)
    return advice(state_of(study, out_dir, meta))
