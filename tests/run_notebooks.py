"""Run notebooks in place, each in a fresh Jupyter kernel, as a reader's "run all" would.

``python tests/run_notebooks.py A/notebook.ipynb B/notebook.ipynb ...`` runs each one
with its folder as the working folder and writes the outputs into it; a notebook
whose run fails gets ``notebook.error`` beside it, with the reason. tests/test_course.py
runs it in a process of its own.
"""

import json
import sys
import traceback
from pathlib import Path


def main(paths):
    import nbformat
    from nbclient import NotebookClient

    for path in map(Path, paths):
        book = nbformat.from_dict(json.loads(path.read_text(encoding="utf-8")))
        try:
            NotebookClient(book, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        except Exception:  # noqa: BLE001  (the test that reads this notebook reports it)
            path.with_suffix(".error").write_text(traceback.format_exc(), encoding="utf-8")
            continue
        path.write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
