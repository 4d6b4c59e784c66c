"""A study's feel model (`sim.feel.model`): read from the cache, else fitted on pilot games
and cached, and its per-game columns for a chunk of games.

The model belongs to the game and the line-up, not to a run: its key is the game's settings,
the seats, the seat rotation and the engine and feel versions, and its pilot games have a
seed of their own drawn from that key, so every run, comparison arm or sweep point of the
same config reads the same model, whatever its games, seed or workers. A line-up with a
designer's own policy is fitted afresh each time (its code may change under the same name).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sim import specs
from sim.config import StudyConfig
from sim.feel.model import FEEL_VERSION, FeelModel, fit_model
from sim.runs import pulse
from sim.runs.play import play_arrays
from sim.runs.results import ChunkArrays
from sim.runs.storage import write_bytes
from sim.version import ENGINE_VERSION

PILOT_GAMES = 4000  # games the model learns from (half each regression), for fast players
PILOT_CHUNKS = 40  # ... at most this many chunks of the slowest player's size (search players)


def player_codes(study: StudyConfig, slots: np.ndarray) -> np.ndarray:
    """[game, seat] each seat's player as a number (its label's place among the line-up's
    labels, sorted): what the table shows of who sits where."""
    labels = [seat.label for seat in study.seats]
    names = sorted(set(labels))
    return np.array([names.index(label) for label in labels])[slots]


def chunk_feel(model: FeelModel, study: StudyConfig, chunk: ChunkArrays) -> dict[str, np.ndarray]:
    """FEEL_COLUMNS of a chunk's games (`sim.feel.chances`)."""
    player = player_codes(study, chunk.slots)
    return model.per_game(chunk.trace, chunk.rounds, player, chunk.win_shares())


def model_key(study: StudyConfig) -> str:
    """What the model depends on, as a digest: the game, the seats, their rotation, the
    engine and the feel model's version."""
    what = {
        "game": study.game.game_dict(),
        "seats": [seat.to_dict() for seat in study.seats],
        "rotate": study.rotate_seats,
        "engine": ENGINE_VERSION,
        "feel": FEEL_VERSION,
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def pilot_games(study: StudyConfig) -> int:
    """PILOT_GAMES, or PILOT_CHUNKS chunks of the slowest player's size if fewer."""
    size = min(specs.chunk_games(seat.policy) for seat in study.seats)
    return min(PILOT_GAMES, PILOT_CHUNKS * size)


def cache_path(key: str) -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ifitfits-sim"
    return root / "feel" / f"{key[:24]}.npz"


def study_feel(study: StudyConfig, quiet: bool = False) -> FeelModel:
    """`feel_model`, saying on stderr when it fits (unless `quiet`)."""
    pulse.doing("fitting the chances of winning")
    return feel_model(study, None if quiet else lambda text: print(text, file=sys.stderr))


def feel_model(study: StudyConfig, say: Callable[[str], None] | None = None) -> FeelModel:
    """The study's feel model: from the cache, else fitted on pilot games (saying so) and
    cached (a cache that cannot be written is skipped: the model is the same next time)."""
    key = model_key(study)
    plugin = any(specs.is_plugin(seat.policy) for seat in study.seats)
    path = cache_path(key)
    if not plugin:
        try:
            with np.load(path) as saved:
                if int(saved["version"][0]) == FEEL_VERSION:
                    return FeelModel.from_arrays(saved)
        except (OSError, ValueError, KeyError):
            pass  # not cached yet, or unreadable: fit it
    games = pilot_games(study)
    if say:
        say(f"fitting the chances of winning for this line-up on {games:,} pilot games (once)")
    seed = int(key[:15], 16)
    pilot = study.with_overrides(games=games, seed=seed)
    chunk = play_arrays(pilot, 0, games)
    player = player_codes(pilot, chunk.slots)
    model = fit_model(chunk.trace, chunk.rounds, player, chunk.win_shares(), seed)
    if not plugin:
        buffer = io.BytesIO()
        np.savez(buffer, **model.arrays())
        try:
            write_bytes(path, buffer.getvalue())
        except OSError:
            pass
    return model
