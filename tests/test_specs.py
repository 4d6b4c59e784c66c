"""Seat specs: every policy's parameters are checked, and each bad one is named."""

from __future__ import annotations

import numpy as np
import pytest

from sim.specs import (
    FEATURE_NAMES,
    N_FEATURES,
    P_BUDGET,
    P_CANDIDATES,
    P_EXPLORATION,
    P_HORIZON,
    P_ROLLOUT_POLICY,
    P_ROLLOUTS,
    P_TEMPERATURE,
    PRESETS,
    SeatError,
    check_seat,
    policy_code,
    seat_params,
)

BAD = [
    ("heuristic", {"preset": "bulider"}, "preset", "did you mean 'builder'"),
    ("heuristic", {"weights": {"own_pionts": 1}}, "weights", "did you mean 'own_points'"),
    ("heuristic", {"weights": {"own_points": "lots"}}, "weights", "must be a number"),
    ("heuristic", {"temperature": -1}, "temperature", "from 0 to 1e+06"),
    ("heuristic", {"temperature": float("nan")}, "temperature", "got nan"),
    ("heuristic", {"weights": {"own_points": float("inf")}}, "weights", "got inf"),
    ("heuristic", {"preset": ["a"]}, "preset", "unknown preset ['a']"),
    ("lookahead", {"horizon": 10**40}, "horizon", "integer of about 41 digits"),
    ("lookahead", {"rollouts": 0}, "rollouts", "from 1 to 10000"),
    ("lookahead", {"candidates": 2.5}, "candidates", "integer"),
    ("lookahead", {"horizon": -2}, "horizon", "from 0 to 10000"),
    ("lookahead", {"rollout_policy": "lookahead"}, "rollout_policy", "'random' or 'greedy'"),
    ("ismcts", {"budget": 0}, "budget", "from 1 to 10000"),
    ("ismcts", {"budget": 10_001}, "budget", "from 1 to 10000"),
    ("ismcts", {"c": -0.1}, "c", "from 0 to 100"),
    ("ismcts", {"c": float("inf")}, "c", "got inf"),
    ("ismcts", {"c": "wide"}, "c", "from 0 to 100"),
    ("ismcts", {"candidates": 0}, "candidates", "from 1 to 10000"),
    ("ismcts", {"horizon": -1}, "horizon", "from 0 to 10000"),
    ("ismcts", {"rollout_policy": "ismcts"}, "rollout_policy", "'random' or 'greedy'"),
    ("ismcts", {"rollouts": 8}, "rollouts", "no parameter 'rollouts'"),
    ("greedy", {"depth": 2}, "depth", "no parameter 'depth'"),
    ("nope.module:Thing", {}, "policy", "cannot import"),
    ("sim.policies.examples:Nothing", {}, "policy", "no class 'Nothing'"),
]


@pytest.mark.parametrize(("policy", "params", "key", "needle"), BAD)
def test_bad_seat_is_named(policy, params, key, needle):
    with pytest.raises(SeatError) as err:
        check_seat(policy, params)
    assert err.value.key == key and needle in str(err.value)


def test_presets_use_only_known_features():
    for weights in PRESETS.values():
        assert set(weights) <= set(FEATURE_NAMES)


def test_heuristic_vector_is_preset_then_overrides():
    vec = seat_params(
        "heuristic", {"preset": "spoiler", "weights": {"cat_used": -2}, "temperature": 0.5}
    )
    expected = np.zeros(N_FEATURES)
    for name, value in {**PRESETS["spoiler"], "cat_used": -2}.items():
        expected[FEATURE_NAMES.index(name)] = value
    assert np.array_equal(vec[:N_FEATURES], expected) and vec[P_TEMPERATURE] == 0.5


def test_lookahead_vector_has_its_budget():
    vec = seat_params("lookahead", {"rollouts": 5, "horizon": 0, "rollout_policy": "random"})
    assert vec[P_CANDIDATES] == 4 and vec[P_ROLLOUTS] == 5 and vec[P_HORIZON] == 0
    assert vec[P_ROLLOUT_POLICY] == policy_code("random")


def test_ismcts_vector_has_its_budget_and_constant():
    vec = seat_params("ismcts", {"budget": 100, "c": 0.25, "rollout_policy": "random"})
    assert vec[P_BUDGET] == 100 and vec[P_EXPLORATION] == 0.25
    assert vec[P_CANDIDATES] == 6 and vec[P_HORIZON] == 4
    assert vec[P_ROLLOUT_POLICY] == policy_code("random")
    check_seat("ismcts", {"budget": 1, "c": 0, "horizon": 0, "candidates": 10_000})
