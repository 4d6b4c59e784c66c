"""Balance tables from a run's `games` and `players` frames: DataFrame in, DataFrame out.

Win shares count a k-way tie as 1/k of a win (R8.6). Rows of one game are not
independent (only one seat can win), so every interval over player rows is
clustered by game; see `sim.analysis.stats` for which interval is used where.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.stats import (
    Estimate,
    bootstrap_ci,
    clustered_mean_ci,
    mean_ci,
    wilson,
    win_share_ci,
)

_EST = ["value", "lo", "hi", "n"]


def n_seats(players: pd.DataFrame) -> int:
    """Number of seats (players per game) in a players frame."""
    return int(players["seat"].nunique())


def _share_row(values, clusters=None) -> dict:
    """win_share, lo, hi, n of win-share values (clustered by game when given)."""
    e = win_share_ci(values) if clusters is None else clustered_mean_ci(values, clusters)
    return {"win_share": e.value, "lo": max(0.0, e.lo), "hi": min(1.0, e.hi), "n": e.n}


def seat_win_shares(players: pd.DataFrame) -> pd.DataFrame:
    """Win share per seat with its 95% interval, n games, the fair 1/n and the gap to it."""
    fair = 1 / n_seats(players)
    rows = [
        {"seat": seat, **_share_row(g["win_share"].to_numpy())}
        for seat, g in players.groupby("seat", sort=True)
    ]
    out = pd.DataFrame(rows)
    out["fair"] = fair
    out["vs_fair"] = out["win_share"] - fair
    return out


def policy_win_shares(players: pd.DataFrame) -> pd.DataFrame:
    """Win share per seat of each policy (clustered by game); n counts seat-games."""
    fair = 1 / n_seats(players)
    rows = []
    for policy, g in players.groupby("policy", sort=True):
        row = _share_row(g["win_share"].to_numpy(), g["game"].to_numpy())
        rows.append({"policy": policy, **row, "games": int(g["game"].nunique())})
    out = pd.DataFrame(rows)
    out["fair"] = fair
    out["vs_fair"] = out["win_share"] - fair
    return out


def matchups(players: pd.DataFrame) -> pd.DataFrame:
    """Policy x opponent policy: row's win share in games where the opponent also sits.

    `beats` is how often a seat of the row policy finishes above a seat of the
    opponent policy in the same game (a tie counts 1/2), which exposes
    rock-paper-scissors that one overall ranking hides. On the diagonal the
    opponent is another seat of the same policy (win share only).
    """
    counts = players.groupby(["game", "policy"]).size().unstack(fill_value=0)
    pairs = _pairs(players)
    rows = []
    for a in counts.columns:
        for b in counts.columns:
            need = 2 if a == b else 1
            games = counts.index[(counts[a] >= 1) & (counts[b] >= need)]
            rows_a = players[(players["policy"] == a) & players["game"].isin(games)]
            share = _share_row(rows_a["win_share"].to_numpy(), rows_a["game"].to_numpy())
            row = {"policy": a, "opponent": b, "games": len(games), **share}
            h2h = pairs[(pairs["policy"] == a) & (pairs["opponent"] == b)]
            if a != b and len(h2h):
                e = clustered_mean_ci(h2h["beats"].to_numpy(), h2h["game"].to_numpy())
                row.update(beats=e.value, beats_lo=e.lo, beats_hi=e.hi, pairs=e.n)
            rows.append(row)
    return pd.DataFrame(rows)


def _pairs(players: pd.DataFrame) -> pd.DataFrame:
    """Every ordered pair of different seats in a game, with 1 / 0.5 / 0 for finishing above."""
    p = players[["game", "seat", "policy", "score"]]
    m = p.merge(p, on="game", suffixes=("", "_o"))
    m = m[m["seat"] != m["seat_o"]]
    beats = np.sign(m["score"].to_numpy() - m["score_o"].to_numpy()) / 2 + 0.5
    return pd.DataFrame(
        {
            "game": m["game"].to_numpy(),
            "policy": m["policy"].to_numpy(),
            "opponent": m["policy_o"].to_numpy(),
            "beats": beats,
        }
    )


def matchup_matrix(table: pd.DataFrame, value: str = "win_share") -> pd.DataFrame:
    """The long `matchups` table as a policy x opponent grid of one column."""
    return table.pivot(index="policy", columns="opponent", values=value)


def seat_share_matrix(players: pd.DataFrame) -> np.ndarray:
    """Games x seats array of win shares (seat order), for bootstraps over games."""
    return players.pivot(index="game", columns="seat", values="win_share").to_numpy()


def _balance(shares: np.ndarray) -> float:
    """Ludii's balance: 1 minus the largest gap between two seats' win rates."""
    means = shares.mean(axis=0)
    return float(1 - (means.max() - means.min()))


def first_player_advantage(players: pd.DataFrame) -> Estimate:
    """Seat 0's win share minus the fair 1/n, with its interval and n games."""
    seat0 = players.loc[players["seat"] == 0, "win_share"].to_numpy()
    e = win_share_ci(seat0)
    fair = 1 / n_seats(players)
    return Estimate(e.value - fair, e.lo - fair, e.hi - fair, e.n)


def balance_metrics(
    games: pd.DataFrame, players: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Ludii-style metrics: balance, first-player advantage, shared wins (value, lo, hi, n)."""
    shares = seat_share_matrix(players)
    rows = {
        "balance": bootstrap_ci(shares, _balance, n_boot=n_boot, seed=seed),
        "first_player_advantage": first_player_advantage(players),
        "shared_wins": wilson(int(games["tie"].sum()), len(games)),
    }
    meaning = {
        "balance": "1 − largest gap between two seats' win shares (1 = perfectly even)",
        "first_player_advantage": "seat 0's win share minus the fair 1/n",
        "shared_wins": "share of games won jointly by two or more seats",
    }
    out = pd.DataFrame([(k, *v) for k, v in rows.items()], columns=["metric", *_EST])
    out["meaning"] = out["metric"].map(meaning)
    return out


def seats_confounded(players: pd.DataFrame) -> bool:
    """True when each seat always plays one policy and policies differ (no seat rotation)."""
    fixed = players.groupby("seat")["policy"].nunique().eq(1).all()
    return bool(fixed and players["policy"].nunique() > 1)


def verdict(players: pd.DataFrame) -> str:
    """A plain sentence on the first-player advantage: 'real' only if the interval misses fair."""
    fair = 1 / n_seats(players)
    e = win_share_ci(players.loc[players["seat"] == 0, "win_share"].to_numpy())
    half = e.half  # the widest side: "value ± half" always covers the interval
    if e.value - half > fair:
        call = "a real first-player advantage"
    elif e.value + half < fair:
        call = "a real first-player disadvantage"
    else:
        call = "within noise"
    text = (
        f"seat 0 wins {e.value:.1%} ± {half:.1%} against a fair {fair:.0%}: {call}"
        f" ({e.n:,} games, 95% interval)"
    )
    if seats_confounded(players):
        text += "; seats were not rotated, so seat and policy effects are mixed"
    return text


# ---------------------------------------------------------------- scores


def score_summary(players: pd.DataFrame, by: str = "seat") -> pd.DataFrame:
    """Score distribution per seat or policy: mean with interval, spread, quantiles, n."""
    rows = []
    for key, g in players.groupby(by, sort=True):
        s = g["score"].to_numpy()
        e = clustered_mean_ci(s, g["game"].to_numpy())
        q10, q50, q90 = np.quantile(s, [0.1, 0.5, 0.9])
        rows.append(
            {
                by: key,
                "mean": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "sd": s.std(ddof=1),
                "min": s.min(),
                "p10": q10,
                "median": q50,
                "p90": q90,
                "max": s.max(),
                "n": e.n,
            }
        )
    return pd.DataFrame(rows)


POINT_PARTS = ("box_points", "cat_bonus", "doubling_points", "negative_points")


def points_breakdown(players: pd.DataFrame, by: str = "policy") -> pd.DataFrame:
    """Mean points per seat-game by source; box_points already includes doubling and negatives."""
    cols = ["score", *POINT_PARTS, "boxes_led", "closed_boxes_led"]
    out = players.groupby(by, sort=True)[cols].mean().reset_index()
    out["n"] = players.groupby(by, sort=True).size().to_numpy()
    return out


def distribution(values: pd.Series, name: str = "value") -> pd.DataFrame:
    """Counts and shares of each distinct value, sorted by value (for discrete histograms)."""
    counts = values.value_counts().sort_index()
    return pd.DataFrame(
        {
            name: counts.index.to_numpy(),
            "count": counts.to_numpy(),
            "share": counts.to_numpy() / counts.sum(),
        }
    )


# ---------------------------------------------------------------- game flow


def _mean_row(metric: str, values) -> dict:
    """metric, mean with interval, median, min, max and n of per-game values."""
    x = np.asarray(values, dtype=float)
    e = mean_ci(x)
    return {
        "metric": metric,
        "mean": e.value,
        "lo": e.lo,
        "hi": e.hi,
        "median": np.median(x),
        "min": x.min(),
        "max": x.max(),
        "n": e.n,
    }


def flow_summary(games: pd.DataFrame) -> pd.DataFrame:
    """Per-game means with intervals: turns, items wasted, boxes, closed share, margin, cats."""
    closed_share = games["closed_boxes"] / games["boxes"].where(games["boxes"] > 0)
    rows = [
        _mean_row("turns", games["turns"]),
        _mean_row("items_wasted", games["items_wasted"]),
        _mean_row("boxes", games["boxes"]),
        _mean_row("closed_boxes", games["closed_boxes"]),
        _mean_row("closed_share", closed_share.dropna()),
        _mean_row("cards_on_table", games["cards_on_table"]),
        _mean_row("cats_on_table", games["cats_on_table"]),
        _mean_row("discards", games["discards"]),
        _mean_row("margin", games["margin"]),
    ]
    return pd.DataFrame(rows)


def end_triggers(games: pd.DataFrame) -> pd.DataFrame:
    """Which end trigger fired (R7.1): games, share and Wilson interval for each."""
    n = len(games)
    counts = games["end_trigger"].astype(str).value_counts()
    rows = []
    for trigger, k in counts.items():
        e = wilson(int(k), n)
        rows.append(
            {
                "end_trigger": trigger,
                "games": int(k),
                "share": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "n": n,
            }
        )
    return pd.DataFrame(rows)


def headline(games: pd.DataFrame, players: pd.DataFrame, metrics: pd.DataFrame) -> pd.DataFrame:
    """The config's target metrics (sim.config.METRICS) as metric, value, lo, hi, n."""
    rows = metrics.set_index("metric")[_EST].to_dict("index")
    for name, values in (("turns", games["turns"]), ("margin", games["margin"])):
        rows[name] = mean_ci(values)._asdict()
    rows["mean_score"] = clustered_mean_ci(players["score"], players["game"])._asdict()
    return pd.DataFrame([{"metric": k, **v} for k, v in rows.items()])


def check_targets(head: pd.DataFrame, targets: dict) -> pd.DataFrame:
    """Each config target against the measured value: 'met', 'missed' or 'unclear' (noise)."""
    rows = []
    measured = head.set_index("metric")
    for metric, target in targets.items():
        v, lo, hi = measured.loc[metric, ["value", "lo", "hi"]]
        t_lo, t_hi = target if isinstance(target, tuple | list) else (target, target)
        if t_lo <= lo and hi <= t_hi or (t_lo == t_hi and lo <= t_lo <= hi):
            status = "met"
        elif hi < t_lo or lo > t_hi:
            status = "missed"
        else:
            status = "unclear"
        rows.append(
            {"metric": metric, "target": target, "value": v, "lo": lo, "hi": hi, "status": status}
        )
    return pd.DataFrame(rows)
