"""Policies see only what a real player sees: the view, and choices blind to hidden cards."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.config import GameConfig
from sim.engine.game import Game, PlayerView
from sim.engine.state import SC_DECK_LEN, SC_DECK_POS, StateView, make_engine
from sim.policies.compiled import POLICY_GREEDY, POLICY_RANDOM, choose, work_size


def _mid_game(engine, seed, steps):
    game = Game(engine, seed, 0)
    work = np.zeros(work_size(engine.pr.players, engine.pr.ntoys), np.int64)
    streams = [game.seat_stream(p) for p in range(engine.pr.players)]
    for _ in range(steps):
        if game.over:
            break
        game.apply(choose(POLICY_GREEDY, game.s, game.pr, streams[game.seat], game.buf, work))
    return game, work


def test_view_holds_no_deck_order_and_no_other_hands():
    engine = make_engine(GameConfig())
    game, _ = _mid_game(engine, 11, 25)
    view = game.view(game.seat)
    fields = {f.name for f in dataclasses.fields(PlayerView)}
    assert "deck" not in fields and "hands" not in fields
    assert view.hand == tuple(game.hand(game.seat))
    assert view.deck_size == len(game.deck)
    assert sum(view.hand_sizes) == sum(len(game.hand(p)) for p in range(4))
    # nothing in the view names the order of the deck
    assert all(not isinstance(getattr(view, f), list) for f in fields)


def _shuffle_hidden(game, rng):
    """Re-deal the deck and the other seats' hands at random, keeping every public count."""
    v = StateView(game.s, game.pr)
    me = game.seat
    pos, end = game.s[SC_DECK_POS], game.s[SC_DECK_LEN]
    pool = list(v.deck[pos:end])
    sizes = []
    for p in range(game.pr.players):
        if p == me:
            continue
        for t, n in enumerate(v.hands[p]):
            pool += [t] * int(n)
        sizes.append((p, int(v.hands[p].sum())))
        v.hands[p] = 0
    rng.shuffle(pool)
    for p, n in sizes:
        for t in pool[:n]:
            v.hands[p, t] += 1
        pool = pool[n:]
    v.deck[pos:end] = pool


@pytest.mark.parametrize("code", [POLICY_RANDOM, POLICY_GREEDY])
@pytest.mark.parametrize("steps", [3, 17, 40, 60])
def test_choice_unchanged_when_hidden_cards_are_reshuffled(code, steps):
    engine = make_engine(GameConfig())
    rng = np.random.default_rng(steps)
    game, work = _mid_game(engine, 5 + steps, steps)
    assert not game.over, "pick a step inside the game"
    stream = game.seat_stream(game.seat)
    before_view = game.view(game.seat)
    first = choose(code, game.s, game.pr, stream.copy(), game.buf, work)
    for _ in range(5):
        _shuffle_hidden(game, rng)
        assert game.view(game.seat) == before_view
        again = choose(code, game.s, game.pr, stream.copy(), game.buf, work)
        assert again == first
