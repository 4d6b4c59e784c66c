"""The whole game as a fix's objective (`sim.analysis.whole_game`) and the words that follow
its cells (`sim.analysis.advice_words`): ✓ inside, ✗ outside, ? unclear."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.analysis.advice_words import advice_summary, status_sentence
from sim.analysis.balance import run_metrics
from sim.analysis.moments import Moments
from sim.analysis.whole_game import (
    Cell,
    WholeGame,
    clearly_worse,
    level_cells,
    moves_problem,
    rank_key,
)

BAND = (-0.025, 0.025)


def cell(est: float, half: float, level: str = "greedy", seat: int = 0) -> Cell:
    return Cell(level, seat, est, est - half, est + half, BAND)


def test_a_cell_is_inside_outside_or_unclear_by_its_interval():
    assert cell(0.0, 0.01).mark == "✓"
    assert cell(0.04, 0.01).mark == "✗" and cell(-0.04, 0.01).mark == "✗"
    assert cell(0.03, 0.01).mark == "?"  # +3 pp [+2, +4] straddles the band's edge
    assert cell(0.02, 0.01).mark == "?"  # inside by its estimate, not by its interval
    assert cell(0.03, 0.01).excess == pytest.approx(0.005) and cell(0.01, 0.01).excess == 0


def test_the_status_follows_the_cells():
    assert WholeGame.of([cell(0, 0.01), cell(0.01, 0.01, seat=1)]).status == "fair"
    assert WholeGame.of([cell(0, 0.01), cell(0.03, 0.01, seat=1)]).status == "unclear"
    assert WholeGame.of([cell(0.03, 0.01), cell(0.05, 0.01, seat=1)]).status == "not fair"


def test_a_change_that_moves_the_problem_to_another_seat_is_caught():
    start = WholeGame.of([cell(0.04, 0.01, seat=0), cell(0.0, 0.01, seat=1)])
    moved = WholeGame.of([cell(0.0, 0.01, seat=0), cell(0.04, 0.01, seat=1)])
    better = WholeGame.of([cell(0.035, 0.005, seat=0), cell(0.0, 0.01, seat=1)])
    assert [c.seat for c in moves_problem(moved, start)] == [1]
    assert moves_problem(better, start) == []  # still outside, but less than before


def test_the_rank_puts_every_cell_inside_first_then_fewest_outside_then_worst_then_size():
    inside = WholeGame.of([cell(0.02, 0.004), cell(-0.02, 0.004, seat=1)])
    one_out = WholeGame.of([cell(0.0, 0.01), cell(0.04, 0.01, seat=1)])
    two_out = WholeGame.of([cell(0.035, 0.005), cell(0.035, 0.005, seat=1)])
    unclear_small = WholeGame.of([cell(0.024, 0.01), cell(0.0, 0.01, seat=1)])
    order = sorted([(two_out, 1), (one_out, 1), (unclear_small, 3), (inside, 5)],
                   key=lambda x: rank_key(*x))  # fmt: skip
    assert [g for g, _ in order] == [inside, unclear_small, one_out, two_out]
    a, b = WholeGame.of([cell(0.01, 0.005)]), WholeGame.of([cell(0.01, 0.005)])
    assert rank_key(a, 1) < rank_key(b, 2)  # equal games: the fewer cards moved


def test_racing_drops_only_the_clearly_worse():
    best = WholeGame.of([cell(0.01, 0.01)])
    close = WholeGame.of([cell(0.025, 0.01)])
    far = WholeGame.of([cell(0.06, 0.01)])
    assert clearly_worse([best, close, far]) == [False, False, True]


def _players(shares: np.ndarray) -> pd.DataFrame:
    games, seats = shares.shape
    return pd.DataFrame({"game": np.repeat(np.arange(games), seats),
                         "seat": np.tile(np.arange(seats), games),
                         "win_share": shares.ravel(), "policy": "greedy"})  # fmt: skip


def test_the_cells_are_the_registrys_seat_edges():
    rng = np.random.default_rng(3)
    winner = rng.choice(4, size=3000, p=[0.3, 0.25, 0.25, 0.2])
    shares = np.eye(4)[winner]
    shares[:40] = 0.5 * (np.eye(4)[0] + np.eye(4)[1])  # a few two-way ties
    players = _players(shares)
    games = pd.DataFrame({"game": np.arange(3000), "players": 4})
    cells = level_cells(players, "x", dict.fromkeys(range(4), BAND))
    table = run_metrics(games, players, [f"seat_edge.seat{k}" for k in range(4)])
    for c, r in zip(cells, table.itertuples(), strict=True):
        assert (c.estimate, c.lo, c.hi) == pytest.approx((r.value, r.lo, r.hi))
    wide = level_cells(players, "x", dict.fromkeys(range(4), BAND), anytime=True)
    assert all(w.lo < c.lo and w.hi > c.hi for w, c in zip(wide, cells, strict=True))


def test_the_cells_from_a_runs_merged_moments_are_those_of_its_players_table():
    # advise judges its runs from the chunks' saved moments of the per-game values (seat<k>:
    # the seat's win share; no table read): merged in chunks of uneven size, the cells
    # agree with the table's to rounding, ties included
    rng = np.random.default_rng(5)
    shares = np.eye(4)[rng.choice(4, size=2500, p=[0.28, 0.24, 0.25, 0.23])]
    shares[::97] = 0.25  # four-way ties: values that are not 0 or 1
    players = _players(shares)
    values = pd.DataFrame({f"seat{k}": shares[:, k] for k in range(4)}).assign(fpa=shares[:, 0])
    parts = [Moments.of(values.iloc[a:b]) for a, b in ((0, 700), (700, 1500), (1500, 2500))]
    bands = dict.fromkeys(range(4), BAND)
    for anytime in (False, True):
        want = level_cells(players, "x", bands, anytime=anytime)
        got = level_cells(Moments.combine(parts), "x", bands, anytime=anytime)
        for g, w in zip(got, want, strict=True):
            assert (g.seat, g.n, g.band) == (w.seat, w.n, w.band)
            assert (g.estimate, g.lo, g.hi) == pytest.approx((w.estimate, w.lo, w.hi), abs=1e-12)


def _data(cells: list[Cell]) -> dict:
    game = WholeGame.of(cells)
    js = [c.to_json() for c in cells]
    return {"status": game.status, "cells": js, "bands": {"seat_edge.seat0": list(BAND)},
            "counts": {"inside": game.inside, "outside": game.outside,
                       "unclear": game.unclear, "cells": len(cells)},
            "problems": [c for c in js if c["verdict"] == "missed"
                         or (c["verdict"] == "unclear" and Cell.from_json(c).excess > 0)],
            "why": {"greedy": {"split": []}}, "fixes": []}  # fmt: skip


@pytest.mark.parametrize(
    ("cells", "word"),
    [([cell(0, 0.01), cell(0.01, 0.01, seat=1)], "Fair"),
     ([cell(0.03, 0.01), cell(0.0, 0.01, seat=1)], "Unclear"),
     ([cell(0.02, 0.01), cell(0.0, 0.01, seat=1)], "Unclear"),
     ([cell(0.04, 0.01), cell(0.03, 0.01, seat=1)], "Not fair")],
)  # fmt: skip
def test_the_lead_word_follows_the_cells(cells, word):
    """'Not fair' only with a ✗; with ?s and no ✗ 'Unclear' and their count; 'Fair' all ✓."""
    data = _data(cells)
    first = status_sentence(data)
    assert first.split(":")[0].startswith(word)
    if word == "Unclear":
        assert f"{data['counts']['unclear']} of 2 seat-levels straddle it" in first
        assert "Not fair" not in advice_summary(data)


def test_one_vocabulary_defined_once_and_kept_in_the_docs():
    from pathlib import Path

    from sim.analysis.findings import call_of, pair_text
    from sim.analysis.glossary import GLOSSARY, glossary_markdown

    root = Path(__file__).resolve().parents[2]
    assert (root / "docs" / "glossary.md").read_text(encoding="utf-8") == glossary_markdown()
    words = {
        call_of(True, 0.1, 0.2),
        call_of(False, -0.1, 0.2),
        call_of(False, 0.1, 0.2),
        call_of(False, 0.1, 0.2, implied=True),
        call_of(False, -0.1, 0.1, implied=True),
    }
    assert words == {"real", "within noise", "within noise after the correction"}
    assert words | {"fair", "not fair", "unclear", "confirmed", "offered"} <= set(GLOSSARY)
    templates = root / "sim" / "report" / "templates"
    for page in templates.glob("*.html.j2"):
        if '<details class="tests">' in page.read_text(encoding="utf-8"):
            assert '{% include "_glossary.html.j2" %}' in page.read_text(encoding="utf-8"), page
    # two values that differ never read the same: 11.6 → 11.6 gets its digits
    assert pair_text("final_phase", 11.6163, 11.61) == ("11.62", "11.61")
    assert pair_text("turns", 57.0, 57.0) == ("57", "57")
