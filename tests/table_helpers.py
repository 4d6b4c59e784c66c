"""Shared pieces of the single-game tests (tests/table/) and the hidden-information test
that a test imports by name: kept out of tests/table/conftest.py, as a plain `from conftest
import` finds whichever folder's conftest was imported first when other folders' tests are
collected beside these."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.config import load_study
from sim.engine.state import (
    EV_DRAW,
    KIND_BOX,
    KIND_PRINCESS,
    SC_DECK_LEN,
    SC_DECK_POS,
    SC_NEVENTS,
    StateView,
)

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "base.yaml"
TWO_GREEDY = ["players=2", "seats=[{policy: greedy}, {policy: greedy}]"]


def two_player_study():
    """configs/base.yaml at two seats, both greedy (a bot that plays quickly and well)."""
    return load_study(BASE, TWO_GREEDY)


def perturb_hidden(game, viewer: int | None, rng: np.random.Generator) -> None:
    """Change everything `viewer` may not know (None: nobody's hand is known) and keep every
    public count: the other hands and the deck re-dealt among themselves, and the box or
    Princess card each other seat drew replaced by another in the event records."""
    v = StateView(game.s, game.pr)
    pos, end = int(game.s[SC_DECK_POS]), int(game.s[SC_DECK_LEN])
    pool = list(v.deck[pos:end])
    sizes = []
    for p in range(game.pr.players):
        if p == viewer:
            continue
        for t, n in enumerate(v.hands[p]):
            pool += [t] * int(n)
        sizes.append((p, int(v.hands[p].sum())))
        v.hands[p] = 0
    rng.shuffle(pool)
    for p, n in sizes:
        for t in pool[:n]:
            v.hands[p, t] += 1
        pool = pool[n:]
    v.deck[pos:end] = pool
    kinds = game.engine.types.kinds
    hidden = [t for t, k in enumerate(kinds) if k in (KIND_BOX, KIND_PRINCESS)]
    for row in v.events[: int(game.s[SC_NEVENTS])]:
        if row[0] == EV_DRAW and row[1] != viewer and kinds[row[2]] in (KIND_BOX, KIND_PRINCESS):
            row[2] = rng.choice(hidden)
