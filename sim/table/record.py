"""A game played decision by decision, written down so that it replays exactly.

The `sim play --log` JSON Lines, format 2. The first record is the engine's
`setup` record (seed, game, game settings, deck, start card, hands, aside,
deck after setup) with, added, what an exact replay needs: `log_format`,
`engine_version`, `package_version`, the resolved study (`study`, as a run
folder's `config.yaml` holds it) and its `config_hash`, and `seats` (each seat's
line-up slot, policy label and whether a person played it); a log of `sim table
--name` also names the people (`players`: one name or null per seat). Then the engine's
event records as before, with one `decision` record per decision:

    {"event": "decision", "step": 12, "seat": 1, "decision": "play",
     "legal": [codes offered], "action": code taken, "chose": "place box:NE at [0, 1]",
     "ms": 5400}            # ms: a person's time to decide (human seats only)

A decision record comes right before the records its action caused, except that
a decision which opens its seat's turn (the choice between the box and the
sleeping-cat action, R3) comes right after that turn's `turn` record, so every
record between two `turn` records belongs to that turn's seat. The `end` record
closes a finished game; an unfinished one ends with `abandoned`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.config import StudyConfig
from sim.engine.game import Game
from sim.engine.state import SC_NEVENTS
from sim.engine.turns import apply_action
from sim.errors import IllegalAction, SimError
from sim.policies.dispatch import PolicyScratch
from sim.runs.lineup import engine_for, seat_lineup
from sim.runs.play import Seat
from sim.version import ENGINE_VERSION, __version__

LOG_FORMAT = 2
DECISION = "decision"
ABANDONED = "abandoned"
# The setup record's names of who sat where: one name (or null) per seat (`sim table
# --name`); `sim calibrate --by player` fits one model per name. Optional: older logs lack it.
PLAYERS_KEY = "players"
# Keys of the setup record that are about the sitting, not the game: never compared.
SITTING_KEYS = ("started_at", "source", PLAYERS_KEY)


@dataclass(frozen=True)
class Decision:
    """One decision: who made it, of which kind, among which actions, which one, and the
    range [first, end) of the engine's event records its action caused."""

    step: int
    seat: int
    kind: str
    legal: tuple[int, ...]
    action: int
    events: tuple[int, int]
    ms: int | None = None  # a person's time to decide

    def record(self, game: Game) -> dict:
        """The decision's log record."""
        out = {
            "event": DECISION,
            "step": self.step,
            "seat": self.seat,
            "decision": self.kind,
            "legal": list(self.legal),
            "action": self.action,
            "chose": game.describe(self.action),
        }
        if self.ms is not None:
            out["ms"] = self.ms
        return out


@dataclass
class RecordedGame:
    """A Game of a study whose every decision is written down as it is made."""

    study: StudyConfig
    seed: int
    index: int
    humans: frozenset[int] = frozenset()
    game: Game = field(init=False)
    slots: list[int] = field(init=False)
    decisions: list[Decision] = field(init=False, default_factory=list)
    setup_events: int = field(init=False)

    def __post_init__(self) -> None:
        self.game = Game(engine_for(self.study.game), self.seed, self.index, log=True)
        self.slots = [int(slot) for slot in seat_lineup(self.study, self.index)]
        self.setup_events = int(self.game.s[SC_NEVENTS])

    @property
    def step(self) -> int:
        """Decisions made so far."""
        return len(self.decisions)

    def apply(self, action: int, ms: int | None = None) -> Decision:
        """Carry out the pending decision's action; IllegalAction (state unchanged) if it is
        not one of the legal actions offered."""
        game = self.game
        if game.over:
            raise IllegalAction("the game is over")
        legal = tuple(int(a) for a in game.legal())
        if int(action) not in legal:
            raise IllegalAction(
                f"{describe(game, int(action))} is not legal at this {game.decision} decision"
            )
        seat, kind, before = game.seat, game.decision, int(game.s[SC_NEVENTS])
        apply_action(game.s, game.pr, np.int32(action))
        decision = Decision(
            self.step, seat, kind, legal, int(action), (before, int(game.s[SC_NEVENTS])), ms
        )
        self.decisions.append(decision)
        return decision

    def seats(self) -> list[dict]:
        """Each seat's line-up slot, its policy's label and whether a person plays it."""
        return [
            {
                "seat": p,
                "slot": slot,
                "policy": self.study.seats[slot].label,
                "human": p in self.humans,
            }
            for p, slot in enumerate(self.slots)
        ]

    def setup_record(self) -> dict:
        """The engine's setup record with what an exact replay needs."""
        return {
            **self.game.setup_event(),
            "log_format": LOG_FORMAT,
            "engine_version": ENGINE_VERSION,
            "package_version": __version__,
            "config_hash": self.study.config_hash(),
            "study": self.study.to_yaml_dict(),
            "seats": self.seats(),
        }

    def records(self) -> list[dict]:
        """The whole log so far: setup, events and decisions, and `end` once it is over."""
        events = self.game.events()
        out = [self.setup_record(), *events[1 : 1 + self.setup_events]]
        for decision in self.decisions:
            out += self._interleave(decision, events)
        if self.game.over:
            out.append(events[-1])
        return out

    def records_of(self, decision: Decision) -> list[dict]:
        """The records one decision adds to the log (and `end` if it ended the game)."""
        events = self.game.events()
        out = self._interleave(decision, events)
        if self.game.over and decision is self.decisions[-1]:
            out.append(events[-1])
        return out

    def _interleave(self, decision: Decision, events: list[dict]) -> list[dict]:
        first, end = decision.events
        caused = events[1 + first : 1 + end]
        record = decision.record(self.game)
        if decision.kind == "choose" and caused and caused[0]["event"] == "turn":
            return [caused[0], record, *caused[1:]]  # the turn it opens comes first
        return [record, *caused]


def describe(game: Game, action: int) -> str:
    """An action's readable form, also for a code no decision could offer."""
    try:
        return game.describe(action)
    except (IndexError, ValueError, OverflowError):
        return f"action code {action}"


class Bots:
    """The policies of a game's seats that no person plays, as `play_one` builds them."""

    def __init__(self, recorded: RecordedGame) -> None:
        study, game = recorded.study, recorded.game
        self.seats = {
            p: Seat(study.seats[slot], game, p, study.folder)
            for p, slot in enumerate(recorded.slots)
            if p not in recorded.humans
        }
        self.scratch = PolicyScratch.for_params(game.pr)

    def choose(self, game: Game) -> int:
        """The bot's action at the pending decision."""
        return self.seats[game.seat].choose(game, self.scratch)


def play_recorded(study: StudyConfig, seed: int, index: int = 0) -> RecordedGame:
    """Play game `index` of root `seed` with the study's seats, every decision recorded:
    the same game as `play_one` (and the compiled loop) plays."""
    if study.replays:
        raise SimError("replays: a replayed deal is played by the compiled loop only (sim luck)")
    recorded = RecordedGame(study, seed, index)
    bots = Bots(recorded)
    while not recorded.game.over:
        recorded.apply(bots.choose(recorded.game))
    return recorded
