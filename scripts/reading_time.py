"""How long the main line takes to read, measured in Chromium, in both languages.

    python scripts/reading_time.py             # builds the site into a temporary folder first
    python scripts/reading_time.py --site DIR  # measures an existing build (mkdocs build --site-dir DIR)

The main line is ``mkdocs.yml``'s ``extra.mainline`` (home, task, shape,
embeddings, attention, projection, logits). Each page is loaded at 1280 × 800
with every ``<details>`` closed and only the first tab of each tabbed block;
only what is visible inside ``article.md-content__inner`` counts (hidden
elements, such as the dark scheme's images when the light one shows, do not).
The rules (``handtf_site/reading_time.py``): English words at 200 a minute,
Chinese characters at 300 a minute plus their Latin words at 200, and 5 s for
each visible non-blank line of a ``pre`` block, whose text is not prose.

It prints each page's words, characters, code lines and minutes, the total per
language, and the screen (scroll offset / 800 px, from 1) where the attention
page's ``#central-idea`` starts; then the same for the pages after the main
line (``after_mainline``: the rest of the main line's part of the nav), each of which reads in
12 minutes at most. ``tests/test_reading_time.py`` runs the same
measure on the test session's build.
"""

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from mkdocs.utils.yaml import yaml_load

from handtf_site.reading_time import CJK, WORD, minutes

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browsing import LAUNCH_ARGS, PREFIX, SiteServer, SubPathHandler, drawn  # noqa: E402  (the site served as the tests serve it)

VIEWPORT = {"width": 1280, "height": 800}
LANGUAGES = ("en", "zh")
CENTRAL_IDEA = ("attention.md", "central-idea")  # the page and the element id whose screen is printed


def config():
    """mkdocs.yml as MkDocs reads it."""
    return yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def mainline():
    """The main line's pages, as their English file names, from mkdocs.yml."""
    return list(config()["extra"]["mainline"])


def nav_pages(entry):
    """The file names of a nav entry, in order: "a.md", {"Title": "a.md"} or {"Title": [entries]}."""
    if isinstance(entry, str):
        yield entry
    elif isinstance(entry, dict):
        for value in entry.values():
            yield from nav_pages(value)
    else:
        for item in entry:
            yield from nav_pages(item)


def is_prose(name):
    """A page read from start to end: a Markdown page that is not generated reference (no
    mkdocstrings ``::: module`` line). A notebook page or an API page is looked up, not read."""
    if not name.endswith(".md"):
        return False
    text = (ROOT / "docs" / name).read_text(encoding="utf-8")
    return not re.search(r"^::: ", text, re.MULTILINE)


def after_mainline(settings=None):
    """The pages after the main line, each read in 12 minutes at most (tests/test_reading_time.py):
    the rest of the main line's own part of the nav, after its last step, in nav order, prose only
    (``is_prose``). They are what a newcomer reads next, in order; the other parts of the nav are
    detours the home page offers with their own length (the concept pages) and reference that is
    looked up (the glossary, the API). A page added to that part is held to the limit with no list to edit."""
    settings = settings or config()
    steps = list(settings["extra"]["mainline"])
    for part in settings["nav"]:
        pages = list(nav_pages(part))
        if steps[-1] in pages:
            rest = pages[pages.index(steps[-1]) + 1 :]
            return [name for name in rest if name not in steps and is_prose(name)]
    raise ValueError(f"mkdocs.yml: the main line's last step {steps[-1]!r} is in no part of the nav")


AFTER_MAINLINE = after_mainline()  # printed too


def page_path(name, language):
    """The URL path under the site of page ``name`` ("task.md") in ``language``: "zh/task/"."""
    stem = name[: -len(".md")]
    path = "" if stem == "index" else stem + "/"
    return ("" if language == "en" else language + "/") + path


# Runs in the page: closes every <details>, then counts what is visible inside the article.
MEASURE = """([WORD, CJK, ID]) => {
    document.querySelectorAll('details').forEach(d => { d.open = false; });
    const article = document.querySelector('article.md-content__inner');
    const word = new RegExp(WORD, 'g'), cjk = new RegExp(CJK, 'g');
    const count = (text, re) => (text.match(re) || []).length;
    const hiddenCache = new Map();
    // An element a reader does not see: not rendered, invisible, or clipped to a pixel (screen-reader text).
    const hidden = el => {
        if (!el || el === article) return false;
        if (hiddenCache.has(el)) return hiddenCache.get(el);
        const style = getComputedStyle(el), box = el.getBoundingClientRect();
        // A closed <details> shows its summary only (Chromium still gives its hidden content boxes).
        let result = (el.parentElement && el.parentElement.matches('details:not([open])') && el.tagName !== 'SUMMARY')
            || !el.checkVisibility({visibilityProperty: true})
            || el.getClientRects().length === 0 || style.visibility !== 'visible'
            || (box.width <= 1 && box.height <= 1 && style.overflow !== 'visible');
        if (!result) result = hidden(el.parentElement);
        hiddenCache.set(el, result);
        return result;
    };
    // The frame of the page (the "where you are" line above it, the citation below it) is
    // counted apart too: the build counts only the page's own content.
    const FRAME = '.handtf-where, .handtf-course';
    const all = {words: 0, cjk: 0, code_lines: 0}, frame = {words: 0, cjk: 0, code_lines: 0};
    const add = (el, key, n) => { all[key] += n; if (el.closest(FRAME)) frame[key] += n; };
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest('pre') || hidden(parent)) continue;
        range.selectNodeContents(node);
        if (![...range.getClientRects()].some(r => r.width > 0 && r.height > 0)) continue;
        add(parent, 'words', count(node.data, word));
        add(parent, 'cjk', count(node.data, cjk));
    }
    for (const pre of article.querySelectorAll('pre')) {
        if (hidden(pre)) continue;
        add(pre, 'code_lines', pre.innerText.split('\\n').filter(line => line.trim()).length);
    }
    const target = document.getElementById(ID);
    const screen = target ? Math.floor((target.getBoundingClientRect().top + window.scrollY) / window.innerHeight) + 1 : null;
    const shown = article.querySelector('.handtf-where [data-minutes]');
    return {...all, frame: frame, screen: screen, shown: shown ? Number(shown.dataset.minutes) : null,
        shown_exact: shown ? Number(shown.dataset.exact) : null};
}"""


def measure(page, element_id=CENTRAL_IDEA[1]):
    """Counts of the page open in a Playwright ``page``: words, cjk, code_lines, minutes; the
    screen where ``element_id`` starts (None if the page has no such element); and ``frame``,
    the part of those counts in the page's frame (the "where you are" line and the citation
    block, which the template adds around the page's content: included in the totals); and
    ``shown``, the reading time the page shows at its top (None if it shows none), and
    ``shown_exact``, the build's count before it was rounded."""
    drawn(page)
    counts = page.evaluate(MEASURE, [WORD, CJK, element_id])
    counts["minutes"] = minutes(counts["words"], counts["cjk"], counts["code_lines"])
    frame = counts["frame"]
    frame["minutes"] = minutes(frame["words"], frame["cjk"], frame["code_lines"])
    return counts


def measure_url(browser, url):
    page = browser.new_page(viewport=VIEWPORT)
    try:
        page.goto(url, wait_until="load")
        return measure(page)
    finally:
        page.close()


def measure_mainline(browser, base_url, pages=None):
    """{language: {page name: counts}} for every main-line page in both languages."""
    pages = pages or mainline()
    return {lang: {name: measure_url(browser, base_url + page_path(name, lang)) for name in pages} for lang in LANGUAGES}


def report(results):
    """The printed table: one line a page, a total per language, the central idea's screen."""
    out = []
    for lang, pages in results.items():
        out.append(f"{lang}: {'page':<16}{'words':>7}{'chars':>7}{'code lines':>12}{'minutes':>9}")
        for name, c in pages.items():
            out.append(f"    {name:<16}{c['words']:>7}{c['cjk']:>7}{c['code_lines']:>12}{c['minutes']:>9.1f}")
        total = sum(c["minutes"] for c in pages.values())
        frame = sum(c["frame"]["minutes"] for c in pages.values())
        out.append(f"    {'total':<16}{'':>26}{total:>9.1f}")
        out.append(f"    (of which the frame, the step line and the citation block: {frame:.1f})")
        name = CENTRAL_IDEA[0]
        if name in pages:
            screen = pages[name]["screen"]
            where = f"screen {screen}" if screen else "not found"
            out.append(f"    #{CENTRAL_IDEA[1]} on {name}: {where}")
    return "\n".join(out)


def totals(results):
    return {lang: sum(c["minutes"] for c in pages.values()) for lang, pages in results.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, help="a built site folder (default: build one)")
    args = parser.parse_args(argv)
    temporary = None
    site = args.site
    if site is None:
        temporary = Path(tempfile.mkdtemp(prefix="handtf-reading-"))
        site = temporary / "site"
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)], cwd=ROOT, check=True,
                       env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, stdout=subprocess.DEVNULL)
    if not (site / "index.html").exists():
        parser.error(f"{site} holds no built site (no index.html)")
    server = SiteServer(("127.0.0.1", 0), functools.partial(SubPathHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            executable = shutil.which("chromium") or shutil.which("chromium-browser")
            browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
            try:
                base_url = f"http://127.0.0.1:{server.server_port}{PREFIX}"
                results = measure_mainline(browser, base_url)
                after = measure_mainline(browser, base_url, AFTER_MAINLINE)
            finally:
                browser.close()
    finally:
        server.shutdown()
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    print(report(results))
    print("\nAfter the main line (each at most 12 minutes):")
    print(report(after))


if __name__ == "__main__":
    main()
