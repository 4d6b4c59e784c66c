"""The look-ahead policy: rollouts from determinized states, for the skill ceiling.

For its top candidate actions (pre-ranked by greedy's one-ply objective), it
plays on many times from *determinized* states, `horizon` turns deep (0: to
the end of the game): the cards
it has not seen (the deck and the other hands) are re-dealt at random, in
the sizes everybody can see. Which cards are unseen is worked out from public
counts alone (`unseen_counts`): the deck's composition, the table, the
discards and wasted items, and the seat's own hand, never from the hidden
deck order or other hands. All candidates share the same determinizations
and rollout streams (common random numbers), so their means compare sharply.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.linker import own_code_only
from sim.engine.rng import next_u64, randint
from sim.engine.scoring import table_scores, win_share
from sim.engine.state import (
    DEC_ITEM,
    DEC_OVER,
    KIND_BOX,
    N_ST,
    SC_DECISION,
    SC_DECK_LEN,
    SC_DECK_POS,
    SC_ITEM,
    SC_LOG,
    SC_SEAT,
    SC_TURNS,
    ST_DISCARDED,
    ST_INTO_LED,
    ST_INTO_OTHER,
    ST_PLAYED,
    ST_WASTED,
)
from sim.engine.table import INLINE, copy_live, copy_state
from sim.engine.turns import apply_action
from sim.policies.compiled import allowed_actions, choose_greedy, choose_random, top_actions
from sim.specs import (
    P_BAN,
    P_CANDIDATES,
    P_HORIZON,
    P_ROLLOUT_POLICY,
    P_ROLLOUTS,
    POLICY_GREEDY,
)

# A rollout's value: the win share plus this much per point of lead. Points are
# a far less noisy signal than 0/1 wins over a handful of rollouts.
SCORE_WEIGHT = 0.25


@njit(cache=True)
def unseen_counts(s, pr, me, out):
    """Per card type, the copies seat `me` has not seen: in the deck or in other hands.

    Public facts only: the deck's composition, the start card, every card played,
    discarded or placed as an item, every wasted item, a drawn item waiting for
    its seam, and me's own hand (none for me = -1, a spectator: every hand unseen).
    """
    out[:] = 0
    for i in range(pr.ndeck):
        out[s[pr.t_deck_type + i]] += 1
    start = s[pr.o_walls + pr.origin]  # laid unturned (R2.3): its walls name its type
    for t in range(pr.ntypes):
        if s[pr.t_kind + t] == KIND_BOX and s[pr.t_walls + t] == start:
            out[t] -= 1
            break
    for p in range(pr.players):
        for t in range(pr.ntypes):
            base = pr.o_stats + (p * pr.ntypes + t) * N_ST
            out[t] -= (
                s[base + ST_PLAYED]
                + s[base + ST_DISCARDED]
                + s[base + ST_WASTED]
                + s[base + ST_INTO_LED]
                + s[base + ST_INTO_OTHER]
            )
    if me >= 0:
        for t in range(pr.ntypes):
            out[t] -= s[pr.o_hands + me * pr.ntypes + t]
    if s[SC_DECISION] == DEC_ITEM:
        out[s[SC_ITEM]] -= 1  # the drawn item waiting for its seam is face up


@njit(cache=True)
def determinize(s, pr, me, stream, counts, pool):
    """Re-deal the cards `me` has not seen at random into the other hands and the deck
    (sizes kept); me = -1, a spectator: into every hand and the deck."""
    unseen_counts(s, pr, me, counts)
    hand_out(s, pr, me, pool, shuffle_unseen(counts, stream, pool))


@njit(**INLINE)
def shuffle_unseen(counts, stream, pool):
    """pool[:n] = the unseen cards (counts per type) in a random order; returns n.

    The one random part of a determinization: a search works out the counts once per
    decision and shuffles per deal."""
    n = 0
    for t in range(counts.shape[0]):
        for _ in range(counts[t]):
            pool[n] = t
            n += 1
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = randint(stream, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    return n


@njit(**INLINE)
def hand_out(s, pr, me, pool, n):
    """Deal pool[:n] into the other hands, then the deck's undrawn slots (sizes kept)."""
    k = 0
    for p in range(pr.players):
        if p == me:
            continue
        size = 0
        for t in range(pr.ntypes):
            size += s[pr.o_hands + p * pr.ntypes + t]
            s[pr.o_hands + p * pr.ntypes + t] = 0
        for _ in range(size):
            s[pr.o_hands + p * pr.ntypes + pool[k]] += 1
            k += 1
    for i in range(s[SC_DECK_POS], s[SC_DECK_LEN]):
        s[pr.o_deck + i] = pool[k]
        k += 1
    if k != n:
        raise ValueError("determinize: unseen cards do not match the hidden slots")


@njit(cache=True)
def _rollout_value(s, pr, me, scores, roots):
    """SCORE_WEIGHT per point ahead of the best rival, plus the win share if the game is over.

    A rollout cut at its horizon is judged on the table as it stands then (R8's scores by
    `table_scores`, into the scratch `scores`, with `roots` its scratch).
    """
    table_scores(s, pr, scores, roots)
    other = -(1 << 40)
    for q in range(pr.players):
        if q != me:
            other = max(other, scores[q])
    value = SCORE_WEIGHT * (scores[me] - other)
    if s[SC_DECISION] == DEC_OVER:
        value += win_share(scores, me)
    return value


@own_code_only
@njit(cache=True)
def choose_lookahead(s, pr, stream, buf, w, params, values, s2, buf2, scratch):
    """Best mean rollout outcome among the greedy-ranked top candidates.

    A seat with banned options (P_BAN) keeps to them at the root and in its own
    rollout turns; the other seats' rollout turns are unrestricted."""
    me = s[SC_SEAT]
    ban = np.int64(params[P_BAN])
    n = allowed_actions(s, pr, buf, ban)
    if n == 1:
        return buf[0]
    rollouts = max(1, int(params[P_ROLLOUTS]))
    rollout_greedy = int(params[P_ROLLOUT_POLICY]) == POLICY_GREEDY
    horizon = int(params[P_HORIZON])
    k = top_actions(s, pr, me, buf, n, max(1, int(params[P_CANDIDATES])), w, values)
    candidates = buf[:k].copy()  # buf is the caller's: the rollouts list into buf2
    # Every candidate plays the same `rollouts` deals with the same seat streams (common
    # random numbers), so each deal is shuffled once, here, and only handed out per playout.
    counts = scratch[: pr.ntypes]
    unseen_counts(s, pr, me, counts)
    deals = np.empty((rollouts, pr.ndeck), np.int64)
    seat_seeds = np.empty((rollouts, pr.players), np.uint64)
    streams = np.empty((pr.players + 1, 1), np.uint64)
    hidden = 0
    for r in range(rollouts):
        streams[pr.players, 0] = next_u64(stream)
        for q in range(pr.players):
            seat_seeds[r, q] = next_u64(streams[pr.players])
        hidden = shuffle_unseen(counts, streams[pr.players], deals[r])
    scores = np.zeros(pr.players, np.int64)
    roots = np.empty(pr.ndeck, np.int32)
    copy_state(s2, s, pr)  # then per playout only what a playout changed (`copy_live`)
    best = -1e300
    pick = candidates[0]
    for c in range(k):
        total = 0.0
        for r in range(rollouts):
            copy_live(s2, s, pr)
            s2[SC_LOG] = 0
            for q in range(pr.players):
                streams[q, 0] = seat_seeds[r, q]
            hand_out(s2, pr, me, deals[r], hidden)
            apply_action(s2, pr, candidates[c])
            while s2[SC_DECISION] != DEC_OVER:
                if horizon > 0 and s2[SC_TURNS] - s[SC_TURNS] >= horizon:
                    break
                q = s2[SC_SEAT]
                own = ban if q == me else 0
                if rollout_greedy:
                    a = choose_greedy(s2, pr, streams[q], buf2, w, own)
                else:
                    a = choose_random(s2, pr, streams[q], buf2, own)
                apply_action(s2, pr, a)
            total += _rollout_value(s2, pr, me, scores, roots)
        if total > best:  # ties keep greedy's ranking
            best = total
            pick = candidates[c]
    return pick
