"""MkDocs hooks: only what no maintained plugin or option does. Each job names the upstream
issue it works around; when that issue is fixed in a pinned version, the job goes.

Every job runs on MkDocs' documented events (on_page_read_source, on_page_content, on_post_page,
on_post_build, on_env, on_pre_build) and changes no other package's code, with one
named exception: job 1 adds ``.ipynb`` to ``mkdocs.utils.markdown_extensions``,
the list MkDocs reads to tell a page from a static file, since no setting or event
can (mkdocs #930).

Maths is not here: pymdownx.arithmatex keeps the TeX and the site's own KaTeX typesets it.
Nor are Chinese line breaks: handtf_site.cjk_lines, a Markdown extension, joins them.
"""

import html
import json
import re
import shutil
from pathlib import Path

import jinja2
import mkdocs.plugins
import mkdocs.utils

# 1. Notebook pages. MkDocs counts only Markdown files as pages and has no setting for
# more (mkdocs #930, closed as out of scope). The one change to another package in
# hooks/: .ipynb is added to MkDocs' list of page extensions, and each
# notebook page is read as the Markdown of its cells. The page then gets what every
# page gets: highlighting, the site's heading ids, search, joined Chinese lines, maths.
# (mkdocs-jupyter did this through nbconvert, took a quarter of the build and needed
# three more jobs here: mkdocs-jupyter #140, #199, #241.)
if ".ipynb" not in mkdocs.utils.markdown_extensions:
    mkdocs.utils.markdown_extensions = (*mkdocs.utils.markdown_extensions, ".ipynb")


def notebook_markdown(notebook, name):
    """A notebook as a page: its Markdown cells as they are, its code as Python blocks,
    what the code printed as output blocks, and its plots as images described by the
    paragraph before them. ``notebook`` is the notebook (a dict as in the .ipynb file),
    ``name`` its file name, which the page offers for download.

    >>> cells = [{"cell_type": "markdown", "source": ["# Try\\n", "Two **sums**:"]},
    ...          {"cell_type": "code", "source": ["print(1 + 1)"],
    ...           "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2\\n"]}]}]
    >>> print(notebook_markdown({"cells": cells}, "try.ipynb"))
    ---
    notebook: try.ipynb
    ---
    <BLANKLINE>
    # Try
    Two **sums**:
    <BLANKLINE>
    ```python
    print(1 + 1)
    ```
    <BLANKLINE>
    ```{ .text .handtf-output }
    2
    ```
    <BLANKLINE>
    """
    parts, described = [f"---\nnotebook: {name}\n---"], ""
    for number, cell in enumerate(notebook["cells"], 1):
        source = "".join(cell["source"]).strip("\n")
        if cell["cell_type"] == "markdown":
            parts.append(source)
            described = source.split("\n\n")[-1]
        elif cell["cell_type"] == "code":
            parts.append(_fenced(source, "python"))
            parts += [_shown(output, described, f"{name}, cell {number}") for output in cell.get("outputs", [])]
    return "\n\n".join(parts) + "\n"


def _fenced(text, info):
    fence = "`" * max([3, *(len(run) + 1 for run in re.findall("`+", text))])
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _shown(output, described, where):
    """An output as the page shows it; one the page cannot show is an error that says why."""
    kind, data = output["output_type"], output.get("data", {})
    if kind == "stream" and output.get("name") == "stdout":
        return _fenced("".join(output["text"]), "{ .text .handtf-output }")
    if kind in ("execute_result", "display_data") and "image/png" in data:
        alt = html.escape(" ".join(re.sub(r"[`*]", "", described).split()))
        image = "".join(data["image/png"]).replace("\n", "")
        return f'<div class="handtf-plot"><img alt="{alt}" src="data:image/png;base64,{image}"></div>'
    if kind in ("execute_result", "display_data") and "text/plain" in data:
        return _fenced("".join(data["text/plain"]), "{ .text .handtf-output }")
    what = f"{kind} output" + (f" to {output.get('name')}" if kind == "stream" else f" of {sorted(data)}")
    raise ValueError(
        f"{where}: a notebook page shows printed text, results and PNG plots, not a {what}; "
        "change the cell, run the notebook again and save it"
    )


def on_page_read_source(page, config):
    if page.file.src_uri.endswith(".ipynb"):
        notebook = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))
        return notebook_markdown(notebook, Path(page.file.src_uri).name)
    return None


# 2. mkdocs-static-i18n #271: Material reads one search index, at the site root, so
# every search answered in both languages; and it fetches sitemap.xml below each
# <link rel="alternate">, which i18n points at the translated page itself, so every
# page load asked for files that do not exist (the header's language switcher
# already links each page to its twin). Each language gets its own index and sitemap.
def on_post_page(output, page, config):
    if page.file.src_uri.endswith(".ipynb"):  # job 1: the notebook itself, next to its page
        folder = Path(page.file.abs_dest_path).parent
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page.file.abs_src_path, folder / page.meta["notebook"])
    output = _without_alternates(output)
    locale = page.url.split("/", 1)[0]
    if locale in _translations(config):  # Material's "base" is where it reads the index
        output = re.sub(r'("base": ")([^"]*)(")', rf"\g<1>\g<2>/{locale}/\g<3>", output, count=1)
    return output


_ALTERNATE = re.compile(r'<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def _without_alternates(output):
    """``output`` without its ``<link rel="alternate">`` tags and the white space before each.

    (A pattern that starts with ``\\s*`` is tried at every space of the page: ten times slower.)

    >>> _without_alternates('<title>t</title>\\n  <link rel="alternate" href="/zh/" hreflang="zh">\\n</head>')
    '<title>t</title>\\n</head>'
    """
    parts = _ALTERNATE.split(output)
    return "".join([part.rstrip() for part in parts[:-1]] + parts[-1:])


def _translations(config):
    """The locales other than the default one, each built into a folder of that name."""
    return [language.locale for language in config["plugins"]["i18n"].config.languages if not language.default]


@mkdocs.plugins.event_priority(-200)  # after mkdocs-static-i18n has built every language
def on_post_build(config):
    root = Path(config["site_dir"])
    if not (root / "sitemap.xml").exists():
        root = root.parent
    for locale in _translations(config):
        home = root / locale
        if (home / "index.html").exists():
            shutil.copy2(root / "sitemap.xml", home / "sitemap.xml")  # i18n writes only the default's
            _split_search_index(root / "search" / "search_index.json", home, locale)


def _split_search_index(merged_path, home, locale):
    """Move the entries under ``home`` from the merged index into an index of their own."""
    merged = json.loads(merged_path.read_text(encoding="utf-8"))
    prefix = f"{locale}/"
    own = [entry for entry in merged["docs"] if entry["location"].startswith(prefix)]
    if not own:
        return  # already split by an earlier call
    merged["docs"] = [entry for entry in merged["docs"] if not entry["location"].startswith(prefix)]
    translated = {**merged, "docs": [{**e, "location": e["location"][len(prefix) :]} for e in own]}
    (home / "search").mkdir(exist_ok=True)
    (home / "search" / "search_index.json").write_text(json.dumps(translated, ensure_ascii=False), encoding="utf-8")
    merged_path.write_text(json.dumps(merged, ensure_ascii=False), encoding="utf-8")


# 3. mkdocs #3202 (closed, not merged): MkDocs makes a new Jinja environment for every
# build, every language and every reload of `mkdocs serve`, and each compiled Material's
# templates again (about a tenth of the build); mkdocstrings too makes a new one for
# each build and language (its handlers are torn down after each). Jinja's own
# bytecode cache keeps the compiled templates in the system's temporary folder,
# checked against each template's source.
_BYTECODE = jinja2.FileSystemBytecodeCache()


def on_env(env, config, files):
    env.bytecode_cache = _BYTECODE
    return env


def on_pre_build(config):
    if "mkdocstrings" in config.plugins:
        config.plugins["mkdocstrings"].get_handler("python").env.bytecode_cache = _BYTECODE


# 4. Old API anchors. In 1.1 the package's modules moved into folders that follow the
# site's outline (handtf.attend -> handtf.blocks.attend); mkdocstrings names each object's
# heading by its module, so a link to an API page's old anchor (a course's
# api-blocks/#handtf.attend.attention) would land at the top of the page. No plugin keeps
# old fragments (mkdocs-redirects maps whole pages): each moved object's heading also
# carries its old id, on an empty element just before it. A module that was split
# (handtf.training: the optimiser and the trainer) is the old module of each part: an old
# object's id lands on the part that holds it, and an id is given once a page (the first).
# The ids follow a module to whichever API page holds it: 1.0's handtf.compiler.compile_pattern
# is on api-patterns/, the page of compiled patterns, the induction head and the adder.
MOVED_MODULES = {  # new module: old module
    "handtf.blocks.activations": "handtf.activations", "handtf.blocks.layers": "handtf.layers",
    "handtf.blocks.attend": "handtf.attend", "handtf.blocks.masks": "handtf.masks",
    "handtf.blocks.positions": "handtf.positions", "handtf.blocks.loss": "handtf.loss",
    "handtf.model.transformer": "handtf.model", "handtf.model.weights": "handtf.weights",
    "handtf.model.tokenizer": "handtf.tokenizer", "handtf.model.inference": "handtf.inference",
    "handtf.model.evaluation": "handtf.evaluation", "handtf.model.tracing": "handtf.tracing",
    "handtf.model.recording": "handtf.recording", "handtf.patterns.compiler": "handtf.compiler",
    "handtf.patterns.induction": "handtf.induction", "handtf.training.backprop": "handtf.gpt_grads",
    "handtf.training.optimiser": "handtf.training", "handtf.training.trainer": "handtf.training",
    "handtf.seq2seq.training": "handtf.seq2seq_training",
    "handtf.seq2seq.translate": "handtf.translate", "handtf.model.decoding": "handtf.decoding",
    "handtf.trees.leaves": "handtf.training.leaves",  # an object that moved alone: 1.0's leaves, now the one tree walk's
    # issue 49: the task's functions, the model interface and the induction head's training left their 1.0 modules
    "handtf.model.task": "handtf.compiler", "handtf.model.interface": "handtf.inference",
    "handtf.training.induction": "handtf.induction",
}
_MOVED_ID = re.compile(r'<(h[1-6]|div)\b[^>]*\bid="(' + "|".join(map(re.escape, MOVED_MODULES)) + r')((?:\.\w+)*)"')


def on_page_content(html, page, config, files):
    if not page.file.src_uri.startswith("api"):
        return html
    given = set(re.findall(r'\bid="([^"]+)"', html))

    def old_id(match):
        old = MOVED_MODULES[match[2]] + match[3]
        if old in given:
            return match[0]
        given.add(old)
        return f'<span id="{old}"></span>{match[0]}'

    zh = page.file.src_uri.endswith(".zh.md")
    return _shown_on(_MOVED_ID.sub(old_id, html), shown_on(Path(config["docs_dir"]), zh), zh)


# 5. "Shown on" (d2l's "Defined in" turned around, issue 49). Under each function's heading, the API
# pages list the pages whose listings show it, found at build time from the pages' --8<-- includes, so
# the list cannot drift: a page that stops embedding a function drops out of its list.
_INCLUDE = re.compile(r'--8<-- "(handtf/[\w/]+)\.py:(\w+)"')
_HEADING = re.compile(r'(<(h[1-6])\b[^>]*\bid="(handtf\.[\w.]+)"[^>]*>.*?</\2>)', re.S)


def shown_on(docs, zh=False):
    """``{"handtf.module.function": [(page path, title), ...]}``: the pages (of one language) whose
    ``--8<--`` listings define the function, in the order of their paths."""
    found = {}
    pages = sorted(p for p in docs.rglob("*.md") if p.name.endswith(".zh.md") == zh and not p.name.startswith("api"))
    for page in pages:
        text = page.read_text(encoding="utf-8")
        title = re.search(r"^# (.+?)(?:\s*\{.*\})?$", text, re.M)
        for path, section in _INCLUDE.findall(text):
            source = (docs.parent / f"{path}.py").read_text(encoding="utf-8")
            body = re.search(rf"# --8<-- \[start:{section}\]\n(.*?)# --8<-- \[end:{section}\]", source, re.S)
            for name in re.findall(r"^\s*def (\w+)\(", body[1] if body else "", re.M):
                where = (page.relative_to(docs).as_posix(), title[1] if title else page.stem)
                found.setdefault(f"{path.replace('/', '.')}.{name}", [])
                if where not in found[f"{path.replace('/', '.')}.{name}"]:
                    found[f"{path.replace('/', '.')}.{name}"].append(where)
    return found


def _address(page):
    """The address of a page's source path, relative to the site's root: ``index.md`` is the root itself."""
    stem = page.removesuffix(".zh.md").removesuffix(".md")
    return stem.removesuffix("index") if stem == "index" or stem.endswith("/index") else f"{stem}/"


def _shown_on(page_html, shown, zh):
    """``page_html`` of an API page with a "Shown on" line after the heading of each function a page shows."""
    label = "出现在：" if zh else "Shown on: "

    def add(match):
        module, _, name = match[3].rpartition(".")
        pages = shown.get(match[3]) or shown.get(f"{module.rpartition('.')[0]}.{name}")  # a method: module.Class.name
        if not pages:
            return match[0]
        links = ("、" if zh else ", ").join(f'<a href="../{_address(page)}">{html.escape(title)}</a>' for page, title in pages)
        return f'{match[0]}<p class="handtf-shown-on">{label}{links}</p>'

    return _HEADING.sub(add, page_html)
