"""`sim tune`: the smallest change of the game's settings that meets the designer's targets,
confirmed on games that played no part in choosing it.

Four phases, each on games of its own:

1. **The start**, on `budget.confirm` fresh games (seed + 2). When it meets every target,
   the answer is "no change needed" and nothing is searched.
2. **The search**, on the study's seed with common random numbers
   (`sim.studies.tune_search`): one-setting moves first, larger moves only when none fits;
   settings that cannot matter (their moves play the start's very games) left out.
3. **The selection**, on `budget.select` fresh games each (seed + 1): the best
   `budget.finalists` candidates of the search; chosen is the one with the most targets
   met (its 95% interval inside the band), then the fewest changes and the smallest moves
   (one card fewer before two more), then the smallest distance. One that misses a target
   outright there is not worth confirming.
4. **The confirmation**, on the start's games (seed + 2, `budget.confirm` games): the chosen
   candidate alone, so no correction over candidates is needed. It is recommended only when
   every target is met there (an intersection-union test: each target at its own 95%).

`--budget` (`budget.games`) counts every game of the four phases: the start, the
selection and the confirmation are planned first, the search gets the rest, and a budget
too small for them is refused in one line. Each phase says what it plays before it plays.

Folder layout (every run folder is an ordinary run):

    <out>/study.json          kind "tune": the study, the phase, every candidate, games spent
    <out>/candidates/c0000/   the search's runs on the study's seed (c0000 is the start)
    <out>/select/c0007/       the selection's runs (seed + 1)
    <out>/confirm/start/      the start's check, and the confirmation's run (seed + 2)

Resume: the state is saved after every phase and round, and a phase replays from the
runs on disk (only missing chunks are played), so a killed tune goes on where it
stopped and reaches the same answer.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.config import Settings, StudyConfig, TuneBlock, parse_study, tune_game_problem
from sim.errors import SimError
from sim.feel.model import FeelModel
from sim.metrics import FEEL_METRICS
from sim.runs.chances import config_feel, run_feel
from sim.runs.folders import new_folder
from sim.runs.options import Workers
from sim.runs.orchestrate import chunk_games
from sim.runs.parallel import resolve_jobs
from sim.runs.paths import STUDY_FILE, folder_stem
from sim.runs.storage import CANDIDATE_TABLES, read_study_meta, write_json
from sim.studies import tune_search as S
from sim.studies.checks import check
from sim.studies.phases import Checkpoint, run_phases
from sim.studies.tune_verdict import (
    CONFIRM_SEED_OFFSET,
    SELECT_SEED_OFFSET,
    TuneResults,
    TuneRow,
    Verdict,
    live_candidates,
    targets_text,
    verdict_of,
)
from sim.version import ENGINE_VERSION

PHASES = ("start", "search", "select", "confirm", "done")
Say = Callable[[str], None]


@dataclass
class TuneState:
    """Everything a tune folder records: the study, the phase, its candidates and rounds."""

    study: StudyConfig
    out_dir: Path
    chunk: int  # games per chunk of the search runs
    check_chunk: int  # ... of the selection and confirmation runs
    phase: str = "start"
    candidates: list[S.TuneCandidate] = field(default_factory=list)
    rounds: list[dict] = field(default_factory=list)
    spent: int = 0
    spent_by: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES[:4], 0))
    wall_s: float = 0.0
    trace: list[dict] = field(default_factory=list)
    inert: list[str] = field(default_factory=list)
    results: TuneResults = field(default_factory=TuneResults)  # each checked config's targets

    @property
    def tune(self) -> TuneBlock:
        return self.study.tune

    @property
    def feel_targets(self) -> list[str]:
        """The targets on how the game feels (`sim.metrics.FEEL_METRICS`), in their order."""
        return [m.name for m in FEEL_METRICS if m.name in self.tune.targets]

    def search_model(self, folders: list[Path], quiet: bool) -> FeelModel | None:
        """The one feel model that judges every candidate of the search, saved in each of
        their `folders` (None without a feel target): the start's own (the first folder,
        c0000, keeps it), so candidates on common random numbers differ by their games, not
        by their yardsticks (two models fitted alike differ by several standard errors of a
        long run, docs/guide/feel.md). The checks judge each config by its own (`_check`)."""
        if not self.feel_targets:
            return None
        start = S.apply_point(self.study, self.start_point())
        return run_feel([start], [self.candidate_dir(0), *folders], quiet)

    @property
    def budget(self):
        return self.tune.budget

    def start_point(self) -> Settings:
        """The starting config's value of every setting in the space."""
        base = self.study.to_yaml_dict()
        return {p: _get_dotted(base, p) for p in self.tune.space}

    def label(self, index: int) -> str:
        """A candidate by its changes, as a designer reads them ('start' for none)."""
        moved = self.candidates[index].changes
        return ", ".join(f"{p}={S.plain(v)}" for p, v in moved.items()) or "start"

    def candidate_dir(self, index: int) -> Path:
        return self.out_dir / "candidates" / f"c{index:04d}"

    def save(self, status: str | None = None) -> None:
        """Write study.json (atomically): the state a resume rebuilds the tune from."""
        write_json(
            self.out_dir / STUDY_FILE,
            {
                "kind": "tune",
                "name": self.study.name,
                "config": self.study.to_yaml_dict(),
                "sets": list(self.study.sets),
                "config_hash": self.study.config_hash(),
                "engine_version": ENGINE_VERSION,
                "chunk_games": self.chunk,
                "check_chunk_games": self.check_chunk,
                "status": status or self.phase,
                "phase": self.phase,
                "games_spent": self.spent,
                "games_by_phase": self.spent_by,
                "wall_time_s": round(self.wall_s, 3),
                "candidates": [c.to_json() for c in self.candidates],
                "rounds": self.rounds,
                "trace": self.trace,
                "inert": self.inert,
                "results": self.results.to_json(),
            },
        )


# ---------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Plan:
    """How the budget is spent: the start's check, the selection and the confirmation are
    fixed; the search gets the rest."""

    budget: int
    start: int
    select: int  # all finalists together
    confirm: int
    search: int

    def text(self) -> str:
        return (
            f"plan: start check {self.start:,} games, search at most {self.search:,},"
            f" selection {self.select:,}, confirmation {self.confirm:,}: at most"
            f" {self.budget:,} games in all"
        )


def plan(tune: TuneBlock, checked: int = 0) -> Plan:
    """The budget's split; refuses, in one line, a budget that cannot pay for the checks.
    `checked`: games a resumed tune already spent on a selection and confirmation that it
    searches on after (a larger budget), which count too."""
    b = tune.budget
    if problem := b.too_small(b.games - checked):
        raise SimError(f"--budget: {problem}")
    fixed = b.confirm + b.finalists * b.select + b.confirm + checked
    return Plan(b.games, b.confirm, b.finalists * b.select, b.confirm, b.games - fixed)


# ---------------------------------------------------------------- entry point


def run_tune(
    study: StudyConfig | None,
    workers: Workers,
    *,
    budget: int | None = None,
    out: Path | None = None,
    resume: Path | None = None,
) -> Verdict:
    """Tune the study (or go on with a tune folder): the start's check, the search, the
    selection and the confirmation; the verdict. `budget` replaces `tune.budget.games`
    (also when resuming: a finished tune given a larger budget searches on)."""
    state = _open_state(study, budget, workers.jobs, out, resume)
    say = _printer(workers.quiet)
    if budget is not None and state.phase == "done" and _searches_on(state):
        state.phase = "search"  # a larger budget: search on, then choose and confirm again
        state.results = TuneResults(start=state.results.start)
    checked = state.spent_by["select"] + state.spent_by["confirm"] if state.phase == "search" else 0
    steps = plan(state.tune, checked)
    say(steps.text())
    saved = Checkpoint(state)

    def search() -> str:
        _search(state, steps, workers, say, lambda: saved("search"))
        return "select"

    phases = [
        ("start", lambda: "done" if _check_start(state, workers, say) else "search"),
        ("search", search),
        ("select", lambda: _select(state, workers, say)),
        ("confirm", lambda: _confirm(state, workers, say)),
    ]
    run_phases(state, phases, saved)
    return verdict_of(state)


def _open_state(study, budget, jobs, out, resume) -> TuneState:
    """A fresh tune folder, or the state of one to resume (refusing another study)."""
    if resume is not None:
        out_dir = Path(resume)
        meta = read_study_meta(out_dir, "tune")
        saved = parse_study(meta["config"], str(out_dir / STUDY_FILE), sets=meta.get("sets") or ())
        if study is not None and (
            study.config_hash() != saved.config_hash() or study.tune != saved.tune
        ):
            raise SimError(f"{out_dir}: this tuning was started from a different config")
        if "phase" not in meta:
            raise SimError(f"{out_dir}: made by an older sim tune; start a new tune")
        if budget is not None:
            saved = _with_budget(saved, budget)
        state = TuneState(saved, out_dir, meta["chunk_games"], meta["check_chunk_games"])
        for name in ("phase", "rounds", "trace", "inert"):
            setattr(state, name, meta[name])
        state.results = TuneResults.from_json(meta["results"])
        state.candidates = [S.TuneCandidate.from_json(c) for c in meta["candidates"]]
        state.spent, state.spent_by = meta["games_spent"], meta["games_by_phase"]
        state.wall_s = meta.get("wall_time_s", 0.0)
        return state
    if study is None:
        raise SimError("sim tune: give a CONFIG file, or --resume TUNE_DIR")
    if not study.tune:
        raise SimError(
            f"{study.source}: no 'tune:' block; add e.g. "
            "{space: {deck.sprayers: [0, 10]}, targets: {mean_score: 1}, budget: {games: 100000}}"
        )
    if budget is not None:
        study = _with_budget(study, budget)
    elif problem := study.tune.budget.too_small(study.tune.budget.games):
        raise SimError(f"{study.source}: tune.budget.games: {problem} (or give --budget)")
    out_dir = new_folder(
        out, folder_stem("tune", study.name), "folder exists and is not empty; use another --out"
    )
    state = TuneState(study, out_dir, _chunk(study, jobs), _check_chunk(study, jobs))
    state.save()
    return state


def _with_budget(study: StudyConfig, games: int) -> StudyConfig:
    """The study with tune.budget.games replaced (validated like the file's own)."""
    if problem := study.tune.budget.too_small(games):
        raise SimError(f"--budget: {problem}")
    tune = study.to_yaml_dict()["tune"]
    tune["budget"]["games"] = games
    return study.with_overrides(tune=tune)


def _chunk(study: StudyConfig, jobs: int) -> int:
    """Games per chunk: a divisor of the first rung (so promoted runs extend whole chunks)."""
    first = study.tune.budget.first
    want = chunk_games([study.with_overrides(games=first)] * S.BATCH, resolve_jobs(jobs, first))
    return max(d for d in range(1, want + 1) if first % d == 0)


def _check_chunk(study: StudyConfig, jobs: int) -> int:
    """Games per chunk of the checks (the start, the selection, the confirmation)."""
    games = study.tune.budget.confirm
    return chunk_games([study.with_overrides(games=games)], resolve_jobs(jobs, games))


# ---------------------------------------------------------------- 1. the start


def _check(
    state: TuneState,
    label: str,
    params: dict,
    folder: Path,
    games: int,
    seed: int,
    workers: Workers,
) -> TuneRow:
    """One config of the space on `games` fresh games of `seed` (resumable), every target
    checked (`sim.studies.checks.check`)."""
    study = S.apply_point(state.study, params).with_overrides(
        games=games, seed=seed, name=f"{state.study.name}[{label}]"
    )
    hint = f"finish it with sim tune --resume {state.out_dir}"
    model, noise = None, None
    if state.feel_targets:  # judged by its own model, as `sim run` of this config would be
        why = f"a target on {state.feel_targets[0]}; each config checked is judged by its own"
        model, noise = config_feel(study, folder, workers.quiet, why)
    targets = state.tune.targets
    checked = check(
        study, targets, folder, state.check_chunk, workers, hint, model, noise, CANDIDATE_TABLES
    )
    return TuneRow(label, params, S.changes(params, state.start_point()), checked)


def _check_start(state: TuneState, workers: Workers, say: Say) -> bool:
    """Phase 1: the start on the confirmation's games; True when it meets every target."""
    b = state.budget
    seed = state.study.seed + CONFIRM_SEED_OFFSET
    say(f"tune: checking the start on {b.confirm:,} fresh games (seed {seed})")
    row = _check(
        state,
        "start",
        state.start_point(),
        state.out_dir / "confirm" / "start",
        b.confirm,
        seed,
        workers,
    )
    _spend(state, "start", row.games)
    state.results.start = row
    met = row.met == len(state.tune.targets)
    say(
        f"tune: the start {'meets every target' if met else 'misses a target'}:"
        f" {targets_text(state, row)}"
    )
    return met


def _spend(state: TuneState, phase: str, games: int) -> None:
    state.spent += games
    state.spent_by[phase] += games


# ---------------------------------------------------------------- 2. the search


def _search(state: TuneState, steps: Plan, workers: Workers, say: Say, save) -> None:
    """Phase 2: one-setting moves, raced; larger moves (TPE) only when none fits; the winner
    reduced to the settings it needs."""
    first = state.budget.first
    if not state.candidates:
        start = state.start_point()
        moves = [p for p in S.neighbours(start, state.tune.space) if _valid(state, p)]
        for params in [start, *moves]:
            _add(state, params, 0)
        state.rounds.append(
            {
                "round": 0,
                "candidates": [c.id for c in state.candidates],
                "kind": "one-setting moves",
                "done": False,
            }
        )
        save()
        n = len(state.candidates)
        say(
            f"tune: search round 0: the start and {n - 1} one-setting moves, {first:,} games"
            f" each (seed {state.study.seed}, common random numbers)"
        )
    if not state.rounds[0]["done"]:
        S.race(state, state.rounds[0]["candidates"], first, workers, steps.search)
        state.inert = S.mark_inert(state)
        state.rounds[0]["done"] = True
        save()
        say(_progress(state, steps))
        if state.inert:
            say(
                f"tune: {', '.join(state.inert)} cannot matter here (every move of it played"
                " the start's very games): left out"
            )
    while not _single_fits(state):
        if state.rounds[-1]["done"] and not _new_round(state, steps):
            break
        round_ = state.rounds[-1]
        S.race(state, round_["candidates"], round_["start_games"], workers, steps.search)
        round_["done"] = True
        save()
        say(_progress(state, steps))
    _reduce(state, steps, workers, say)
    save()


def _add(state: TuneState, params: dict, round_: int) -> int:
    start = state.start_point() if state.candidates else params
    moved = S.changes(params, start)
    size = S.size(moved, start, state.tune.space)
    state.candidates.append(S.TuneCandidate(len(state.candidates), round_, params, moved, size))
    return len(state.candidates) - 1


def _valid(state: TuneState, params: dict) -> bool:
    return tune_game_problem(state.study.game.game_dict(), state.tune, params) is None


def _single_fits(state: TuneState) -> bool:
    """Has a one-setting move fit every target on the search games?"""
    return any(c.fits and len(c.changes) == 1 for c in live_candidates(state))


def _new_round(state: TuneState, steps: Plan) -> bool:
    """A round of larger moves from TPE (inert settings held at the start); False when the
    search budget or the space is used up."""
    first = state.budget.first
    n = min(S.BATCH, (steps.search - state.spent_by["search"]) // first)
    if n < 1:
        return False
    space = {p: s for p, s in state.tune.space.items() if p not in state.inert}
    if not space:
        return False
    seed = state.study.seed * 1009 + len(state.rounds)
    wanted = S.ask(state, n, seed, space)
    if not wanted:
        return False
    ids = [_add(state, params, len(state.rounds)) for params in wanted]
    state.rounds.append(
        {
            "round": len(state.rounds),
            "candidates": ids,
            "start_games": first,
            "kind": "larger moves (TPE)",
            "done": False,
        }
    )
    return True


def _reduce(state: TuneState, steps: Plan, workers: Workers, say: Say) -> None:
    """Drop each setting of the best fitting candidate in turn while the reduced candidate
    still fits (played on the same search games): a recommendation needs every change."""
    while True:
        live = sorted(live_candidates(state), key=S.rank_key)
        best = next((c for c in live if c.fits), None)
        if best is None or len(best.changes) < 2:
            return
        tried = {S.key(c.params) for c in state.candidates}
        trials = []
        for path in best.changes:
            params = {**best.params, path: state.start_point()[path]}
            if S.key(params) not in tried and _valid(state, params):
                trials.append(_add(state, params, len(state.rounds)))
        cost = best.games * len(trials)
        if not trials or state.spent_by["search"] + cost > steps.search:
            return
        say(f"tune: does {state.label(best.id)} need every change? {len(trials)} reductions")
        S.evaluate(state, trials, best.games, workers)
        if not any(state.candidates[i].fits for i in trials):
            return


def _searches_on(state: TuneState) -> bool:
    """A finished tune given a larger budget searches on, unless its answer is settled (the
    start met every target, or a change was confirmed)."""
    n = len(state.tune.targets)
    confirmed = state.results.confirmation
    settled = state.results.start.met == n or (confirmed is not None and confirmed.met == n)
    checked = state.spent_by["select"] + state.spent_by["confirm"]
    return (
        not settled
        and state.spent_by["search"] + state.budget.first <= plan(state.tune, checked).search
    )


# ---------------------------------------------------------------- 3. the selection


def _select(state: TuneState, workers: Workers, say: Say) -> str:
    """Phase 3: the best finalists on fresh games; choose the one with the most targets met,
    then the smallest change, then the smallest distance. A choice that misses a target
    outright (its interval wholly outside the band) is not worth confirming: none."""
    b = state.budget
    finalists = sorted(live_candidates(state), key=S.rank_key)[: b.finalists]
    seed = state.study.seed + SELECT_SEED_OFFSET
    rows = []
    for c in finalists:
        say(f"tune: selection: {state.label(c.id)} on {b.select:,} fresh games (seed {seed})")
        folder = state.out_dir / "select" / f"c{c.id:04d}"
        row = _check(state, state.label(c.id), c.params, folder, b.select, seed, workers)
        _spend(state, "select", row.games)
        rows.append(row)
    state.results.selection = rows
    n = len(state.tune.targets)
    space, start = state.tune.space, state.start_point()

    def choice(r: TuneRow) -> tuple:  # the most targets met, then the smallest change
        return (n - r.met, len(r.changes), S.size(r.changes, start, space), r.distance)

    best = min(rows, key=choice, default=None)
    missed = best is not None and any(e["verdict"] == "missed" for e in best.targets.values())
    state.results.chosen = None if best is None or missed else best.label
    if best is None:
        say("tune: no candidate to choose from")
    elif missed:
        say(
            f"tune: the best finalist, {best.label}, misses a target on the selection's"
            " games: nothing to confirm"
        )
    return "confirm"


# ---------------------------------------------------------------- 4. the confirmation


def _confirm(state: TuneState, workers: Workers, say: Say) -> str:
    """Phase 4: the chosen candidate alone on the start's games (seed + 2)."""
    label = state.results.chosen
    if label is None:
        return "done"
    row = next(r for r in state.results.selection if r.label == label)
    b = state.budget
    seed = state.study.seed + CONFIRM_SEED_OFFSET
    say(f"tune: confirming {label} on {b.confirm:,} fresh games (seed {seed}, the start's)")
    folder = state.out_dir / "confirm" / _slug(row.params, state)
    done = _check(state, label, row.params, folder, b.confirm, seed, workers)
    _spend(state, "confirm", done.games)
    state.results.confirmation = done
    return "done"


def _slug(params: dict, state: TuneState) -> str:
    index = next(c.id for c in state.candidates if S.key(c.params) == S.key(params))
    return f"c{index:04d}"


def _progress(state: TuneState, steps: Plan) -> str:
    live = sorted(live_candidates(state), key=S.rank_key)
    best = live[0] if live else state.candidates[0]
    fit = "fits every target" if best.fits else f"distance {best.distance:.2f}"
    return (
        f"tune: round {len(state.rounds) - 1}, {len(state.candidates)} candidates,"
        f" {state.spent_by['search']:,} of at most {steps.search:,} search games; best so far"
        f" {state.label(best.id)} ({fit} on {best.games:,} games)"
    )


def _printer(quiet: bool) -> Say:
    if quiet:
        return lambda _text: None
    return lambda text: print(text, file=sys.stderr, flush=True)


def _get_dotted(data: dict, dotted: str) -> Any:
    """A game setting from a YAML-layout dict by its canonical dotted name."""
    node: Any = data
    for part in _split(dotted):
        node = node[part]
    return node


def _split(dotted: str) -> list[str]:
    """'deck.boxes.NS' -> parts; the empty box key is written deck.boxes.''."""
    return ["" if p in ("''", '""') else p for p in dotted.split(".")]
