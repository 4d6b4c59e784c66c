"""What a run's page shows that its tables do not hold, played once and kept in the run
folder: turns against deck size (a scan of a few hundred games per deck size) and the
representative game replayed to its final table.

The report renders only; this module plays. `page_plays(run, pick)` reads them
from the run folder's `page.json` when it was made for these games, and otherwise
plays them and writes it (a read-only folder just plays them again next time).
`pick` (`representative`) is the game and what the run's rows say of it, taken from
the rows the report reads anyway: a side process that plays the parts reads no table.

The deck scan depends on the config alone (its game, seats and seed: `config_hash`), not on
the run, so it is also kept in the user's cache folder, as the feel model is: a later run
of the same config (more games, another folder) reads it instead of playing it again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sim.config import StudyConfig
from sim.engine.position import Position
from sim.engine.position_io import parse_position, position_to_json
from sim.errors import SimError
from sim.runs.play import play_one
from sim.runs.storage import RunResult, read_json, saved_study, write_json
from sim.studies.deck_parity import deck_scan
from sim.version import ENGINE_VERSION, cache_root

PAGE_FILE = "page.json"
DECK_SCAN_GAMES = 200  # games per deck size in the page's turns-against-deck-size figure
# a deck scan's columns (`sim.studies.deck_parity.deck_scan`), as the page and its files hold them
SCAN_COLUMNS = (
    "players",
    "boxes",
    "hand_cards",
    "games",
    "turns",
    "turns_min",
    "turns_max",
    "seat_turns",
    "equal",
    "extra0",
    "all_equal",
    "replaced",
)


@dataclass(frozen=True)
class RepresentativeGame:
    """The median-margin game of a run, replayed: its final table and each seat's score
    (None, with the reason in `note`, when it could not be replayed here)."""

    index: int
    position: Position | None
    replayed: list[int] | None
    matches: bool  # the replay gives the run's own scores, under the same engine version
    note: str = ""


@dataclass(frozen=True)
class Pick:
    """The representative game of a run's rows (`representative`): its index, its seed and
    each seat's final score there."""

    index: int
    seed: int
    scores: list[int]


@dataclass(frozen=True)
class PagePlays:
    """The played parts of a run's page."""

    deck_scan: pd.DataFrame  # sim.studies.deck_parity.deck_scan at the run's player count
    deck_games: int
    game: RepresentativeGame


def representative_game(games: pd.DataFrame) -> int:
    """The first game whose winning margin is the median margin."""
    gap = (games["margin"] - games["margin"].median()).abs()
    return int(games.loc[gap == gap.min(), "game"].min())


def representative(view: RunResult) -> Pick:
    """The representative game of `view`'s games (the run or the sample of it its page
    reads), with its seed and scores from the rows."""
    index = representative_game(view.games)
    row = view.games.loc[view.games["game"] == index].iloc[0]
    scores = view.players.loc[view.players["game"] == index].sort_values("seat")["score"]
    return Pick(index, int(row["seed"]), [int(x) for x in scores])


def page_plays(run: RunResult, pick: Pick) -> PagePlays:
    """The deck scan and the representative game `pick` of a run, from page.json when it
    holds them, else played and saved."""
    index = pick.index
    key = {
        "config_hash": run.meta.get("config_hash"),
        "games": run.meta.get("games"),
        "engine_version": ENGINE_VERSION,
        "representative": index,
        "deck_games": DECK_SCAN_GAMES,
    }
    path = Path(run.run_dir) / PAGE_FILE
    stored = _read(path, key)
    if stored is not None:
        return stored
    study = saved_study(run.meta, Path(run.run_dir) / "run.json", plugins=False)
    plays = PagePlays(page_scan(study), DECK_SCAN_GAMES, _replay(run, study, pick))
    try:
        write_json(path, {**key, **_as_json(plays)})
    except OSError:  # a read-only run folder: played again next time
        pass
    return plays


def page_scan(study: StudyConfig) -> pd.DataFrame:
    """The page's deck scan of a study (at its player count, DECK_SCAN_GAMES games per deck
    size): from the user's cache when this engine scanned this config before, else played
    and cached (a cache that cannot be read or written is passed by). The scan plays slow
    seats and a designer's own policy by greedy (`scan_lineup`), so it is the config's
    alone: the key is its hash, which leaves out its name, games and targets."""
    key = f"{ENGINE_VERSION}-{DECK_SCAN_GAMES}-{study.config_hash()}"
    path = cache_root() / "deck-scan" / f"{key}.json"
    try:
        return _scan_of(read_json(path)["deck_scan"])
    except (OSError, SimError, KeyError, TypeError, ValueError):
        pass  # none yet, or damaged: played again
    scan = _play_scan(study)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"deck_scan": _scan_json(scan)})
    except OSError:
        pass
    return scan


def _play_scan(study: StudyConfig) -> pd.DataFrame:
    return deck_scan(study, players=[study.game.players], games=DECK_SCAN_GAMES)


def _scan_json(scan: pd.DataFrame) -> list[dict]:
    return scan.assign(seat_turns=scan["seat_turns"].map(list)).to_dict("records")


def _scan_of(records: list[dict]) -> pd.DataFrame:
    """A deck scan from its JSON records; ValueError if they are not one (a damaged file:
    other columns, a value of another type, a seat's turns missing)."""
    scan = pd.DataFrame(records)
    if list(scan.columns) != list(SCAN_COLUMNS) or not len(scan):
        raise ValueError("not a deck scan")
    flags = scan[["all_equal", "replaced"]]
    numbers = scan.drop(columns=["seat_turns", *flags.columns])
    number = pd.api.types.is_numeric_dtype
    if not all(number(t) and not pd.api.types.is_bool_dtype(t) for t in numbers.dtypes):
        raise ValueError("not a deck scan")
    if not all(pd.api.types.is_bool_dtype(t) for t in flags.dtypes):
        raise ValueError("not a deck scan")
    for turns, players in zip(scan["seat_turns"], scan["players"], strict=True):
        if not isinstance(turns, list) or len(turns) != players:
            raise ValueError("not a deck scan")
        if any(isinstance(x, bool) or not isinstance(x, int | float) for x in turns):
            raise ValueError("not a deck scan")
    scan["seat_turns"] = scan["seat_turns"].map(tuple)
    return scan


def _replay(run: RunResult, study: StudyConfig, pick: Pick) -> RepresentativeGame:
    """The game played again from its seed; its scores against the run's."""
    try:  # a plug-in policy replays here too: if it cannot, the page says so
        game = play_one(study, pick.seed, pick.index)
    except SimError as exc:
        note = f"The game could not be replayed here, so it is not drawn: {exc}"
        return RepresentativeGame(pick.index, None, None, True, note)
    replayed = [int(x) for x in game.outcome().scores]
    same = replayed == pick.scores and run.meta["engine_version"] == ENGINE_VERSION
    return RepresentativeGame(pick.index, game.position(), replayed, same)


def _as_json(plays: PagePlays) -> dict:
    g = plays.game
    return {
        "deck_scan": _scan_json(plays.deck_scan),
        "game": {
            "index": g.index,
            "position": None if g.position is None else position_to_json(g.position),
            "replayed": g.replayed,
            "matches": g.matches,
            "note": g.note,
        },
    }


def _read(path: Path, key: dict) -> PagePlays | None:
    """page.json's plays when it was made for these games (same key), else None."""
    try:
        data = read_json(path)
    except (OSError, SimError):
        return None
    if any(data.get(k) != v for k, v in key.items()):
        return None
    try:
        scan = _scan_of(data["deck_scan"])
        g = data["game"]
        position = None if g["position"] is None else parse_position(g["position"])
        game = RepresentativeGame(g["index"], position, g["replayed"], g["matches"], g["note"])
    except (KeyError, TypeError, ValueError, SimError, json.JSONDecodeError):
        return None  # damaged: played again
    return PagePlays(scan, data["deck_games"], game)
