"""Information-set MCTS (Cowling, Powley and Whitehouse 2012): single-observer ISMCTS.

One tree over the deciding seat's information sets. Each of `budget`
iterations deals a fresh *determinization* from what the seat can see (the
unseen cards, worked out from public counts by `unseen_counts`, re-dealt into
the deck and the other hands, sizes kept; see `lookahead.determinize`), then walks the
tree in that deal: at each node it lists the legal actions of the deal, keeps
greedy's `candidates` best (move pruning: the branching factor of a play
decision is in the hundreds), counts each kept child as *available*, and
picks by UCB with availability,

    mean + c * sqrt(ln(available) / visits),

or expands the best-ranked action not yet in the tree. From the new node a
rollout (greedy or random, for every seat) runs to `horizon` turns after the
root decision (0: the end of the game); its value per seat (SCORE_WEIGHT per
point of lead over the best rival, plus the win share if the game ended) is
added to every node on the path, for the seat that moved into it. The most
visited root child is played.

The tree is a fixed block of rows (`tree_rows`), reset per decision; a node's
children are a linked list in creation order, newest first. Nothing is
allocated per iteration: the determinized copy goes into the caller's s2.
Like lookahead, the player never reads the deck or another hand: every
iteration overwrites both with a fresh deal before it looks.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.engine.linker import own_code_only
from sim.engine.rng import next_u64
from sim.engine.scoring import table_scores, win_share
from sim.engine.state import DEC_OVER, SC_DECISION, SC_LOG, SC_SEAT, SC_TURNS
from sim.engine.table import copy_live, copy_state
from sim.engine.turns import apply_action
from sim.policies.compiled import allowed_actions, choose_greedy, choose_random, top_actions
from sim.policies.lookahead import SCORE_WEIGHT, hand_out, shuffle_unseen, unseen_counts
from sim.specs import (
    MAX_BUDGET,
    P_BAN,
    P_BUDGET,
    P_CANDIDATES,
    P_EXPLORATION,
    P_HORIZON,
    P_ROLLOUT_POLICY,
    POLICY_GREEDY,
)

# One tree node per row of a float64 array (ids and counts are exact in float64).
T_ACTION, T_PARENT, T_CHILD, T_SIBLING, T_MOVER, T_VISITS, T_AVAIL, T_VALUE = range(8)
T_WIDTH = 8


def tree_rows() -> int:
    """Rows of the tree array: the root plus one node per iteration at the largest budget."""
    return MAX_BUDGET + 1


@njit(cache=True)
def _child(tree, node, a):
    """The child of node reached by action a, or -1."""
    ch = int(tree[node, T_CHILD])
    while ch >= 0:
        if int(tree[ch, T_ACTION]) == a:
            return ch
        ch = int(tree[ch, T_SIBLING])
    return -1


@njit(cache=True)
def _new_node(tree, at, parent, a, mover):
    """Row `at` becomes a fresh child of parent (-1: the root), reached by mover's action a."""
    tree[at, T_ACTION] = a
    tree[at, T_PARENT] = parent
    tree[at, T_CHILD] = -1
    tree[at, T_SIBLING] = tree[parent, T_CHILD] if parent >= 0 else -1
    tree[at, T_MOVER] = mover
    tree[at, T_VISITS] = 0.0
    tree[at, T_AVAIL] = 0.0
    tree[at, T_VALUE] = 0.0
    if parent >= 0:
        tree[parent, T_CHILD] = at


@njit(cache=True)
def _outcome(s, pr, reward, scores, roots):
    """Every seat's rollout value, as lookahead scores it (see lookahead._rollout_value);
    `scores` and `roots` are scratch for `table_scores`."""
    table_scores(s, pr, scores, roots)
    over = s[SC_DECISION] == DEC_OVER
    for p in range(pr.players):
        other = -(1 << 40)
        for q in range(pr.players):
            if q != p:
                other = max(other, scores[q])
        reward[p] = SCORE_WEIGHT * (scores[p] - other)
        if over:
            reward[p] += win_share(scores, p)


@njit(cache=True)
def _select(s2, pr, tree, node, nodes, buf2, m, c):
    """Count buf2[:m]'s children of node as available; expand the best-ranked action not yet
    in the tree (while there is room), else pick by UCB. Returns (row or -1, rows used)."""
    pick = -1
    best = -1e300
    untried = -1
    for i in range(m):
        ch = _child(tree, node, buf2[i])
        if ch < 0:
            if untried < 0:
                untried = i
            continue
        tree[ch, T_AVAIL] += 1.0
        visits = tree[ch, T_VISITS]
        v = tree[ch, T_VALUE] / visits + c * math.sqrt(math.log(tree[ch, T_AVAIL]) / visits)
        if v > best:
            best = v
            pick = ch
    if untried >= 0 and nodes < tree.shape[0]:
        _new_node(tree, nodes, node, buf2[untried], s2[SC_SEAT])
        tree[nodes, T_AVAIL] = 1.0
        return nodes, nodes + 1
    return pick, nodes


@own_code_only
@njit(cache=True)
def choose_ismcts(s, pr, stream, buf, w, params, values, s2, buf2, pool, tree):
    """The most visited root action after `budget` ISMCTS iterations.

    A seat with banned options (P_BAN) keeps to them at its own nodes and in its own
    rollout turns; the other seats are unrestricted (as in the look-ahead)."""
    me = s[SC_SEAT]
    ban = np.int64(params[P_BAN])
    n = allowed_actions(s, pr, buf, ban)
    if n == 1:
        return buf[0]
    budget = max(1, int(params[P_BUDGET]))
    c = params[P_EXPLORATION]
    k = max(1, int(params[P_CANDIDATES]))
    horizon = int(params[P_HORIZON])
    rollout_greedy = int(params[P_ROLLOUT_POLICY]) == POLICY_GREEDY
    # The root's candidates: its legal actions and their ranking are public (own hand, table).
    k0 = top_actions(s, pr, me, buf, n, k, w, values)
    counts = pool[: pr.ntypes]
    cards = pool[pr.ntypes :]
    unseen_counts(s, pr, me, counts)  # public counts: the same for every deal of this decision
    streams = np.empty((pr.players + 1, 1), np.uint64)  # per seat, then the deals'
    streams[pr.players, 0] = next_u64(stream)
    reward = np.zeros(pr.players, np.float64)
    scores = np.zeros(pr.players, np.int64)
    roots = np.empty(pr.ndeck, np.int32)
    _new_node(tree, 0, -1, -1, -1)
    nodes = 1
    turns0 = s[SC_TURNS]
    copy_state(s2, s, pr)  # then per iteration only what a playout changed (`copy_live`)
    for _ in range(budget):
        copy_live(s2, s, pr)
        s2[SC_LOG] = 0
        hand_out(s2, pr, me, cards, shuffle_unseen(counts, streams[pr.players], cards))
        for q in range(pr.players):
            streams[q, 0] = next_u64(streams[pr.players])
        node = 0
        while s2[SC_DECISION] != DEC_OVER:
            if horizon > 0 and s2[SC_TURNS] - turns0 >= horizon:
                break
            if node == 0:
                m = k0
                for i in range(m):  # not buf2[:m] = buf[:m]: its shape check's error message
                    buf2[i] = buf[i]  # alone compiled for about 2.5 s
            else:
                mover = s2[SC_SEAT]
                m = allowed_actions(s2, pr, buf2, ban if mover == me else np.int64(0))
                m = top_actions(s2, pr, mover, buf2, m, k, w, values)
            before = nodes
            pick, nodes = _select(s2, pr, tree, node, nodes, buf2, m, c)
            if pick < 0:
                break  # the tree is full and nothing here was tried: roll out from here
            apply_action(s2, pr, np.int32(tree[pick, T_ACTION]))
            node = pick
            if nodes > before:
                break  # a new leaf: roll out from it
        while s2[SC_DECISION] != DEC_OVER:
            if horizon > 0 and s2[SC_TURNS] - turns0 >= horizon:
                break
            q = s2[SC_SEAT]
            own = ban if q == me else np.int64(0)
            if rollout_greedy:
                a = choose_greedy(s2, pr, streams[q], buf2, w, own)
            else:
                a = choose_random(s2, pr, streams[q], buf2, own)
            apply_action(s2, pr, a)
        _outcome(s2, pr, reward, scores, roots)
        while node > 0:
            tree[node, T_VISITS] += 1.0
            tree[node, T_VALUE] += reward[int(tree[node, T_MOVER])]
            node = int(tree[node, T_PARENT])
        tree[0, T_VISITS] += 1.0
    return _most_visited(tree)


@njit(cache=True)
def _most_visited(tree):
    """The root child visited most; ties go to the better mean, then to greedy's rank."""
    pick = -1
    most = -1.0
    mean = -1e300
    ch = int(tree[0, T_CHILD])
    while ch >= 0:  # newest first, so `>=` on the mean hands exact ties to the earlier child
        v = tree[ch, T_VISITS]
        value = tree[ch, T_VALUE] / v if v > 0 else -1e300
        if v > most or (v == most and value >= mean):
            most, mean, pick = v, value, ch
        ch = int(tree[ch, T_SIBLING])
    return np.int32(tree[pick, T_ACTION])
