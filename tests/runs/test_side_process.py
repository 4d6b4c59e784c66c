"""The side process a page's played parts run in (`sim.runs.parallel.side_process`): results
as if run here, the exception a task raised, and a process that dies is redone here."""

import os
import signal

import pytest

from sim.errors import SimError
from sim.runs import parallel
from sim.runs.parallel import side_process


def _pid_and(x):
    return os.getpid(), x * 2


def _fails():
    raise SimError("no such game")


def _dies():
    if parallel.is_worker():  # in the side process: killed; asked again here, it answers
        os.kill(os.getpid(), signal.SIGKILL)
    return "done here"


def test_tasks_run_in_another_process_in_turn():
    with side_process() as ahead:
        first, second = ahead(_pid_and, 2), ahead(_pid_and, 5)
        assert first.result()[1] == 4 and second.result()[1] == 10
    if parallel.DEFAULT_BACKEND == "fork" and (os.cpu_count() or 1) > 1:
        assert first.result()[0] == second.result()[0] != os.getpid()


def test_a_task_s_error_reaches_the_caller():
    with side_process() as ahead, pytest.raises(SimError, match="no such game"):
        ahead(_fails).result()


def test_a_side_process_that_dies_is_redone_here():
    with side_process() as ahead:
        assert ahead(_dies).result() == "done here"


def test_without_a_second_core_the_work_is_done_here(monkeypatch):
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 1)
    with side_process() as ahead:
        assert ahead(_pid_and, 1).result() == (os.getpid(), 2)
