"""Playing a chunk of a study's games: compiled for built-in line-ups, from Python otherwise.

`play_arrays` is what every run, sweep and comparison calls. Built-in seats
run the compiled loop; a line-up with a designer's own policy is driven from
Python (`play_one`, also `sim play` and the tests) with the same compiled
policies for the built-in seats, from the same per-seat streams, so a game
played here equals the compiled loop's game of the same (seed, index). A
plugged-in seat gets its PlayerView, the legal actions and its own numpy
Generator.

A plug-in is foreign code: whatever it does wrong (fails to import, to be
built, raises in `choose` (SystemExit and KeyboardInterrupt included), takes
longer than the study's `plugin_time_limit`, returns something that is not a
legal action's code) ends the game with a `PolicyError` or `IllegalAction`
naming the seat, the game index and the seed, which `sim play CONFIG --seed S
--game I` replays. Chunks of plug-in games are played in a child process
(`sim.runs.isolated`), so that one that ends its process or hangs in C code is
named too.
"""

from __future__ import annotations

import numbers
import os
import time
from collections.abc import Iterable

import numpy as np

from sim.analysis import moment_sums
from sim.analysis.moments import blas
from sim.config import SeatSpec, StudyConfig
from sim.config.limits import DEFAULT_PLUGIN_TIME_LIMIT
from sim.config.study import announce_plugin
from sim.engine.game import Game
from sim.errors import IllegalAction, PolicyError, SimError, one_line
from sim.feel import kernel as feel_kernel
from sim.guard.foreign import ForeignError, call_limited
from sim.policies.base import LegalAction
from sim.policies.compiled import action_banned
from sim.policies.dispatch import PolicyScratch
from sim.runs.isolated import run_isolated
from sim.runs.lineup import (
    ban_word,
    engine_for,
    lineup_policies,
    lineup_slots,
    seat_lineup,
    seat_vector,
)
from sim.runs.loop import play_chunk
from sim.runs.parallel import is_worker
from sim.runs.results import (
    ChunkArrays,
    empty_arrays,
    finish_rounds,
    max_rounds,
    record_rounds,
    summarize_game,
    trace_scratch,
)
from sim.runs.tables import arrow_tables
from sim.runs.values import value_columns
from sim.specs import PLUGIN, SeatError, load_plugin, policy_code
from sim.stack import in_a_roomy_stack


class Seat:
    """One seat's player in a Python-driven game; a plug-in's calls (its constructor, each
    choose) are foreign code, each given `limit` seconds (`sim.guard.foreign.call_limited`)."""

    def __init__(
        self,
        spec: SeatSpec,
        game: Game,
        seat: int,
        folder: str | None = None,
        *,
        limit: float = DEFAULT_PLUGIN_TIME_LIMIT,
    ) -> None:
        self.spec = spec
        self.seat = seat
        self.limit = limit
        self.code = policy_code(spec.policy)
        self.params = seat_vector(spec, game.engine.types)
        self.ban = ban_word(spec.ban, game.engine.types)
        self.stream = game.seat_stream(seat)
        self.plugin = self._build(game, folder) if self.code == PLUGIN else None
        self.rng = np.random.Generator(np.random.PCG64(int(self.stream[0])))

    def _where(self, game: Game) -> str:
        return (
            f"policy {self.spec.policy} in seat {self.seat}, game {game.index} of seed"
            f" {game.seed} (replay it: sim play CONFIG --seed {game.seed} --game {game.index})"
        )

    def _build(self, game: Game, folder: str | None):
        """The plug-in's object, built from the seat's parameters; any failure is named."""
        where = self._where(game)
        try:  # imported already where the config was read, but not in a fresh worker
            cls = call_limited(lambda: load_plugin(self.spec.policy, folder), self.limit, where)
        except SeatError as exc:  # importable where the config was read, not here
            raise PolicyError(f"{exc} (seat {self.seat})") from None
        except ForeignError as exc:
            raise PolicyError(f"{where}: importing it {exc.problem}") from None
        if not is_worker():  # said once by the command itself (its workers stay quiet)
            announce_plugin(self.spec.policy, f"seat {self.seat}")
        try:
            return call_limited(lambda: cls(**self.spec.params), self.limit, where)
        except ForeignError as exc:
            raise PolicyError(f"{where}: building it {exc.problem}") from None
        except Exception as exc:
            raise PolicyError(f"{where}: building it raised {one_line(exc)}") from None

    def choose(self, game: Game, scratch: PolicyScratch) -> int:
        """This seat's action at the game's pending decision."""
        if self.plugin is None:
            return scratch.choose(self.code, game.s, game.pr, self.stream, game.buf, self.params)
        codes = [int(a) for a in game.legal()]
        allowed = [a for a in codes if not action_banned(a, self.ban)] if self.ban else codes
        legal = [LegalAction(a, game.describe(a)) for a in allowed or codes]  # as allowed_actions
        if len(legal) == 1:
            return legal[0].code  # like the compiled loop: no choice, no call
        view, where = game.view(game.seat), self._where(game)
        try:
            action = call_limited(
                lambda: self.plugin.choose(view, legal, self.rng), self.limit, where
            )
        except ForeignError as exc:  # too slow, or SystemExit / KeyboardInterrupt of its own
            raise PolicyError(f"{where}: choose() {exc.problem}") from None
        except Exception as exc:
            raise PolicyError(f"{where}: choose() raised {one_line(exc)}") from None
        if isinstance(action, numbers.Integral) and not isinstance(action, bool):
            if int(action) in {a.code for a in legal}:
                return int(action)
            shown = str(int(action)) if int(action).bit_length() <= 64 else "a huge integer"
            problem = f"returned {shown}, not the code of one of the {len(legal)} legal actions"
        elif isinstance(action, LegalAction):
            problem = "returned a LegalAction; return its .code"
        else:
            plain = action is None or isinstance(action, str | float)
            shown = repr(action)[:40] if plain else type(action).__name__
            problem = f"returned {shown}, not an action code (an int from legal[i].code)"
        raise IllegalAction(f"{self._where(game)}: choose() {problem}")


def play_one(
    study: StudyConfig,
    seed: int,
    index: int = 0,
    *,
    log: bool = False,
    trace: np.ndarray | None = None,
) -> Game:
    """Play game `index` of root `seed` to the end with the study's seats, as the runner would.

    With `trace` (rounds x seats, at least `max_rounds` rows), each seat's table score after
    every round is written into it as the compiled loop does (ceil(turns / players) rows).
    """
    if study.replays:
        raise SimError("replays: a replayed deal is played by the compiled loop only (sim luck)")
    engine = engine_for(study.game)
    game = Game(engine, seed, index, log=log)
    slots = seat_lineup(study, index)
    limit = study.plugin_time_limit
    seats = [Seat(study.seats[s], game, p, study.folder, limit=limit) for p, s in enumerate(slots)]
    scratch = PolicyScratch.for_params(engine.pr)
    if trace is None:
        trace = np.zeros((max_rounds(engine.pr), engine.pr.players), np.int16)
    roots = trace_scratch(engine.pr)
    done = 0
    while not game.over:
        game.apply(seats[game.seat].choose(game, scratch))
        done = record_rounds(game.s, game.pr, trace, done, roots)
    finish_rounds(game.s, game.pr, trace, done, roots)
    return game


def play_arrays(study: StudyConfig, first: int, count: int) -> ChunkArrays:
    """Play games first..first+count-1 and return their raw result arrays."""
    engine = engine_for(study.game)
    pr = engine.pr
    slots = lineup_slots(study, first, count)
    codes, params = lineup_policies(study)
    if study.replays and (codes == PLUGIN).any():
        raise SimError("replays (the luck gauge) play built-in policies only")
    if (codes == PLUGIN).any():  # foreign code: in a child process, watched (sim.runs.isolated)
        _load_python_path(study)  # here, once: every child inherits it instead of loading it
        what = f"games {first} to {first + count - 1} of {study.name}"
        games, seats, cards, trace, rounds = (
            run_isolated(lambda: _python_games(study, first, count), what)
            if count
            else empty_arrays(count, pr)
        )
    else:
        games, seats, cards, trace, rounds = play_chunk(
            pr, engine.blank, study.seed, first, count, slots, codes, params, study.replays
        )
    return ChunkArrays(first, slots, games, seats, cards, trace, rounds)


_python_path_pid: int | None = None  # the process that has loaded the Python-driven path


def _load_python_path(study: StudyConfig) -> None:
    """Load (or compile) the compiled pieces a Python-driven game calls, once per process, by
    playing one game with built-in seats: a forked child then starts with them loaded."""
    global _python_path_pid
    if _python_path_pid == os.getpid():
        return
    players = study.game.players
    builtin = study.with_overrides(seats=[{"policy": "random"}] * players, replays=0)
    play_one(builtin, study.seed, 0)
    game = Game(engine_for(study.game), study.seed, 0)  # what a plug-in seat's turn calls
    game.describe(int(game.legal()[0]))
    game.view(game.seat)
    _python_path_pid = os.getpid()


def _python_games(study: StudyConfig, first: int, count: int) -> tuple:
    """Games first..first+count-1 driven from Python (a plug-in seat), as the compiled loop's
    result arrays."""
    pr = engine_for(study.game).pr
    games, seats, cards, trace, rounds = empty_arrays(count, pr)
    for i in range(count):
        game = play_one(study, study.seed, first + i, trace=trace[i])
        rounds[i] = -(-game.turns // pr.players)
        summarize_game(game.s, pr, games[i], seats[i], cards[i])
    return games, seats, cards, trace, rounds


# About how long numba takes to compile a line-up's game loop on first use (a fresh cache),
# measured on the shared 2-core machine (docs/dev/performance-log.md).
COLD_START_S = "1 min on an idle machine, once for every built-in player"
NEW_PLAYERS_S = "20-60 s; cached after"  # a new set of players' loop, the engine cached


def engine_is_cached(study: StudyConfig | None = None) -> bool:
    """Does numba's cache (NUMBA_CACHE_DIR, keyed by the compiled sources: sim/__init__.py)
    already hold the compiled chunk loop for this study's policies (any loop, without one)?"""
    from numba import typeof

    from sim.policies.dispatch import policy_set
    from sim.runs.loop import chunk_loop

    if not os.environ.get("NUMBA_CACHE_DIR"):
        return True  # not ours to say
    try:
        index = chunk_loop._cache._cache_file._load_index()  # numba's own index of the file
    except Exception:  # a numba without that layout: say cached, as before
        return True
    if study is None:
        return bool(index)
    codes, _ = lineup_policies(study)
    want = typeof(policy_set(codes[codes != PLUGIN]))
    return any(key[0].args and key[0].args[-1] == want for key in index)


def compile_note() -> str:
    """What a compile of a game loop that starts now is, said only when true: the first run
    after install (nothing cached), or, with another line-up's loop already cached, only this
    one's players and loop (once; cached after)."""
    if engine_is_cached():
        return f"first use of these players since install or upgrade, about {NEW_PLAYERS_S}"
    return f"first run after install or upgrade, about {COLD_START_S}"


def load_engine(study: StudyConfig, say: bool = True) -> float:
    """Load (or compile) the study's compiled game loop in this process; the seconds it
    took. While it compiles (a cold cache), a heartbeat on stderr says so every 10 s."""
    from sim.policies.dispatch import policy_set, policy_set_names
    from sim.runs.compile_watch import compile_heartbeat

    t0 = time.perf_counter()
    codes, _ = lineup_policies(study)
    names = policy_set_names(policy_set(codes[codes != PLUGIN])) or "Python seats"

    def load_all() -> None:
        # and the compiled pieces that turn a chunk into tables, so forked workers have them
        empty = play_arrays(study, 0, 0)
        arrow_tables(study, empty)
        value_columns(study, empty)
        moment_sums.load()  # and the BLAS its moments pin to one thread
        blas()
        feel_kernel.load()  # the feel's trees, and a chunk's feel in one compiled pass

    with compile_heartbeat(f"the engine for {names}", note=compile_note(), enabled=say):
        # numba's compiler in a roomy stack wherever this is called from (a test, a
        # notebook), not only under the sim script (`sim.stack`)
        in_a_roomy_stack(load_all)
    return time.perf_counter() - t0


def load_engines(studies: Iterable[StudyConfig], say: bool = True) -> float:
    """`load_engine` for each policy set of these studies (a ladder or a comparison of
    line-ups plays several) that this process has not loaded yet, so no worker compiles a
    loop on its own without a word; the seconds it took."""
    from sim.policies.dispatch import policy_set

    took = 0.0
    for study in studies:
        codes, _ = lineup_policies(study)
        key = policy_set(codes[codes != PLUGIN])
        if key not in _LOADED:
            took += load_engine(study, say)
            _LOADED.add(key)
    return took


# The policy sets whose loop this process has loaded (forked workers inherit them): a
# study that runs many times in one process (a tune, a sweep) loads each once.
_LOADED: set = set()
