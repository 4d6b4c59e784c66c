"""The feel metrics under a true null: a toy kind renamed (the rules treat toy kinds alike,
R5), so both sides play the same game. A comparison judges both sides with one model (a
common yardstick, `sim.runs.chances`); with a model per side the fitting noise of two models
alone would differ (printed for the closing note). Opt-in: `pytest -m slow`."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.analysis.paired import compare_runs
from sim.config import load_study
from sim.runs import run_chunk
from sim.runs.chances import feel_model

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
RENAMED = {"wool": 4, "mouse": 4, "feather": 4, "fish": 4}  # yarn, renamed: the same game
SEEDS, GAMES = 20, 3000


@pytest.mark.slow
def test_null_comparisons_flag_no_feel_metric():
    study = load_study(BASE)
    renamed = study.with_overrides(**{"deck.toys": RENAMED})
    shared = feel_model([study, renamed])
    own = feel_model([study]), feel_model([renamed])
    flagged = apart = 0
    for seed in range(SEEDS):
        a, b = study.with_overrides(seed=seed), renamed.with_overrides(seed=seed + 10_000)
        t = compare_runs(run_chunk(a, 0, GAMES, shared), run_chunk(b, 0, GAMES, shared),
                         resamples=400, paired=False, seed=seed)  # fmt: skip
        flagged += bool(t.loc[t["family"] == "feel", "real"].any())
        t = compare_runs(run_chunk(a, 0, GAMES, own[0]), run_chunk(b, 0, GAMES, own[1]),
                         resamples=400, paired=False, seed=seed)  # fmt: skip
        apart += bool(t.loc[t["family"] == "feel", "real"].any())
    print(
        f"\n{SEEDS} null comparisons of {GAMES:,} games a side: a feel metric flagged in"
        f" {flagged} with one model for both sides, in {apart} with a model per side"
    )
    assert flagged <= 1
