"""What a course needs: one version everywhere, and on every page its citation and a notebook of its examples.

The pages are the ones in docs/ (every one is in the nav, tests/test_site.py
checks), so a page added later is covered without a change here.
"""

import doctest
import json
import re
import subprocess
import sys
import tomllib
from html import unescape
from importlib import metadata
from urllib.parse import unquote

import pytest
import yaml

import handtf
from pages import DOCS, ROOT, examples, language_of, pages, strip_comments

sys.path.insert(0, str(ROOT / "hooks"))
from course import is_local  # noqa: E402  (the rule the site's citation follows)

VERSION = handtf.__version__
SERIES = ".".join(VERSION.split(".")[:2])  # a release is deployed as MAJOR.MINOR: 1.0.3 replaces 1.0.2


def cff():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def changelog_releases():
    """CHANGELOG.md's releases, newest first, as (version, date)."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## \[?(\d+\.\d+\.\d+)\]? — (\d{4}-\d{2}-\d{2})$", text, re.MULTILINE)


def test_the_version_is_written_once_and_everything_agrees():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"], "pyproject.toml reads handtf.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION), VERSION
    assert metadata.version("handtf") == VERSION, "the installed metadata is stale: pip install -e ."
    citation = cff()
    assert str(citation["version"]) == VERSION, "CITATION.cff's version"
    newest = changelog_releases()[0]
    assert newest == (VERSION, str(citation["date-released"])), "CHANGELOG.md's newest release and its date"


def test_the_changelog_lists_releases_newest_first():
    releases = changelog_releases()
    keys = [tuple(map(int, version.split("."))) for version, _ in releases]
    assert releases and keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    assert [d for _, d in releases] == sorted((d for _, d in releases), reverse=True)


def built_html(site, page):
    """The built HTML of a docs/ page (Markdown or notebook)."""
    relative = page.relative_to(DOCS)
    stem = relative.name.removesuffix(".md").removesuffix(".ipynb").removesuffix(".zh")
    folder = relative.parent / ("" if stem == "index" else stem)
    prefix = "zh/" if language_of(page) == "zh" else ""
    return site / prefix / folder / "index.html"


def page_url(site, page):
    """The page's path below the site root, as MkDocs writes it in links."""
    folder = built_html(site, page).parent.relative_to(site)
    return "" if str(folder) == "." else f"{folder}/"


def site_root(site):
    """The site's URL, from the canonical link of the home page."""
    home = (site / "index.html").read_text(encoding="utf-8")
    return re.search(r'<link rel="canonical" href="([^"]+)"', home)[1]


def course_block(html_text):
    block = re.search(r'<aside class="handtf-course"[^>]*>(.*?)</aside>', html_text, re.DOTALL)
    assert block, "the page has no notebook/citation block at its end"
    return block[1]


def strip_tags(text):
    return unescape(re.sub(r"<[^>]+>", "", text))


CITE_HEADING = {"en": "Cite this page", "zh": "引用本页"}
LOCAL_BUILD = {"en": "A local build, not published online.", "zh": "本地构建，尚未在线发布。"}
TITLE_QUOTES = {"en": "“{}”", "zh": "《{}》"}


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_every_page_ends_with_its_citation_in_its_language(built_site, page):
    html_text = built_html(built_site, page).read_text(encoding="utf-8")
    language = language_of(page)
    article = html_text[html_text.index('<article class="md-content__inner') :]
    block = course_block(article)
    assert article.index('<aside class="handtf-course"') > article.rindex("</h1>"), "the citation is not at the end"
    assert f'<h2 id="cite-this-page">{CITE_HEADING[language]}</h2>' in block

    first_heading = re.search(r'<h1 id="([^"]+)"[^>]*>(.*?)</h1>', article, re.DOTALL)
    title = strip_tags(re.sub(r'<a class="(?:headerlink|anchor-link)".*?</a>', "", first_heading[2])).strip()
    url = f"{site_root(built_site)}{SERIES}/{page_url(built_site, page)}" + (f"#{first_heading[1]}" if first_heading else "")
    citation = strip_tags(re.search(r'<p class="handtf-citation">(.*?)</p>', block, re.DOTALL)[1])
    year = str(cff()["date-released"])[:4]
    assert TITLE_QUOTES[language].format(title) in citation
    assert VERSION in citation and year in citation and cff()["title"] in citation
    published = not is_local(site_root(built_site))  # a local build's citation says so (tests/test_deploy.py: a published one)
    assert citation.endswith(url if published else LOCAL_BUILD[language]), (citation, url)

    bibtex = strip_tags(re.search(r'<code class="handtf-bibtex">(.*?)</code>', block, re.DOTALL)[1])
    fields = dict(re.findall(r"^\s+(\w+)\s*=\s*\{(.*)\},$", bibtex, re.MULTILINE))
    assert bibtex.startswith("@misc{handtf-") and bibtex.rstrip().endswith("}")
    assert fields["version"] == VERSION and fields["year"] == year
    assert fields["title"] == re.sub(r"([&%#_])", r"\\\1", title)
    assert unquote(fields["url"]) == url if published else "url" not in fields, fields
    assert fields["language"] == {"en": "english", "zh": "chinese"}[language]


def test_citation_keys_differ_between_pages(built_site):
    keys = [
        re.search(r"@misc\{([^,]+),", built_html(built_site, page).read_text(encoding="utf-8"))[1] for page in pages()
    ]
    assert len(set(keys)) == len(keys)


def notebook_of(site, page):
    """The notebook a page links to, read from the built site, or None if it links to none."""
    html_text = built_html(site, page).read_text(encoding="utf-8")
    link = re.search(r'<a [^>]*href="([^"]+\.ipynb)" download', course_block(html_text))
    if not link:
        return None
    return json.loads((built_html(site, page).parent / link[1]).read_text(encoding="utf-8"))


def code_cells(notebook):
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


MARKDOWN_PAGES = [p for p in pages() if p.suffix == ".md"]


@pytest.mark.parametrize("page", MARKDOWN_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_a_page_with_examples_links_to_its_notebook_holding_them_in_order(built_site, page):
    notebook = notebook_of(built_site, page)
    expected = examples(page)
    if not expected:
        assert notebook is None, "a page without examples offers an empty notebook"
        return
    assert notebook is not None, "the page has examples but no notebook link"
    assert notebook["nbformat"] == 4
    cells = code_cells(notebook)
    sources = [strip_comments(cell["source"]) for cell in cells]
    assert sources == [source for source, _ in expected]
    # The comments too, in the page's language: the notebook is that page's, not its twin's.
    text = page.read_text(encoding="utf-8")
    assert all(line.strip() in text for cell in cells for line in cell["source"].splitlines()), "a line not on the page"
    intro = "".join(notebook["cells"][0]["source"])
    assert VERSION in intro and f"/{SERIES}/" in intro
    headings = re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)
    shown = [cell["source"].split(" ", 1)[1] for cell in notebook["cells"][1:] if cell["cell_type"] == "markdown"]
    assert shown == [re.sub(r"\s*\{[^}]*\}$", "", h).rstrip("# ") for h in headings if not h.startswith("#")][: len(shown)]
    assert shown, "the notebook has none of the page's headings"


@pytest.mark.parametrize("page", [p for p in pages() if p.suffix == ".ipynb"], ids=lambda p: p.name)
def test_a_notebook_page_offers_its_own_notebook(built_site, page):
    html_text = built_html(built_site, page).read_text(encoding="utf-8")
    assert f'href="{page.name}" download>' in course_block(html_text), "no download link"
    assert (built_html(built_site, page).parent / page.name).exists()


CHECKER = doctest.OutputChecker()
FLAGS = doctest.NORMALIZE_WHITESPACE


RUN_PAGES = [p for p in MARKDOWN_PAGES if examples(p) and language_of(p) == "en"]


def run_notebooks(site, folder):
    """Each page's notebook from the built site, run in a fresh Jupyter kernel as a reader's
    "run all" would (tests/run_notebooks.py, in a process of its own): {page: notebook path}."""
    paths = {}
    for page in RUN_PAGES:
        notebook = notebook_of(site, page)
        if notebook is not None:
            paths[page] = folder / str(page.relative_to(DOCS)).replace("/", "-") / "notebook.ipynb"
            paths[page].parent.mkdir()
            paths[page].write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    command = [sys.executable, str(ROOT / "tests" / "run_notebooks.py"), *map(str, paths.values())]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return paths


@pytest.fixture(scope="session")
def executed_notebooks(built_site, tmp_path_factory):
    return run_notebooks(built_site, tmp_path_factory.mktemp("notebooks"))


def printed(cell):
    """What a cell printed, as a doctest sees it: stdout and the value of its expression."""
    parts = []
    for output in cell["outputs"]:
        if output["output_type"] == "stream" and output["name"] == "stdout":
            parts.append(output["text"])
        elif output["output_type"] == "execute_result":
            parts.append(output["data"]["text/plain"] + "\n")
        elif output["output_type"] == "error":
            parts.append(f"{output['ename']}: {output['evalue']}\n")
    return "".join(parts)


# The English notebooks are run; a Chinese one holds the same code (test above and the twins test),
# only its comments differ, so running it too would double the time for nothing new.
@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_the_notebook_runs_and_prints_what_the_page_shows(executed_notebooks, page):
    assert page in executed_notebooks, "the page links to no notebook"
    path = executed_notebooks[page]
    assert not path.with_suffix(".error").exists(), path.with_suffix(".error").read_text(encoding="utf-8")
    notebook = json.loads(path.read_text(encoding="utf-8"))
    parsed = doctest.DocTestParser().get_examples(page.read_text(encoding="utf-8"))
    for cell, example in zip(code_cells(notebook), parsed, strict=True):
        got = printed(cell)
        want = example.exc_msg if example.exc_msg is not None else example.want
        assert CHECKER.check_output(want, got, FLAGS), f"{cell['source']}\nwanted:\n{want}\ngot:\n{got}"
