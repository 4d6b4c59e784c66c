"""Seeded results pinned to the engine version: behaviour cannot change behind ENGINE_VERSION.

For every built-in policy (each heuristic preset, the search players at their defaults)
and every rule variant, a seeded 200-game run's games and players tables are hashed and
compared with the pins in `golden.json`, which record the ENGINE_VERSION they were taken
at. `--resume` adds games to a run folder only under the same version, so a change of the
engine or of a policy that changes a seeded game must bump the version:

* the hashes differ under the pinned version: behaviour changed without a bump. If the
  change is meant, bump ENGINE_VERSION in sim/version.py (and say why there), then pin
  again: `python tests/test_golden.py --pin`.
* the version differs from the pinned one: the pins are stale; pin again (same command).

A refactor or a speed-up that keeps every game passes unchanged.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from sim.config import load_study
from sim.runs import run_chunk
from sim.version import ENGINE_VERSION

PINS = Path(__file__).with_name("golden.json")
BASE = Path(__file__).resolve().parents[1] / "configs" / "base.yaml"
GAMES = 200
SEARCH_GAMES = 40  # the search players are about a hundred times slower per decision
# Columns that name the run rather than the games: the version pinned beside the hashes.
NAMING = ("engine_version", "config_hash")

CASES: dict[str, dict] = {
    "random": {"seats": [{"policy": "random"}] * 4},
    "greedy": {"seats": [{"policy": "greedy"}] * 4},
    **{
        f"heuristic:{preset}": {"seats": [{"policy": "heuristic", "preset": preset}] * 4}
        for preset in ("builder", "spoiler", "sleeper")
    },
    "heuristic:weights": {
        "seats": [{"policy": "heuristic", "weights": {"own_points": 1.0}, "temperature": 0.5}] * 4
    },
    "lookahead": {"players": 2, "seats": [{"policy": "lookahead"}, {"policy": "greedy"}]},
    "ismcts": {"players": 2, "seats": [{"policy": "ismcts"}, {"policy": "greedy"}]},
    "base line-up": {},
    "match_sides=matching": {"rules.match_sides": "matching"},
    "cat_entry=any": {"rules.cat_entry": "any"},
    # with six cats a seat never runs out, so where an evicted cat goes never matters
    "evicted_cat=discard": {"rules.evicted_cat": "discard", "cats_per_player": 2},
    "evicted_cat=return": {"cats_per_player": 2},
    "sleeping_counts_for_majority=false": {"rules.sleeping_counts_for_majority": False},
    "a ban": {"seats": [{"policy": "greedy", "ban": ["cat"]}] + [{"policy": "greedy"}] * 3},
}


def digest(case: str) -> str:
    """sha256 of the games and players tables of the case's seeded run (as CSV text)."""
    changes = dict(CASES[case])
    games = SEARCH_GAMES if case in ("lookahead", "ismcts") else GAMES
    study = load_study(BASE).with_overrides(games=games, **changes)
    tables = run_chunk(study, 0, games)
    h = hashlib.sha256()
    for name in ("games", "players"):
        frame = tables[name].drop(columns=[c for c in NAMING if c in tables[name]])
        h.update(frame.to_csv(index=False).encode())
    return h.hexdigest()[:16]


def _pins() -> dict:
    return json.loads(PINS.read_text())


def test_the_pins_are_of_this_engine_version():
    pinned = _pins()["engine_version"]
    assert pinned == ENGINE_VERSION, (
        f"golden.json was pinned at engine version {pinned}, this is {ENGINE_VERSION}:"
        " pin again with `python tests/test_golden.py --pin`"
    )
    assert set(_pins()["hashes"]) == set(CASES), "every case is pinned (pin again)"


@pytest.mark.parametrize("case", sorted(CASES))
def test_seeded_games_are_those_of_this_engine_version(case):
    pins = _pins()
    if pins["engine_version"] != ENGINE_VERSION:
        pytest.fail("stale pins: see test_the_pins_are_of_this_engine_version")
    assert digest(case) == pins["hashes"][case], (
        f"{case}: seeded games changed under engine version {ENGINE_VERSION}; if that is"
        " meant, bump ENGINE_VERSION in sim/version.py and pin again"
        " (python tests/test_golden.py --pin)"
    )


@pytest.mark.parametrize("case", [c for c in CASES if "=" in c])
def test_every_rule_variant_acts_in_its_case(case):
    """A pinned variant must change the games, else its pin guards nothing."""
    pins = _pins()["hashes"]
    base = pins["evicted_cat=return" if case.startswith("evicted_cat") else "base line-up"]
    assert pins[case] != base or case == "evicted_cat=return"


def test_a_changed_game_would_be_caught(monkeypatch):
    """The digest sees one changed cell: a game's table differs, so does its hash."""
    from sim.runs.tables import tables as real

    def one_more_turn(study, chunk):
        out = real(study, chunk)
        out["games"].loc[0, "turns"] += 1
        return out

    before = digest("random")
    monkeypatch.setattr("sim.runs.runner.tables", one_more_turn)
    assert digest("random") != before


if __name__ == "__main__" and "--pin" in sys.argv:
    pins = {"engine_version": ENGINE_VERSION, "hashes": {c: digest(c) for c in CASES}}
    PINS.write_text(json.dumps(pins, indent=2) + "\n")
    print(f"pinned {len(CASES)} cases at engine version {ENGINE_VERSION} in {PINS}")
