"""Logged games as choices: each decision of the chosen seats replayed through the engine,
with the heuristic's features of every legal action offered (`sim calibrate`).

A log (`sim play --log`, `sim table`) records at every decision the seat, the legal
actions and the one taken; the positions are not in it, so each game is played again
from its seed and the logged actions, and the engine must offer exactly the logged
legal actions at every step (else the log is not of this engine: one error line, and
`sim play --replay` finds where). Decisions with one legal action tell nothing about a
player and are left out.

Who played: the setup record's `players` (one name or null per seat, written by
`sim table --name`; a sitting key, so older logs without it stay readable). A seat
without a name is its bot's label (`heuristic:builder`), or `person` for a person.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.analysis.choice import Choices, build_choices
from sim.config import StudyConfig
from sim.engine.game import Game
from sim.engine.turns import apply_action
from sim.errors import SimError
from sim.policies.features import FeatureScratch, features_of
from sim.runs.lineup import engine_for, seat_lineup
from sim.specs import FEATURE_NAMES
from sim.table.logfile import check_log, open_log
from sim.table.record import DECISION, PLAYERS_KEY, RecordedGame

UNNAMED_PERSON = "person"
MAX_NAME = 60
LOG_SUFFIXES = (".jsonl", ".json", ".log")


@dataclass(frozen=True)
class Move:
    """One logged decision: where it is in the log, whose, of which kind, what was
    offered and what was taken."""

    line: int
    seat: int
    kind: str
    legal: tuple[int, ...]
    action: int


@dataclass(frozen=True)
class LoggedGame:
    """A game as its log holds it: the study, (seed, game index), who sat where, the moves."""

    path: str
    study: StudyConfig
    seed: int
    index: int
    names: tuple[str, ...]
    humans: frozenset[int]
    moves: tuple[Move, ...]


def log_paths(sources: Sequence[str | Path]) -> list[Path]:
    """The log files named: files as given, folders as every log file in them (sorted);
    a source that is neither, or no log at all, is one error line."""
    out: list[Path] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in LOG_SUFFIXES and p.is_file())
            if not found:
                raise SimError(f"{path}: a folder without game logs (*.jsonl)")
            out += found
        elif path.is_file():
            out.append(path)
        else:
            raise SimError(f"{path}: no such log file or folder")
    return list(dict.fromkeys(out))


def player_names(setup: dict, study: StudyConfig, slots: Sequence[int], where: str) -> tuple:
    """The player at each seat: the setup record's `players` entry, else the seat's bot
    label, else UNNAMED_PERSON for a person."""
    seats = setup.get("seats", [])
    given = setup.get(PLAYERS_KEY)
    players = study.game.players
    if given is not None and (not isinstance(given, list) or len(given) != players):
        raise SimError(f"{where}: '{PLAYERS_KEY}' must list one name (or null) per seat")
    names = []
    for p in range(players):
        name = given[p] if given is not None else None
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise SimError(f"{where}: {PLAYERS_KEY}[{p}] must be a name or null")
        human = isinstance(seats, list) and p < len(seats) and bool(seats[p].get("human"))
        if name is None:
            name = UNNAMED_PERSON if human else study.seats[slots[p]].label
        names.append(name.strip()[:MAX_NAME])
    return tuple(names)


def read_game(path: str | Path, study: StudyConfig | None = None) -> LoggedGame:
    """One log file as a LoggedGame, checked as `sim play --replay` checks it: its format,
    engine version and config hash, and every record replayed against the engine (the deal,
    the seats, each decision's legal actions, the final scores and winners), so a tampered
    log is one error line and never fitted. A given `study` must be the log's."""
    path = Path(path)
    check_log(path, study, bots=False)  # the people's moves are theirs: bots not asked
    records, setup, where, logged = open_log(path, study)
    seed, index = setup["seed"], setup["game"]
    if not (isinstance(seed, int) and isinstance(index, int) and seed >= 0 and index >= 0):
        raise SimError(f"{where}: seed and game must be whole numbers >= 0")
    slots = [int(slot) for slot in seat_lineup(logged, index)]
    seats = setup["seats"] if isinstance(setup["seats"], list) else []
    humans = frozenset(
        p for p, seat in enumerate(seats) if isinstance(seat, dict) and seat.get("human")
    )
    moves = []
    for number, record in records:
        if record["event"] != DECISION:
            continue
        try:
            move = Move(
                number,
                int(record["seat"]),
                str(record["decision"]),
                tuple(int(a) for a in record["legal"]),
                int(record["action"]),
            )
        except (KeyError, TypeError, ValueError):
            raise SimError(
                f"{path}:{number}: a decision record without seat, legal or action"
            ) from None
        moves.append(move)
    names = player_names(setup, logged, slots, where)
    return LoggedGame(str(path), logged, seed, index, names, humans, tuple(moves))


def read_games(
    paths: Sequence[Path],
    study: StudyConfig | None = None,
    seats: Iterable[int] | None = None,
    say: Callable[[str], None] | None = None,
) -> list[LoggedGame]:
    """Every log read (`read_game`), saying how far every 10 s; a seat given that a game
    does not have is one error line, before anything is replayed."""
    games, last = [], time.monotonic()
    for path in paths:
        game = read_game(path, study)
        bad = [s for s in seats or () if not 0 <= s < game.study.game.players]
        if bad:
            raise SimError(
                f"{path}: --seats {bad[0]}: no seat {bad[0]} in a game of {game.study.game.players}"
            )
        games.append(game)
        if say is not None and time.monotonic() - last > 10:
            last = time.monotonic()
            say(f"read {len(games):,} of {len(paths):,} logs")
    return games


def recorded_game(recorded: RecordedGame, label: str = "<memory>") -> LoggedGame:
    """A game played in this process (`sim.table.record.play_recorded`) as a LoggedGame."""
    study = recorded.study
    names = tuple(study.seats[slot].label for slot in recorded.slots)
    moves = tuple(Move(-1, d.seat, d.kind, d.legal, d.action) for d in recorded.decisions)
    return LoggedGame(label, study, recorded.seed, recorded.index, names, recorded.humans, moves)


def fitted_seats(game: LoggedGame, seats: Iterable[int] | None) -> set[int]:
    """The seats whose decisions are fitted: those given, else the people's, else all."""
    if seats is not None:
        return set(seats)
    return set(game.humans) if game.humans else set(range(game.study.game.players))


def logged_choices(
    games: Sequence[LoggedGame],
    seats: Iterable[int] | None = None,
    say: Callable[[str], None] | None = None,
) -> Choices:
    """Every fitted decision with more than one legal action, as Choices (games in order;
    each decision's player from its seat's name)."""
    seats = None if seats is None else tuple(seats)
    players: dict[str, int] = {}
    rows: list[tuple] = []
    engines: dict[str, object] = {}
    last = time.monotonic()
    for g, game in enumerate(games):
        mine = fitted_seats(game, seats)
        bad = sorted(s for s in mine if not 0 <= s < game.study.game.players)
        if bad:
            raise SimError(f"{game.path}: no seat {bad[0]} in a game of {game.study.game.players}")
        key = game.study.config_hash()
        if key not in engines:
            engines[key] = engine_for(game.study.game)
        rows += _game_rows(game, engines[key], mine, g, players)
        if say is not None and time.monotonic() - last > 10:
            last = time.monotonic()
            say(f"replayed {g + 1:,} of {len(games):,} games ({len(rows):,} decisions)")
    return build_choices(rows, FEATURE_NAMES, tuple(players), tuple(g.path for g in games))


def _game_rows(game: LoggedGame, engine, seats: set[int], g: int, players: dict) -> list:
    """The decision tuples of one game (see `build_choices`)."""
    board = Game(engine, game.seed, game.index)
    scratch = FeatureScratch(board.pr)
    out = []
    for move in game.moves:
        where = f"{game.path}:{move.line}" if move.line >= 0 else game.path
        if board.over:
            raise SimError(f"{where}: a decision after the end of the game")
        legal = tuple(board.legal().tolist())
        if legal != move.legal or move.action not in legal or board.seat != move.seat:
            raise SimError(
                f"{where}: the engine offers other actions (or another seat) than the log"
                f" records; check the log with sim play --replay {game.path}"
            )
        if move.seat in seats and len(legal) > 1:
            x, alt, greedy = features_of(board.s, board.pr, scratch)
            if len(greedy) == len(legal) and len(np.unique(alt)) == len(legal):
                player = players.setdefault(game.names[move.seat], len(players))
                out.append((x, alt, greedy, legal.index(move.action), g, player, move.kind))
        apply_action(board.s, board.pr, np.int32(move.action))
    return out
