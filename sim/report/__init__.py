"""The HTML balance report of a run folder: `build_report(run_dir)` (`sim report RUN_DIR`)."""

from __future__ import annotations


def build_report(run_dir, out_path=None, force=False, *, quiet=False):
    """Write the report of a finished run folder and return its path (see run_report)."""
    from sim.report.run_report import build_report as _build

    return _build(run_dir, out_path, force, quiet=quiet)


def write_report(run, out_path=None, force=False, *, quiet=False):
    """Write the report of a finished RunResult (the end of `sim run`)."""
    from sim.report.run_report import write_report as _write

    return _write(run, out_path, force, quiet=quiet)


__all__ = ["build_report", "write_report"]
