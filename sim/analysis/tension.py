"""Tension over the game, from the score trace: lead changes, when it was decided, comebacks.

The game loop records each seat's table score (R8, as if the game ended there)
after every round; round k is the game's turns (k-1)·n+1 … k·n for n seats, and a
game's last (possibly partial) round holds its final scores. `trace_summary`
turns a chunk of traces into one row of numbers per game; the runner stores them
in the `games` table, so every sweep and comparison sees them, and the tests
check them on hand-made traces. The definitions, one line each (`DEFINITIONS`),
follow the lead-change and decisiveness measures of TAG's and Ludii's game
evaluators:

* **lead changes**: how often a different seat became the sole leader (a tie for
  the lead changes nothing);
* **decided at**: the round from which only eventual winners lead (alone or
  tied among themselves) until the end, as a share of the game's rounds
  (1 = settled only in the last round);
* **comeback**: an eventual winner was last, or at least `COMEBACK_POINTS`
  behind the leader, at half time (after round ⌈R/2⌉ of R);
* **open before the last round**: after the second-to-last round the leader was
  at most `OPEN_POINTS` ahead of the runner-up (level counts as open).

Only numpy and pandas: arrays in, arrays out; DataFrames in, DataFrames out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.stats import mean_ci, wilson

COMEBACK_POINTS = 3  # "well behind" at half time
OPEN_POINTS = 2  # a lead one good last round can still overturn

# Per-game columns `trace_summary` adds to the games table, in order.
TENSION_COLUMNS = ("lead_changes", "decided_round", "decided_at", "comeback", "open_before_last")

DEFINITIONS = {
    "lead_changes": "times a different seat became the sole leader (ties for the lead"
    " change nothing); scores are the table's after each round",
    "decided_at": "share of the game's rounds played when the lead passed for good to"
    " the eventual winner(s) (1 = only in the last round)",
    "comeback": f"an eventual winner was last, or {COMEBACK_POINTS}+ points behind the"
    " leader, at half time",
    "open_before_last": f"before the last round the leader was at most {OPEN_POINTS} points"
    " ahead of the runner-up",
}


# ---------------------------------------------------------------- arrays


def _runner_up_gap(scores: np.ndarray) -> np.ndarray:
    """Top score minus the second highest (0 when the top is shared), over the last axis."""
    if scores.shape[-1] < 2:
        return np.zeros(scores.shape[:-1], scores.dtype)
    two = np.sort(scores, axis=-1)[..., -2:]
    return two[..., 1] - two[..., 0]


def _at(trace: np.ndarray, index: np.ndarray) -> np.ndarray:
    """trace[g, index[g], :] for every game g (games x seats)."""
    return np.take_along_axis(trace, index[:, None, None], axis=1)[:, 0, :]


def leader_margins(trace: np.ndarray, rounds: np.ndarray) -> np.ndarray:
    """[game, round] the leader's lead over the runner-up (NaN after the game's last round)."""
    gap = _runner_up_gap(np.asarray(trace, np.int64)).astype(float)
    gap[np.arange(gap.shape[1])[None, :] >= np.asarray(rounds)[:, None]] = np.nan
    return gap


def equal_turn_scores(trace: np.ndarray, turns_taken: np.ndarray) -> np.ndarray:
    """[game, seat] table scores after round m, m the fewest turns any seat took: the last
    round by whose end every seat had taken the same number of turns (seats move in order,
    R2.5, so the seats with more turns took them in the last, partial round)."""
    fewest = np.asarray(turns_taken, np.int64).min(axis=1)
    if len(fewest) == 0:
        return np.zeros((0, np.asarray(trace).shape[2]), np.int64)
    scores = _at(np.asarray(trace, np.int64), np.maximum(fewest - 1, 0))
    return np.where(fewest[:, None] > 0, scores, 0)


def trace_summary(trace: np.ndarray, rounds: np.ndarray) -> dict[str, np.ndarray]:
    """The TENSION_COLUMNS of each game from its trace ([game, round, seat] table scores after
    each round, valid up to rounds[game]; the last valid round holds the final scores)."""
    trace = np.asarray(trace, np.int64)
    rounds = np.asarray(rounds, np.int64)
    count, most, _ = trace.shape
    if count == 0:
        return {
            "lead_changes": np.zeros(0, np.int16),
            "decided_round": np.zeros(0, np.int16),
            "decided_at": np.zeros(0),
            "comeback": np.zeros(0, bool),
            "open_before_last": np.zeros(0, bool),
        }
    r = np.arange(most)[None, :]
    valid = r < rounds[:, None]
    top = trace.max(axis=2)
    lead = trace == top[..., None]  # [game, round, seat]: among the leaders
    sole = np.where(valid & (lead.sum(axis=2) == 1), lead.argmax(axis=2), -1)
    # the sole leader so far: a tie (or a round past the end) keeps the previous one
    seen = np.maximum.accumulate(np.where(sole >= 0, r, -1), axis=1)
    leader = np.where(seen >= 0, np.take_along_axis(sole, np.maximum(seen, 0), axis=1), -1)
    changes = (leader[:, 1:] != leader[:, :-1]) & (leader[:, :-1] >= 0)
    last = np.maximum(rounds - 1, 0)
    final = _at(trace, last)
    won = final == final.max(axis=1, keepdims=True)  # R8.6: tied winners all won
    # decided: from this round on, every leader is an eventual winner
    unsettled = valid & (lead & ~won[:, None, :]).any(axis=2)
    decided = np.where(unsettled, r, -1).max(axis=1) + 2  # 1-based round after the last doubt
    half = _at(trace, np.maximum((rounds + 1) // 2 - 1, 0))
    h_top, h_low = half.max(axis=1, keepdims=True), half.min(axis=1, keepdims=True)
    behind = ((half == h_low) & (h_low < h_top)) | (h_top - half >= COMEBACK_POINTS)
    before_last = _at(trace, np.maximum(rounds - 2, 0))
    open_ = (rounds < 2) | (_runner_up_gap(before_last) <= OPEN_POINTS)
    return {
        "lead_changes": changes.sum(axis=1).astype(np.int16),
        "decided_round": decided.astype(np.int16),
        "decided_at": decided / np.maximum(rounds, 1),
        "comeback": (behind & won).any(axis=1),
        "open_before_last": open_,
    }


# ---------------------------------------------------------------- the turns table


def trace_arrays(turns: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The turns table (game, seat, round, score) back as arrays: game ids (sorted),
    trace [game, round, seat] and rounds per game."""
    game_ids, g = np.unique(turns["game"].to_numpy(), return_inverse=True)
    seat = turns["seat"].to_numpy().astype(np.int64)
    rnd = turns["round"].to_numpy().astype(np.int64) - 1
    players = int(seat.max()) + 1 if len(seat) else 0
    most = int(rnd.max()) + 1 if len(rnd) else 0
    trace = np.zeros((len(game_ids), most, players), np.int64)
    trace[g, rnd, seat] = turns["score"].to_numpy()
    rounds = np.zeros(len(game_ids), np.int64)
    np.maximum.at(rounds, g, rnd + 1)
    return game_ids, trace, rounds


def tension_summary(games: pd.DataFrame) -> pd.DataFrame:
    """The tension metrics of a run with intervals: metric, mean, lo, hi, median, n, meaning.

    Lead changes and decided-at are per-game means (t interval); comeback and open before
    the last round are shares of games (Wilson).
    """
    rows = []
    for name in ("lead_changes", "decided_at"):
        x = games[name].to_numpy(float)
        e = mean_ci(x)
        rows.append(
            {
                "metric": name,
                "mean": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "median": float(np.median(x)),
                "n": e.n,
            }
        )
    for name in ("comeback", "open_before_last"):
        x = games[name].to_numpy(bool)
        e = wilson(int(x.sum()), len(x))
        rows.append(
            {
                "metric": name,
                "mean": e.value,
                "lo": e.lo,
                "hi": e.hi,
                "median": float("nan"),
                "n": e.n,
            }
        )
    out = pd.DataFrame(rows)
    out["meaning"] = out["metric"].map(DEFINITIONS)
    return out


def margin_bands(turns: pd.DataFrame, quantiles=(0.1, 0.25, 0.5, 0.75, 0.9)) -> pd.DataFrame:
    """Per round: quantiles of the leader's lead over the runner-up among games still running
    (columns round, games, q10 … q90)."""
    _, trace, rounds = trace_arrays(turns)
    gap = leader_margins(trace, rounds)
    rows = []
    for k in range(gap.shape[1]):
        x = gap[:, k][~np.isnan(gap[:, k])]
        if len(x) == 0:
            continue
        row = {"round": k + 1, "games": len(x)}
        for q, v in zip(quantiles, np.quantile(x, quantiles), strict=True):
            row[f"q{round(q * 100)}"] = v
        rows.append(row)
    return pd.DataFrame(rows)


def game_trace(turns: pd.DataFrame, game: int) -> pd.DataFrame:
    """One game's trace as a round x seat frame of table scores."""
    one = turns[turns["game"] == game]
    return one.pivot(index="round", columns="seat", values="score").sort_index()
