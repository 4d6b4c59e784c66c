"""`sim advise`: is the game fair between equal players, why not, how does it play, and the
smallest change that fixes it, judged by the whole game and confirmed on games that played
no part in choosing it.

The phases, each on games of its own:

1. **Diagnosis** (the study's seed, `advise.games` games per level): every seat plays the
   same policy, one skill level at a time (`advise.levels`), seats rotated. Every seat at
   every level is a cell held to its band (`sim.analysis.whole_game`: ✓ inside, ✗ outside,
   ? unclear). A level with an unclear cell is played on `SHARPEN` times the games (the
   same games and more), where the verdicts are taken: games go where they decide
   something. The causes the tables measure come with it: the extra turn's part of each
   edge, who ends the game, dead cards.
2. **Screening** (the study's seed again, common random numbers with the diagnosis): every
   one-setting change (`sim.studies.fix_candidates`). When the worst problem comes from the
   turn order, a change that cannot move the turn order (toys, spray bottles, rules) cannot
   fix it and is not played. Racing: every live change at every level (`advise.screen`
   games: a change can move a problem to a level that had none), those clearly worse than
   the best dropped (the anytime-valid confidence sequence of every cell, so looking after
   each rung costs no error), about a third kept by the whole game's root-mean-square edge
   (a mean over cells, steadier on few games than their maximum) and played on `ETA` times
   the games (successive halving, `rungs`); the best `advise.finalists` go on.
3. **Selection** (seed + 1, `advise.select` games per level): the finalists, and beside the
   best `NEIGHBOURS` of them the same count one copy further or nearer (the screen cannot
   tell "one Princess fewer" from "none"), at every level, ranked by the whole game on the
   screen's and these games together (`sim.analysis.whole_game.ranked`): every cell inside
   first, then the fewest outside, the smallest worst edge, the fewest cards moved; worst
   edges that cannot be told apart are a tie, broken by the root-mean-square edge of every
   cell. The set is the best and those whose worst edge cannot be told from its (at most
   `SET_SIZE`, whatever their class: "every cell inside" is itself a verdict on few games).
4. **Confirmation** (seed + 2, `advise.confirm` games per level): each member of the set,
   and the start beside them on the same games. A member is *confirmed* when every cell is
   inside its band at 1 − 0.05/m (Bonferroni over the m members, each an
   intersection-union test over its cells); it is *offered* only if it leaves no seat-level
   further outside its band than the start and its worst edge is smaller than the
   start's. The answer is the set (confirmed before not, then the selection's order; a
   smaller member leads when its worst edge on the confirmation lies inside the first's
   interval), grouped by what each change acts on.

`advise.budget` (`--budget`) caps every game of the four phases; the plan is said first.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sim import units
from sim.analysis.advice_words import seat_cells_text
from sim.analysis.moments import Moments
from sim.analysis.turn_split import end_structure, turn_decomposition
from sim.analysis.usage import card_usage, dead_card_notes
from sim.analysis.whole_game import (
    Cell,
    clearly_worse,
    level_cells,
    moves_problem,
    ranked,
    screen_key,
)
from sim.config import NO_BLOCKS, StudyConfig
from sim.config.blocks import ADVISE_NEIGHBOURS as NEIGHBOURS
from sim.config.blocks import ADVISE_SET as SET_SIZE
from sim.config.blocks import ADVISE_SHARPEN as SHARPEN
from sim.errors import SimError
from sim.metrics import FEEL_PLAY, PLAY_METRICS
from sim.runs.chances import config_feel
from sim.runs.folders import new_folder
from sim.runs.options import Request, Workers
from sim.runs.orchestrate import Point, chunk_games, execute
from sim.runs.parallel import resolve_jobs
from sim.runs.partials import run_moments
from sim.runs.paths import STUDY_FILE, check_page, folder_stem
from sim.runs.storage import CANDIDATE_TABLES, load_run, read_study_meta, saved_study
from sim.studies import tune_search as S
from sim.studies.advice import Advice, advice
from sim.studies.advise_state import (
    ALPHA,
    CONFIRM_SEED_OFFSET,
    ETA,
    RUNGS,
    SELECT_SEED_OFFSET,
    START,
    AdviseState,
    Candidate,
    Change,
    ChangeRow,
    Level,
    LevelRow,
    Say,
    at_level,
    levels_of,
    problem_levels,
    seat_bands,
    state_of,
    turn_driven,
    whole_of,
)
from sim.studies.checks import check_all, verdicts
from sim.studies.common import new_study
from sim.studies.fix_candidates import (
    fix_candidates,
    group_of,
    label_of,
    moves_turns,
    neighbours,
    size_of,
    turns_of,
)
from sim.studies.phases import Checkpoint, run_phases

# ---------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Plan:
    """The budget's split: the diagnosis (sharpened where unclear), the selection and the
    confirmation are fixed at their most; the screening gets the rest."""

    budget: int
    diagnose: int
    select: int
    confirm: int
    screen: int

    def text(self) -> str:
        return (
            f"plan: diagnosis at most {self.diagnose:,} games, screening at most"
            f" {self.screen:,}, selection {self.select:,}, confirmation at most"
            f" {self.confirm:,}: at most {self.budget:,} games in all (only the diagnosis"
            " when nothing is wrong)"
        )


def plan(study: StudyConfig, budget: int | None = None) -> Plan:
    """How the budget (`advise.budget`, else `budget`) is spent; refuses one too small."""
    a = study.advise
    games = a.budget if budget is None else budget
    if problem := a.too_small(games):
        if budget is not None:
            raise SimError(f"--budget: {problem}")
        raise SimError(f"{study.source}: advise.budget: {problem} (or give --budget)")
    n = len(a.level_list())
    diagnose = n * a.games * SHARPEN
    select = a.selected() * n * a.select
    confirm = (min(SET_SIZE, a.finalists) + 1) * n * a.confirm
    return Plan(games, diagnose, select, confirm, max(games - diagnose - select - confirm, 0))


# ---------------------------------------------------------------- entry point


def run_advise(
    study: StudyConfig | None,
    request: Request,
    workers: Workers,
    budget: int | None = None,
    asked_by: str = "advise",
) -> Advice:
    """Advise on the study (or go on with an advise folder): diagnosis, screening, selection
    and confirmation; the advice. `asked_by` "tune": tune's fairness question
    (`sim.studies.tune_fair`), its page a tune's."""
    state = _open_state(study, request, workers, budget, asked_by)
    say = _printer(workers.quiet)
    steps = plan(state.study, budget)
    say(steps.text())
    phases = [
        ("diagnose", lambda: _diagnose(state, workers, say)),
        ("screen", lambda: _screen(state, steps, workers, say)),
        ("select", lambda: _select(state, workers, say)),
        ("confirm", lambda: _confirm(state, workers, say)),
    ]
    run_phases(state, phases, Checkpoint(state))
    return advice(state)


def _open_state(study, request: Request, workers: Workers, budget, asked_by) -> AdviseState:
    if request.resume is not None:
        out_dir = request.resume
        meta = read_study_meta(out_dir, "advise")
        saved = saved_study(meta, out_dir / STUDY_FILE)
        if study is not None and study.config_hash() != saved.config_hash():
            raise SimError(f"{out_dir}: this advice was started from another config")
        return state_of(saved, out_dir, meta)
    study = new_study(study, request, asked_by)
    plan(study, budget)  # before the folder: a budget that cannot pay is one line
    check_page(request, asked_by, study)
    out_dir = new_folder(
        request.out,
        folder_stem(asked_by, study.name),
        "folder exists and is not empty; use another --out",
    )
    a, players = study.advise, study.game.players
    at_levels = [
        study.with_overrides(**NO_BLOCKS, seats=[lv.seat] * players, games=a.games)
        for lv in levels_of(study)
    ]
    games = a.games * len(at_levels)
    chunk = chunk_games(at_levels, resolve_jobs(workers.jobs, games))
    state = AdviseState(study, out_dir, chunk, asked_by=asked_by)
    state.save()
    return state


def level_study(
    state: AdviseState, level: Level, changes: dict, games: int, seed: int, label: str
) -> StudyConfig:
    """The advised study at one level with a candidate's changes (`at_level`)."""
    return at_level(state.study, level, changes, games, seed, label)


def _folder(state: AdviseState, phase: str, cid: int, level: int) -> Path:
    return state.out_dir / phase / f"c{cid:04d}-l{level}"


def _hint(state: AdviseState) -> str:
    return f"finish it with sim advise --resume {state.out_dir}"


# ---------------------------------------------------------------- 1. diagnosis


def _diagnose(state: AdviseState, workers: Workers, say: Say) -> str:
    """Every level on the study's seed; a level with an unclear cell again on SHARPEN times
    the games (the same games and more): each seat's cell, how the game plays, and why."""
    a, seed, levels = state.study.advise, state.study.seed, state.levels
    names = ", ".join(lv.label for lv in levels)
    say(
        f"advise: is it fair between equal players? {units.plural(len(levels), 'level')}"
        f" ({names}),"
        f" {a.games:,} games each (seed {seed})"
    )
    state.results.diagnosis = [None] * len(levels)  # again from the runs on disk
    state.spent_by["diagnose"], state.spent = 0, state.spent - state.spent_by["diagnose"]
    games = dict.fromkeys(range(len(levels)), a.games)
    _diagnose_at(state, games, workers)
    unclear = [
        i
        for i, r in enumerate(state.results.diagnosis)
        if any(c.verdict == "unclear" for c in r.cells)
    ]
    if unclear:
        more = a.games * SHARPEN
        say(
            f"advise: {', '.join(levels[i].label for i in unclear)}: a seat is unclear;"
            f" {more:,} games there (the same games and more)"
        )
        _diagnose_at(state, {i: more for i in unclear}, workers)
    for r in state.results.diagnosis:
        cells = [c.to_json() for c in r.cells]
        say(f"advise: {r.level} ({r.games:,} games): {seat_cells_text(cells)}")
    return "screen" if problem_levels(state) else "done"


def _diagnose_at(state: AdviseState, games: dict[int, int], workers: Workers) -> None:
    """Play (or extend) the diagnosis at the given levels to the given games, and judge."""
    seed, levels, bands = state.study.seed, state.levels, seat_bands(state.study)
    rows = state.results.diagnosis
    for n in sorted(set(games.values())):
        at = [i for i, g in games.items() if g == n]
        points = [
            (level_study(state, levels[i], {}, n, seed, ""), _folder(state, "diagnose", 0, i))
            for i in at
        ]
        why = "how it plays says how tense the game is"
        models, noises = _judged(points, workers.quiet, why)
        checked = check_all(
            points, state.targets, state.chunk, workers, _hint(state), models, noises
        )
        for i, row, noise in zip(at, checked, noises, strict=True):
            had = rows[i].games if rows[i] else 0
            state.spend("diagnose", n - had)
            run = load_run(_folder(state, "diagnose", 0, i))
            cells = level_cells(_moments(run), levels[i].label, bands)
            why = _why(run)
            play = _play(run, state.study, noise)
            rows[i] = LevelRow(levels[i].label, row, play, why, tuple(cells))


def _play(run, study: StudyConfig, noise: dict | None = None) -> dict[str, dict]:
    """How the game plays at a level: PLAY_METRICS with intervals (verdicts where the config
    targets them), and how tense it is (`FEEL_PLAY`, when its games hold the feel: their
    intervals widened by the model's own `noise`)."""
    feel = [m for m in FEEL_PLAY if m in run.games.columns]
    targets = {m: study.targets.get(m) for m in (*PLAY_METRICS, *feel)}
    everything = {m: t if t is not None else (-1e300, 1e300) for m, t in targets.items()}
    est = verdicts(run, everything, noise)
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
        "split": split[
            [
                "seat",
                "extra_share",
                "edge",
                "turn_part",
                "turn_lo",
                "turn_hi",
                "equal_part",
                "equal_lo",
                "equal_hi",
            ]
        ].to_dict("records"),
        "last": end["last"].to_dict("records"),
        "trigger": end["trigger"].to_dict("records"),
        "dead": dead_card_notes(usage, limit=3),
    }


# ---------------------------------------------------------------- 2. screening


KEEPS_TURNS = "keeps the turns"  # dropped by the rules, not by the race


def _new_candidates(state: AdviseState) -> list[Candidate]:
    """Every one-setting change, with what it acts on; those that cannot move the turn order
    marked when the worst problem comes from it."""
    study, turns = state.study, turn_driven(state)
    out = []
    for cid, moved in enumerate(fix_candidates(study), start=1):
        keeps = not moves_turns(study, moved)
        change = Change(
            cid,
            moved,
            label_of(study, moved),
            size_of(study, moved),
            group_of(study, moved),
            turns_of(study, moved).text(),
        )
        out.append(Candidate(change, dropped=KEEPS_TURNS if turns and keeps else None))
    return out


def rungs(a, candidates: int) -> list[tuple[int, int]]:
    """Successive halving: (games, kept after it) per rung. The first rung plays every live
    change on `advise.screen` games; each rung keeps about 1/ETA (at least the finalists)
    and gives them ETA times the games; the last keeps `advise.finalists`."""
    out, games, alive = [], a.screen, candidates
    while True:
        keep = max(a.finalists, -(-alive // ETA))
        if keep <= a.finalists or len(out) == RUNGS - 1:
            out.append((games, a.finalists))
            return out
        out.append((games, keep))
        games, alive = games * ETA, keep


def screen_cost(a, candidates: int, levels: int) -> int:
    """Games the racing plays for `candidates` live changes at `levels` levels."""
    total, had, alive = 0, 0, candidates
    for games, keep in rungs(a, candidates):
        total += alive * levels * (games - had)
        had, alive = games, keep
    return total


def _screen(state: AdviseState, steps: Plan, workers: Workers, say: Say) -> str:
    """Racing on the study's seed (common random numbers with the diagnosis): every live
    change at every level, then successive halving (`rungs`): after each rung the clearly
    worse dropped and about a third kept, by the whole game's root-mean-square edge.

    Every level from the first rung, though the problems may be at one: when the edge comes
    from the turn order, every change that evens the turns fixes the problem level alike,
    and what tells them apart is the other levels. A first rung at the problem levels
    alone (tried: 24% less CPU) dropped one Princess fewer at the config's seed and led with
    one E box card fewer (3.5 pp at heuristic)."""
    a, levels = state.study.advise, state.levels
    where = problem_levels(state)
    if not state.candidates:
        state.candidates = _new_candidates(state)
        state.save()
    # a resumed screen races again from the first rung on the runs already on disk, so it
    # drops exactly what an uninterrupted one would (only the rules' drop is kept)
    for c in state.candidates:
        if c.dropped != KEEPS_TURNS:
            c.dropped = None
    live = [c for c in state.candidates if not c.dropped]
    kept_turns = len(state.candidates) - len(live)
    if kept_turns:
        say(
            f"advise: the worst edge comes from the turn order; {kept_turns} changes that"
            " keep every seat's turns (toys, spray bottles, rules) cannot fix it"
        )
    afford = len(live)
    while afford > 1 and screen_cost(a, afford, len(levels)) > steps.screen:
        afford -= 1
    for c in live[afford:]:
        c.dropped = "over the budget"
    live = live[:afford]
    every = list(range(len(levels)))
    for r, (games, keep) in enumerate(rungs(a, len(live))):
        where_text = f" (problems at {', '.join(levels[i].label for i in where)})" if not r else ""
        say(
            f"advise: screening rung {r + 1}: {len(live)} one-setting changes at every"
            f" level{where_text}, {games:,} games each (seed {state.study.seed}, common random"
            " numbers)"
        )
        _play_candidates(state, live, every, games, workers, say)
        before = len(live)
        live = _race(state, live, keep, anytime=True)
        say(f"advise: rung {r + 1}: {len(live)} of {before} go on")
    state.results.screened = [c.id for c in live]
    return "select"


def _race(state: AdviseState, cands: list[Candidate], keep: int, anytime: bool) -> list[Candidate]:
    """Drop the candidates clearly worse than the best (their cells' confidence sequences),
    inert ones (the start's very games), and all but the best `keep` by the screen's rank."""
    games = [whole_of(c) for c in cands]
    worse = clearly_worse(games)
    out = []
    for c, g, bad in zip(cands, games, worse, strict=True):
        if c.inert:
            c.dropped = "plays the start's very games"
        elif bad:
            c.dropped = "clearly worse than the best"
        else:
            out.append((screen_key(g, c.change.size), c))
    out.sort(key=lambda x: (x[0], x[1].id))
    for _, c in out[keep:]:
        c.dropped = "not among the best"
    return [c for _, c in out[:keep]]


def _play_candidates(
    state: AdviseState,
    cands: list[Candidate],
    levels: list[int],
    games: int,
    workers,
    say: Say = lambda _text: None,
) -> None:
    """Screen candidates at the given levels on the study's seed, `games` each (a run already
    on disk is extended), in one pool; each cell's anytime-valid interval."""
    seed, bands = state.study.seed, seat_bands(state.study)
    points = []
    for c in cands:
        for i in levels:
            study = level_study(
                state, state.levels[i], c.change.changes, games, seed, c.change.label
            )
            points.append(
                (c, i, Point(study, _folder(state, "screen", c.id, i), None, CANDIDATE_TABLES))
            )
    if not points:
        return
    execute([p for _, _, p in points], state.chunk, workers, died_hint=_hint(state))
    say(f"advise: judging {len(points):,} runs (every seat's confidence sequence)")
    start = {i: load_run(_folder(state, "diagnose", 0, i)) for i in levels}
    for c, i, p in points:
        had = c.games.get(str(i), 0)
        state.spend("screen", max(games - had, 0))
        c.games[str(i)] = max(games, had)
        run = load_run(p.folder)
        cells = level_cells(_moments(run), state.levels[i].label, bands, ALPHA, anytime=True)
        c.cells[str(i)] = [x.to_json() for x in cells]
        # only a rule can play the start's very games (a card count changes every deal), and
        # the first rung tells: compared there once, not at every rung
        if not had and all(path.startswith("rules.") for path in c.change.changes):
            c.inert = c.inert or S.same_games(run, start[i])
    state.save()


# ---------------------------------------------------------------- 3. selection


def _select(state: AdviseState, workers: Workers, say: Say) -> str:
    """The finalists at every level on fresh games (seed + 1), ranked by the whole game; the
    best and those within noise of it (at most SET_SIZE) are the set to confirm."""
    a, seed = state.study.advise, state.study.seed + SELECT_SEED_OFFSET
    screened = state.results.screened
    cands = sorted(
        (c for c in state.candidates if c.id in screened), key=lambda c: screened.index(c.id)
    )
    cands += _neighbours_of(state, cands[:NEIGHBOURS])
    if not cands:
        say("advise: no change to choose from (every one played the start's very games)")
        state.results.selection, state.results.chosen = [], []
        return "confirm"
    say(
        f"advise: selection: {len(cands)} changes at every level, {a.select:,} fresh games"
        f" each (seed {seed})"
    )
    checked = _check(state, cands, "select", a.select, seed, ALPHA, workers)
    start = state.start_game()
    # ranked on every game before the confirmation: the screen's and these
    rows = [replace(r, pooled=tuple(_pooled_cells(state, r.id))) for r in checked]
    fair = [
        (r, r.pooled_game(), r.change.size)
        for r in rows
        if not moves_problem(r.pooled_game(), start)
    ]
    groups = ranked(fair)
    order = [e[0].id for g in groups for e in g]
    order += [r.id for r in rows if r.id not in order]  # those that move a problem
    state.results.selection = sorted(rows, key=lambda r: order.index(r.id))
    # the set: the best, then those whose worst edge cannot be told from the best's, whatever
    # their class (whether every cell is inside is itself a verdict on few games), in the
    # ranked order, at most SET_SIZE
    flat = [e for g in groups for e in g]
    high = flat[0][1].worst_bounds()[1] if flat else 0.0
    tied = [e[0].id for e in flat if e[1].worst_bounds()[0] <= high]
    state.results.chosen = tied[:SET_SIZE]
    return "confirm"


def _neighbours_of(state: AdviseState, best: list[Candidate]) -> list[Candidate]:
    """The changes that set the same count as one of `best` one copy further or nearer
    (`neighbours`) and are not among them: played in the selection beside it, whatever the
    screen's few games said of them (the rules' drops stand)."""
    out = []
    for b in best:
        for c in state.candidates:
            near = neighbours(b.change.changes, c.change.changes)
            # dropped by the race (played at every level), not by the rules or the budget
            raced = c.dropped not in (None, KEEPS_TURNS) and c.games and not c.inert
            if near and raced and all(c is not x for x in out):
                out.append(c)
    return out


def _pooled_cells(
    state: AdviseState, cid: int, phases: tuple[str, ...] = ("screen", "select")
) -> list[Cell]:
    """A change's cells on its games of several phases together (independent samples of the
    same change: the screen's on the study's seed, the selection's on seed + 1), so the
    ranking that chooses the set rests on every game played before the confirmation."""
    bands, out = seat_bands(state.study), []
    for i, lv in enumerate(state.levels):
        parts = [_moments(load_run(_folder(state, phase, cid, i))) for phase in phases]
        out += level_cells(Moments.combine(parts), lv.label, bands, ALPHA)
    return out


def _moments(run) -> Moments:
    """A run's merged moments: its seats' cells come from them, with no table read."""
    return run_moments(Path(run.run_dir), run.meta)


def _judged(points, quiet: bool, why: str) -> tuple[list, list]:
    """Each (study, folder) point's own feel model and that model's noise (`config_feel`),
    as the two lists `check_all` takes."""
    judged = [config_feel(study, folder, quiet, why) for study, folder in points]
    return [m for m, _ in judged], [n for _, n in judged]


def _check(
    state, cands: list[Candidate], phase: str, games: int, seed: int, alpha: float, workers
) -> list[ChangeRow]:
    """Candidates at every level on `games` fresh games of `seed`, in one pool: each one's
    cells (intervals at 1 − alpha) and the config's other targets. A target on the feel is
    judged at the confirmation only, each change at each level by its own model with that
    model's noise (as `sim run` of it would; the selection's many changes go without)."""
    levels, bands = state.levels, seat_bands(state.study)
    points, keys = [], []
    for c in cands:
        for i, lv in enumerate(levels):
            study = level_study(state, lv, c.change.changes, games, seed, c.change.label)
            points.append((study, _folder(state, phase, c.id, i)))
            keys.append((c, i))
    targets, models, noises = state.targets, None, None
    if phase == "confirm" and state.feel_targets:
        why = f"a target on {state.feel_targets[0]}; each change confirmed is judged by its own"
        models, noises = _judged(points, workers.quiet, why)
    else:
        targets = {n: t for n, t in targets.items() if n not in state.feel_targets}
    rows = check_all(
        points, targets, state.chunk, workers, _hint(state), models, noises, CANDIDATE_TABLES
    )
    state.spend(phase, games * len(points))
    by_level: dict[int, dict[str, dict]] = {}
    cells: dict[int, list[Cell]] = {}
    for (c, i), row, (_, folder) in zip(keys, rows, points, strict=True):
        by_level.setdefault(c.id, {})[levels[i].label] = row.to_json()
        run = load_run(folder)
        cells.setdefault(c.id, []).extend(level_cells(_moments(run), levels[i].label, bands, alpha))
    return [ChangeRow(c.change, by_level[c.id], tuple(cells[c.id])) for c in cands]


# ---------------------------------------------------------------- 4. confirmation


def _confirm(state: AdviseState, workers: Workers, say: Say) -> str:
    """The set's members, and the start beside them, at every level on fresh games
    (seed + 2); each member's cells at 1 − 0.05/m."""
    a, seed = state.study.advise, state.study.seed + CONFIRM_SEED_OFFSET
    ids = state.results.chosen
    if not ids:
        say("advise: no change comes close enough to confirm")
        state.results.confirmation = []
        return "done"
    cands = [c for c in state.candidates if c.id in ids]
    cands.sort(key=lambda c: ids.index(c.id))
    say(
        f"advise: confirming {len(cands)} change(s) and the start at every level,"
        f" {a.confirm:,} fresh games each (seed {seed})"
    )
    alpha = ALPHA / len(cands)
    rows = _check(state, [START, *cands], "confirm", a.confirm, seed, alpha, workers)
    state.results.confirmation = rows
    state.results.confirm_alpha = alpha
    # the start judged on every game it played (the diagnosis's and the confirmation's): what
    # a fix must beat, steadier than either sample alone
    state.results.start_pooled = tuple(_pooled_cells(state, 0, ("diagnose", "confirm")))
    return "done"


# ---------------------------------------------------------------- the advice


def _printer(quiet: bool) -> Say:
    if quiet:
        return lambda _text: None
    return lambda text: print(text, file=sys.stderr, flush=True)
