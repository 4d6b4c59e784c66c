"""The four tables of a chunk: Arrow tables built straight from its compiled arrays.

`sim.runs.results` fills a chunk's arrays in compiled code (and is one of the files that key
the compile cache, `sim.COMPILED`); this module turns them into the `games`, `players`,
`cards` and `turns` tables with categoricals and small integers (`arrow_tables`), written
to Parquet by `sim.runs.storage` or read into pandas (`tables`). Only the tables a run
keeps are built: a candidate's run keeps two (`sim.runs.storage.CANDIDATE_TABLES`). Every
row carries the config hash and the engine version, so results of another config or an
older engine are never mixed up with new ones.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd
import pyarrow as pa

from sim.analysis.tension import TENSION_COLUMNS
from sim.config import StudyConfig
from sim.engine.state import STAT_NAMES, TRIGGER_NAMES, CardTypes
from sim.runs.results import (
    G_MARGIN,
    G_N_WINNERS,
    G_WINNERS,
    GAME_COLUMNS,
    N_P,
    P_RANK,
    SEAT_COLUMNS,
    TABLES,
    ChunkArrays,
    nonzero_card_rows,
    trace_rows,
)
from sim.version import ENGINE_VERSION


def _categorical(codes: np.ndarray, names: list[str]) -> pa.DictionaryArray:
    """A column of names stored as small codes (a pandas Categorical once read)."""
    return pa.DictionaryArray.from_arrays(pa.array(codes, pa.int8()), pa.array(names))


def arrow_tables(
    study: StudyConfig, chunk: ChunkArrays, names: Collection[str] = TABLES
) -> dict[str, pa.Table]:
    """The tables in `names` (in TABLES order) as Arrow tables built straight from the
    arrays (no pandas on the way to disk: writing is a runner cost the engine does not pay).
    Only those are built: a candidate's cards and turns cost a fifth of its finishing."""
    tag = [study.config_hash()]
    out = {}
    for name in TABLES:
        if name in names:
            columns = _COLUMNS[name](study, chunk)
            rows = len(next(iter(columns.values())))
            columns["config_hash"] = _categorical(np.zeros(rows, np.int8), tag)
            columns["engine_version"] = pa.array(np.full(rows, ENGINE_VERSION, np.int16))
            out[name] = pa.table(columns)
    return out


def _games(study: StudyConfig, chunk: ChunkArrays) -> dict:
    """The `games` table: one row per game, its counts, outcome (R8.6) and tension."""
    players, count = study.game.players, len(chunk.games)
    g = {
        "game": np.arange(chunk.first, chunk.first + count),
        "seed": np.full(count, study.seed),
        "players": np.full(count, players, np.int8),
    }
    for k, name in enumerate(GAME_COLUMNS):
        if name == "trigger":
            g["end_trigger"] = _categorical(chunk.games[:, k], list(TRIGGER_NAMES))
        else:
            g[name] = chunk.games[:, k].astype(np.int32)
    subsets = [",".join(str(q) for q in range(players) if m >> q & 1) for m in range(1 << players)]
    n_winners = chunk.games[:, G_N_WINNERS]
    g["winners"] = _categorical(chunk.games[:, G_WINNERS], subsets)
    g["n_winners"] = n_winners.astype(np.int8)
    g["tie"] = n_winners > 1
    g["margin"] = chunk.games[:, G_MARGIN].astype(np.int32)
    g["rotation"] = chunk.slots[:, 0].astype(np.int8)
    g["rounds"] = chunk.rounds.astype(np.int16)
    for name in TENSION_COLUMNS:  # sim.analysis.tension defines them
        g[name] = chunk.tension[name]
    for name, column in (chunk.feel or {}).items():  # sim.feel.chances defines them
        g[name] = column
    return g


def _players(study: StudyConfig, chunk: ChunkArrays) -> dict:
    """The `players` table: one row per game and seat, its points by source and rank."""
    players, count = study.game.players, len(chunk.games)
    labels = [seat.label for seat in study.seats]
    names = sorted(set(labels))
    slot_policy = np.array([names.index(label) for label in labels])
    flat_slots = chunk.slots.reshape(-1)
    p = {
        "game": np.repeat(np.arange(chunk.first, chunk.first + count), players),
        "seat": np.tile(np.arange(players, dtype=np.int8), count),
        "slot": flat_slots.astype(np.int8),
        "policy": _categorical(slot_policy[flat_slots], names),
    }
    seats = chunk.seats.reshape(count * players, N_P)
    for k, name in enumerate(SEAT_COLUMNS):
        p[name] = seats[:, k].astype(np.int32)
    p["rank"] = seats[:, P_RANK].astype(np.int8)  # 1 is best; tied seats share the best rank
    p["win_share"] = chunk.win_shares().reshape(-1)
    p["equal_turn_score"] = chunk.equal_turn_scores.reshape(-1)
    return p


def _cards(study: StudyConfig, chunk: ChunkArrays) -> dict:
    """The `cards` table: only the rows with a non-zero count (more than a quarter of rows
    are all zero: a seat never held that card; `with_zero_card_rows` puts them back on
    reading), by seat, then card type, then game: a type's counters resemble each other, so
    the part is about a fifth smaller than in game order; readers never rely on the order."""
    game, seat, card, counts = nonzero_card_rows(chunk.cards)
    c = {
        "game": game + chunk.first,
        "seat": seat,
        "card": _categorical(card, CardTypes(study.game.game_dict()["deck"]).names),
    }
    for k, name in enumerate(STAT_NAMES):
        c[name] = counts[k]
    return c


def _turns(study: StudyConfig, chunk: ChunkArrays) -> dict[str, np.ndarray]:
    """The `turns` table: one row per game, seat and round (in that order, so that delta
    encoding packs each seat's slowly changing score into a few bits), `score` the seat's
    table score after that round; a game's last round holds its final scores."""
    game, seat, round_, score = trace_rows(chunk.trace, chunk.rounds, chunk.first)
    return {"game": game, "seat": seat, "round": round_, "score": score}


_COLUMNS = {"games": _games, "players": _players, "cards": _cards, "turns": _turns}


def tables(study: StudyConfig, chunk: ChunkArrays) -> dict[str, pd.DataFrame]:
    """The tidy games, players, cards and turns tables of some games' raw results."""
    frames = {name: table.to_pandas() for name, table in arrow_tables(study, chunk).items()}
    frames["cards"] = with_zero_card_rows(frames["cards"])
    return frames


def with_zero_card_rows(cards: pd.DataFrame) -> pd.DataFrame:
    """The cards table with the all-zero rows that are not written to disk put back: one
    row per game, seat and card type, in that order. (Every seat is dealt cards, so every
    game and seat has rows to find.)"""
    games = np.unique(cards.game.to_numpy())
    seats = int(cards.seat.max()) + 1 if len(cards) else 0
    kinds = cards.card.cat.categories
    ntypes = len(kinds)
    rows = len(games) * seats * ntypes
    at = (
        np.searchsorted(games, cards.game.to_numpy()) * seats + cards.seat.to_numpy()
    ) * ntypes + cards.card.cat.codes.to_numpy()
    full = {
        "game": np.repeat(games, seats * ntypes),
        "seat": np.tile(np.repeat(np.arange(seats, dtype=cards.seat.dtype), ntypes), len(games)),
        "card": pd.Categorical.from_codes(np.tile(np.arange(ntypes), len(games) * seats), kinds),
    }
    for name in STAT_NAMES:
        column = np.zeros(rows, cards[name].dtype)
        column[at] = cards[name].to_numpy()
        full[name] = column
    # the same in every row of a run
    config_hash = cards.config_hash.cat
    full["config_hash"] = pd.Categorical.from_codes(
        np.full(rows, config_hash.codes.iloc[0] if rows else 0, np.int8), config_hash.categories
    )
    version = cards.engine_version
    full["engine_version"] = np.full(rows, version.iloc[0] if rows else 0, version.dtype)
    return pd.DataFrame(full)[list(cards.columns)]
