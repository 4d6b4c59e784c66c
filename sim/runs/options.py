"""The options every study command takes besides its config, each bundle one value.

`Workers` says where chunks run (worker processes, backend, a Dask scheduler) and
whether progress is shown; `Request` says what a command is asked for: its folder
(new or resumed), games and seed, and its page. The command line builds both once
(`sim.cli.parser.options`) and hands them down unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar

# What `Request.games` (--games) counts in each study command, and what it is when not
# given: one table, read by the command line's help and documented in docs/commands. `sim tune`
# and `sim advise` count their games with a budget, `sim luck` with deals and replays.
GAMES = {
    "run": ("games of the run", "the config's games"),
    "sweep": ("games per point", "the config's games"),
    "compare": ("games of each config", "A's games"),
    "value": ("games per point", "value.games, else the config's games up to 2,000"),
    "ladder": ("games per match", "ladder.games, else 400"),
    "turns": ("games per deck size", "300"),
    "map": ("games per point and line-up", "map.games, 2,000"),
}


@dataclass(frozen=True)
class Workers:
    """Where the chunks of games run: `jobs` worker processes (-1: all cores), the joblib
    `backend` (fork, loky or dask; None: the platform's), the Dask `scheduler` address, and
    `quiet` (no progress bar or lines)."""

    KEYS: ClassVar[tuple[str, ...]] = ("jobs", "backend", "scheduler", "quiet")
    jobs: int = -1
    backend: str | None = None
    scheduler: str | None = None
    quiet: bool = False

    def silent(self) -> Workers:
        """The same workers without progress output (a study's inner runs)."""
        return Workers(self.jobs, self.backend, self.scheduler, quiet=True)


@dataclass(frozen=True)
class Request:
    """What a study command is asked for besides its study: `out` (a new folder; default
    runs/<stem>-<time>), `resume` (a folder to finish), `games` and `seed` (each command says
    what its games count), its page (`report`, else the default; `no_report`: none),
    `force` (let the page replace a file that is not a page of ours), and `until`
    ("decided": stop once every question of the study is decided, `sim.runs.until`) with
    its cap `max_games` (`sim run`, `sim compare`, `sim sweep`); `feel`: measure each game's
    chance curves (`sim.runs.chances`; `sim run`, `sim compare`, `sim sweep`)."""

    out: Path | None = None
    resume: Path | None = None
    games: int | None = None
    seed: int | None = None
    report: Path | None = None
    no_report: bool = False
    force: bool = False
    until: str | None = None
    max_games: int | None = None
    feel: bool = True

    @classmethod
    def of(cls, **given) -> Request:
        """A request from keyword arguments (paths as text or Path; unknown keys refused)."""
        known = {f.name for f in fields(cls)}
        unknown = set(given) - known
        if unknown:
            raise TypeError(f"unknown request options: {sorted(unknown)}")
        for key in ("out", "resume", "report"):
            if given.get(key) is not None:
                given[key] = Path(given[key])
        return cls(**given)

    def overrides(self) -> dict:
        """The study settings this request replaces: games and seed, where given."""
        return {k: v for k, v in (("games", self.games), ("seed", self.seed)) if v is not None}


# The defaults, shared (both are frozen): all cores on the platform's backend, with
# progress; a new folder of the default name, the study's own games and seed, its page.
ALL_CORES = Workers()
AS_CONFIGURED = Request()
