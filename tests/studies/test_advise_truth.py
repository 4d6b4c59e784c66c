"""`sim advise` against brute-force truth (slow, opt-in: `-m slow`): the base game at five
seeds, and a config with one broken setting (one box card too many) at three.

At five seeds the advice is run at its defaults; every lead fix is then played at every
level on 8,000 games of a seed no advice used, beside the start on the same games: its worst
seat-level edge must be at most 3.0 pp and at least 1 pp below the start's, and the leads
must agree in at least 4 of the 5 seeds: the same change, the same group of causes, or the
modal lead named in the seed's set (its lead and the changes confirmed as good beside it).
About 10 minutes on two cores.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from cli_helpers import sim_cli

from sim.config import load_study
from sim.runs.options import Workers
from sim.studies.advise_state import at_level, fairness_targets, levels_of
from sim.studies.checks import check_all

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
SEEDS = (11, 22, 33, 44, 55)
CHECK_GAMES = 8000
CHECK_SEED = 987654


def worst_edge(study, changes: dict, games: int, seed: int) -> float:
    """The largest |edge| of any seat at any level, on `games` games of `seed`."""
    targets = fairness_targets(study)
    with tempfile.TemporaryDirectory() as tmp:
        points = [(at_level(study, lv, changes, games, seed), Path(tmp) / f"l{i}")
                  for i, lv in enumerate(levels_of(study))]  # fmt: skip
        rows = check_all(points, targets, 2000, Workers(quiet=True), "")
    return max(abs(e["estimate"]) for r in rows for e in r.targets.values())


@pytest.mark.slow
def test_the_lead_fix_is_right_and_the_same_on_any_seed(tmp_path):
    study = load_study(BASE)
    start = worst_edge(study, {}, CHECK_GAMES, CHECK_SEED)
    leads, report = [], []
    for seed in SEEDS:
        out = tmp_path / f"s{seed}"
        text = sim_cli("advise", BASE, "--seed", seed, "--out", out, "--no-report", "--quiet")
        data = json.loads((out / "advice.json").read_text())
        assert data["status"] == "not fair", text
        fix = data["answer"]["fixes"][0]
        worst = worst_edge(study, fix["changes"], CHECK_GAMES, CHECK_SEED)
        members = {json.dumps(f["changes"], sort_keys=True) for f in data["answer"]["fixes"]}
        leads.append((json.dumps(fix["changes"], sort_keys=True), fix["group"], members))
        report.append(f"seed {seed}: {text.splitlines()[1].strip()} | check: worst"
                      f" {100 * worst:.2f} pp, start {100 * start:.2f} pp")  # fmt: skip
        assert worst <= 0.030 and worst <= start - 0.010, report[-1]
    print("\n".join(report))
    modal, by_change = Counter(c for c, _, _ in leads).most_common(1)[0]
    by_group = Counter(g for _, g, _ in leads).most_common(1)[0][1]
    # the lead, or the set it names as good (lead and members confirmed beside it)
    by_set = sum(modal in members for _, _, members in leads)
    print(f"lead change agrees in {by_change} of 5, group in {by_group}, set in {by_set}")
    assert max(by_change, by_group, by_set) >= 4, report


BROKEN = Path(__file__).resolve().parent / "configs" / "one_box_too_many.yaml"
SAME_TURNS = "every seat takes the same turns"


KNOWN_FIX = {"deck.boxes.NW": 6}  # the card too many, back


@pytest.mark.slow
def test_one_broken_setting_is_found_and_fixed(tmp_path):
    """Four players with one Princess take the same turns; one NW box card too many gives
    seat 0 an extra turn (`configs/one_box_too_many.yaml`). Brute-force truth (`python -m
    sim.bench.advise_truth tests/studies/configs/one_box_too_many.yaml`, every one of 66
    changes at every level on 8,000 games): the start's worst seat-level edge 3.18 pp, outside
    the ±2.5 pp band but near it; the known fix (NW 7 → 6) 2.44 pp; one Princess fewer 1.31
    pp, the best. At three seeds the advice must not call the game fair, must trace the edge
    to the turn order, and must lead with a change that gives every seat the same turns and,
    checked beside the start and the known fix on 8,000 fresh games, is below the start and
    at most 0.5 pp above the known fix."""
    study = load_study(BROKEN)
    start = worst_edge(study, {}, CHECK_GAMES, CHECK_SEED)
    known = worst_edge(study, KNOWN_FIX, CHECK_GAMES, CHECK_SEED)
    report = []
    for seed in SEEDS[:3]:
        out = tmp_path / f"s{seed}"
        text = sim_cli("advise", BROKEN, "--seed", seed, "--out", out, "--no-report", "--quiet")
        data = json.loads((out / "advice.json").read_text())
        assert data["status"] != "fair" and data["turn_driven"], text
        fix = data["answer"]["fixes"][0]
        worst = worst_edge(study, fix["changes"], CHECK_GAMES, CHECK_SEED)
        report.append(f"seed {seed}: {text.splitlines()[1].strip()} | check: worst"
                      f" {100 * worst:.2f} pp, known fix {100 * known:.2f} pp, start"
                      f" {100 * start:.2f} pp")  # fmt: skip
        assert fix["group"].endswith(SAME_TURNS), report[-1]
        assert worst < start and worst <= known + 0.005, report[-1]
    print("\n".join(report))
