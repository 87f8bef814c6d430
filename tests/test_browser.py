"""The built site in a real browser (Debian's Chromium driven by Playwright), both languages.

The site is served on localhost under the sub-path ``/handtf/``, as it would be
deployed. The pages are found by crawling from the two home pages. Set
``HANDTF_SCREENSHOTS=DIR`` to save screenshots of a few pages for a person to
look at.
"""

import functools
import os
import re
import shutil
import threading
from collections import deque
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

PREFIX = "/handtf/"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
RAW_TEX = re.compile(r"\\[(\[]|\\frac|\\sqrt|\$\$|\\mathrm|\\text\{")


def find_chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if os.environ.get("CI"):
        pytest.fail("CI is set but no Chromium was found: .ci/run installs it with apt-get", pytrace=False)
    pytest.skip("no Chromium on this machine (apt-get install chromium); the browser tests need it")


class _SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site folder at /handtf/ and nothing else, quietly."""

    def translate_path(self, path):
        path = urlparse(path).path
        if not path.startswith(PREFIX):
            return str(Path(self.directory) / "__not_under_the_sub_path__")
        return super().translate_path("/" + path[len(PREFIX) :])

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def base_url(built_site):
    handler = functools.partial(_SubPathHandler, directory=str(built_site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}{PREFIX}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    executable = find_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        yield browser
        browser.close()


class Visit:
    """One page load: what it logged, what it requested, and what it shows."""

    def __init__(self, browser, url):
        self.url = url
        self.console_errors, self.remote_requests, self.failed = [], [], []
        self.page = browser.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda e: self.console_errors.append(str(e)))
        self.page.on("request", self._on_request)
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} (HTTP {r.status})"))
        self.page.goto(url, wait_until="load")
        self.page.wait_for_load_state("networkidle")

    def _on_request(self, request):
        if urlparse(request.url).hostname not in ("127.0.0.1", "localhost") and not request.url.startswith("data:"):
            self.remote_requests.append(request.url)

    def facts(self):
        """Everything about the page the checks need, read in one go."""
        return self.page.evaluate(
            """() => ({
                ids: [...document.querySelectorAll('[id]')].map(e => e.id),
                links: [...document.querySelectorAll('a[href]')].map(a => a.href),
                images: [...document.querySelectorAll('img')].map(i => ({
                    src: i.currentSrc || i.src, alt: i.getAttribute('alt') || '',
                    loaded: i.complete && i.naturalWidth > 0})),
                text: document.querySelector('.md-content') ? document.querySelector('.md-content').innerText : '',
                code_blocks: document.querySelectorAll('.md-content div.highlight > pre').length,
                copy_buttons: document.querySelectorAll('.md-content div.highlight > pre button[data-md-type="copy"]').length,
                math: document.querySelectorAll('.arithmatex').length,
                mathml: document.querySelectorAll('.arithmatex math').length,
                switcher: [...document.querySelectorAll('a[hreflang]')].map(a => [a.getAttribute('hreflang'), a.href]),
                lang: document.documentElement.lang,
            })"""
        )

    def close(self):
        self.page.close()


def is_page(url, base_url):
    path = urlparse(url).path
    return url.startswith(base_url) and (path.endswith("/") or path.endswith(".html"))


@pytest.fixture(scope="module")
def crawl(browser, base_url):
    """Visit every page reachable from the two home pages; keep what each page showed."""
    seen, queue, results = set(), deque([base_url, base_url + "zh/"]), {}
    while queue:
        url = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        visit = Visit(browser, url)
        facts = visit.facts()
        results[url] = (visit, facts)
        for link in facts["links"]:
            target = urldefrag(link)[0]
            if is_page(target, base_url) and target not in seen:
                queue.append(target)
    yield results
    for visit, _ in results.values():
        visit.close()


def test_both_languages_are_crawled(crawl, base_url):
    zh = [url for url in crawl if url.startswith(base_url + "zh/")]
    assert len(zh) >= 5 and len(crawl) - len(zh) >= 5, sorted(crawl)
    assert len(crawl) == 2 * len(zh), "every English page has a Chinese twin and vice versa"


def test_no_console_errors_and_no_failed_requests(crawl):
    problems = [f"{url}: {e}" for url, (visit, _) in crawl.items() for e in visit.console_errors + visit.failed]
    assert not problems, "\n".join(problems)


def test_nothing_is_requested_from_another_host(crawl):
    remote = [f"{url}: {r}" for url, (visit, _) in crawl.items() for r in visit.remote_requests]
    assert not remote, "\n".join(remote)


def test_every_image_loads_and_has_alt_text(crawl):
    problems = [
        f"{url}: {image['src']} " + ("did not load" if not image["loaded"] else "has no alt text")
        for url, (_, facts) in crawl.items()
        for image in facts["images"]
        if not image["loaded"] or not image["alt"].strip()
    ]
    assert not problems, "\n".join(problems)


def test_every_internal_link_and_anchor_resolves(crawl, base_url):
    ids = {url: set(facts["ids"]) for url, (_, facts) in crawl.items()}
    problems = []
    for url, (_, facts) in crawl.items():
        for link in facts["links"]:
            target, fragment = urldefrag(link)
            if not target.startswith(base_url) or not is_page(target, base_url):
                continue
            if target not in ids:
                problems.append(f"{url}: {link} leads to no page")
            elif fragment and unquote(fragment) not in ids[target]:
                problems.append(f"{url}: {link} has no anchor #{fragment}")
    assert not problems, "\n".join(problems)


def test_math_is_rendered_not_raw_tex(crawl):
    raw = [f"{url}: {m.group(0)!r}" for url, (_, facts) in crawl.items() for m in RAW_TEX.finditer(facts["text"])]
    assert not raw, "\n".join(raw)
    unrendered = [url for url, (_, facts) in crawl.items() if facts["mathml"] != facts["math"]]
    assert not unrendered, unrendered
    assert any(facts["mathml"] for _, facts in crawl.values()), "no page has math: the check proves nothing"


def test_code_blocks_have_a_copy_button(crawl):
    missing = [
        f"{url}: {facts['copy_buttons']} buttons for {facts['code_blocks']} code blocks"
        for url, (_, facts) in crawl.items()
        if facts["copy_buttons"] < facts["code_blocks"]
    ]
    assert not missing, "\n".join(missing)
    assert sum(facts["code_blocks"] for _, facts in crawl.values()) > 0


def test_each_language_switcher_link_leads_to_the_twin_page(crawl, base_url):
    problems = []
    for url, (_, facts) in crawl.items():
        english = url.replace(base_url + "zh/", base_url)
        chinese = english.replace(base_url, base_url + "zh/", 1)
        expected = {"en": english, "zh": chinese}
        switcher = dict(facts["switcher"])
        if switcher != expected:
            problems.append(f"{url}: switcher {switcher}, expected {expected}")
    assert not problems, "\n".join(problems)


def test_clicking_the_language_switcher(browser, base_url):
    visit = Visit(browser, base_url + "attention/")
    try:
        visit.page.locator(".md-header .md-select").first.hover()
        visit.page.click("a[hreflang='zh']")
        visit.page.wait_for_url(base_url + "zh/attention/")
        assert visit.page.evaluate("document.documentElement.lang") == "zh"
    finally:
        visit.close()


def search(browser, url, query):
    """Type ``query`` into the page's search box; return the result links."""
    visit = Visit(browser, url)
    try:
        visit.page.click("input.md-search__input")
        visit.page.keyboard.type(query)
        visit.page.keyboard.press("End")  # a keyup: Material searches on key events
        visit.page.wait_for_selector(".md-search-result__item a", timeout=10_000)
        return visit.page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
    finally:
        visit.close()


def test_search_finds_an_english_term_on_english_pages(browser, base_url):
    results = search(browser, base_url, "softmax")
    assert results and all(not r.startswith(base_url + "zh/") for r in results), results


def test_search_finds_a_chinese_word_inside_a_sentence(browser, base_url):
    results = search(browser, base_url + "zh/", "注意力")
    assert results and all(r.startswith(base_url + "zh/") for r in results), results


def test_screenshots_when_asked(browser, base_url):
    folder = os.environ.get("HANDTF_SCREENSHOTS")
    if not folder:
        pytest.skip("set HANDTF_SCREENSHOTS=DIR to save screenshots of the home and attention pages")
    Path(folder).mkdir(parents=True, exist_ok=True)
    for language in ("", "zh/"):
        for name in ("", "attention/"):
            visit = Visit(browser, base_url + language + name)
            path = Path(folder) / f"{language.strip('/') or 'en'}-{name.strip('/') or 'home'}.png"
            visit.page.screenshot(path=str(path), full_page=False)
            visit.close()
            assert path.stat().st_size > 10_000
