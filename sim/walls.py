"""Wall strings and 4-bit wall masks (R1.2, R1.3).

A card's walls are a bitmask over its four sides, N=1, E=2, S=4, W=8; a
180-degree turn swaps N<->S and E<->W.
"""

from __future__ import annotations

from sim.errors import ConfigError

N, E, S, W = 1, 2, 4, 8
SIDES = "NESW"
SIDE_BITS = {"N": N, "E": E, "S": S, "W": W}


def parse_walls(text: str, *, where: str = "walls", error: type[Exception] = ConfigError) -> int:
    """Parse a wall string such as "NE" into a mask; letters in any order, each once (R1.2)."""
    if not isinstance(text, str):
        raise error(f"{where}: wall string must be text like 'NE', got {text!r}")
    mask = 0
    for letter in text:
        bit = SIDE_BITS.get(letter)
        if bit is None:
            raise error(
                f"{where}: malformed wall string {text!r}: {letter!r} is not one of N, E, S, W"
            )
        if mask & bit:
            raise error(f"{where}: malformed wall string {text!r}: {letter!r} appears twice")
        mask |= bit
    return mask


def _letters(mask: int) -> str:
    return "".join(letter for letter in SIDES if mask & SIDE_BITS[letter])


_WALL_STRINGS = tuple(_letters(mask) for mask in range(16))  # a replay writes thousands


def walls_str(mask: int) -> str:
    """Write a mask as letters in NESW order ("" for no walls); bits above W are no side."""
    return _WALL_STRINGS[int(mask) & 15]


def turned(mask: int) -> int:
    """The mask of a card turned by 180 degrees (R1.3)."""
    return ((mask & 3) << 2) | ((mask >> 2) & 3)


def canonical(mask: int) -> int:
    """One representative per card up to turning: the smaller of mask and turned(mask)."""
    return min(mask, turned(mask))
