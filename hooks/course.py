"""MkDocs hooks for courses: each page's citation data and a notebook of each page's examples.

- ``config.extra.handtf`` gets the version (``handtf.__version__``, the one
  place it is written), the release series the site is deployed under (``1.0``
  for ``1.0.3``) and the citation read from ``CITATION.cff``;
  ``overrides/partials/course.html`` turns them into the "cite this page" block
  at the end of every page, and ``scripts/build_pdf.py`` into the PDF's cover.
- Every Markdown page with ``>>>`` examples gets a Jupyter notebook next to its
  HTML (``attention/attention.ipynb``, ``zh/attention/attention.zh.ipynb``):
  its headings and its examples in order, one cell per example, with the
  output the page shows. The page links to it (``page.meta["notebook"]``).
- In a versioned deploy (``HANDTF_VERSIONS=mike``, scripts/deploy.py) a
  translation's pages get their version selector from
  ``overrides/assets/javascripts/versions.js`` instead of Material's, which
  cannot find ``versions.json`` from a translation's folder.

No upstream issue: this is the site's own content, made on MkDocs' documented
events (on_config, on_page_markdown, on_post_page).
"""

import doctest
import ipaddress
import json
import os
import re
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import yaml

import handtf

ROOT = Path(__file__).resolve().parent.parent


def citation(version=handtf.__version__):
    """What a citation needs, from CITATION.cff and the package's version."""
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    released = cff["date-released"]
    released = released if isinstance(released, date) else date.fromisoformat(released)
    return {
        "version": version,
        "series": ".".join(version.split(".")[:2]),
        "title": cff["title"],
        "authors": " and ".join(a.get("name") or f"{a['given-names']} {a['family-names']}" for a in cff["authors"]),
        "year": released.year,
        "released": released.isoformat(),
    }


def is_local(url):
    """True for an address only this machine can open: a loopback, private or unspecified host, a file.
    A site built with such an address (``mkdocs serve``'s, the default) is a local build: its
    citations and books say so instead of naming it."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return True
    if parts.hostname == "localhost" or parts.hostname.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(parts.hostname)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified or address.is_private or address.is_link_local


def on_config(config):
    data = citation()
    # Under `mike deploy` the site's address already ends with the version (mike's plugin
    # adds it); the citations want the address of the whole site, with the series after it.
    site_url = (config.site_url or "").rstrip("/")
    deployed = os.environ.get("MIKE_DOCS_VERSION")
    if deployed and site_url.endswith("/" + deployed):
        site_url = site_url[: -len(deployed) - 1]
    data["site_url"] = site_url + "/" if site_url else ""
    data["published"] = bool(site_url) and not is_local(site_url)  # else the citation says it is a local build
    config.extra["handtf"] = data
    return config


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ATTRS = re.compile(r"\s*\{[^}]*\}\s*$")  # attr_list's {#id .class}


def page_cells(markdown):
    """A page's headings and ``>>>`` examples in order, as notebook cells.

    Each example becomes one code cell whose output is what the page shows
    after it, so a reader who runs the cells in order sees the page's outputs.
    """
    cells, lines, i = [], markdown.splitlines(), 0
    parser = doctest.DocTestParser()
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence:
            end = next(
                (j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(fence["fence"])
                 and not lines[j].strip().strip(fence["fence"][0])),
                len(lines),
            )
            if fence["info"].strip().startswith("pycon"):
                block = "\n".join(line.removeprefix(fence["indent"]) for line in lines[i + 1 : end]) + "\n"
                for example in parser.get_examples(block):
                    cells.append(_code_cell(example.source.rstrip("\n"), example.want, example.exc_msg))
            i = end + 1
            continue
        heading = _HEADING.match(lines[i])
        if heading:
            cells.append(_markdown_cell(f"{heading[1]} {_ATTRS.sub('', heading[2])}"))
        i += 1
    return cells


def _markdown_cell(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code_cell(source, want, exc_msg):
    """A cell showing ``want``; one whose example raises is tagged so that "run all" goes on after it."""
    outputs = [{"output_type": "stream", "name": "stdout", "text": want}] if want else []
    metadata = {}
    if exc_msg is not None:  # doctest's "Traceback ... ValueError: message": show it as Jupyter shows an error
        name, _, value = exc_msg.strip().partition(": ")
        outputs = [{"output_type": "error", "ename": name, "evalue": value, "traceback": [f"{name}: {value}"]}]
        metadata = {"tags": ["raises-exception"]}
    return {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": outputs, "source": source}


INTRO = {
    "en": "The examples of the page “{title}” of handtf {version}, in the order the page shows them: "
    "run the cells from the top. The page explains each one: <{url}>",
    "zh": "handtf {version} 中《{title}》一页的全部示例，顺序与页面相同：请从第一个单元格起依次运行。"
    "每个示例的讲解见页面：<{url}>",
}


def notebook(cells, title, language, version, url):
    """A notebook (nbformat 4) of a page's cells, opened by a note saying where they come from."""
    intro = _markdown_cell(INTRO[language].format(title=title, version=version, url=url))
    cells = [{"id": f"cell-{i}", **cell} for i, cell in enumerate([intro, *cells])]
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _default_language(page, config):
    languages = config["plugins"]["i18n"].config.languages
    return getattr(page.file, "locale", None) in (None, *[lang.locale for lang in languages if lang.default])


def notebook_name(page):
    """``attention.ipynb`` for attention.md, ``attention.zh.ipynb`` for attention.zh.md."""
    return Path(page.file.src_uri).name.removesuffix(".md") + ".ipynb"


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.endswith(".md"):
        return markdown
    cells = page_cells(markdown)
    if any(cell["cell_type"] == "code" for cell in cells):
        page.meta["notebook"] = notebook_name(page)
        page.meta["notebook_cells"] = cells
    return markdown


_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def without_material_version_selector(output):
    """The page without Material's version selector, which a translation's page gets from versions.js.

    Material looks for versions.json next to the page's search base, and a
    translation's base is its own folder (hooks/site_hooks.py), so it would ask
    for a file that does not exist and show no selector.
    """

    def drop(match):
        settings = json.loads(match[2])
        settings.pop("version", None)
        return match[1] + json.dumps(settings, ensure_ascii=False) + match[3]

    return _CONFIG.sub(drop, output, count=1)


def on_post_page(output, page, config):
    if config.extra.get("version", {}).get("provider") == "mike" and not _default_language(page, config):
        output = without_material_version_selector(output)
    cells = page.meta.get("notebook_cells")
    if cells:
        data = config.extra["handtf"]
        url = f"{data['site_url']}{data['series']}/{page.url}"
        book = notebook(cells, page.title, getattr(page.file, "locale", "en"), data["version"], url)
        path = Path(page.file.abs_dest_path).parent / page.meta["notebook"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(book, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return output
