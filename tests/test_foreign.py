"""Foreign code under a time limit (`sim.guard.foreign`): a call that takes too long, or raises
SystemExit or KeyboardInterrupt of its own, is a ForeignError; its ordinary exceptions pass
on; the user's own Ctrl-C during the call stays the user's; in and off the main thread."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from sim.guard.foreign import BlackBox, ForeignError, call_limited, use_black_box


def sleeps():
    time.sleep(100)


def loops():
    while True:
        pass


def waits():
    threading.Event().wait()


def exits():
    raise SystemExit(0)


def interrupts():
    raise KeyboardInterrupt


def in_a_thread(fn):
    """fn() in another thread (as a Dask task or a web table request runs); its outcome."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    assert not thread.is_alive()
    return box


@pytest.mark.parametrize("body", [sleeps, loops, waits], ids=["sleep", "loop", "wait"])
def test_a_call_over_its_limit_stops_there(body):
    t0 = time.perf_counter()
    with pytest.raises(ForeignError, match=r"took longer than 0\.3 s \(plugin_time_limit\)"):
        call_limited(body, 0.3)
    assert time.perf_counter() - t0 < 3  # the limit, not the call's own end
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # the timer is disarmed
    assert call_limited(lambda: 7, 0.3) == 7  # and the next call is not hit by it


@pytest.mark.parametrize("body", [sleeps, loops, waits], ids=["sleep", "loop", "wait"])
def test_off_the_main_thread_too(body):
    t0 = time.perf_counter()
    box = in_a_thread(lambda: call_limited(body, 0.3))
    assert isinstance(box["error"], ForeignError) and "took longer than 0.3 s" in str(box["error"])
    assert time.perf_counter() - t0 < 3
    assert in_a_thread(lambda: call_limited(lambda: 8, 1))["value"] == 8


@pytest.mark.parametrize(
    ("body", "said"), [(exits, "raised SystemExit: 0"), (interrupts, "raised KeyboardInterrupt")]
)
@pytest.mark.parametrize("where", ["main", "thread"])
def test_its_exits_are_its_errors(body, said, where):
    if where == "main":
        with pytest.raises(ForeignError) as caught:
            call_limited(body, 5)
        error = caught.value
    else:
        error = in_a_thread(lambda: call_limited(body, 5))["error"]
    assert isinstance(error, ForeignError) and error.problem == said


def test_ordinary_exceptions_pass_on_unchanged():
    with pytest.raises(ZeroDivisionError):
        call_limited(lambda: 1 / 0, 5)
    assert isinstance(
        in_a_thread(lambda: call_limited(lambda: 1 / 0, 5))["error"], ZeroDivisionError
    )


def test_the_users_ctrl_c_during_a_call_stays_the_users():
    def pressed():
        os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C at the terminal
        time.sleep(5)

    with pytest.raises(KeyboardInterrupt):
        call_limited(pressed, 10)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_the_black_box_holds_the_call_in_progress():
    box = BlackBox()
    seen = {}
    use_black_box(box)
    try:
        keys = ("start", "limit", "what")
        call_limited(lambda: seen.update(zip(keys, box.read(), strict=True)), 2.5, "seat 1")
    finally:
        use_black_box(None)
    assert seen["start"] > 0 and seen["limit"] == 2.5 and seen["what"] == "seat 1"
    assert box.read()[0] == 0.0  # none in progress once it returned
