"""A game to step through: a run's game or a log, turned into the replay page's data.

`from_run` plays game I of a run folder again (the same game: (seed, I) and the
run's study) and checks its final scores against the run's `players` table;
`from_log` checks a log against the engine (`sim play --replay`) first. Either
gives a `ReplayGame`: the study, the seed and index, the actions taken. Its
`page_data` is every step's table, every hand (the omniscient view), supplies,
scores so far, the decision there (seat, kind, the action chosen and its
alternatives), what the previous action caused, the continuations computed for the
marked steps (`sim.table.whatif`), each seat's chance at every round end (`sim.feel`) and
at every turn's start by re-dealt continuations (`sim.table.spectator`).
`sim.report.replay_page` renders it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.findings import replay_headline
from sim.config import StudyConfig
from sim.engine.game import Game
from sim.engine.state import SC_NEVENTS
from sim.engine.turns import apply_action
from sim.errors import SimError
from sim.feel.model import FeelModel
from sim.report.board import box_points, seat_colours, table_data
from sim.runs.chances import MODEL_FILE, feel_model, load_model
from sim.runs.lineup import engine_for, seat_lineup
from sim.runs.paths import RUN_FILE
from sim.runs.storage import read_json, saved_study
from sim.specs import is_plugin
from sim.table.logfile import check_log
from sim.table.record import play_recorded
from sim.table.spectator import page_moves
from sim.table.views import event_text, group_actions, highlight_of
from sim.table.whatif import WhatIf, win_shares
from sim.version import ENGINE_VERSION

MAX_ALTERNATIVES = 40  # grouped lines of alternatives kept per step (the count is always given)
SHOWN_DECK = 3  # the next cards of the deck the omniscient view shows


@dataclass
class ReplayGame:
    """One game to step through: where it comes from, its study, seed, index and actions."""

    source: str  # "run RUN_DIR, game I" or "log LOG"
    study: StudyConfig
    seed: int
    index: int
    actions: list[int]
    labels: list[str]  # per seat: its policy, or "person (policy)" for a human seat
    humans: frozenset[int] = frozenset()
    times: list[int | None] = field(default_factory=list)  # a person's ms per decision
    expected: list[int] | None = None  # the run's final scores of the game
    finished: bool = True
    command: str = ""  # the `sim replay` arguments that name this game
    folder: Path | None = None  # the run folder it comes from (its feel model, if any)

    @property
    def steps(self) -> int:
        """Positions to step through: after setup and after each decision."""
        return len(self.actions) + 1


def from_run(run_dir: str | Path, index: int, scores: list[int] | None = None) -> ReplayGame:
    """Game `index` of a run folder, played again and checked against the run's tables (its
    final `scores` there, when the caller has read them)."""
    run_dir = Path(run_dir)
    meta_path = run_dir / RUN_FILE
    if not meta_path.is_file():
        raise SimError(f"{run_dir}: not a run folder (no {RUN_FILE}) and not a log file")
    meta = read_json(meta_path)
    if meta.get("engine_version") != ENGINE_VERSION:
        raise SimError(
            f"{run_dir}: played by engine version {meta.get('engine_version')}; this is"
            f" {ENGINE_VERSION}, so its games would not be replayed as they were"
        )
    games = int(meta.get("games", 0))
    if not 0 <= index < games:
        raise SimError(f"--game must be a game of the run, 0 to {games - 1:,}; got {index}")
    study = saved_study(meta, meta_path)
    seed = int(meta["seed"])
    expected = scores if scores is not None else _run_scores(run_dir, index, study.game.players)
    recorded = play_recorded(study, seed, index)
    scores = list(recorded.game.outcome().scores)
    if expected is not None and scores != expected:
        raise SimError(
            f"{run_dir}: game {index} replays to scores {scores}, but the run's tables have"
            f" {expected}"
        )
    return ReplayGame(
        source=f"run {run_dir}, game {index}",
        study=study,
        seed=seed,
        index=index,
        actions=[d.action for d in recorded.decisions],
        labels=[s["policy"] for s in recorded.seats()],
        expected=expected,
        command=f"{run_dir} --game {index}",
        folder=run_dir,
    )


def _run_scores(run_dir: Path, index: int, players: int) -> list[int] | None:
    """The game's final scores from the run's players table (None if it has none)."""
    table = run_dir / "players.parquet"
    if not table.exists():
        return None
    rows = pd.read_parquet(
        table, columns=["game", "seat", "score"], filters=[("game", "==", index)]
    )
    if len(rows) != players:
        raise SimError(f"{run_dir}: the players table has {len(rows)} rows for game {index}")
    return [int(s) for s in rows.sort_values("seat")["score"]]


def from_log(path: str | Path) -> ReplayGame:
    """A logged game (sim play --log, sim table), checked against the engine first."""
    checked = check_log(path)
    recorded = checked.recorded
    labels = [
        f"person (seat's bot: {s['policy']})" if s["human"] else s["policy"]
        for s in recorded.seats()
    ]
    return ReplayGame(
        source=f"log {path}",
        study=recorded.study,
        seed=recorded.seed,
        index=recorded.index,
        actions=[d.action for d in recorded.decisions],
        labels=labels,
        humans=recorded.humans,
        times=[d.ms for d in recorded.decisions],
        finished=bool(recorded.game.over),
        command=str(path),
    )


def default_marks(replay: ReplayGame) -> list[int]:
    """The steps whose continuations the page shows unless others are asked for: the start,
    a quarter, half and three quarters of the way, and the last decision."""
    last = len(replay.actions) - 1
    if last < 0:
        return [0]
    return sorted({0, last // 4, last // 2, (3 * last) // 4, last})


def page_data(replay: ReplayGame, whatifs: dict[int, WhatIf]) -> dict:
    """Everything the replay page shows, step by step (see the module's note)."""
    study = replay.study
    game = Game(engine_for(study.game), replay.seed, replay.index, log=True)
    names = list(game.engine.types.names)
    index = {name: i for i, name in enumerate(names)}
    steps, done = [], int(game.s[SC_NEVENTS])
    did: list[str] = []
    highlight: dict = {}
    for k in range(replay.steps):
        steps.append(_step(game, replay, k, index, did, highlight))
        if k == len(replay.actions):
            break
        apply_action(game.s, game.pr, np.int32(replay.actions[k]))
        records = game.event_records(done)
        done = int(game.s[SC_NEVENTS])
        did = [t for t in (event_text(r, omniscient=True) for r in records) if t]
        highlight = highlight_of(records)
    final = steps[-1]["t"]
    players = study.game.players
    lead = replay_headline(
        replay.labels,
        list(final["scores"]),
        list(final["winners"]),
        int(steps[-1]["turns"]),
        str(steps[-1]["trigger"]),
        replay.finished,
    )
    return {
        "title": f"{study.name}: replay of {replay.source}",
        "lead": lead,
        "source": replay.source,
        "command": replay.command,
        "config_hash": study.config_hash(),
        "seed": replay.seed,
        "game": replay.index,
        "players": players,
        "colours": seat_colours(players),
        "labels": replay.labels,
        "humans": sorted(replay.humans),
        "kinds": list(game.engine.types.toy_kinds),
        "cards": names,
        "steps": steps,
        "finished": replay.finished,
        "expected": replay.expected,
        "final": {
            "scores": final["scores"],
            "cat_bonus": final["cat_bonus"],
            "box_points": final["box_points"],
            "winners": final["winners"],
            "boxes": box_points(final, players),
        },
        "whatif": {str(k): w.to_dict() for k, w in sorted(whatifs.items())},
        "chances": step_chances(replay, steps),
        "moves": page_moves(replay, steps),
    }


def step_chances(replay: ReplayGame, steps: list[dict]) -> list[list[float]] | None:
    """Each seat's chance of winning at every step, as a spectator would give it from the
    table (`sim.feel`): the run's own model (its `feel.npz`), else the model of the config and
    line-up. Chances move only when a round ends (the model reads the table at round ends,
    where every seat has had its turn); the last step of a finished game is its outcome.
    None for a seat played by a person or a designer's own policy (no pilot games)."""
    study = replay.study
    if replay.humans or any(is_plugin(seat.policy) for seat in study.seats):
        return None
    model = load_model(replay.folder / MODEL_FILE) if replay.folder is not None else None
    model = model or feel_model([study])
    turns = [s["turns"] for s in steps]
    scores = [s["t"]["scores"] for s in steps]
    p = chances_by_step(model, study, replay.index, turns, scores, replay.finished)
    return None if p is None else [[round(float(v), 4) for v in row] for row in p]


def chances_by_step(
    model: FeelModel, study: StudyConfig, index: int, turns, scores, finished: bool
) -> np.ndarray | None:
    """[step, seat] chances of game `index` from each step's turns played and table scores
    (see `step_chances`); None if a seat's player is not one the model knows."""
    labels = [study.seats[slot].label for slot in seat_lineup(study, index)]
    if not set(labels) <= set(model.players):
        return None
    players = study.game.players
    turns, scores = np.asarray(turns), np.asarray(scores, np.int16)
    ends = [int(np.argmax(turns >= r * players)) for r in range(1, turns[-1] // players + 1)]
    rows = [scores[k] for k in ends]
    if turns[-1] % players or not finished or not rows:
        # the game's end as its last row: the final scores (a finished game's partial last
        # round), or a stand-in for the end an abandoned game never reached
        rows.append(scores[-1])
    rounds = np.array([len(rows)])
    player = np.array([[model.players.index(label) for label in labels]])
    outcome = win_shares(list(scores[-1])) if finished else [np.nan] * players
    p, _ = model.chances(np.array(rows, np.int16)[None], rounds, player, np.array([outcome]))
    done = np.minimum(turns // players, rounds[0] - 1)
    if finished:
        done[-1] = rounds[0]  # the end: the outcome
    return p[0, done]


def _step(game: Game, replay: ReplayGame, k: int, index: dict, did: list, highlight: dict):
    """One step's data: the position before decision k (after decision k-1)."""
    players = game.pr.players
    t = table_data(game.position())
    step = {
        "t": t,
        "hands": [[index[c] for c in game.hand(p)] for p in range(players)],
        "deck": game.deck_size,
        "next": [index[c] for c in game.deck[:SHOWN_DECK]],
        "awake": [int(n) for n in game.view_.awake],
        "asleep": [int(n) for n in game.view_.asleep],
        "turns": game.turns,
        "phase": game.phase,
        "trigger": game.trigger,
        "did": did,
        "hl": highlight,
    }
    if k < len(replay.actions):
        legal = [int(a) for a in game.legal()]
        lines = group_actions(game, [a for a in legal if a != replay.actions[k]])
        step |= {
            "seat": game.seat,
            "decision": game.decision,
            "chose": game.describe(replay.actions[k]),
            "options": len(legal),
            "alts": lines[:MAX_ALTERNATIVES],
            "more": max(0, len(lines) - MAX_ALTERNATIVES),
        }
        if k < len(replay.times) and replay.times[k] is not None:
            step["ms"] = replay.times[k]
    else:
        step |= {"seat": -1, "decision": "over" if game.over else "abandoned"}
    return step
