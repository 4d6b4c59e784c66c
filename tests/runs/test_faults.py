"""A killed `sim run` leaves no worker behind, on the fork and loky backends alike; SIGTERM
stops a run as Ctrl-C does, keeping its finished chunks.

Each test starts `sim run` in a fresh process on a slow line-up, waits until its workers
play, signals the parent and looks for its workers in /proc.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "configs" / "base.yaml").read_text()
SLOW = BASE.replace("  - {policy: greedy}", "  - {policy: lookahead}", 1)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def start_run(tmp_path: Path, backend: str) -> tuple[subprocess.Popen, list[int], Path]:
    """`sim run` on two workers, once both play; (process, its workers, run folder)."""
    config = tmp_path / "slow.yaml"
    config.write_text(SLOW)
    out = tmp_path / "run"
    args = ["run", str(config), "--games", "4000", "--jobs", "2", "--backend", backend]
    # output to a file, not a pipe: a worker left alive would hold a pipe open
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim.cli", *args, "--out", str(out), "--quiet", "--no-report"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "stderr.txt").open("w"),
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        kids = children(proc.pid)
        if len(kids) >= 2 and any((out / "games.parquet").glob("part-*.parquet")):
            return proc, kids, out
        time.sleep(0.2)
    proc.kill()
    pytest.fail(f"the run did not get going: {(tmp_path / 'stderr.txt').read_text()}")


def gone_within(pids: list[int], seconds: float) -> list[int]:
    """The pids still alive after `seconds` (killed then, so no test leaves one behind)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.parametrize("backend", ["fork", pytest.param("loky", marks=pytest.mark.slow)])
def test_kill_9_of_the_parent_leaves_no_worker(tmp_path, backend):
    proc, workers, _ = start_run(tmp_path, backend)
    proc.kill()  # SIGKILL: no handler runs in the parent
    proc.wait(timeout=30)
    assert gone_within(workers, 5) == []


def test_sigterm_stops_like_ctrl_c(tmp_path):
    proc, workers, out = start_run(tmp_path, "fork")
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)
    err = (tmp_path / "stderr.txt").read_text()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("terminated")
    assert f"sim run --resume {out}" in err
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    assert gone_within(workers, 5) == []
    from sim.runs.storage import check_chunk

    size = json.loads((out / "run.json").read_text())["chunk_games"]
    done = sorted(int(p.stem.split("-")[1]) for p in (out / "chunks").glob("chunk-*.json"))
    assert done and all(check_chunk(out, first, size) is None for first in done)
