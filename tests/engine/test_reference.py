"""The slow reference scoring: hand-worked positions, one test (or more) per rule id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.config import Rules
from sim.engine.position import AwakeCat, Cell, Item, Position, Princess
from sim.engine.position_io import load_position, validate_position
from sim.engine.reference import boxes, is_closed, is_open_seam, score_position
from sim.walls import parse_walls

POSITIONS = Path(__file__).resolve().parents[2] / "configs" / "positions"
EXPECTED = json.loads((POSITIONS / "expected.json").read_text(encoding="utf-8"))


def make(
    cards: dict[Cell, str],
    *,
    players: int = 2,
    cats: tuple[tuple[int, Cell, Cell], ...] = (),
    sleeping: dict[Cell, int] | None = None,
    princesses: tuple[tuple[Cell, Cell], ...] = (),
    items: tuple[tuple[str, Cell, Cell], ...] = (),
    rules: Rules | None = None,
) -> Position:
    """A Position from wall strings and tuples, checked like a position file so tests stay legal."""
    pos = Position(
        players=players,
        cards={cell: parse_walls(walls) for cell, walls in cards.items()},
        sleeping=dict(sleeping or {}),
        cats=tuple(AwakeCat(player=p, north=n, south=s) for p, n, s in cats),
        princesses=tuple(Princess(north=n, south=s) for n, s in princesses),
        items=tuple(Item(kind=k, a=a, b=b) for k, a, b in items),
        rules=rules or Rules(),
    )
    validate_position(pos, source="test")
    return pos


# A closed 2x2 box, all inner seams open (the worked example's cards):
#   (0,0) NW | (0,1) NE
#   (1,0) SW | (1,1) SE
SQUARE = {(0, 0): "NW", (1, 0): "SW", (0, 1): "NE", (1, 1): "SE"}
WEST_CAT = (0, (0, 0), (1, 0))
EAST_CAT = (1, (0, 1), (1, 1))


def box_cells(pos: Position) -> list[set[Cell]]:
    return [set(box) for box in boxes(pos)]


# ---------------------------------------------------------------- example files


def test_every_example_file_has_an_expectation() -> None:
    files = {p.name for p in POSITIONS.glob("*.json")} - {"expected.json"}
    assert files == set(EXPECTED)
    assert all(entry["why"] for entry in EXPECTED.values())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_positions_score_as_worked_by_hand(name: str) -> None:
    """configs/positions/*.json score as expected.json says (worked by hand from RULES.md)."""
    assert score_position(load_position(POSITIONS / name))["scores"] == EXPECTED[name]["scores"]


def test_worked_example_in_full() -> None:
    """RULES.md worked example: one closed box worth 2 to both tied leaders, 3 - 3."""
    result = score_position(load_position(POSITIONS / "worked_example.json"))
    assert result == {
        "scores": [3, 3],
        "cat_bonus": [1, 1],
        "box_points": [2, 2],
        "winners": [0, 1],
        "boxes": [
            {
                "cards": [[0, 0], [0, 1], [1, 0], [1, 1]],
                "closed": True,
                "cats": [1, 1],
                "awake": [1, 1],
                "sleeping": [0, 0],
                "leaders": [0, 1],
                "toys": {"mouse": 1, "yarn": 2},
                "sprayers": 1,
                "value": 2,
            }
        ],
    }


def test_sleeping_variant_file_changes_the_result() -> None:
    """R8.2 variant: the same table scores differently with sleeping_counts_for_majority off."""
    default = score_position(load_position(POSITIONS / "sleeping_majority.json"))
    awake_only = score_position(load_position(POSITIONS / "sleeping_majority_awake_only.json"))
    assert default["boxes"][0]["leaders"] == [1]
    assert awake_only["boxes"][0]["leaders"] == [0, 1]
    assert default["scores"] != awake_only["scores"]


# ---------------------------------------------------------------- R1.6 seams


@pytest.mark.parametrize(
    ("west", "east", "open_"),
    [("", "", True), ("E", "", False), ("", "W", False), ("E", "W", False), ("W", "E", True)],
)
def test_r1_6_short_seam_open_only_if_both_touching_sides_open(
    west: str, east: str, open_: bool
) -> None:
    """R1.6: (0,0)|(0,1) is open iff (0,0)'s E side and (0,1)'s W side are both open."""
    pos = make({(0, 0): west, (0, 1): east})
    assert is_open_seam(pos, (0, 0), (0, 1)) is open_
    assert is_open_seam(pos, (0, 1), (0, 0)) is open_


@pytest.mark.parametrize(
    ("north", "south", "open_"),
    [("", "", True), ("S", "", False), ("", "N", False), ("N", "S", True), ("EW", "EW", True)],
)
def test_r1_6_long_seam_open_only_if_both_touching_sides_open(
    north: str, south: str, open_: bool
) -> None:
    """R1.6: (0,0)|(1,0) is open iff (0,0)'s S side and (1,0)'s N side are both open."""
    pos = make({(0, 0): north, (1, 0): south})
    assert is_open_seam(pos, (0, 0), (1, 0)) is open_


def test_r1_6_no_seam_without_two_adjacent_cards() -> None:
    """R1.6: diagonal cards, or a card and an empty cell, share no seam."""
    pos = make({(0, 0): "", (0, 1): "", (1, 1): ""})
    assert not is_open_seam(pos, (0, 0), (1, 1))
    assert not is_open_seam(pos, (0, 0), (1, 0))
    assert not is_open_seam(pos, (0, 0), (0, 0))


# ---------------------------------------------------------------- R1.7 boxes


def test_r1_7_walled_card_is_a_box_by_itself() -> None:
    """R1.7: a card with no open seam to any neighbour is its own box."""
    pos = make({(0, 0): "", (0, 1): "", (1, 0): "NESW"})
    assert box_cells(pos) == [{(0, 0), (0, 1)}, {(1, 0)}]


def test_r1_7_one_wall_splits_a_row() -> None:
    """R1.7: a row of four with one walled seam in the middle is two boxes."""
    pos = make({(0, 0): "", (0, 1): "E", (0, 2): "", (0, 3): ""})
    assert box_cells(pos) == [{(0, 0), (0, 1)}, {(0, 2), (0, 3)}]


def test_r1_7_box_is_the_whole_connected_set() -> None:
    """R1.7: boxes are maximal, reaching round corners through chains of open seams."""
    # (0,0) (0,1) (0,2)      row 0 all open, (1,1) walled off, (1,0)/(1,2) hang below
    # (1,0) [1,1] (1,2)
    pos = make({(0, 0): "", (0, 1): "", (0, 2): "", (1, 0): "E", (1, 1): "NESW", (1, 2): "W"})
    assert box_cells(pos) == [{(0, 0), (0, 1), (0, 2), (1, 0), (1, 2)}, {(1, 1)}]


def test_r1_7_new_card_merges_two_boxes() -> None:
    """R1.7: a card opening seams to two boxes merges them into one."""
    # (0,0) N   ?   (0,2) N      row 1 is three all-wall cards
    # (1,0) #  (1,1) #  (1,2) #
    base = {(0, 0): "N", (0, 2): "N", (1, 0): "NESW", (1, 1): "NESW", (1, 2): "NESW"}
    assert {(0, 0)} in box_cells(make(base)) and {(0, 2)} in box_cells(make(base))
    merged = make({**base, (0, 1): "N"})
    assert {(0, 0), (0, 1), (0, 2)} in box_cells(merged)
    assert len(boxes(merged)) == 4


def test_r1_7_boxes_sorted_by_smallest_card() -> None:
    pos = make({(0, 1): "W", (0, 0): "E", (-1, 1): "NEW", (1, 0): "N"})
    assert [min(box) for box in boxes(pos)] == [(-1, 1), (0, 0), (1, 0)]


# ---------------------------------------------------------------- R1.8 closed boxes


def test_r1_8_open_side_onto_empty_cell_leaves_box_open() -> None:
    """R1.8: one open side that touches no card keeps the box open."""
    pos = make({(0, 0): "NW", (0, 1): "NE", (1, 0): "SW", (1, 1): "E"})  # (1,1) S is open
    (box,) = boxes(pos)
    assert not is_closed(pos, box)


def test_r1_8_all_open_sides_on_cards_is_closed() -> None:
    """R1.8: the worked example's square is closed."""
    pos = make(SQUARE)
    (box,) = boxes(pos)
    assert is_closed(pos, box)


def test_r1_8_open_side_sealed_by_neighbours_wall() -> None:
    """R1.8: an open side against a neighbour's wall is sealed; the box is closed."""
    # (0,0) "" is open on all four sides; each neighbour turns a wall to it.
    pos = make({(0, 0): "", (-1, 0): "S", (0, 1): "W", (1, 0): "N", (0, -1): "E"})
    assert {(0, 0)} in box_cells(pos)
    assert is_closed(pos, frozenset({(0, 0)}))
    # The neighbours themselves are each open to the outside.
    assert not is_closed(pos, frozenset({(-1, 0)}))


def test_r1_8_card_with_four_walls_is_closed() -> None:
    pos = make({(0, 0): "NESW"})
    assert is_closed(pos, frozenset({(0, 0)}))


def test_r1_8_every_card_of_the_box_is_checked() -> None:
    """R1.8: a leak on the last card of a long box still opens it."""
    cards = {(0, c): "NS" for c in range(5)}
    cards[(0, 0)] = "NSW"
    assert not is_closed(make(cards), frozenset(cards))
    cards[(0, 4)] = "NES"
    assert is_closed(make(cards), frozenset(cards))


# ---------------------------------------------------------------- R8.1 each box on its own


def test_r8_1_boxes_scored_separately() -> None:
    """R8.1: two boxes side by side, each with its own leader, toys and value."""
    # West box (0,0)+(1,0) and east box (0,1)+(1,1): the inner sides are walled.
    cards = {(0, 0): "NEW", (1, 0): "ESW", (0, 1): "NEW", (1, 1): "ESW"}
    pos = make(
        cards,
        cats=(WEST_CAT, EAST_CAT),
        items=(("yarn", (0, 0), (1, 0)), ("mouse", (0, 1), (1, 1))),
    )
    result = score_position(pos)
    assert [row["leaders"] for row in result["boxes"]] == [[0], [1]]
    assert [row["toys"] for row in result["boxes"]] == [{"yarn": 1}, {"mouse": 1}]
    assert [row["value"] for row in result["boxes"]] == [2, 2]
    assert result["box_points"] == [2, 2]


# ---------------------------------------------------------------- R8.2 majority


def test_r8_2_more_cats_lead_alone() -> None:
    """R8.2: with 2 cats against 1, only the player with 2 scores the box."""
    # Closed 3x2 box: player 0 has two awake cats, player 1 one sleeping cat on (2,0).
    cards = {(0, 0): "NW", (1, 0): "W", (2, 0): "SW", (0, 1): "NE", (1, 1): "E", (2, 1): "SE"}
    pos = make(
        cards,
        cats=((0, (0, 0), (1, 0)), (0, (0, 1), (1, 1))),
        sleeping={(2, 0): 1},
        items=(("yarn", (2, 0), (2, 1)),),
    )
    row = score_position(pos)["boxes"][0]
    assert row["cats"] == [2, 1]
    assert row["leaders"] == [0]
    assert score_position(pos)["box_points"] == [2, 0]


def test_r8_2_tied_leaders_all_score_in_full() -> None:
    """R8.2: tied leaders each score the whole value, not a share."""
    pos = make(SQUARE, cats=(WEST_CAT, EAST_CAT), items=(("yarn", (0, 0), (0, 1)),))
    assert score_position(pos)["box_points"] == [2, 2]


def test_r8_2_three_players_two_tied_leaders() -> None:
    """R8.2: in a 3-player box with counts 1, 1, 0, seats 0 and 1 lead; seat 2 gets nothing."""
    pos = make(SQUARE, players=3, cats=(WEST_CAT, EAST_CAT), items=(("mouse", (1, 0), (1, 1)),))
    result = score_position(pos)
    assert result["boxes"][0]["leaders"] == [0, 1]
    assert result["scores"] == [3, 3, 0]


def test_r8_2_a_box_without_cats_has_no_leader() -> None:
    """R8.2: a leader needs at least one cat; an empty box scores for nobody."""
    pos = make(SQUARE, items=(("yarn", (0, 0), (0, 1)),))
    result = score_position(pos)
    assert result["boxes"][0]["leaders"] == []
    assert result["scores"] == [0, 0]
    assert result["winners"] == [0, 1]


def test_r8_2_sleeping_cats_count_by_default() -> None:
    """R8.2: a sleeping cat counts like an awake one for the majority."""
    pos = make(
        SQUARE, cats=(WEST_CAT,), sleeping={(0, 1): 1, (1, 1): 1}, items=(("yarn", (0, 0), (0, 1)),)
    )
    row = score_position(pos)["boxes"][0]
    assert (row["awake"], row["sleeping"], row["cats"]) == ([1, 0], [0, 2], [1, 2])
    assert row["leaders"] == [1]
    assert score_position(pos)["scores"] == [1, 2]


def test_r8_2_variant_sleeping_cats_do_not_count() -> None:
    """R8.2 variant sleeping_counts_for_majority=false: only awake cats count."""
    pos = make(
        SQUARE,
        cats=(WEST_CAT,),
        sleeping={(0, 1): 1, (1, 1): 1},
        items=(("yarn", (0, 0), (0, 1)),),
        rules=Rules(sleeping_counts_for_majority=False),
    )
    row = score_position(pos)["boxes"][0]
    assert row["cats"] == [1, 0]
    assert row["sleeping"] == [0, 2]  # still reported, just not counted
    assert row["leaders"] == [0]
    assert score_position(pos)["scores"] == [3, 0]


def test_r8_2_variant_box_of_sleeping_cats_only_has_no_leader() -> None:
    """R8.2 variant: with only sleeping cats in a box, nobody reaches a count of 1."""
    pos = make(
        SQUARE,
        sleeping={(0, 0): 0},
        items=(("yarn", (0, 0), (0, 1)),),
        rules=Rules(sleeping_counts_for_majority=False),
    )
    assert score_position(pos)["boxes"][0]["leaders"] == []


# ---------------------------------------------------------------- R8.3 box value


def test_r8_3_only_the_most_numerous_kind_counts() -> None:
    """R8.3: yarn 2 and mouse 1 give 2, not 3."""
    pos = make(
        SQUARE,
        cats=(WEST_CAT,),
        items=(("yarn", (0, 0), (0, 1)), ("yarn", (1, 0), (1, 1)), ("mouse", (0, 0), (1, 0))),
    )
    assert score_position(pos)["boxes"][0]["value"] == 4  # 2, doubled (R8.4)


def test_r8_3_tied_kinds_count_once() -> None:
    """R8.3: yarn 2 and mouse 2 give 2."""
    pos = make(
        SQUARE,
        cats=(WEST_CAT,),
        items=(
            ("yarn", (0, 0), (0, 1)),
            ("yarn", (1, 0), (1, 1)),
            ("mouse", (0, 0), (1, 0)),
            ("mouse", (0, 1), (1, 1)),
        ),
    )
    row = score_position(pos)["boxes"][0]
    assert row["toys"] == {"mouse": 2, "yarn": 2}
    assert row["value"] == 4  # 2, doubled (R8.4)


def test_r8_3_sprayers_subtract_and_are_not_a_toy_kind() -> None:
    """R8.3: 3 sprayers outnumber 1 yarn but do not count as the top kind; value 1 - 3."""
    pos = make(
        SQUARE,
        cats=(WEST_CAT,),
        items=(
            ("yarn", (0, 0), (0, 1)),
            ("sprayer", (1, 0), (1, 1)),
            ("sprayer", (0, 0), (1, 0)),
            ("sprayer", (0, 1), (1, 1)),
        ),
    )
    row = score_position(pos)["boxes"][0]
    assert row["toys"] == {"yarn": 1}
    assert row["sprayers"] == 3
    assert row["value"] == -4  # (1 - 3) doubled (R8.4)
    assert score_position(pos)["scores"] == [-3, 0]


def test_r8_3_sprayer_without_toys_is_negative() -> None:
    """R8.3: no toys and one sprayer is worth -1; the leader loses the point."""
    pos = make({(0, 0): "EW", (1, 0): "EW"}, cats=(WEST_CAT,), items=(("sprayer", (0, 0), (1, 0)),))
    result = score_position(pos)
    assert result["boxes"][0]["value"] == -1  # open box (N and S face nothing): not doubled
    assert result["scores"] == [0, 0]  # -1 box + 1 cat bonus


def test_r8_3_empty_box_is_worth_zero() -> None:
    pos = make({(0, 0): "NESW"})
    assert score_position(pos)["boxes"][0]["value"] == 0


# ---------------------------------------------------------------- R8.4 closed bonus


def test_r8_4_closed_box_doubles_open_box_does_not() -> None:
    """R8.4: the same toys are worth 2 in the closed square and 1 when one side leaks."""
    items = (("yarn", (0, 0), (0, 1)),)
    closed = make(SQUARE, cats=(WEST_CAT,), items=items)
    leaky = make({**SQUARE, (1, 1): "E"}, cats=(WEST_CAT,), items=items)
    assert score_position(closed)["boxes"][0]["value"] == 2
    assert score_position(leaky)["boxes"][0]["value"] == 1
    assert score_position(leaky)["boxes"][0]["closed"] is False


def test_r8_4_negative_value_is_doubled_too() -> None:
    """R8.4: a closed box worth -1 before the bonus costs its leader 2."""
    pos = make(SQUARE, cats=(WEST_CAT,), items=(("sprayer", (0, 0), (0, 1)),))
    assert score_position(pos)["boxes"][0]["value"] == -2


# ---------------------------------------------------------------- R8.5 cat bonus


def test_r8_5_cat_bonus_counts_awake_cats_only_and_is_not_doubled() -> None:
    """R8.5: 1 per awake cat (even in a worthless box), nothing for sleeping cats, never doubled."""
    # Closed square with 2 awake cats of player 0 and no items; player 1 has two sleeping cats.
    cards = {**SQUARE, (0, 2): "NEW", (1, 2): "ESW"}
    pos = make(
        cards,
        cats=(WEST_CAT, (0, (0, 1), (1, 1))),
        sleeping={(0, 2): 1, (1, 2): 1},
    )
    result = score_position(pos)
    assert result["cat_bonus"] == [2, 0]
    assert result["box_points"] == [0, 0]
    assert result["scores"] == [2, 0]


def test_r6_3_princess_counts_for_nobody() -> None:
    """R6.3: the Princess adds to no majority and no cat bonus, even alone in a valuable box."""
    pos = make(
        SQUARE, cats=(EAST_CAT,), princesses=(((0, 0), (1, 0)),), items=(("yarn", (0, 0), (0, 1)),)
    )
    result = score_position(pos)
    assert result["boxes"][0]["cats"] == [0, 1]
    assert result["boxes"][0]["leaders"] == [1]
    assert result["cat_bonus"] == [0, 1]
    alone = make(SQUARE, princesses=(((0, 0), (1, 0)),), items=(("yarn", (0, 0), (0, 1)),))
    assert score_position(alone)["boxes"][0]["leaders"] == []
    assert score_position(alone)["scores"] == [0, 0]


# ---------------------------------------------------------------- R8.6 winners, item ownership


def test_r8_6_highest_total_wins_alone() -> None:
    pos = make(SQUARE, cats=(WEST_CAT,), items=(("yarn", (0, 0), (0, 1)),))
    result = score_position(pos)
    assert result["scores"] == [3, 0]
    assert result["winners"] == [0]


def test_r8_6_tied_totals_share_the_win() -> None:
    """R8.6: equal highest totals all win, including when the best total is negative."""
    pos = make(SQUARE, players=3, cats=(WEST_CAT, EAST_CAT), items=(("sprayer", (0, 0), (0, 1)),))
    result = score_position(pos)
    assert result["scores"] == [-1, -1, 0]
    assert result["winners"] == [2]
    tied = make(SQUARE, cats=(WEST_CAT, EAST_CAT))
    assert score_position(tied)["winners"] == [0, 1]


def test_r8_6_item_belongs_to_the_box_both_its_cards_are_in() -> None:
    """R8.6: toys on the seams of one box never count for its walled neighbour."""
    # West box (0,0)+(1,0), east box (0,1)+(1,1); the items lie on the east long seam.
    cards = {(0, 0): "NEW", (1, 0): "ESW", (0, 1): "NW", (1, 1): "SW"}
    pos = make(cards, cats=(WEST_CAT,), items=(("yarn", (0, 1), (1, 1)),))
    result = score_position(pos)
    assert [row["toys"] for row in result["boxes"]] == [{}, {"yarn": 1}]
    assert result["box_points"] == [0, 0]


# ---------------------------------------------------------------- properties


def _union_find_boxes(pos: Position) -> set[frozenset[Cell]]:
    """Boxes by union-find over open seams: an independent route to R1.7."""
    parent = {cell: cell for cell in pos.cards}

    def find(cell: Cell) -> Cell:
        while parent[cell] != cell:
            cell = parent[cell]
        return cell

    for a in pos.cards:
        for b in ((a[0], a[1] + 1), (a[0] + 1, a[1])):
            if is_open_seam(pos, a, b):
                parent[find(a)] = find(b)
    groups: dict[Cell, set[Cell]] = {}
    for cell in pos.cards:
        groups.setdefault(find(cell), set()).add(cell)
    return {frozenset(group) for group in groups.values()}


@st.composite
def layouts(draw: st.DrawFn) -> Position:
    """A connected layout: a random walk of cells with random walls."""
    cells = [(0, 0)]
    for _ in range(draw(st.integers(0, 14))):
        r, c = draw(st.sampled_from(cells))
        dr, dc = draw(st.sampled_from([(-1, 0), (1, 0), (0, -1), (0, 1)]))
        if (r + dr, c + dc) not in cells:
            cells.append((r + dr, c + dc))
    return Position(players=2, cards={cell: draw(st.integers(0, 15)) for cell in cells})


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_r1_7_bfs_boxes_equal_union_find_boxes(pos: Position) -> None:
    """R1.7: BFS boxes partition the cards exactly as union-find over open seams does."""
    found = boxes(pos)
    assert set(found) == _union_find_boxes(pos)
    assert sum(len(box) for box in found) == len(pos.cards)
    assert found == sorted(found, key=min)


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_r1_8_closed_iff_no_open_side_faces_an_empty_cell(pos: Position) -> None:
    """R1.8 counted another way: a box is closed iff its leaking sides number zero."""
    for box in boxes(pos):
        leaks = 0
        for r, c in box:
            mask = pos.cards[(r, c)]
            for bit, other in ((1, (r - 1, c)), (2, (r, c + 1)), (4, (r + 1, c)), (8, (r, c - 1))):
                leaks += not mask & bit and other not in pos.cards
        assert is_closed(pos, box) is (leaks == 0)
