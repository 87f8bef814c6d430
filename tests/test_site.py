"""The site: a strict build, every page in both languages with the same examples, nothing from other hosts."""

import html
import re
from html.parser import HTMLParser

import pytest

from pages import DOCS, LANGUAGES, examples, images, nav_files, notebook_cells, pages, snippets, twin_of

MIN_EXAMPLES_PER_LANGUAGE = 150


def test_docs_has_pages():
    assert pages("en") and pages("zh")


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_every_page_has_its_twin(page):
    assert twin_of(page).exists(), f"{page.relative_to(DOCS)} has no twin {twin_of(page).relative_to(DOCS)}"


@pytest.mark.parametrize("page", pages("en"), ids=lambda p: str(p.relative_to(DOCS)))
def test_twins_teach_the_same_examples_in_the_same_order(page):
    twin = twin_of(page)
    if page.suffix == ".md":
        assert examples(twin) == examples(page), "the >>> examples differ (comments aside)"
        assert snippets(twin) == snippets(page), "the embedded code differs"
        assert [same_figure(path) for path in images(twin)] == images(page), "the figures differ"
    else:
        assert notebook_cells(twin) == notebook_cells(page), "the code cells or their outputs differ"


def same_figure(path):
    """The English figure a Chinese page's image stands for: ``x.zh.svg`` is the twin of ``x.svg``.

    >>> same_figure("assets/figures/lookup.zh.dark.svg#only-dark"), same_figure("../x.png")
    ('assets/figures/lookup.dark.svg#only-dark', '../x.png')
    """
    return re.sub(r"\.zh(\.dark)?\.svg\b", r"\1.svg", path)


@pytest.mark.parametrize("page", pages("en"), ids=lambda p: str(p.relative_to(DOCS)))
def test_every_page_is_in_the_nav(page):
    assert str(page.relative_to(DOCS)) in nav_files()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_site_has_enough_examples(language):
    count = sum(len(examples(page)) for page in pages(language) if page.suffix == ".md")
    assert count >= MIN_EXAMPLES_PER_LANGUAGE, f"{language}: {count} examples"


def test_the_strict_build_writes_both_languages(built_site):
    for page in pages("en"):
        relative = page.relative_to(DOCS)
        html = relative.parent / ("" if relative.stem == "index" else relative.stem) / "index.html"
        assert (built_site / html).exists(), html
        assert (built_site / "zh" / html).exists(), f"zh/{html}"


def test_chinese_pages_are_chinese(built_site):
    html = (built_site / "zh" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="zh"' in html
    assert "手搓" in html


class _Resources(HTMLParser):
    """Collects every URL a page loads by itself (scripts, styles, images, fonts, frames)."""

    LOADS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "audio": "src", "video": "src"}

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in self.LOADS and attrs.get(self.LOADS[tag]):
            self.urls.append(attrs[self.LOADS[tag]])
        if tag == "link" and attrs.get("rel") not in ("canonical", "alternate", "prev", "next", None):
            self.urls.append(attrs.get("href", ""))
        if "srcset" in attrs:
            self.urls += [part.split()[0] for part in attrs["srcset"].split(",") if part.strip()]


REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


def test_the_built_site_loads_nothing_from_another_host(built_site):
    offenders = []
    for path in sorted(built_site.rglob("*.html")):
        parser = _Resources()
        parser.feed(path.read_text(encoding="utf-8"))
        offenders += [f"{path.relative_to(built_site)}: {url}" for url in parser.urls if REMOTE.match(url.strip())]
    for path in sorted([*built_site.rglob("*.css"), *built_site.rglob("*.html")]):
        css = path.read_text(encoding="utf-8")  # stylesheets, and <style> blocks inside pages
        offenders += [f"{path.relative_to(built_site)}: {url}" for url in re.findall(r"url\(\s*['\"]?(https?:[^)'\"]+)", css)]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("notebook", [p for p in pages() if p.suffix == ".ipynb"], ids=lambda p: p.name)
def test_notebooks_render_as_pages_showing_their_committed_outputs(built_site, notebook):
    relative = notebook.relative_to(DOCS)
    stem = relative.name.removesuffix(".ipynb").removesuffix(".zh")
    folder = ("zh/" if relative.name.endswith(".zh.ipynb") else "") + str(relative.parent / stem)
    html_text = (built_site / folder / "index.html").read_text(encoding="utf-8")
    assert html_text.lstrip().lower().startswith("<!doctype html>"), "the notebook page is not HTML"
    assert "handtf-output" in html_text and "handtf-plot" in html_text
    # The build runs the notebook afresh; what it printed must be what the committed file shows.
    outputs = [text for _, texts in notebook_cells(notebook) for text in texts if text.strip()]
    assert outputs, "the committed notebook has no outputs"
    for text in outputs:
        for line in filter(str.strip, text.splitlines()):
            assert html.escape(line.strip(), quote=False) in html_text, f"{line!r} is not on the built page"


CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
CJK_LINE_BREAK = re.compile(rf"[{CJK}][ \t]*\n[ \t]*[{CJK}]")
VERBATIM = re.compile(r"<(pre|script|style)\b.*?</\1>", re.DOTALL)


def test_no_line_break_between_chinese_characters_shows_as_a_space(built_site):
    """A browser shows a source line break as a space: wrong between two Chinese characters."""
    found = []
    for path in sorted((built_site / "zh").rglob("*.html")):
        text = VERBATIM.sub("", path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(built_site)}: {m.group(0)!r}" for m in CJK_LINE_BREAK.finditer(text)]
    assert not found, "\n".join(found[:20])
