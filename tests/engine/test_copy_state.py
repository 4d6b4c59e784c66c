"""A search's private copy of the state (`sim.engine.table.copy_state`) copies only what a game
reads: the head, the per-box rows that hold a card, the lists up to their counts and the
lookup table. A game continued from such a copy into a buffer of garbage plays exactly as one
continued from a full copy, and the copy names every part of the layout past the head. The
lookup table is never written in a game, so a search copies it once per decision and then
only the rest (`copy_live`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.config import load_study
from sim.engine.game import Game
from sim.engine.legal import legal_actions
from sim.engine.scoring import final_scores
from sim.engine.state import DEC_OVER, LAYOUT, SC_DECISION, SC_LOG
from sim.engine.table import copy_live, copy_state
from sim.engine.turns import apply_action
from sim.runs.lineup import engine_for

ROOT = Path(__file__).resolve().parents[2]
# The parts past the head, in layout order, that copy_state knows: a new part fails this
# until copy_state copies it (or is shown to need not).
KNOWN = (
    *("o_parent", "o_open", "o_size", "o_spray", "o_toys", "o_awake", "o_sleep"),  # per box
    *("o_front", "o_placed", "o_ppos", "o_cat_cell", "o_cat_owner", "o_princess", "o_items"),
    "o_tab",
)


def test_the_copy_knows_every_part_past_the_head():
    names = [part.offset for part in LAYOUT]
    assert tuple(names[names.index("o_scratch") + 1 :]) == KNOWN


def _goes_on_alike(full, part, pr, rng, buf, other):
    """Play full and part on with the same random choices; both must play the same game."""
    full[SC_LOG] = part[SC_LOG] = 0
    while full[SC_DECISION] != DEC_OVER:
        n = legal_actions(full, pr, buf)
        assert legal_actions(part, pr, other) == n
        assert np.array_equal(buf[:n], other[:n])
        a = buf[rng.integers(n)]
        apply_action(full, pr, a)
        apply_action(part, pr, a)
    assert part[SC_DECISION] == DEC_OVER
    assert np.array_equal(final_scores(full, pr), final_scores(part, pr))


def test_the_lookup_table_is_never_written_in_a_game():
    engine = engine_for(load_study(ROOT / "configs" / "base.yaml").game)
    pr = engine.pr
    rng = np.random.default_rng(3)
    for seed in range(3):
        game = Game(engine, seed)
        table = game.s[pr.o_tab : pr.state_size].copy()
        assert table.any()
        while not game.over:
            game.apply(int(rng.choice(game.legal())))
        assert np.array_equal(game.s[pr.o_tab : pr.state_size], table)


def test_a_live_copy_over_an_earlier_copy_goes_on_as_a_full_copy():
    """copy_live over a buffer that holds a copy_state of an earlier state of the game (or
    the same state), played on since by other choices (a search's playout, whose table
    spreads further than the game's): the head equals the game's but for the telemetry
    counters, and the game goes on alike."""
    engine = engine_for(load_study(ROOT / "configs" / "base.yaml").game)
    pr = engine.pr
    rng = np.random.default_rng(11)
    buf, other = np.zeros(pr.max_actions, np.int32), np.zeros(pr.max_actions, np.int32)
    head = np.r_[0 : pr.o_stats, pr.o_seam_bits : pr.o_scratch]  # all but the counters
    checked = 0
    for seed in range(4):
        game = Game(engine, seed)
        part = rng.integers(-3, 600, len(game.s)).astype(np.int32)  # stale values
        step = 0
        while not game.over:
            if step % 7 == 3:
                if step % 14 == 3:  # a new decision: the one full copy
                    copy_state(part, game.s, pr)
                part[SC_LOG] = 0
                for _ in range(int(rng.integers(0, 40))):  # a playout of other choices
                    if part[SC_DECISION] == DEC_OVER:
                        break
                    n = legal_actions(part, pr, buf)
                    apply_action(part, pr, buf[rng.integers(n)])
                copy_live(part, game.s, pr)
                assert np.array_equal(part[head], game.s[head])
                _goes_on_alike(game.s.copy(), part, pr, rng, buf, other)  # part played on
                checked += 1
            game.apply(int(rng.choice(game.legal())))
            step += 1
    assert checked >= 12


def test_a_game_goes_on_from_a_copy_into_garbage_as_from_a_full_copy():
    engine = engine_for(load_study(ROOT / "configs" / "base.yaml").game)
    pr = engine.pr
    rng = np.random.default_rng(7)
    buf, other = np.zeros(pr.max_actions, np.int32), np.zeros(pr.max_actions, np.int32)
    checked = 0
    for seed in range(3):
        game = Game(engine, seed)
        step = 0
        while not game.over:
            if step % 9 == 4:  # go on from here both ways, with the same random choices
                full = game.s.copy()
                part = rng.integers(-3, 600, len(game.s)).astype(np.int32)  # stale values
                copy_state(part, game.s, pr)
                _goes_on_alike(full, part, pr, rng, buf, other)
                checked += 1
            game.apply(int(rng.choice(game.legal())))
            step += 1
    assert checked >= 10
