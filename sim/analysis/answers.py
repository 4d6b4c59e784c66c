"""The numbers a run's first sentences rest on, as plain data (`sim.analysis.findings` writes
them as words; `summary.json` keeps them).

Pure: a run's `players` (and `games`) frames and the moments of every game in, a record out.
The calls are those of the long verdict (`sim.analysis.balance.seat_call`), so the short
sentence and the tests behind it never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from sim.analysis.balance import (
    n_seats,
    policy_win_shares,
    seat0_turn_split,
    seat_call,
    seat_win_shares,
)
from sim.analysis.moments import Moments


@dataclass(frozen=True)
class SeatShare:
    """A seat's win share with its 95% interval, and its edge over a fair share."""

    seat: int
    share: float
    lo: float
    hi: float
    edge: float


@dataclass(frozen=True)
class SeatAnswer:
    """The numbers a run's first sentences rest on (`seat_answer`); `to_json` is
    summary.json's `answer`.

    `call` is `seat_call`'s (advantage, disadvantage, noise, differ, confounded); `seat0`
    seat 0's share; `gap` and `gap_seat` the other seats' largest |share − 1/n| and whose;
    `apart` the seats other than 0 the step-down sets apart (`lo`/`hi`: their share, as
    the test gives no interval); `turn` `seat0_turn_split` (None when seat 0 rarely takes an
    extra turn or the edge is not real); `policies` with several: (policy, share) per
    policy, best first."""

    players: int
    fair: float
    games: int
    call: str
    seat0: SeatShare
    gap: float
    gap_seat: int
    apart: tuple[SeatShare, ...]
    turn: dict | None
    policies: tuple[tuple[str, float], ...]

    def to_json(self) -> dict:
        s0 = self.seat0
        return {
            "players": self.players,
            "fair": self.fair,
            "games": self.games,
            "call": self.call,
            "seat0": {"share": s0.share, "lo": s0.lo, "hi": s0.hi, "edge": s0.edge},
            "others": {
                "gap": self.gap,
                "seat": self.gap_seat,
                "apart": [{"seat": a.seat, "share": a.share, "edge": a.edge} for a in self.apart],
            },
            "turn": self.turn,
            "policies": [{"policy": p, "share": v} for p, v in self.policies],
        }


def seat_answer(
    players: pd.DataFrame, moments: Moments | None = None, games: pd.DataFrame | None = None
) -> SeatAnswer:
    """Seat 0's share and its edge over a fair share, the call on it, the other seats'
    largest gap to fair and the seats apart, and the turn split of seat 0's edge."""
    n = n_seats(players)
    fair = 1 / n
    call, e, tests = seat_call(players, moments)
    seats = seat_win_shares(players, moments)
    rest = seats[seats["seat"] != 0]
    worst = rest.loc[rest["vs_fair"].abs().idxmax()]
    apart = []
    if tests is not None:
        shares = seats.set_index("seat")
        for k in tests.loc[tests["apart"] & (tests["seat"] != 0), "seat"]:
            r = shares.loc[int(k)]
            share = float(r["win_share"])
            apart.append(SeatShare(int(k), share, share, share, float(r["vs_fair"])))
    turn = None
    if call in ("advantage", "disadvantage") and (moments is not None or games is not None):
        turn = seat0_turn_split(moments, games, players)
    policies = ()
    if players["policy"].nunique() > 1:
        shares = policy_win_shares(players, moments).sort_values("win_share", ascending=False)
        policies = tuple((str(r.policy), float(r.win_share)) for r in shares.itertuples())
    seat0 = SeatShare(0, e.value, e.lo, e.hi, e.value - fair)
    gap, gap_seat = float(abs(worst["vs_fair"])), int(worst["seat"])
    return SeatAnswer(n, fair, int(e.n), call, seat0, gap, gap_seat, tuple(apart), turn, policies)
