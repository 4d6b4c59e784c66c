"""Restricted play and deck ablation (`sim value`): paired effects on the same games.

Jaffe et al. (2012) measure an option's value as what a player loses when it
may not use it, against opponents who may, on the same deals. Here every
option's games are paired with the unrestricted games of the same game
indices (same shuffle, same seat streams), so a per-game difference cancels
the deal's luck. Intervals are normal-theory on the per-game differences
(n is in the hundreds at least); p-values are two-sided, and a family of
options is controlled by Holm's method (`sim.analysis.inference`).

Inputs are the tidy tables of `sim.runs.results` (players: game, seat, slot, score,
win_share, ...; cards: game, seat, card, played, ...).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim.analysis.inference import ALPHA, adjust, normal_sf2
from sim.analysis.intervals import Z95

# The columns of the players, games and cards tables these functions read.
PLAYER_COLUMNS = ["game", "seat", "slot", "score", "win_share", "sleeping_placed", "cats_placed"]
GAME_COLUMNS = ["game", "turns", "margin"]
CARD_COLUMNS = ["game", "seat", "card", "played"]
NOT_CARDS = ("sleeping", "cat")  # the options that are not a card kind


def is_card(option: str) -> bool:
    """Is a restricted option a card kind (its uses are in the cards table)?"""
    return option not in NOT_CARDS


def slot_outcomes(players: pd.DataFrame, slot: int) -> pd.DataFrame:
    """Per game (index), the line-up slot's win share, score and lead over the best rival."""
    best_other = (
        players[players["slot"] != slot].groupby("game")["score"].max().rename("best_other")
    )
    own = players[players["slot"] == slot].set_index("game")[["win_share", "score"]]
    own = own.join(best_other)
    own["lead"] = own["score"] - own["best_other"]
    return own.drop(columns="best_other").sort_index()


def option_uses(
    players: pd.DataFrame, cards: pd.DataFrame | None, slot: int, option: str
) -> pd.Series:
    """Per game, how often the slot used `option` (a card name, 'sleeping' or 'cat'; the
    cards table may leave out rows of zero, and is not read for the others)."""
    mine = players[players["slot"] == slot][["game", "seat", "sleeping_placed", "cats_placed"]]
    if not is_card(option):
        column = "sleeping_placed" if option == "sleeping" else "cats_placed"
        return mine.set_index("game")[column].sort_index().astype(float)
    played = cards[cards["card"] == option][["game", "seat", "played"]]  # categorical: no strings
    uses = mine[["game", "seat"]].merge(played, on=["game", "seat"], how="left")
    return uses.set_index("game")["played"].fillna(0).sort_index().astype(float)


def paired_effect(before: pd.Series, after: pd.Series) -> dict:
    """after - before, game by game: estimate, 95% interval, standard error, p and n."""
    d = (after - before.reindex(after.index)).dropna().to_numpy(float)
    n = len(d)
    est = float(d.mean()) if n else math.nan
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    if n > 1 and se == 0:
        p = 1.0 if est == 0 else 0.0
    else:
        p = normal_sf2(est / se) if n > 1 and math.isfinite(se) else math.nan
    half = Z95 * se if math.isfinite(se) else math.nan
    return {
        "estimate": est,
        "lo": est - half,
        "hi": est + half,
        "se": se,
        "p": p,
        "n": n,
        "identical": bool(n and not np.any(d)),
    }


def holm(table: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Add Holm-adjusted p-values (`p_adj`) and `real` over the table's rows (one family)."""
    out = table.copy()
    out["p_adj"], out["real"] = adjust(out["p"].to_numpy(float), "holm", alpha)
    return out


def value_row(option: str, base: pd.DataFrame, restricted: pd.DataFrame, uses: pd.Series) -> dict:
    """One option's value: the win share (in points of percent) and score the restricted slot
    loses against the same games unrestricted (positive: the option is worth having), and
    how often it had to fall back to the banned option (nothing else legal)."""
    win = paired_effect(restricted["win_share"], base["win_share"])  # base - restricted
    score = paired_effect(restricted["score"], base["score"])
    return {
        "option": option,
        "value": 100 * win["estimate"],
        "lo": 100 * win["lo"],
        "hi": 100 * win["hi"],
        "n": win["n"],
        "p": win["p"],
        "score_loss": score["estimate"],
        "score_lo": score["lo"],
        "score_hi": score["hi"],
        "score_p": score["p"],
        "fallback_rate": float((uses > 0).mean()) if len(uses) else math.nan,
        "fallbacks_per_game": float(uses.mean()) if len(uses) else math.nan,
        "identical": win["identical"] and score["identical"],
    }


# Game-level quantities an ablation is judged on: name -> (label, unit, per-game function).
ABLATION_MEASURES = {
    "mean_score": ("mean final score per seat", "points"),
    "turns": ("turns per game", "turns"),
    "first_player": ("seat 0's win share", "pp"),
    "margin": ("winning margin", "points"),
}


def game_measures(games: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """Per game (index): the ABLATION_MEASURES columns."""
    out = pd.DataFrame(index=games["game"].to_numpy())
    out["mean_score"] = players.groupby("game")["score"].mean()
    out["turns"] = games.set_index("game")["turns"]
    seat0 = players[players["seat"] == 0].set_index("game")["win_share"]
    out["first_player"] = 100 * seat0
    out["margin"] = games.set_index("game")["margin"]
    return out.sort_index()


def ablation_rows(card: str, base: pd.DataFrame, ablated: pd.DataFrame) -> list[dict]:
    """Removing one copy of `card`: the paired change of every ABLATION_MEASURES column."""
    rows = []
    for name, (label, unit) in ABLATION_MEASURES.items():
        eff = paired_effect(base[name], ablated[name])
        rows.append(
            {
                "card": card,
                "measure": name,
                "label": label,
                "unit": unit,
                "change": eff["estimate"],
                "lo": eff["lo"],
                "hi": eff["hi"],
                "n": eff["n"],
                "p": eff["p"],
                "identical": eff["identical"],
            }
        )
    return rows
