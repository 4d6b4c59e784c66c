"""The results schema's new parts: the score trace and the card and turn telemetry.

The trace must be what the slow reference scorer says of the table after every
round; the compiled loop must record the same trace as a game driven from
Python; the telemetry counters must agree with the events of a logged game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.config import load_study
from sim.engine.game import Game
from sim.engine.reference import score_position
from sim.engine.state import STAT_NAMES
from sim.runs import run_chunk
from sim.runs.lineup import engine_for
from sim.runs.play import play_arrays, play_one
from sim.runs.results import finish_rounds, max_rounds, record_rounds, trace_scratch

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


@pytest.fixture(scope="module")
def base():
    return load_study(BASE)


@pytest.fixture(scope="module")
def chunk(base):
    return run_chunk(base, 0, 300)


def _reference(game: Game) -> list[int]:
    return list(score_position(game.position())["scores"])


@pytest.mark.parametrize("index", [0, 1, 2])
def test_the_trace_is_the_reference_score_after_every_round(base, index):
    """A scripted game (seeded random choices): after each round, the recorded row equals
    the reference scorer's recount of the table; the last row is the final score."""
    engine = engine_for(base.game)
    game = Game(engine, seed=11, index=index)
    pr = engine.pr
    trace = np.zeros((max_rounds(pr), pr.players), np.int16)
    roots = trace_scratch(pr)
    rng = np.random.default_rng(index)
    done, expected = 0, []
    while not game.over:
        legal = game.legal()
        game.apply(int(legal[rng.integers(len(legal))]))
        before = done
        done = record_rounds(game.s, pr, trace, done, roots)
        if done > before:  # a round ended with this action: the table is the round's end
            assert done == before + 1 and game.turns == done * pr.players
            expected.append(_reference(game))
    rounds = finish_rounds(game.s, pr, trace, done, roots)
    if rounds > done:
        expected.append(_reference(game))
    assert rounds == -(-game.turns // pr.players) == len(expected)
    assert trace[:rounds].tolist() == expected
    assert expected[-1] == list(game.outcome().scores)


def test_the_compiled_loop_records_the_trace_of_the_python_driven_game(base):
    arrays = play_arrays(base, 5, 4)
    engine = engine_for(base.game)
    for i in range(4):
        trace = np.zeros((max_rounds(engine.pr), base.game.players), np.int16)
        game = play_one(base, base.seed, 5 + i, trace=trace)
        rounds = int(arrays.rounds[i])
        assert rounds == -(-game.turns // base.game.players)
        assert (arrays.trace[i, :rounds] == trace[:rounds]).all()
        assert (arrays.trace[i, rounds:] == 0).all()


def test_the_turns_table_ends_at_the_final_scores(chunk):
    games, players, turns = chunk["games"], chunk["players"], chunk["turns"]
    n = players["seat"].nunique()
    assert len(turns) == games["rounds"].sum() * n
    assert (games["rounds"] == -(-games["turns"] // n)).all()
    last = turns[turns["round"] == turns["game"].map(games.set_index("game")["rounds"])]
    final = last.set_index(["game", "seat"])["score"].sort_index()
    assert (final.to_numpy() == players.set_index(["game", "seat"])["score"].sort_index()).all()
    assert turns["score"].dtype == np.int16 and turns["round"].dtype == np.int16


def test_telemetry_counters_agree_with_each_other(chunk):
    games, players, cards = chunk["games"], chunk["players"], chunk["cards"]
    assert list(STAT_NAMES[-3:]) == ["into_nobody", "final_hand", "first_turn"]
    # a box nobody leads is one the drawer does not lead
    assert (cards["into_nobody"] <= cards["into_other"]).all()
    # a first play is recorded exactly when the seat played (items: placed) the card
    placed = cards["played"] + cards["into_led"] + cards["into_other"]
    assert ((cards["first_turn"] > 0) == (placed > 0)).all()
    turns = cards["game"].map(games.set_index("game")["turns"])
    assert (cards["first_turn"] <= turns).all()
    # every final-phase turn plays or discards one card from hand, until all are empty (R7.2)
    in_hand = cards.groupby("game")["final_hand"].sum().sort_index()
    g = games.set_index("game").sort_index()
    final_turns = (g["turns"] - g["trigger_turn"] - 1).where(g["trigger_seat"] >= 0, g["turns"])
    assert (in_hand.to_numpy() == final_turns.to_numpy()).all()
    # self-evictions are Princesses played on one's own cat
    assert (players["self_evictions"] <= players["princesses_played"]).all()
    assert players["self_evictions"].sum() <= players["cats_evicted"].sum()
    # the last turn's seat took as many turns as anyone
    most = players.groupby("game")["turns_taken"].max()
    taken = players.set_index(["game", "seat"])["turns_taken"]
    lasts = [taken[(g, s)] for g, s in zip(games["game"], games["last_seat"], strict=True)]
    assert (np.array(lasts) == most.loc[games["game"]].to_numpy()).all()


def test_last_seat_and_first_turns_match_a_logged_game(base):
    game = play_one(base, base.seed, 3, log=True)
    events = game.events()
    turn_seats = [e["seat"] for e in events if e["event"] == "turn" and e["action"] != "skip"]
    assert game.turns == len(turn_seats)
    arrays = play_arrays(base, 3, 1)
    from sim.runs.results import G_LAST_SEAT

    assert arrays.games[0, G_LAST_SEAT] == turn_seats[-1]
    # first_turn of seat 0's first placed box card is the number of its turn event
    turn_no, first = 0, {}
    for e in events:
        if e["event"] == "turn" and e["action"] != "skip":
            turn_no += 1
        elif e["event"] == "place":
            first.setdefault((e["seat"], e["card"]), turn_no)
    names = engine_for(base.game).types.names
    k = STAT_NAMES.index("first_turn")
    for (seat, card), turn in first.items():
        assert arrays.cards[0, seat, names.index(card), k] == turn
