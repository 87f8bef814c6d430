"""What the browser tests share: Chromium, the site served under /handtf/, one page load, the crawl.

The fixtures that use these live in ``tests/conftest.py`` (``built_site``,
``base_url``, ``browser``; the ``crawl`` is tests/test_reader.py's own); a browser
test in any file asks for them by name and opens its own pages with ``Visit(browser, url)``.
"""

import contextlib
import json
import os
import shutil
import sys
from collections import deque
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

import failure_screenshots

PREFIX = "/handtf/"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
CRAWL_BATCH = 8  # pages loading at once while crawling


@contextlib.contextmanager
def chromium():
    """Debian's Chromium, launched by a Playwright instance of its own (one per thread, as
    Playwright's documentation asks of a program that uses it from two threads)."""
    executable = find_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def find_chromium():
    """Debian's Chromium; skip without it, except under CI, where its absence is a failure."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if os.environ.get("CI"):
        pytest.fail("CI is set but no Chromium was found: .ci/run installs it with apt-get", pytrace=False)
    pytest.skip("no Chromium on this machine (apt-get install chromium); the browser tests need it")


class SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site folder at /handtf/ and nothing else, quietly."""

    def translate_path(self, path):
        path = urlparse(path).path
        if not path.startswith(PREFIX):
            return str(Path(self.directory) / "__not_under_the_sub_path__")
        return super().translate_path("/" + path[len(PREFIX) :])

    def log_message(self, *args):
        pass


class SiteServer(ThreadingHTTPServer):
    """A ``ThreadingHTTPServer`` that says nothing when a page stops reading mid-answer.

    A test that closes its page while the page still fetches something (the search
    index, an image) leaves the server writing to a closed connection; the default
    ``handle_error`` (socketserver's documented hook) prints that traceback in the
    middle of the test output. Any other error is still printed.
    """

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


TOGGLE = "id => document.querySelector(`label[for='${id}']`).click()"  # the header's palette button
TWO_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def drawn(page):
    """Wait until ``page`` has drawn two frames, with the page brought to the front first: Chromium
    draws a page that is behind another of its tabs about once a second, so two frames of a page
    behind the crawl's others took 2 s (Playwright's documented ``Page.bring_to_front``)."""
    page.bring_to_front()
    page.evaluate(TWO_FRAMES)

FACTS = """() => ({
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


class Visit:
    """One page load: what it logged, what it requested, and what it shows.

    ``Visit(browser, url)`` loads the page and waits for its ``load`` event and two
    frames after it (its scripts have run, its images are in and it is drawn);
    ``idle=True`` also waits until the network has been idle for 500 ms, so that
    what the page fetches later (the search index, sitemaps) is in ``failed`` and
    ``remote_requests`` too. ``Visit(browser, url, wait=False)`` only starts
    loading it (call ``wait()``), so that several pages can load at once;
    ``light_search=True`` gives the page its search index without entries (see
    ``_index_without_entries``). Other
    keywords, e.g. ``viewport={"width": 390, "height": 844}``, go to
    ``browser.new_page``, which opens the page in a context of its own; ``browser``
    may also be a browser context, whose pages share its cache and storage.
    """

    open_visits = {}  # the visits not yet closed, oldest first (a dict keeps their order)
    page_errors = []  # "url: error" of every uncaught error in a page any visit opened; conftest fails the test on one

    def __init__(self, browser, url, wait=True, light_search=False, idle=False, **page_options):
        self.url, self.idle = url, idle
        Visit.open_visits[self] = None
        self.console_errors, self.remote_requests, self.failed = [], [], []
        self.page = browser.new_page(**page_options)
        if light_search:
            self.page.route("**/search/search_index.json", _index_without_entries)
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", self._on_page_error)
        self.page.on("request", self._on_request)
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} (HTTP {r.status})"))
        self.page.goto(url, wait_until="commit")
        if wait:
            self.wait()

    def wait(self):
        self.page.wait_for_load_state("load")
        if self.idle:
            self.page.wait_for_load_state("networkidle")
        else:
            drawn(self.page)
        return self

    def _on_page_error(self, error):
        self.console_errors.append(str(error))
        Visit.page_errors.append(f"{self.url}: {error}")

    def _on_request(self, request):
        if urlparse(request.url).hostname not in ("127.0.0.1", "localhost") and not request.url.startswith("data:"):
            self.remote_requests.append(request.url)

    def facts(self):
        """Everything about the page the crawl's checks need, read in one go."""
        return self.page.evaluate(FACTS)

    def close(self):
        failure_screenshots.photograph(self.page)  # only under $HANDTF_FAILURE_SCREENSHOTS
        Visit.open_visits.pop(self, None)
        # A route handler still fetching (the search index of a page closed right after it loaded)
        # would fail with "Request context disposed" in whatever Playwright call comes next, in
        # another test: Playwright's documented way out is to unroute with ignoreErrors first.
        self.page.unroute_all(behavior="ignoreErrors")
        self.page.close()


def _index_without_entries(route):
    """Fetch the real search index, and hand the page its configuration without its entries.

    Material's search worker builds the whole index in every page it loads; the
    crawl needs to know that each page finds its index, not to build it 48 times.
    The search tests load the whole index.
    """
    response = route.fetch()
    if not response.ok:
        route.fulfill(response=response)
        return
    config = json.loads(response.text())["config"]
    route.fulfill(response=response, body=json.dumps({"config": config, "docs": []}))


def has_figures(facts):
    """Whether a page whose ``facts`` were read shows any of the site's figures."""
    return any("/assets/figures/" in image["src"] for image in facts["images"])


def is_page(url, base_url):
    path = urlparse(url).path
    return url.startswith(base_url) and (path.endswith("/") or path.endswith(".html"))


def language_of(url, base_url):
    """The path of a page's home below ``base_url``: "zh/" for a Chinese page, "" for an English one."""
    return "zh/" if url.startswith(base_url + "zh/") else ""


def crawl_site(browser, base_url, read=None, keep=None, languages=("", "zh/")):
    """Visit every page reachable from the home pages of ``languages`` (both, by default) and in
    those languages, a few at a time: {url: (visit, facts)}.
    ``browser`` is a browser or a browser context (see ``Visit``). ``read(visit, facts)``, if
    given, returns more facts of the loaded page; then each page is closed unless its address
    is in ``keep`` (default: all are kept open)."""
    seen, queue, results = set(), deque(base_url + language for language in languages), {}
    while queue:
        batch = []
        while queue and len(batch) < CRAWL_BATCH:
            url = queue.popleft()
            if url not in seen:
                seen.add(url)
                batch.append(Visit(browser, url, wait=False, light_search=True, idle=True))
        for visit in batch:
            facts = visit.wait().facts()
            if read is not None:
                facts.update(read(visit, facts))
            if keep is not None and visit.url not in keep:
                visit.close()
            results[visit.url] = (visit, facts)
            for link in facts["links"]:
                target = urldefrag(link)[0]
                if is_page(target, base_url) and language_of(target, base_url) in languages and target not in seen:
                    queue.append(target)
    return results
