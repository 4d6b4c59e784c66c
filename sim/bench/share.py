"""`sim bench --share COMMAND`: how much of a study command's CPU goes to playing games.

The long studies should spend most of their CPU on games (issue 54: tune and advise at
least 80%), the rest on finishing the chunks (tables, moments, Parquet), coordinating the
pool and the page. This measures it the way a designer runs the command: in a fresh
process (imports, pool, page and all), into a temporary folder. That process and the
workers it forks log the thread time of every compiled chunk of games
(`sim.runs.play.play_chunk`, the page's played parts included) and of every chunk's
finishing (`sim.runs.orchestrate._finish_chunk`); the share is their sum over the CPU of
the process and all its children (getrusage, once every worker has been joined). A
plug-in's games, played by Python in child processes, are not counted as play; workers
that are not forked (`--backend loky` or dask) do not log, and the line says so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sim.errors import SimError
from sim.runs import pulse

SHARE_COMMANDS = ("run", "sweep", "tune", "advise", "map", "value", "ladder", "luck")

# The command in a fresh process, its play and finishing logged by it and its forked workers
# (each line one short append: whole on Linux however the processes interleave).
_PROBE = """
import json, resource, sys, time
t = time.perf_counter()  # the wall time of the whole process, imports too, as its CPU
log, argv = sys.argv[1], sys.argv[2:]
import sim.runs.orchestrate as orchestrate
import sim.runs.play as play

def timed(module, name, tag):
    inner = getattr(module, name)
    def wrapper(*args, **kwargs):
        t = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            with open(log, "a") as f:
                f.write(f"{tag} {time.thread_time() - t!r}\\n")
    setattr(module, name, wrapper)

timed(play, "play_chunk", "play")
timed(orchestrate, "_finish_chunk", "finish")
from sim.cli import main
from sim.stack import in_a_roomy_stack
code = in_a_roomy_stack(lambda: main(argv))  # as the sim script runs it
wall = time.perf_counter() - t
me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
cpu = lambda r: r.ru_utime + r.ru_stime
print(json.dumps({"code": code, "wall": wall, "main": cpu(me), "workers": cpu(kids)}))
"""


def bench_share(command: str, config_path: str | Path) -> dict:
    """Run `sim COMMAND CONFIG` in a fresh process and print, in one line, its CPU and the
    share spent playing games and finishing chunks; returns the figures."""
    if command not in SHARE_COMMANDS:
        raise SimError(f"--share {command}: one of {', '.join(SHARE_COMMANDS)}")
    if not Path(config_path).is_file():
        raise SimError(f"{config_path}: no such config file")
    top = Path(tempfile.mkdtemp(prefix="sim-bench-share-"))
    log = top / "chunks.log"
    argv = [
        command,
        str(config_path),
        "--out",
        str(top / "out"),
        "--report",
        str(top / "page.html"),
    ]
    try:
        pulse.doing(f"running sim {command} in a fresh process")  # said if it runs long
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, str(log), *argv, "--quiet"],
            capture_output=True,
            text=True,
            check=False,
        )
        lines = done.stdout.strip().splitlines()
        probe = json.loads(lines[-1]) if done.returncode == 0 and lines else None
        if probe is None or probe["code"] != 0:
            said = (done.stderr.strip().splitlines() or ["(nothing said)"])[-1]
            if "Traceback" in done.stderr:  # a bug: its traceback is what a report needs
                print(done.stderr.rstrip(), file=sys.stderr)
            said = said.removeprefix("error: ")
            raise SimError(f"sim {command} {config_path} failed: {said}")
        play, finish = _sums(log)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    total = probe["main"] + probe["workers"]
    row = {
        "command": command,
        "wall_s": probe["wall"],
        "cpu_s": total,
        "main_s": probe["main"],
        "workers_s": probe["workers"],
        "play_s": play,
        "finish_s": finish,
        "play_share": play / total if total else 0.0,
        "finish_share": finish / total if total else 0.0,
    }
    print(share_line(config_path, row))
    return row


def _sums(log: Path) -> tuple[float, float]:
    """The play and finishing thread time the probe's processes logged."""
    sums = {"play": 0.0, "finish": 0.0}
    if log.is_file():
        for line in log.read_text(encoding="utf-8").splitlines():
            tag, _, seconds = line.partition(" ")
            if tag in sums:
                sums[tag] += float(seconds)
    return sums["play"], sums["finish"]


def share_line(config_path: str | Path, row: dict) -> str:
    """The benchmark's line: the command's CPU, where it went, and what was not measured."""
    cpu, play = row["cpu_s"], row["play_s"]
    rest = cpu - play - row["finish_s"]
    line = (
        f"sim {row['command']} {config_path}: {cpu:.1f} CPU-s in all in {row['wall_s']:.1f} s"
        f" (this process {row['main_s']:.1f}, its workers {row['workers_s']:.1f}); playing"
        f" {play:.1f} CPU-s ({row['play_share']:.0%}), finishing chunks {row['finish_s']:.1f}"
        f" ({row['finish_share']:.0%}), the rest {rest:.1f} (start-up, coordination, the page)"
    )
    if play == 0:
        line += "; no game was timed (a plug-in's games, or workers that are not forked)"
    return line
