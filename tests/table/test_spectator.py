"""Chances move by move (`sim.table.spectator`): a spectator's re-deal keeps every public
fact and re-deals every hand, the chances of each turn's start are reproducible win shares,
the end is the outcome, and the replay page carries them only where playing on is quick."""

from __future__ import annotations

import numpy as np

from sim.engine.state import SC_DECK_LEN, SC_DECK_POS, StateView
from sim.policies.lookahead import unseen_counts
from sim.table.replay import from_run, page_data
from sim.table.spectator import CONTINUATIONS, move_chances, spectator_redeal, turn_starts
from sim.table.whatif import position_at, win_shares


def _hidden(game) -> np.ndarray:
    """Per card type, the copies in the hands and the undrawn deck."""
    pr, view = game.pr, StateView(game.s, game.pr)
    hands = game.s[pr.o_hands : pr.o_hands + pr.players * pr.ntypes].reshape(pr.players, -1)
    deck = view.deck[game.s[SC_DECK_POS] : game.s[SC_DECK_LEN]]
    return hands.sum(axis=0) + np.bincount(deck, minlength=pr.ntypes), hands.sum(axis=1)


def test_a_spectators_redeal_keeps_the_public_facts_and_redeals_every_hand(small_run):
    replay = from_run(small_run.run_dir, 11)
    game = position_at(replay.study, replay.seed, 11, replay.actions, 30)
    pr = game.pr
    table = game.position()
    cards, sizes = _hidden(game)
    counts = np.zeros(pr.ntypes, np.int64)
    pool = np.zeros(pr.ntypes + pr.ndeck, np.int64)
    unseen = np.zeros(pr.ntypes, np.int64)
    unseen_counts(game.s, pr, 0, unseen)
    seat0 = game.s[pr.o_hands : pr.o_hands + pr.ntypes].copy()
    assert np.array_equal(unseen + seat0, cards)  # seat 0 has seen its hand
    unseen_counts(game.s, pr, -1, unseen)
    assert np.array_equal(unseen, cards)  # a spectator (-1) has seen no hand: hands and deck
    changed = set()
    span = slice(pr.o_hands, pr.o_hands + pr.players * pr.ntypes)
    for word in range(1, 30):
        before = game.s[span].reshape(pr.players, -1).copy()
        spectator_redeal(game, word, counts, pool)
        after_cards, after_sizes = _hidden(game)
        assert np.array_equal(after_cards, cards) and np.array_equal(after_sizes, sizes)
        assert game.position() == table  # the table, the items and every count untouched
        hands = game.s[span].reshape(pr.players, -1)
        changed |= {p for p in range(pr.players) if (hands[p] != before[p]).any()}
    assert changed == set(range(pr.players))  # no seat keeps its hand, seat 0's included


def test_each_turns_chances_are_reproducible_win_shares_and_end_in_the_outcome(small_run):
    replay = from_run(small_run.run_dir, 5)
    data = page_data(replay, {})
    moves = data["moves"]
    turns = [s["turns"] for s in data["steps"]]
    assert moves["at"] == turn_starts(turns) and moves["n"] == CONTINUATIONS
    assert moves["at"][0] == 0 and len(moves["at"]) == len(set(turns))
    p = np.array(moves["p"])
    assert np.allclose(p.sum(axis=1), 1, atol=1e-3) and (p >= 0).all()
    last = data["steps"][-1]["t"]["scores"]
    assert moves["at"][-1] == len(replay.actions)  # the end is a step of its own
    assert np.allclose(p[-1], win_shares(list(last)))
    again = move_chances(replay.study, replay.seed, 5, replay.actions, moves["at"][:4])
    assert np.allclose(again, p[:4], atol=1e-4)  # the same continuations (rounded on the page)


def test_search_players_get_no_move_by_move_curve(small_run):
    replay = from_run(small_run.run_dir, 5)
    seats = [s.model_copy(update={"policy": "lookahead"}) for s in replay.study.seats]
    replay.study = replay.study.with_overrides(seats=[s.to_dict() for s in seats])
    from sim.table.spectator import page_moves

    assert page_moves(replay, [{"turns": 0}]) is None
