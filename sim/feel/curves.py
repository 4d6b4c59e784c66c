"""What the chance curves of a game say (Ely, Frankel and Kamenica, "Suspense and Surprise",
2015), per game:

* **surprise**: how far the beliefs actually move, the sum over steps of ||p_t - p_(t-1)||
  (Euclidean, over the seats' chances);
* **suspense**: how far they are expected to move next, the sum over steps of
  sqrt(E_t ||p_(t+1) - p_t||^2). The expectation is a cross-fitted regression of the squared
  move on what the table shows at t, capped by sum_i p_i (1 - p_i): beliefs that are a
  martingale cannot be expected to move by more than the outcome's own variance, so a game
  whose winner is certain has no suspense left;
* **decisive moment**: the step, as a share of the game, after which the eventual winner's
  chance never falls below DECIDED again;
* **largest swing**: the largest change of one seat's chance in one step;
* **comeback**: the eventual winner's chance was at some step below COMEBACK of a fair
  share (with four players, below 12.5%): by probability, not by score.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.feel.winprob import halves, one_thread

DECIDED = 0.5  # the winner's chance that decides a game when it never falls below it again
COMEBACK = 0.5  # of a fair share: a winner whose chance was once below this came back
FOLDS = 2


def _state(table: pd.DataFrame) -> pd.DataFrame:
    """One row a (game, step): what the regression of the next move reads."""
    wide = table.pivot_table(index=["game", "round"], columns="seat", values="p")
    p = np.nan_to_num(wide.to_numpy(float))
    top = -np.sort(-p, axis=1)
    second = top[:, 1] if top.shape[1] > 1 else np.zeros(len(top))
    out = wide.index.to_frame(index=False)
    last = out.groupby("game")["round"].transform("max")
    out["progress"] = out["round"] / last.clip(lower=1)
    out["top"], out["lead"] = top[:, 0], top[:, 0] - second
    out["spread"] = (p * (1 - p)).sum(axis=1)  # the outcome's variance: the cap
    out["seats"] = (p > 0).sum(axis=1)
    step = np.vstack([np.zeros((1, p.shape[1])), np.diff(p, axis=0)])
    first = out["round"].to_numpy() == 0
    step[first] = 0.0
    out["moved"] = np.sqrt((step**2).sum(axis=1))  # ||p_t - p_(t-1)||, 0 at the first step
    return out


def expected_moves(state: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """E_t ||p_(t+1) - p_t||^2 at every step with a next one (cross-fitted, capped by the
    outcome's variance), and which steps have a next one."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    nxt = state.groupby("game")["moved"].shift(-1)  # the next step's move
    has_next = nxt.notna().to_numpy()
    inputs = ["progress", "top", "lead", "spread", "seats"]
    expected = np.zeros(len(state))
    fold = halves(state["game"])
    for f in range(FOLDS):
        train, test = (fold != f) & has_next, (fold == f) & has_next
        if not train.any() or not test.any():
            continue
        model = HistGradientBoostingRegressor(max_iter=50, learning_rate=0.2, random_state=0)
        with one_thread():
            model.fit(state.loc[train, inputs], nxt[train] ** 2)
            expected[test] = model.predict(state.loc[test, inputs])
    return np.clip(expected, 0.0, state["spread"].to_numpy()) * has_next, has_next


def game_feel(table: pd.DataFrame) -> pd.DataFrame:
    """game, suspense, surprise, decisive_moment, largest_swing, comeback (see the module)."""
    state = _state(table)
    expected, has_next = expected_moves(state)
    state["suspense"] = np.where(has_next, np.sqrt(expected), 0.0)
    per = state.groupby("game").agg(suspense=("suspense", "sum"), surprise=("moved", "sum"))
    swing = table.sort_values(["game", "seat", "round"])
    swing = swing.assign(d=swing.groupby(["game", "seat"])["p"].diff().abs())
    per["largest_swing"] = swing.groupby("game")["d"].max()
    winner = table[table["won"] == table.groupby("game")["won"].transform("max")]
    w = winner.groupby(["game", "round"])["p"].max().reset_index()
    w["last"] = w.groupby("game")["round"].transform("max")
    below = w[(w["p"] < DECIDED) & (w["round"] < w["last"])].groupby("game")["round"].max()
    last = w.groupby("game")["last"].first()
    decided = below.reindex(last.index).fillna(-1) + 1
    per["decisive_moment"] = decided / last
    before_end = w[w["round"] < w["last"]]
    seats = table.groupby("game")["seat"].nunique().reindex(last.index)
    lowest = before_end.groupby("game")["p"].min().reindex(last.index)
    per["comeback"] = lowest < COMEBACK / seats
    return per.reset_index()
