"""ifitfits-sim: a statistical game-balance simulator for the card game If It Fits."""

from __future__ import annotations

__version__ = "0.1.0"


def run(config, **kwargs):
    """Run a study (a StudyConfig or a YAML path) like `sim run`; returns a RunResult.

    Keyword arguments: jobs, out, resume, quiet (as on the command line).
    """
    from sim.config import StudyConfig, load_study
    from sim.runner import run as _run

    study = config if isinstance(config, StudyConfig) or config is None else load_study(config)
    return _run(study, **kwargs)
