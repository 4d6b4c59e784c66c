"""The search of `sim tune`: candidates on common random numbers, smallest changes first.

Every candidate plays the same game indices from the study's seed, so two
candidates differ by their settings, not by luck. The search runs in rounds:

1. The start and every one-setting move one and two steps from it (a setting of
   `choices` moves to its neighbours in the list). A move that plays the very
   games of the start (a rule whose card is not in the deck, say) cannot matter:
   its setting is marked inert and never enters a recommendation.
2. Racing (successive halving) promotes the best third of a round to three times
   the games, so the estimates that decide get sharper.
3. Only when no one-setting move fits every target on the search games do larger
   moves come in: Optuna's TPE proposes them, round by round, from the first-rung
   distance of every candidate so far (`sim.analysis.tuning.target_distance`).
4. A fitting winner that changes several settings loses, one at a time, each
   setting it does not need (the reduced candidate must still fit).

Ranking prefers a fitting candidate with fewer changes, then a smaller distance;
nothing here decides a recommendation: that is the selection's and the
confirmation's, on fresh games (`sim.studies.tune`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.tuning import target_distance, target_misses
from sim.config import Json, Settings, Space, StudyConfig, Targets, tune_game_problem, tune_values
from sim.runs.orchestrate import Point, execute
from sim.runs.partials import run_metrics_of
from sim.runs.storage import CANDIDATE_TABLES, RunResult, load_run

ETA = 3  # successive halving: keep a third, give them three times the games
# Rungs per round: `first` games, then ETA times as many for the best third. A third rung
# (the round's winner on ETA^2 times) left fewer games for breadth: on the 4-setting
# problem of sim.bench.tune its regret was 2.38 against 1.65 with two rungs (3 seeds).
RUNGS = 2
BATCH = 9  # TPE candidates per round: 9 on the first rung, 3 on the second
ASK_TRIES = 30  # asks per wanted candidate before the space counts as exhausted
STEPS = (1, 2)  # the one-setting moves: this many steps either way from the start
NAMING = ("config_hash", "engine_version")  # columns that name a run, not its games


# ---------------------------------------------------------------- candidates


@dataclass(slots=True)
class TuneCandidate:
    """A point of the space in the search: its settings (`params`), what it changes from the
    start and how far (`size`), the round that proposed it, and what its games said so far
    (the search adds games, so it is not frozen). `study.json` keeps `to_json()`."""

    id: int
    round: int
    params: Settings
    changes: Settings
    size: int
    games: int = 0
    values: dict[str, float] = field(default_factory=dict)
    distance: float | None = None
    first_distance: float | None = None  # on the first rung: what TPE learns from
    fits: bool = False
    inert: bool = False  # plays the start's very games

    def to_json(self) -> Json:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Json) -> TuneCandidate:
        return cls(**data)


def neighbours(start: Settings, space: Space) -> list[Settings]:
    """Every one-setting move of the start within the space, nearest first: each setting
    one and two steps either way (the nearest two values when the start lies outside)."""
    out = []
    for path, values in tune_values(space).items():
        here = start[path]
        if here in values:
            i = values.index(here)
            picks = [i + s * d for s in STEPS for d in (-1, 1) if 0 <= i + s * d < len(values)]
            moves = [values[j] for j in picks]
        elif all(isinstance(v, int | float) for v in values + [here]):
            moves = sorted(values, key=lambda v: (abs(v - here), v))[:2]
        else:
            moves = list(values)
        out += [{**start, path: v} for v in moves]
    return out


def changes(params: Settings, start: Settings) -> Settings:
    """The settings of a candidate that differ from the start's."""
    return {p: v for p, v in params.items() if v != start.get(p)}


def size(moved: Settings, start: Settings, space: Space) -> int:
    """How far a candidate moves from the start: the steps of each changed setting along its
    values (a choice, or a start outside the space: one step), summed."""
    total = 0
    for path, value in moved.items():
        values = tune_values({path: space[path]})[path] if path in space else []
        here = start.get(path)
        if value in values and here in values:
            total += abs(values.index(value) - values.index(here))
        else:
            total += 1
    return total


def fits(values: dict[str, float], targets: Targets) -> bool:
    """Every point estimate inside its band (no interval: the search only ranks)."""
    return all(z <= 1 for z in target_misses(values, targets).values())


def rank_key(cand: TuneCandidate) -> tuple:
    """Best first: fits every target, then the fewest changes and the smallest moves (one
    card fewer before two more), then the smallest distance, then the most games (the
    sharpest estimate), then the oldest."""
    fit = bool(cand.fits)
    small = (len(cand.changes), cand.size) if fit else (0, 0)
    return (not fit, *small, cand.distance, -cand.games, cand.id)


def estimates(run: RunResult, names: list[str]) -> dict[str, float]:
    """Each named metric's point estimate on a run (the race needs only ranks), from its
    merged chunk moments (`sim.runs.partials.run_metrics_of`)."""
    table = run_metrics_of(run, names).set_index("metric")
    return {n: float(table.at[n, "value"]) for n in names}


def same_games(a: RunResult, b: RunResult) -> bool:
    """Did two runs of the same seed play the very same games on the game indices both
    have (every table row equal but the columns that name the run)?"""
    n = min(a.meta["games"], b.meta["games"])
    for name in ("games", "players"):
        x, y = (
            (t := getattr(r, name))[t["game"] < n].drop(columns=list(NAMING), errors="ignore")
            for r in (a, b)
        )
        if x.shape != y.shape or not x.reset_index(drop=True).equals(y.reset_index(drop=True)):
            return False
    return True


def apply_point(study: StudyConfig, params: Settings) -> StudyConfig:
    """The study with a candidate's settings, no tune block (ready to run)."""
    return study.with_overrides(tune=None, sweep=None, **params)


# ---------------------------------------------------------------- playing


def evaluate(state, ids: list[int], games: int, workers) -> None:
    """Play candidates `ids` up to `games` games each on the study's seed (one pool, common
    random numbers) and record each one's estimates, distance and fit."""
    todo = [i for i in ids if state.candidates[i].games < games]
    if not todo:
        return
    targets = state.tune.targets
    folders = [state.candidate_dir(i) for i in todo]
    model = state.search_model(folders, workers.quiet)  # None without a feel target
    points = [
        Point(_study(state, i, games), f, model, CANDIDATE_TABLES)
        for i, f in zip(todo, folders, strict=True)
    ]
    execute(
        points, state.chunk, workers, died_hint=f"finish it with sim tune --resume {state.out_dir}"
    )
    for i in todo:
        cand = state.candidates[i]
        state.spent += games - cand.games
        state.spent_by["search"] += games - cand.games
        values = estimates(load_run(state.candidate_dir(i)), list(targets))
        cand.games, cand.values = games, values
        cand.distance, cand.fits = target_distance(values, targets), fits(values, targets)
        if cand.first_distance is None:
            cand.first_distance = cand.distance
        state.trace.append(
            {
                "games": state.spent,
                "candidate": i,
                "rung_games": games,
                "distance": cand.distance,
            }
        )


def _study(state, index: int, games: int) -> StudyConfig:
    params = state.candidates[index].params
    return apply_point(state.study, params).with_overrides(
        games=games, name=f"{state.study.name}[{state.label(index)}]"
    )


def race(state, ids: list[int], games: int, workers, budget: int) -> None:
    """Successive halving over a round's candidates: all on `games`, then the best third on
    ETA times as many (RUNGS rungs), while the search budget lasts."""
    alive = list(ids)
    for rung in range(RUNGS):
        evaluate(state, alive, games, workers)
        if len(alive) <= 1 or rung == RUNGS - 1:
            return
        ranked = sorted(alive, key=lambda i: rank_key(state.candidates[i]))
        more = games * ETA
        left = budget - state.spent_by["search"]
        # the best third, or as many of the best as the budget still pays for (two at least)
        n = min(math.ceil(len(alive) / ETA), left // (more - games))
        if n < 2:
            return
        alive, games = ranked[:n], more


def mark_inert(state) -> list[str]:
    """The settings whose every one-setting move played the start's very games: they cannot
    matter here. Their candidates are marked inert; returns the settings."""
    start_run = load_run(state.candidate_dir(0))
    moved: dict[str, list[bool]] = {}
    for cand in state.candidates[1:]:
        if cand.round != 0 or len(cand.changes) != 1 or not cand.games:
            continue
        (path,) = cand.changes
        same = same_games(load_run(state.candidate_dir(cand.id)), start_run)
        cand.inert = same
        moved.setdefault(path, []).append(same)
    return [p for p, same in moved.items() if all(same)]


# ---------------------------------------------------------------- larger moves (TPE)


def ask(state, n: int, seed: int, space: Space) -> list[dict]:
    """n new, valid, untried points of `space` from TPE, rebuilt from every candidate so far
    (inert settings held at the start's value)."""
    import optuna
    from optuna.distributions import CategoricalDistribution, IntDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = {
        p: IntDistribution(s[0], s[1])
        if isinstance(s, list)
        else CategoricalDistribution(s["choices"])
        for p, s in space.items()
    }
    start = state.start_point()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=seed % 2**32, n_startup_trials=BATCH, multivariate=True, constant_liar=True
        )
        opt = optuna.create_study(direction="minimize", sampler=sampler)
        for c in state.candidates:
            if c.first_distance is not None and in_space(c.params, space):
                params = {p: c.params[p] for p in space}
                opt.add_trial(
                    optuna.trial.create_trial(
                        params=params, distributions=dists, value=c.first_distance
                    )
                )
        seen = {key(c.params) for c in state.candidates}
        base = state.study.game.game_dict()
        out: list[dict] = []
        for _ in range(ASK_TRIES * max(n, 1)):
            if len(out) >= n:
                break
            trial = opt.ask(dists)
            params = {**start, **{p: plain(trial.params[p]) for p in space}}
            if key(params) in seen or tune_game_problem(base, state.tune, params):
                opt.tell(trial, state=optuna.trial.TrialState.FAIL)
                continue
            seen.add(key(params))
            out.append(params)
    return out


def in_space(params: Settings, space: Space) -> bool:
    """Does a point lie in the space (inside each range, among each setting's choices)?"""
    for path, spec in space.items():
        v = params.get(path)
        inside = spec[0] <= v <= spec[1] if isinstance(spec, list) else v in spec["choices"]
        if not inside:
            return False
    return True


def candidates_frame(state) -> pd.DataFrame:
    """One row per evaluated candidate: id, round, games, distance, each setting, each estimate."""
    rows = [
        {
            "id": c.id,
            "label": state.label(c.id),
            "round": c.round,
            "games": c.games,
            "distance": c.distance,
            "fits": c.fits,
            "changes": len(c.changes),
            **{p: plain(v) for p, v in c.params.items()},
            **c.values,
        }
        for c in state.candidates
        if c.distance is not None
    ]
    return pd.DataFrame(rows)


def key(params: dict) -> str:
    """A point's identity: its settings, sorted."""
    return repr(sorted((k, plain(v)) for k, v in params.items()))


def plain(value: Any) -> Any:
    """numpy scalars from the sampler as plain Python values (for JSON and YAML)."""
    return value.item() if isinstance(value, np.generic) else value
