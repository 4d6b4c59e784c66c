"""Logs on disk: write one, append to one as a game goes on, read one back and check it.

`check_log` replays a log's decisions in a fresh game of the study it records
and compares, record by record, what the engine writes with what the log says
(`sim play --replay LOG`); the bots' choices are played again too, so a log
whose bot would now choose otherwise diverges there. The first divergence is
one line naming the log's line and the fields that differ.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from sim.config import StudyConfig, parse_study
from sim.errors import IllegalAction, SimError
from sim.runs.storage import write_text
from sim.table.record import (
    ABANDONED,
    DECISION,
    LOG_FORMAT,
    SITTING_KEYS,
    Bots,
    RecordedGame,
    describe,
)
from sim.version import ENGINE_VERSION

MAX_LOG_BYTES = 200 * 1024 * 1024  # a game's log is about 100 kB
MAX_DECISIONS = 1_000_000
SHOWN = 60  # characters of a value shown in a divergence


def write_log(path: Path, records: list[dict]) -> None:
    """Write a whole log (atomically); an unwritable path is one error line."""
    try:
        write_text(Path(path), "".join(json.dumps(r) + "\n" for r in records))
    except OSError as exc:
        raise SimError(f"{path}: cannot write the log: {exc.strerror}") from None


class LogWriter:
    """A log written record by record while a game is played (the web table): a new file,
    never one that exists, flushed after every decision so a stopped server keeps it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._file = open(self.path, "x", encoding="utf-8")  # noqa: SIM115 (kept open)

    def write(self, records: list[dict]) -> None:
        """Append records and flush them to disk (a full disk: one line naming the log)."""
        try:
            self._file.write("".join(json.dumps(r) + "\n" for r in records))
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:
            raise SimError(f"{self.path}: cannot write the log: {exc.strerror}") from None

    def close(self) -> None:
        """Close the file (idempotent)."""
        if not self._file.closed:
            self._file.close()


def read_log(path: str | Path) -> list[tuple[int, dict]]:
    """The records of a log with their line numbers; a missing, huge or malformed file is
    one error line."""
    path = Path(path)
    if not path.exists():
        raise SimError(f"{path}: no such log file")
    if not path.is_file():  # a device or a pipe: no log, and /dev/zero never ends
        raise SimError(f"{path}: not a log file (a folder, device or pipe)")
    if path.stat().st_size > MAX_LOG_BYTES:
        raise SimError(f"{path}: {path.stat().st_size:,} bytes is too large for a game's log")
    out, read = [], 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            read += len(line)
            if read > MAX_LOG_BYTES:  # counted while read: the file may grow
                raise SimError(f"{path}: more than {MAX_LOG_BYTES:,} bytes; not a game's log")
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                raise SimError(f"{path}:{number}: not a JSON record") from None
            if not isinstance(record, dict) or not isinstance(record.get("event"), str):
                raise SimError(f"{path}:{number}: not a log record (no 'event')")
            out.append((number, record))
    if not out:
        raise SimError(f"{path}: empty log")
    return out


@dataclass
class CheckedLog:
    """A log replayed against the engine: the game as replayed and what the log held."""

    path: Path
    recorded: RecordedGame
    abandoned: bool
    bots_checked: int

    @property
    def finished(self) -> bool:
        return self.recorded.game.over

    def summary(self) -> str:
        """One line: the log replays exactly, how far, and the scores it reaches."""
        game, decisions = self.recorded.game, self.recorded.decisions
        people = sum(d.seat in self.recorded.humans for d in decisions)
        who = f" ({people} by a person)" if people else ""
        scores = ", ".join(str(s) for s in game.outcome().scores)
        if game.over:
            winners = game.outcome().winners
            seats = "seat" if len(winners) == 1 else "seats"
            end = (
                f"{game.turns} turns, end by {game.trigger}; final scores {scores}"
                f" (winner {seats} {', '.join(map(str, winners))})"
            )
        else:
            how = "abandoned" if self.abandoned else "not finished"
            end = f"{how} after {game.turns} turns; table scores then {scores}"
        bots = f"; {self.bots_checked} bot choices played again, all as logged"
        return f"{self.path}: replays exactly: {len(decisions)} decisions{who}, {end}" + (
            bots if self.bots_checked else ""
        )


def log_study(setup: dict, where: str) -> StudyConfig:
    """The study a log's setup record holds, checked: format, engine version, config hash."""
    if setup.get("event") != "setup":
        raise SimError(f"{where}: the first record is not a setup record")
    if "log_format" not in setup:
        raise SimError(
            f"{where}: written before logs recorded their decisions (no log_format);"
            " it cannot be replayed exactly"
        )
    if setup["log_format"] != LOG_FORMAT:
        raise SimError(f"{where}: log format {setup['log_format']!r}; this sim reads {LOG_FORMAT}")
    if setup.get("engine_version") != ENGINE_VERSION:
        raise SimError(
            f"{where}: written by engine version {setup.get('engine_version')!r}; this is"
            f" {ENGINE_VERSION}, whose games may differ"
        )
    for key in ("study", "config_hash", "seed", "game", "seats"):
        if key not in setup:
            raise SimError(f"{where}: the setup record has no {key!r}")
    if not isinstance(setup["study"], dict):
        raise SimError(f"{where}: the setup record's study is not a mapping")
    study = parse_study(setup["study"], where, where=f"{where} (setup record)")
    if study.config_hash() != setup["config_hash"]:
        raise SimError(
            f"{where}: its study hashes to {study.config_hash()}, not the {setup['config_hash']}"
            " it records"
        )
    return study


def open_log(path: Path, study: StudyConfig | None = None) -> tuple[list, dict, str, StudyConfig]:
    """A log's records, its setup record, where that is (`FILE:LINE`) and the study it
    records, checked like `sim play --replay` checks it; a given `study` must be the log's."""
    records = read_log(path)
    line, setup = records[0]
    where = f"{path}:{line}"
    logged = log_study(setup, where)
    if study is not None and study.config_hash() != logged.config_hash():
        raise SimError(
            f"{path}: the log is of config hash {logged.config_hash()}, not of the given"
            f" config ({study.config_hash()})"
        )
    return records, setup, where, logged


def check_log(
    path: str | Path, study: StudyConfig | None = None, *, bots: bool = True
) -> CheckedLog:
    """Replay a log against the engine (and its bots, with `bots`); SimError at the first
    divergence, in one line. A given `study` must be the one the log records."""
    path = Path(path)
    records, setup, where, logged = open_log(path, study)
    humans = _human_seats(setup, logged, where)
    seed, index = setup["seed"], setup["game"]
    if not (isinstance(seed, int) and isinstance(index, int) and seed >= 0 and index >= 0):
        raise SimError(f"{where}: seed and game must be whole numbers >= 0")
    recorded = RecordedGame(logged, seed, index, frozenset(humans))
    players = Bots(recorded) if bots else None
    checked = 0
    first_bad: tuple[int, str] | None = None
    decisions = [(n, r) for n, r in records if r["event"] == DECISION]
    if len(decisions) > MAX_DECISIONS:
        raise SimError(f"{path}: {len(decisions):,} decisions is more than a game holds")
    for number, record in decisions:
        game = recorded.game
        if game.over:
            first_bad = (number, "a decision after the end of the game")
            break
        action = record.get("action")
        if not isinstance(action, int) or isinstance(action, bool):
            first_bad = (number, f"the decision's action is {_show(action)}, not an action code")
            break
        if players is not None and game.seat not in humans:
            mine = players.choose(game)
            checked += 1
            if mine != action:
                first_bad = (
                    number,
                    f"seat {game.seat} ({players.seats[game.seat].spec.label}) now chooses"
                    f" {game.describe(mine)}; the log has {describe(game, action)}",
                )
                break
        ms = record.get("ms")
        try:
            recorded.apply(action, ms if isinstance(ms, int) else None)
        except IllegalAction as exc:
            first_bad = (number, str(exc))
            break
    expected = recorded.records()
    abandoned = records[-1][1]["event"] == ABANDONED
    if abandoned:
        expected.append(records[-1][1])
    _compare(path, records, expected, first_bad)
    return CheckedLog(path, recorded, abandoned, checked)


def _human_seats(setup: dict, study: StudyConfig, where: str) -> set[int]:
    seats = setup["seats"]
    players = study.game.players
    if not isinstance(seats, list) or len(seats) != players:
        raise SimError(f"{where}: 'seats' must list the game's {players} seats")
    return {p for p, seat in enumerate(seats) if isinstance(seat, dict) and seat.get("human")}


def _compare(
    path: Path,
    records: list[tuple[int, dict]],
    expected: list[dict],
    first_bad: tuple[int, str] | None,
) -> None:
    """Raise at the first record that differs from the engine's, or at `first_bad` if that
    comes earlier."""
    for (number, record), mine in zip(records, expected, strict=False):
        if first_bad is not None and number >= first_bad[0]:
            break
        difference = _difference(record, mine, number == records[0][0])
        if difference:
            raise SimError(f"{path}:{number}: diverges from the engine: {difference}")
    if first_bad is not None:
        raise SimError(f"{path}:{first_bad[0]}: diverges from the engine: {first_bad[1]}")
    if len(records) > len(expected):
        number, record = records[len(expected)]
        raise SimError(
            f"{path}:{number}: diverges from the engine: the log goes on with a"
            f" {record['event']!r} record after the engine's last"
        )
    if len(records) < len(expected):
        missing = expected[len(records)]
        if missing["event"] != "end":
            raise SimError(
                f"{path}: diverges from the engine: the log stops before the engine's"
                f" {missing['event']!r} record (line {records[-1][0] + 1})"
            )
        raise SimError(
            f"{path}: diverges from the engine: the game is over but the log has no end record"
        )


def _difference(logged: dict, mine: dict, setup: bool) -> str:
    """'' when the records agree; else which fields differ, shortly."""
    ignore = {"ms", *(SITTING_KEYS if setup else ())}
    if logged.get("event") != mine.get("event"):
        return f"the log has a {_show(logged.get('event'))} record, the engine a {mine['event']!r}"
    keys = sorted((set(logged) | set(mine)) - ignore)
    bad = [k for k in keys if logged.get(k, "<missing>") != mine.get(k, "<missing>")]
    if not bad:
        return ""
    parts = [
        f"{k}: the log has {_show(logged.get(k, '<missing>'))}, the engine"
        f" {_show(mine.get(k, '<missing>'))}"
        for k in bad[:3]
    ]
    more = f" (and {len(bad) - 3} more fields)" if len(bad) > 3 else ""
    return f"{mine['event']} record, " + "; ".join(parts) + more


def _show(value) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
