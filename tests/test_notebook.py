"""examples/notebook.ipynb runs from start to end in a Jupyter kernel (nbclient): a plugin
heuristic beside manhattan in a sweep on the embedded cluster, its summary and a plot."""

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

import tilesweep
from test_docs_commands import ROOT

pytestmark = pytest.mark.cluster

NOTEBOOK = ROOT / "examples" / "notebook.ipynb"
BOKEH_PLOT = "application/vnd.bokehjs_exec.v0+json"


def outputs(cell) -> str:
    """The text a cell printed or displayed."""
    return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def test_the_example_notebook_runs_from_start_to_end(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path / "examples")}}).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(o.output_type != "error" for cell in code for o in cell.outputs)
    printed = "\n".join(map(outputs, code))
    assert "manhattan              cost 31" in printed and "plugin:line-conflicts  cost 31" in printed
    assert "chunk 1/" in printed and "600/600 solves" in printed
    assert any(BOKEH_PLOT in o.get("data", {}) for o in code[-1].outputs)
    sweep = tilesweep.open_sweep(tmp_path / "examples" / "sweeps" / "notebook-demo")
    summary = sweep.summary().set_index("heuristic")
    assert summary["solved"].tolist() == [300, 300]
    assert summary.loc["plugin:line-conflicts", "nodes_ratio"] < 1 == summary.loc["manhattan", "nodes_ratio"]
