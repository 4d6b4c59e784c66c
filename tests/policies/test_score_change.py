"""Greedy's and the heuristic's incremental score change equals a full rescoring (hypothesis).

Greedy and the heuristic never rescore the table: for each candidate action
they compute the per-seat change of the R8 score (box points R8.1-R8.4 plus
the cat bonus R8.5) from the few boxes the action touches, with a per-cell
cache shared by every card laid on the same cell (`sim.policies.compiled`).
These tests check that claim against `sim.engine.reference.score_position`,
the slow from-scratch scoring of `Game.position()`: at every decision of
every game, for every legal action `a`,

    incremental change of a == reference(after a) - reference(before a)

per seat, where "after a" is the state `apply_action` leaves. Per decision kind:

* play: laying a box card (R1.6 an open seam joins boxes, R1.7 boxes, R1.8 an
  open side facing a card is sealed, a closed box doubles, R8.4); a Princess
  (R6.1: the awake cat leaves, so its owner may lose the lead of the box, R8.2,
  and loses its cat bonus, R8.5); a discard (no change);
* cat: an awake cat (majority R8.2, cat bonus R8.5) or no cat (no change);
* item: a toy or sprayer on a seam (R5.1, value R8.3, doubled if closed R8.4);
* sleep: the sleeping-cat card laid with the seat's sleeping cat (R3.2);
* choose: the box action and the sleeping-cat choice change nothing yet; and
  every sleeping-cat placement greedy and the heuristic weigh here
  (`_choose_action_kind`, `choose_heuristic`: the card laid with the deciding
  seat's sleeping cat, R3.2) must equal the reference change of choosing the
  sleeping-cat action and then laying the card there; those placements must be
  exactly the legal actions of the sleep decision that follows.

Both paths are checked: flags=False (greedy) and flags=True (the heuristic,
which also fills its placement flags and skips greedy's early exit for cells
whose boxes are worth nothing). Each pass starts with `current_scores` (which
empties the per-cell cache) and evaluates the candidates in the engine's
enumeration order, as the policies do, in the work array the policies then
play with; a third pass evaluates them in a shuffled order with mixed flags,
so a cache entry must depend on its cell only.

Why the whole transition may be compared: after the action's own table effect,
`apply_action` only runs automatic steps (end of turn, the next seat's draws,
R3.1.1), and those never touch the table: a drawn item waits for its own item
decision (R5.1) or leaves the game (R5.3). `reference_change` asserts this for
every action (exactly one card, item, cat, sleeping cat or Princess more or
less, as the action's kind says, and nothing else), so the reference
difference is the action's own table effect and nothing more.

Scores move rarely in random play (a card changes a score only when it closes
or joins a box that has a leader and a value), so the games are driven by a
mix of greedy, heuristic presets, random play, a cat-happy player and a
"seeker" that mostly takes an action the reference says changes a score; the
hypothesis configs start from the base deck's shape (any kind may be zero).
The fixed base-config games assert that every kind of action did change a
score somewhere, so the comparison is not vacuous.

Not checked: the heuristic's placement flags (closes_own_box, feeds_rival_box)
and its other features; lookahead, which ranks with the same `score_change`.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from game_strategies import drawn_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.config import GameConfig, load_study
from sim.engine import reference
from sim.engine.actions import (
    A_CAT,
    A_ITEM,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    A_SLEEP_CHOICE,
    ACTION_NAMES,
    action,
    action_arg1,
    action_arg2,
    action_kind,
)
from sim.engine.game import Game
from sim.engine.legal import sleeping_placements
from sim.engine.position import Position
from sim.engine.state import DEC_CAT, DEC_CHOOSE, SC_DECISION
from sim.engine.table import turned
from sim.engine.turns import apply_action
from sim.policies.compiled import objectives
from sim.policies.dispatch import PolicyScratch
from sim.policies.score_delta import _place_delta, current_scores, score_change
from sim.policies.work import w_delta, w_values
from sim.runs.lineup import engine_for
from sim.specs import policy_code, seat_params

BASE = load_study(Path(__file__).resolve().parents[2] / "configs" / "base.yaml")

# ---------------------------------------------------------------- policy internals
# Every access to the policies' work array layout and incremental scoring is in
# these few helpers, so a renaming of offsets or functions touches only them.


def policy_work_array(game: Game) -> tuple[PolicyScratch, np.ndarray]:
    """The policies' scratch for this game, and the work array greedy and the heuristic use."""
    scratch = PolicyScratch.for_params(game.pr)
    return scratch, scratch.w


def start_decision(game: Game, w: np.ndarray) -> None:
    """What greedy and the heuristic do first at a decision: current scores, empty cell cache."""
    current_scores(game.s, game.pr, w)


def _delta_in(game: Game, w: np.ndarray) -> list[int]:
    """The per-seat score change the last evaluation left in the work array."""
    at = w_delta(game.pr)
    return [int(v) for v in w[at : at + game.pr.players]]


def delta_of(game: Game, w: np.ndarray, a: int, flags: bool) -> list[int]:
    """score_change for legal action a by the deciding seat (flags: the heuristic's path)."""
    score_change(game.s, game.pr, np.int32(a), game.seat, w, flags)
    return _delta_in(game, w)


def objectives_of(game: Game, w: np.ndarray, actions: list[int]) -> list[int]:
    """`objectives` of the actions in this order (greedy's, the look-ahead's, ismcts's ranking):
    own score minus the best opponent's after each, with its cell cache and memo."""
    buf = np.array(actions, np.int32)
    current_scores(game.s, game.pr, w)
    objectives(game.s, game.pr, buf, np.int64(0), np.int64(len(actions)), np.int64(game.seat), w)
    at = w_values(game.pr)
    return [int(v) for v in w[at : at + len(actions)]]


def reference_objective(old: list[int], change: list[int], me: int) -> int:
    """Own score minus the best opponent's, from the reference scores and change."""
    after = [o + c for o, c in zip(old, change, strict=True)]
    return after[me] - max(v for q, v in enumerate(after) if q != me)


def sleeping_candidates(game: Game) -> list[int]:
    """The sleeping-cat placements greedy and the heuristic weigh at a choose decision."""
    buf = np.empty(game.pr.max_actions, np.int32)
    n = sleeping_placements(game.s, game.pr, buf, 2)  # after the two choices, as they do
    return [int(a) for a in buf[2:n]]


def sleeping_delta(game: Game, w: np.ndarray, a: int, flags: bool) -> list[int]:
    """The change _choose_action_kind / choose_heuristic credit to sleeping placement a."""
    me = game.seat
    mask = game.pr.sleep_walls
    if action_arg1(a):
        mask = turned(mask)
    _place_delta(game.s, game.pr, action_arg2(a), mask, me, me, w, flags)
    return _delta_in(game, w)


# ---------------------------------------------------------------- the reference side


def reference_scores(pos: Position) -> list[int]:
    """Per-seat totals, box points plus cat bonus, by the slow scorer (R8)."""
    return reference.score_position(pos)["scores"]


def table_change(before: Position, after: Position) -> Counter:
    """What came onto (+) or left (-) the table, per kind of thing."""
    change: Counter = Counter()
    for name, old, new in (
        ("card", set(before.cards.items()), set(after.cards.items())),
        ("sleeping", set(before.sleeping.items()), set(after.sleeping.items())),
        ("cat", set(before.cats), set(after.cats)),
        ("princess", set(before.princesses), set(after.princesses)),
        ("item", set(before.items), set(after.items)),
    ):
        if new - old:
            change[f"+{name}"] = len(new - old)
        if old - new:
            change[f"-{name}"] = len(old - new)
    return change


# The table effect of each action kind (R3.2, R4, R5.1, R6.1); every other action leaves it.
TABLE_EFFECT = {
    A_PLACE: Counter({"+card": 1}),
    A_SLEEP: Counter({"+card": 1, "+sleeping": 1}),
    A_CAT: Counter({"+cat": 1}),
    A_ITEM: Counter({"+item": 1}),
    A_PRINCESS: Counter({"-cat": 1, "+princess": 1}),
}


def reference_change(
    game: Game, before: Position, old: list[int], actions: list[int]
) -> tuple[list[int], int]:
    """Reference scores after `actions` minus `old` (the scores of `before`), per seat, and
    the decision that follows; the game's state is restored.

    The whole transition is compared: it must change the table exactly as the
    last action's kind says (automatic steps after it never touch the table).
    """
    saved = game.s.copy()
    try:
        for a in actions:
            apply_action(game.s, game.pr, np.int32(a))
        after = game.position()
        then = int(game.s[SC_DECISION])
    finally:
        game.s[:] = saved
    kind = action_kind(actions[-1])
    assert table_change(before, after) == TABLE_EFFECT.get(kind, Counter()), (
        f"{game.describe(actions[-1])} changed the table by {dict(table_change(before, after))}"
    )
    return [n - o for o, n in zip(old, reference_scores(after), strict=True)], then


# ---------------------------------------------------------------- the check


def _where(game: Game, a: int, flags: bool, order: str) -> str:
    return (
        f"seed {game.seed} game {game.index}, turn {game.turns}, {game.decision} decision of "
        f"seat {game.seat}, {game.describe(a)} (flags={flags}, {order} order)"
    )


def _tally(tally: Counter, name: str, change: list[int]) -> None:
    """Count a checked action by kind, and separately those whose change is not zero."""
    tally[name] += 1
    if any(change):
        tally[name + " moved"] += 1


def check_decision(game: Game, w: np.ndarray, rng: random.Random) -> tuple[Counter, dict]:
    """Every legal action's incremental change equals the reference change.

    Returns a tally of the checked actions, and per legal action its reference
    change and the decision that follows it (for the seeking driver).
    """
    tally: Counter = Counter()
    before = game.position()
    old = reference_scores(before)
    actions = [int(a) for a in game.legal()]
    outcomes = {a: reference_change(game, before, old, [a]) for a in actions}
    expected = {a: change for a, (change, _) in outcomes.items()}
    for flags in (False, True):
        start_decision(game, w)
        for a in actions:  # enumeration order: the cache is filled and reused as in play
            got = delta_of(game, w, a, flags)
            assert got == expected[a], f"{_where(game, a, flags, 'legal')}: {got} != {expected[a]}"
    shuffled = actions[:]
    rng.shuffle(shuffled)
    start_decision(game, w)
    for a in shuffled:  # any order: a cache entry depends on its cell only
        flags = rng.random() < 0.5
        got = delta_of(game, w, a, flags)
        assert got == expected[a], f"{_where(game, a, flags, 'shuffled')}: {got} != {expected[a]}"
    for order in (actions, shuffled):  # the memo's entries depend on their cell and seat only
        got = objectives_of(game, w, order)
        want = [reference_objective(old, expected[a], game.seat) for a in order]
        assert got == want, f"objectives at {_where(game, order[0], False, 'objectives')}"
    for a in actions:
        _tally(tally, ACTION_NAMES[action_kind(a)], expected[a])
    if game.s[SC_DECISION] == DEC_CHOOSE:
        tally += check_sleeping_choice(game, w, before, old)
    return tally, outcomes


def check_sleeping_choice(game: Game, w: np.ndarray, before: Position, old: list[int]) -> Counter:
    """The sleeping-cat placements weighed at a choose decision (R3.2)."""
    tally: Counter = Counter()
    choice = int(action(A_SLEEP_CHOICE, 0, 0))
    candidates = sleeping_candidates(game)
    saved = game.s.copy()
    apply_action(game.s, game.pr, np.int32(choice))
    legal_then = [int(a) for a in game.legal()]
    game.s[:] = saved
    assert candidates == legal_then, "weighed placements differ from the sleep decision's"
    assert candidates, "a choose decision is offered only when the sleeping card fits (R3.2)"
    expected = {a: reference_change(game, before, old, [choice, a])[0] for a in candidates}
    for flags in (False, True):
        start_decision(game, w)
        for a in candidates:  # in sleeping_placements order, as the policies weigh them
            got = sleeping_delta(game, w, a, flags)
            assert got == expected[a], f"{_where(game, a, flags, 'choose')}: {got} != {expected[a]}"
    for a in candidates:
        _tally(tally, "sleep_at@choose", expected[a])
    return tally


# ---------------------------------------------------------------- driving games

# The seats' players: built-in policies by (policy, params), and two Python drivers.
BUILT_IN = {
    "builder": ("heuristic", {"preset": "builder"}),
    "greedy": ("greedy", {}),
    "sleeper": ("heuristic", {"preset": "sleeper", "temperature": 0.5}),
    "spoiler": ("heuristic", {"preset": "spoiler"}),
    "random": ("random", {}),
}
CODES = {name: (policy_code(p), seat_params(p, params)) for name, (p, params) in BUILT_IN.items()}
PLAYERS = ["seeker", "catty", *BUILT_IN]


def catty_choice(game: Game, legal: list[int], rng: random.Random) -> int:
    """Random play that lays an awake cat whenever offered and often sleeps (R3.2, R4)."""
    cats = [a for a in legal if action_kind(a) in (A_CAT, A_SLEEP_CHOICE)]
    if cats and (game.s[SC_DECISION] != DEC_CHOOSE or rng.random() < 0.5):
        return rng.choice(cats)
    return rng.choice(legal)


def seeking_choice(game: Game, outcomes: dict, rng: random.Random) -> int:
    """Mostly an action that changes a score (by the reference) or, failing that, a card
    that opens a cat spot (R3.1.3); else catty play.

    Score changes are rare in random play (a placement moves a score only when it
    closes or joins a box with a leader and a value, R1.7, R1.8, R8.2); seeking
    them builds the positions where the incremental arithmetic has most to get right.
    """
    moving = [a for a, (change, _) in outcomes.items() if any(change)]
    to_cat = [a for a, (_, then) in outcomes.items() if then == DEC_CAT]
    for wanted in (moving, to_cat):
        if wanted and rng.random() < 0.8:
            return rng.choice(wanted)
    return catty_choice(game, list(outcomes), rng)


def play_and_check(
    cfg: GameConfig, seed: int, index: int, seats: list[str], rng: random.Random, explore: float
) -> Counter:
    """Play a game, checking every decision; returns the tally of checked actions.

    `seats` names each seat's player (PLAYERS); a built-in policy's seat plays a
    random legal action instead with probability `explore`.
    """
    game = Game(engine_for(cfg), seed, index)
    scratch, w = policy_work_array(game)
    streams = [game.seat_stream(p) for p in range(game.pr.players)]
    tally: Counter = Counter()
    while not game.over:
        checked, outcomes = check_decision(game, w, rng)
        tally += checked
        legal = list(outcomes)  # in the engine's order
        player = seats[game.seat]
        if player == "seeker":
            a = seeking_choice(game, outcomes, rng)
        elif player == "catty":
            a = catty_choice(game, legal, rng)
        elif rng.random() < explore:
            a = rng.choice(legal)
        else:
            code, params = CODES[player]
            a = scratch.choose(code, game.s, game.pr, streams[game.seat], game.buf, params)
        game.apply(a)
    return tally


def spread(*values):
    """One of `values`, drawn uniformly; the first is where hypothesis starts and shrinks to.

    Plain integer strategies favour tiny values, and tiny games hardly ever let a
    placement change a score; so the simplest example here is a rich game.
    """
    return st.sampled_from(values)


ROOMY = spread((6, 6), (10, 10), (5, 5), (8, 8), (4, 6), (6, 4))  # (columns, rows)
CRAMPED = spread((3, 3), (2, 2), (1, 5), (5, 1))


@st.composite
def configs(draw) -> GameConfig:
    """A valid GameConfig: 2-5 players, tables from 1x5 to 10x10, every variant on or off,
    and the base deck's kinds in other numbers (none of a kind, one, or twice as many)."""
    deck = BASE.game.deck
    players = draw(spread(3, 2, 4, 5))
    hand_size = draw(spread(3, 1, 2, 4))
    boxes = {k: draw(spread(n, 0, 1, 2 * n)) for k, n in deck.boxes.items()}
    boxes["NESW"] = draw(spread(0, 2))  # a box of its own, closed from the start (R1.8)
    princesses = draw(spread(2, 0, 1, 3))
    toys = {k: draw(spread(n, 0, 1, 2 * n)) for k, n in deck.toys.items()}
    sprayers = draw(spread(2, 0, 1, 4))
    short = players * hand_size + 1 - princesses - sum(boxes.values())  # R2.3, R2.4
    boxes[""] += max(short, 0, 1 - sum(boxes.values()))
    return drawn_game(
        draw,
        players=players,
        hand_size=hand_size,
        table=draw(st.one_of(ROOMY, ROOMY, ROOMY, CRAMPED)),  # cramped one time in four
        cats=draw(spread(8, 6, 0, 1, 3)),
        sleeping=draw(spread(2, 0, 1, 3)),
        deck={"boxes": boxes, "toys": toys, "sprayers": sprayers, "princesses": princesses},
    )


# ---------------------------------------------------------------- the tests

# Action kinds that must change some score at least once over the fixed base games.
MOVERS = ("place", "princess", "cat", "item", "sleep_at@choose")


GAMES = given(
    cfg=configs(),
    seed=st.integers(0, 2**40),
    seats=st.lists(st.sampled_from(PLAYERS), min_size=5, max_size=5),
    explore=spread(0.2, 0.0, 0.5),
    driver_seed=st.integers(0, 2**32),  # one draw: a game makes thousands of choices
)


def check_a_game(cfg, seed, seats, explore, driver_seed) -> None:
    """Random configs and line-ups: every action at every decision of a whole game."""
    play_and_check(cfg, seed, 0, seats[: cfg.players], random.Random(driver_seed), explore)


# The default suite: the same 15 drawn games every run (a whole game checks every action of
# thousands of decisions in Python: 50 random ones took 21-85 s); the opt-in slow test draws
# 200 new ones each run.
test_incremental_score_change_equals_full_rescoring = settings(
    max_examples=15, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)(GAMES(check_a_game))
test_incremental_score_change_on_many_new_games = pytest.mark.slow(
    settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])(
        GAMES(check_a_game)
    )
)


@pytest.mark.parametrize("seed, index", [(1, 0), (2, 6), (20261129, 17)])
def test_every_decision_of_greedy_games_on_the_base_config(seed, index):
    """Whole greedy games of the base config, every decision; scores did move in them."""
    players = BASE.game.players
    tally = play_and_check(BASE.game, seed, index, ["greedy"] * players, random.Random(seed), 0.0)
    assert tally["place"] > 1000
    assert all(tally[f"{kind} moved"] > 0 for kind in MOVERS), dict(tally)
