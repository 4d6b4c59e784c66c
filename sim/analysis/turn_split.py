"""Turn structure: who takes how many turns, who ends the game, and what extra turns are worth.

Seat 0 starts (R2.5) and the game ends on a trigger, not at a round's end
(R7.1, R7.2), so in many set-ups the first seats take one turn more than the
others. A seat's win share then mixes two things a designer fixes in different
ways: the extra turn (deck size, an end rule) and the seat itself (card values,
the rules). This module separates them, game by game.

The decomposition: seat k's win share − 1/n = equal-turn part + turn part. The
equal-turn part is the seat's win share had the game been scored when every
seat had taken the same number of turns (after round m, m the fewest turns any
seat took: the `equal_turn_score` column, from the score trace), minus 1/n; the
turn part is what the turns after that point (the extra turns of the seats
that had one) changed. In a game where every seat takes the same number of
turns the turn part is 0. Both are registry metrics (`equal_turn_edge.seat<k>`,
`turn_edge.seat<k>` in `sim.metrics`), so sweeps and comparisons show them too;
both are means of per-game values, so their intervals treat each game as one
independent unit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim import units
from sim.analysis.balance import moment_metrics, n_seats, run_metrics
from sim.analysis.moments import Moments
from sim.analysis.stats import mean_ci, wilson, win_share_ci
from sim.analysis.values import final_phase_turns

UNEQUAL = 0.10  # parity is worth a sentence when seats' turns differ in this share of games
MOST = 0.5  # ... and it names the seats with an extra turn in at least this share


def _pivot(players: pd.DataFrame, column: str) -> pd.DataFrame:
    return players.pivot(index="game", columns="seat", values=column).sort_index()


def extra_turns(players: pd.DataFrame) -> pd.DataFrame:
    """[game, seat] 1 when the seat took more turns than the seat with the fewest, else 0."""
    turns = _pivot(players, "turns_taken")
    return turns.gt(turns.min(axis=1), axis=0).astype(int)


def turns_per_seat(players: pd.DataFrame) -> pd.DataFrame:
    """Turns taken per seat: one row per seat and turn count, with games and share."""
    counts = players.groupby(["seat", "turns_taken"]).size().rename("games").reset_index()
    counts["share"] = counts["games"] / counts.groupby("seat")["games"].transform("sum")
    return counts


def turn_wins(players: pd.DataFrame) -> pd.DataFrame:
    """Per seat: mean turns, the share of games with an extra turn, and the win share with and
    without one (95% intervals; n games each)."""
    extra = extra_turns(players)
    ws = _pivot(players, "win_share")
    turns = _pivot(players, "turns_taken")
    rows = []
    for seat in ws.columns:
        e = extra[seat].to_numpy(bool)
        w = ws[seat].to_numpy(float)
        share = wilson(int(e.sum()), len(e))
        with_ = win_share_ci(w[e]) if e.any() else None
        without = win_share_ci(w[~e]) if (~e).any() else None
        rows.append(
            {
                "seat": seat,
                "turns": float(turns[seat].mean()),
                "extra_share": share.value,
                "extra_lo": share.lo,
                "extra_hi": share.hi,
                "win_extra": with_.value if with_ else np.nan,
                "win_extra_lo": with_.lo if with_ else np.nan,
                "win_extra_hi": with_.hi if with_ else np.nan,
                "n_extra": int(e.sum()),
                "win_equal": without.value if without else np.nan,
                "win_equal_lo": without.lo if without else np.nan,
                "win_equal_hi": without.hi if without else np.nan,
                "n_equal": int((~e).sum()),
            }
        )
    return pd.DataFrame(rows)


def turn_decomposition(
    games: pd.DataFrame, players: pd.DataFrame, moments: Moments | None = None
) -> pd.DataFrame:
    """Per seat: win share − 1/n split into the edge at equal turns and the part the extra
    turns added, each with its 95% interval (from the metric registry: of every game's
    `moments` when given, the run's merged partial results, else of these rows), and, as a
    check, the seat's win share in the games (rows) where every seat took the same number of
    turns.

    Columns: seat, extra_share, edge, edge_lo, edge_hi, turn_part, turn_lo, turn_hi,
    equal_part, equal_lo, equal_hi, win_level, level_lo, level_hi, n_level.
    """
    seats = sorted(players["seat"].unique())
    names = [f"win_share.seat{k}" for k in seats]
    for family in ("extra_turn_share", "turn_edge", "equal_turn_edge"):
        names += [f"{family}.seat{k}" for k in seats]
    if moments is not None:
        est = moment_metrics(moments, names).set_index("metric")
    else:
        est = run_metrics(games, players, names).set_index("metric")
    fair = 1.0 / n_seats(players)
    level = ~extra_turns(players).any(axis=1).to_numpy()
    ws = _pivot(players, "win_share")
    rows = []
    for k in seats:
        win = est.loc[f"win_share.seat{k}"]
        turn = est.loc[f"turn_edge.seat{k}"]
        equal = est.loc[f"equal_turn_edge.seat{k}"]
        check = win_share_ci(ws[k].to_numpy(float)[level]) if level.any() else None
        rows.append(
            {
                "seat": k,
                "extra_share": est.loc[f"extra_turn_share.seat{k}", "value"],
                "edge": win["value"] - fair,
                "edge_lo": win["lo"] - fair,
                "edge_hi": win["hi"] - fair,
                "turn_part": turn["value"],
                "turn_lo": turn["lo"],
                "turn_hi": turn["hi"],
                "equal_part": equal["value"],
                "equal_lo": equal["lo"],
                "equal_hi": equal["hi"],
                "win_level": check.value if check else np.nan,
                "level_lo": check.lo if check else np.nan,
                "level_hi": check.hi if check else np.nan,
                "n_level": int(level.sum()),
            }
        )
    return pd.DataFrame(rows)


def end_structure(games: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Who ends the game and how (R7.1), who takes the last turn, and the final phase (R7.2).

    `trigger`: one row per end trigger and triggering seat (setup: seat −1) with games and
    share [Wilson 95%]; `last`: one row per seat taking the last turn, the same way;
    `final`: the final phase's turns (after the triggering one) per game: mean [95%],
    median, min, max.
    """
    n = len(games)

    def shares(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
        counts = frame.groupby(keys, observed=True).size().rename("games").reset_index()
        est = [wilson(int(k), n) for k in counts["games"]]
        counts["share"] = [e.value for e in est]
        counts["lo"] = [e.lo for e in est]
        counts["hi"] = [e.hi for e in est]
        return counts

    trig = games.assign(end_trigger=games["end_trigger"].astype(str))
    final = final_phase_turns(games).to_numpy(float)
    e = mean_ci(final)
    return {
        "trigger": shares(trig, ["end_trigger", "trigger_seat"]),
        "last": shares(games, ["last_seat"]),
        "final": pd.DataFrame(
            [
                {
                    "mean": e.value,
                    "lo": e.lo,
                    "hi": e.hi,
                    "median": float(np.median(final)),
                    "min": float(final.min()),
                    "max": float(final.max()),
                    "n": e.n,
                }
            ]
        ),
    }


def _seats_text(seats: list[int]) -> str:
    words = [str(s) for s in seats]
    return "seat " + words[0] if len(words) == 1 else "seats " + ", ".join(words)


def _pct(lo: float, value: float, hi: float) -> str:
    """An edge (a difference of shares) in percentage points: '+0.6 pp [-0.4, +1.6]', with
    no '-0.0'."""
    lo, value, hi = (0.0 if abs(v) < 5e-5 else v for v in (lo, value, hi))
    return units.interval(value, lo, hi, "share", diff=True)


def parity_note(
    games: pd.DataFrame, players: pd.DataFrame, split: pd.DataFrame | None = None
) -> str | None:
    """A plain sentence when turn parity drives the seat result, else None (`split`: these
    games' `turn_decomposition`, when the caller has it).

    Said when the seats take unequal turns in at least UNEQUAL of the games. It names the
    seats that take an extra turn in at least MOST of the games (else the one that does most
    often), or, when those are most of the seats, the seats left a turn short; and gives
    each one's edge at equal turns and what the extra (or missing) turn adds, e.g. "seat 0
    takes one more turn than seats 1, 2, 3 in 99% of games; at equal turns its edge is
    +0.6 pp [−0.4, +1.6], its extra turn adds +3.7 pp [+3.1, +4.3]".
    """
    turns = _pivot(players, "turns_taken")
    if len(turns) == 0:
        return None
    most, fewest = turns.max(axis=1), turns.min(axis=1)
    if (most > fewest).mean() < UNEQUAL:
        return None
    extra = turns.gt(fewest, axis=0).mean()  # per seat: share of games with an extra turn
    short = turns.lt(most, axis=0).mean()  # ... and a turn short
    ahead = [k for k in turns.columns if extra[k] >= MOST] or [int(extra.idxmax())]
    behind = [k for k in turns.columns if k not in ahead]
    one = (most - fewest).max() <= 1
    split = (turn_decomposition(games, players) if split is None else split).set_index("seat")
    parts = []
    if behind and len(ahead) > len(behind):  # say it of the few seats left short
        for k in behind:
            r = split.loc[k]
            parts.append(
                f"seat {k} takes {'one turn' if one else 'turns'} fewer than"
                f" {_seats_text(ahead)} in {short[k]:.0%} of games; at equal turns its edge is"
                f" {_pct(r['equal_lo'], r['equal_part'], r['equal_hi'])}, the missing turn"
                f" {'costs' if r['turn_part'] <= 0 else 'adds'}"
                f" {_pct(r['turn_lo'], r['turn_part'], r['turn_hi'])}"
            )
    else:
        for k in ahead:
            r = split.loc[k]
            who = f"than {_seats_text(behind)}" if behind else "than another seat"
            parts.append(
                f"seat {k} takes {'one more turn' if one else 'more turns'} {who} in"
                f" {extra[k]:.0%} of games; at equal turns its edge is"
                f" {_pct(r['equal_lo'], r['equal_part'], r['equal_hi'])}, the extra turn adds"
                f" {_pct(r['turn_lo'], r['turn_part'], r['turn_hi'])}"
            )
    return "Turn parity: " + "; ".join(parts) + "."


def from_turns(split: dict) -> bool:
    """Does a seat's edge come mostly from its turns? The part its extra (or missing) turns
    make (`turn_decomposition`'s turn_part) is clear of 0 and larger than its part at equal
    turns: what `sim advise` reads to know whether a change must move the turn order."""
    clear = split["turn_lo"] > 0 or split["turn_hi"] < 0
    return bool(clear and abs(split["turn_part"]) > abs(split["equal_part"]))
