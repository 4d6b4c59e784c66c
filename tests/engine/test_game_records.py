"""A game's log records: built from any event on (`Game.event_records`, a replay's step at a
time) they are the whole log's (`Game.events`), and a params record's kept buffer is its own."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

from sim.config import load_study
from sim.engine.game import Game
from sim.engine.scoring import final_scores
from sim.engine.state import SC_NEVENTS, Params, as_record
from sim.engine.turns import apply_action
from sim.runs.lineup import engine_for

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


def test_records_from_any_event_on_are_the_whole_logs():
    engine = engine_for(load_study(BASE).game)
    game = Game(engine, 7, 3, log=True)
    rng = np.random.default_rng(0)
    done, pieces = 0, []
    while not game.over:
        apply_action(game.s, game.pr, np.int32(rng.choice(game.legal())))
        pieces += game.event_records(done)
        done = int(game.s[SC_NEVENTS])
    whole = game.events()
    assert whole[0]["event"] == "setup" and whole[-1]["event"] == "end"
    assert pieces == whole[1:-1] == game.event_records()
    assert game.event_records(done) == []


def test_a_params_records_kept_buffer_is_its_own_and_survives_a_pickle():
    pr = Game(engine_for(load_study(BASE).game), 7, 3).pr
    own = np.record.__getattribute__(pr, "data")
    assert pr.data.tobytes() == own.tobytes()
    again = pickle.loads(pickle.dumps(pr))
    assert again.data.tobytes() == own.tobytes() and again.width == pr.width
    s = Game(engine_for(load_study(BASE).game), 7, 3).s
    plain = as_record(Params(*(int(v) for v in pr.item())))
    assert list(final_scores(s, again)) == list(final_scores(s, plain))
