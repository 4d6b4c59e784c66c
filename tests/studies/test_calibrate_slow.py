"""The known-answer check of `sim calibrate` at full size (slow: `pytest -m slow`), and how
the intervals narrow with data.

Twenty repetitions, each 300 four-player games (about 30,000 decisions) of the known
heuristic seat at every seat, each on its own seeds. "Every weight and the temperature
within their intervals" at once is what the simultaneous 95% intervals (Bonferroni over the
ten parameters) cover, so a correct method has them all covered in a repetition with
probability at least 0.95. Over 20 repetitions it then reaches 19 or 20 with probability
only 0.74 (0.95^20 + 20 x 0.05 x 0.95^19), but 17 or more with probability 0.984: the test
asks for 17, and for the marginal intervals to cover at least 90% of the 200 true values
(a correct method: 95%, whose 2.5% tail over 200 is about 92%). On every repetition the fit
must match more held-out moves than greedy with an interval above 0. The figures are
printed (`pytest -m slow -s`); the closing note of issue 28 quotes them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_calibrate import KNOWN, covered, games_of, seat_text, study_of, truth

from sim.studies.calibrate import calibrate
from sim.table.choices import logged_choices

REPETITIONS = 20
GAMES = 300


@pytest.mark.slow
def test_a_known_seat_is_recovered_in_19_of_20_repetitions():
    study = study_of([seat_text(KNOWN)] * 4)
    true = truth()
    rows, joint, marginal, beats = [], 0, [], []
    for rep in range(REPETITIONS):
        result = calibrate(logged_choices(games_of(study, GAMES, seed=5000 + rep)), seed=rep)
        g = result.pooled
        joint += all(covered(g, true, simultaneous=True).values())
        marginal.append(covered(g, true, simultaneous=False))
        greedy = g.heldout.set_index("model").loc["greedy"]
        beats.append((greedy["gain_top1"], greedy["gain_top1_lo"], greedy["gain_top1_hi"]))
        fitted = {"temperature": g.scale.temperature, **g.table.set_index("feature")["weight"]}
        lo = {"temperature": g.scale.lo, **g.table.set_index("feature")["weight_lo"]}
        hi = {"temperature": g.scale.hi, **g.table.set_index("feature")["weight_hi"]}
        for name in true:
            rows.append({"rep": rep, "name": name, "value": fitted[name], "lo": lo[name],
                         "hi": hi[name], "decisions": g.fit.n})  # fmt: skip
    frame = pd.DataFrame(rows)
    cover = pd.DataFrame(marginal).mean()
    table = frame.groupby("name", sort=False).agg(
        mean=("value", "mean"), sd=("value", "std"), lo=("lo", "median"), hi=("hi", "median")
    )
    table.insert(0, "true", pd.Series(true))
    table["marginal_cover"] = cover.reindex(table.index)
    print(f"\njoint coverage (simultaneous 95%): {joint}/{REPETITIONS}")
    print(f"marginal coverage: {pd.DataFrame(marginal).to_numpy().mean():.3f}")
    print(f"decisions per repetition: {frame['decisions'].median():,.0f}")
    print(table.round(3).to_string())
    print("greedy gap (top-1, pp):", [f"{100 * g:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
                                      for g, lo, hi in beats])  # fmt: skip
    assert joint >= 17
    assert all(lo > 0 for _, lo, _ in beats)
    assert pd.DataFrame(marginal).to_numpy().mean() >= 0.9


@pytest.mark.slow
def test_how_the_intervals_narrow_with_data():
    """Intervals on the points scale for 10 to 640 games of the known seat (prefixes of one
    set of games): the median half-width falls about as 1 / sqrt(decisions)."""
    study = study_of([seat_text(KNOWN)] * 4)
    games = games_of(study, 640, seed=9000)
    rows = []
    for n in (10, 20, 40, 80, 160, 320, 640):
        g = calibrate(logged_choices(games[:n]), holdout=0).pooled
        t = g.table.set_index("feature")
        half = (t["weight_hi"] - t["weight_lo"]) / 2
        row = {"games": n, "decisions": g.fit.n, "temperature": (g.scale.hi - g.scale.lo) / 2}
        row.update(half.drop("own_points").to_dict())
        row.update({f"n:{k}": v for k, v in t["n_decisions"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows).set_index("games")
    print("\nhalf-width of the 95% interval (points scale) by games:")
    print(frame[[c for c in frame.columns if not c.startswith("n:")]].round(3).to_string())
    print(frame[["decisions", *[c for c in frame.columns if c.startswith("n:")]]].to_string())
    widths = frame.drop(columns=[c for c in frame.columns if c.startswith("n:")] + ["decisions"])
    ratio = np.nanmedian(widths.loc[640] / widths.loc[160])
    assert 0.35 < ratio < 0.65  # four times the data: about half the width
