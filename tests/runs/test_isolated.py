"""Plug-in games in a watched child (`sim.runs.isolated`): the result or the error comes back;
a child that ends its process, crashes or will not stop is one PolicyError naming the call it
was in (what the black box holds), and the supervisor survives it."""

from __future__ import annotations

import ctypes
import os
import time

import pytest

from sim.errors import PolicyError, SimError
from sim.guard.foreign import call_limited
from sim.runs import isolated
from sim.runs.isolated import run_isolated

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="isolation forks (POSIX)")
WHERE = "policy m:P in seat 2, game 7 of seed 5 (replay it: sim play CONFIG --seed 5 --game 7)"


def in_a_call(body, limit=30.0):
    """What a plug-in seat does: its code under call_limited, named in the black box."""
    return lambda: call_limited(body, limit, WHERE)


def test_the_result_and_the_error_come_back():
    assert run_isolated(lambda: {"games": [1, 2, 3]}, "t") == {"games": [1, 2, 3]}

    def fails():
        raise PolicyError(f"{WHERE}: choose() raised ZeroDivisionError")

    with pytest.raises(PolicyError, match="choose\\(\\) raised ZeroDivisionError"):
        run_isolated(fails, "t")
    assert run_isolated(lambda: os.getpid(), "t") != os.getpid()  # played elsewhere


@pytest.mark.parametrize(
    ("body", "how"),
    [
        (lambda: os._exit(3), "exit code 3"),
        (lambda: ctypes.string_at(0), "killed by SIGSEGV (a crash)"),
        (lambda: os.kill(os.getpid(), 9), "killed by SIGKILL"),
    ],
    ids=["os._exit", "segfault", "kill -9"],
)
def test_a_plugin_that_ends_its_process_is_named(body, how):
    with pytest.raises(PolicyError) as caught:
        run_isolated(in_a_call(body), "games 0 to 9 of t")
    assert str(caught.value) == f"{WHERE}: the plug-in ended its process ({how})"


def test_a_child_that_dies_outside_a_call_says_so():
    with pytest.raises(SimError, match=r"games 0 to 9 of t ended \(exit code 4\) outside"):
        run_isolated(lambda: os._exit(4), "games 0 to 9 of t")


def test_a_call_that_will_not_stop_is_killed_after_its_grace(monkeypatch):
    """A plug-in that swallows the timer's exception: the supervisor kills its process."""
    monkeypatch.setattr(isolated, "GRACE_S", 0.5)

    def stubborn():
        while True:
            try:
                time.sleep(100)
            except BaseException:
                pass

    t0 = time.perf_counter()
    with pytest.raises(PolicyError, match="did not stop when told to; its process was killed"):
        run_isolated(in_a_call(stubborn, 0.5), "t")
    assert time.perf_counter() - t0 < 5
