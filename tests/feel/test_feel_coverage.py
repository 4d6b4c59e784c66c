"""Does a feel target's interval (the games' noise plus the model's own, sim.analysis.balance
.with_model_noise) cover the value a model of unlimited pilot games would give? Twelve
models fitted on pilot games of different seeds each judge a run of their own games; the
truth is approximated by the mean over all twelve models of the same 12,000 reference
games. Opt-in: `pytest -m slow` (prints the coverage quoted in the closing notes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.analysis.intervals import Z95
from sim.config import load_study
from sim.feel.model import fit_model, model_noise
from sim.runs.chances import lineup_names, pilot_arrays, player_codes
from sim.runs.play import play_arrays

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
REPS, RUN, PILOT = 12, 3000, 4000
NAMES = ("suspense", "surprise", "decisive_moment")


def _columns(model, study, chunk):
    names = model.players
    return model.per_game(chunk.trace, chunk.rounds, player_codes(names, study, chunk.slots),
                          chunk.win_shares())  # fmt: skip


@pytest.mark.slow
def test_feel_intervals_with_the_models_noise_cover():
    study = load_study(BASE)
    names = lineup_names([study])
    reference = play_arrays(study.with_overrides(seed=7, games=12_000), 0, 12_000)
    fits, truth = [], {n: [] for n in NAMES}
    for r in range(REPS):
        seed = 1_000 + r
        pilots = pilot_arrays([study], [PILOT], seed, names)
        model = fit_model(pilots, names, seed)
        check = pilot_arrays([study], [PILOT // 2], seed + 500, names)
        noise = model_noise(pilots, check, names, seed)
        fits.append((model, noise))
        ref = _columns(model, study, reference)
        for n in NAMES:
            truth[n].append(ref[n].mean())
    target = {n: float(np.mean(v)) for n, v in truth.items()}
    covered = {n: 0 for n in NAMES}
    narrow = {n: 0 for n in NAMES}
    for r, (model, noise) in enumerate(fits):
        run = play_arrays(study.with_overrides(seed=50 + r, games=RUN), 0, RUN)
        cols = _columns(model, study, run)
        for n in NAMES:
            x = cols[n]
            games = Z95 * x.std(ddof=1) / np.sqrt(len(x))
            half = np.sqrt(games**2 + (Z95 * noise[n]) ** 2)
            covered[n] += abs(x.mean() - target[n]) <= half
            narrow[n] += abs(x.mean() - target[n]) <= games
    print(f"\ncoverage over {REPS} models: with the model's noise {covered}, games' alone {narrow}")
    assert all(c >= REPS - 3 for c in covered.values())
