"""Brute-force truth for `sim advise`: every one-setting change played at every level on
many fresh games, so the advice can be checked against what the changes really do.

    python -m sim.bench.advise_truth CONFIG [--games 8000] [--seed S] [--out truth.csv]
        [--only PATH ...] [--jobs N]

For the start and each candidate change (`sim.studies.fix_candidates.fix_candidates`, or
only those on the settings named by --only), every seat's edge over a fair share at every
level of `advise.levels`, on `--games` games per level of a seed no advice uses (default
the config's seed + 1000). One CSV row per candidate and level and seat: change, level,
seat, edge, lo, hi; the summary printed sorts the candidates by their worst seat-level
edge. This is a benchmark, not a test: a few minutes for the base game on two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd

from sim.config import load_study
from sim.runs.options import Workers
from sim.studies.advise_state import at_level, fairness_targets, levels_of
from sim.studies.checks import check_all
from sim.studies.fix_candidates import fix_candidates, label_of

TRUTH_SEED_OFFSET = 1000


def truth_table(study, games: int, seed: int, only: list[str] | None, jobs: int) -> pd.DataFrame:
    """Every candidate's seat edges at every level on `games` fresh games of `seed`."""
    cands = [{}] + [
        c
        for c in fix_candidates(study)
        if not only or any(p.startswith(o) for p in c for o in only)
    ]
    levels = levels_of(study)
    targets = fairness_targets(study)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, change in enumerate(cands):
            points = [
                (at_level(study, lv, change, games, seed), Path(tmp) / f"c{i}-l{j}")
                for j, lv in enumerate(levels)
            ]
            checked = check_all(points, targets, 2000, Workers(jobs=jobs, quiet=True), "")
            label = label_of(study, change) or "start"
            for lv, row in zip(levels, checked, strict=True):
                for name, e in row.targets.items():
                    rows.append(
                        {
                            "change": label,
                            "changes": json.dumps(change),
                            "level": lv.label,
                            "seat": int(name.removeprefix("seat_edge.seat")),
                            "edge": e["estimate"],
                            "lo": e["lo"],
                            "hi": e["hi"],
                        }
                    )
            worst = max(abs(r["edge"]) for r in rows[-len(levels) * len(targets) :])
            print(
                f"[{i + 1}/{len(cands)}] {label}: worst seat-level edge {100 * worst:.2f} pp",
                file=sys.stderr,
                flush=True,
            )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sim.bench.advise_truth", description=__doc__)
    p.add_argument("config")
    p.add_argument("--games", type=int, default=8000)
    p.add_argument("--seed", type=int)
    p.add_argument("--only", nargs="*")
    p.add_argument("--jobs", type=int, default=-1)
    p.add_argument("--out", default="truth.csv")
    args = p.parse_args(argv)
    study = load_study(args.config)
    seed = args.seed if args.seed is not None else study.seed + TRUTH_SEED_OFFSET
    table = truth_table(study, args.games, seed, args.only, args.jobs)
    table.to_csv(args.out, index=False)
    worst = table.assign(a=table["edge"].abs()).groupby("change")["a"].max().sort_values()
    for change, w in worst.items():
        print(f"{100 * w:5.2f} pp  {change}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
