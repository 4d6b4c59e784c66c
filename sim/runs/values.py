"""A chunk's per-game values straight from the arrays the compiled loop filled.

`sim.analysis.values.game_values` defines the per-game values on the result
tables (any rows, any order: the definition every reader uses). A worker that has
just played a chunk holds the same numbers as arrays, one row per game, seat and
card type in order, so this computes them with a few numpy reductions and one
compiled pass over the card counters (`sim.runs.results.card_sums`) instead of
building the tables' DataFrames first, and the chunk's moments from one matrix
(`moments_of_columns`) without a DataFrame at all: time the runner would otherwise
spend per chunk beside the play (docs/dev/performance-log.md).
`tests/runs/test_chunk_values.py` checks it column for column against the
definition on the written tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.moment_sums import deviations_and_sums
from sim.analysis.moments import Moments, gram
from sim.analysis.usage import is_item_name
from sim.analysis.values import policy_shares
from sim.config import StudyConfig
from sim.engine.state import PS_TURNS, STAT_NAMES, TRIGGER_NAMES, CardTypes
from sim.runs.results import (
    G_BOXES,
    G_CLOSED,
    G_MARGIN,
    G_N_WINNERS,
    G_TRIGGER,
    G_TRIGGER_SEAT,
    G_TRIGGER_TURN,
    G_TURNS,
    G_WASTED,
    P_BOX_POINTS,
    P_BOXES_LED,
    P_SCORE,
    P_SEAT_STATS,
    ChunkArrays,
    card_sums,
)

_DEALT, _DRAWN = STAT_NAMES.index("dealt"), STAT_NAMES.index("drawn")
_DISCARDED, _WASTED = STAT_NAMES.index("discarded"), STAT_NAMES.index("wasted")
_DECK_EMPTY = TRIGGER_NAMES.index("deck_empty")


def chunk_values(study: StudyConfig, chunk: ChunkArrays) -> pd.DataFrame:
    """The chunk's `game_values` (every column, in their order; index `game`), from the
    arrays."""
    return values_frame(chunk, value_columns(study, chunk))


def values_frame(chunk: ChunkArrays, columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """A chunk's value columns (`value_columns`, or some of them) as a table, index `game`."""
    index = pd.Index(np.arange(chunk.first, chunk.first + len(chunk.games)), name="game")
    return pd.DataFrame(columns, index=index)


def moments_of_columns(columns: dict[str, np.ndarray]) -> Moments:
    """`Moments.of(values_frame(chunk, columns))` without the DataFrame: the per-game value
    columns (name: one value per game) are copied once, in sorted order, into one
    column-major matrix (the layout `Moments.of` reads), whose sums the compiled
    `deviations_and_sums` adds in numpy's order, bit for bit. A per-chunk cost beside the
    play."""
    names = tuple(sorted(columns))
    count = len(next(iter(columns.values()))) if columns else 0
    if count == 0:
        return Moments.empty(names)
    x = np.empty((count, len(names)), order="F")
    for j, name in enumerate(names):
        x[:, j] = columns[name]
    mean, nonbinary, lo, hi, m3, m4 = deviations_and_sums(x.T)  # x: the deviations now
    return Moments(names, count, mean, gram(x), nonbinary, lo, hi, m3, m4)


def value_columns(study: StudyConfig, chunk: ChunkArrays) -> dict[str, np.ndarray]:
    """The chunk's per-game values as arrays by column name, in `game_values`' order."""
    count, players = chunk.slots.shape
    games, seats = chunk.games, chunk.seats
    share = chunk.win_shares()
    out: dict[str, np.ndarray] = {}

    out["n_players"] = np.full(count, float(players))
    out["fpa"] = share[:, 0] - 1.0 / players
    for k in range(players):
        out[f"seat{k}"] = share[:, k]
    labels = [seat.label for seat in study.seats]
    names = sorted(set(labels))
    policy = np.array([names.index(label) for label in labels])[chunk.slots]
    out.update(policy_shares(policy, names, share))

    turns = seats[:, :, P_SEAT_STATS + PS_TURNS]
    level = chunk.equal_turn_scores
    top = level == level.max(axis=1, keepdims=True)
    level_share = top / top.sum(axis=1, keepdims=True)  # R8.6: tied leaders share the win
    fewest = turns.min(axis=1)
    out["unequal_turns"] = (turns.max(axis=1) > fewest).astype(float)
    for k in range(players):
        out[f"extra{k}"] = (turns[:, k] > fewest).astype(float)
        out[f"level{k}"] = level_share[:, k]
        out[f"turn_gain{k}"] = share[:, k] - level_share[:, k]

    played = games[:, G_TURNS]
    after = played - games[:, G_TRIGGER_TURN] - 1
    out["margin"] = games[:, G_MARGIN].astype(float)
    out["tie"] = (games[:, G_N_WINNERS] > 1).astype(float)
    out["turns"] = played.astype(float)
    out["deck_empty"] = (games[:, G_TRIGGER] == _DECK_EMPTY).astype(float)
    out["items_wasted"] = games[:, G_WASTED].astype(float)
    out["boxes"] = games[:, G_BOXES].astype(float)
    out["closed_boxes"] = games[:, G_CLOSED].astype(float)
    out["final_phase"] = np.where(games[:, G_TRIGGER_SEAT] >= 0, after, played).astype(float)
    for name in ("lead_changes", "decided_at", "comeback", "open_before_last"):
        out[name] = chunk.tension[name].astype(float)
    for name, column in (chunk.feel or {}).items():
        out[name] = column.astype(float)

    score = seats[:, :, P_SCORE].astype(float)
    out["score"] = score.mean(axis=1)
    out["score_sq"] = (score**2).mean(axis=1)
    out["box_points"] = seats[:, :, P_BOX_POINTS].sum(axis=1).astype(float)
    out["boxes_led"] = seats[:, :, P_BOXES_LED].sum(axis=1).astype(float)

    out.update(_card_values(study, chunk, share))
    return out


def _card_values(study: StudyConfig, chunk: ChunkArrays, share: np.ndarray) -> dict:
    """had:, had_win:, dead: and got: per kind (by name), dead_cards and hand_cards: the
    sums over each game's seats (`sim.analysis.values._card_values`)."""
    names = CardTypes(study.game.game_dict()["deck"]).names
    cards = chunk.cards  # [game, seat, card type, stat]
    item = np.array([is_item_name(n) for n in names])
    sums = card_sums(cards, item, share, _DEALT, _DRAWN, _DISCARDED, _WASTED)
    parts = dict(zip(("had", "had_win", "dead", "got"), sums, strict=True))
    order = sorted(range(len(names)), key=lambda c: names[c])
    out = {f"{what}:{names[c]}": sums[:, c] for what, sums in parts.items() for c in order}
    out["dead_cards"] = parts["dead"][:, ~item].sum(axis=1)
    out["hand_cards"] = parts["got"][:, ~item].sum(axis=1)
    return out
