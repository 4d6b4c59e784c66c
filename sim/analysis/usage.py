"""What each card does: how often each kind is held, played, stuck in hand, discarded or wasted.

Card telemetry per card kind, from the cards table's per (game, seat, kind)
counters (`sim.engine.state.STAT_NAMES`). Box cards and the Princess go to the
hand (dealt or drawn) and leave it by being played or, when nothing in hand can
be played, discarded (R3.1, R7.2): a discarded copy is a **dead card**. Toys
and sprayers are placed at once by their drawer (R5.1), or leave the game when
no open seam is free (R5.3): a **wasted item**, the items' dead card. Every
rate comes with a 95% interval clustered by game (the seats of one game share
its table).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.cards import ITEM_KINDS, card_kind, full_layout
from sim.analysis.stats import Z95, Clusters, clustered_means, mean_ci


def is_item_name(card: str) -> bool:
    """Is a card name such as 'toy:yarn' a toy or a sprayer?"""
    return card_kind(str(card)) in ITEM_KINDS


def is_item(cards: pd.DataFrame) -> pd.Series:
    """Per cards row: is the card a toy or a sprayer (placed on a seam when drawn, R5.1)?"""
    return cards["card"].isin([c for c in cards["card"].unique() if is_item_name(c)])


def held_copies(cards: pd.DataFrame) -> pd.Series:
    """Per cards row: copies the seat got: dealt or drawn (items: drawn; they are never dealt)."""
    return (cards["dealt"] + cards["drawn"]).astype(np.int64)


def dead_copies(cards: pd.DataFrame) -> pd.Series:
    """Per cards row: copies that did nothing: discarded unplayed, or for items wasted."""
    return cards["wasted"].where(is_item(cards), cards["discarded"]).astype(np.int64)


def placed_items(cards: pd.DataFrame) -> pd.Series:
    """Per cards row: items the seat placed on a seam (into a box it led or not)."""
    return (cards["into_led"] + cards["into_other"]).astype(np.int64)


def ratio_ci(num, den, clusters) -> tuple[float, float, float]:
    """Σnum / Σden with a cluster-robust (delta method) 95% interval; NaN when Σden is 0."""
    r, lo, hi = ratios(np.c_[num], np.c_[den], Clusters(clusters))
    return float(r[0]), float(lo[0]), float(hi[0])


def ratios(num, den, clusters: Clusters) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`ratio_ci` of each column of `num` and `den` ([rows, k]): (ratio, lo, hi), arrays."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    total = den.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(total > 0, num.sum(axis=0) / total, np.nan)
        half = Z95 * clusters.se((num - r * den) / total)
    return r, r - half, r + half


USAGE_COUNTS = ("dealt", "drawn", "played", "final_hand", "first_turn")
USAGE_COUNTS += ("into_led", "into_other", "into_nobody")


def card_usage(cards: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """One row per card kind: what happened to its copies, per game and as rates.

    Columns: card, kind, held (copies per game, all seats), dealt, drawn, played (items:
    placed), final_hand (copies in hand when the final phase began), dead (discarded
    unplayed; items: wasted), dead_rate [dead_lo, dead_hi] (dead copies / copies held),
    dead_games [dg_lo, dg_hi] (share of the seat-games holding the kind in which a copy
    died), n_held (such seat-games), first_turn (mean turn of a seat's first play, among
    seat-games that played it), first_share (the same as a share of the game's turns),
    and for items into_led, into_rival, into_nobody (shares of placed items landing in a
    box the drawer leads, a box only rivals lead, a box nobody leads).
    """
    turns = games.set_index("game")["turns"]
    col = {name: cards[name].to_numpy() for name in USAGE_COUNTS}
    col["held"], col["dead"] = held_copies(cards).to_numpy(), dead_copies(cards).to_numpy()
    col["placed"], col["game"] = placed_items(cards).to_numpy(), cards["game"].to_numpy()
    col["share"] = col["first_turn"] / turns.reindex(col["game"]).to_numpy()
    # on a run's table (`full_layout`) every kind at once, a [seat-game, kind] matrix of each
    # count by a reshape; else kind by kind, the kinds in the order they first appear
    names = full_layout(cards)
    if names is not None:
        parts = [{name: values.reshape(-1, len(names)) for name, values in col.items()}]
    else:
        found = cards.groupby("card", sort=False, observed=True).indices
        kinds = sorted(found.items(), key=lambda kind: kind[1][0])
        names = [str(card) for card, _ in kinds]
        parts = [{name: values[np.c_[idx]] for name, values in col.items()} for _, idx in kinds]
    items = np.array([card_kind(card) in ITEM_KINDS for card in names])
    out, at = [], 0
    for part in parts:
        k = part["held"].shape[1]
        out.append(_usage_columns(part, items[at : at + k]))
        at += k
    frame = pd.concat([pd.DataFrame(o) for o in out], ignore_index=True)
    frame[PER_GAME] = frame[PER_GAME] / len(games)
    frame.insert(0, "kind", [card_kind(card) for card in names])
    frame.insert(0, "card", names)
    return frame


PER_GAME = ["held", "dealt", "drawn", "played", "final_hand", "dead"]


def _usage_columns(g: dict[str, np.ndarray], items: np.ndarray) -> dict[str, np.ndarray]:
    """`card_usage`'s numbers (counts summed, not yet per game) of card kinds that share
    their seat-game rows: `g` each count's [seat-game, kind] matrix, `items` which kinds are
    toys or sprayers. An interval with no rows behind it is [0, 1]."""
    clusters = Clusters(g["game"][:, 0])
    holding = g["held"] > 0
    dead_rate = ratios(g["dead"], g["held"], clusters)
    died = clustered_means(g["dead"] > 0, holding, clusters)
    first = g["first_turn"] > 0
    sums = {name: values.sum(axis=0) for name, values in g.items() if name != "game"}
    placed, nobody = sums["placed"], sums["into_nobody"]
    with np.errstate(divide="ignore", invalid="ignore"):
        some = items & (placed > 0)
        return {
            "held": sums["held"],
            "dealt": sums["dealt"],
            "drawn": sums["drawn"],
            "played": np.where(items, placed, sums["played"]),
            "final_hand": sums["final_hand"],
            "dead": sums["dead"],
            "dead_rate": dead_rate[0],
            "dead_lo": np.fmax(0.0, dead_rate[1]),
            "dead_hi": np.fmin(1.0, dead_rate[2]),
            "dead_games": died[0],
            "dg_lo": np.fmax(0.0, died[1]),
            "dg_hi": np.fmin(1.0, died[2]),
            "n_held": holding.sum(axis=0),
            "first_turn": np.where(first, g["first_turn"], 0).sum(axis=0) / first.sum(axis=0),
            "first_share": np.where(first, g["share"], 0.0).sum(axis=0) / first.sum(axis=0),
            "into_led": np.where(some, sums["into_led"] / placed, np.nan),
            "into_rival": np.where(some, (sums["into_other"] - nobody) / placed, np.nan),
            "into_nobody": np.where(some, nobody / placed, np.nan),
        }


def dead_card_notes(usage: pd.DataFrame, limit: int = 6, floor: float = 0.005) -> list[str]:
    """Plain sentences for the kinds most often dead, worst first (at least `floor` of the
    seat-games that held them): what a designer can act on."""
    worst = usage[usage["dead_games"] >= floor].sort_values("dead_games", ascending=False)
    out = []
    for r in worst.head(limit).itertuples():
        item = r.kind in ITEM_KINDS
        what = "is wasted (no free open seam, R5.3)" if item else "is discarded unplayed"
        whose = "drew" if item else "held"
        out.append(
            f"{r.card} {what} in {r.dead_games:.1%} [{r.dg_lo:.1%}, {r.dg_hi:.1%}] of the"
            f" seat-games that {whose} it ({r.dead_rate:.1%} of its copies; {r.dead:.2f} per game)"
        )
    return out


def evictions(players: pd.DataFrame) -> pd.DataFrame:
    """The Princess per seat (R6): Princesses played, of them on the seat's own cats, and the
    seat's cats evicted, as means per game with 95% intervals (one row per seat and game)."""
    rows = []
    for seat, g in players.groupby("seat", sort=True):
        row = {"seat": seat, "n": len(g)}
        for col in ("princesses_played", "self_evictions", "cats_evicted"):
            e = mean_ci(g[col].to_numpy(float))
            row.update({col: e.value, f"{col}_lo": e.lo, f"{col}_hi": e.hi})
        rows.append(row)
    return pd.DataFrame(rows)


def eviction_summary(players: pd.DataFrame) -> dict[str, float]:
    """Evictions per game and the share of them on the evicting seat's own cat [95%]."""
    per_game = players.groupby("game")[["princesses_played", "self_evictions"]].sum()
    own = ratio_ci(per_game["self_evictions"], per_game["princesses_played"], per_game.index)
    e = mean_ci(per_game["princesses_played"].to_numpy(float))
    return {
        "per_game": e.value,
        "per_game_lo": e.lo,
        "per_game_hi": e.hi,
        "own_share": own[0],
        "own_lo": max(0.0, own[1]) if not np.isnan(own[1]) else own[1],
        "own_hi": min(1.0, own[2]) if not np.isnan(own[2]) else own[2],
    }
