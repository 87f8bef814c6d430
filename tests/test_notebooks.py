"""The notebooks run without an error and print exactly the outputs saved in them.

The site shows the saved outputs (the build does not run the notebooks), so
this is what keeps the notebook pages true.
"""

import importlib.util
import json
import re

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
    assert as_printed(notebook_cells(json.loads(json.dumps(fresh)))) == as_printed(notebook_cells(saved)), (
        "the notebook prints something other than its saved outputs: re-run it and save it"
    )


def as_printed(cells):
    """Each code cell with its outputs as one text: a loaded kernel may send one loop's prints in two chunks."""
    return [(code, "".join(texts)) for code, texts in cells]


def test_there_are_notebooks_to_run():
    assert NOTEBOOKS


# How a notebook page is read: hooks/site_hooks.py turns the notebook into Markdown.
_spec = importlib.util.spec_from_file_location("site_hooks", DOCS.parent / "hooks" / "site_hooks.py")
site_hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site_hooks)

FENCE = re.compile(r"^(`{3,})([^\n]*)\n(.*?)\n\1$", re.DOTALL | re.MULTILINE)


def cell(kind, source, *outputs):
    return {"cell_type": kind, "source": source, **({"outputs": list(outputs)} if kind == "code" else {})}


def printed(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: str(p.relative_to(DOCS)))
def test_a_notebook_page_shows_every_cell_in_order(notebook):
    saved = json.loads(notebook.read_text(encoding="utf-8"))
    page = site_hooks.notebook_markdown(saved, notebook.name)
    assert page.startswith(f"---\nnotebook: {notebook.name}\n---\n")
    shown = [(info.strip(), body) for _, info, body in FENCE.findall(page)]
    expected = []
    for c in saved["cells"]:
        if c["cell_type"] == "code":
            expected.append(("python", "".join(c["source"]).strip("\n")))
            expected += [("{ .text .handtf-output }", "".join(o["text"]).rstrip("\n")) for o in c["outputs"] if "text" in o]
    assert shown == expected
    for c in saved["cells"]:
        if c["cell_type"] == "markdown":
            assert "".join(c["source"]).strip("\n") in page
    images = [o for c in saved["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert page.count('<div class="handtf-plot"><img alt="') == len(images) > 0


def test_a_plot_is_described_by_the_paragraph_before_it():
    plot = {"output_type": "display_data", "data": {"image/png": "iVBORw0K\nGgo=\n", "text/plain": "<Figure>"}}
    book = {"cells": [
        cell("markdown", "## Look\n\nFirst paragraph.\n\nRow *i* looks at `j` & \"k\"."),
        cell("code", "plot()", plot),
    ]}
    page = site_hooks.notebook_markdown(book, "look.ipynb")
    assert '<img alt="Row i looks at j &amp; &quot;k&quot;." src="data:image/png;base64,iVBORw0KGgo=">' in page


def test_an_output_with_backticks_gets_a_longer_fence():
    book = {"cells": [cell("code", 'print("```")', printed("```\n"))]}
    page = site_hooks.notebook_markdown(book, "ticks.ipynb")
    assert '\n````python\nprint("```")\n````\n' in page
    assert "\n````{ .text .handtf-output }\n```\n````\n" in page


@pytest.mark.parametrize("output, named", [
    ({"output_type": "stream", "name": "stderr", "text": "DeprecationWarning: ...\n"}, "stream output to stderr"),
    ({"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}, "error output of []"),
    ({"output_type": "display_data", "data": {"text/html": "<b>x</b>"}}, "display_data output of ['text/html']"),
])
def test_an_output_a_page_cannot_show_is_an_error_naming_the_cell(output, named):
    book = {"cells": [cell("markdown", "# T"), cell("code", "x = 1"), cell("code", "f()", output)]}
    with pytest.raises(ValueError, match=re.escape(f"broken.ipynb, cell 3: a notebook page shows printed text, "
                                                   f"results and PNG plots, not a {named}")):
        site_hooks.notebook_markdown(book, "broken.ipynb")
