"""The notebooks run without an error and print exactly the outputs saved in them.

The site shows the saved outputs (the build does not run the notebooks), so
this is what keeps the notebook pages true.
"""

import json

import pytest

from pages import DOCS, notebook_cells, pages

NOTEBOOKS = [page for page in pages() if page.suffix == ".ipynb"]
CELL_TIMEOUT = 300  # seconds: generous for a loaded 2-core machine


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: str(p.relative_to(DOCS)))
def test_the_notebook_prints_its_saved_outputs(notebook):
    from nbclient import NotebookClient
    from nbformat import reads

    saved = json.loads(notebook.read_text(encoding="utf-8"))
    fresh = reads(notebook.read_text(encoding="utf-8"), as_version=4)
    # The same kernel and working directory as a reader who opens the notebook in Jupyter.
    client = NotebookClient(
        fresh, kernel_name="python3", timeout=CELL_TIMEOUT, resources={"metadata": {"path": str(notebook.parent)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, when one fails
    assert notebook_cells(json.loads(json.dumps(fresh))) == notebook_cells(saved), (
        "the notebook prints something other than its saved outputs: re-run it and save it"
    )


def test_there_are_notebooks_to_run():
    assert NOTEBOOKS
