"""The numbers a run's first sentences rest on, as plain data (`sim.analysis.findings` writes
them as words; `summary.json` keeps them).

Pure: a run's `players` (and `games`) frames and the moments of every game in, a dict out.
The calls are those of the long verdict (`sim.analysis.balance.seat_call`), so the short
sentence and the tests behind it never disagree.
"""

from __future__ import annotations

import pandas as pd

from sim.analysis.balance import (
    n_seats,
    policy_win_shares,
    seat0_turn_split,
    seat_call,
    seat_win_shares,
)
from sim.analysis.moments import Moments


def seat_answer(
    players: pd.DataFrame, moments: Moments | None = None, games: pd.DataFrame | None = None
) -> dict:
    """Seat 0's share and its edge over a fair share, the call on it, the other seats'
    largest gap to fair and the seats apart, and the turn split of seat 0's edge.

    Keys: players, fair, games, call (`seat_call`: advantage, disadvantage, noise,
    differ, confounded), seat0 {share, lo, hi, edge (share − 1/n)}, others {gap (the
    largest |share − 1/n| of seats 1…), seat (which), apart (seats other than 0 that the
    step-down sets apart, with their share and edge)}, turn (`seat0_turn_split`, or None
    when seat 0 rarely takes an extra turn or the edge is not real), policies (with several:
    [{policy, share}] per seat, best first).
    """
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
            apart.append(
                {"seat": int(k), "share": float(r["win_share"]), "edge": float(r["vs_fair"])}
            )
    turn = None
    if call in ("advantage", "disadvantage") and (moments is not None or games is not None):
        turn = seat0_turn_split(moments, games, players)
    policies = []
    if players["policy"].nunique() > 1:
        shares = policy_win_shares(players, moments).sort_values("win_share", ascending=False)
        policies = [
            {"policy": str(r.policy), "share": float(r.win_share)} for r in shares.itertuples()
        ]
    return {
        "players": n,
        "fair": fair,
        "games": int(e.n),
        "call": call,
        "seat0": {"share": e.value, "lo": e.lo, "hi": e.hi, "edge": e.value - fair},
        "others": {
            "gap": float(abs(worst["vs_fair"])),
            "seat": int(worst["seat"]),
            "apart": apart,
        },
        "turn": turn,
        "policies": policies,
    }
