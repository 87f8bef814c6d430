"""Internal links and anchors of the built site, read from its HTML without a browser.

``site_links(site)`` reads every built page once (its ids, its headings' ids in
order, the ``href`` of every link) and ``broken_links(site)`` says which internal
link leads to no file or to an id its page does not have. A missing anchor's
message names the ids the target page has: on a Chinese page whose link uses the
English heading's id (``decoding.md#temperature`` instead of ``#温度``), the
Chinese heading's id at the same place; otherwise the closest ids (difflib).
"""

import difflib
import html
import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

from pages import DOCS

PREFIX = "/handtf/"  # where the site is served; a link is internal when it stays under it
ANCHOR = re.compile(r"<a\s[^>]*?\bhref=\"([^\"]*)\"", re.IGNORECASE)
ID = re.compile(r"<[a-zA-Z][^>]*?\sid=\"([^\"]+)\"")
HEADING = re.compile(r"<h([1-6])\b[^>]*?\sid=\"([^\"]+)\"")
VERBATIM = re.compile(r"<(pre|code)\b.*?</\1>", re.DOTALL)  # code shows tags as text, escaped; no link inside


class Page:
    """One built page: its ids, its headings' ids in order, and its links as written."""

    def __init__(self, text):
        self.ids = {html.unescape(found) for found in ID.findall(text)}
        self.headings = [html.unescape(found) for _, found in HEADING.findall(text)]
        self.links = [html.unescape(found) for found in ANCHOR.findall(VERBATIM.sub("", text))]


@cache
def site_links(site):
    """``{page: Page}`` for every built page, ``page`` as its path under the site: ``zh/concepts/masks/``."""
    site = Path(site)
    return {
        path.parent.relative_to(site).as_posix().removeprefix(".").lstrip("/") + ("/" if path.parent != site else ""):
        Page(path.read_text(encoding="utf-8"))
        for path in sorted(site.rglob("index.html"))
    }


def source_of(page):
    """The Markdown (or notebook) a built page comes from: ``zh/concepts/masks/`` -> ``docs/concepts/masks.zh.md``."""
    chinese = page == "zh/" or page.startswith("zh/")
    path = page.removeprefix("zh/").strip("/") or "index"
    for suffix in (".md", ".ipynb"):
        source = DOCS / (path + (".zh" if chinese else "") + suffix)
        if source.exists():
            return source.relative_to(DOCS.parent).as_posix()
    return page


def twin_page(page):
    return page.removeprefix("zh/") if page.startswith("zh/") else "zh/" + page


def anchor_problem(fragment, target, pages):
    """Why ``target`` (a page under the site) has no id ``fragment``, and which id to use instead."""
    found = pages[target]
    said = f"{target or 'the home page'} has no id #{fragment}"
    twin = pages.get(twin_page(target))
    if twin is not None and fragment in twin.headings:
        place = twin.headings.index(fragment)
        language = "Chinese" if target.startswith("zh/") else "English"
        instead = f": use #{found.headings[place]}, the same heading there" if len(twin.headings) == len(found.headings) else ""
        return (f"{said}: #{fragment} is the id of a heading of its twin {twin_page(target) or 'home page'}; "
                f"a link to a {language} page uses the {language} heading's id{instead}")
    closest = difflib.get_close_matches(fragment, sorted(found.ids), n=3, cutoff=0.5)
    if closest:
        return f"{said}; the closest: " + ", ".join(f"#{name}" for name in closest)
    return f"{said}; its headings: " + ", ".join(f"#{name}" for name in found.headings)


def broken_links(site):
    """Every internal link of the built site that leads to no file, or to an id its page does not have."""
    site = Path(site)
    pages = site_links(site)
    problems = []
    for page, facts in pages.items():
        here = "http://site" + PREFIX + page
        for href in facts.links:
            url, fragment = urldefrag(urljoin(here, href))
            parsed = urlparse(url)
            if parsed.netloc != "site" or not parsed.path.startswith(PREFIX):
                continue  # another host: not this site's to check
            path = unquote(parsed.path[len(PREFIX):])
            target = path if path.endswith("/") or path == "" else None
            if target is None and path.endswith("/index.html"):
                target = path.removesuffix("index.html")
            where = f"{source_of(page)} (built as {page or 'the home page'}) links to {href}"
            if target is not None:
                if target not in pages:
                    problems.append(f"{where}: no page {target}")
                elif fragment and unquote(fragment) not in pages[target].ids:
                    problems.append(f"{where}: {anchor_problem(unquote(fragment), target, pages)}")
            elif not (site / path).is_file():
                problems.append(f"{where}: no file {path}")
    return list(dict.fromkeys(problems))  # a link in the table of contents and the text is said once
