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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim import units
from sim.analysis.balance import with_model_noise
from sim.analysis.intervals import z_of
from sim.analysis.whole_game import level_cells
from sim.config import StudyConfig
from sim.config.blocks import NO_BLOCKS
from sim.errors import SimError
from sim.feel.model import FeelModel
from sim.metrics import FAIR_BAND, FEEL_METRICS, PLAY_METRICS, target_band
from sim.runs import pulse
from sim.runs.chances import config_feel, run_feel
from sim.runs.folders import locked
from sim.runs.options import Request, Workers
from sim.runs.orchestrate import Point, chunk_games, execute
from sim.runs.parallel import resolve_jobs
from sim.runs.partials import run_metrics_of
from sim.runs.paths import STUDY_FILE, check_page, folder_stem
from sim.runs.storage import (
    CANDIDATE_TABLES,
    load_run,
    mark_status,
    read_study_meta,
    study_yaml,
    write_json,
    write_text,
)
from sim.space_map import charts
from sim.space_map.design import Axis, axes_of, inputs, sobol_points, start_point
from sim.space_map.emulator import RESTARTS, Z95, Check, Fit, fit, held_out
from sim.space_map.predict import MAP_FILE
from sim.studies.advise_state import Level, levels_of, seat_bands
from sim.studies.common import fresh_dir, same_study
from sim.version import ENGINE_VERSION

LINEUP = "lineup"  # the config's own line-up, beside the equal-player levels
CONFIRM_SEED_OFFSET = 1


def map_levels(study: StudyConfig) -> list[Level | None]:
    """None (the config's line-up), then every equal-player level."""
    return [None, *levels_of(study)]


def level_name(level: Level | None) -> str:
    return LINEUP if level is None else level.label


def seat_count(study: StudyConfig) -> int:
    """The seats every point of the map has: the fewest players of the space."""
    space = study.map.space or {}
    if "players" not in space:
        return study.game.players
    return min(axes_of({"players": space["players"]})[0].values)


def metric_names(study: StudyConfig, level: Level | None) -> list[str]:
    """The registry metrics a map emulates at a level: the edge of each seat every point has
    and the first player's, then (at the line-up) how it plays and the config's other
    targets."""
    seats = [f"seat_edge.seat{k}" for k in range(seat_count(study))]
    out = [*seats, "first_player_advantage"]
    if level is None:
        out += ["mean_score", *PLAY_METRICS]
        out += [t for t in study.targets if t not in out]
    return out


def emulated(name: str, level: Level | None) -> str:
    """The emulator's name: the metric, with '@level' at an equal-player level."""
    return name if level is None else f"{name}@{level.label}"


def check_space(study: StudyConfig) -> tuple[Axis, ...]:
    """The map's settings, refused in one line when the config has none, or moves the
    players of a line-up whose seats differ (which seat would a new player copy?)."""
    space = study.map.space
    if not space:
        raise SimError(
            f"{study.source}: no 'map: {{space: ...}}' block; add e.g."
            " {map: {space: {deck.sprayers: [2, 6], deck.princesses: [0, 3]}}}"
        )
    if (
        "players" in space
        and len({json.dumps(s.to_dict(), sort_keys=True) for s in study.seats}) > 1
    ):
        raise SimError(
            f"{study.source}: map.space: players: mapping the player count needs all seats"
            " alike (one line-up copied per player count)"
        )
    return axes_of(space)


class Validity:
    """Which points of the space are playable games (a deck too small to deal, a table too
    small: the config's own checks), each asked once."""

    def __init__(self, study: StudyConfig) -> None:
        self.study, self.known = study, {}

    def __call__(self, point: dict) -> bool:
        key = tuple(point.items())
        if key not in self.known:
            try:
                self.study.with_overrides(**NO_BLOCKS, **point)
                self.known[key] = True
            except SimError:
                self.known[key] = False
        return self.known[key]


def point_study(study: StudyConfig, point: dict, level: Level | None, games: int, seed: int):
    """One point at one line-up: the config's own, or every seat the level (seats rotated,
    as many as the point's players)."""
    if level is None:
        return study.with_overrides(**NO_BLOCKS, **point, games=games, seed=seed)
    players = point.get("players", study.game.players)
    return study.with_overrides(
        **NO_BLOCKS,
        **point,
        seats=[level.seat] * players,
        rotate_seats=True,
        games=games,
        seed=seed,
        name=f"{study.name}[{level.label}]",
    )


# How a point's games at the config's own line-up are judged for a feel target: its run
# folder's study and folder -> the feel model and that model's own noise (None, None: none).
Judge = Callable[[StudyConfig, Path], tuple[FeelModel | None, dict | None]]


# How a feel target is judged (`_design_judge`, `_confirm_judge`), as map.json and the page say.
FEEL_JUDGING = (
    "{}: the design judged every point by the start's chance model (one yardstick for games"
    " on common random numbers); each confirmed point by its own model, the one sim run of it"
    " reads, its interval widened by that model's own noise"
)


def feel_targets(study: StudyConfig) -> list[str]:
    """The config's targets on how the game feels (`sim.metrics.FEEL_METRICS`)."""
    return [m.name for m in FEEL_METRICS if m.name in study.targets]


def _play(
    study: StudyConfig,
    points: list[dict],
    levels,
    games: int,
    seed: int,
    folder: Path,
    workers,
    judge: Judge | None = None,
) -> tuple[dict[str, np.ndarray], dict[tuple[int, str], Path]]:
    """Play every point at every level: emulator name -> (points, 3) of value, lo, hi, and
    (point, level label) -> its run folder. With `judge` (a feel target), the line-up's
    games hold the feel by its model and their intervals add its noise."""
    plan = []
    for i, point in enumerate(points):
        for j, level in enumerate(levels):
            s = point_study(study, point, level, games, seed)
            where = folder / f"p{i:03d}-l{j}"
            model, noise = judge(s, where) if judge and level is None else (None, None)
            plan.append((i, level, Point(s, where, model, CANDIDATE_TABLES), noise))
    studies = [p.study for _, _, p, _ in plan]
    size = chunk_games(studies, resolve_jobs(workers.jobs, games * len(studies)))
    execute([p for _, _, p, _ in plan], size, workers, died_hint=f"the map's games are in {folder}")
    out: dict[str, np.ndarray] = {}
    folders = {(i, level_name(level)): p.folder for i, level, p, _ in plan}
    for i, level, p, noise in plan:
        run = load_run(p.folder)
        names = metric_names(study, level)
        table = run_metrics_of(run, names)  # from its chunks' moments, no table read
        table = with_model_noise(table, noise or {}).set_index("metric")
        for name in names:
            row = table.loc[name]
            cell = out.setdefault(emulated(name, level), np.full((len(points), 3), np.nan))
            cell[i] = (row["value"], row["lo"], row["hi"])
    return out, folders


def bands_of(study: StudyConfig) -> list[charts.Band]:
    """The targets the region must meet: the config's (at its line-up) and every seat's
    edge within its band at every equal-player level (advise's question)."""
    out = [charts.Band(n, *target_band(n, t)) for n, t in study.targets.items()]
    for level in levels_of(study):
        for k in range(seat_count(study)):
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


class Emulators:
    """Every metric's fitted emulator over the space, asked at points together."""

    def __init__(
        self, study: StudyConfig, axes, points: list[dict], sims: dict, runs, restarts=RESTARTS
    ) -> None:
        self.game, self.axes, self.points, self.sims = study.game.game_dict(), axes, points, sims
        self.runs = runs  # each point's run folder per line-up
        self.x = inputs(self.game, axes, points)
        self.fits: dict[str, Fit] = {}
        for i, (name, cell) in enumerate(sims.items()):
            pulse.doing(f"fitting the emulators ({i} of {len(sims)} done)")
            self.fits[name] = fit(self.x, cell[:, 0], _se(cell), study.seed % 2**31, restarts)
        self.names = list(self.fits)

    def __call__(self, points: list[dict], names: list[str] | None = None):
        """(mean, sd), one row per metric (`names`, default every one), one column a point."""
        xi = inputs(self.game, self.axes, points)
        pairs = [self.fits[n].predict(xi) for n in names or self.names]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    def checks(self) -> dict[str, Check]:
        out = {}
        for i, (name, cell) in enumerate(self.sims.items()):
            pulse.doing(f"checking the emulators on held-out points ({i} of {len(self.sims)} done)")
            out[name] = held_out(self.x, cell[:, 0], _se(cell))
        return out


def _se(cell: np.ndarray) -> np.ndarray:
    return (cell[:, 2] - cell[:, 1]) / (2 * Z95)


@dataclass(frozen=True)
class Plan:
    """The games a map plays: per design point and line-up, and per confirmed point."""

    games: int
    confirm: int
    total: int

    def text(self, points: int, levels: int, nearest: int) -> str:
        return (
            f"plan: {points} points x {levels} line-ups x {self.games:,} games, then"
            f" {nearest} x {levels} x {self.confirm:,} to confirm: at most {self.total:,} games"
        )


def plan(study: StudyConfig, budget: int | None = None) -> Plan:
    """The map's games; with a budget, the design and the confirmation share it in the
    config's proportion (fewer games a point, never fewer points), refused in one line
    when a point would get fewer than MIN_GAMES."""
    m, levels = study.map, len(map_levels(study))
    design, confirm = (m.points + m.refine) * levels, m.nearest * levels
    full = design * m.games + confirm * m.confirm
    if budget is None or budget >= full:
        return Plan(m.games, m.confirm, full)
    scale = budget / full
    games, conf = int(m.games * scale), int(m.confirm * scale)
    if games < MIN_GAMES or (confirm and conf < MIN_GAMES):
        raise SimError(
            f"--budget: {budget:,} games is too small for {m.points + m.refine} points at"
            f" {levels} line-ups (at least {MIN_GAMES} games each, and as many to confirm);"
            " give more, or fewer map.points"
        )
    return Plan(games, conf, design * games + confirm * conf)


MIN_GAMES = 100  # a point's interval on fewer games is too wide to fit anything to


def run_map(
    study: StudyConfig | None, request: Request, workers: Workers, budget: int | None = None
) -> MapResult:
    """Play, fit, chart and confirm; the folder, study.json and map.json. With
    `request.resume`, go on in a folder an interrupted map left: the design is seeded and
    its refinement follows from the games, so the same points are played, and the games
    already on disk are not played again."""
    if request.resume is not None:
        out_dir = request.resume
        meta = read_study_meta(out_dir, "map")
        given = study
        study = same_study(meta, study, out_dir, "map")
        if given is not None and given.map != study.map:  # out of the config hash: asked here
            raise SimError(f"{out_dir}: this map was started from a different map: block")
        if budget is not None and budget != meta.get("budget"):
            raise SimError("--budget: a resumed map keeps the budget it was started with")
        budget = meta.get("budget")
    elif request.overrides():
        study = study.with_overrides(**request.overrides())
    axes = check_space(study)
    games = plan(study, budget)
    check_page(request, "map", study)
    if request.resume is None:
        out_dir = fresh_dir(
            request.out, folder_stem("map", study.name), "sim map --resume {folder}"
        )
    t0 = time.perf_counter()
    with locked(out_dir):
        meta = _started(out_dir, study, budget)
        print(
            games.text(
                study.map.points + study.map.refine, len(map_levels(study)), study.map.nearest
            ),
            flush=True,
        )
        try:
            data = _chart(study, axes, games, out_dir, workers)
        except BaseException as exc:
            stopped = isinstance(exc, KeyboardInterrupt)
            status = "interrupted" if stopped else "failed"
            reason = "interrupted (Ctrl-C or SIGTERM)" if stopped else str(exc)[:500] or status
            mark_status(out_dir / STUDY_FILE, meta, status, reason)
            raise
        data["wall_s"] = round(time.perf_counter() - t0, 1)
        write_text(out_dir / MAP_FILE, json.dumps(data, indent=1, default=_plain))
        mark_status(out_dir / STUDY_FILE, meta, "complete")
    return MapResult(out_dir, data, map_lines(data), study)


def _started(out_dir: Path, study: StudyConfig, budget: int | None) -> dict:
    """study.json while the map works: what --resume needs to go on."""
    write_text(out_dir / "config.yaml", study_yaml(study))
    meta = {
        "kind": "map",
        "name": study.name,
        "config": study.to_yaml_dict(),
        "config_hash": study.config_hash(),
        "source": study.source,
        "folder": study.folder,
        "engine_version": ENGINE_VERSION,
        "budget": budget,
    }
    write_json(out_dir / STUDY_FILE, {**meta, "status": "running"})
    return meta


def _chart(study: StudyConfig, axes, games: Plan, out_dir: Path, workers) -> dict:
    """Everything map.json holds but its wall time."""
    start = start_point(study, axes)
    emulators, bands = _design(study, axes, start, games.games, out_dir, workers)
    pulse.doing("charting the space (Sobol indices, the region)")
    sens = charts.sensitivity(axes, emulators.names, emulators, study.seed)
    banded = lambda pts: emulators(pts, [b.name for b in bands])  # noqa: E731
    reg = charts.region(axes, bands, banded, start, study.seed, Validity(study))
    confirmed = _confirm(study, reg, bands, games.confirm, out_dir, workers)
    return {
        "kind": "map",
        "name": study.name,
        "config_hash": study.config_hash(),
        "game": emulators.game,
        "space": {a.name: a.spec() for a in axes},
        "start": start,
        "levels": [level_name(lv) for lv in map_levels(study)],
        "games": games.games,
        "confirm_games": games.confirm,
        "seed": study.seed,
        "points": [
            {
                "point": p,
                "metrics": {n: _cell(emulators.sims[n][i]) for n in emulators.names},
                "runs": emulators.runs[i],
            }
            for i, p in enumerate(emulators.points)
        ],
        "inputs": emulators.x.tolist(),
        "emulators": {n: emulators.fits[n].to_json() for n in emulators.names},
        "held_out": {n: c.__dict__ for n, c in emulators.checks().items()},
        "sensitivity": sens,
        "region": {**reg, "confirmed": confirmed},
        "feel": FEEL_JUDGING.format(", ".join(feel_targets(study)))
        if feel_targets(study)
        else None,
    }


def _design(study: StudyConfig, axes, start: dict, games: int, out_dir: Path, workers):
    """The space-filling design (the config's point first), played and fitted; then the
    points `map.refine` adds where that fit is least sure near a band, played on the same
    seed, and the fit again on all of them."""
    m, levels = study.map, map_levels(study)
    valid = Validity(study)
    own = [start] if all(a.reads(start[a.name]) for a in axes) else []  # else: no input for it
    points = own + [p for p in sobol_points(axes, m.points, study.seed, valid) if p != start]
    points = points[: m.points]
    print(
        f"map: {len(points)} points x {len(levels)} line-ups ({LINEUP} and"
        f" {', '.join(lv.label for lv in levels if lv)}), {games:,} games each"
        f" (seed {study.seed}, common random numbers)",
        flush=True,
    )
    judge = _design_judge(study, start, workers.quiet)
    sims, folders = _play(
        study, points, levels, games, study.seed, out_dir / "points", workers, judge
    )
    runs = _runs(folders, len(points), out_dir)
    # the first fit only chooses where to refine: one start of the optimiser is enough
    emulators = Emulators(study, axes, points, sims, runs, restarts=0)
    bands = [b for b in bands_of(study) if b.name in emulators.fits]
    names = [b.name for b in bands]
    more = charts.refine(
        axes, bands, lambda p: emulators(p, names), points, m.refine, study.seed, valid
    )
    if not more:  # the final fit, with every start of the optimiser
        return Emulators(study, axes, points, sims, runs), bands
    print(f"map: {len(more)} more points where the first fit is least sure near a band", flush=True)
    extra, folders = _play(
        study, more, levels, games, study.seed, out_dir / "refine", workers, judge
    )
    sims = {n: np.vstack([sims[n], extra[n]]) for n in sims}
    runs += _runs(folders, len(more), out_dir)
    return Emulators(study, axes, points + more, sims, runs), bands


def _design_judge(study: StudyConfig, start: dict, quiet: bool) -> Judge | None:
    """With a feel target, the design's judge: every point's games by one model, the start's
    (saved in each run folder), so the emulator fits differences that come from the points'
    games, not from their yardsticks (two models fitted alike differ by several standard
    errors of a long run, docs/guide/feel.md). That one model's own noise moves every point
    alike, so it is left to the confirmation, where each point is judged by its own."""
    if not feel_targets(study):
        return None
    own = point_study(study, start, None, study.games, study.seed)
    return lambda _study, folder: (run_feel([own], [folder], quiet), None)


def _confirm_judge(study: StudyConfig, quiet: bool) -> Judge | None:
    """With a feel target, the confirmation's judge: each point by its own model (the one
    `sim run` of it reads) and that model's own noise."""
    if not feel_targets(study):
        return None
    why = f"a target on {feel_targets(study)[0]}; each confirmed point is judged by its own"
    return lambda point, folder: config_feel(point, folder, quiet, why)


def _runs(folders: dict, n: int, out_dir: Path) -> list[dict[str, str]]:
    """Each point's run folder per line-up, relative to the map's folder."""
    out: list[dict[str, str]] = [{} for _ in range(n)]
    for (i, level), folder in folders.items():
        out[i][level] = str(folder.relative_to(out_dir))
    return out


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


def _confirm(study, reg: dict, bands, games: int, out_dir: Path, workers) -> list[dict]:
    """The region's nearest points played on fresh games (seed + 1), judged by advise's rule:
    confirmed when every target's interval at 1 - 0.05/m lies inside its band (Bonferroni
    over the m points; each point an intersection-union test over its targets). A seat's
    edge at a level is advise's very cell (`level_cells`); a config target at the line-up
    is the registry's interval (a feel target's widened by its model's own noise, each point
    judged by its own model), widened from 95% to that level."""
    m, levels = study.map, map_levels(study)
    nearest = [n["point"] for n in reg["nearest"][: m.nearest]]
    if not nearest or not bands:
        return []
    seed = study.seed + CONFIRM_SEED_OFFSET
    print(
        f"map: confirming the {units.plural(len(nearest), 'nearest point')} of the region on"
        f" {games:,} fresh games each (seed {seed})",
        flush=True,
    )
    judge = _confirm_judge(study, workers.quiet)
    sims, folders = _play(study, nearest, levels, games, seed, out_dir / "confirm", workers, judge)
    alpha = 0.05 / len(nearest)
    wanted = {b.name for b in bands}
    out = []
    for i, point in enumerate(nearest):
        rows = []
        for level in levels[1:]:
            players = load_run(folders[(i, level.label)]).players
            seats = study.with_overrides(players=point["players"]) if "players" in point else study
            for c in level_cells(players, level.label, seat_bands(seats), alpha):
                name = f"seat_edge.seat{c.seat}@{level.label}"
                if name in wanted:
                    rows.append(_row(name, c.estimate, c.lo, c.hi, c.band))
        z = z_of(1 - alpha)
        for b in bands:
            if "@" not in b.name:
                value, lo95, hi95 = sims[b.name][i]
                lo, hi = value - (value - lo95) * z / Z95, value + (hi95 - value) * z / Z95
                rows.append(_row(b.name, value, lo, hi, (b.lo, b.hi)))
        out.append({"point": point, "targets": rows, "met": all(r["met"] for r in rows)})
    return out


def _row(name: str, value: float, lo: float, hi: float, band: tuple[float, float]) -> dict:
    met = bool(band[0] <= lo and hi <= band[1])
    return {"target": name, "estimate": value, "lo": lo, "hi": hi, "met": met}


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
    if data.get("feel"):
        out.append(f"  {data['feel']}")
    return out
