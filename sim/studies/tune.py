"""`sim tune`: search the study's `tune.space` for game settings that meet its targets.

The search is rounds of racing (successive halving). Each round asks Optuna's
TPE sampler for a batch of new candidates, plays every one on the first rung
(`budget.first` games), keeps the best third by target distance
(`sim.analysis.tuning`) and extends their runs to three times as many games,
while the budget lasts. TPE learns from every candidate's first-rung
distance, the one noise level all candidates share. Every candidate plays the
same game indices from the study's seed (common random numbers), so two
candidates differ by their settings, not by luck; a promotion only plays the
games a run does not have yet.

The finalists (the candidates that raced furthest, best first) and the
starting config are then played again on fresh seeds (the study's seed + 1)
with `budget.confirm` games each, and every target gets its 95% interval and
verdict (`sim.metrics.target_status`). A change is recommended only when one
finalist meets every target.

Folder layout:

    <out>/study.json          kind "tune": the study, every candidate, rounds, games spent
    <out>/candidates/c0000/   a run folder per candidate (grown by promotions)
    <out>/confirm/c0007/      the confirmation runs: each finalist, and confirm/start

Resume: each round's candidates are written before they play, and a round's
racing is replayed from the runs on disk, so a killed search goes on where it
stopped and reaches the same recommendation. The sampler is rebuilt from the
history before each round, seeded by (seed, round).
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.balance import run_metrics
from sim.analysis.findings import metric_interval
from sim.analysis.paired import metric_points
from sim.analysis.tuning import pareto_front, target_distance, target_misses
from sim.analysis.values import game_values
from sim.config import StudyConfig, TuneBlock, parse_study, tune_game_problem, tune_values
from sim.errors import SimError
from sim.metrics import metric, needs, target_band, target_status
from sim.runs.options import Workers
from sim.runs.orchestrate import Point, chunk_games, execute
from sim.runs.parallel import resolve_jobs
from sim.runs.paths import STUDY_FILE, folder_stem
from sim.runs.storage import load_run, new_folder, read_study_meta, write_json
from sim.version import ENGINE_VERSION

ETA = 3  # successive halving: keep a third, give them three times the games
# Rungs per round: `first` games, then ETA times as many for the best third. A third rung
# (the round's winner on ETA^2 times) left fewer games for breadth: on the 4-setting
# problem of sim.bench.tune its regret was 2.38 against 1.65 with two rungs (3 seeds).
RUNGS = 2
BATCH = 9  # candidates per round: 9 on the first rung, 3 on the second
CONFIRM_SEED_OFFSET = 1  # confirmation plays seed + 1: games the search never saw
ASK_TRIES = 30  # asks per wanted candidate before the space counts as exhausted
Say = Callable[[str], None]


@dataclass
class TuneState:
    """Everything a tune folder records: the study, its candidates and rounds."""

    study: StudyConfig
    out_dir: Path
    chunk: int  # games per chunk of the search runs
    confirm_chunk: int  # ... of the confirmation runs (kept, so a resume plays the same chunks)
    candidates: list[dict] = field(default_factory=list)
    rounds: list[dict] = field(default_factory=list)
    spent: int = 0
    wall_s: float = 0.0
    trace: list[dict] = field(default_factory=list)

    @property
    def tune(self) -> TuneBlock:
        return self.study.tune

    def save(self, status: str) -> None:
        """Write study.json (atomically): the state a resume rebuilds the search from."""
        write_json(
            self.out_dir / STUDY_FILE,
            {"kind": "tune", "name": self.study.name, "config": self.study.to_yaml_dict(),
             "config_hash": self.study.config_hash(), "engine_version": ENGINE_VERSION,
             "chunk_games": self.chunk, "confirm_chunk_games": self.confirm_chunk,
             "status": status, "games_spent": self.spent,
             "wall_time_s": round(self.wall_s, 3), "candidates": self.candidates,
             "rounds": self.rounds, "trace": self.trace},
        )  # fmt: skip

    def start_point(self) -> dict[str, Any]:
        """The starting config's value of every setting in the space."""
        base = self.study.to_yaml_dict()
        return {p: _get_dotted(base, p) for p in self.tune.space}


# ---------------------------------------------------------------- entry point


def run_tune(
    study: StudyConfig | None,
    workers: Workers,
    *,
    budget: int | None = None,
    out: Path | None = None,
    resume: Path | None = None,
) -> TuneState:
    """Search (rounds of racing) until the budget or the space is used up; the state, which
    `confirm` turns into the verdict.

    `budget` replaces `tune.budget.games` (also when resuming: a finished search
    given a larger budget goes on).
    """
    state = _open_state(study, budget, workers.jobs, out, resume)
    say = _printer(workers.quiet)
    t0 = time.perf_counter()
    wall0 = state.wall_s
    while True:
        if state.rounds and not state.rounds[-1]["done"]:
            spent = None  # a resumed round: replayed from the runs on disk
        else:
            spent = state.spent
            if not _new_round(state):
                break
        _race(state, state.rounds[-1], workers)
        state.rounds[-1]["done"] = True
        if spent == state.spent:  # a refining round that could afford nothing
            state.save("searching")
            break
        state.wall_s = wall0 + time.perf_counter() - t0
        state.save("searching")
        say(_progress(state))
    state.wall_s = wall0 + time.perf_counter() - t0
    state.save("searched")
    return state


def _open_state(study, budget, jobs, out, resume) -> TuneState:
    """A fresh tune folder, or the state of one to resume (refusing another study)."""
    if resume is not None:
        out_dir = Path(resume)
        meta = read_study_meta(out_dir, "tune")
        saved = parse_study(meta["config"], str(out_dir / STUDY_FILE))
        if study is not None and (
            study.config_hash() != saved.config_hash() or study.tune != saved.tune
        ):
            raise SimError(f"{out_dir}: this tuning was started from a different config")
        if budget is not None:
            saved = _with_budget(saved, budget)
        state = TuneState(saved, out_dir, meta["chunk_games"], meta["confirm_chunk_games"])
        state.candidates, state.rounds = meta["candidates"], meta["rounds"]
        state.spent, state.wall_s = meta["games_spent"], meta.get("wall_time_s", 0.0)
        state.trace = meta.get("trace", [])
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
    out_dir = new_folder(
        out, folder_stem("tune", study.name), "folder exists and is not empty; use another --out"
    )
    state = TuneState(study, out_dir, _chunk(study, jobs), _confirm_chunk(study, jobs))
    state.save("searching")
    return state


def _with_budget(study: StudyConfig, games: int) -> StudyConfig:
    """The study with tune.budget.games replaced (validated like the file's own)."""
    tune = study.to_yaml_dict()["tune"]
    tune["budget"]["games"] = games
    return study.with_overrides(tune=tune)


def _chunk(study: StudyConfig, jobs: int) -> int:
    """Games per chunk: a divisor of the first rung (so promoted runs extend whole chunks)."""
    first = study.tune.budget.first
    want = chunk_games([study.with_overrides(games=first)] * BATCH, resolve_jobs(jobs, first))
    return max(d for d in range(1, want + 1) if first % d == 0)


def _confirm_chunk(study: StudyConfig, jobs: int) -> int:
    """Games per chunk of the confirmation (the finalists and the start)."""
    games, n = study.tune.budget.confirm, study.tune.budget.finalists + 1
    return chunk_games([study.with_overrides(games=games)] * n, resolve_jobs(jobs, games * n))


# ---------------------------------------------------------------- candidates


def _new_round(state: TuneState) -> list[int]:
    """Ask the sampler for the next batch (the start config first); [] when the budget or the
    space is used up. The round is saved before it plays."""
    budget, first = state.tune.budget.games, state.tune.budget.first
    n = min(BATCH, (budget - state.spent) // first)
    if n < 1:
        return []
    wanted: list[dict] = []
    if not state.candidates and _in_space(state.start_point(), state.tune.space):
        wanted.append(state.start_point())
    seed = state.study.seed * 1009 + len(state.rounds)
    wanted += _ask(state, n - len(wanted), seed, [_key(p) for p in wanted])
    if not wanted:
        return _refine_round(state)
    batch = []
    for params in wanted:
        batch.append(len(state.candidates))
        state.candidates.append(
            {"id": len(state.candidates), "round": len(state.rounds), "params": params,
             "games": 0, "values": {}, "distance": None, "first_distance": None}
        )  # fmt: skip
    if not batch:
        return []
    state.rounds.append(
        {"round": len(state.rounds), "candidates": batch, "start_games": first, "done": False}
    )
    state.save("searching")
    return batch


def _refine_round(state: TuneState) -> list[int]:
    """When the sampler has nothing new to try (a small space, tried out), race the best
    candidates so far again from the most games any of them has, while the budget lasts."""
    done = sorted(
        (c for c in state.candidates if c["distance"] is not None),
        key=lambda c: (c["distance"], c["id"]),
    )[:BATCH]
    while done:
        games = max(c["games"] for c in done)
        if state.spent + sum(games - c["games"] for c in done) <= state.tune.budget.games:
            break
        done.pop()
    if len(done) < 2:
        return []
    batch = [c["id"] for c in done]
    state.rounds.append(
        {"round": len(state.rounds), "candidates": batch, "start_games": games, "done": False}
    )
    state.save("searching")
    return batch


def _ask(state: TuneState, n: int, seed: int, taken: list[str]) -> list[dict]:
    """n new, valid, untried points from TPE, rebuilt from every candidate so far."""
    import optuna
    from optuna.distributions import CategoricalDistribution, IntDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = state.tune.space
    dists = {
        p: IntDistribution(s[0], s[1])
        if isinstance(s, list)
        else CategoricalDistribution(s["choices"])
        for p, s in space.items()
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=seed % 2**32, n_startup_trials=BATCH, multivariate=True, constant_liar=True
        )
        opt = optuna.create_study(direction="minimize", sampler=sampler)
        for c in state.candidates:
            if c["first_distance"] is not None:
                opt.add_trial(
                    optuna.trial.create_trial(
                        params=c["params"], distributions=dists, value=c["first_distance"]
                    )
                )
        seen = {_key(c["params"]) for c in state.candidates} | set(taken)
        base = state.study.game.game_dict()
        out: list[dict] = []
        for _ in range(ASK_TRIES * max(n, 1)):
            if len(out) >= n:
                break
            trial = opt.ask(dists)
            params = {p: _plain(trial.params[p]) for p in space}
            if _key(params) in seen or tune_game_problem(base, state.tune, params):
                opt.tell(trial, state=optuna.trial.TrialState.FAIL)
                continue
            seen.add(_key(params))
            out.append(params)
    return out


def _race(state: TuneState, round_: dict, workers: Workers) -> None:
    """Successive halving over one round's batch: all on its first rung, then the best third
    on three times the games (RUNGS rungs), while the budget lasts. Replays from disk when
    resumed."""
    budget, games = state.tune.budget.games, round_["start_games"]
    alive = list(round_["candidates"])
    for rung in range(RUNGS):
        _evaluate(state, alive, games, workers)
        if len(alive) <= 1 or rung == RUNGS - 1:
            return
        ranked = sorted(alive, key=lambda i: (state.candidates[i]["distance"], i))
        keep = ranked[: math.ceil(len(alive) / ETA)]
        more = games * ETA
        cost = sum(more - state.candidates[i]["games"] for i in keep)
        if state.spent + cost > budget:
            return
        alive, games = keep, more


def _evaluate(state: TuneState, ids: list[int], games: int, workers: Workers) -> None:
    """Play candidates `ids` up to `games` games each on the study's seed (one pool, common
    random numbers) and record each one's target estimates and distance."""
    todo = [i for i in ids if state.candidates[i]["games"] < games]
    if not todo:
        return
    targets = state.tune.targets
    points = [Point(_candidate_study(state, i, games), _folder(state, i)) for i in todo]
    execute(
        points,
        state.chunk,
        workers.silent(),
        died_hint=f"finish it with sim tune --resume {state.out_dir}",
    )
    for i in todo:
        cand = state.candidates[i]
        state.spent += games - cand["games"]
        values = estimates(load_run(_folder(state, i)), list(targets))
        cand.update(games=games, values=values, distance=target_distance(values, targets))
        if cand["first_distance"] is None:
            cand["first_distance"] = cand["distance"]
        state.trace.append({"games": state.spent, "candidate": i, "rung_games": games,
                            "distance": cand["distance"]})  # fmt: skip


def estimates(run, names: list[str]) -> dict[str, float]:
    """Each named metric's point estimate on a run (no interval: the race needs only ranks)."""
    metrics = [metric(n) for n in names]
    values = game_values(run.games, run.players, columns=needs(metrics))
    return {n: float(v) for n, v in zip(names, metric_points(values, metrics), strict=True)}


def _candidate_study(state: TuneState, index: int, games: int) -> StudyConfig:
    params = state.candidates[index]["params"]
    return apply_point(state.study, params).with_overrides(
        games=games, name=f"{state.study.name}[c{index:04d}]"
    )


def apply_point(study: StudyConfig, params: dict[str, Any]) -> StudyConfig:
    """The study with a candidate's settings, no tune block (ready to run)."""
    return study.with_overrides(tune=None, sweep=None, **params)


def _folder(state: TuneState, index: int) -> Path:
    return state.out_dir / "candidates" / f"c{index:04d}"


# ---------------------------------------------------------------- the confirmation


@dataclass
class Verdict:
    """The confirmed recommendation: what tune.json holds, and the lines to print."""

    data: dict
    lines: list[str]
    recommended_study: StudyConfig | None
    closest_study: StudyConfig


def finalists(state: TuneState) -> list[int]:
    """The candidates to confirm: furthest raced (most games) first, then smallest distance."""
    start = _key(state.start_point())
    done = [c for c in state.candidates if c["distance"] is not None and _key(c["params"]) != start]
    done.sort(key=lambda c: (-c["games"], c["distance"], c["id"]))
    return [c["id"] for c in done[: state.tune.budget.finalists]]


def confirm(state: TuneState, workers: Workers) -> Verdict:
    """Play the finalists and the start on fresh seeds; give every target its interval and
    verdict; recommend a finalist only when it meets every target."""
    targets, games = state.tune.targets, state.tune.budget.confirm
    names = list(targets)
    ids = finalists(state)
    start = state.start_point()
    labels = [f"c{i:04d}" for i in ids] + ["start"]
    params = [state.candidates[i]["params"] for i in ids] + [start]
    seed = state.study.seed + CONFIRM_SEED_OFFSET
    studies = [
        apply_point(state.study, p).with_overrides(games=games, seed=seed, name=f"confirm[{lab}]")
        for p, lab in zip(params, labels, strict=True)
    ]
    folder = state.out_dir / "confirm"
    execute(
        # one folder per config, by its label: a resumed search with a larger budget may
        # confirm other finalists, and must not reuse another config's games
        [Point(s, folder / lab) for s, lab in zip(studies, labels, strict=True)],
        state.confirm_chunk,
        workers.silent(),
        died_hint=f"finish it with sim tune --resume {state.out_dir}",
    )
    rows = []
    for lab, p in zip(labels, params, strict=True):
        run = load_run(folder / lab)
        table = run_metrics(run.games, run.players, names).set_index("metric")
        est = {
            n: {"estimate": float(table.at[n, "value"]), "lo": float(table.at[n, "lo"]),
                "hi": float(table.at[n, "hi"]),
                "verdict": target_status(table.at[n, "lo"], table.at[n, "hi"],
                                         target_band(n, targets[n]))}
            for n in names
        }  # fmt: skip
        values = {n: e["estimate"] for n, e in est.items()}
        met = sum(e["verdict"] == "met" for e in est.values())
        rows.append({"label": lab, "params": p, "targets": est, "met": met,
                     "distance": target_distance(values, targets)})  # fmt: skip
    return _verdict(state, rows, games, seed)


def _verdict(state: TuneState, rows: list[dict], games: int, seed: int) -> Verdict:
    """Pick the confirmed row meeting the most targets (then the smallest distance)."""
    targets = state.tune.targets
    start_row = rows[-1]
    best = min(rows, key=lambda r: (-r["met"], r["distance"], r["label"] == "start"))
    all_met = best["met"] == len(targets)
    start = start_row["params"]
    changes = {p: v for p, v in best["params"].items() if v != start.get(p)}
    recommended = changes if all_met else {}
    if all_met and not changes:
        head = "the starting config already meets every target; no change recommended"
    elif all_met:
        moves = ", ".join(f"{p} {_plain(start.get(p))} → {_plain(v)}" for p, v in changes.items())
        head = f"recommended: {moves}"
    else:
        moves = ", ".join(f"{p} {_plain(start.get(p))} → {_plain(v)}" for p, v in changes.items())
        head = (
            "no candidate meets every target; no change recommended. Closest"
            f" ({best['met']} of {len(targets)} met): {moves or 'the start'}"
        )
    lines = [head]
    for name in targets:
        lines.append(f"  {_target_line(name, targets[name], best['targets'][name])}"
                     f"   (start: {_short(name, start_row['targets'][name])})")  # fmt: skip
    misses = np.array(
        [[target_misses({n: r["targets"][n]["estimate"] for n in targets}, targets)[n]
          for n in targets] for r in rows]
    )  # fmt: skip
    front = [rows[i]["label"] for i in pareto_front(misses)] if len(targets) > 1 else []
    data = {
        "status": "met" if all_met else "not met",
        "recommended": {p: _plain(v) for p, v in recommended.items()},
        "start": {p: _plain(v) for p, v in start.items()},
        "chosen": best["label"],
        "chosen_params": best["params"],
        "targets": {
            n: {**best["targets"][n], "band": list(target_band(n, targets[n])),
                "start": start_row["targets"][n]}
            for n in targets
        },
        "finalists": rows,
        "pareto": front,
        "distance": "sqrt(sum over targets of (|estimate - band centre| / band half-width)^2)",
        "search": {"candidates": len(state.candidates), "rounds": len(state.rounds),
                   "games": state.spent, "budget": state.tune.budget.games,
                   "wall_time_s": round(state.wall_s, 3)},
        "confirm": {"games": games, "seed": seed},
        "text": lines,
    }  # fmt: skip
    chosen = apply_point(state.study, best["params"])
    tuned = chosen.with_overrides(name=f"{state.study.name}-tuned", targets=_yaml_targets(targets))
    return Verdict(data, lines, tuned if all_met else None, tuned)


def _target_line(name: str, target: Any, est: dict) -> str:
    """'mean_score 0.57 [0.53, 0.61] (met, target 0.57 ± 0.15)'."""
    from sim.metrics import describe_target

    return f"{name} {_short(name, est)} ({est['verdict']}, target {describe_target(name, target)})"


def _short(name: str, est: dict) -> str:
    return metric_interval(name, est)


def _yaml_targets(targets: dict) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in targets.items()}


# ---------------------------------------------------------------- helpers


def candidates_frame(state: TuneState) -> pd.DataFrame:
    """One row per evaluated candidate: id, round, games, distance, each setting, each estimate."""
    rows = [
        {"id": c["id"], "round": c["round"], "games": c["games"], "distance": c["distance"],
         **{p: _plain(v) for p, v in c["params"].items()}, **c["values"]}
        for c in state.candidates if c["distance"] is not None
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _progress(state: TuneState) -> str:
    best = min(
        (c for c in state.candidates if c["distance"] is not None),
        key=lambda c: (-c["games"], c["distance"]),
    )
    shown = ", ".join(f"{p}={_plain(v)}" for p, v in best["params"].items())
    budget = state.tune.budget.games
    return (
        f"tune: round {len(state.rounds)}, {len(state.candidates)} candidates,"
        f" {state.spent:,}/{budget:,} games; best distance {best['distance']:.2f}"
        f" on {best['games']:,} games ({shown})"
    )


def _printer(quiet: bool) -> Say:
    if quiet:
        return lambda _text: None
    return lambda text: print(text, file=sys.stderr, flush=True)


def _in_space(point: dict, space: dict) -> bool:
    return all(point[p] in tune_values({p: s})[p] for p, s in space.items())


def _key(params: dict) -> str:
    return repr(sorted((k, _plain(v)) for k, v in params.items()))


def _plain(value: Any) -> Any:
    """numpy scalars from the sampler as plain Python values (for JSON and YAML)."""
    return value.item() if isinstance(value, np.generic) else value


def _get_dotted(data: dict, dotted: str) -> Any:
    """A game setting from a YAML-layout dict by its canonical dotted name."""
    node: Any = data
    for part in _split(dotted):
        node = node[part]
    return node


def _split(dotted: str) -> list[str]:
    """'deck.boxes.NS' -> parts; the empty box key is written deck.boxes.''."""
    return ["" if p in ("''", '""') else p for p in dotted.split(".")]
