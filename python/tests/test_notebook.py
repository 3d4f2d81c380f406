"""examples/quickstart.ipynb runs headless from start to end (nbclient)."""

import nbformat
from nbclient import NotebookClient

from conftest import REPO


def test_the_quickstart_notebook_runs_end_to_end():
    examples = REPO / "examples"
    notebook = nbformat.read(examples / "quickstart.ipynb", as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(examples)}}).execute()
    outputs = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        assert all(o.output_type != "error" for o in cell.outputs), cell.source
        outputs[cell.source.splitlines()[0]] = cell.outputs
    # The session's repr names the trace; the drill-down ends at the kernel's launch.
    session = outputs["import tracesql"][0]["data"]["text/plain"]
    assert session.startswith("<tracesql.Session: h100_block (")
    counted = outputs["import duckdb"][0]["data"]["text/plain"]
    assert counted.startswith("[(") and counted != "[(0, None)]"
    # The analysis displays as the HTML report with its charts.
    page = outputs["a"][0]["data"]["text/html"]
    assert "<svg" in page and "Recommendations" in page
