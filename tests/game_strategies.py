"""The game a property test draws, assembled in one place: the deck and table it chose, a
sleeping-card wall set and every rule variant drawn, validated as a config would be."""

from __future__ import annotations

from hypothesis import strategies as st

from sim.config import GameConfig


def drawn_game(draw, *, players, hand_size, cats, sleeping, table, deck) -> GameConfig:
    """A GameConfig of the counts given (`table`: (columns, rows); `deck`: the deck block),
    with the sleeping-card walls and every rule variant drawn."""
    columns, rows = table
    return GameConfig.model_validate(
        {
            "players": players,
            "hand_size": hand_size,
            "cats_per_player": cats,
            "sleeping_per_player": sleeping,
            "sleeping_card_walls": draw(st.sampled_from(["", "N", "NS", "NE", "NESW"])),
            "table": {"columns": columns, "rows": rows},
            "deck": deck,
            "rules": {
                "match_sides": draw(st.sampled_from(["any", "matching"])),
                "cat_entry": draw(st.sampled_from(["friend_or_empty", "any"])),
                "evicted_cat": draw(st.sampled_from(["return", "discard"])),
                "sleeping_counts_for_majority": draw(st.booleans()),
            },
        }
    )
