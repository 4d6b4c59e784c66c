"""What an advise folder holds between its phases: the study's levels and bands, the state
saved after every phase (`study.json`), and the diagnosis read back as cells
(`sim.analysis.whole_game`): which are problems and whether the worst comes from the
turn order. `sim.studies.advise` plays the phases, `sim.studies.advice` words the answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sim.analysis.turn_split import from_turns
from sim.analysis.whole_game import Cell, WholeGame
from sim.config import NO_BLOCKS, Json, Settings, StudyConfig, Targets, rung_label, rung_seat
from sim.metrics import FAIR_BAND, FEEL_METRICS, target_band
from sim.runs.paths import STUDY_FILE
from sim.runs.storage import write_json
from sim.studies.checks import Checked
from sim.version import ENGINE_VERSION

SELECT_SEED_OFFSET = 1
CONFIRM_SEED_OFFSET = 2
ETA = 3  # racing: each rung keeps about a third and gives them this many times the games
RUNGS = 2  # at most this many rungs (1,500 games, then 4,500 for the best third)
ALPHA = 0.05
PHASES = ("diagnose", "screen", "select", "confirm", "done")
FAMILY = (
    "each seat's edge at each level is a cell, an equivalence test of its 95% interval"
    " against its band (✓ inside, ✗ outside, ? straddles): the game is fair only when every"
    " cell is ✓ (an intersection-union test, so no correction over cells); a level with a ?"
    " is played on three times the games and judged there. Fixes are chosen on the screen's"
    " and the selection's games and confirmed on fresh ones, each member of the set an"
    " intersection-union test at 5% divided by the members (Bonferroni)"
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


def at_level(
    study: StudyConfig, level: Level, changes: dict, games: int, seed: int, label: str = ""
) -> StudyConfig:
    """The study at one level (every seat plays it, seats rotated) with some changes: what
    every phase of an advice, and a brute-force check of one, plays."""
    return study.with_overrides(
        **NO_BLOCKS,
        **changes,
        seats=[level.seat] * study.game.players,
        rotate_seats=True,
        games=games,
        seed=seed,
        name=f"{study.name}[{level.label}{', ' + label if label else ''}]",
    )


def fairness_targets(study: StudyConfig) -> Targets:
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


def seat_bands(study: StudyConfig) -> dict[int, tuple[float, float]]:
    """Each seat's band for its edge over a fair share."""
    return {
        int(n.removeprefix("seat_edge.seat")): target_band(n, t)
        for n, t in fairness_targets(study).items()
    }


def play_targets(study: StudyConfig) -> Targets:
    """The config's other targets (how the game plays): shown beside the seats."""
    seats = {"first_player_advantage", *fairness_targets(study)}
    return {n: t for n, t in study.targets.items() if n not in seats}


@dataclass(frozen=True)
class Change:
    """A one-setting change as the advice names it: its number, the setting and new value,
    its words, its size in cards, the cause it acts on, and who then takes an extra turn."""

    id: int
    changes: Settings
    label: str
    size: int
    group: str
    turns: str

    def to_json(self) -> Json:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Json) -> Change:
        return cls(*(data[k] for k in CHANGE_KEYS))


CHANGE_KEYS = ("id", "changes", "label", "size", "group", "turns")


@dataclass(slots=True)
class Candidate:
    """A change in the race and what the screen found so far (`games` and `cells` by level
    index, as text for JSON; `dropped`: why it left the race, None while in it). The race adds
    games and drops, so it is not frozen; `study.json` holds `to_json()` of each (the change's
    fields and the race's side by side), and a resumed advice reads them back."""

    change: Change
    games: dict[str, int] = field(default_factory=dict)
    cells: dict[str, list[dict]] = field(default_factory=dict)
    dropped: str | None = None
    inert: bool = False  # a rule whose games are the start's very games

    @property
    def id(self) -> int:
        return self.change.id

    def to_json(self) -> Json:
        race = {"games": self.games, "cells": self.cells, "dropped": self.dropped}
        return {**self.change.to_json(), **race, "inert": self.inert}

    @classmethod
    def from_json(cls, data: Json) -> Candidate:
        race = (data["games"], data["cells"], data["dropped"], bool(data.get("inert")))
        return cls(Change.from_json(data), *race)


START = Candidate(Change(0, {}, "", 0, "the start", ""))  # confirmed beside the set


def _cells(data: list[dict]) -> tuple[Cell, ...]:
    return tuple(Cell.from_json(c) for c in data)


@dataclass(frozen=True)
class LevelRow:
    """The diagnosis at one level: the config's targets checked (`checked`), how it plays,
    why (the turn split, who ends the game, dead cards) and every seat's cell."""

    level: str
    checked: Checked
    play: dict[str, dict]
    why: Json
    cells: tuple[Cell, ...]

    @property
    def games(self) -> int:
        return self.checked.games

    def to_json(self) -> Json:
        return {
            "level": self.level,
            **self.checked.to_json(),
            "play": self.play,
            "why": self.why,
            "cells": [c.to_json() for c in self.cells],
        }

    @classmethod
    def from_json(cls, d: Json) -> LevelRow:
        checked = Checked(d["targets"], d["met"], d["distance"], d["games"], d["seed"])
        return cls(d["level"], checked, d["play"], d["why"], _cells(d["cells"]))


@dataclass(frozen=True)
class ChangeRow:
    """A change (or the start, id 0) checked at every level on one phase's fresh games: its
    cells, each level's targets (`Checked.to_json` by level label) and, in the selection,
    its cells on the screen's and the selection's games together (`pooled`)."""

    change: Change
    levels: dict[str, dict]
    cells: tuple[Cell, ...]
    pooled: tuple[Cell, ...] = ()

    @property
    def id(self) -> int:
        return self.change.id

    def game(self) -> WholeGame:
        return WholeGame.of(self.cells)

    def pooled_game(self) -> WholeGame:
        return WholeGame.of(self.pooled)

    def to_json(self) -> Json:
        out = {**self.change.to_json(), "levels": self.levels}
        out["cells"] = [c.to_json() for c in self.cells]
        if self.pooled:
            out["pooled"] = [c.to_json() for c in self.pooled]
        return out

    @classmethod
    def from_json(cls, d: Json) -> ChangeRow:
        cells, pooled = _cells(d["cells"]), _cells(d.get("pooled", ()))
        return cls(Change.from_json(d), d["levels"], cells, pooled)


@dataclass
class Results:
    """What the phases found, saved in study.json after each: the diagnosis by level, the
    race's survivors, the selection (ranked) and the set chosen from it, the confirmation
    (the start first) at its level of alpha, and the start on every game it played."""

    diagnosis: list[LevelRow | None] = field(default_factory=list)
    screened: list[int] = field(default_factory=list)
    selection: list[ChangeRow] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    confirmation: list[ChangeRow] = field(default_factory=list)
    confirm_alpha: float | None = None
    start_pooled: tuple[Cell, ...] = ()

    def to_json(self) -> Json:
        return {
            "diagnosis": [r.to_json() if r else None for r in self.diagnosis],
            "screened": self.screened,
            "selection": [r.to_json() for r in self.selection],
            "chosen": self.chosen,
            "confirmation": [r.to_json() for r in self.confirmation],
            "confirm_alpha": self.confirm_alpha,
            "start_pooled": [c.to_json() for c in self.start_pooled],
        }

    @classmethod
    def from_json(cls, d: Json) -> Results:
        return cls(
            [LevelRow.from_json(r) if r else None for r in d.get("diagnosis", [])],
            list(d.get("screened", [])),
            [ChangeRow.from_json(r) for r in d.get("selection", [])],
            list(d.get("chosen", [])),
            [ChangeRow.from_json(r) for r in d.get("confirmation", [])],
            d.get("confirm_alpha"),
            _cells(d.get("start_pooled") or ()),
        )


@dataclass
class AdviseState:
    """Everything an advise folder records: the study, its phase, candidates and results."""

    study: StudyConfig
    out_dir: Path
    chunk: int
    phase: str = "diagnose"
    spent: int = 0
    spent_by: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES[:4], 0))
    candidates: list[Candidate] = field(default_factory=list)
    results: Results = field(default_factory=Results)
    wall_s: float = 0.0
    asked_by: str = "advise"  # or "tune": its fairness question (`sim.studies.tune_fair`)

    @property
    def levels(self) -> list[Level]:
        return levels_of(self.study)

    @property
    def targets(self) -> Targets:
        return {**fairness_targets(self.study), **play_targets(self.study)}

    @property
    def feel_targets(self) -> list[str]:
        """The config's targets on how the game feels (`sim.metrics.FEEL_METRICS`): judged
        where the games hold the feel, the diagnosis and the confirmation, each level by its
        own model with that model's noise."""
        return [m.name for m in FEEL_METRICS if m.name in self.study.targets]

    def save(self) -> None:
        write_json(
            self.out_dir / STUDY_FILE,
            {
                "kind": "advise",
                "name": self.study.name,
                "config": self.study.to_yaml_dict(),
                "config_hash": self.study.config_hash(),
                "engine_version": ENGINE_VERSION,
                "source": self.study.source,
                "folder": self.study.folder,
                "chunk_games": self.chunk,
                "status": self.phase,
                "phase": self.phase,
                "games_spent": self.spent,
                "games_by_phase": self.spent_by,
                "candidates": [c.to_json() for c in self.candidates],
                "results": self.results.to_json(),
                "wall_time_s": round(self.wall_s, 3),
                "asked_by": self.asked_by,
            },
        )

    def spend(self, phase: str, games: int) -> None:
        self.spent += games
        self.spent_by[phase] += games

    def start_game(self) -> WholeGame:
        """The diagnosis's cells: the start, judged by the whole game."""
        return WholeGame.of(c for r in self.results.diagnosis for c in r.cells)


def state_of(study: StudyConfig, out_dir: Path, meta: dict) -> AdviseState:
    state = AdviseState(study, out_dir, meta["chunk_games"], meta["phase"])
    state.spent, state.spent_by = meta["games_spent"], meta["games_by_phase"]
    state.candidates = [Candidate.from_json(c) for c in meta["candidates"]]
    state.results = Results.from_json(meta["results"])
    state.wall_s = meta.get("wall_time_s", 0.0)
    state.asked_by = meta.get("asked_by", "advise")
    return state


def is_problem(c: dict | Cell) -> bool:
    """Is a cell a problem worth a fix: outside its band (✗), or unclear with its estimate
    outside (likely outside; unclear with the estimate inside: more games would tell)."""
    cell = c if isinstance(c, Cell) else Cell.from_json(c)
    return cell.verdict == "missed" or (cell.verdict == "unclear" and cell.excess > 0)


def problem_levels(state: AdviseState) -> list[int]:
    """The levels with a problem cell."""
    return [i for i, r in enumerate(state.results.diagnosis) if any(is_problem(c) for c in r.cells)]


def turn_driven(state: AdviseState) -> bool:
    """Does the worst problem come from the turn order? Its seat's edge from extra (or
    missing) turns is clear of 0 and larger than its edge at equal turns."""
    cells = [c for r in state.results.diagnosis for c in r.cells]
    worst = max((c for c in cells if is_problem(c)), key=lambda c: c.size, default=None)
    if worst is None:
        return False
    row = next(r for r in state.results.diagnosis if r.level == worst.level)
    split = next(s for s in row.why["split"] if int(s["seat"]) == worst.seat)
    return from_turns(split)


def whole_of(cand: Candidate) -> WholeGame:
    """A screened candidate's cells at every level it has played, as one game."""
    return WholeGame.of(Cell.from_json(x) for cells in cand.cells.values() for x in cells)
