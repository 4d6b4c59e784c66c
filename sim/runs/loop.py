"""Whole games with built-in policies in compiled code: a chunk of games in, result arrays out.

The compiled loop holds every built-in policy (`policy_set`, `sim.policies.dispatch.LOOPS`),
built on first use, that is the first run after install, and kept in numba's cache, so no
later study compiles a loop. Each policy is an argument of `chunk_loop`, 1 if the loop holds
it and None if not; numba prunes the branch of a None argument before typing, so its code is
never compiled. `play_chunk` is the one way in: it puts every argument in the one form the
compiled loop takes, so no caller compiles a second one.

The decision loop is written out here, in one compiled function, rather than in a
function per game: each compiled function that calls others links and optimises their
whole code again, and a call passes each array with a reference count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.linker import own_code_only
from sim.engine.rng import WORD_SEAT0, game_words, replay_words
from sim.engine.state import DEC_OVER, SC_DECISION, SC_SEAT, SC_TURNS
from sim.engine.turns import apply_action, setup
from sim.policies.compiled import choose_greedy, choose_random
from sim.policies.dispatch import policy_set, scratch_arrays
from sim.policies.heuristic import choose_heuristic
from sim.policies.ismcts import choose_ismcts
from sim.policies.lookahead import choose_lookahead
from sim.runs.results import (
    empty_arrays,
    finish_rounds,
    record_rounds,
    summarize_game,
    trace_scratch,
)
from sim.specs import (
    P_BAN,
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_LOOKAHEAD,
    POLICY_RANDOM,
)


def play_chunk(pr, blank, root, first, count, slots_by_game, slot_codes, slot_params, replays=0):
    """Play games first..first+count-1; in game i seat p plays line-up slot slots_by_game[i, p].

    With replays R > 0 (the luck gauge), game i is replay i mod R of deal i // R: the
    shuffle of game i // R, the seats' streams of `replay_words` (replay 0: the game's own).
    Returns the result arrays (`sim.runs.results.empty_arrays`).
    """
    return chunk_loop(
        *chunk_args(pr, blank, root, first, count, slots_by_game, slot_codes, slot_params, replays)
    )


def _read_only(blank: np.ndarray) -> np.ndarray:
    """The blank state as the read-only int32 array an Engine holds (one array type)."""
    out = np.ascontiguousarray(blank, np.int32).view()
    out.flags.writeable = False
    return out


def chunk_args(pr, blank, root, first, count, slots_by_game, slot_codes, slot_params, replays=0):
    """`chunk_loop`'s arguments in the one set of types it is compiled for."""
    codes = np.ascontiguousarray(slot_codes, np.int64)
    blank = _read_only(blank)
    return (
        pr,
        blank,
        np.int64(root),  # a config's seed is below 2**63
        np.int64(first),
        np.int64(count),
        np.ascontiguousarray(np.asarray(slots_by_game).reshape(count, pr.players), np.int64),
        codes,
        np.ascontiguousarray(slot_params, np.float64).reshape(len(codes), -1),
        np.int64(replays),
        _scratch(pr, blank),
        empty_arrays(int(count), pr),
        *policy_set(codes),
    )


def _scratch(pr, blank: np.ndarray) -> tuple[np.ndarray, ...]:
    """The loop's work arrays, made here: numba compiles its allocation code (and the error
    messages it can raise) once per array shape and type, seconds on a fresh cache. The state,
    a decision's action buffer, the deciding seat's stream, the score trace's scratch, then the
    policies' (`sim.policies.dispatch`)."""
    state = np.array(blank, np.int32)  # writable; each game restores blank[:o_scratch]
    buf = np.zeros(pr.max_actions, np.int32)
    stream = np.zeros(1, np.uint64)
    return (state, buf, stream, trace_scratch.py_func(pr), *scratch_arrays(pr))


@own_code_only  # the policies and the engine are called, as optimised in their own code
@njit(cache=True, nogil=True)  # a thread writes the last chunk while this one plays
def chunk_loop(
    pr,
    blank,
    root,
    first,
    count,
    slots_by_game,
    slot_codes,
    slot_params,
    replays,
    scratch,
    out,
    random,
    greedy,
    heuristic,
    lookahead,
    ismcts,
):
    """play_chunk's compiled loop; a policy argument None: no seat plays it (`policy_set`).

    In game i seat p plays line-up slot slots_by_game[i, p]. Each seat's table score after
    every round goes into trace[i, round] (`record_rounds`). `scratch` and `out` are
    `chunk_args`'s work arrays and result arrays (`empty_arrays`), returned filled.
    """
    s, buf, stream, roots, w, values, s2, buf2, pool, tree = scratch
    # The seats' streams live in words[WORD_SEAT0 + p]; the deciding seat's is swapped into
    # the one-word `stream`, as a view per decision would cost two atomic reference counts.
    games, seats, cards, trace, rounds = out
    for i in range(count):
        for j in range(pr.o_scratch):  # a loop: a slice copy compiles numba's shape checks
            s[j] = blank[j]
        if replays == 0:
            words = game_words(root, first + i, WORD_SEAT0 + pr.players)
        else:
            deal, replay = divmod(first + i, replays)
            words = game_words(root, deal, WORD_SEAT0 + pr.players)
            if replay > 0:
                seat_words = replay_words(root, deal, replay, pr.players)
                for q in range(pr.players):
                    words[WORD_SEAT0 + q] = seat_words[q]
        setup(s, pr, words)
        game_trace = trace[i]
        done = np.int64(0)
        next_round = pr.players  # the turn count that ends the next round
        while s[SC_DECISION] != DEC_OVER:
            p = s[SC_SEAT]
            slot = slots_by_game[i, p]
            code = slot_codes[slot]
            stream[0] = words[WORD_SEAT0 + p]
            a = np.int32(-1)
            # random and greedy read one number: no view of the parameter row (a count)
            if random is not None:
                if code == POLICY_RANDOM:
                    a = choose_random(s, pr, stream, buf, np.int64(slot_params[slot, P_BAN]))
            if greedy is not None:
                if code == POLICY_GREEDY:
                    a = choose_greedy(s, pr, stream, buf, w, np.int64(slot_params[slot, P_BAN]))
            if heuristic is not None:
                if code == POLICY_HEURISTIC:
                    a = choose_heuristic(s, pr, stream, buf, w, slot_params[slot], values)
            if lookahead is not None:
                if code == POLICY_LOOKAHEAD:
                    a = choose_lookahead(
                        s, pr, stream, buf, w, slot_params[slot], values, s2, buf2, pool
                    )
            if ismcts is not None:
                if code == POLICY_ISMCTS:
                    a = choose_ismcts(
                        s, pr, stream, buf, w, slot_params[slot], values, s2, buf2, pool, tree
                    )
            words[WORD_SEAT0 + p] = stream[0]
            apply_action(s, pr, a)
            if s[SC_TURNS] >= next_round:  # a cheap test inline, the scoring out of line
                done = record_rounds(s, pr, game_trace, done, roots)
                next_round = (done + 1) * pr.players
        rounds[i] = finish_rounds(s, pr, game_trace, done, roots)
        summarize_game(s, pr, games[i], seats[i], cards[i])
    return games, seats, cards, trace, rounds
