"""Execution and storage of one study point: from a study to its run folder.

The rooms, from the ground up: `options` (Workers, Request), `paths` (where every
output goes), `lineup` (a study meets the engine), `results` (a finished game as
rows, compiled), `loop` (a chunk of games, compiled), `storage` (run folders on
disk), `play` (a chunk played compiled or from Python; one game), `partials`
(per-chunk partial results, merged), `parallel` (where chunks run), `orchestrate`
(one pool for every point of a study), `runner` (`sim run`).
"""

from sim.runs.options import Request, Workers
from sim.runs.runner import run, run_chunk
from sim.runs.storage import RunResult, load_run

__all__ = ["Request", "RunResult", "Workers", "load_run", "run", "run_chunk"]
