"""The web table's session: what a seat is sent, what a person may do, what is logged."""

from __future__ import annotations

import json

import numpy as np
import pytest
from table_helpers import BASE, perturb_hidden, two_player_study

from sim.config import load_study
from sim.engine.reference import is_open_seam
from sim.table.logfile import check_log
from sim.table.session import Refused, TableSession
from sim.table.views import is_item


def _session(tmp_path, study=None, humans=(0,), seed=7) -> TableSession:
    return TableSession(study or two_player_study(), set(humans), seed, 0, tmp_path, 0.0)


def _play_person(session: TableSession, rng: np.random.Generator, check=None) -> None:
    """Play the game to its end: people pick uniformly among their legal actions, bots play."""
    while not session.recorded.game.over:
        game = session.recorded.game
        if game.seat in session.humans:
            if check is not None:
                check(session)
            legal = [a["code"] for a in session.state(game.seat)["legal"]]
            session.act(game.seat, int(rng.choice(legal)))
        else:
            assert session.bot_step() >= 1


def _same_after_perturbing(session: TableSession, viewer, rng) -> None:
    """The JSON for `viewer` is the same when everything it may not know is changed."""
    game = session.recorded.game
    before = json.dumps(session.state(viewer), sort_keys=True)
    saved = game.s.copy()
    try:
        for _ in range(3):
            perturb_hidden(game, viewer, rng)
            assert json.dumps(session.state(viewer), sort_keys=True) == before
    finally:
        game.s[:] = saved


def test_a_seat_is_sent_its_own_view_only(tmp_path):
    """At every decision of the person's, the JSON for that seat (and the JSON for nobody)
    does not change when the other hands, the deck and the cards others drew are changed:
    it is built from what the seat may know."""
    session = _session(tmp_path)
    rng = np.random.default_rng(1)

    def check(s):
        _same_after_perturbing(s, 0, rng)
        _same_after_perturbing(s, None, rng)

    _play_person(session, rng, check)
    assert session.recorded.step > 20


def test_a_bots_hand_is_never_sent(tmp_path):
    session = _session(tmp_path)
    with pytest.raises(Refused, match="seat 1 is a bot's: its hand is never sent"):
        session.state(1)
    assert "hand" not in session.state_after(1) and "hand" in session.state_after(0)


def test_no_other_hand_and_no_card_another_seat_drew_is_in_any_json(tmp_path):
    """Plain inspection of every state sent: a hand only as the seat's own, the others as
    counts, the deck as a size, and another seat's drawn card only as 'drew a card'."""
    session = _session(tmp_path, load_study(BASE), humans=(1,))
    rng = np.random.default_rng(2)
    sent = []
    while not session.recorded.game.over:
        game = session.recorded.game
        sent += [session.state(1), session.state(None)]
        if game.seat == 1:
            session.act(1, int(rng.choice([a["code"] for a in sent[-2]["legal"]])))
        else:
            session.bot_step()
    sent += [session.state(1), session.state(None)]
    for state in sent:
        text = json.dumps(state)
        assert '"hands"' not in text and '"deck_order"' not in text
        assert state.get("seat", 1) == 1
        assert isinstance(state["deck"], int)
        assert all(isinstance(n, int) for n in state["hand_sizes"])
        for line in state["feed"]:
            if " drew " in line and not line.startswith("you"):
                card = line.split(" drew ", 1)[1]
                assert card == "a card" or is_item(card), line
        if "hand" not in state:
            assert not any(line.startswith("you") for line in state["feed"])


def test_the_log_replays_to_the_scores_the_page_was_shown(tmp_path):
    session = _session(tmp_path, seed=3)
    _play_person(session, np.random.default_rng(3))
    final = session.state(0)["final"]
    assert final["scores"] == list(session.recorded.game.outcome().scores)
    assert sum(final["box_points"]) + sum(final["cat_bonus"]) == sum(final["scores"])
    checked = check_log(session.log_path)
    assert list(checked.recorded.game.outcome().scores) == final["scores"]
    assert all(d.ms is not None for d in checked.recorded.decisions if d.seat == 0)


def _snapshot(session: TableSession) -> tuple[str, bytes]:
    return json.dumps(session.state(0), sort_keys=True), session.log_path.read_bytes()


@pytest.mark.parametrize(
    ("seat", "code", "request_", "says"),
    [
        (0, 99_999_999, None, "action code 99999999 is not one of the 2 legal actions"),
        (0, "box", None, "not an action code"),
        (0, True, None, "not an action code"),
        (1, 0, None, "it is seat 0's turn to decide, not seat 1's"),
        (5, 0, None, "seat must be a seat number from 0 to 1"),
        (0, None, "place", "send a legal action's code or a click"),
        (0, None, {"kind": "place", "card": "box:N", "at": [0, 3]}, "this is a choose decision"),
    ],
)
def test_an_illegal_action_is_refused_in_one_line_and_changes_nothing(
    tmp_path, seat, code, request_, says
):
    session = _session(tmp_path)
    before = _snapshot(session)
    with pytest.raises(Refused) as caught:
        session.act(seat, code, request_)
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert _snapshot(session) == before


def _to_decision(session: TableSession, kind: str, rng) -> None:
    """Play (the person at random, the bots as they do) until the person faces `kind`."""
    for _ in range(2000):
        game = session.recorded.game
        if game.over:
            raise AssertionError(f"no {kind} decision came")
        if game.seat in session.humans:
            if game.decision == kind:
                return
            legal = session.state(game.seat)["legal"]
            pick = [a for a in legal if a["kind"] == "box"] or legal
            session.act(game.seat, int(rng.choice([a["code"] for a in pick])))
        else:
            session.bot_step()
    raise AssertionError("too long")


def _refusal(session: TableSession, request: dict) -> str:
    before = _snapshot(session)
    with pytest.raises(Refused) as caught:
        session.act(0, None, request)
    assert _snapshot(session) == before
    return str(caught.value)


def test_refused_clicks_say_which_rule(tmp_path):
    """Placing (R1.4), an item's seam (R5.1), a cat away from this turn's card (R4.2)."""
    session = _session(tmp_path, seed=12)
    rng = np.random.default_rng(12)
    _to_decision(session, "play", rng)
    hand = session.state(0)["hand"]
    card = next(c for c in hand if c.startswith("box:"))
    assert "touches no card" in _refusal(session, {"kind": "place", "card": card, "at": [5, 5]})
    assert "already holds a card" in _refusal(
        session, {"kind": "place", "card": card, "turned": False, "at": [0, 0]}
    )
    line = _refusal(session, {"kind": "place", "card": "box:XYZ", "at": [0, 1]})
    assert "not in your hand" in line
    _to_decision(session, "item", rng)
    assert "between two cards" in _refusal(session, {"kind": "item", "between": [[7, 7], [7, 8]]})
    _to_decision(session, "cat", rng)
    fresh = session.state(0)["fresh"]
    pos = session.recorded.game.view(0).table
    pairs = [
        (r, c)
        for r, c in sorted(pos.cards)
        if is_open_seam(pos, (r, c), (r + 1, c)) and fresh not in ([r, c], [r + 1, c])
    ]
    assert pairs, "pick a seed with an open long seam away from the fresh card"
    assert "(R4.2)" in _refusal(session, {"kind": "cat", "at": list(pairs[0])})
    walled = next(
        (r, c) for r, c in sorted(pos.cards)
        if (r + 1, c) in pos.cards and not is_open_seam(pos, (r, c), (r + 1, c))
    )  # fmt: skip
    assert "(R4.1)" in _refusal(session, {"kind": "cat", "at": list(walled)})


def test_a_new_game_abandons_the_old_one_in_its_log(tmp_path):
    session = _session(tmp_path)
    first = session.log_path
    session.act(0, session.state(0)["legal"][0]["code"])
    session.new_game()
    assert session.log_path != first and session.recorded.index == 1
    assert json.loads(first.read_text().splitlines()[-1])["event"] == "abandoned"
    checked = check_log(first)
    assert checked.abandoned and checked.recorded.step >= 1
    with pytest.raises(Refused):
        session.act(0, 12345)
    session.close()
    last = json.loads(session.log_path.read_text().splitlines()[-1])
    assert last["reason"] == "the server stopped"


def test_people_at_two_seats_share_the_screen(tmp_path):
    """Two people: the bots never play for them, the state for nobody has no hand, and
    each seat's state has only its own hand."""
    session = _session(tmp_path, humans=(0, 1))
    rng = np.random.default_rng(5)
    assert session.bot_step() == 0
    for _ in range(30):
        game = session.recorded.game
        public = session.state(None)
        assert "hand" not in public and "legal" not in public and public["mover_human"]
        mine = session.state(game.seat)
        assert mine["hand"] == session.recorded.game.hand(game.seat)
        with pytest.raises(Refused, match="shown only at its own turn"):
            session.state(1 - game.seat)  # the other person's hand, between its turns
        session.act(game.seat, int(rng.choice([a["code"] for a in mine["legal"]])))
