"""The compile heartbeat: a line when numba starts compiling, beats while it does, silence when
nothing compiles."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from sim.runs.compile_watch import compile_heartbeat

ROOT = Path(__file__).resolve().parents[2]


def _fresh():
    """A function numba has not compiled yet (no cache: every test compiles it anew)."""

    @njit
    def work(a):
        total = 0.0
        for i in range(a.shape[0]):
            total += np.sin(a[i]) * np.cos(a[i]) + np.sqrt(abs(a[i]))
        return total

    return work


def test_says_when_compiling_starts_and_beats_while_it_runs():
    out = io.StringIO()
    work = _fresh()
    with compile_heartbeat("a test kernel", every=0.01, stream=out):
        work(np.arange(5.0))  # compiling it takes far longer than one beat
    text = out.getvalue()
    assert text.startswith("compiling a test kernel (first run after install or upgrade)…\n")
    assert "  compiling: " in text and "functions done" in text
    assert "compiled in" in text  # the compile outlasted the (tiny) beat interval


def test_silent_when_nothing_compiles():
    out = io.StringIO()
    work = _fresh()
    work(np.arange(3.0))  # compiled before the watch starts
    with compile_heartbeat("a test kernel", every=0.01, stream=out):
        work(np.arange(3.0))
        time.sleep(0.03)
    assert out.getvalue() == ""


def test_disabled_prints_nothing():
    out = io.StringIO()
    with compile_heartbeat("a test kernel", every=0.01, stream=out, enabled=False):
        _fresh()(np.arange(2.0))
    assert out.getvalue() == ""


@pytest.mark.parametrize(
    ("cached", "says"),
    [
        (False, "first run after install or upgrade"),
        (True, "first use of these players since install or upgrade"),
    ],
)
def test_the_compile_note_says_first_run_only_when_nothing_is_cached(monkeypatch, cached, says):
    """With another line-up's loop in the cache, a new set of players is not the first run."""
    from contextlib import contextmanager

    from sim.config import load_study
    from sim.runs import compile_watch, play

    notes = []

    @contextmanager
    def heard(what, *, note, enabled=True, **_):
        notes.append(note)
        yield

    monkeypatch.setattr(compile_watch, "compile_heartbeat", heard)
    monkeypatch.setattr(play, "engine_is_cached", lambda study=None: cached)
    play.load_engine(load_study(ROOT / "configs" / "base.yaml"))
    assert notes and notes[0].startswith(says)


def test_the_feel_models_pilot_games_load_the_engine_under_its_heartbeat(monkeypatch, tmp_path):
    """A first run compiles the engine for the feel model's pilot games: the engine is loaded
    (`load_engines`, whose heartbeat says "compiling the engine … first run after install")
    before any pilot game is played, not compiled silently inside the pilot's play."""
    from sim.config import load_study
    from sim.runs import chances

    order = []
    real_load, real_pilot = chances.load_engines, chances.pilot_arrays
    monkeypatch.setattr(
        chances, "load_engines", lambda s, say=True: order.append("load") or real_load(s, say)
    )
    monkeypatch.setattr(chances, "pilot_arrays", lambda *a: order.append("pilot") or real_pilot(*a))
    monkeypatch.setattr(chances, "cache_path", lambda key: tmp_path / f"{key}.npz")  # not cached
    study = load_study(ROOT / "configs" / "base.yaml")
    chances.feel_model([study])
    assert order and order[0] == "load" and "pilot" in order
