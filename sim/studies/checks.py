"""A config checked against targets on fresh games: each target's estimate, its 95% interval
and its equivalence verdict (met, missed or unclear; `sim.metrics.target_status`).

What every "met" of `sim tune` and `sim advise` rests on: the start's check, the
selection's finalists and the confirmation are all `check`s, each on games of a
seed that played no part in choosing what is checked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from sim.analysis.balance import with_model_noise
from sim.analysis.tuning import target_distance
from sim.config import StudyConfig, Targets
from sim.feel.model import FeelModel
from sim.metrics import target_band, target_status
from sim.runs.options import Workers
from sim.runs.orchestrate import Point, execute
from sim.runs.partials import run_metrics_of
from sim.runs.results import TABLES
from sim.runs.storage import RunResult, load_run


def verdicts(
    run: RunResult, targets: Targets, noise: dict[str, float] | None = None
) -> dict[str, dict]:
    """Every target's estimate, 95% interval, band and verdict on a finished run; `noise`
    (a feel model's own, `sim.runs.chances.feel_noise`) widens the feel metrics' intervals."""
    table = run_metrics_of(run, list(targets))
    table = with_model_noise(table, noise or {}).set_index("metric")
    out = {}
    for name, target in targets.items():
        lo, hi = float(table.at[name, "lo"]), float(table.at[name, "hi"])
        band = target_band(name, target)
        out[name] = {
            "estimate": float(table.at[name, "value"]),
            "lo": lo,
            "hi": hi,
            "verdict": target_status(lo, hi, band),
            "band": list(band),
        }
        if name in (noise or {}):  # the sd between models fitted alike, which lo and hi hold
            out[name]["model_noise"] = float(noise[name])
    return out


@dataclass(frozen=True)
class Checked:
    """A config checked against its targets on fresh games: each target's estimate, 95%
    interval, band and verdict (`verdicts`), how many are met, the distance from the
    targets, and the games and seed it was played on. `to_json` is what a study folder
    keeps (tune.json's and advice.json's check rows)."""

    targets: dict[str, dict]
    met: int
    distance: float
    games: int
    seed: int

    def to_json(self) -> dict:
        return asdict(self)

    def estimate(self, name: str) -> float:
        return self.targets[name]["estimate"]


def check(
    study: StudyConfig,
    targets: Targets,
    folder: Path,
    chunk: int,
    workers: Workers,
    hint: str,
    feel: FeelModel | None = None,
    noise: dict[str, float] | None = None,
    tables: tuple[str, ...] = TABLES,
) -> Checked:
    """Play `study` (its games and seed as given) into `folder`, resumably, and check it
    (its games judged by `feel` when given, a feel target's interval widened by `noise`;
    its run keeps `tables`)."""
    return check_all([(study, folder)], targets, chunk, workers, hint, [feel], [noise], tables)[0]


def check_all(
    points: list[tuple[StudyConfig, Path]],
    targets: Targets,
    chunk: int,
    workers: Workers,
    hint: str,
    feel: list[FeelModel | None] | None = None,
    noise: list[dict[str, float] | None] | None = None,
    tables: tuple[str, ...] = TABLES,
) -> list[Checked]:
    """`check` for several studies of one game count, played together in one pool (each
    with its feel model, when given one: its games then hold the feel columns, and a feel
    target's interval adds that model's own `noise`); each run keeps `tables`."""
    models = feel or [None] * len(points)
    noises = noise or [None] * len(points)
    execute(
        [Point(s, folder, m, tables) for (s, folder), m in zip(points, models, strict=True)],
        chunk,
        workers,
        died_hint=hint,
    )
    out = []
    for (study, folder), sd in zip(points, noises, strict=True):
        est = verdicts(load_run(folder), targets, sd)
        values = {n: e["estimate"] for n, e in est.items()}
        met = sum(e["verdict"] == "met" for e in est.values())
        distance = target_distance(values, targets)
        out.append(Checked(est, met, distance, study.games, study.seed))
    return out
