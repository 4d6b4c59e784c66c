"""The features `sim calibrate` fits are exactly the heuristic's: at every decision of
played games, the weighted sum of each legal action's features is the value the policy
itself gives it (for any weights), and greedy's value of each action is what greedy
maximises."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.config import load_study
from sim.engine.game import Game
from sim.engine.turns import apply_action
from sim.policies.compiled import choose_greedy
from sim.policies.dispatch import PolicyScratch
from sim.policies.features import FeatureScratch, features_of
from sim.policies.heuristic import choose_heuristic
from sim.runs.lineup import engine_for
from sim.specs import FEATURE_NAMES, N_FEATURES, heuristic_params
from sim.table.record import play_recorded

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
CASES = [
    ([], 3, 1),  # greedy, greedy, random, random; four seats
    (["players=2", "seats=[{policy: heuristic, temperature: 1.0}, {policy: greedy}]"], 4, 2),
    (
        [
            "players=5",
            "seats=[{policy: random}, {policy: heuristic, preset: spoiler}, {policy: random},"
            " {policy: greedy}, {policy: heuristic, preset: sleeper, temperature: 0.5}]",
            "rules.sleeping_counts_for_majority=false",
        ],
        7,
        0,
    ),  # fmt: skip
]


@pytest.mark.parametrize(("sets", "seed", "index"), CASES)
def test_weighted_features_are_the_policys_values(sets, seed, index):
    """For random weights, features . weights equals choose_heuristic's value of every legal
    action (the sleeping-cat choice: of its best placement), at every decision of a game;
    greedy's choice is always among the actions of greedy's best value."""
    study = load_study(BASE, sets)
    recorded = play_recorded(study, seed, index)
    game = Game(engine_for(study.game), seed, index)
    features, policy = FeatureScratch(game.pr), PolicyScratch.for_params(game.pr)
    rng = np.random.default_rng(seed)
    checked = 0
    for decision in recorded.decisions:
        x, alt, greedy = features_of(game.s, game.pr, features)
        n = len(decision.legal)
        assert len(greedy) == n and x.shape[1] == N_FEATURES
        if n > 1:
            weights = dict(zip(FEATURE_NAMES, rng.normal(size=N_FEATURES), strict=True))
            params = heuristic_params(None, weights, 0.0)  # temperature 0 keeps the values
            choose_heuristic(game.s.copy(), game.pr, np.ones(1, np.uint64), game.buf,
                             policy.w, params, policy.values)  # fmt: skip
            mine = np.full(n, -np.inf)
            np.maximum.at(mine, alt, x @ params[:N_FEATURES])
            np.testing.assert_allclose(mine, policy.values[:n], rtol=1e-12, atol=1e-12)
            pick = choose_greedy(game.s.copy(), game.pr, np.ones(1, np.uint64), game.buf,
                                 policy.w, 0)  # fmt: skip
            assert greedy[list(decision.legal).index(pick)] == greedy.max()
            checked += 1
        apply_action(game.s, game.pr, np.int32(decision.action))
    assert checked > 30
    assert game.over
