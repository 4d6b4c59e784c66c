"""Greedy breaks ties uniformly: one draw per decision among the actions of the best value.

At a game's first play decision no box holds an item, so every placement is worth the table
as it stands and all of them tie. Drawn again and again from one stream, greedy's choice
must cover every tied action about equally often (a chi-square test), and must never leave
the tied set at a decision where one action is better.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import stats

from sim.config import load_study
from sim.engine.game import Game
from sim.policies.compiled import choose_greedy, objectives
from sim.policies.dispatch import PolicyScratch
from sim.policies.score_delta import current_scores
from sim.policies.work import w_values
from sim.runs.lineup import engine_for
from sim.specs import policy_code

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
DRAWS = 6000


def _values(game: Game, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal actions and greedy's objective of each."""
    legal = game.legal()
    buf = np.array(legal, np.int32)
    current_scores(game.s, game.pr, w)
    objectives(game.s, game.pr, buf, np.int64(0), np.int64(len(buf)), np.int64(game.seat), w)
    at = w_values(game.pr)
    return buf, w[at : at + len(buf)].copy()


def test_a_first_decision_draws_every_tied_action_equally_often():
    engine = engine_for(load_study(BASE).game)
    game = Game(engine, 3, 0)
    while game.decision != "play":  # the box action at the first choice (legal_actions' first)
        game.apply(int(game.legal()[0]))
    scratch = PolicyScratch.for_params(game.pr)
    buf, values = _values(game, scratch.w)
    assert game.decision == "play" and len(buf) > 20 and np.all(values == values[0])
    stream = game.seat_stream(game.seat)
    index = {int(a): i for i, a in enumerate(buf)}
    counts = np.zeros(len(buf), np.int64)
    for _ in range(DRAWS):
        a = choose_greedy(game.s, game.pr, stream, game.buf, scratch.w, np.int64(0))
        counts[index[int(a)]] += 1
    assert counts.min() > 0, "some tied action is never drawn"
    p = stats.chisquare(counts).pvalue
    assert p > 1e-4, f"greedy's tie draws are not uniform over {len(buf)} actions (p = {p:.2g})"


def test_greedy_picks_only_among_the_best_actions():
    engine = engine_for(load_study(BASE).game)
    scratch = PolicyScratch.for_params(engine.pr)
    greedy = policy_code("greedy")
    checked = 0
    for index in range(3):
        game = Game(engine, 11, index)
        streams = [game.seat_stream(p) for p in range(game.pr.players)]
        while not game.over:
            if game.decision in ("play", "item", "cat", "sleep"):
                buf, values = _values(game, scratch.w)
                best = {int(a) for a in buf[values == values.max()]}
                a = scratch.choose(greedy, game.s, game.pr, streams[game.seat], game.buf)
                assert a in best, f"game {index}: {game.describe(a)} is not among the best"
                checked += len(buf) > len(best)  # a decision where some action is worse
            else:
                a = scratch.choose(greedy, game.s, game.pr, streams[game.seat], game.buf)
            game.apply(a)
    assert checked > 50
