"""`sim map CONFIG`: play the design points, fit the emulators, chart the space, confirm the
region's nearest points on fresh games, and save it all in map.json.

Every point is played at the config's own line-up and at each equal-player level of
`advise.levels` (every seat the level, seats rotated), all on the study's seed: common
random numbers, so a difference between two points comes from their counts. The nearest
points of the region are then played again on seed + 1 (fresh games, never the games that
chose them) and each target's interval is checked inside its band.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim import units
from sim.analysis.balance import run_metrics
from sim.config import StudyConfig
from sim.config.blocks import NO_BLOCKS
from sim.errors import SimError
from sim.metrics import FAIR_BAND, PLAY_METRICS, target_band
from sim.runs import pulse
from sim.runs.options import Request, Workers
from sim.runs.orchestrate import Point, chunk_games, execute
from sim.runs.parallel import resolve_jobs
from sim.runs.paths import check_page, folder_stem
from sim.runs.storage import load_run, locked, study_yaml, write_text
from sim.space_map import charts
from sim.space_map.design import Axis, axes_of, inputs, sobol_points, start_point
from sim.space_map.emulator import Z95, Check, Fit, fit, held_out
from sim.space_map.predict import MAP_FILE
from sim.studies.advise_state import Level, at_level, levels_of
from sim.studies.common import fresh_dir

LINEUP = "lineup"  # the config's own line-up, beside the equal-player levels
CONFIRM_SEED_OFFSET = 1


def map_levels(study: StudyConfig) -> list[Level | None]:
    """None (the config's line-up), then every equal-player level."""
    return [None, *levels_of(study)]


def level_name(level: Level | None) -> str:
    return LINEUP if level is None else level.label


def metric_names(study: StudyConfig, level: Level | None) -> list[str]:
    """The registry metrics a map emulates at a level: each seat's edge and the first
    player's, then (at the line-up) how it plays and the config's other targets."""
    seats = [f"seat_edge.seat{k}" for k in range(study.game.players)]
    out = [*seats, "first_player_advantage"]
    if level is None:
        out += ["mean_score", *PLAY_METRICS]
        out += [t for t in study.targets if t not in out]
    return out


def emulated(name: str, level: Level | None) -> str:
    """The emulator's name: the metric, with '@level' at an equal-player level."""
    return name if level is None else f"{name}@{level.label}"


def check_space(study: StudyConfig) -> tuple[Axis, ...]:
    """The map's counts, refused in one line when the config has none or moves the players."""
    space = study.map.space
    if not space:
        raise SimError(
            f"{study.source}: no 'map: {{space: ...}}' block; add e.g."
            " {map: {space: {deck.sprayers: [2, 6], deck.princesses: [0, 3]}}}"
        )
    if "players" in space:
        raise SimError(
            f"{study.source}: map.space: players: a map charts one player count (each count"
            " has its own seats); map each player count in a config of its own"
        )
    return axes_of(space)


def _play(
    study: StudyConfig, points: list[dict], levels, games: int, seed: int, folder: Path, workers
) -> dict[str, np.ndarray]:
    """Play every point at every level; emulator name -> (points, 3) of value, lo, hi."""
    plan = []
    for i, point in enumerate(points):
        for j, level in enumerate(levels):
            if level is None:
                s = study.with_overrides(**NO_BLOCKS, **point, games=games, seed=seed)
            else:
                s = at_level(study, level, point, games, seed)
            plan.append((i, level, Point(s, folder / f"p{i:03d}-l{j}")))
    studies = [p.study for _, _, p in plan]
    size = chunk_games(studies, resolve_jobs(workers.jobs, games * len(studies)))
    execute([p for _, _, p in plan], size, workers, died_hint=f"the map's games are in {folder}")
    out: dict[str, np.ndarray] = {}
    for i, level, p in plan:
        run = load_run(p.folder)
        names = metric_names(study, level)
        table = run_metrics(run.games, run.players, names).set_index("metric")
        for name in names:
            row = table.loc[name]
            cell = out.setdefault(emulated(name, level), np.full((len(points), 3), np.nan))
            cell[i] = (row["value"], row["lo"], row["hi"])
    return out


def bands_of(study: StudyConfig) -> list[charts.Band]:
    """The targets the region must meet: the config's (at its line-up) and every seat's
    edge within its band at every equal-player level (advise's question)."""
    out = [charts.Band(n, *target_band(n, t)) for n, t in study.targets.items()]
    for level in levels_of(study):
        for k in range(study.game.players):
            name = f"seat_edge.seat{k}"
            lo, hi = target_band(name, study.targets.get(name, {"value": 0.0, "within": FAIR_BAND}))
            out.append(charts.Band(f"{name}@{level.label}", lo, hi))
    return out


@dataclass
class MapResult:
    """A finished map: its folder and what map.json holds."""

    out_dir: Path
    data: dict
    lines: list[str]
    study: StudyConfig


def run_map(study: StudyConfig, request: Request, workers: Workers) -> MapResult:
    """Play, fit, chart and confirm; the folder and map.json."""
    if request.overrides():
        study = study.with_overrides(**request.overrides())
    axes = check_space(study)
    check_page(request, "map", study)
    m = study.map
    levels = map_levels(study)
    out_dir = fresh_dir(request.out, folder_stem("map", study.name), None)
    t0 = time.perf_counter()
    lines: list[str] = []
    with locked(out_dir):
        write_text(out_dir / "config.yaml", study_yaml(study))
        start = start_point(study, axes)
        points = [start] + [p for p in sobol_points(axes, m.points, study.seed) if p != start]
        points = points[: m.points]
        print(
            f"map: {len(points)} points x {len(levels)} line-ups ({LINEUP} and"
            f" {', '.join(lv.label for lv in levels if lv)}), {m.games:,} games each"
            f" (seed {study.seed}, common random numbers)",
            flush=True,
        )
        sims = _play(study, points, levels, m.games, study.seed, out_dir / "points", workers)
        game = study.game.game_dict()
        x = inputs(game, axes, points)
        fits: dict[str, Fit] = {}
        checks: dict[str, Check] = {}
        for i, (name, cell) in enumerate(sims.items()):
            pulse.doing(f"fitting the emulators ({i} of {len(sims)} done)")
            se = (cell[:, 2] - cell[:, 1]) / (2 * Z95)
            fits[name] = fit(x, cell[:, 0], se, seed=study.seed % 2**31)
            checks[name] = held_out(x, cell[:, 0], se)
        names = list(fits)

        def emulate(pts: list[dict]) -> tuple[np.ndarray, np.ndarray]:
            xi = inputs(game, axes, pts)
            pairs = [fits[n].predict(xi) for n in names]
            return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

        pulse.doing("charting the space (Sobol indices, the region)")
        sens = charts.sensitivity(axes, names, emulate, study.seed)
        bands = [b for b in bands_of(study) if b.name in fits]
        reg = charts.region(
            axes, bands, lambda p: _banded(emulate, p, names, bands), start, study.seed
        )
        confirmed = _confirm(study, reg, levels, bands, out_dir, workers)
        data = {
            "kind": "map",
            "name": study.name,
            "config_hash": study.config_hash(),
            "game": game,
            "space": {a.name: [a.lo, a.hi] for a in axes},
            "levels": [level_name(lv) for lv in levels],
            "games": m.games,
            "seed": study.seed,
            "points": [
                {"point": p, "metrics": {n: _cell(sims[n][i]) for n in names}}
                for i, p in enumerate(points)
            ],
            "inputs": x.tolist(),
            "emulators": {n: fits[n].to_json() for n in names},
            "held_out": {n: checks[n].__dict__ for n in names},
            "sensitivity": sens,
            "region": {**reg, "confirmed": confirmed},
            "wall_s": round(time.perf_counter() - t0, 1),
        }
        write_text(out_dir / MAP_FILE, json.dumps(data, indent=1, default=_plain))
    lines += map_lines(data)
    return MapResult(out_dir, data, lines, study)


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value))


def _cell(row: np.ndarray) -> dict:
    return {"estimate": float(row[0]), "lo": float(row[1]), "hi": float(row[2])}


def _banded(emulate, points, names, bands):
    """The emulators of the bands' metrics only, in the bands' order."""
    mean, sd = emulate(points)
    index = [names.index(b.name) for b in bands]
    return mean[index], sd[index]


def _confirm(study, reg: dict, levels, bands, out_dir: Path, workers) -> list[dict]:
    """The region's nearest points played on fresh games (seed + 1): each target's 95%
    interval, Bonferroni over the targets, inside its band or not."""
    m = study.map
    nearest = [n["point"] for n in reg["nearest"][: m.nearest]]
    if not nearest or not bands:
        return []
    seed = study.seed + CONFIRM_SEED_OFFSET
    print(
        f"map: confirming the {units.plural(len(nearest), 'nearest point')} of the region on"
        f" {m.confirm:,} fresh games each (seed {seed})",
        flush=True,
    )
    sims = _play(study, nearest, levels, m.confirm, seed, out_dir / "confirm", workers)
    z = _bonferroni_z(len(bands))
    out = []
    for i, point in enumerate(nearest):
        rows = []
        for b in bands:
            value, lo95, hi95 = sims[b.name][i]
            half = (hi95 - lo95) / 2 * z / Z95
            lo, hi = value - half, value + half
            rows.append(
                {
                    "target": b.name,
                    "estimate": value,
                    "lo": lo,
                    "hi": hi,
                    "met": bool(b.lo <= lo and hi <= b.hi),
                }
            )
        out.append({"point": point, "targets": rows, "met": all(r["met"] for r in rows)})
    return out


def _bonferroni_z(k: int) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1 - 0.05 / (2 * max(k, 1))))


def map_lines(data: dict) -> list[str]:
    """What `sim map` prints: the answer first."""
    reg = data["region"]
    out = [f"map: {len(data['points'])} points, {len(data['emulators'])} emulated metrics"]
    ho = data["held_out"]
    covered = sum(c["covered"] for c in ho.values())
    total = sum(c["points"] for c in ho.values())
    out.append(
        f"  held-out check: {covered} of {total} ({covered / total:.0%}) inside the 95% intervals"
    )
    out.append(
        f"  region: {reg['not_ruled_out']:,} of {reg['judged']:,} points not ruled out"
        f" (implausibility <= {reg['cutoff']:g} on every target)"
    )
    for c in reg.get("confirmed", []):
        moved = ", ".join(f"{k}={v}" for k, v in c["point"].items())
        out.append(f"  {'confirmed' if c['met'] else 'not confirmed'}: {moved}")
    return out
