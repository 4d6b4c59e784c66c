"""Each seat's chance of winning after every move of one game, by re-dealt continuations: a
spectator's view, move by move, for the replay page.

The feel model (`sim.feel`) gives a spectator's chances at round ends, from the table alone.
This gives them at the start of every turn of one game, from the engine itself: at each
such step, `CONTINUATIONS` copies of the position have every hand and the deck re-dealt
from the cards a spectator has not seen (the deck's composition less the start card, every
card played, discarded, placed or wasted, and a drawn item waiting face up: the public facts
of `sim.policies.lookahead.unseen_counts`, with no hand known), each hand and the deck
keeping its size, and are played on to the end by the game's own seats in compiled code
(`sim.table.whatif.Kit`). Each seat's chance is its mean win share over them (a tie shares
the win, R8.6). Continuation j of step k of game i draws from
`SeedSequence(seed, spawn_key=(i, SPECTATOR_KEY, k, j))` alone, so a page computed twice
says the same.

These chances read the whole public table (every box, cat and item, the cards left), where
the model reads only the scores, the round and who sits where; but a uniform re-deal knows
nothing the players' choices have revealed about their hands (a seat that passed up a
fitting box card probably holds none), which the model, learnt from games' outcomes, does.
The page shows both.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sim.engine.rng import spawn_words
from sim.engine.scoring import final_scores
from sim.engine.state import SC_LOG
from sim.policies.lookahead import determinize
from sim.runs.lineup import seat_lineup
from sim.specs import is_plugin
from sim.table.whatif import Kit, position_at, quick_to_play_on, win_shares

SPECTATOR_KEY = 29  # a spawn-key word no run's games and no what-if use (WHATIF_KEY is 27)
CONTINUATIONS = 64  # per step: a chance within about ±0.1 (95%) at p = 0.25
HALF_WIDTH = 0.12  # 1.96 sqrt(p (1 - p) / n) at its widest (p = 1/2, n = CONTINUATIONS)


def is_quick(study) -> bool:
    """Can every turn of a game be played on in compiled code in a second or two? Built-in
    policies, none a search player (`quick_to_play_on`)."""
    return not any(is_plugin(s.policy) for s in study.seats) and quick_to_play_on(study)


def turn_starts(turns: list[int]) -> list[int]:
    """The steps where a turn starts (step 0, then each step whose turns played moved on)."""
    return [k for k, t in enumerate(turns) if k == 0 or t != turns[k - 1]]


def spectator_redeal(game, word, counts: np.ndarray, pool: np.ndarray) -> None:
    """Re-deal every hand and the deck from the cards a spectator has not seen (sizes kept):
    the look-ahead's determinization for no seat (`me` = -1). `word`: an int, or a one-word
    uint64 array (advanced in place)."""
    stream = word if isinstance(word, np.ndarray) else np.array([word], np.uint64)
    determinize(game.s, game.pr, -1, stream, counts, pool)


def move_chances(
    study,
    seed: int,
    index: int,
    actions: list[int],
    steps: list[int],
    n: int = CONTINUATIONS,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """[len(steps), seat] each seat's mean win share over `n` spectator continuations from
    each of `steps` (positions after that many of the game's `actions`)."""
    players = study.game.players
    seats = [study.seats[slot] for slot in seat_lineup(study, index)]
    out = np.zeros((len(steps), players))
    start = position_at(study, seed, index, actions, steps[0] if steps else 0)
    kit = Kit.of(study, start, seed, index, seats)
    s, pr = kit.game.s, kit.game.pr
    size = pr.state_size
    counts = np.zeros(pr.ntypes, np.int64)
    pool = np.zeros(pr.ntypes + pr.ndeck, np.int64)
    done = steps[0] if steps else 0
    for row, step in enumerate(steps):
        for a in actions[done:step]:  # walk the game on to this step
            start.apply(a)
        done = step
        if start.over:
            out[row] = win_shares(list(final_scores(start.s, start.pr)))
            continue
        words = spawn_words(seed, (index, SPECTATOR_KEY, step), np.arange(n), players + 1)
        finals = np.zeros((n, players), np.int64)
        for j in range(n):
            s[:] = start.s[:size]
            s[SC_LOG] = 0
            spectator_redeal(kit.game, words[j, :1], counts, pool)
            kit.play_on(words[j, 1:])
            finals[j] = final_scores(s, pr)
        best = finals == finals.max(axis=1, keepdims=True)
        out[row] = (best / best.sum(axis=1, keepdims=True)).sum(axis=0) / n  # ties share (R8.6)
        if progress is not None:
            progress(row + 1)
    return out


def page_moves(replay, steps: list[dict]) -> dict | None:
    """The replay page's move-by-move chances: the turn starts (`at`, steps of the page), each
    one's chances (`p`, rounded), the continuations per step and the interval's widest
    half-width; None for a game with a person, a designer's own policy or a search player at
    the table (too slow to play on from every turn)."""
    study = replay.study
    if replay.humans or not is_quick(study):
        return None
    at = turn_starts([s["turns"] for s in steps])
    p = move_chances(study, replay.seed, replay.index, replay.actions, at)
    rows = [[round(float(v), 4) for v in row] for row in p]
    return {"at": at, "p": rows, "n": CONTINUATIONS, "half": HALF_WIDTH}
