"""Scripted scenarios, one or more per rule id of RULES.md (R1.1-R8.6 and the four variants).

Each scenario builds a small game from a config whose deck forces (or, through
`stack`, arranges) the cards, picks actions from `game.legal()` by their
decoded meaning, and asserts the table (`game.position()`), the engine's
boxes and the log after the steps that matter. Layouts are drawn in comments:
`[NW]` a card with walls N and W, `.` an empty cell, `c0` seat 0's cat.
"""

from __future__ import annotations

from collections import Counter

import pytest
from pydantic import ValidationError

from sim.config import GameConfig
from sim.engine import reference
from sim.engine.actions import (
    A_BOX,
    A_CAT,
    A_DISCARD,
    A_ITEM,
    A_NO_CAT,
    A_PLACE,
    A_PRINCESS,
    A_SLEEP,
    A_SLEEP_CHOICE,
    ACTION_NAMES,
    action_arg1,
    action_arg2,
    action_kind,
)
from sim.engine.game import Game
from sim.engine.position import Item
from sim.engine.state import (
    DIR_E,
    PS_EVICTED,
    SC_DECK_POS,
    ST_DISCARDED,
    ST_WASTED,
    StateView,
)
from sim.errors import ConfigError, IllegalAction
from sim.runs.lineup import engine_for
from sim.walls import parse_walls

Cell = tuple[int, int]
BLANK = "box:"  # the card with no walls

# ---------------------------------------------------------------- building games


def config(**settings) -> GameConfig:
    """A small 2-player game: hand 1, 3 cats, 1 sleeping cat, only wall-less box cards."""
    data = {
        "players": 2,
        "hand_size": 1,
        "cats_per_player": 3,
        "sleeping_per_player": 1,
        "table": {"columns": 10, "rows": 10},
        "deck": {"boxes": {"": 8}, "toys": {}, "sprayers": 0, "princesses": 0},
    }
    for key, value in settings.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return GameConfig.model_validate(data)


def new_game(cfg: GameConfig, *, start: str | None = None, seed: int = 0, where=None) -> Game:
    """A logged game of cfg: the first seed from `seed` whose start card has walls `start`
    and that passes `where(game)`."""
    engine = engine_for(cfg)
    for s in range(seed, seed + 2000):
        game = Game(engine, s, log=True)
        if start is not None and game.position().cards[(0, 0)] != parse_walls(start):
            continue
        if where is None or where(game):
            return game
    raise AssertionError(f"no seed gives start card {start!r} and passes {where}")


def stack(game: Game, hands: list[list[str]], top: list[str], *, exact: bool = False) -> None:
    """Rearrange the undrawn cards: these hands, `top` on top of the deck, the rest below.

    The same cards, only in another order, as some shuffle could have dealt them.
    Used only before the first draw (at the first choose decision, or in a final
    phase set up with an empty deck). With `exact`, `top` must be the whole deck.
    """
    assert game.s[SC_DECK_POS] == 0 and not any(e["event"] == "draw" for e in game.events())
    cards = Counter(game.deck)
    for p in range(game.pr.players):
        cards += Counter(game.hand(p))
    wanted = Counter(top)
    for hand in hands:
        wanted += Counter(hand)
    assert not wanted - cards, f"stack asks for cards the game does not have: {wanted - cards}"
    rest = sorted((cards - wanted).elements())
    assert not (exact and rest), f"stack leaves cards over: {rest}"
    deck = list(top) + rest
    index = game.engine.types.index
    view = game.view_
    view.hands[:] = 0
    for p, hand in enumerate(hands):
        for name in hand:
            view.hands[p, index[name]] += 1
    for i, name in enumerate(deck):
        view.deck[i] = index[name]


# ---------------------------------------------------------------- cells and actions


def at(game: Game, cell: Cell) -> int:
    """The engine's cell index of (row, col)."""
    pr = game.pr
    return (cell[0] + pr.rows) * pr.width + (cell[1] + pr.cols)


def rc(game: Game, x: int) -> Cell:
    r, c = game.cell(int(x))
    return (r, c)


def legal_of(game: Game, kind: int) -> list[int]:
    return [int(a) for a in game.legal() if action_kind(a) == kind]


def pick(game: Game, kind: int, test=lambda a: True) -> int:
    """The one legal action of `kind` that passes `test`; fails listing what is legal."""
    hits = [a for a in legal_of(game, kind) if test(a)]
    legal = [game.describe(a) for a in game.legal()]
    assert len(hits) == 1, (
        f"{ACTION_NAMES[kind]} not legal at the {game.decision} decision: {legal}"
    )
    return hits[0]


def box_action(game: Game) -> None:
    """Choose the box action when the choice is offered (R3.1)."""
    if game.decision == "choose":
        game.apply(pick(game, A_BOX))


def place(game: Game, card: str, cell: Cell, *, turned: bool = False) -> None:
    """Take the box action if needed and lay `card` on `cell`, turned or not (R1.3, R1.4)."""
    box_action(game)
    code = 2 * game.engine.types.index[card] + int(turned)
    game.apply(
        pick(game, A_PLACE, lambda a: action_arg1(a) == code and action_arg2(a) == at(game, cell))
    )


def cat(game: Game, north: Cell) -> None:
    """Lay the seat's awake cat on `north` and the card south of it (R4)."""
    game.apply(pick(game, A_CAT, lambda a: action_arg2(a) == at(game, north)))


def no_cat(game: Game) -> None:
    if game.decision == "cat":
        game.apply(pick(game, A_NO_CAT))


def item(game: Game, a: Cell, b: Cell) -> None:
    """Lay the drawn item on seam a|b (R5.1)."""
    want = frozenset((a, b))
    game.apply(pick(game, A_ITEM, lambda x: seam_of(game, x) == want))


def sleep(game: Game, cell: Cell, *, turned: bool = False) -> None:
    """Take the sleeping-cat action and lay the card on `cell` (R3.2)."""
    if game.decision == "choose":
        game.apply(pick(game, A_SLEEP_CHOICE))
    game.apply(
        pick(
            game,
            A_SLEEP,
            lambda a: action_arg1(a) == int(turned) and action_arg2(a) == at(game, cell),
        )
    )


def princess(game: Game, north: Cell) -> None:
    box_action(game)
    game.apply(pick(game, A_PRINCESS, lambda a: action_arg2(a) == at(game, north)))


def discard(game: Game, card: str) -> None:
    box_action(game)
    t = game.engine.types.index[card]
    game.apply(pick(game, A_DISCARD, lambda a: action_arg1(a) == t))


def seam_of(game: Game, a: int) -> frozenset[Cell]:
    """The two cells of an item action's seam."""
    x, side = action_arg2(a), action_arg1(a)
    step = 1 if side == DIR_E else game.pr.width
    return frozenset((rc(game, x), rc(game, x + step)))


def placements(game: Game) -> set[tuple[str, bool, Cell]]:
    """The legal placements as (card, turned, cell)."""
    out = set()
    for a in legal_of(game, A_PLACE):
        out.add(
            (
                game.card_name(action_arg1(a) >> 1),
                bool(action_arg1(a) & 1),
                rc(game, action_arg2(a)),
            )
        )
    return out


def placement_cells(game: Game) -> set[Cell]:
    return {cell for _, _, cell in placements(game)}


def cat_spots(game: Game) -> set[Cell]:
    """North cells of the cat spots offered now (empty when no cat decision is pending)."""
    if game.decision != "cat":
        return set()
    assert legal_of(game, A_NO_CAT), "the cat is optional (R3.1.3)"
    return {rc(game, action_arg2(a)) for a in legal_of(game, A_CAT)}


def item_seams(game: Game) -> set[frozenset[Cell]]:
    return {seam_of(game, a) for a in legal_of(game, A_ITEM)}


def events(game: Game, name: str | None = None) -> list[dict]:
    """Log records after setup, all or only those named `name`."""
    out = game.events()[1:]
    return [e for e in out if name is None or e["event"] == name]


def engine_boxes(game: Game) -> set[frozenset[Cell]]:
    """The engine's boxes: cells grouped by their union-find root (read without compressing)."""
    view = StateView(game.s, game.pr)
    groups: dict[int, set[Cell]] = {}
    for cell in game.position().cards:
        x = at(game, cell)
        while view.parent[x] != x:
            x = int(view.parent[x])
        groups.setdefault(x, set()).add(cell)
    return {frozenset(g) for g in groups.values()}


def engine_closed(game: Game, cell: Cell) -> bool:
    """The engine's R1.8 verdict for the box of `cell`: no open side facing an empty cell."""
    view = StateView(game.s, game.pr)
    x = at(game, cell)
    while view.parent[x] != x:
        x = int(view.parent[x])
    return int(view.box_open[x]) == 0


def ref_boxes(game: Game) -> set[frozenset[Cell]]:
    return set(reference.boxes(game.position()))


def ref_closed(game: Game, cell: Cell) -> bool:
    pos = game.position()
    (box,) = [b for b in reference.boxes(pos) if cell in b]
    return reference.is_closed(pos, box)


def scores(game: Game) -> tuple[int, ...]:
    """The engine's scores, checked against the slow reference scoring (R8)."""
    result = game.outcome()
    ref = reference.score_position(game.position())
    assert list(result.scores) == ref["scores"]
    assert list(result.cat_bonus) == ref["cat_bonus"]
    assert list(result.winners) == ref["winners"]
    return result.scores


def fs(*cells: Cell) -> frozenset[Cell]:
    return frozenset(cells)


def neighbours(cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)]


def adjacent_empty(game: Game) -> set[Cell]:
    """Empty cells orthogonally next to a card (R1.4), computed from the position."""
    cards = game.position().cards
    return {n for cell in cards for n in neighbours(cell) if n not in cards}


def fits(game: Game, cell: Cell) -> bool:
    """R1.5: the bounding rectangle with `cell` added fits the table."""
    cells = [*game.position().cards, cell]
    rows = max(r for r, _ in cells) - min(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) - min(c for _, c in cells) + 1
    table = GameConfig.model_validate(game.engine.settings).table
    return rows <= table.rows and cols <= table.columns


def random_walk(game: Game, seed: int, check) -> None:
    """Play to the end choosing uniformly from game.legal(); call check(game) before each action."""
    import random

    rng = random.Random(seed)
    for _ in range(10_000):
        if game.over:
            return
        check(game)
        game.apply(rng.choice(list(game.legal())))
    raise AssertionError("the game did not end")


# ================================================================ R1 geometry


def test_r1_1_rows_grow_south_and_only_north_south_neighbours_share_a_long_seam():
    """R1.1: (r-1,c) is north of (r,c); a cat needs a north-south (long-seam) pair, not east-west.

    [S]      (-1,0): an N card laid turned, its S wall faces the start's open N side
    [ ][ ]   (0,0) start, (0,1) east: open short seam, no cat spot
    [ ]      (1,0) south: open long seam, the cat spot (0,0)+(1,0)
    """
    game = new_game(config(deck={"boxes": {"": 3, "N": 3}}), start="")
    stack(game, [["box:N"], ["box:N"]], ["box:", "box:", "box:N"])
    assert game.cell(at(game, (-1, 0))) == [-1, 0] and game.cell(at(game, (2, -3))) == [2, -3]
    place(game, "box:N", (-1, 0), turned=True)
    assert game.position().cards[(-1, 0)] == parse_walls("S")
    assert engine_boxes(game) == {fs((-1, 0)), fs((0, 0))}  # the S wall seals the seam
    place(game, BLANK, (1, 0))
    assert cat_spots(game) == {(0, 0)}  # the cat lies on (0,0) north of (1,0)
    no_cat(game)
    place(game, BLANK, (0, 1))
    assert game.decision != "cat"  # (0,0)|(0,1) is open but short: no cat spot
    assert engine_boxes(game) == ref_boxes(game) == {fs((-1, 0)), fs((0, 0), (1, 0), (0, 1))}


def test_r1_2_walls_are_recorded_as_laid_with_n1_e2_s4_w8():
    """R1.2: an NES card laid unturned has walls N, E and S (mask 1|2|4) and is logged as "NES"."""
    game = new_game(config(deck={"boxes": {"": 3, "NES": 3}}), start="")
    stack(game, [["box:NES"], ["box:NES"]], ["box:", "box:", "box:NES"])
    place(game, "box:NES", (0, 1))
    assert game.position().cards[(0, 1)] == 1 | 2 | 4
    assert events(game, "place")[-1]["walls"] == "NES"
    assert game.position().cards[(0, 0)] == 0


def test_r1_3_a_turned_card_has_its_walls_swapped_n_s_and_e_w():
    """R1.3: "NE" laid turned lies as "SW"; unturned it stays "NE"."""
    game = new_game(config(deck={"boxes": {"": 3, "NE": 3}}), start="")
    stack(game, [["box:NE"], ["box:NE"]], ["box:", "box:", "box:NE"])
    place(game, "box:NE", (0, 1), turned=True)
    assert game.position().cards[(0, 1)] == parse_walls("SW")
    assert events(game, "place")[-1] == {
        "event": "place",
        "seat": 0,
        "card": "box:NE",
        "at": [0, 1],
        "walls": "SW",
    }
    # Its W wall faces the start's open E side: a walled seam (R1.6).
    assert engine_boxes(game) == {fs((0, 0)), fs((0, 1))}
    place(game, "box:NE", (0, -1))
    assert game.position().cards[(0, -1)] == parse_walls("NE")
    assert engine_boxes(game) == ref_boxes(game) == {fs((0, 0)), fs((0, 1)), fs((0, -1))}


@pytest.mark.parametrize(
    ("walls", "symmetric"),
    [
        ("", True),
        ("NS", True),
        ("EW", True),
        ("NESW", True),
        ("N", False),
        ("E", False),
        ("NE", False),
        ("NW", False),
        ("NES", False),
    ],
)
def test_r1_3_symmetric_cards_offer_one_turning_others_two(walls: str, symmetric: bool):
    """R1.3: a card equal to its own 180-degree turn is offered once per cell, others twice."""
    game = new_game(config(deck={"boxes": {walls: 6}}))
    box_action(game)
    card = f"box:{walls}"
    cells = set(neighbours((0, 0)))
    want = {(card, False, cell) for cell in cells}
    if not symmetric:
        want |= {(card, True, cell) for cell in cells}
    assert placements(game) == want


def test_r1_3_two_turnings_of_one_card_in_a_config_is_an_error():
    """R1.3: listing "NE" and "SW" (the same card turned) is a config error."""
    with pytest.raises((ValidationError, ConfigError), match="R1.3"):
        config(deck={"boxes": {"NE": 2, "SW": 2, "": 4}})


def test_r1_4_first_placements_are_the_four_neighbours_of_the_start_card():
    """R1.4: a card goes on an empty cell orthogonally next to a card: 4 cells around the start."""
    game = new_game(config())
    box_action(game)
    assert placement_cells(game) == {(-1, 0), (0, 1), (1, 0), (0, -1)}
    place(game, BLANK, (0, 1))
    box_action(game)
    assert placement_cells(game) == {(-1, 0), (1, 0), (0, -1), (-1, 1), (1, 1), (0, 2)}


@pytest.mark.parametrize("seed", range(4))
def test_r1_4_placement_cells_are_exactly_the_empty_cells_next_to_a_card(seed: int):
    """R1.4: in whole random games on a big table, every decision offers exactly the empty
    neighbour cells (never an occupied or a detached cell), for box and sleeping-cat cards."""
    cfg = config(
        players=3,
        hand_size=2,
        sleeping_per_player=2,
        table={"columns": 40, "rows": 40},
        deck={"boxes": {"": 6, "N": 6, "NE": 6, "EW": 4}, "princesses": 1},
    )

    def check(game: Game) -> None:
        if game.decision == "play" and any(c.startswith("box:") for c in game.hand(game.seat)):
            assert placement_cells(game) == adjacent_empty(game)
        if game.decision == "sleep":
            assert {rc(game, action_arg2(a)) for a in legal_of(game, A_SLEEP)} == adjacent_empty(
                game
            )

    random_walk(new_game(cfg, seed=seed), seed, check)


def test_r1_5_a_1x3_table_allows_only_a_row_of_three():
    """R1.5: on a 3-column, 1-row table the layout grows east or west only, to three cards;
    then nothing fits, the sleeping-cat action is not offered and the player must discard."""
    game = new_game(config(table={"columns": 3, "rows": 1}))
    assert game.decision == "choose"
    box_action(game)
    assert placement_cells(game) == {(0, -1), (0, 1)}
    place(game, BLANK, (0, 1))
    box_action(game)
    assert placement_cells(game) == {(0, -1), (0, 2)}
    place(game, BLANK, (0, 2))
    assert game.decision == "play"  # no choose: the sleeping card fits nowhere (R3.2)
    assert events(game)[-2:] == [
        {"event": "turn", "seat": 0, "phase": "normal", "action": "box"},
        {"event": "draw", "seat": 0, "card": "box:"},
    ]
    assert placement_cells(game) == set()
    assert [action_kind(a) for a in game.legal()] == [A_DISCARD]


def test_r1_5_a_2x2_table_bounds_the_rectangle_not_the_distance():
    """R1.5: on a 2x2 table, after (0,0),(0,1),(1,0) only (1,1) keeps the rectangle 2x2."""
    game = new_game(config(table={"columns": 2, "rows": 2}))
    box_action(game)
    assert placement_cells(game) == {(-1, 0), (0, 1), (1, 0), (0, -1)}
    place(game, BLANK, (0, 1))
    box_action(game)
    assert placement_cells(game) == {(-1, 0), (-1, 1), (1, 0), (1, 1)}
    place(game, BLANK, (1, 0))
    no_cat(game)
    box_action(game)
    assert placement_cells(game) == {(1, 1)}


@pytest.mark.parametrize("table", [(3, 3), (1, 5), (5, 1), (4, 6)])
def test_r1_5_random_games_never_outgrow_the_table(table: tuple[int, int]):
    """R1.5: whole random games on small tables offer exactly the neighbour cells that keep the
    bounding rectangle within columns x rows, and the final layout fits."""
    columns, rows = table
    cfg = config(
        players=3,
        hand_size=2,
        table={"columns": columns, "rows": rows},
        deck={"boxes": {"": 8, "NE": 6, "N": 6}},
    )

    def check(game: Game) -> None:
        if game.decision == "play":
            want = {c for c in adjacent_empty(game) if fits(game, c)}
            assert placement_cells(game) == want
            assert bool(legal_of(game, A_DISCARD)) == (not want)  # R3.1: only boxes in hand

    game = new_game(cfg, seed=columns * 10 + rows)
    random_walk(game, 7, check)
    cells = game.position().cards
    assert max(r for r, _ in cells) - min(r for r, _ in cells) < rows
    assert max(c for _, c in cells) - min(c for _, c in cells) < columns


def test_r1_6_r1_7_boxes_merge_only_through_open_seams():
    """R1.6, R1.7: a seam with a wall on either side keeps boxes apart; a card open to two boxes
    merges them. Engine union-find equals the slow reference after every step.

        [E ][  ]      (0,0) start "E": its E wall walls off (0,1)
        [  ][? ]      (1,0) joins the start; (1,1) open to both merges all four
    """
    game = new_game(config(deck={"boxes": {"E": 3, "": 6}}), start="E")
    stack(game, [[BLANK], [BLANK]], [BLANK] * 4 + ["box:E"] * 2)
    place(game, BLANK, (0, 1))
    assert engine_boxes(game) == ref_boxes(game) == {fs((0, 0)), fs((0, 1))}
    place(game, BLANK, (1, 0))
    no_cat(game)
    assert engine_boxes(game) == ref_boxes(game) == {fs((0, 0), (1, 0)), fs((0, 1))}
    place(game, BLANK, (1, 1))
    no_cat(game)
    assert engine_boxes(game) == ref_boxes(game) == {fs((0, 0), (1, 0), (0, 1), (1, 1))}


def test_r1_6_a_wall_on_the_new_card_alone_keeps_boxes_apart():
    """R1.6: the new card's own wall makes a walled seam even though the old side is open.

    [E ][  ]
    [  ][S ]   (1,1) an N card turned: its N side is open, so it joins (0,1) and (1,0)
    [  ][N ]   (2,1) an N card: its N wall faces (1,1)'s S wall ... both walls: walled
    """
    game = new_game(config(deck={"boxes": {"E": 3, "": 4, "N": 4}}), start="E")
    stack(
        game,
        [[BLANK], [BLANK]],
        ["box:N", "box:N", "box:N", BLANK, BLANK, "box:E", "box:E", "box:N"],
    )
    place(game, BLANK, (0, 1))
    place(game, BLANK, (1, 0))
    no_cat(game)
    place(game, "box:N", (1, 1))  # N wall against (0,1)'s open S side: walled
    no_cat(game)
    assert engine_boxes(game) == ref_boxes(game) == {fs((0, 0), (1, 0), (1, 1)), fs((0, 1))}
    place(game, "box:N", (2, 1), turned=True)  # lies as S: its open N meets (1,1)'s open S
    no_cat(game)
    assert engine_boxes(game) == ref_boxes(game) == {fs((0, 0), (1, 0), (1, 1), (2, 1)), fs((0, 1))}


def test_r1_8_an_open_side_facing_a_wall_is_sealed_so_the_box_is_closed():
    """R1.8: the start "NES" is open only to the W; an "EW" card there seals it with its E wall.

    [EW][NES]    the start's box is closed; the EW card's own box is open N and S
    """
    game = new_game(config(deck={"boxes": {"NES": 3, "EW": 4}}), start="NES")
    assert not engine_closed(game, (0, 0)) and not ref_closed(game, (0, 0))
    stack(game, [["box:EW"], ["box:EW"]], ["box:EW", "box:EW", "box:NES", "box:NES"])
    place(game, "box:EW", (0, -1))
    assert engine_boxes(game) == {fs((0, 0)), fs((0, -1))}
    assert engine_closed(game, (0, 0)) and ref_closed(game, (0, 0))
    assert not engine_closed(game, (0, -1)) and not ref_closed(game, (0, -1))


def test_r1_8_a_box_closes_when_its_last_open_side_meets_a_card():
    """R1.8: the 2x2 square NW|NE / SW|SE is open until its fourth card, then closed.

    [NW][NE]
    [SW][SE]    SW is NE turned, SE is NW turned
    """
    game = new_game(config(deck={"boxes": {"NW": 3, "NE": 3}}), start="NW")
    stack(game, [["box:NE"], ["box:NE"]], ["box:NW", "box:NW", "box:NE"])
    steps = [("box:NE", (0, 1), False), ("box:NE", (1, 0), True), ("box:NW", (1, 1), True)]
    for card, cell, turned in steps:
        assert not engine_closed(game, (0, 0)) and not ref_closed(game, (0, 0))
        place(game, card, cell, turned=turned)
        no_cat(game)
    assert engine_boxes(game) == {fs((0, 0), (0, 1), (1, 0), (1, 1))}
    assert engine_closed(game, (0, 0)) and ref_closed(game, (0, 0))


# ================================================================ R2 components and setup

MIXED = {
    "boxes": {"": 4, "N": 3, "NE": 3, "EW": 2},
    "toys": {"yarn": 2, "mouse": 2},
    "sprayers": 2,
    "princesses": 2,
}


def deal(deck: list[str], players: int, hand_size: int):
    """R2.3, R2.4 by hand: start card, hands dealt round the table, items set aside."""
    first = next(i for i, card in enumerate(deck) if card.startswith("box:"))
    rest = deck[:first] + deck[first + 1 :]
    hands: list[list[str]] = [[] for _ in range(players)]
    aside, pos = [], 0
    for _ in range(hand_size):
        for p in range(players):
            while True:
                card = rest[pos]
                pos += 1
                if card.startswith("box:") or card == "princess":
                    hands[p].append(card)
                    break
                aside.append(card)
    return deck[first], hands, aside, rest[pos:]


def test_r2_1_each_player_gets_the_configured_supplies():
    """R2.1: every seat starts with cats_per_player awake and sleeping_per_player sleeping cats."""
    game = new_game(
        config(players=4, cats_per_player=5, sleeping_per_player=2, deck={"boxes": {"": 12}})
    )
    view = StateView(game.s, game.pr)
    assert list(view.awake) == [5, 5, 5, 5]
    assert list(view.asleep) == [2, 2, 2, 2]


def test_r2_2_the_deck_holds_the_configured_cards_shuffled():
    """R2.2: the deck before setup has exactly the configured counts, in a seed-dependent order."""
    cfg = config(deck=MIXED)
    want = Counter(
        {
            "box:": 4,
            "box:N": 3,
            "box:NE": 3,
            "box:EW": 2,
            "toy:yarn": 2,
            "toy:mouse": 2,
            "sprayer": 2,
            "princess": 2,
        }
    )
    orders = set()
    for seed in range(6):
        deck = new_game(cfg, seed=seed).setup_event()["deck"]
        assert Counter(deck) == want
        orders.add(tuple(deck))
    assert len(orders) == 6
    assert (
        new_game(cfg, seed=3).setup_event()["deck"] == new_game(cfg, seed=3).setup_event()["deck"]
    )


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(("players", "hand_size"), [(2, 1), (3, 2), (4, 3)])
def test_r2_3_r2_4_setup_matches_dealing_by_hand(seed: int, players: int, hand_size: int):
    """R2.3: the start card is the first box card from the top, laid unturned at (0,0).
    R2.4: hands are dealt one card at a time round the table from the cards left in order;
    items met are set aside and the rest plus the aside items form the new deck."""
    cfg = config(players=players, hand_size=hand_size, deck=MIXED)
    game = new_game(cfg, seed=seed)
    setup = game.setup_event()
    start, hands, aside, rest = deal(setup["deck"], players, hand_size)
    assert setup["start"]["card"] == start
    assert setup["start"]["walls"] == start.removeprefix("box:")
    assert game.position().cards == {(0, 0): parse_walls(start.removeprefix("box:"))}
    assert [Counter(h) for h in setup["hands"]] == [Counter(h) for h in hands]
    assert [Counter(game.hand(p)) for p in range(players)] == [Counter(h) for h in hands]
    assert setup["aside"] == aside
    assert Counter(setup["deck_after"]) == Counter(rest + aside)


@pytest.mark.parametrize("top", ["princess", "toy:yarn"])
def test_r2_3_cards_above_the_start_card_stay_on_top(top: str):
    """R2.3: a Princess or toy above the first box card stays on top: the Princess is dealt to
    seat 0 first (R2.4: dealt like a box card), the toy is the first card set aside."""
    cfg = config(deck=MIXED)
    engine = engine_for(cfg)
    game = next(g for s in range(500) if (g := Game(engine, s)).setup_event()["deck"][0] == top)
    setup = game.setup_event()
    assert setup["start"]["card"] == next(c for c in setup["deck"] if c.startswith("box:"))
    if top == "princess":
        assert "princess" in setup["hands"][0]
    else:
        assert setup["aside"][0] == "toy:yarn"


def test_r2_4_the_remaining_deck_is_reshuffled_with_the_aside_items():
    """R2.4: the aside items are shuffled into the whole remaining deck, not put on top/bottom."""
    cfg = config(deck=MIXED)
    unshuffled = 0
    aside_not_at_bottom = aside_not_on_top = False
    for seed in range(40):
        setup = new_game(cfg, seed=seed).setup_event()
        _, _, aside, rest = deal(setup["deck"], 2, 1)
        after = setup["deck_after"]
        unshuffled += after == rest + aside
        if aside:
            aside_not_at_bottom |= Counter(after[-len(aside) :]) != Counter(aside)
            aside_not_on_top |= Counter(after[: len(aside)]) != Counter(aside)
    assert unshuffled <= 1
    assert aside_not_at_bottom and aside_not_on_top


def test_r2_5_seat_0_starts_and_play_goes_round_by_increasing_seat():
    """R2.5: turns go 0, 1, 2, 0, 1, 2, ... through a whole game (no hand is ever empty early)."""
    cfg = config(
        players=3, hand_size=2, deck={"boxes": {"": 6, "N": 6, "NE": 6}, "toys": {"yarn": 3}}
    )
    game = new_game(cfg, seed=5)
    random_walk(game, 5, lambda g: None)
    seats = [e["seat"] for e in events(game, "turn")]
    assert len(seats) > 10
    assert seats == [i % 3 for i in range(len(seats))]


# ================================================================ R3 a turn


def test_r3_1_choice_before_any_draw_then_draw_then_play_the_drawn_card():
    """R3.1: the box/sleeping choice comes before the draw; the box action draws the top card,
    which may be played at once (step 2)."""
    game = new_game(config(deck={"boxes": {"": 3, "NE": 3}}), start="")
    stack(game, [["box:NE"], ["box:NE"]], [BLANK, BLANK, "box:NE"])
    deck = game.deck
    assert game.decision == "choose" and game.seat == 0
    assert sorted(action_kind(a) for a in game.legal()) == [A_BOX, A_SLEEP_CHOICE]
    assert events(game) == []  # nothing drawn before the choice
    box_action(game)
    assert game.deck == deck[1:]
    assert events(game) == [
        {"event": "turn", "seat": 0, "phase": "normal", "action": "box"},
        {"event": "draw", "seat": 0, "card": "box:"},
    ]
    assert sorted(game.hand(0)) == ["box:", "box:NE"]
    assert {card for card, _, _ in placements(game)} == {"box:", "box:NE"}
    assert not legal_of(game, A_DISCARD)


def test_r3_1_drawn_items_are_resolved_at_once_and_the_player_draws_again():
    """R3.1.1 with R5: a toy is laid, a sprayer with no free seam is wasted, then a box card
    reaches the hand."""
    cfg = config(deck={"boxes": {"": 6}, "toys": {"yarn": 1}, "sprayers": 1})
    game = new_game(cfg)
    stack(game, [[BLANK], [BLANK]], [BLANK, "toy:yarn", "sprayer", BLANK, BLANK])
    place(game, BLANK, (0, 1))
    box_action(game)
    assert (game.decision, game.seat, game.pending_item) == ("item", 1, "toy:yarn")
    item(game, (0, 0), (0, 1))
    assert game.decision == "play" and sorted(game.hand(1)) == ["box:", "box:"]
    assert events(game)[-6:] == [
        {"event": "turn", "seat": 1, "phase": "normal", "action": "box"},
        {"event": "draw", "seat": 1, "card": "toy:yarn"},
        {"event": "item", "seat": 1, "kind": "yarn", "between": [[0, 0], [0, 1]]},
        {"event": "draw", "seat": 1, "card": "sprayer"},
        {"event": "item_wasted", "seat": 1, "kind": "sprayer"},
        {"event": "draw", "seat": 1, "card": "box:"},
    ]


def test_r3_1_discard_only_when_nothing_can_be_played_any_card_of_the_hand():
    """R3.1: on a 1x1 table nothing fits, so the box action ends in a discard of the player's
    choice (one action per card kind in hand); the drawn card is among them."""
    cfg = config(table={"columns": 1, "rows": 1}, deck={"boxes": {"": 4, "N": 4}})
    game = new_game(cfg, where=lambda g: len(set(g.hand(0))) == 2)
    assert game.decision == "play"  # no choose: the sleeping card cannot be placed (R3.2)
    assert sorted(game.hand(0)) == ["box:", "box:N"]
    kinds = {game.card_name(action_arg1(a)) for a in game.legal()}
    assert [action_kind(a) for a in game.legal()] == [A_DISCARD, A_DISCARD]
    assert kinds == set(game.hand(0))
    discard(game, "box:N")
    assert game.seat == 1 and game.hand(0) == [BLANK]
    assert StateView(game.s, game.pr).stats[0, game.engine.types.index["box:N"], ST_DISCARDED] == 1
    assert events(game, "discard") == [{"event": "discard", "seat": 0, "card": "box:N"}]


def test_r3_1_no_discard_while_a_card_can_be_played():
    """R3.1: discarding is never a choice when some card fits."""
    game = new_game(config())
    box_action(game)
    assert placement_cells(game) and not legal_of(game, A_DISCARD)
    with pytest.raises(IllegalAction):
        game.apply(int(game.legal()[0]) & ~(0x3F << 26) | (A_DISCARD << 26))


def test_r3_1_the_optional_cat_follows_only_a_placed_box_card():
    """R3.1.3: the cat decision comes after a box card and offers 'no cat'; the turn passes on
    either way."""
    game = new_game(config())
    place(game, BLANK, (1, 0))
    assert game.decision == "cat" and game.seat == 0
    assert {action_kind(a) for a in game.legal()} == {A_CAT, A_NO_CAT}
    no_cat(game)
    assert game.seat == 1 and game.decision == "choose"
    assert game.position().cats == ()


@pytest.mark.parametrize(
    ("walls", "laid"), [("", ["", ""]), ("N", ["N", "S"]), ("EW", ["EW", "EW"])]
)
def test_r3_2_the_sleeping_card_has_the_configured_walls_and_may_be_turned(walls, laid):
    """R3.2: the sleeping-cat card's walls come from sleeping_card_walls; it may be laid turned,
    and a symmetric card is offered once per cell."""
    game = new_game(config(sleeping_card_walls=walls), start="")
    deck = game.deck
    game.apply(pick(game, A_SLEEP_CHOICE))
    assert game.decision == "sleep"
    offered = {(rc(game, action_arg2(a)), action_arg1(a)) for a in legal_of(game, A_SLEEP)}
    turnings = {0} if laid[0] == laid[1] else {0, 1}
    assert offered == {(cell, t) for cell in neighbours((0, 0)) for t in turnings}
    sleep(game, (1, 0), turned=len(turnings) == 2)
    assert game.position().cards[(1, 0)] == parse_walls(laid[-1])
    assert game.position().sleeping == {(1, 0): 0}
    assert events(game)[-2:] == [
        {"event": "turn", "seat": 0, "phase": "normal", "action": "sleeping"},
        {"event": "sleeping", "seat": 0, "at": [1, 0], "walls": laid[-1]},
    ]
    # No draw, no awake cat, no Princess: the next seat's turn begins.
    assert game.deck == deck and game.hand(0) == [BLANK]
    assert game.seat == 1 and game.decision == "choose"
    assert StateView(game.s, game.pr).asleep[0] == 0


def test_r3_2_the_sleeping_card_is_a_full_layout_card():
    """R3.2: it joins boxes through open seams, seals sides with its walls, and items may lie on
    its seams.

        [  ][zz]     (0,1) seat 0's sleeping card "", joined to the start
        [Z ]         (1,0) seat 1's sleeping card "NESW": walls off the start's S side
    """
    cfg = config(deck={"boxes": {"": 6}, "toys": {"yarn": 1}})
    game = new_game(cfg)
    stack(game, [[BLANK], [BLANK]], ["toy:yarn"])
    sleep(game, (0, 1))
    assert engine_boxes(game) == {fs((0, 0), (0, 1))}
    box_action(game)  # seat 1 draws the yarn: the sleeping card's seam is free and open
    assert item_seams(game) == {fs((0, 0), (0, 1))}
    item(game, (0, 0), (0, 1))
    place(game, BLANK, (1, 1))
    assert cat_spots(game) == set()  # (0,1) carries a sleeping cat (R4.3)
    game2 = new_game(config(sleeping_card_walls="NESW"), start="")
    sleep(game2, (1, 0))
    assert engine_boxes(game2) == ref_boxes(game2) == {fs((0, 0)), fs((1, 0))}
    assert engine_closed(game2, (1, 0)) and not engine_closed(game2, (0, 0))


def test_r3_2_only_while_a_sleeping_cat_is_left():
    """R3.2: with its only sleeping cat used, the seat's next turn starts with the box action."""
    game = new_game(config(sleeping_per_player=1))
    sleep(game, (0, 1))
    place(game, BLANK, (0, 2))
    assert game.seat == 0 and game.decision == "play"
    assert events(game)[-2:] == [
        {"event": "turn", "seat": 0, "phase": "normal", "action": "box"},
        {"event": "draw", "seat": 0, "card": "box:"},
    ]


# ================================================================ R4 awake cats


def test_r4_1_a_cat_needs_an_open_long_seam():
    """R4.1: below the start, an "N" card (wall on the shared long seam) gives no cat spot;
    a wall-less card gives the spot (0,0)+(1,0), and the cat lies on both cards."""
    game = new_game(config(deck={"boxes": {"": 4, "N": 3}}), start="")
    stack(game, [["box:N"], [BLANK]], [BLANK, BLANK])
    place(game, "box:N", (1, 0))
    assert game.decision != "cat" and game.seat == 1
    place(game, BLANK, (-1, 0))
    assert cat_spots(game) == {(-1, 0)}
    cat(game, (-1, 0))
    cats = game.position().cats
    assert [(c.player, c.north, c.south) for c in cats] == [(1, (-1, 0), (0, 0))]
    assert events(game, "cat") == [{"event": "cat", "seat": 1, "at": [[-1, 0], [0, 0]]}]


def test_r4_2_one_of_the_two_cards_is_the_fresh_card_north_or_south():
    """R4.2: an old free pair is never offered; the fresh card may be the north or south half.

    [  ][  ]   (0,0) (0,1)
    [f ][  ]   (1,0) placed last: spots (0,0)+(1,0) and (1,0)+(2,0)
    [  ][  ]   (2,0) (2,1)          but not the old pairs in column 1
    """
    game = new_game(config(cats_per_player=3))
    for cell in [(0, 1), (1, 1), (2, 1), (2, 0)]:
        place(game, BLANK, cell)
        no_cat(game)
    place(game, BLANK, (1, 0))
    assert game.seat == 0
    assert cat_spots(game) == {(0, 0), (1, 0)}


def test_r4_3_a_card_carrying_an_awake_cat_is_not_free():
    """R4.3: seat 0's cat on (0,0)+(1,0); a fresh (2,0) cannot pair with (1,0)."""
    game = new_game(config())
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    place(game, BLANK, (0, 1))
    place(game, BLANK, (2, 0))
    assert game.decision != "cat"
    place(game, BLANK, (1, 1))  # seat 1: free pair (0,1)+(1,1), but R4.4 bars seat 1
    place(game, BLANK, (2, 1))  # seat 0: (1,1)+(2,1) is free and the box holds seat 0's cat
    assert cat_spots(game) == {(1, 1)}


def test_r4_3_a_card_carrying_a_sleeping_cat_is_not_free():
    """R4.3: seat 0's sleeping card on (1,0): a fresh (2,0) below it gives no spot."""
    game = new_game(config(sleeping_per_player=1))
    sleep(game, (1, 0))
    place(game, BLANK, (0, 1))
    no_cat(game)
    place(game, BLANK, (2, 0))
    assert game.decision != "cat"


def _two_seat_box(cfg: GameConfig) -> Game:
    """Seat 0's cat on (0,0)+(1,0), seat 1 lays (0,1), seat 0 lays (0,2): one wall-less box."""
    game = new_game(cfg)
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    place(game, BLANK, (0, 1))
    place(game, BLANK, (0, 2))
    return game


def test_r4_4_own_colour_admits():
    """R4.4: a box holding one of the player's own cats admits another."""
    game = new_game(config())
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    place(game, BLANK, (0, -1))
    place(game, BLANK, (1, -1))
    assert cat_spots(game) == {(0, -1)}


@pytest.mark.parametrize(("entry", "spots"), [("friend_or_empty", set()), ("any", {(0, 1)})])
def test_r4_4_another_players_cat_bars_entry_unless_variant_any(entry: str, spots: set):
    """R4.4: seat 1 may not enter the box holding seat 0's cat and none of its own.
    Variant cat_entry: any lets it in."""
    game = _two_seat_box(config(rules={"cat_entry": entry}))
    place(game, BLANK, (1, 1))
    assert cat_spots(game) == spots


@pytest.mark.parametrize("counts", [True, False])
def test_r4_4_own_sleeping_cat_admits_under_either_majority_setting(counts: bool):
    """R4.4: seat 1's own sleeping cat in the box admits its awake cat, whatever
    sleeping_counts_for_majority says."""
    game = new_game(config(rules={"sleeping_counts_for_majority": counts}))
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    sleep(game, (0, 1))
    place(game, BLANK, (0, 2))
    place(game, BLANK, (1, 2))
    assert game.seat == 1
    assert cat_spots(game) == {(0, 2)}


@pytest.mark.parametrize(("entry", "spots"), [("friend_or_empty", set()), ("any", {(0, 0)})])
def test_r4_4_another_players_sleeping_cat_bars_entry(entry: str, spots: set):
    """R4.4: a box whose only cat is seat 0's sleeping cat is closed to seat 1 (not empty)."""
    game = new_game(config(rules={"cat_entry": entry}))
    sleep(game, (0, 1))
    place(game, BLANK, (1, 0))
    assert cat_spots(game) == spots


def test_r4_4_entry_is_judged_after_the_merge_the_fresh_card_causes():
    """R4.4: the fresh card joins an empty box to seat 0's box; the merged box bars seat 1.

    [E ][  ]   (0,1) is its own box (the start's E wall); (0,0)+(1,0) hold seat 0's cat
    [c0][f ]   (1,1) fresh: open to (0,1) and to (1,0), so one box with seat 0's cat
    """
    game = new_game(config(deck={"boxes": {"E": 3, "": 6}}), start="E")
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    place(game, BLANK, (0, 1))
    assert engine_boxes(game) == {fs((0, 0), (1, 0)), fs((0, 1))}
    place(game, BLANK, (-1, 0))
    place(game, BLANK, (1, 1))
    assert engine_boxes(game) == {fs((-1, 0), (0, 0), (1, 0), (0, 1), (1, 1))}
    assert game.decision != "cat"


def test_r4_4_a_box_holding_only_the_princess_counts_as_empty():
    """R4.4, R6.3: after the Princess evicts seat 0's only cat, seat 1 may enter that box."""
    game = new_game(config(deck={"boxes": {"": 8}, "princesses": 1}))
    stack(game, [[BLANK], ["princess"]], [BLANK, BLANK, BLANK, BLANK])
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    princess(game, (0, 0))
    place(game, BLANK, (0, 1))
    place(game, BLANK, (1, 1))
    assert game.seat == 1
    assert cat_spots(game) == {(0, 1)}


def test_r4_cats_only_from_the_supply():
    """R2.1, R4: with no awake cats in the supply, no cat decision ever comes."""
    game = new_game(config(cats_per_player=0))
    place(game, BLANK, (1, 0))
    assert game.decision != "cat"


# ================================================================ R5 items


def test_r5_1_r5_2_r5_3_items_go_on_free_open_seams_only():
    """R5.1: a drawn item goes on an open seam, long or short, never across a wall, laid by
    the player who drew it. R5.2: one item per seam. R5.3: with no free open seam, wasted.

        [  ]      (-1,0)  open long seam to the start
        [  ][  ]  (0,0) start, (0,1): open short seam
        [N ]      (1,0) "N" card: walled long seam
        [N ]      (2,0), (3,0): more "N" cards, walled seams only
    """
    cfg = config(deck={"boxes": {"": 6, "N": 3}, "toys": {"yarn": 1, "mouse": 1}, "sprayers": 1})
    game = new_game(cfg, start="")
    deck = [BLANK, "box:N", "box:N", "toy:yarn", BLANK, "toy:mouse", BLANK, "sprayer", BLANK]
    stack(game, [[BLANK], ["box:N"]], deck, exact=True)
    place(game, BLANK, (0, 1))
    place(game, "box:N", (1, 0))
    place(game, BLANK, (-1, 0))
    no_cat(game)
    box_action(game)  # seat 1 draws the yarn
    assert (game.seat, game.decision) == (1, "item")
    assert item_seams(game) == {fs((0, 0), (0, 1)), fs((-1, 0), (0, 0))}
    item(game, (-1, 0), (0, 0))
    place(game, "box:N", (2, 0))
    box_action(game)  # seat 0 draws the mouse: the long seam is taken (R5.2)
    assert item_seams(game) == {fs((0, 0), (0, 1))}
    item(game, (0, 0), (0, 1))
    place(game, "box:N", (3, 0))
    box_action(game)  # seat 1 draws the sprayer: no free open seam is left (R5.3)
    assert events(game)[-4:] == [
        {"event": "draw", "seat": 1, "card": "sprayer"},
        {"event": "item_wasted", "seat": 1, "kind": "sprayer"},
        {"event": "draw", "seat": 1, "card": "box:"},
        {"event": "end_trigger", "seat": 1, "reason": "deck_empty"},
    ]
    assert game.wasted == 1
    view = StateView(game.s, game.pr)
    assert view.stats[1, game.engine.types.index["sprayer"], ST_WASTED] == 1
    assert set(game.position().items) == {
        Item("yarn", (-1, 0), (0, 0)),
        Item("mouse", (0, 0), (0, 1)),
    }
    assert [e["seat"] for e in events(game, "item")] == [1, 0]


def test_r5_3_an_item_drawn_before_any_seam_exists_is_wasted():
    """R5.3: the first draw of the game is a toy and only the start card is down: wasted."""
    game = new_game(config(deck={"boxes": {"": 6}, "toys": {"yarn": 1}}))
    stack(game, [[BLANK], [BLANK]], ["toy:yarn", BLANK])
    box_action(game)
    assert events(game) == [
        {"event": "turn", "seat": 0, "phase": "normal", "action": "box"},
        {"event": "draw", "seat": 0, "card": "toy:yarn"},
        {"event": "item_wasted", "seat": 0, "kind": "yarn"},
        {"event": "draw", "seat": 0, "card": "box:"},
    ]
    assert game.decision == "play" and game.wasted == 1


def test_r5_1_an_item_may_lie_on_the_seam_under_a_cat():
    """R5.1 (worked example): a cat lying on two cards does not cover their seam."""
    game = new_game(config(deck={"boxes": {"": 6}, "toys": {"yarn": 1}}))
    stack(game, [[BLANK], [BLANK]], [BLANK, "toy:yarn", BLANK])
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    box_action(game)
    assert item_seams(game) == {fs((0, 0), (1, 0))}
    item(game, (0, 0), (1, 0))
    assert game.position().items == (Item("yarn", (0, 0), (1, 0)),)


# ================================================================ R6 the Princess


def _cats_in_two_boxes(cfg: GameConfig) -> Game:
    """Seat 0's cat on (0,0)+(1,0), seat 1's on (0,1)+(1,1), two boxes; seat 0 holds a Princess.

    [E ][  ]    start "E"; (1,1) is an E card turned (W wall): column 1 is its own box
    [c0][W c1]
    """
    game = new_game(cfg, start="E")
    stack(game, [["princess"], [BLANK]], [BLANK, "box:E", BLANK, BLANK])
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    place(game, BLANK, (0, 1))
    place(game, BLANK, (-1, 0))  # seat 0 keeps the Princess
    place(game, "box:E", (1, 1), turned=True)
    cat(game, (0, 1))
    assert engine_boxes(game) == {fs((-1, 0), (0, 0), (1, 0)), fs((0, 1), (1, 1))}
    return game


PRINCESS_DECK = {"boxes": {"E": 3, "": 6}, "princesses": 1}


def test_r6_1_the_princess_may_evict_any_awake_cat_own_included():
    """R6.1: seat 0's Princess is offered against both cats, seat 0's own and seat 1's, and
    lies on the evicted cat's two cards."""
    game = _cats_in_two_boxes(config(deck=PRINCESS_DECK))
    box_action(game)
    assert game.seat == 0
    targets = {rc(game, action_arg2(a)) for a in legal_of(game, A_PRINCESS)}
    assert targets == {(0, 0), (0, 1)}
    princess(game, (0, 0))
    pos = game.position()
    assert [(c.player, c.north) for c in pos.cats] == [(1, (0, 1))]
    assert [(p.north, p.south) for p in pos.princesses] == [((0, 0), (1, 0))]
    assert events(game, "princess") == [
        {"event": "princess", "seat": 0, "at": [[0, 0], [1, 0]], "evicted": 0}
    ]
    assert game.decision != "cat" and game.seat == 1  # no cat after a Princess (R3.1.3)


def test_r6_1_no_princess_while_no_awake_cat_is_on_the_table():
    """R6.1: with no awake cat down, a Princess in hand is not playable; with nothing else
    playable the player discards (R3.1), the Princess among the choices."""
    game = new_game(config(deck={"boxes": {"": 8}, "princesses": 1}))
    stack(game, [["princess"], [BLANK]], [BLANK])
    box_action(game)
    assert not legal_of(game, A_PRINCESS) and placement_cells(game)
    cfg = config(table={"columns": 1, "rows": 1}, deck={"boxes": {"": 8}, "princesses": 1})
    game = new_game(cfg, where=lambda g: "princess" in g.hand(0))
    assert {game.card_name(action_arg1(a)) for a in legal_of(game, A_DISCARD)} == set(game.hand(0))
    assert len(legal_of(game, A_DISCARD)) == len(game.legal())


@pytest.mark.parametrize(("variant", "back"), [("return", 1), ("discard", 0)])
def test_r6_2_the_evicted_cat_returns_to_its_owner_or_leaves_the_game(variant: str, back: int):
    """R6.2: the evicted cat goes back to its owner's supply; variant evicted_cat: discard
    removes it from the game."""
    cfg = config(cats_per_player=3, deck=PRINCESS_DECK, rules={"evicted_cat": variant})
    game = _cats_in_two_boxes(cfg)
    view = StateView(game.s, game.pr)
    assert list(view.awake) == [2, 2]
    princess(game, (0, 1))
    assert list(view.awake) == [2, 2 + back]
    assert view.seat_stats[1, PS_EVICTED] == 1


def test_r6_3_the_princess_is_nobodys_cat_and_cannot_be_evicted():
    """R6.3: she gives no cat bonus and leads no box; with only her on the table a second
    Princess has no target; her cards stay occupied (R4.3)."""
    cfg = config(deck={"boxes": {"": 8}, "toys": {"yarn": 1}, "princesses": 2})
    game = new_game(cfg)
    stack(game, [[BLANK], ["princess"]], [BLANK, "princess", "toy:yarn", BLANK, BLANK])
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    princess(game, (0, 0))  # seat 1 evicts the only cat
    box_action(game)  # seat 0 draws the yarn
    item(game, (0, 0), (1, 0))
    place(game, BLANK, (2, 0))
    assert game.decision != "cat"  # (1,0) carries the Princess
    box_action(game)  # seat 1: a Princess in hand, but no awake cat to evict
    assert sorted(game.hand(1)) == ["box:", "princess"]
    assert not legal_of(game, A_PRINCESS)
    assert scores(game) == (0, 0)
    assert game.outcome().cat_bonus == (0, 0)


# ================================================================ R7 the end


def test_r7_1_deck_empty_on_an_item_draw_triggers_and_the_item_is_still_laid():
    """R7.1: the draw of the last card triggers the end even when it is a toy, which is still
    laid; the turn finishes (play, optional cat) and the next turn is in the final phase."""
    cfg = config(deck={"boxes": {"": 5}, "toys": {"yarn": 1}})
    game = new_game(cfg)
    stack(game, [[BLANK], [BLANK]], [BLANK, BLANK, "toy:yarn"], exact=True)
    place(game, BLANK, (1, 0))
    no_cat(game)
    place(game, BLANK, (0, 1))
    box_action(game)
    assert game.trigger == "deck_empty" and game.decision == "item" and game.seat == 0
    item(game, (0, 0), (1, 0))
    assert game.decision == "play" and game.phase == "normal"
    place(game, BLANK, (2, 0))
    assert cat_spots(game) == {(1, 0)}  # the turn in progress finishes with its optional cat
    cat(game, (1, 0))
    assert game.phase == "final"
    log = events(game)
    i = log.index({"event": "draw", "seat": 0, "card": "toy:yarn"})
    assert log[i + 1] == {"event": "end_trigger", "seat": 0, "reason": "deck_empty"}
    assert log[i + 2]["event"] == "item"
    assert log[-1] == {"event": "turn", "seat": 1, "phase": "final", "action": "box"}


def test_r7_1_the_last_awake_cat_triggers_the_end():
    """R7.1: a placement that brings the seat's awake-cat supply to 0 triggers the end, logged
    right after the cat."""
    game = new_game(config(cats_per_player=1))
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    assert game.trigger == "last_cat" and game.phase == "final"
    assert events(game)[-3:-1] == [
        {"event": "cat", "seat": 0, "at": [[0, 0], [1, 0]]},
        {"event": "end_trigger", "seat": 0, "reason": "last_cat"},
    ]


def test_r7_1_the_first_trigger_is_the_one_recorded():
    """R7.1: seat 0 draws the last card (deck trigger), then lays its last cat: one trigger."""
    game = new_game(config(cats_per_player=1, deck={"boxes": {"": 4}}))
    assert game.deck_size == 1
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    assert game.trigger == "deck_empty"
    assert events(game, "end_trigger") == [
        {"event": "end_trigger", "seat": 0, "reason": "deck_empty"}
    ]


def test_r7_1_setup_that_empties_the_deck_triggers_before_the_first_turn():
    """R7.1: hands that take the whole deck trigger the end before any turn (seat -1)."""
    game = new_game(config(players=2, hand_size=2, deck={"boxes": {"": 5}}))
    assert game.deck_size == 0
    assert game.trigger == "deck_empty" and game.phase == "final"
    assert events(game) == [
        {"event": "end_trigger", "seat": -1, "reason": "deck_empty"},
        {"event": "turn", "seat": 0, "phase": "final", "action": "box"},
    ]
    assert game.decision == "play"  # no sleeping-cat choice in the final phase (R7.2)


def test_r7_2_final_phase_no_draw_no_sleeping_cat_each_plays_one_card():
    """R7.2: in the final phase nobody draws or may play a sleeping cat (supplies still full);
    each turn plays one card; R7.3: the game ends when every hand is empty."""
    game = new_game(config(players=2, hand_size=2, sleeping_per_player=2, deck={"boxes": {"": 5}}))
    seen = []
    while not game.over:
        assert game.decision in ("play", "cat")
        assert not legal_of(game, A_SLEEP_CHOICE)
        seen.append(game.seat)
        box = placement_cells(game)
        place(game, BLANK, sorted(box)[0])
        no_cat(game)
    assert seen == [0, 1, 0, 1]
    assert not events(game, "draw") and not events(game, "sleeping")
    assert list(StateView(game.s, game.pr).asleep) == [2, 2]
    assert game.turns == 4 and events(game)[-1]["event"] == "end"


def test_r7_2_final_phase_discard_when_nothing_fits():
    """R7.2: a player whose cards can none be played discards one."""
    cfg = config(table={"columns": 1, "rows": 1}, deck={"boxes": {"": 3}})
    game = new_game(cfg)
    assert game.phase == "final"
    discard(game, BLANK)
    discard(game, BLANK)
    assert game.over
    assert [e["event"] for e in events(game)] == [
        "end_trigger",
        "turn",
        "discard",
        "turn",
        "discard",
        "end",
    ]


def test_r7_2_an_empty_hand_is_skipped_in_the_final_phase():
    """R7.2: a player with an empty hand is skipped (logged as a skip turn). Hands never differ
    in size in natural play, so they are stacked 3-0-3 in a final phase set up at once."""
    cfg = config(players=3, hand_size=2, deck={"boxes": {"": 7}})
    game = new_game(cfg)
    assert game.phase == "final" and game.seat == 0
    stack(game, [[BLANK] * 3, [], [BLANK] * 3], [], exact=True)
    place(game, BLANK, (0, 1))
    assert game.seat == 2
    assert events(game)[-3:] == [
        {"event": "place", "seat": 0, "card": "box:", "at": [0, 1], "walls": ""},
        {"event": "turn", "seat": 1, "phase": "final", "action": "skip"},
        {"event": "turn", "seat": 2, "phase": "final", "action": "box"},
    ]
    for cell in [(0, 2), (0, 3), (0, 4), (0, 5), (0, 6)]:
        place(game, BLANK, cell)
        no_cat(game)
    assert game.over
    turns = [(e["seat"], e["action"]) for e in events(game, "turn")]
    assert turns == [(0, "box"), (1, "skip"), (2, "box")] * 3


def test_r7_3_an_evicted_cat_coming_back_does_not_cancel_the_trigger():
    """R7.3: seat 0's last cat triggers the end; seat 1's Princess sends it back to the supply;
    the final phase goes on and the game ends when the hands are empty."""
    game = new_game(config(cats_per_player=1, deck={"boxes": {"": 6}, "princesses": 1}))
    stack(game, [[BLANK], ["princess"]], [BLANK] * 4, exact=True)
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    assert game.trigger == "last_cat"
    princess(game, (0, 0))
    assert StateView(game.s, game.pr).awake[0] == 1
    assert game.trigger == "last_cat" and game.phase == "final"
    place(game, BLANK, (0, 1))
    assert game.over
    assert len(events(game, "end_trigger")) == 1


def test_r7_3_the_game_ends_exactly_when_every_hand_is_empty():
    """R7.3: over exactly when all hands are empty, never before."""
    game = new_game(config(players=3, hand_size=2, deck={"boxes": {"": 12}, "toys": {"yarn": 2}}))

    def check(g: Game) -> None:
        assert any(g.hand(p) for p in range(3))

    random_walk(game, 1, check)
    assert game.over and all(game.hand(p) == [] for p in range(3))
    assert game.events()[-1]["event"] == "end"


# ================================================================ R8 scoring


def test_r8_worked_example_built_by_play():
    """R8.2-R8.6 on the RULES.md worked example, built turn by turn (cat_entry: any lets seat 1
    into the box; the scoring rules do not depend on it). Scores after each step:

        [NW c0][NE c1]     yarn (0,0)|(0,1), mouse (0,0)|(1,0)      -> open box
        [SW c0][SE c1]     yarn (1,0)|(1,1), sprayer (0,1)|(1,1)    -> closed box
    """
    cfg = config(
        cats_per_player=2,
        deck={"boxes": {"NW": 2, "NE": 2, "": 6}, "toys": {"yarn": 2, "mouse": 1}, "sprayers": 1},
        rules={"cat_entry": "any"},
    )
    game = new_game(cfg, start="NW")
    top = [BLANK, "box:NW", "toy:yarn", "toy:mouse", BLANK, BLANK, "toy:yarn", "sprayer", BLANK]
    stack(game, [["box:NE"], ["box:NE"]], top)
    place(game, "box:NE", (1, 0), turned=True)  # SW
    cat(game, (0, 0))
    assert scores(game) == (1, 0)  # no items: value 0; cat bonus 1 (R8.5)
    place(game, "box:NE", (0, 1))
    box_action(game)
    item(game, (0, 0), (0, 1))
    item(game, (0, 0), (1, 0))
    place(game, BLANK, (-1, 0))  # walled off by the NW card's N wall: a box of its own
    # Open box, yarn 1 and mouse 1 tie: value 1, not 2 (R8.3), not doubled (R8.4).
    assert not engine_closed(game, (0, 0))
    assert scores(game) == (2, 0)
    place(game, "box:NW", (1, 1), turned=True)  # SE closes the box
    cat(game, (0, 1))
    # Closed: value 1 doubled (R8.4); tied leaders both score it in full (R8.2).
    assert engine_closed(game, (0, 0))
    assert scores(game) == (3, 3)
    box_action(game)
    item(game, (1, 0), (1, 1))
    item(game, (0, 1), (1, 1))
    place(game, BLANK, (-1, 1))
    # Yarn 2, mouse 1, sprayer 1: (2 - 1) * 2 = 2 each, plus 1 cat each: 3 - 3, a shared win.
    result = game.outcome()
    assert result.scores == (3, 3) and result.cat_bonus == (1, 1) and result.winners == (0, 1)
    main = fs((0, 0), (0, 1), (1, 0), (1, 1))
    rows = reference.score_position(game.position())["boxes"]
    (row,) = [r for r in rows if frozenset(map(tuple, r["cards"])) == main]
    assert (row["value"], row["closed"], row["leaders"]) == (2, True, [0, 1])
    assert scores(game) == (3, 3)


def test_r8_1_each_box_is_scored_on_its_own():
    """R8.1: two boxes split by walls, each led by another seat; pooled they would tie.

    [E c0 ][W c1 ]   box A: column 0, two yarns; box B: column 1, one yarn
    [E c0 ][W c1 ]   (cards with E or W walls only; the inner seam is walled)
    """
    cfg = config(deck={"boxes": {"E": 9}, "toys": {"yarn": 3}})
    game = new_game(cfg, start="E")
    top = ["box:E", "box:E", "toy:yarn", "box:E", "box:E", "toy:yarn", "box:E", "toy:yarn", "box:E"]
    stack(game, [["box:E"], ["box:E"]], top)
    place(game, "box:E", (1, 0))
    cat(game, (0, 0))
    place(game, "box:E", (0, 1), turned=True)
    box_action(game)
    item(game, (0, 0), (1, 0))
    place(game, "box:E", (2, 0))
    no_cat(game)
    place(game, "box:E", (1, 1), turned=True)
    cat(game, (0, 1))
    box_action(game)
    assert item_seams(game) == {fs((1, 0), (2, 0)), fs((0, 1), (1, 1))}
    item(game, (1, 0), (2, 0))
    place(game, "box:E", (2, 1), turned=True)
    no_cat(game)
    box_action(game)
    item(game, (1, 1), (2, 1))
    assert engine_boxes(game) == {fs((0, 0), (1, 0), (2, 0)), fs((0, 1), (1, 1), (2, 1))}
    # A: yarn 2 -> seat 0; B: yarn 1 -> seat 1; open boxes; cat bonus 1 each.
    assert scores(game) == (3, 2)
    assert game.outcome().winners == (0,)  # R8.6: a single winner


@pytest.mark.parametrize(("counts", "want"), [(True, (1, 2)), (False, (2, 2))])
def test_r8_2_sleeping_cats_count_for_the_majority_unless_the_variant_says_not(counts, want):
    """R8.2: one box with seat 0's awake cat and seat 1's awake and sleeping cats and a yarn:
    seat 1 leads alone (2 cats to 1); with sleeping_counts_for_majority false they tie.
    R8.5: the sleeping cat gives no bonus."""
    cfg = config(
        deck={"boxes": {"": 8}, "toys": {"yarn": 1}}, rules={"sleeping_counts_for_majority": counts}
    )
    game = new_game(cfg)
    stack(game, [[BLANK], [BLANK]], [BLANK, BLANK, "toy:yarn", BLANK])
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    sleep(game, (0, 1))
    place(game, BLANK, (0, -1))
    box_action(game)
    item(game, (0, 0), (0, 1))
    place(game, BLANK, (1, -1))
    cat(game, (0, -1))  # admitted by its own sleeping cat (R4.4)
    assert game.outcome().cat_bonus == (1, 1)
    assert scores(game) == want


def test_r8_3_sprayers_subtract_and_a_negative_value_costs_the_leader():
    """R8.3: a box with only a sprayer is worth -1; its leader loses a point (R8.6: the 0-0
    after the cat bonus is a shared win)."""
    cfg = config(deck={"boxes": {"": 8}, "sprayers": 1})
    game = new_game(cfg)
    stack(game, [[BLANK], [BLANK]], [BLANK, "sprayer", BLANK])
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    box_action(game)
    item(game, (0, 0), (1, 0))
    place(game, BLANK, (0, 1))
    result = game.outcome()
    assert result.scores == (0, 0) and result.winners == (0, 1)
    assert scores(game) == (0, 0)


def test_r8_4_a_closed_box_doubles_a_negative_value_too():
    """R8.4: the closed 2x2 square holds seat 0's cat and a sprayer: -1 doubled is -2.

    [NW c0][NE]    (-1,0) above the NW card is walled off: a box of its own
    [SW c0][SE]    sprayer on (0,0)|(1,0)
    """
    cfg = config(cats_per_player=2, deck={"boxes": {"NW": 2, "NE": 2, "": 4}, "sprayers": 1})
    game = new_game(cfg, start="NW")
    stack(game, [["box:NE"], ["box:NE"]], [BLANK, "box:NW", "sprayer", BLANK, BLANK])
    place(game, "box:NE", (1, 0), turned=True)
    cat(game, (0, 0))
    place(game, "box:NE", (0, 1))
    box_action(game)
    item(game, (0, 0), (1, 0))
    place(game, BLANK, (-1, 0))
    assert scores(game) == (0, 0)  # open: -1 + cat bonus 1
    place(game, "box:NW", (1, 1), turned=True)
    no_cat(game)
    assert engine_closed(game, (0, 0))
    assert scores(game) == (-1, 0)  # closed: -2 + cat bonus 1
    assert game.outcome().winners == (1,)


def test_r8_5_one_point_per_awake_cat_sleeping_cats_give_nothing():
    """R8.5: seat 0 has two awake cats, seat 1 one sleeping cat: bonuses 2 and 0. (The worked
    example test shows the bonus is not doubled in a closed box.)"""
    game = new_game(config())
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    sleep(game, (0, 1))
    place(game, BLANK, (0, -1))
    place(game, BLANK, (0, 2))
    place(game, BLANK, (1, -1))
    cat(game, (0, -1))
    assert game.outcome().cat_bonus == (2, 0)
    assert scores(game) == (2, 0)


def random_final(cfg: GameConfig, seed: int) -> Game:
    """A random game played to the end as `sim play` plays it (seat streams, random_action)."""
    from sim.policies.compiled import choose_random as random_action

    game = Game(engine_for(cfg), seed)
    streams = [game.seat_stream(p) for p in range(game.pr.players)]
    while not game.over:
        game.apply(random_action(game.s, game.pr, streams[game.seat], game.buf, 0))
    return game


def _led(row: dict) -> bool:
    return bool(row["leaders"])


WITNESSES = {
    "R8.2 tied leaders": lambda row: len(row["leaders"]) > 1 and row["value"] != 0,
    "R8.2 a sleeping cat decides the lead": lambda row: (
        _led(row)
        and row["leaders"] != [q for q, a in enumerate(row["awake"]) if a == max(row["awake"]) > 0]
    ),
    "R8.3 toy kinds tied for most": lambda row: (
        _led(row)
        and len(row["toys"]) > 1
        and list(row["toys"].values()).count(max(row["toys"].values())) > 1
    ),
    "R8.3 a negative box": lambda row: _led(row) and row["value"] < 0,
    "R8.4 a closed box worth points": lambda row: _led(row) and row["closed"] and row["value"] != 0,
}


@pytest.mark.parametrize("feature", sorted(WITNESSES))
def test_r8_random_final_positions_with_the_feature_score_as_the_reference(feature: str):
    """R8.1-R8.6: the first random game whose final table has the feature scores in the engine
    exactly as the slow reference scores its position (totals, bonus, winners)."""
    cfg = config(
        players=3,
        hand_size=2,
        cats_per_player=4,
        sleeping_per_player=2,
        table={"columns": 5, "rows": 5},
        deck={
            "boxes": {"": 5, "N": 5, "NE": 5, "NES": 4, "EW": 3},
            "princesses": 1,
            "toys": {"yarn": 4, "mouse": 4},
            "sprayers": 3,
        },
    )
    for seed in range(400):
        game = random_final(cfg, seed)
        ref = reference.score_position(game.position())
        if any(WITNESSES[feature](row) for row in ref["boxes"]):
            scores(game)
            return
    raise AssertionError(f"no random game shows {feature}")


def test_r8_6_the_highest_totals_share_the_win():
    """R8.6: winners are exactly the seats with the highest total; a tie is shared."""
    cfg = config(
        players=3,
        hand_size=2,
        deck={"boxes": {"": 6, "N": 6, "NE": 6}, "toys": {"yarn": 3}, "sprayers": 1},
    )
    shared = 0
    for seed in range(40):
        result = random_final(cfg, seed).outcome()
        best = max(result.scores)
        assert result.winners == tuple(q for q in range(3) if result.scores[q] == best)
        shared += len(result.winners) > 1
    assert shared > 0


# ================================================================ variants


def test_variant_match_sides_matching_needs_every_touching_pair_to_match():
    """Variant match_sides: matching: next to the wall-less start an "N" card goes south of it
    only turned (open N side), north of it only unturned, east or west either way.
    The canonical reading (any) offers all eight."""
    cfg = config(deck={"boxes": {"": 3, "N": 4}}, rules={"match_sides": "matching"})
    game = new_game(cfg, start="")
    stack(game, [["box:N"], ["box:N"]], ["box:N"])
    box_action(game)
    n = "box:N"
    assert placements(game) == {
        (n, True, (1, 0)),
        (n, False, (-1, 0)),
        (n, False, (0, 1)),
        (n, True, (0, 1)),
        (n, False, (0, -1)),
        (n, True, (0, -1)),
    }
    place(game, n, (0, 1))
    box_action(game)
    # (-1,1) faces the N wall of the card on (0,1) with its S side: only the turned card (S).
    got = {(t, cell) for card, t, cell in placements(game) if card == n}
    assert (True, (-1, 1)) in got and (False, (-1, 1)) not in got
    cfg_any = config(deck={"boxes": {"": 3, "N": 4}})
    game = new_game(cfg_any, start="")
    stack(game, [["box:N"], ["box:N"]], ["box:N"])
    box_action(game)
    assert len(placements(game)) == 8


def test_variant_match_sides_matching_in_random_games():
    """Variant match_sides: matching: in whole random games every offered placement matches
    every neighbour side for side, and every matching empty neighbour cell is offered."""
    cfg = config(
        players=3,
        hand_size=2,
        table={"columns": 40, "rows": 40},
        deck={"boxes": {"": 6, "N": 6, "NE": 6, "EW": 6, "NS": 4}},
        rules={"match_sides": "matching"},
    )
    from sim.walls import turned as turn

    def matches(cards: dict, cell: Cell, mask: int) -> bool:
        for dr, dc, mine, theirs in reference.STEPS:
            other = cards.get((cell[0] + dr, cell[1] + dc))
            if other is not None and bool(mask & mine) != bool(other & theirs):
                return False
        return True

    def check(game: Game) -> None:
        if game.decision != "play":
            return
        cards = game.position().cards
        want = set()
        for card in set(game.hand(game.seat)):
            if not card.startswith("box:"):
                continue
            mask = parse_walls(card.removeprefix("box:"))
            for cell in adjacent_empty(game):
                for t, m in ((False, mask), (True, turn(mask))):
                    if (not t or m != mask) and matches(cards, cell, m):
                        want.add((card, t, cell))
        assert placements(game) == want

    for seed in range(3):
        random_walk(new_game(cfg, seed=seed), seed, check)


def test_variant_cat_entry_any_lets_a_cat_into_another_players_box():
    """Variant cat_entry: any: seat 1's cat enters a box holding seat 0's awake and sleeping
    cats (R4.1-R4.3 still apply); the canonical friend_or_empty bars it."""
    for entry, want in (("any", {(0, 1)}), ("friend_or_empty", set())):
        game = new_game(config(rules={"cat_entry": entry}, sleeping_per_player=2))
        place(game, BLANK, (1, 0))
        cat(game, (0, 0))
        place(game, BLANK, (0, 1))
        sleep(game, (0, 2))
        place(game, BLANK, (1, 1))
        assert cat_spots(game) == want, entry


@pytest.mark.parametrize(
    ("variant", "supply", "trigger"), [("return", 1, "none"), ("discard", 0, "last_cat")]
)
def test_variant_evicted_cat_discard_takes_the_cat_out_of_the_game(variant, supply, trigger):
    """Variant evicted_cat: discard: seat 0's evicted cat does not come back, so its second cat
    is its last one and triggers the end (R7.1); returned, seat 0 still has one in supply."""
    cfg = config(
        cats_per_player=2, deck={"boxes": {"": 8}, "princesses": 1}, rules={"evicted_cat": variant}
    )
    game = new_game(cfg)
    stack(game, [[BLANK], ["princess"]], [BLANK, BLANK, BLANK, BLANK])
    place(game, BLANK, (1, 0))
    cat(game, (0, 0))
    princess(game, (0, 0))
    place(game, BLANK, (0, 1))
    place(game, BLANK, (0, 2))
    place(game, BLANK, (1, 1))
    cat(game, (0, 1))  # the box holds only the Princess: open to seat 0 (R4.4)
    assert StateView(game.s, game.pr).awake[0] == supply
    assert game.trigger == trigger


@pytest.mark.parametrize(("counts", "want"), [(True, (1, 0)), (False, (0, 0))])
def test_variant_sleeping_counts_for_majority_false_a_lone_sleeping_cat_leads_nothing(
    counts: bool, want: tuple[int, int]
):
    """Variant sleeping_counts_for_majority: false: a box whose only cat is seat 0's sleeping
    cat has no leader, so its yarn scores for nobody; by default seat 0 leads it (R8.2)."""
    cfg = config(
        deck={"boxes": {"": 8}, "toys": {"yarn": 1}}, rules={"sleeping_counts_for_majority": counts}
    )
    game = new_game(cfg)
    stack(game, [[BLANK], [BLANK]], ["toy:yarn", BLANK])
    sleep(game, (0, 1))
    box_action(game)
    item(game, (0, 0), (0, 1))
    place(game, BLANK, (0, -1))
    assert scores(game) == want
