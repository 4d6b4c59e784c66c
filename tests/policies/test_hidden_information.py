"""Policies see only what a real player sees: the view, and choices blind to hidden cards."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from table_helpers import perturb_hidden

from sim.config import GameConfig
from sim.engine.game import Game, PlayerView
from sim.engine.state import SC_DECK_LEN, SC_DECK_POS, StateView
from sim.policies.dispatch import POLICY_GREEDY, PolicyScratch
from sim.policies.lookahead import unseen_counts
from sim.runs.lineup import engine_for
from sim.specs import policy_code, seat_params

POLICIES = {
    "random": {},
    "greedy": {},
    "heuristic": {"preset": "spoiler", "temperature": 0.5},
    "lookahead": {"candidates": 3, "rollouts": 3},
    "ismcts": {"budget": 12, "candidates": 3},
}


def _mid_game(engine, seed, steps):
    game = Game(engine, seed, 0)
    scratch = PolicyScratch.for_params(engine.pr)
    streams = [game.seat_stream(p) for p in range(engine.pr.players)]
    for _ in range(steps):
        if game.over:
            break
        game.apply(scratch.choose(POLICY_GREEDY, game.s, game.pr, streams[game.seat], game.buf))
    return game, scratch


def test_view_holds_no_deck_order_and_no_other_hands():
    engine = engine_for(GameConfig())
    game, _ = _mid_game(engine, 11, 25)
    view = game.view(game.seat)
    fields = {f.name for f in dataclasses.fields(PlayerView)}
    assert "deck" not in fields and "hands" not in fields
    assert view.hand == tuple(game.hand(game.seat))
    assert view.deck_size == len(game.deck)
    assert sum(view.hand_sizes) == sum(len(game.hand(p)) for p in range(4))
    # nothing in the view names the order of the deck
    assert all(not isinstance(getattr(view, f), list) for f in fields)


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("steps", [3, 17, 40, 60])
def test_choice_unchanged_when_hidden_cards_are_reshuffled(policy, steps):
    engine = engine_for(GameConfig())
    rng = np.random.default_rng(steps)
    game, scratch = _mid_game(engine, 5 + steps, steps)
    assert not game.over, "pick a step inside the game"
    code, params = policy_code(policy), seat_params(policy, POLICIES[policy])
    stream = game.seat_stream(game.seat)
    before_view = game.view(game.seat)
    first = scratch.choose(code, game.s, game.pr, stream.copy(), game.buf, params)
    for _ in range(4):
        perturb_hidden(game, game.seat, rng)  # the deck, the other hands, their draws
        assert game.view(game.seat) == before_view
        again = scratch.choose(code, game.s, game.pr, stream.copy(), game.buf, params)
        assert again == first


def test_unseen_cards_are_exactly_the_hidden_ones():
    """Lookahead's determinization pool, from public counts, equals deck + other hands,
    at every decision of whole games (item decisions included)."""
    for players in (2, 4):
        engine = engine_for(GameConfig(players=players))
        game = Game(engine, 40 + players, 0)
        scratch = PolicyScratch.for_params(engine.pr)
        streams = [game.seat_stream(p) for p in range(players)]
        decisions = set()
        while not game.over:
            decisions.add(game.decision)
            _assert_unseen_is_hidden(game, engine)
            game.apply(scratch.choose(POLICY_GREEDY, game.s, game.pr, streams[game.seat], game.buf))
        assert {"item", "play", "cat"} <= decisions


def _assert_unseen_is_hidden(game, engine):
    me = game.seat
    counts = np.zeros(engine.pr.ntypes, np.int64)
    unseen_counts(game.s, game.pr, me, counts)
    v = StateView(game.s, game.pr)
    hidden = np.zeros(engine.pr.ntypes, np.int64)
    for t in v.deck[game.s[SC_DECK_POS] : game.s[SC_DECK_LEN]]:
        hidden[t] += 1
    for p in range(engine.pr.players):
        if p != me:
            hidden += v.hands[p]
    assert counts.tolist() == hidden.tolist()
