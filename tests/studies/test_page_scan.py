"""The run page's deck scan is the config's alone, so the user's cache keeps it: a later run
of the same config reads it; another config, a damaged file or another engine plays it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sim.config import load_study
from sim.studies import run_page


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "ifitfits-sim" / "deck-scan"


@pytest.fixture
def played(monkeypatch):
    """The scans played (each a study), the game count cut so that a test stays short."""
    monkeypatch.setattr(run_page, "DECK_SCAN_GAMES", 12)
    done = []
    real = run_page.deck_scan

    def counted(study, **kwargs):
        done.append(study)
        return real(study, **kwargs)

    monkeypatch.setattr(run_page, "deck_scan", counted)
    return done


def test_the_same_config_reads_the_scan_another_plays_it(cache, played):
    study = load_study("configs/base.yaml")
    first = run_page.page_scan(study)
    assert len(played) == 1 and len(list(cache.glob("*.json"))) == 1
    again = run_page.page_scan(study.with_overrides(name="renamed", games=99))
    assert len(played) == 1  # the same game, seats and seed: read, not played
    pd.testing.assert_frame_equal(again, first)
    run_page.page_scan(study.with_overrides(**{"deck.sprayers": 2}))
    run_page.page_scan(study.with_overrides(seed=study.seed + 1))
    assert len(played) == 3 and len(list(cache.glob("*.json"))) == 3


def test_a_damaged_or_older_scan_is_played_again(cache, played, monkeypatch):
    study = load_study("configs/base.yaml")
    first = run_page.page_scan(study)
    (path,) = cache.glob("*.json")
    good = json.loads(path.read_text())["deck_scan"]
    damages = ["{", json.dumps({"deck_scan": []}), json.dumps({"deck_scan": [{"a": 1}]})]
    for column, value in (("turns", "many"), ("all_equal", 1), ("seat_turns", [1.0])):
        damages.append(json.dumps({"deck_scan": [{**good[0], column: value}, *good[1:]]}))
    for damage in damages:
        path.write_text(damage)
        pd.testing.assert_frame_equal(run_page.page_scan(study), first)
    assert len(played) == 1 + len(damages) and json.loads(path.read_text())["deck_scan"] == good
    monkeypatch.setattr(run_page, "ENGINE_VERSION", run_page.ENGINE_VERSION + 1)
    run_page.page_scan(study)
    assert len(played) == 2 + len(damages) and len(list(cache.glob("*.json"))) == 2


def test_a_cache_that_cannot_be_written_is_passed_by(cache, played):
    cache.parent.mkdir(parents=True)
    cache.write_text("a file where the folder would be")
    study = load_study("configs/base.yaml")
    pd.testing.assert_frame_equal(run_page.page_scan(study), run_page.page_scan(study))
    assert len(played) == 2
