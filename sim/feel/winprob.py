"""Each seat's chance of winning after every round, as a spectator judges it from the table.

What a spectator sees after round r: every seat's table score (the score trace of
`turns.parquet`), the round, the seats' order, the player count and who sits where (each
seat's policy); never a hand. The
chance is a gradient-boosted regression of the seat's eventual win share on those features
(`sklearn.ensemble.HistGradientBoostingRegressor`), the seats' chances then scaled to sum
to one. It is **cross-fitted**: the games are split in two halves (a seeded shuffle), each half's
chances come from the model fitted on the other, so no game judges itself. Before the first
round every seat has its chance from the seat order alone; after the last, the game's
outcome (its win shares).

The labels are the games' outcomes rather than re-dealt continuations: a model fitted to
outcomes is calibrated for the same question (the chance given what the table shows), and
the check on held-out games (`calibration`) says how well.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

FOLDS = 2
BINS = 10  # of the reliability check
FIT_GAMES = 1000  # games a half's model learns from at most (its chances judge all the others)


def features(turns: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """One row a (game, round, seat) from round 0 (no card played) to each game's last:
    the seat's score, the best other score, the gap, its rank among the scores, the round as
    a share of the run's median game, the seat, the players."""
    trace = turns[["game", "seat", "round", "score"]]
    players = games.set_index("game")["players"]
    zero = trace[trace["round"] == 1].assign(round=0, score=0)
    trace = pd.concat([zero, trace], ignore_index=True)
    wide = trace.pivot_table(index=["game", "round"], columns="seat", values="score")
    scores = wide.to_numpy(float)
    seats = wide.shape[1]
    best_other = np.full_like(scores, -np.inf)
    for s in range(seats):
        others = np.delete(scores, s, axis=1)
        best_other[:, s] = np.nanmax(others, axis=1) if others.shape[1] else 0.0
    rank = (scores[:, :, None] < scores[:, None, :]).sum(axis=2)
    median_rounds = float(games["rounds"].median()) or 1.0
    index = wide.index.to_frame(index=False)
    rows = []
    for s in range(seats):
        rows.append(
            pd.DataFrame(
                {
                    "game": index["game"].to_numpy(),
                    "round": index["round"].to_numpy(),
                    "seat": s,
                    "score": scores[:, s],
                    "best_other": best_other[:, s],
                    "gap": scores[:, s] - best_other[:, s],
                    "rank": rank[:, s],
                    "progress": index["round"].to_numpy() / median_rounds,
                }
            )
        )
    out = pd.concat(rows, ignore_index=True)
    out["players"] = out["game"].map(players).to_numpy()
    return out.dropna(subset=["score"]).sort_values(["game", "round", "seat"], ignore_index=True)


INPUTS = ["score", "best_other", "gap", "rank", "progress", "seat", "players", "player"]


@dataclass(frozen=True)
class Chances:
    """Every (game, round, seat)'s chance `p` (rounds 0 .. last, then the outcome as round
    last + 1), and the held-out check."""

    table: pd.DataFrame  # game, round, seat, p, won (the seat's eventual win share)
    calibration: pd.DataFrame  # bin, predicted, observed, n
    ece: float  # expected calibration error over the bins (weighted by states)
    brier: float  # the model's Brier score over held-out states
    brier_lead: float  # the baseline's: the leaders share the chance, ties split


def fit_chances(turns: pd.DataFrame, games: pd.DataFrame, players: pd.DataFrame) -> Chances:
    """Cross-fitted chances of every seat after every round of every game given."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    x = features(turns, games)
    by_seat = players.set_index(["game", "seat"])
    at = pd.MultiIndex.from_frame(x[["game", "seat"]])
    x["won"] = by_seat["win_share"].reindex(at).to_numpy()
    # who sits there, as the table knows it: a category of its own for each policy
    x["player"] = pd.factorize(by_seat["policy"].reindex(at).astype(str), sort=True)[0]
    fold = halves(x["game"])
    raw = np.zeros(len(x))
    learn = _learning_games(x["game"].to_numpy())
    for f in range(FOLDS):
        train, test = (fold != f) & learn, fold == f
        if not train.any() or not test.any():
            continue
        model = HistGradientBoostingRegressor(
            max_iter=50, learning_rate=0.2, random_state=0, categorical_features=["player"]
        )
        with one_thread():
            model.fit(x.loc[train, INPUTS], x.loc[train, "won"])
            raw[test] = model.predict(x.loc[test, INPUTS])
    x["p"] = np.clip(raw, 1e-4, None)
    x["p"] /= x.groupby(["game", "round"])["p"].transform("sum")
    lead = (x["rank"] == 0).astype(float)
    lead /= lead.groupby([x["game"], x["round"]]).transform("sum")
    cal, ece = reliability(x["p"].to_numpy(), x["won"].to_numpy())
    brier = float(np.mean((x["p"] - x["won"]) ** 2))
    brier_lead = float(np.mean((lead - x["won"]) ** 2))
    last = x.groupby("game")["round"].transform("max")
    end = x[x["round"] == last].assign(round=lambda f: f["round"] + 1, p=lambda f: f["won"])
    table = pd.concat([x, end], ignore_index=True)[["game", "round", "seat", "p", "won"]]
    table = table.sort_values(["game", "round", "seat"], ignore_index=True)
    return Chances(table, cal, ece, brier, brier_lead)


def halves(game: pd.Series) -> np.ndarray:
    """Each row's half (0 or 1), its game's by a seeded shuffle of the games given: not by the
    game index, whose parity (and every other regular pattern) follows the seat rotation,
    so a half would hold one rotation and its model would learn the other's line-up."""
    ids = np.unique(game.to_numpy())
    half = np.random.default_rng(0).permutation(len(ids)) % FOLDS
    return half[np.searchsorted(ids, game.to_numpy())]


def one_thread():
    """One OpenMP thread for the boosted trees: the report runs beside the workers, and
    OpenMP's spinning threads about double the CPU a fit takes on two cores."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def _learning_games(game: np.ndarray) -> np.ndarray:
    """The rows of the games the models learn from: evenly spaced, FIT_GAMES a half."""
    games = np.unique(game)
    step = max(1, len(games) // (FOLDS * FIT_GAMES))
    return np.isin(game, games[::step])


def reliability(p: np.ndarray, won: np.ndarray, bins: int = BINS) -> tuple[pd.DataFrame, float]:
    """States binned by predicted chance: mean predicted, mean outcome, count; and the
    expected calibration error (their gaps weighted by the states in each bin)."""
    edges = np.minimum((p * bins).astype(int), bins - 1)
    frame = pd.DataFrame({"bin": edges, "p": p, "won": won})
    cal = frame.groupby("bin").agg(
        predicted=("p", "mean"), observed=("won", "mean"), n=("p", "size")
    )
    cal = cal.reset_index()
    ece = float(np.sum(cal["n"] * (cal["predicted"] - cal["observed"]).abs()) / cal["n"].sum())
    return cal, ece
