"""`sim calibrate` on games with a known answer: a heuristic seat with known weights and
temperature is recovered; random play calibrates to a model that knows nothing; two kinds
of player are told apart; too little data is said. (The 20-repetition known-answer check
is in test_calibrate_slow.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.config import load_study
from sim.specs import FEATURE_NAMES
from sim.studies.calibrate import calibrate
from sim.studies.outputs import CALIBRATED_FILE, CALIBRATION_FILE, write_calibration_files
from sim.table.choices import logged_choices, recorded_game
from sim.table.record import play_recorded

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
# Every feature weighted, so every weight has a known answer to recover.
KNOWN = {
    "own_points": 1.0,
    "rival_points": -0.4,
    "others_points": -0.2,
    "closes_own_box": 1.2,
    "feeds_rival_box": -0.8,
    "cat_used": 0.3,
    "sleeping_used": -0.5,
    "sprayer_on_rival": 1.0,
    "princess_swing": 0.5,
    "toy_to_own": 0.6,
}
TEMPERATURE = 0.7


def seat_text(weights: dict | None = None, temperature: float = TEMPERATURE, **extra) -> str:
    """A heuristic seat in YAML flow style."""
    parts = {"policy": "heuristic", **extra, "temperature": temperature}
    if weights is not None:
        parts["weights"] = weights
    return json.dumps(parts)


def study_of(seats: list[str], players: int = 4):
    """configs/base.yaml with this line-up."""
    return load_study(BASE, [f"players={players}", f"seats=[{', '.join(seats)}]"])


def games_of(study, n: int, seed: int, first: int = 0):
    """n games of the study, recorded decision by decision (as `sim play --log` logs them)."""
    return [recorded_game(play_recorded(study, seed, i)) for i in range(first, first + n)]


def truth(weights: dict = KNOWN, temperature: float = TEMPERATURE) -> dict:
    """The true seat on the points scale (own_points = 1)."""
    own = weights["own_points"]
    return {"temperature": temperature / own, **{k: v / own for k, v in weights.items()}}


def covered(group, true: dict, simultaneous: bool = True) -> dict[str, bool]:
    """Is every true value inside its interval? (the temperature and each weight)"""
    tag = "sim_" if simultaneous else ""
    s = group.scale
    lo, hi = (s.sim_lo, s.sim_hi) if simultaneous else (s.lo, s.hi)
    out = {"temperature": bool(lo <= true["temperature"] <= hi)}
    for r in group.table.to_dict("records"):
        if r["feature"] != "own_points":
            lo, hi = r[f"weight_{tag}lo"], r[f"weight_{tag}hi"]
            out[r["feature"]] = bool(lo <= true[r["feature"]] <= hi)
    return out


@pytest.fixture(scope="module")
def known():
    """80 four-player games of the known seat at every seat: about 8,000 decisions."""
    seat = seat_text(KNOWN)
    return calibrate(logged_choices(games_of(study_of([seat] * 4), 80, seed=101)), seed=1)


def test_a_known_seat_is_recovered(known):
    """Every weight and the temperature lie within their simultaneous 95% intervals, the
    unit is own points, and the seat written is ready for a line-up."""
    g = known.pooled
    assert g.scale.points
    assert all(covered(g, truth()).values()), covered(g, truth())
    assert g.fit.converged and g.fit.k == len(FEATURE_NAMES)
    assert set(g.spec["weights"]) == set(FEATURE_NAMES) and g.spec["weights"]["own_points"] == 1


def test_the_known_seat_beats_greedy_on_held_out_games(known):
    """On the held-out games the fit matches more moves than greedy, random and the
    presets; its gain over greedy has an interval above 0."""
    h = known.pooled.heldout.set_index("model")
    first = h.index[0]
    assert h.loc["greedy", "gain_top1_lo"] > 0 and h.loc["random", "gain_top1_lo"] > 0
    assert h.loc["greedy", "gain_loglik_lo"] > 0
    assert (h.drop(first)["top1"] < h.loc[first, "top1"]).all()
    assert known.pooled.test_games == 20 and known.pooled.train_games == 60


def test_random_play_calibrates_to_a_model_that_knows_nothing():
    """All-random seats: every utility's simultaneous interval holds 0 and none is far
    from it; own points are not clearly valued, so the temperature in points is unbounded
    and the seat is written on the utility scale; the fit is no better than random on
    held-out games."""
    study = study_of(['{"policy": "random"}'] * 4)
    result = calibrate(logged_choices(games_of(study, 40, seed=202)), seed=2)
    g = result.pooled
    t = g.table[g.table["fitted"]]
    assert (t["sim_lo"] <= 0).all() and (t["sim_hi"] >= 0).all()
    assert (t["utility"].abs() < 0.25).all()
    assert not g.scale.points and g.spec["temperature"] == 1.0
    assert any("not clearly valued" in w for w in g.warnings)
    random_row = g.heldout.set_index("model").loc["random"]
    assert random_row["gain_top1_lo"] <= 0 <= random_row["gain_top1_hi"]
    assert random_row["gain_loglik_hi"] < 0.01  # nothing learnt that holds on other games


def test_two_kinds_of_player_are_told_apart_by_player():
    """Builders and spoilers at one table, fitted --by player: the likelihood-ratio test says
    they differ, and each player's fit is nearer its own preset's weights."""
    from sim.specs import PRESETS

    builder = seat_text(preset="builder", temperature=0.5)
    spoiler = seat_text(preset="spoiler", temperature=0.5)
    study = study_of([builder, spoiler, builder, spoiler])
    result = calibrate(logged_choices(games_of(study, 30, seed=303)), by_player=True, seed=3)
    assert [g.name for g in result.players] == ["heuristic:builder", "heuristic:spoiler"]
    assert result.differ["p"] < 1e-6 and result.differ["df"] > 0

    def distance(group, preset):
        w = {k: v / PRESETS[preset].get("own_points", 1) for k, v in PRESETS[preset].items()}
        fitted = group.table.set_index("feature")["weight"]
        return sum((fitted[f] - w.get(f, 0.0)) ** 2 for f in FEATURE_NAMES)

    b, s = result.players
    assert distance(b, "builder") < distance(b, "spoiler")
    assert distance(s, "spoiler") < distance(s, "builder")


def test_too_little_data_is_said_and_the_intervals_show_it(known):
    """Three games: the weights with few informative decisions are named in a warning with
    their counts, and their intervals are wider than with 80 games."""
    seat = seat_text(KNOWN)
    few = calibrate(logged_choices(games_of(study_of([seat] * 4), 3, seed=101)), seed=1)
    g = few.pooled
    thin = g.table[g.table["fitted"] & (g.table["n_decisions"] < few.min_decisions)]
    assert len(thin) and any(w.startswith("too little data") for w in g.warnings)
    for r in thin.itertuples():
        assert f"{r.feature} ({r.n_decisions:,})" in " ".join(g.warnings)
        assert "a wide interval" in r.note
    wide = (g.table["weight_hi"] - g.table["weight_lo"]).to_numpy()
    narrow = (known.pooled.table["weight_hi"] - known.pooled.table["weight_lo"]).to_numpy()
    fitted = g.table["fitted"].to_numpy() & (g.table["feature"] != "own_points").to_numpy()
    assert (wide[fitted] > narrow[fitted]).all()
    assert any("clustered errors need" in w for w in g.warnings)  # 3 games: model errors


def test_the_files_are_strict_json_and_a_seat_for_a_line_up(known, tmp_path):
    """calibration.json is strict JSON (an unbounded end is null) with every weight, its
    interval and the decisions behind it; calibrated.yaml is a seat `{calibrated: FILE}`
    reads back to the same parameters."""
    files = write_calibration_files(known, tmp_path, {"name": "known", "logs": 80})
    data = json.loads((tmp_path / CALIBRATION_FILE).read_text(), parse_constant=_refuse)
    assert [w["feature"] for w in data["weights"]] == list(FEATURE_NAMES)
    assert all(
        {"weight", "weight_lo", "weight_hi", "n_decisions"} <= set(w) for w in data["weights"]
    )
    assert data["name"] == "known" and data["unit"].startswith("own_points")
    assert tmp_path / CALIBRATED_FILE in files
    study = load_study(BASE, [f"seats=[{{calibrated: {tmp_path / CALIBRATED_FILE}}}, "
                              '{policy: greedy}, {policy: greedy}, {policy: random}]'])  # fmt: skip
    seat = study.seats[0]
    assert seat.label == "calibrated" and seat.params["weights"] == known.pooled.spec["weights"]
    assert seat.params["temperature"] == known.pooled.spec["temperature"]


def _refuse(name: str):
    raise AssertionError(f"{name} in calibration.json: not strict JSON")


def test_the_fit_does_not_depend_on_the_order_of_the_games():
    """The same games in another order give the same weights (no games held out)."""
    seat = seat_text(KNOWN)
    games = games_of(study_of([seat] * 4), 12, seed=404)
    a = calibrate(logged_choices(games), holdout=0).pooled
    b = calibrate(logged_choices(games[::-1]), holdout=0).pooled
    np.testing.assert_allclose(a.fit.theta, b.fit.theta, rtol=1e-8, atol=1e-10)
