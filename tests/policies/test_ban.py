"""Restricted play: a seat with banned options never uses one while another move is legal.

Every built-in policy is driven decision by decision (as `sim play` drives it) with
seat 0 banned from some options; at each of its decisions the chosen action is
checked against the legal list. The compiled loop must play the same games.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.config import parse_study
from sim.engine.game import Game
from sim.engine.state import PS_CATS
from sim.policies.compiled import action_banned
from sim.policies.dispatch import PolicyScratch
from sim.runs.lineup import engine_for
from sim.runs.play import Seat, play_arrays, play_one

POLICIES = [
    {"policy": "random"},
    {"policy": "greedy"},
    {"policy": "heuristic", "preset": "sleeper"},
    {"policy": "lookahead", "candidates": 2, "rollouts": 2, "horizon": 3},
    {"policy": "ismcts", "budget": 6, "candidates": 3, "horizon": 3},
]
BANS = [["princess"], ["box:N", "box:E", "box:NE"], ["sleeping"], ["cat"]]


def _study(seat0: dict, ban: list[str], players: int = 3):
    seats = [{**seat0, "ban": ban}] + [{"policy": "greedy"}] * (players - 1)
    return parse_study({"players": players, "seats": seats, "seed": 7}, "<test>")


def _drive(study, index: int) -> tuple[int, int, int]:
    """Play a game step by step; return (seat 0's decisions, fallbacks, banned uses)."""
    game = Game(engine_for(study.game), study.seed, index)
    seats = [Seat(study.seats[slot], game, p) for p, slot in enumerate([0, 1, 2])]
    scratch = PolicyScratch.for_params(game.pr)
    decisions = fallbacks = banned_uses = 0
    ban = seats[0].ban
    while not game.over:
        p = game.seat
        legal = [int(a) for a in game.legal()]
        a = seats[p].choose(game, scratch)
        if p == 0:
            decisions += 1
            banned = [bool(action_banned(x, ban)) for x in legal]
            if action_banned(a, ban):
                banned_uses += 1
                assert all(banned), "a banned option was used while another move was legal"
                fallbacks += 1
        game.apply(a)
    return decisions, fallbacks, banned_uses


@pytest.mark.parametrize("seat0", POLICIES, ids=lambda s: s["policy"])
@pytest.mark.parametrize("ban", BANS, ids=lambda b: "+".join(b))
def test_restricted_seat_keeps_to_its_ban(seat0, ban):
    study = _study(seat0, ban)
    games = 2 if seat0["policy"] in ("lookahead", "ismcts") else 6
    total = [0, 0]
    for i in range(games):
        decisions, fallbacks, _ = _drive(study, i)
        total[0] += decisions
        total[1] += fallbacks
    assert total[0] > 0
    if ban in (["sleeping"], ["cat"]):  # the box action and "no cat" are always legal
        assert total[1] == 0


def test_unrestricted_seat_would_use_the_options():
    """The check above can fail: without the ban, greedy does place cats and box cards."""
    study = _study({"policy": "greedy"}, [])
    cats = sum(play_one(study, study.seed, i).view_.seat_stats[0, PS_CATS] for i in range(3))
    assert cats > 0


@pytest.mark.parametrize("seat0", POLICIES[:3], ids=lambda s: s["policy"])
def test_compiled_loop_plays_the_same_restricted_games(seat0):
    study = _study(seat0, ["cat", "box:N"])
    chunk = play_arrays(study, 0, 4)
    for i in range(4):
        game = play_one(study, study.seed, i)
        assert list(game.outcome().scores) == list(chunk.seats[i, :, 0])


def test_ban_changes_the_games():
    """Banning cats changes what greedy does (so the identity checks below are not vacuous)."""
    base = _study({"policy": "greedy"}, [])
    banned = _study({"policy": "greedy"}, ["cat"])
    a, b = play_arrays(base, 0, 20), play_arrays(banned, 0, 20)
    assert not np.array_equal(a.seats, b.seats)
