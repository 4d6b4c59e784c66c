"""Per-game values: the plain numbers, one row per game, that every metric is built from.

Every metric of `sim.metrics` is a function of the *means* of these columns,
so this is where the result tables are read, once. The columns (index `game`,
sorted):

| column | per game |
|---|---|
| `n_players` | seats in the game (rows of the players table) |
| `seat<k>` | seat k's win share (a k-way tie gives each winner 1/k, R8.6) |
| `fpa` | `seat0` − 1/`n_players`: that game's first-player advantage |
| `policy:<P>` | mean win share of the seats policy P played (NaN if P did not sit) |
| `margin` | the winner's lead over the best other score (0 on a shared win) |
| `tie` | 1 when two or more seats shared the win, else 0 |
| `turns` | turns played |
| `deck_empty` | 1 when the game ended because the deck ran out (R7.1), else 0 |
| `items_wasted` | drawn items that found no seam and left the game (R5.3) |
| `boxes`, `closed_boxes` | boxes on the final table, and how many of them were closed |
| `score`, `score_sq` | mean over seats of the final score and of its square |
| `box_points`, `boxes_led` | summed over seats: box points scored, boxes led |
| `had:<kind>` | seats that held the card kind (`sim.analysis.cards.held`) |
| `had_win:<kind>` | those seats' summed win share |
| `unequal_turns` | 1 when the seats did not all take the same number of turns, else 0 |
| `extra<k>` | 1 when seat k took more turns than the seat with the fewest, else 0 |
| `level<k>` | seat k's win share by `equal_turn_score` (ties split, R8.6): at equal turns |
| `turn_gain<k>` | `seat<k>` − `level<k>`: what the turns after that point changed |
| `final_phase` | turns played after the turn that triggered the end (R7.2) |
| `lead_changes`, `decided_at` | from the score trace (`sim.analysis.tension`) |
| `comeback`, `open_before_last` | 1 or 0, from the score trace (`sim.analysis.tension`) |
| `suspense`, `surprise`, `decisive_moment` | the chance curves (`sim.feel.chances`), if measured |
| `largest_swing`, `comeback_by_chance` | likewise |
| `dead_cards`, `hand_cards` | box and Princess cards discarded unplayed (R3.1), and held |
| `dead:<kind>` | copies of the kind discarded unplayed (items: wasted, R5.3), all seats |
| `got:<kind>` | copies of the kind held (dealt or drawn; items: drawn), all seats |
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from sim.analysis.cards import held
from sim.analysis.usage import dead_copies, held_copies, is_item_name
from sim.metrics import FEEL_COLUMNS, matches

# Columns read straight off the games table: name -> how.
_FROM_GAMES = {
    "margin": lambda g: g["margin"],
    "tie": lambda g: g["tie"],
    "turns": lambda g: g["turns"],
    "deck_empty": lambda g: g["end_trigger"].astype(str) == "deck_empty",
    "items_wasted": lambda g: g["items_wasted"],
    "boxes": lambda g: g["boxes"],
    "closed_boxes": lambda g: g["closed_boxes"],
    "final_phase": lambda g: final_phase_turns(g),
    "lead_changes": lambda g: g["lead_changes"],
    "decided_at": lambda g: g["decided_at"],
    "comeback": lambda g: g["comeback"],
    "open_before_last": lambda g: g["open_before_last"],
    # the chance curves' summaries, when the study measured the feel (sim.feel.chances)
    **{name: (lambda g, name=name: g[name]) for name in FEEL_COLUMNS},
}
# The games-table fields a column reads, where they are not the column's own name.
_SOURCES = {
    "deck_empty": ("end_trigger",),
    "final_phase": ("turns", "trigger_turn", "trigger_seat"),
}
TURN_COLUMNS = ("unequal_turns", "extra*", "level*", "turn_gain*")  # from the players table
CARD_COLUMNS = ("had:*", "had_win:*", "dead_cards", "hand_cards", "dead:*", "got:*")


def _has(frame: pd.DataFrame | None, *columns: str) -> bool:
    return frame is not None and all(c in frame.columns for c in columns)


def final_phase_turns(games: pd.DataFrame) -> pd.Series:
    """Turns after the one that triggered the end (all of them if setup triggered it, R7.1)."""
    after = games["turns"] - games["trigger_turn"] - 1
    return after.where(games["trigger_seat"] >= 0, games["turns"])


def game_values(
    games: pd.DataFrame,
    players: pd.DataFrame | None,
    cards: pd.DataFrame | None = None,
    *,
    columns: Iterable[str] | None = None,
) -> pd.DataFrame:
    """One row per game (index `game`, sorted) of the columns in this module's table.

    `columns` (names, or families such as `seat*`; see `sim.metrics.needs`)
    keeps only those, and reads only the table fields they come from, so
    `players` may be None when only games-table columns are wanted; the card
    columns need `cards`. A column whose table fields are missing (a hand-made
    frame, or tables written before they existed) is left out.
    """
    want = None if columns is None else tuple(columns)

    def wanted(*names: str) -> bool:  # both sides may be families: `seat*` meets `seat0`
        if want is None:
            return True
        return any(matches(n, want) for n in names) or any(matches(w, names) for w in want)

    g = games.set_index("game").sort_index()
    out = pd.DataFrame(index=g.index)
    if wanted("n_players", "fpa", "seat*", "policy:*"):
        out = out.join(_seat_values(players, g.index))
    if wanted(*TURN_COLUMNS) and _has(players, "turns_taken", "equal_turn_score"):
        out = out.join(_turn_values(players, g.index))
    for name, fn in _FROM_GAMES.items():
        if wanted(name) and _has(g, *_SOURCES.get(name, (name,))):
            out[name] = fn(g).astype(float)
    if wanted("score", "score_sq", "box_points", "boxes_led"):
        out = out.join(_score_values(players, g.index, want))
    if cards is not None and wanted(*CARD_COLUMNS):
        out = pd.concat([out, _card_values(players, cards).reindex(g.index)], axis=1)
    if want is not None:
        out = out[[c for c in out.columns if matches(c, want)]]
    return out


def _dense_seats(players: pd.DataFrame | None, index: pd.Index) -> int:
    """Seats per game when `players` has exactly one row per game of `index` and seat, in
    game then seat order (how every results table is written), else 0 (then pivot)."""
    if players is None or not len(index) or len(players) % len(index):
        return 0
    seats = len(players) // len(index)
    game = players["game"].to_numpy()
    seat = players["seat"].to_numpy()
    expect = np.arange(seats)
    if not (
        np.array_equal(game, np.repeat(index.to_numpy(), seats))
        and np.array_equal(seat, np.tile(expect, len(index)))
    ):
        return 0
    return seats


def _dense_cards(cards: pd.DataFrame, games: np.ndarray, seats: int, kinds: int, codes) -> bool:
    """Has `cards` one row per game, seat and card type, in that order (the rows
    `sim.runs.tables.with_zero_card_rows` gives, or a chunk's arrays)?"""
    if len(cards) != len(games) * seats * kinds:
        return False
    seat = cards["seat"].to_numpy()
    return (
        np.array_equal(codes, np.tile(np.arange(kinds), len(games) * seats))
        and np.array_equal(seat, np.tile(np.repeat(np.arange(seats), kinds), len(games)))
        and np.array_equal(cards["game"].to_numpy(), np.repeat(games, seats * kinds))
    )


def _by_seat(players: pd.DataFrame, column: str, index: pd.Index, seats: int) -> pd.DataFrame:
    """[game, seat] frame of a dense players table's column (a pivot without the pivot)."""
    values = players[column].to_numpy().reshape(len(index), seats)
    return pd.DataFrame(values, index=index, columns=pd.RangeIndex(seats, name="seat"))


def _codes(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    """A column's category codes and names (a categorical's own, else factorised)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(), [str(c) for c in column.cat.categories]
    codes, uniques = pd.factorize(column, sort=True)
    return codes, [str(u) for u in uniques]


def policy_shares(table: np.ndarray, names: list[str], share: np.ndarray) -> dict:
    """policy:<P> per game from [game, seat] policy codes (indices into `names`) and win
    shares: the mean share of the seats P played, NaN in a game where P did not sit; only
    the policies that sat somewhere."""
    out = {}
    for c, policy in enumerate(names):
        sat = table == c
        if sat.any():
            n = sat.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[f"policy:{policy}"] = np.where(sat, share, 0.0).sum(axis=1) / np.where(
                    n > 0, n, np.nan
                )
    return out


def _seat_values(players: pd.DataFrame, index: pd.Index) -> pd.DataFrame:
    """n_players, fpa, seat<k> and policy:<P> per game."""
    out = pd.DataFrame(index=index)
    seats = _dense_seats(players, index)
    if seats:  # one row per game and seat in order (every table this tool writes): no pivots
        out["n_players"] = float(seats)
        ws = _by_seat(players, "win_share", index, seats)
        out["fpa"] = ws[0] - 1.0 / out["n_players"]
        for seat in ws.columns:
            out[f"seat{seat}"] = ws[seat]
        codes, names = _codes(players["policy"])
        out = out.assign(**policy_shares(codes.reshape(len(index), seats), names, ws.to_numpy()))
        return out
    out["n_players"] = players.groupby("game").size().reindex(index).astype(float)
    ws = players.pivot(index="game", columns="seat", values="win_share").reindex(index)
    out["fpa"] = ws[0] - 1.0 / out["n_players"]
    for seat in ws.columns:
        out[f"seat{seat}"] = ws[seat]
    by_policy = players.groupby(["game", "policy"], observed=True)["win_share"].mean().unstack()
    for policy in by_policy.columns:
        out[f"policy:{policy}"] = by_policy[policy].reindex(index)
    return out


def _turn_values(players: pd.DataFrame, index: pd.Index) -> pd.DataFrame:
    """unequal_turns, extra<k>, level<k> and turn_gain<k> per game (turn parity, R2.5, R7)."""
    seats = _dense_seats(players, index)
    if seats:
        names = ("turns_taken", "win_share", "equal_turn_score")
        turns, ws, level = (_by_seat(players, name, index, seats) for name in names)
    else:
        turns = players.pivot(index="game", columns="seat", values="turns_taken").reindex(index)
        ws = players.pivot(index="game", columns="seat", values="win_share").reindex(index)
        level = players.pivot(index="game", columns="seat", values="equal_turn_score")
        level = level.reindex(index)
    top = level.eq(level.max(axis=1), axis=0)
    level_ws = top.div(top.sum(axis=1), axis=0)  # R8.6: tied leaders share the win
    fewest = turns.min(axis=1)
    out = pd.DataFrame(index=index)
    out["unequal_turns"] = (turns.max(axis=1) > fewest).astype(float)
    for seat in turns.columns:
        out[f"extra{seat}"] = (turns[seat] > fewest).astype(float)
        out[f"level{seat}"] = level_ws[seat]
        out[f"turn_gain{seat}"] = ws[seat] - level_ws[seat]
    return out


def _score_values(players: pd.DataFrame, index: pd.Index, want) -> pd.DataFrame:
    """score and score_sq (means over seats), box_points and boxes_led (sums over seats)."""
    out = pd.DataFrame(index=index)
    seats = _dense_seats(players, index)
    if seats:
        score = players["score"].to_numpy(float).reshape(len(index), seats)
        out["score"] = score.mean(axis=1)
        out["score_sq"] = (score**2).mean(axis=1)
        for col in ("box_points", "boxes_led"):
            if want is None or matches(col, want):
                values = players[col].to_numpy().reshape(len(index), seats)
                out[col] = values.sum(axis=1).astype(float)
        return out
    score = players["score"].astype(float)
    per_game = players.assign(score=score, score_sq=score**2).groupby("game")
    out["score"] = per_game["score"].mean().reindex(index)
    out["score_sq"] = per_game["score_sq"].mean().reindex(index)
    for col in ("box_points", "boxes_led"):
        if want is None or matches(col, want):
            out[col] = per_game[col].sum().reindex(index).astype(float)
    return out


def _card_values(players: pd.DataFrame, cards: pd.DataFrame) -> pd.DataFrame:
    """had:<kind> and had_win:<kind> per game (the card-impact ingredients), and the dead
    and held copies per kind and of the hand cards: sums over each game's rows."""
    game_ids = cards["game"].to_numpy()
    games, at = np.unique(game_ids, return_inverse=True)
    card = cards["card"]
    if not isinstance(card.dtype, pd.CategoricalDtype):
        card = card.astype("category")
    codes = card.cat.codes.to_numpy().astype(np.int64)
    names = [str(c) for c in card.cat.categories]
    kinds = len(names)
    seats = _dense_seats(players, pd.Index(games))
    if seats and _dense_cards(cards, games, seats, kinds, codes):  # each row's seat in order
        seat_ws = np.repeat(players["win_share"].to_numpy(float), kinds)
    else:
        ws = players.set_index(["game", "seat"])["win_share"]
        seat_ws = ws.reindex(pd.MultiIndex.from_arrays([game_ids, cards["seat"]]))
        seat_ws = seat_ws.to_numpy(float)
    had = held(cards).to_numpy().astype(float)  # the run report's definition of holding a card
    cell = at * kinds + codes

    def per_game(weights: np.ndarray) -> np.ndarray:  # games x kinds sums of a row value
        return np.bincount(cell, weights, minlength=len(games) * kinds).reshape(-1, kinds)

    parts = {"had": per_game(had), "had_win": per_game(had * seat_ws)}
    telemetry = _has(cards, "discarded", "wasted")
    if telemetry:
        parts["dead"] = per_game(dead_copies(cards).to_numpy().astype(float))
        parts["got"] = per_game(held_copies(cards).to_numpy().astype(float))
    present = sorted(set(codes.tolist()), key=lambda c: names[c])  # kinds with rows, by name
    out = {f"{what}:{names[c]}": sums[:, c] for what, sums in parts.items() for c in present}
    frame = pd.DataFrame(out, index=pd.Index(games, name="game"))
    if telemetry:
        hand = [c for c in range(kinds) if not is_item_name(names[c])]
        frame["dead_cards"] = parts["dead"][:, hand].sum(axis=1)
        frame["hand_cards"] = parts["got"][:, hand].sum(axis=1)
    return frame
