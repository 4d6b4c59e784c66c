"""The results schema: how a game becomes rows of `games`, `players`, `cards` and `turns`.

The one home of the four tables' columns. A finished state is summarised
in compiled code into three small arrays per game (`summarize_game`), and
the game loop records each seat's table score after every round
(`record_rounds`, the `turns` table); the compiled helpers here also lay out the
cards and turns rows. `sim.runs.tables` turns a chunk of such arrays into Arrow
tables, in a file of its own because this one keys the compile cache (`sim.COMPILED`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from sim.analysis.tension import (
    COMEBACK_POINTS,
    OPEN_POINTS,
    equal_turn_scores,
)
from sim.engine.scoring import (
    best_toy,
    box_majority,
    box_top_count,
    closure_bonus,
    margin,
    rank,
    table_scores,
    value_of,
    winners,
)
from sim.engine.state import (
    N_PS,
    N_ST,
    PS_TURNS,
    SC_DECISIONS,
    SC_LAST_SEAT,
    SC_NCATS,
    SC_NDISCARD,
    SC_NPLACED,
    SC_PRINCESSES,
    SC_TRIGGER,
    SC_TRIGGER_SEAT,
    SC_TRIGGER_TURN,
    SC_TURNS,
    SC_WASTED,
    ParamsRecord,
)
from sim.engine.table import CALLED

TABLES = ("games", "players", "cards", "turns")

# ---------------------------------------------------------------- the compiled arrays

# One game's row: the counts written as they are (GAME_COLUMNS), then its outcome (R8.6).
G_TURNS, G_TRIGGER, G_TRIGGER_SEAT, G_TRIGGER_TURN, G_WASTED, G_BOXES, G_CLOSED = range(7)
G_DISCARDS, G_CATS_ON_TABLE, G_PRINCESSES, G_CARDS, G_DECISIONS = 7, 8, 9, 10, 11
G_LAST_SEAT = 12  # the seat that took the game's last turn
G_WINNERS, G_N_WINNERS, G_MARGIN = 13, 14, 15  # winners as a seat bitmask
N_G = 16
GAME_COLUMNS = (
    "turns",
    "trigger",
    "trigger_seat",
    "trigger_turn",
    "items_wasted",
    "boxes",
    "closed_boxes",
    "discards",
    "cats_on_table",
    "princesses_on_table",
    "cards_on_table",
    "decisions",
    "last_seat",
)

# One seat's row: points by source, boxes led, the engine's per-seat counters
# (PS_* in sim.engine.state, in that order from P_SEAT_STATS), then its rank.
P_SCORE, P_BOX_POINTS, P_CAT_BONUS, P_BOXES_LED, P_CLOSED_LED, P_NEGATIVE, P_DOUBLED = range(7)
P_SEAT_STATS = 7
P_RANK = P_SEAT_STATS + N_PS
N_P = P_RANK + 1
SEAT_COLUMNS = (
    "score",
    "box_points",
    "cat_bonus",
    "boxes_led",
    "closed_boxes_led",
    "negative_points",
    "doubling_points",
    "cats_placed",  # PS_CATS
    "sleeping_placed",  # PS_SLEEPING
    "princesses_played",  # PS_PRINCESS
    "cats_evicted",  # PS_EVICTED
    "discards",  # PS_DISCARDS
    "turns_taken",  # PS_TURNS
    "self_evictions",  # PS_SELF_EVICT
)
assert len(SEAT_COLUMNS) == P_RANK and len(GAME_COLUMNS) == G_WINNERS


@njit(**CALLED)
def summarize_game(s, pr, g, seats, cards):
    """Fill game row g, seat rows seats[p] and card rows cards[p, t] from a finished state."""
    g[G_TURNS] = s[SC_TURNS]
    g[G_TRIGGER] = s[SC_TRIGGER]
    g[G_TRIGGER_SEAT] = s[SC_TRIGGER_SEAT]
    g[G_TRIGGER_TURN] = s[SC_TRIGGER_TURN]
    g[G_WASTED] = s[SC_WASTED]
    g[G_DISCARDS] = s[SC_NDISCARD]
    g[G_CATS_ON_TABLE] = s[SC_NCATS]
    g[G_PRINCESSES] = s[SC_PRINCESSES]
    g[G_CARDS] = s[SC_NPLACED]
    g[G_DECISIONS] = s[SC_DECISIONS]
    g[G_LAST_SEAT] = s[SC_LAST_SEAT]
    seats[:, :] = 0
    boxes = 0
    closed = 0
    for i in range(s[SC_NPLACED]):
        x = s[pr.o_placed + i]
        if s[pr.o_parent + x] != x:
            continue
        boxes += 1
        open_sides = s[pr.o_open + x]
        is_closed = open_sides == 0
        closed += is_closed
        top = box_top_count(s, pr, x)
        if top == 0:
            continue
        best, sprayers = best_toy(s, pr, x, -1), s[pr.o_spray + x]
        value = value_of(best, sprayers, open_sides)  # R8.3, R8.4
        for q in range(pr.players):
            if box_majority(s, pr, x, q) == top:  # R8.2: every leader scores the box
                seats[q, P_BOX_POINTS] += value
                seats[q, P_BOXES_LED] += 1
                seats[q, P_CLOSED_LED] += is_closed
                if value < 0:
                    seats[q, P_NEGATIVE] += value
                seats[q, P_DOUBLED] += closure_bonus(best, sprayers, open_sides)
    g[G_BOXES] = boxes
    g[G_CLOSED] = closed
    for i in range(s[SC_NCATS]):
        seats[s[pr.o_cat_owner + i], P_CAT_BONUS] += 1  # R8.5
    for q in range(pr.players):
        seats[q, P_SCORE] = seats[q, P_BOX_POINTS] + seats[q, P_CAT_BONUS]
        for k in range(N_PS):
            seats[q, P_SEAT_STATS + k] = s[pr.o_seat_stats + q * N_PS + k]
        for t in range(pr.ntypes):
            for k in range(N_ST):
                cards[q, t, k] = s[pr.o_stats + (q * pr.ntypes + t) * N_ST + k]
    scores = seats[:, P_SCORE]
    g[G_WINNERS], g[G_N_WINNERS] = winners(scores)  # R8.6
    g[G_MARGIN] = margin(scores)
    for q in range(pr.players):
        seats[q, P_RANK] = rank(scores, q)


# ---------------------------------------------------------------- the score trace


@njit(cache=True)
def max_rounds(pr):
    """Rows a game's score trace can need: every normal turn draws a card or plays a sleeping
    cat, every final-phase turn empties a hand by one card (R3, R7.2), so turns are at most
    the deck plus every seat's sleeping cats and final hand; one round is `players` turns."""
    turns = pr.ndeck + pr.players * (pr.sleeps + pr.hand_size + 1)
    return turns // pr.players + 2


@njit(cache=True)
def trace_scratch(pr):
    """Scratch room `record_rounds` and `finish_rounds` need (one root per item)."""
    return np.empty(pr.ndeck, np.int32)


@njit(**CALLED)
def record_rounds(s, pr, trace, done, roots):
    """After an action: write each seat's table score (R8) for every round completed since
    `done` rounds were recorded; returns the rounds recorded. Round k is the game's turns
    (k-1)*players+1 .. k*players; automatic steps after a turn never change the table, so
    the scores are those at the round's end. The loop calls it only once a round is over."""
    while s[SC_TURNS] >= (done + 1) * pr.players and done < trace.shape[0]:
        table_scores(s, pr, trace[done], roots)
        done += 1
    return done


@njit(**CALLED)
def finish_rounds(s, pr, trace, done, roots):
    """At the end of a game: the last, partial round's scores (the final scores); returns the
    game's number of rounds. Its last row is then always the final score (R8)."""
    if s[SC_TURNS] > done * pr.players and done < trace.shape[0]:
        table_scores(s, pr, trace[done], roots)
        done += 1
    return done


@njit(cache=True, nogil=True)
def tension_arrays(trace, rounds, comeback_points, open_points):
    """`sim.analysis.tension.trace_summary` (the definition, in numpy) of a chunk's traces
    in one compiled pass per game instead of a dozen whole-array ones: lead changes, the
    decided round, comeback and open-before-last (decided_at is decided / rounds)."""
    count, most, players = trace.shape
    changes = np.zeros(count, np.int16)
    decided = np.zeros(count, np.int16)
    comeback = np.zeros(count, np.bool_)
    open_ = np.zeros(count, np.bool_)
    won = np.zeros(players, np.bool_)
    for i in range(count):
        n = np.int64(rounds[i])
        last = max(n - 1, 0)
        top = trace[i, last, 0]
        for q in range(1, players):
            top = max(top, trace[i, last, q])
        for q in range(players):
            won[q] = trace[i, last, q] == top  # R8.6: tied winners all won
        leader = -1  # the sole leader so far (a tie keeps the previous one)
        doubt = -1  # the last round in which a seat that did not win led
        for r in range(n):
            best = trace[i, r, 0]
            for q in range(1, players):
                best = max(best, trace[i, r, q])
            sole, leaders = -1, 0
            for q in range(players):
                if trace[i, r, q] == best:
                    leaders += 1
                    sole = q
                    if not won[q]:
                        doubt = r
            if leaders == 1:
                if leader >= 0 and sole != leader:
                    changes[i] += 1
                leader = sole
        decided[i] = doubt + 2  # the 1-based round after the last doubt
        half = max((n + 1) // 2 - 1, 0)
        h_top = trace[i, half, 0]
        h_low = trace[i, half, 0]
        for q in range(1, players):
            h_top = max(h_top, trace[i, half, q])
            h_low = min(h_low, trace[i, half, q])
        for q in range(players):
            h = trace[i, half, q]
            behind = (h == h_low and h_low < h_top) or h_top - h >= comeback_points
            if behind and won[q]:
                comeback[i] = True
        if n < 2 or players < 2:
            open_[i] = True
        else:
            first, second = trace[i, n - 2, 0], trace[i, n - 2, 1]
            if second > first:
                first, second = second, first
            for q in range(2, players):
                v = trace[i, n - 2, q]
                if v > first:
                    first, second = v, first
                elif v > second:
                    second = v
            open_[i] = first - second <= open_points
    return changes, decided, comeback, open_


@njit(cache=True, nogil=True)
def card_sums(cards, item, share, dealt, drawn, discarded, wasted):
    """Per game and card type, summed over seats in seat order (`sim.runs.values`):
    had (seats that held one: an item drawn, another card dealt or drawn), had_win
    (those seats' win shares), dead (items wasted, other cards discarded) and got (dealt
    plus drawn). One pass over cards[game, seat, type, stat] instead of a dozen strided
    whole-array copies; the same sums, added in the same order."""
    count, players, ntypes, _ = cards.shape
    had = np.zeros((count, ntypes))
    had_win = np.zeros((count, ntypes))
    dead = np.zeros((count, ntypes))
    got = np.zeros((count, ntypes))
    for g in range(count):
        for p in range(players):
            for t in range(ntypes):
                on_deal = np.int64(cards[g, p, t, dealt])
                on_draw = np.int64(cards[g, p, t, drawn])
                held = 1.0 if (on_draw > 0 if item[t] else on_deal + on_draw > 0) else 0.0
                had[g, t] += held
                had_win[g, t] += held * share[g, p]
                dead[g, t] += cards[g, p, t, wasted] if item[t] else cards[g, p, t, discarded]
                got[g, t] += on_deal + on_draw
    return had, had_win, dead, got


@njit(cache=True, inline="always")
def _any_count(cards, g, p, t):
    """Does seat p's row for card type t in game g hold a non-zero count?"""
    any_count = cards[g, p, t, 0]
    for k in range(1, N_ST):  # N_ST is a compile-time constant: the loop unrolls
        any_count |= cards[g, p, t, k]
    return any_count != 0


@njit(cache=True, nogil=True)
def nonzero_card_rows(cards):
    """The rows of cards[game, seat, type, stat] with a non-zero count, as columns: game
    (within the chunk), seat, card type, and the counts one stat per row of a 2-D array.
    Rows come seat by seat, then by card type, then by game: the order the cards part is
    written in (`sim.runs.encoding.part_bytes`), so nothing sorts them again. Two
    passes: the first marks the rows to keep (one byte a row), the second fills them."""
    count, players, ntypes, _ = cards.shape
    keep = np.empty((count, players, ntypes), np.bool_)
    n = 0
    for g in range(count):
        for p in range(players):
            for t in range(ntypes):
                keep[g, p, t] = _any_count(cards, g, p, t)
                n += keep[g, p, t]
    game = np.empty(n, np.int64)
    seat = np.empty(n, np.int8)
    card = np.empty(n, np.int8)
    counts = np.empty((N_ST, n), cards.dtype)
    i = 0
    for p in range(players):
        for t in range(ntypes):
            for g in range(count):
                if keep[g, p, t]:
                    game[i] = g
                    seat[i] = p
                    card[i] = t
                    for k in range(N_ST):
                        counts[k, i] = cards[g, p, t, k]
                    i += 1
    return game, seat, card, counts


@dataclass
class ChunkArrays:
    """Raw results of consecutive games, as `summarize_game` fills them."""

    first: int
    slots: np.ndarray  # [game, seat] line-up slot
    games: np.ndarray  # [game, G_*]
    seats: np.ndarray  # [game, seat, P_*]
    cards: np.ndarray  # [game, seat, card type, STAT_NAMES]
    trace: np.ndarray  # [game, round, seat] table score after each round (`record_rounds`)
    rounds: np.ndarray  # [game] rounds recorded in trace
    # FEEL_COLUMNS per game (`sim.runs.chances.chunk_feel`) when the study measures the feel
    feel: dict[str, np.ndarray] | None = None

    def win_shares(self) -> np.ndarray:
        """[game, seat] share of the win (R8.6: 1/k for each of k tied winners)."""
        return (self.seats[:, :, P_RANK] == 1) / self.games[:, G_N_WINNERS, None]

    @cached_property
    def tension(self) -> dict[str, np.ndarray]:
        """The TENSION_COLUMNS per game (`sim.analysis.tension.trace_summary`, compiled:
        `tension_arrays`): the games table and the per-game values both read them."""
        changes, decided, comeback, open_ = tension_arrays(
            self.trace, self.rounds, COMEBACK_POINTS, OPEN_POINTS
        )
        return {
            "lead_changes": changes,
            "decided_round": decided,
            "decided_at": decided / np.maximum(self.rounds.astype(np.int64), 1),
            "comeback": comeback,
            "open_before_last": open_,
        }

    @cached_property
    def equal_turn_scores(self) -> np.ndarray:
        """[game, seat] table score when every seat had taken as many turns as the one with
        the fewest (`sim.analysis.tension.equal_turn_scores`), as the players table holds it."""
        taken = self.seats[:, :, P_SEAT_STATS + PS_TURNS]
        return equal_turn_scores(self.trace, taken).astype(np.int16)


def empty_arrays(count: int, pr: ParamsRecord) -> tuple[np.ndarray, ...]:
    """Zeroed games, seats, cards, trace and rounds arrays for `count` games (filled by
    summarize_game, record_rounds and finish_rounds). Made in Python and handed to the
    compiled loop: numba compiles its allocation code once per shape and type."""
    return (
        np.zeros((count, N_G), np.int64),
        np.zeros((count, pr.players, N_P), np.int64),
        np.zeros((count, pr.players, pr.ntypes, N_ST), np.int16),  # small counts
        np.zeros((count, max_rounds.py_func(pr), pr.players), np.int16),  # scores are small too
        np.zeros(count, np.int16),
    )


# ---------------------------------------------------------------- the tables' rows


@njit(cache=True, nogil=True)
def trace_rows(trace, rounds, first):
    """The `turns` table's four columns (`sim.runs.tables`) in one pass (numpy's masks over
    the padded trace took four passes and a mask as large as the trace)."""
    count, _, players = trace.shape
    n = 0
    for g in range(count):
        n += np.int64(rounds[g]) * players
    game = np.empty(n, np.int64)
    seat = np.empty(n, np.int8)
    round_ = np.empty(n, np.int16)
    score = np.empty(n, trace.dtype)
    i = 0
    for g in range(count):
        for p in range(players):
            for r in range(np.int64(rounds[g])):
                game[i] = first + g
                seat[i] = p
                round_[i] = r + 1
                score[i] = trace[g, r, p]
                i += 1
    return game, seat, round_, score
