"""Metrics measured on a sample of a run's games once they are played, not from every game's
values: kingmaking (`sim.table.kingmaking` measures it; a run keeps it in `kingmaking.json`).
Their headline rows sit beside the registry metrics' (`sim.analysis.balance.headline`), so
a target on them is judged like any other (`check_targets`).
"""

from __future__ import annotations

import numpy as np

from sim.metrics import KINGMAKING


def kingmaking_row(data: dict | None) -> dict:
    """The kingmaking metric's headline row from a run's kingmaking sample (None: not
    measured, no value). With two players there is no other seat to crown: exactly 0."""
    m = KINGMAKING
    row = {"metric": m.name, "label": m.label, "unit": m.unit}
    if data is None:
        return {
            **row,
            "interval": "not measured",
            "value": np.nan,
            "lo": np.nan,
            "hi": np.nan,
            "n": 0,
        }
    if data["players"] <= 2:
        exact = "exact: no other seat to crown with two players"
        return {**row, "interval": exact, "value": 0.0, "lo": 0.0, "hi": 0.0, "n": 0}
    nan = lambda v: np.nan if v is None else float(v)  # noqa: E731  (no such decision: None)
    return {
        **row,
        "interval": f"clustered Wilson over {data['examined']} decisions in {data['games']}"
        " sampled games",
        "value": nan(data["rate"]),
        "lo": nan(data["lo"]),
        "hi": nan(data["hi"]),
        "n": int(data["examined"]),
    }
