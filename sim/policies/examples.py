"""Example plug-in policies: templates for a designer's own player.

Use one in a config as `{policy: "sim.policies.examples:CatLover"}`; write
your own the same way in any importable module.
"""

from __future__ import annotations

import numpy as np

from sim.engine.game import PlayerView
from sim.policies.base import LegalAction


class CatLover:
    """Puts an awake cat down whenever it may; otherwise plays at random.

    Stands for a player who loves the cat bonus and forgets the end trigger.
    """

    def __init__(self, patience: float = 0.0) -> None:
        self.patience = patience  # chance of holding the cat back anyway

    def choose(self, view: PlayerView, legal: list[LegalAction], rng: np.random.Generator) -> int:
        """A cat if one is legal (unless patience says wait), else a uniform pick."""
        if view.decision == "cat" and rng.random() >= self.patience:
            cats = [a for a in legal if a.text.startswith("cat at")]
            if cats:
                return cats[int(rng.integers(len(cats)))].code
        return legal[int(rng.integers(len(legal)))].code
