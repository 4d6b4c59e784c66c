"""Card impact, in the manner of card-game analytics: how a seat fared when a card came its way.

For each card kind: the win rate of seat-games in which the seat held the card
against those in which it never did, and the difference ("improvement when
drawn"), plus the win rate and mean score when the seat played it (an
item counts as played when its drawer placed it on a seam, not wasted, R5.3).

"Held" means: for box cards and the Princess, dealt or drawn at least once
(they sit in the hand until played); for toys and sprayers, drawn at least once
(they are set aside during the deal, R2.4, and the drawer must place them at
once, R5.1). These are associations among the bots that played, not causes:
a card that comes with long games, or that a good policy plays more, looks
better without making anyone better.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.stats import Z95, Clusters, clustered_diffs


def card_kind(card: str) -> str:
    """'box', 'princess', 'toy' or 'sprayer' from a card name such as 'box:NE' or 'toy:yarn'."""
    return card.split(":", 1)[0]


ITEM_KINDS = ("toy", "sprayer")


def _is_item(cards: pd.DataFrame) -> pd.Series:
    """Per cards row: is the card a toy or a sprayer (placed on a seam when drawn, R5.1)?"""
    items = [c for c in cards["card"].unique() if card_kind(c) in ITEM_KINDS]
    return cards["card"].isin(items)


def held(cards: pd.DataFrame) -> pd.Series:
    """Per cards row: did the seat have this card in hand (items: did it draw one)?"""
    by_draw = _is_item(cards)
    return (cards["drawn"] > 0).where(by_draw, (cards["dealt"] + cards["drawn"]) > 0)


def played(cards: pd.DataFrame) -> pd.Series:
    """Per cards row: did the seat play this card (items: place it on a seam, not waste it)?"""
    placed = (cards["into_led"] + cards["into_other"]) > 0
    return placed.where(_is_item(cards), cards["played"] > 0)


HELD_PLAYED = ["game", "seat", "card", "dealt", "drawn", "played", "into_led", "into_other"]


def with_outcomes(cards: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """The cards rows (the columns `held` and `played` read) joined with each seat's win
    share and score, plus `held` and `played_it` columns."""
    out = cards[HELD_PLAYED].merge(
        players[["game", "seat", "win_share", "score"]], on=["game", "seat"]
    )
    out["held"] = held(out)
    out["played_it"] = played(out)
    return out


IMPACT_COLUMNS = ("win_share", "score", "game", "held", "played_it")


def _impact_arrays(data: pd.DataFrame) -> tuple[np.ndarray, ...]:
    """`_impact_row`'s columns of `with_outcomes` rows, as arrays (IMPACT_COLUMNS' order)."""
    return tuple(data[name].to_numpy() for name in IMPACT_COLUMNS)


def _impact_columns(win, score, game, h, played) -> dict[str, np.ndarray]:
    """The impact numbers of card kinds that share their seat-game rows, a column per kind:
    each row's win share, score and game, and per row and kind ([rows, kinds] booleans)
    whether the seat-game held the kind and whether it played it. Held against never held
    is `clustered_diffs`' difference (NaN when either side is empty); the means when played
    are plain means (NaN when none)."""
    score = np.asarray(score, dtype=float)
    hf, pf = np.asarray(h, dtype=float), np.asarray(played, dtype=float)
    improvement, lo, hi, n_held, n_never, win_held, win_never = clustered_diffs(
        win, h, Clusters(game)
    )
    n_played = pf.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):  # none played or held: NaN
        return {
            "n_held": n_held,
            "n_never": n_never,
            "win_held": win_held,
            "win_never": win_never,
            "improvement": improvement,
            "lo": lo,
            "hi": hi,
            "score_held": score @ hf / n_held,
            "score_never": score @ (1 - hf) / n_never,
            "n_played": n_played.astype(np.int64),
            "win_played": np.asarray(win, dtype=float) @ pf / n_played,
            "score_played": score @ pf / n_played,
        }


def _impact_row(win, score, game, h, played) -> dict:
    """`_impact_columns` of one card kind's rows (one row per seat-game), as one row."""
    columns = _impact_columns(win, score, game, np.c_[h], np.c_[played])
    return {name: values[0].item() for name, values in columns.items()}


def card_impact(cards: pd.DataFrame, players: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """One row per card kind (and per `by` value, e.g. 'policy'), sorted by improvement.

    improvement = win rate when held - win rate when never held, with a 95%
    interval clustered by game and both sample sizes (n_held, n_never).
    """
    data = with_outcomes(cards, players)
    keys = ["card"] if by is None else [by, "card"]
    if by is not None and by not in data:
        data = data.merge(players[["game", "seat", by]], on=["game", "seat"])
    rows = [
        {
            **dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)),
            **_impact_row(*_impact_arrays(g)),
        }
        for key, g in data.groupby(keys, sort=True)
    ]
    return _impact_table(rows, keys)


def _impact_table(rows: list[dict], keys: list[str]) -> pd.DataFrame:
    """`card_impact`'s table of its rows (each with `keys` and `_impact_row`'s numbers)."""
    out = pd.DataFrame(rows)
    out.insert(len(keys), "kind", out["card"].map(card_kind))
    order = keys[:-1] + ["improvement"]
    return out.sort_values(order, ascending=[True] * (len(order) - 1) + [False], ignore_index=True)


# ---------------------------------------------------------------- adjusted for exposure


ADJUSTED_COLUMNS = ["card", "kind", "adjusted", "adj_lo", "adj_hi", "adj_p", "adj_q",
                    "adj_flag", "improvement", "lo", "hi", "raw_p", "raw_q", "raw_flag",
                    "n_held", "n_never"]  # fmt: skip


def _circumstances(cards: pd.DataFrame, players: pd.DataFrame, data: pd.DataFrame):
    """The design matrix of a seat-game's circumstances, row for row with `data`: a constant,
    its seat and policy (dummies, the first of each left out, named as `pd.get_dummies`
    names them), turns taken and cards seen (dealt + drawn)."""
    width = int(players["seat"].max()) + 1
    key = players["game"].to_numpy(np.int64) * width + players["seat"].to_numpy(np.int64)
    row = _player_rows(players, data["game"].to_numpy(), data["seat"].to_numpy())
    seen_key = cards["game"].to_numpy(np.int64) * width + cards["seat"].to_numpy(np.int64)
    seen = pd.Series((cards["dealt"] + cards["drawn"]).to_numpy(float)).groupby(seen_key).sum()
    columns: dict[str, np.ndarray] = {"const": np.ones(len(data))}
    seat = data["seat"].to_numpy()
    for value in sorted(np.unique(seat), key=str)[1:]:  # get_dummies' order: as strings
        columns[f"seat_{value}"] = (seat == value).astype(float)
    policy = pd.Categorical(players["policy"].astype(str).to_numpy())
    codes = policy.codes[row]
    for code, name in list(enumerate(policy.categories))[1:]:
        columns[f"policy_{name}"] = (codes == code).astype(float)
    columns["turns_taken"] = players["turns_taken"].to_numpy(float)[row]
    columns["cards_seen"] = seen.reindex(key[row]).to_numpy(float)
    return pd.DataFrame(columns, index=data.index)


def full_layout(cards: pd.DataFrame) -> list[str] | None:
    """The card kinds, when `cards` has its full layout: one row per seat-game and kind, the
    kinds in the table's own order within each seat-game (a run's table, with its all-zero
    rows put back: `sim.runs.tables.with_zero_card_rows`). Each column is then a [seat-game,
    kind] matrix by a reshape, with no join and no groupby. None otherwise (a table cut by
    hand): each kind is then taken on its own."""
    card = cards["card"]
    if not isinstance(card.dtype, pd.CategoricalDtype) or not len(cards):
        return None
    kinds = len(card.cat.categories)
    if (
        len(cards) % kinds
        or not (card.cat.codes.to_numpy().reshape(-1, kinds) == np.arange(kinds)).all()
    ):
        return None
    for key in ("game", "seat"):
        values = cards[key].to_numpy().reshape(-1, kinds)
        if not (values == values[:, :1]).all():
            return None
    return [str(kind) for kind in card.cat.categories]


def _player_rows(players: pd.DataFrame, game: np.ndarray, seat: np.ndarray) -> np.ndarray | None:
    """The players row of each (game, seat); None if one has none."""
    width = int(max(players["seat"].max(), seat.max())) + 1
    key = players["game"].to_numpy(np.int64) * width + players["seat"].to_numpy(np.int64)
    order = np.argsort(key, kind="stable")
    want = game.astype(np.int64) * width + seat.astype(np.int64)
    at = np.minimum(np.searchsorted(key[order], want), len(key) - 1)
    return order[at] if len(key) and (key[order][at] == want).all() else None


def _by_kind(cards: pd.DataFrame, players: pd.DataFrame):
    """A cards table in its full layout (`full_layout`) whose seat-games all have a players
    row: (kinds, each seat-game's win share, score and game, [seat-game, kind] held and
    played, the seat-games' game and seat as a frame); None otherwise."""
    kinds = full_layout(cards)
    if kinds is None:
        return None
    width = len(kinds)
    seat_games = cards[["game", "seat"]].iloc[::width].reset_index(drop=True)
    rows = _player_rows(players, seat_games["game"].to_numpy(), seat_games["seat"].to_numpy())
    if rows is None:
        return None

    held_ = held(cards).to_numpy().reshape(-1, width)
    played_ = played(cards).to_numpy().reshape(-1, width)
    win = players["win_share"].to_numpy()[rows]
    score = players["score"].to_numpy()[rows]
    return kinds, win, score, seat_games["game"].to_numpy(), held_, played_, seat_games


def card_impact_adjusted(cards: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """Card impact with the seat's circumstances held fixed, and false-discovery control.

    The raw improvement compares seats that held a card with seats that did not,
    but holding a card comes with sitting early, with a policy, with taking more
    turns and seeing more cards, each of which wins games by itself. So per card
    kind, a linear model of the seat's win share on `held` plus its seat, its
    policy, turns taken and cards seen (dealt + drawn): the coefficient of `held`
    is the adjusted impact, with a 95% interval clustered by game. Across the
    card kinds, Benjamini-Hochberg q-values flag impacts (false discovery rate
    5%), for the raw and the adjusted column alike.

    Columns: card, kind, adjusted, adj_lo, adj_hi, adj_p, adj_q, adj_flag,
    improvement, lo, hi, raw_p, raw_q, raw_flag, n_held, n_never; sorted by the
    adjusted impact. `attrs['family']` says how the flags were controlled.
    """
    return card_impacts(cards, players)[1]


def card_impacts(cards: pd.DataFrame, players: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`card_impact(cards, players)` and `card_impact_adjusted(cards, players)` in one pass
    (the run page shows both): on a run's table (`full_layout`) every kind at once, from one
    matrix and one partialled fit (`partialled_coefs`: each kind's `held` coefficient is what
    its own fit gives); on a table cut by hand, kind by kind, each with its own fit."""
    from sim.analysis.inference import (
        ClusteredOLS,
        adjust,
        family_note,
        normal_sf2,
        partialled_coefs,
    )

    matrix = _by_kind(cards, players)
    if matrix is not None:
        kinds, win, score, game, held_, played_, seat_games = matrix
        raw = _impact_columns(win, score, game, held_, played_)
        x = _circumstances(cards, players, seat_games)  # the same for every kind
        x = x.loc[:, x.std(ddof=0).gt(0) | (x.columns == "const")].to_numpy(float)
        fits = partialled_coefs(win.astype(float), x, held_.astype(float), game)
    else:
        data = with_outcomes(cards, players)
        groups = data.groupby("card", sort=True, observed=True).indices
        kinds = list(groups)
        win, score, game, held_, played_ = _impact_arrays(data)  # sliced per kind: no frames
        each = [
            _impact_columns(win[i], score[i], game[i], np.c_[held_[i]], np.c_[played_[i]])
            for i in groups.values()
        ]
        raw = {name: np.concatenate([e[name] for e in each]) for name in each[0]} if each else {}
        base = _circumstances(cards, players, data)
        fits = [_own_fit(win, game, held_, base, idx, ClusteredOLS) for idx in groups.values()]
    rows = []
    for k, card in enumerate(kinds):
        row = {"card": card, "kind": card_kind(str(card))}
        fit = fits[k] if 0 < raw["n_held"][k] < raw["n_held"][k] + raw["n_never"][k] else None
        # (held by every seat-game, or by none: nothing to compare)
        if fit is not None:
            est, lo, hi, p = fit
            row.update(adjusted=est, adj_lo=lo, adj_hi=hi, adj_p=p)
        else:
            row.update(adjusted=np.nan, adj_lo=np.nan, adj_hi=np.nan, adj_p=np.nan)
        improvement, lo, hi = raw["improvement"][k], raw["lo"][k], raw["hi"][k]
        se = (hi - lo) / (2 * Z95)
        raw_p = normal_sf2(improvement / se) if se > 0 else np.nan
        row.update(improvement=improvement, lo=lo, hi=hi, raw_p=raw_p)
        row.update(n_held=raw["n_held"][k], n_never=raw["n_never"][k])
        rows.append(row)
    out = pd.DataFrame(rows)
    out["adj_q"], out["adj_flag"] = adjust(out["adj_p"].to_numpy(), "fdr_bh")
    out["raw_q"], out["raw_flag"] = adjust(out["raw_p"].to_numpy(), "fdr_bh")
    out = out[ADJUSTED_COLUMNS].sort_values("adjusted", ascending=False, ignore_index=True)
    out.attrs["family"] = family_note("fdr_bh", int(out["adj_p"].notna().sum()))
    return _impact_table({"card": list(kinds), **raw}, ["card"]), out


def _own_fit(win, game, held_, base: pd.DataFrame, idx: np.ndarray, ols):
    """One kind's adjusted impact from its own fit (its rows `idx`); None where its columns
    are collinear (a few games): not estimable."""
    held_ = held_[idx].astype(float)
    if not 0 < held_.sum() < len(held_):
        return None
    x = base.iloc[idx].assign(held=held_)
    x = x.loc[:, x.std(ddof=0).gt(0) | (x.columns == "const")]
    try:
        return ols.of(win[idx].astype(float), x, game[idx], qr=True).coef("held")
    except np.linalg.LinAlgError:
        return None
