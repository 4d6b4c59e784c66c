"""Turn parity against deck size: which deck sizes give every seat the same number of turns.

A normal turn draws cards until one reaches the hand (R3.1), so the box and
Princess cards left in the deck after the deal set how many turns the normal
phase lasts, and the end comes at whichever seat draws the last one (R7.1);
the final phase then gives each seat one turn per card in hand (R7.2). Whether
every seat takes the same number of turns is thus a matter of the deck size
modulo the player count, and of how often the last-cat trigger or sleeping
cats shift it. `deck_scan` measures it: for each player count and each number
of box cards around the config's, a few hundred games with the config's
line-up (`sim turns` prints the table, the run report draws it).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from sim import specs
from sim.config import StudyConfig
from sim.engine.state import PS_TURNS
from sim.errors import ConfigError
from sim.runs.play import play_arrays
from sim.runs.results import G_TURNS, P_SEAT_STATS

SCAN_GAMES = 300  # games per deck size and player count
FAST = specs.chunk_games("greedy")  # slower policies are played by greedy in a scan
EQUAL = 0.95  # "every seat gets equal turns": in at least this share of the games


def resized_boxes(boxes: dict[str, int], total: int) -> dict[str, int]:
    """The box counts scaled to `total` cards, keeping the mix (largest remainders)."""
    have = sum(boxes.values())
    if total <= 0 or have == 0:
        return {k: 0 for k in boxes}
    exact = np.array([n * total / have for n in boxes.values()])
    counts = np.floor(exact).astype(int)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: total - counts.sum()]] += 1
    return {k: int(n) for k, n in zip(boxes, counts, strict=True)}


def scan_lineup(study: StudyConfig, players: int) -> tuple[list[dict], bool]:
    """The study's line-up cycled or cut to `players` seats, slow policies (look-ahead, your
    own) played by greedy; and whether any seat was replaced."""
    seats, replaced = [], False
    for i in range(players):
        seat = study.seats[i % len(study.seats)]
        if specs.chunk_games(seat.policy) < FAST:
            seats.append({"policy": "greedy"})
            replaced = True
        else:
            seats.append(seat.to_dict())
    return seats, replaced


def deck_scan(
    study: StudyConfig,
    *,
    players: Iterable[int] | None = None,
    deltas: Iterable[int] | None = None,
    games: int = SCAN_GAMES,
) -> pd.DataFrame:
    """Turns per game and per seat for each player count (default 2–5) and box-card count
    (default the config's ± players), `games` games each from the study's seed.

    One row per point: players, boxes (box cards in the deck), hand_cards (boxes and
    Princesses), games, turns (mean per game), turns_min, turns_max, seat_turns (mean turns
    per seat, seat order), equal (share of games in which every seat took as many turns),
    extra0 (share in which seat 0 took more than the fewest), all_equal (equal ≥ EQUAL),
    replaced (slow seats played by greedy). Box counts the config rejects are skipped.
    """
    base = study.game.deck.boxes
    total = sum(base.values())
    rows = []
    for n in players or (2, 3, 4, 5):
        seats, replaced = scan_lineup(study, n)
        for d in deltas if deltas is not None else range(-n, n + 1):
            boxes = resized_boxes(dict(base), total + d)
            try:
                point = study.with_overrides(
                    players=n, seats=seats, games=games, **{"deck.boxes": boxes}
                )
            except ConfigError:
                continue  # too few cards to deal, say
            chunk = play_arrays(point, 0, games)
            taken = chunk.seats[:, :, P_SEAT_STATS + PS_TURNS]
            turns = chunk.games[:, G_TURNS]
            equal = (taken.max(axis=1) == taken.min(axis=1)).mean()
            rows.append(
                {
                    "players": n,
                    "boxes": total + d,
                    "hand_cards": total + d + point.game.deck.princesses,
                    "games": games,
                    "turns": float(turns.mean()),
                    "turns_min": int(turns.min()),
                    "turns_max": int(turns.max()),
                    "seat_turns": tuple(float(x) for x in taken.mean(axis=0)),
                    "equal": float(equal),
                    "extra0": float((taken[:, 0] > taken.min(axis=1)).mean()),
                    "all_equal": bool(equal >= EQUAL),
                    "replaced": replaced,
                }
            )
    return pd.DataFrame(rows)


def scan_text(study: StudyConfig, scan: pd.DataFrame) -> str:
    """`sim turns`' table: one line per player count and deck size."""
    games = int(scan["games"].iloc[0]) if len(scan) else 0
    lineup = ", ".join(s.label for s in study.seats)
    lines = [
        f"{study.name}: turns per seat against deck size ({games} games per point, seed"
        f" {study.seed}; line-up {lineup}, cycled to the player count)",
        f"{'players':>7} {'box cards':>9} {'turns/game':>10} {'range':>7}  {'turns per seat':<30}"
        f" {'equal turns':>11}",
    ]
    for r in scan.itertuples():
        per_seat = " ".join(f"{x:.2f}" for x in r.seat_turns)
        mark = "  every seat equal" if r.all_equal else ""
        base = " (config)" if r.boxes == sum(study.game.deck.boxes.values()) else ""
        lines.append(
            f"{r.players:>7} {r.boxes:>9} {r.turns:>10.2f} {r.turns_min:>3}-{r.turns_max:<3}"
            f"  {per_seat:<30} {r.equal:>11.0%}{mark}{base}"
        )
    if len(scan) and scan["replaced"].any():
        lines.append("(look-ahead and your own policies were played by greedy, for speed)")
    return "\n".join(lines)
