"""`sim advise`: is the game fair between equal players, why not, how does it play, and the
smallest change that fixes what is wrong, confirmed on games that played no part in choosing
it.

The phases, each on games of its own:

1. **Diagnosis** (the study's seed, `advise.games` games per level): every seat plays the
   same policy, one skill level at a time (`advise.levels`, default random, greedy and the
   builder heuristic), seats rotated. Every seat's edge over a fair share is held to its band
   (the config's target, else `sim.metrics.FAIR_BAND`): a seat problem at any level is a
   problem, and "fair" needs every level to say so. The causes the tables already measure
   come with it: the extra turn's part of each edge, who ends the game, dead cards.
2. **Screening** (the study's seed again, common random numbers, `advise.screen` games):
   every one-setting change (each card kind one and two copies either way, the deck sizes
   that give every seat the same turns, each rule variant) at the level with the largest
   problem, then the best few at every level. A change that plays the very games of the
   start cannot matter and is left out.
3. **Selection** (seed + 1, `advise.select` games per level): the best `advise.finalists`
   candidates for the problems found; for each problem, the one that meets the most of its
   targets at every level with the smallest change.
4. **Confirmation** (seed + 2, `advise.confirm` games per level): each chosen fix alone. A fix
   is proposed as meeting the band only when every target of its problem is met at every
   level there (an intersection-union test, each 95% interval inside its band; one
   candidate per problem is confirmed, so no correction over candidates).

`advise.budget` (`--budget`) caps every game of the four phases; the plan is said first.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.analysis.tuning import target_distance
from sim.analysis.turns import end_structure, turn_decomposition
from sim.analysis.usage import card_usage, dead_card_notes
from sim.config import (
    NO_BLOCKS,
    StudyConfig,
    describe_changes,
    rung_label,
    rung_seat,
    setting,
)
from sim.errors import ConfigError, SimError
from sim.metrics import FAIR_BAND, PLAY_METRICS, target_band
from sim.runs.options import Request, Workers
from sim.runs.orchestrate import Point, chunk_games, execute
from sim.runs.parallel import resolve_jobs
from sim.runs.paths import STUDY_FILE, check_page, folder_stem
from sim.runs.storage import load_run, new_folder, read_study_meta, saved_study, write_json
from sim.studies import tune_search as S
from sim.studies.checks import check_all, verdicts
from sim.studies.turns import deck_scan, resized_boxes
from sim.version import ENGINE_VERSION

SELECT_SEED_OFFSET = 1
CONFIRM_SEED_OFFSET = 2
SCAN_GAMES = 200  # games per deck size of the turn-parity scan that proposes deck sizes
STAGE_TWO = 6  # candidates screened again at every level, on ETA times the games
ETA = 3
PHASES = ("diagnose", "screen", "select", "confirm", "done")
FAMILY = (
    "each seat's edge at each level is an equivalence test of its 95% interval against its"
    " band; the game is called fair only when every seat at every level is met (an"
    " intersection-union test, so no correction); each problem's fix is one candidate"
    " confirmed on games that played no part in choosing it, so none over candidates either"
)
Say = Callable[[str], None]


@dataclass(frozen=True)
class Level:
    """A skill level: every seat plays this seat spec."""

    label: str
    seat: dict[str, Any]
    people: bool = False  # the calibrated seat: players like yours, not a bot


def levels_of(study: StudyConfig) -> list[Level]:
    """The study's skill levels (`advise.levels`, else the defaults), weakest first, then
    the calibrated one (`advise.calibrated`)."""
    people = study.advise.people_label()
    out = []
    for r in study.advise.level_list():
        label = r.get("label") or rung_label(rung_seat(r))
        out.append(Level(label, rung_seat(r).to_dict(), people is not None and label == people))
    return out


def fairness_targets(study: StudyConfig) -> dict[str, Any]:
    """Every seat's edge over a fair share and its band: the config's target for
    `seat_edge.seat<k>` (seat 0: also `first_player_advantage`), else within FAIR_BAND."""
    out = {}
    for k in range(study.game.players):
        name = f"seat_edge.seat{k}"
        given = study.targets.get(name)
        if given is None and k == 0:
            given = study.targets.get("first_player_advantage")
        out[name] = given if given is not None else {"value": 0.0, "within": FAIR_BAND}
    return out


def play_targets(study: StudyConfig) -> dict[str, Any]:
    """The config's other targets (how the game plays): a fix must not break them."""
    seats = {"first_player_advantage", *fairness_targets(study)}
    return {n: t for n, t in study.targets.items() if n not in seats}


@dataclass
class AdviseState:
    """Everything an advise folder records: the study, its phase, candidates and results."""

    study: StudyConfig
    out_dir: Path
    chunk: int
    phase: str = "diagnose"
    spent: int = 0
    spent_by: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES[:4], 0))
    candidates: list[dict] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def levels(self) -> list[Level]:
        return levels_of(self.study)

    @property
    def targets(self) -> dict[str, Any]:
        return {**fairness_targets(self.study), **play_targets(self.study)}

    def save(self) -> None:
        write_json(
            self.out_dir / STUDY_FILE,
            {"kind": "advise", "name": self.study.name, "config": self.study.to_yaml_dict(),
             "config_hash": self.study.config_hash(), "engine_version": ENGINE_VERSION,
             "source": self.study.source, "folder": self.study.folder,
             "chunk_games": self.chunk, "status": self.phase, "phase": self.phase,
             "games_spent": self.spent, "games_by_phase": self.spent_by,
             "candidates": self.candidates, "results": self.results,
             "wall_time_s": round(self.wall_s, 3)},
        )  # fmt: skip

    def spend(self, phase: str, games: int) -> None:
        self.spent += games
        self.spent_by[phase] += games


# ---------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Plan:
    """The budget's split: the diagnosis, the selection and the confirmation are fixed (at
    most one confirmation per finalist); the screening gets the rest."""

    budget: int
    diagnose: int
    select: int
    confirm: int
    screen: int

    def text(self) -> str:
        return (
            f"plan: diagnosis {self.diagnose:,} games, screening at most {self.screen:,},"
            f" selection {self.select:,}, confirmation at most {self.confirm:,}: at most"
            f" {self.budget:,} games in all (only the diagnosis when nothing is wrong)"
        )


def plan(study: StudyConfig, budget: int | None = None) -> Plan:
    """How the budget (`advise.budget`, else `budget`) is spent; refuses one too small."""
    a = study.advise
    games = a.budget if budget is None else budget
    if problem := a.too_small(games):
        raise SimError(f"--budget: {problem}" if budget is not None else problem)
    n = len(a.level_list())
    fixed = n * a.games + a.finalists * n * a.select + a.finalists * n * a.confirm
    return Plan(games, n * a.games, a.finalists * n * a.select, a.finalists * n * a.confirm,
                games - fixed)  # fmt: skip


# ---------------------------------------------------------------- entry point


def run_advise(
    study: StudyConfig | None,
    request: Request,
    workers: Workers,
    budget: int | None = None,
) -> Advice:
    """Advise on the study (or go on with an advise folder): diagnosis, screening, selection
    and confirmation; the advice."""
    state = _open_state(study, request, workers, budget)
    say = _printer(workers.quiet)
    steps = plan(state.study, budget)
    say(steps.text())
    t0, wall0 = time.perf_counter(), state.wall_s

    def saved(phase: str) -> None:
        state.phase = phase
        state.wall_s = wall0 + time.perf_counter() - t0
        state.save()

    if state.phase == "diagnose":
        _diagnose(state, workers, say)
        saved("screen" if _problems(state) else "done")
    if state.phase == "screen":
        _screen(state, steps, workers, say)
        saved("select")
    if state.phase == "select":
        _select(state, workers, say)
        saved("confirm")
    if state.phase == "confirm":
        _confirm(state, workers, say)
        saved("done")
    return advice(state)


def _open_state(study, request: Request, workers: Workers, budget) -> AdviseState:
    if request.resume is not None:
        out_dir = request.resume
        meta = read_study_meta(out_dir, "advise")
        saved = saved_study(meta, out_dir / STUDY_FILE)
        if study is not None and study.config_hash() != saved.config_hash():
            raise SimError(f"{out_dir}: this advice was started from another config")
        state = AdviseState(saved, out_dir, meta["chunk_games"], meta["phase"])
        state.spent, state.spent_by = meta["games_spent"], meta["games_by_phase"]
        state.candidates, state.results = meta["candidates"], meta["results"]
        state.wall_s = meta.get("wall_time_s", 0.0)
        return state
    if study is None:
        raise SimError("sim advise: give a CONFIG file, or --resume ADVISE_DIR")
    if request.seed is not None:
        study = study.with_overrides(seed=request.seed)
    plan(study, budget)  # before the folder: a budget that cannot pay is one line
    check_page(request, "advise", study)
    out_dir = new_folder(request.out, folder_stem("advise", study.name),
                         "folder exists and is not empty; use another --out")  # fmt: skip
    a, players = study.advise, study.game.players
    at_levels = [study.with_overrides(**NO_BLOCKS, seats=[lv.seat] * players, games=a.games)
                 for lv in levels_of(study)]  # fmt: skip
    games = a.games * len(at_levels)
    state = AdviseState(study, out_dir, chunk_games(at_levels, resolve_jobs(workers.jobs, games)))
    state.save()
    return state


def level_study(state: AdviseState, level: Level, changes: dict, games: int, seed: int,
                label: str) -> StudyConfig:  # fmt: skip
    """The study at one level (every seat plays it, rotated) with a candidate's changes."""
    players = state.study.game.players
    return state.study.with_overrides(
        **NO_BLOCKS, **changes, seats=[level.seat] * players, rotate_seats=True, games=games,
        seed=seed, name=f"{state.study.name}[{level.label}{', ' + label if label else ''}]",
    )  # fmt: skip


def _folder(state: AdviseState, phase: str, cid: int, level: int) -> Path:
    return state.out_dir / phase / f"c{cid:04d}-l{level}"


# ---------------------------------------------------------------- 1. diagnosis


def _diagnose(state: AdviseState, workers: Workers, say: Say) -> None:
    """Every level on the study's seed: each seat's edge, how the game plays, and why."""
    a, seed = state.study.advise, state.study.seed
    levels = state.levels
    names = ", ".join(lv.label for lv in levels)
    say(f"advise: is it fair between equal players? {len(levels)} levels ({names}),"
        f" {a.games:,} games each (seed {seed})")  # fmt: skip
    points = [(level_study(state, lv, {}, a.games, seed, ""), _folder(state, "diagnose", 0, i))
              for i, lv in enumerate(levels)]  # fmt: skip
    hint = f"finish it with sim advise --resume {state.out_dir}"
    rows = check_all(points, state.targets, state.chunk, workers, hint)
    state.spend("diagnose", a.games * len(levels))
    out = []
    for i, (lv, row) in enumerate(zip(levels, rows, strict=True)):
        run = load_run(_folder(state, "diagnose", 0, i))
        out.append({"level": lv.label, **row, "play": _play(run, state.study),
                    "why": _why(run)})  # fmt: skip
    state.results["diagnosis"] = out
    for r in out:
        say(f"advise: {r['level']}: {_seats_text(r)}")


def _play(run, study: StudyConfig) -> dict[str, dict]:
    """How the game plays at a level: PLAY_METRICS with intervals (verdicts where the config
    targets them)."""
    targets = {m: study.targets.get(m) for m in PLAY_METRICS}
    est = verdicts(run, {m: t if t is not None else (-1e300, 1e300) for m, t in targets.items()})
    for m, t in targets.items():
        if t is None:
            est[m].update(verdict=None, band=None)
    return est


def _why(run) -> dict[str, Any]:
    """The causes the tables measure: each seat's edge split into its extra turns' part and
    the part at equal turns, who ends the game and takes the last turn, dead cards."""
    games, players = run.games, run.players
    split = turn_decomposition(games, players)
    end = end_structure(games)
    usage = card_usage(run.cards, games)
    return {
        "split": split[["seat", "extra_share", "edge", "turn_part", "turn_lo", "turn_hi",
                        "equal_part", "equal_lo", "equal_hi"]].to_dict("records"),
        "last": end["last"].to_dict("records"),
        "trigger": end["trigger"].to_dict("records"),
        "dead": dead_card_notes(usage, limit=3),
    }  # fmt: skip


def outside(e: dict) -> bool:
    """Is a target's diagnosis a problem: missed (its interval wholly outside the band), or
    unclear with its estimate outside the band? (Unclear with the estimate inside: more games
    would tell, said as such, no fix sought.)"""
    lo, hi = e["band"]
    return e["verdict"] == "missed" or (e["verdict"] == "unclear" and not lo <= e["estimate"] <= hi)


def _problems(state: AdviseState) -> list[dict]:
    """Each target outside its band at some level of the diagnosis (`outside`):
    {metric, levels: {level: verdict}}."""
    out = {}
    for r in state.results["diagnosis"]:
        for name, e in r["targets"].items():
            if outside(e):
                out.setdefault(name, {})[r["level"]] = e["verdict"]
    return [{"metric": m, "levels": lv} for m, lv in out.items()]


# ---------------------------------------------------------------- 2. screening


def fix_candidates(study: StudyConfig) -> list[dict[str, Any]]:
    """Every one-setting change worth screening: each card kind one and two copies either way,
    the deck sizes (mix kept) that give every seat the same turns, each rule variant."""
    deck = study.game.deck
    out: list[dict] = []

    def counts(path: str, n: int) -> None:
        out.extend({path: n + d} for d in (-1, 1, -2, 2) if n + d >= 0)

    for walls, n in deck.boxes.items():
        counts(f"deck.boxes.{walls or chr(39) * 2}", n)
    counts("deck.princesses", deck.princesses)
    counts("deck.sprayers", deck.sprayers)
    for toy, n in deck.toys.items():
        counts(f"deck.toys.{toy}", n)
    for name, spec in type(study.game.rules).model_fields.items():
        now = getattr(study.game.rules, name)
        values = [True, False] if isinstance(now, bool) else list(spec.annotation.__args__)
        out.extend({f"rules.{name}": v} for v in values if v != now)
    total = sum(deck.boxes.values())
    scan = deck_scan(study, players=[study.game.players], games=SCAN_GAMES)
    for r in scan.itertuples():
        if r.all_equal and abs(r.boxes - total) > 2:  # one or two cards: the counts above
            out.append({"deck.boxes": resized_boxes(dict(deck.boxes), r.boxes)})
    valid = []
    for change in out:
        try:
            study.with_overrides(**change)
        except ConfigError:
            continue  # too few cards to deal, say
        valid.append(change)
    return valid


def _screen(state: AdviseState, steps: Plan, workers: Workers, say: Say) -> None:
    """Every one-setting change at the worst level, then the best few at every level, all on
    the study's seed (common random numbers with the diagnosis)."""
    a, seed, levels = state.study.advise, state.study.seed, state.levels
    worst = _worst_level(state)
    if not state.candidates:
        changes = fix_candidates(state.study)
        again = STAGE_TWO * (len(levels) * ETA - 1) * a.screen  # the best few, every level
        afford = max(1, (steps.screen - again) // a.screen)
        for cid, change in enumerate(changes[:afford], start=1):
            state.candidates.append({"id": cid, "changes": change, "levels": {}, "inert": False})
        state.save()
    start_run = load_run(_folder(state, "diagnose", 0, worst))
    cands = state.candidates
    say(f"advise: screening {len(cands)} one-setting changes at {levels[worst].label},"
        f" {a.screen:,} games each (seed {seed}, common random numbers)")  # fmt: skip
    _play_candidates(state, cands, [worst], workers)
    for c in cands:
        run = load_run(_folder(state, "screen", c["id"], worst))
        c["inert"] = S.same_games(run, start_run)
    live = sorted((c for c in cands if not c["inert"]), key=lambda c: _rank(state, c))
    best = live[:STAGE_TWO]
    if best:
        games = a.screen * ETA
        say(f"advise: the best {len(best)} at every level, {games:,} games each")
        _play_candidates(state, best, list(range(len(levels))), workers, games)
    state.results["screened"] = [c["id"] for c in sorted(best, key=lambda c: _rank(state, c))]


def _worst_level(state: AdviseState) -> int:
    rows = state.results["diagnosis"]
    return int(np.argmax([r["distance"] for r in rows]))


def _play_candidates(
    state: AdviseState, cands: list[dict], levels: list[int], workers, games: int | None = None
) -> None:
    """Screen candidates at the given levels (the study's seed, `games`, default
    `advise.screen`, each; a run already on disk is extended), in one pool."""
    seed = state.study.seed
    games = games or state.study.advise.screen
    points = []
    for c in cands:
        for i in levels:
            lv = state.levels[i]
            study = level_study(state, lv, c["changes"], games, seed, _label(state, c))
            points.append((c, i, Point(study, _folder(state, "screen", c["id"], i))))
    execute([p for _, _, p in points], state.chunk, workers,
            died_hint=f"finish it with sim advise --resume {state.out_dir}")  # fmt: skip
    names = list(state.targets)
    for c, i, p in points:
        had = c.setdefault("games", {}).get(str(i), 0)
        state.spend("screen", games - had)
        c["games"][str(i)] = games
        c["levels"][str(i)] = S.estimates(load_run(p.folder), names)


def _rank(state: AdviseState, cand: dict, names: list[str] | None = None) -> tuple:
    """A candidate's screening rank for some targets (default all): fits at every level it was
    played at, then the smallest move, then the distance summed over levels."""
    targets = {n: t for n, t in state.targets.items() if names is None or n in names}
    played = list(cand["levels"].values())
    fit = all(S.fits({n: v[n] for n in targets}, targets) for v in played)
    dist = float(sum(target_distance({n: v[n] for n in targets}, targets) ** 2
                     for v in played) ** 0.5)  # fmt: skip
    size = _size(state, cand["changes"])
    return (not fit, -len(played), size if fit else 0, dist, cand["id"])


def _size(state: AdviseState, changes: dict) -> int:
    """How big a change is for a designer: cards added or removed (a rule: one)."""
    total = 0
    for path, value in changes.items():
        old = setting(state.study, path)
        if isinstance(value, dict):  # the whole box mix resized
            total += abs(sum(value.values()) - sum(old.values()))
        elif isinstance(value, int) and not isinstance(value, bool):
            total += abs(value - old)
        else:
            total += 1
    return total


def _label(state: AdviseState, cand: dict) -> str:
    return ", ".join(f"{p}={v if not isinstance(v, dict) else sum(v.values())}"
                     for p, v in cand["changes"].items())  # fmt: skip


# ---------------------------------------------------------------- 3. selection


def _select(state: AdviseState, workers: Workers, say: Say) -> None:
    """The best screened candidates for each problem and for all of them, replayed at every
    level on fresh games (seed + 1); for each problem the best of them is chosen."""
    a, seed = state.study.advise, state.study.seed + SELECT_SEED_OFFSET
    problems = _problems(state)
    screened = [c for c in state.candidates if c["id"] in state.results.get("screened", [])]
    picks: list[dict] = []
    for names in [[p["metric"] for p in problems], *([p["metric"]] for p in problems)]:
        for c in sorted(screened, key=lambda c, names=names: _rank(state, c, names)):
            if c not in picks:
                picks.append(c)
                break
        if len(picks) >= a.finalists:
            break
    if not picks:
        say("advise: no change to choose from (every one played the start's very games)")
        state.results["selection"] = []
        return
    say(f"advise: selection: {len(picks)} candidates at every level, {a.select:,} fresh games"
        f" each (seed {seed})")  # fmt: skip
    state.results["selection"] = _check_candidates(state, picks, "select", a.select, seed,
                                                   workers)  # fmt: skip


def _check_candidates(state, cands, phase: str, games: int, seed: int, workers) -> list[dict]:
    """Check candidates at every level on `games` fresh games of `seed`, in one pool."""
    points, keys = [], []
    for c in cands:
        for i, lv in enumerate(state.levels):
            study = level_study(state, lv, c["changes"], games, seed, _label(state, c))
            points.append((study, _folder(state, phase, c["id"], i)))
            keys.append((c["id"], lv.label))
    hint = f"finish it with sim advise --resume {state.out_dir}"
    rows = check_all(points, state.targets, state.chunk, workers, hint)
    state.spend(phase, games * len(points))
    out = {}
    for (cid, level), row in zip(keys, rows, strict=True):
        entry = out.setdefault(cid, {"id": cid, "changes": next(
            c["changes"] for c in cands if c["id"] == cid), "levels": {}})  # fmt: skip
        entry["levels"][level] = row
    return list(out.values())


def _met(row: dict, names: list[str]) -> int:
    """How many of `names` a checked candidate meets, over every level."""
    return sum(lv["targets"][n]["verdict"] == "met" for lv in row["levels"].values() for n in names)


def _choose(state: AdviseState, rows: list[dict], names: list[str]) -> dict | None:
    """The row meeting the most of `names` over every level, then the smallest change, then the
    smallest distance."""

    def key(r: dict) -> tuple:
        targets = {n: state.targets[n] for n in names}
        dist = sum(target_distance({n: lv["targets"][n]["estimate"] for n in names}, targets) ** 2
                   for lv in r["levels"].values())  # fmt: skip
        return (-_met(r, names), _size(state, r["changes"]), dist, r["id"])

    return min(rows, key=key, default=None)


# ---------------------------------------------------------------- 4. confirmation


def _findings_targets(state: AdviseState) -> list[tuple[str, list[str]]]:
    """Each problem's targets, and (with several problems, or a seat problem) every seat's
    targets together: 'does any one change put every seat inside the band at every level?'"""
    problems = _problems(state)
    out = [(p["metric"], [p["metric"]]) for p in problems]
    seats = list(fairness_targets(state.study))
    if any(p["metric"] in seats for p in problems):
        out.append(("every seat", seats))
    return out


def _confirm(state: AdviseState, workers: Workers, say: Say) -> None:
    """For each problem, its chosen fix alone at every level on fresh games (seed + 2)."""
    a, seed = state.study.advise, state.study.seed + CONFIRM_SEED_OFFSET
    rows = state.results.get("selection", [])
    chosen = {}
    for finding, names in _findings_targets(state):
        best = _choose(state, rows, names)
        if best is not None and not _misses(best, names):
            chosen[finding] = best["id"]
    state.results["chosen"] = chosen
    ids = list(dict.fromkeys(chosen.values()))
    if not ids:
        say("advise: no candidate comes close enough to confirm")
        state.results["confirmation"] = []
        return
    cands = [c for c in state.candidates if c["id"] in ids]
    say(f"advise: confirming {len(cands)} fix(es) at every level, {a.confirm:,} fresh games"
        f" each (seed {seed})")  # fmt: skip
    state.results["confirmation"] = _check_candidates(state, cands, "confirm", a.confirm, seed,
                                                      workers)  # fmt: skip


def _misses(row: dict, names: list[str]) -> bool:
    """Does a checked candidate miss one of `names` outright at some level?"""
    return any(lv["targets"][n]["verdict"] == "missed" for lv in row["levels"].values()
               for n in names)  # fmt: skip


# ---------------------------------------------------------------- the advice


@dataclass
class Advice:
    """The answer: advice.json's data and the lines to print."""

    state: AdviseState
    data: dict
    lines: list[str]


def advice(state: AdviseState) -> Advice:
    """The findings of an advise folder, and the answer in a designer's words."""
    study, diag = state.study, state.results["diagnosis"]
    levels = [r["level"] for r in diag]
    confirmed = {r["id"]: r for r in state.results.get("confirmation", [])}
    chosen = state.results.get("chosen", {})
    findings = []
    for finding, names in _findings_targets(state):
        at = {r["level"]: {n: r["targets"][n] for n in names} for r in diag}
        bad = [lv for lv, t in at.items() if any(outside(e) for e in t.values())]
        entry: dict[str, Any] = {
            "metric": finding, "targets": names, "levels": at, "problem_at": bad,
            "verdict": _verdict(at), "cause": _cause(state, names), "fix": None,
        }  # fmt: skip
        cid = chosen.get(finding)
        if cid is not None and cid in confirmed:
            row = confirmed[cid]
            met = all(lv["targets"][n]["verdict"] == "met" for lv in row["levels"].values()
                      for n in names)  # fmt: skip
            entry["fix"] = {
                "changes": row["changes"],
                "text": describe_changes(study, row["changes"]),
                "meets_band": met,
                "levels": {lv: r["targets"] for lv, r in row["levels"].items()},
                "command": compare_command(study, row["changes"]),
            }
        findings.append(entry)
    unclear = [
        {"metric": n, "level": r["level"], **e} for r in diag for n, e in r["targets"].items()
        if e["verdict"] == "unclear" and not outside(e)
    ]  # fmt: skip
    status = "not fair" if findings else "unclear" if unclear else "fair"
    data = {
        "name": study.name,
        "status": status,
        "fair": status == "fair",
        "levels": levels,
        "bands": {n: list(target_band(n, t)) for n, t in state.targets.items()},
        "findings": findings,
        "unclear": unclear,
        "diagnosis": {r["level"]: r["targets"] for r in diag},
        "play": {r["level"]: r["play"] for r in diag},
        "why": {r["level"]: r["why"] for r in diag},
        "family": FAMILY,
        "games": {**state.spent_by, "total": state.spent, "budget": study.advise.budget},
        "seeds": {"diagnose": study.seed, "screen": study.seed,
                  "select": study.seed + SELECT_SEED_OFFSET,
                  "confirm": study.seed + CONFIRM_SEED_OFFSET},
        "inert": [describe_changes(study, c["changes"])[0] for c in state.candidates
                  if c.get("inert")],
    }  # fmt: skip
    data.update(_people(state, diag))
    data["answer"] = answer_lines(data)
    return Advice(state, data, data["answer"])


def _people(state: AdviseState, diag: list[dict]) -> dict[str, Any]:
    """With a calibrated level: its label, the bots', and the banner of the verdicts that
    change between them (`sim.analysis.flips`); without one, people is None."""
    from sim.analysis.findings import level_verdicts
    from sim.analysis.flips import flip_banner

    people = next((lv.label for lv in state.levels if lv.people), None)
    if people is None:
        return {"people": None, "bots": [r["level"] for r in diag], "flips": None}
    words = {r["level"]: level_verdicts(r["targets"], r["play"]) for r in diag}
    bots = {lv: v for lv, v in words.items() if lv != people}
    return {"people": people, "bots": list(bots), "flips": flip_banner(words[people], bots)}


def _verdict(at: dict[str, dict]) -> str:
    """'fair' when every target is met at every level, 'problem' when one is missed at some
    level, else 'unclear' (more games would tell)."""
    verdicts = {e["verdict"] for t in at.values() for e in t.values()}
    return "fair" if verdicts == {"met"} else "problem" if "missed" in verdicts else "unclear"


def _cause(state: AdviseState, names: list[str]) -> dict[str, Any]:
    """What the tables say of a seat problem at each level: the seat's edge split into the
    part from extra turns and the part at equal turns, and how often it takes one."""
    seats = [int(n.removeprefix("seat_edge.seat")) for n in names if n.startswith("seat_edge.")]
    out = {}
    for r in state.results["diagnosis"]:
        split = {row["seat"]: row for row in r["why"]["split"]}
        out[r["level"]] = {f"seat{k}": split[k] for k in seats if k in split}
    return out


def compare_command(study: StudyConfig, changes: dict[str, Any]) -> str:
    """The one line that shows a change beside the config: sim compare CONFIG --b-set ..."""
    import json

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        return json.dumps(v, separators=(",", ":")) if isinstance(v, dict) else str(v)

    sets = " ".join(f"--b-set '{p.replace(chr(39) * 2, chr(34) * 2)}={value(v)}'"
                    for p, v in changes.items())  # fmt: skip
    # the advised study's own --set changes go on both sides, so the line compares the fix
    # against the game that was advised, not against the config file's
    both = "".join(f" --set {shlex.quote(s)}" for s in study.sets)
    return f"sim compare {study.source}{both} {sets}"


def answer_lines(data: dict) -> list[str]:
    """The advice in a designer's words (`sim.analysis.findings.advice_lines`)."""
    from sim.analysis.findings import advice_lines

    return advice_lines(data)


def _seats_text(row: dict) -> str:
    from sim.analysis.findings import seat_edges_text

    return seat_edges_text(row["targets"])


def _printer(quiet: bool) -> Say:
    if quiet:
        return lambda _text: None
    return lambda text: print(text, file=sys.stderr, flush=True)


def load_advice(out_dir: str | Path) -> Advice:
    """Open a finished advise folder (for `sim report`)."""
    out_dir = Path(out_dir)
    meta = read_study_meta(out_dir, "advise")
    if meta.get("status") != "done":
        raise SimError(f"{out_dir}: advice not finished; sim advise --resume {out_dir}")
    study = saved_study(meta, out_dir / STUDY_FILE, plugins=False)
    state = AdviseState(study, out_dir, meta["chunk_games"], meta["phase"])
    state.spent, state.spent_by = meta["games_spent"], meta["games_by_phase"]
    state.candidates, state.results = meta["candidates"], meta["results"]
    return advice(state)
