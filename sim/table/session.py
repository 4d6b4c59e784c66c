"""The web table's game session: one game at a time, people at some seats, bots at the rest.

The session holds the game; the server only passes JSON in and out. What a
page receives for a seat is built from that seat's `PlayerView` and the public
words of the game's events (`sim.table.views`): its own hand, never another's.
A person's action is checked against the legal actions before anything
changes; a refused one is one line (`Refused`) and leaves the game, the log and
the clock as they were. Every game is logged as it goes (format 2 of
`sim.table.record`), so `sim play --replay LOG` replays it exactly.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path

from sim.config import StudyConfig
from sim.errors import IllegalAction, SimError
from sim.report.board import box_points, seat_colours
from sim.table.explain import explain
from sim.table.logfile import LogWriter
from sim.table.record import ABANDONED, PLAYERS_KEY, Bots, RecordedGame
from sim.table.views import action_parts, event_text, highlight_of, view_json

FEED = 40  # lines of what happened the page shows
MAX_INDEX = 100_000_000


class Refused(SimError):
    """A person's action that is not legal now (or not theirs to take): one line."""


class TableSession:
    """Games of one study at one table: `state` for a seat, `act` for a person, `bot_step`
    for the bots, `new_game` to abandon one and deal the next."""

    def __init__(
        self,
        study: StudyConfig,
        humans: set[int],
        seed: int,
        first_game: int,
        log_dir: Path,
        pause_s: float,
        names: dict[int, str] | None = None,
    ) -> None:
        self.study = study
        self.names = dict(names or {})  # a person's name by seat, for the logs
        self.humans = frozenset(humans)
        self.seed = seed
        self.next_index = first_game
        self.log_dir = Path(log_dir)
        self.pause_s = pause_s
        self.lock = threading.RLock()
        self.games_started = 0
        self.recorded: RecordedGame | None = None
        self.writer: LogWriter | None = None
        self._start()

    # ------------------------------------------------------------ games

    def _start(self) -> None:
        """Deal the next game and open its log."""
        index = self.next_index
        if index >= MAX_INDEX:
            raise Refused("no more game indices for this seed; restart with another --seed")
        self.next_index += 1
        self.games_started += 1
        self.recorded = RecordedGame(self.study, self.seed, index, self.humans)
        self.bots = Bots(self.recorded)
        self.log_path = self._log_name(index)
        self.writer = LogWriter(self.log_path)
        setup = self.recorded.setup_record()
        setup |= {"source": "sim table", "started_at": datetime.now().isoformat(timespec="seconds")}
        if self.names:  # who sat where, for sim calibrate --by player
            setup[PLAYERS_KEY] = [self.names.get(p) for p in range(self.study.game.players)]
        records = self.recorded.records()
        self.writer.write([setup, *records[1:]])
        self.pending_since = time.monotonic()
        self.abandoned = False

    def _log_name(self, index: int) -> Path:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        # no seed in the name: the page shows it while the game is on (the log's first
        # record holds the seed)
        base = f"{self.study.name}-{stamp}-game{index}"
        path = self.log_dir / f"{base}.jsonl"
        k = 1
        while path.exists():  # never another file's name
            k += 1
            path = self.log_dir / f"{base}-{k}.jsonl"
        return path

    def new_game(self) -> None:
        """Abandon the game in progress (its log says so) and deal the next one."""
        with self.lock:
            self.close("a new game was started")
            self._start()

    def close(self, reason: str = "the server stopped") -> None:
        """End the current game's log: `abandoned` if it is not over."""
        with self.lock:
            if self.writer is None:
                return
            if not self.recorded.game.over and not self.abandoned:
                self.writer.write(
                    [{"event": ABANDONED, "step": self.recorded.step, "reason": reason}]
                )
                self.abandoned = True
            self.writer.close()

    # ------------------------------------------------------------ actions

    def _apply(self, action: int, ms: int | None) -> None:
        decision = self.recorded.apply(action, ms)
        self.writer.write(self.recorded.records_of(decision))
        self.pending_since = time.monotonic()
        if self.recorded.game.over:
            self.writer.close()

    def act(self, seat: int, code: int | None = None, request: dict | None = None) -> None:
        """A person's action: a legal action's code, or a click (`request`) that names
        one; Refused, with nothing changed, if it is not legal now."""
        with self.lock:
            game = self.recorded.game
            if self.abandoned:
                raise Refused("this game was abandoned: start a new one")
            if game.over:
                raise Refused("the game is over: start a new one")
            if not isinstance(seat, int) or not 0 <= seat < game.pr.players:
                raise Refused(f"seat must be a seat number from 0 to {game.pr.players - 1}")
            if game.seat != seat:
                raise Refused(f"it is seat {game.seat}'s turn to decide, not seat {seat}'s")
            if seat not in self.humans:
                raise Refused(f"seat {seat} is played by a bot")
            legal = [int(a) for a in game.legal()]
            if code is None:
                code = self._match(request, legal)
            if not isinstance(code, int) or isinstance(code, bool) or code not in legal:
                raise Refused(self._refusal(code, legal))
            ms = int(1000 * (time.monotonic() - self.pending_since))
            try:
                self._apply(code, ms)
            except IllegalAction as exc:  # cannot happen after the check above
                raise Refused(str(exc)) from None

    def _match(self, request, legal: list[int]) -> int:
        """The legal action a click names; Refused with the reason when none does."""
        if not isinstance(request, dict):
            raise Refused("send a legal action's code or a click on the table")
        game = self.recorded.game
        view = game.view(game.seat)
        if request.get("kind") == "princess":  # a click on either card of the cat names it
            at = request.get("at")
            for cat in view.table.cats:
                if at in (list(cat.north), list(cat.south)):
                    request = {**request, "at": list(cat.north)}
        for code in legal:
            if _same(action_parts(game, code), request):
                return code
        raise Refused(explain(view, legal, request, game, self._fresh()))

    def _refusal(self, code, legal: list[int]) -> str:
        game = self.recorded.game
        if not isinstance(code, int) or isinstance(code, bool):
            return "not an action code: send one of the legal actions' codes"
        return (
            f"action code {code} is not one of the {len(legal)} legal actions at this"
            f" {game.decision} decision"
        )

    def bot_step(self) -> int:
        """Play the bots' decisions until a person must decide, the game ends or the turn
        passes to another seat; the number of decisions played."""
        with self.lock:
            game = self.recorded.game
            played = 0
            if self.abandoned:
                return 0
            start = game.seat
            while not game.over and game.seat not in self.humans:
                if played and game.seat != start:
                    break
                self._apply(self.bots.choose(game), None)
                played += 1
            return played

    # ------------------------------------------------------------ what a page sees

    def may_see(self, seat: int) -> str:
        """'' if the page may be sent `seat`'s hand now, else why not: a bot's hand never; with
        several people at one screen, a person's hand only at that person's turn."""
        game = self.recorded.game
        if seat not in self.humans:
            return f"seat {seat} is a bot's: its hand is never sent"
        if len(self.humans) > 1 and not game.over and seat != game.seat:
            return f"seat {seat}'s hand is shown only at its own turn (people share this screen)"
        return ""

    def state_after(self, seat: int | None) -> dict:
        """The state for the page that acted: its seat's, if it may still see that hand."""
        with self.lock:
            ok = seat is not None and 0 <= seat < self.recorded.game.pr.players
            return self.state(seat if ok and not self.may_see(seat) else None)

    def state(self, seat: int | None) -> dict:
        """The JSON for a page showing `seat`'s hand (None: nobody's, the hot seat's cover)."""
        with self.lock:
            game = self.recorded.game
            players = game.pr.players
            if seat is not None and not 0 <= seat < players:
                raise Refused(f"seat must be a seat number from 0 to {players - 1}")
            if seat is not None and self.may_see(seat):
                raise Refused(self.may_see(seat))
            view = game.view(seat if seat is not None else 0)  # public parts of any view
            out = view_json(view, with_hand=seat is not None)
            mover = -1 if game.over else game.seat
            out |= {
                "game": self.recorded.index,
                # the deal follows from the seed and the game index: kept off every page
                # while the game is on (the terminal and the log keep it)
                "seed": self.seed if game.over or self.abandoned else None,
                "games_started": self.games_started,
                "step": self.recorded.step,
                "over": bool(game.over),
                "abandoned": self.abandoned,
                "mover": mover,
                "mover_human": mover in self.humans,
                "seats": [
                    {
                        "seat": p,
                        "label": "you"
                        if p in self.humans and len(self.humans) == 1
                        else ("person" if p in self.humans else s["policy"]),
                        "policy": s["policy"],
                        "human": p in self.humans,
                    }
                    for p, s in enumerate(self.recorded.seats())
                ],
                "colours": seat_colours(players),
                "kinds": list(game.engine.types.toy_kinds),
                "humans": sorted(self.humans),
                "pause_ms": int(1000 * self.pause_s),
                "log": self.log_path.name,
                "feed": self._feed(seat),
                "last": self._last(seat),
            }
            if seat is not None and seat == mover and seat in self.humans:
                out["legal"] = [action_parts(game, a) for a in game.legal()]
                out["fresh"] = self._fresh()
            if game.over:
                table = out["table"]
                out["final"] = {
                    "scores": table["scores"],
                    "cat_bonus": table["cat_bonus"],
                    "box_points": table["box_points"],
                    "winners": table["winners"],
                    "boxes": box_points(table, players),
                }
            return out

    def _public_records(self) -> list[dict]:
        """The engine's records so far, without the setup record (which names every hand)."""
        return self.recorded.game.events()[1:]

    def _feed(self, seat: int | None) -> list[str]:
        lines = [event_text(r, viewer=seat) for r in self._public_records()]
        return [line for line in lines if line][-FEED:]

    def _last(self, seat: int | None) -> dict:
        """What the last decision put on the table (to outline it) and said."""
        if not self.recorded.decisions:
            return {"cells": [], "pairs": [], "seams": [], "words": []}
        first, end = self.recorded.decisions[-1].events
        records = self._public_records()[first:end]
        out = highlight_of(records)
        out["words"] = [t for t in (event_text(r, viewer=seat) for r in records) if t]
        return out

    def _fresh(self) -> list[int] | None:
        """The card placed this turn, at a cat decision (R4.2)."""
        game = self.recorded.game
        if game.decision != "cat":
            return None
        for r in reversed(self._public_records()):
            if r["event"] == "place":
                return r["at"]
        return None


def _same(parts: dict, request: dict) -> bool:
    """Does a click (kind and the cells, card and turning it names) name this action?"""
    if parts["kind"] != request.get("kind"):
        return False
    for key in ("card", "turned", "at", "between"):
        if key in request and key in parts:
            want, have = request[key], parts[key]
            if key == "between" and isinstance(want, list):
                if sorted(map(tuple, want)) != sorted(map(tuple, have)):
                    return False
            elif want != have:
                return False
        elif key in parts and key not in request and key in ("at", "between"):
            return False
    return True
