"""notebooks/explore.ipynb runs top to bottom on a small run, and is committed without outputs."""

from __future__ import annotations

from pathlib import Path

import ipykernel  # noqa: F401  (the kernel nbclient starts)
import nbclient
import nbformat

from sim import run
from sim.config import load_study

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "explore.ipynb"


def test_notebook_is_committed_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


def test_notebook_runs_top_to_bottom(tmp_path, monkeypatch):
    study = load_study(ROOT / "configs" / "base.yaml").with_overrides(games=400)
    folder = run(study, jobs=1, out=tmp_path / "run", quiet=True).run_dir
    monkeypatch.setenv("SIM_RUN_DIR", str(folder))  # read by the notebook's parameter cell
    monkeypatch.setenv("MPLBACKEND", "agg")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    data = [o.get("data", {}) for o in outputs]
    assert sum("image/svg+xml" in d for d in data) >= 2  # two report figures (sim.report.chart)
    assert sum("image/png" in d for d in data) >= 1  # the custom question's matplotlib plot
    text = "".join(o.get("text", "") for o in outputs)
    assert f"{study.name}: 400 games" in text
