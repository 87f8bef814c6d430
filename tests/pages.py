"""What the page tests need to know about the pages in docs/."""

import doctest
import functools
import io
import json
import re
import tokenize
from pathlib import Path

from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGES = ("en", "zh")
PAGE_SUFFIXES = (".md", ".ipynb")


def language_of(path):
    """'zh' for ``page.zh.md``, 'en' for ``page.md``."""
    return "zh" if path.name.endswith((".zh.md", ".zh.ipynb")) else "en"


def twin_of(path):
    """The same page in the other language."""
    for suffix in PAGE_SUFFIXES:
        if path.name.endswith(".zh" + suffix):
            return path.with_name(path.name[: -len(".zh" + suffix)] + suffix)
        if path.name.endswith(suffix):
            return path.with_name(path.name[: -len(suffix)] + ".zh" + suffix)
    raise ValueError(f"{path} is not a page")


def pages(language=None):
    """Every page (Markdown or notebook) under docs/, optionally of one language."""
    found = sorted(p for suffix in PAGE_SUFFIXES for p in DOCS.rglob("*" + suffix))
    return [p for p in found if language is None or language_of(p) == language]


def examples(path):
    """The doctest examples of a Markdown page, as (source without comments, expected output)."""
    text = path.read_text(encoding="utf-8")
    return [(strip_comments(e.source), e.want) for e in doctest.DocTestParser().get_examples(text)]


def strip_comments(source):
    """Python source without its comments, so English and Chinese comments compare equal."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    kept = [(t.type, t.string) for t in tokens if t.type not in (tokenize.COMMENT, tokenize.NL)]
    return tokenize.untokenize(kept).strip()


def notebook_cells(path_or_notebook):
    """A notebook's code cells (without comments) and their text outputs, in order.

    Takes the notebook's path or the notebook itself (a dict as in the .ipynb file).
    """
    notebook = path_or_notebook
    if isinstance(notebook, Path):
        notebook = json.loads(notebook.read_text(encoding="utf-8"))
    return [
        (strip_comments("".join(cell["source"])), [_text_of(output) for output in cell.get("outputs", [])])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
    ]


def _text_of(output):
    if any(kind.startswith("image/") for kind in output.get("data", {})):
        return ""  # a plot: the page shows the image, not its text form
    text = output.get("text") or output.get("data", {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else text


SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"', re.MULTILINE)
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)|<img\b[^>]*\bsrc=['\"]([^'\"]+)")


def snippets(path):
    """The ``--8<--`` includes of a page, in order."""
    return SNIPPET.findall(path.read_text(encoding="utf-8"))


def images(path):
    """The image paths a Markdown page shows, in order."""
    return ["".join(groups) for groups in IMAGE.findall(path.read_text(encoding="utf-8"))]


@functools.cache
def nav():
    """mkdocs.yml's nav (read with MkDocs' own YAML loader, tags and all)."""
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
        return yaml_load(file)["nav"]


def nav_walk(node):
    """The files named in a part of the nav, in reading order."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from nav_walk(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from nav_walk(value)


def nav_files():
    """Every file named in mkdocs.yml's nav."""
    return frozenset(nav_walk(nav()))
