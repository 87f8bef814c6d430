"""Shared fixtures: the site, built once per test session, served once, crawled once.

Every site and browser test asks for these by name; none builds the site itself.

- ``built_site``: the folder of one ``mkdocs build --strict`` (any warning fails it).
  The build starts in the background as soon as the tests are collected, if
  any selected test needs it, and the tests that need it run last, so it
  builds while the unit tests and doctests run.
- ``base_url``: that folder served on localhost under ``/handtf/``, as deployed.
- ``browser``: Debian's Chromium driven by Playwright (skipped without it, a
  failure under ``CI=true``). Open pages with ``browsing.Visit(browser, url)``.
- ``crawl``: every page reachable from the two home pages, loaded once:
  ``{url: (visit, facts)}`` (see ``browsing.FACTS``).
- ``printed_books``: the folder of the site's PDFs and their pages' text
  (``tests/pdf_books.py``), printed in a process of its own that starts as soon
  as the site is built, while the other tests run; the tests that need it run
  last of all.
"""

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from browsing import LAUNCH_ARGS, PREFIX, SubPathHandler, crawl_site, find_chromium

ROOT = Path(__file__).resolve().parent.parent
BUILD_TIMEOUT = 600  # seconds: a loaded 2-core machine takes about a minute


class _SiteBuild:
    """One ``mkdocs build --strict`` in a subprocess, started once and awaited by ``built_site``."""

    def __init__(self):
        self.process = None
        self.folder = None

    def start(self):
        if self.process is not None:
            return
        self.folder = Path(tempfile.mkdtemp(prefix="handtf-site-"))
        self.log = open(self.folder / "build.log", "w+", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(self.folder / "site")],
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            # The Material banner (end of life, Zensical) is for people, not for test output.
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )

    def wait(self):
        """The build's exit code, once it has ended (for a thread: no pytest.fail here)."""
        self.start()
        return self.process.wait(timeout=BUILD_TIMEOUT)

    def result(self):
        self.start()
        try:
            returncode = self.process.wait(timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            pytest.fail(f"mkdocs build --strict took more than {BUILD_TIMEOUT} s", pytrace=False)
        if returncode != 0:
            self.log.seek(0)
            pytest.fail(f"mkdocs build --strict failed:\n{self.log.read()}", pytrace=False)
        return self.folder / "site"

    def stop(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_BUILD = _SiteBuild()


class _PrintedBooks:
    """``tests/pdf_books.py`` on the session's site, in a process started by a thread that
    waits for the build: Chromium prints some 700 pages while the other tests run."""

    def __init__(self):
        self.thread = self.process = None
        self.folder = Path(tempfile.mkdtemp(prefix="handtf-pdf-"))
        self.log = self.folder / "print.log"

    def start(self):
        if self.thread is None:
            self.thread = threading.Thread(target=self._print, daemon=True)
            self.thread.start()

    def _print(self):
        try:
            if _BUILD.wait() != 0:
                return  # built_site reports the failed build
        except subprocess.TimeoutExpired:
            return
        with open(self.log, "w", encoding="utf-8") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(ROOT / "tests" / "pdf_books.py"), str(_BUILD.folder / "site"), str(self.folder)],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
            )
            self.process.wait()

    def result(self, built_site):
        self.start()
        self.thread.join(timeout=BUILD_TIMEOUT * 2)
        if self.thread.is_alive():
            self.stop()
            pytest.fail(f"printing the PDFs took more than {BUILD_TIMEOUT * 2} s", pytrace=False)
        if self.process is None or self.process.returncode != 0:
            log = self.log.read_text(encoding="utf-8") if self.log.exists() else ""
            pytest.fail(f"tests/pdf_books.py failed:\n{log}", pytrace=False)
        return self.folder

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_BOOKS = _PrintedBooks()


def _needs_site(item):
    return "built_site" in getattr(item, "fixturenames", ())


def _needs_books(item):
    return "printed_books" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(session, config, items):
    """Start the build (and the printing) if a selected test needs it, and run those tests
    last, when it is done: the site's tests, then the PDFs'."""
    if not config.option.collectonly and any(map(_needs_site, items)):
        _BUILD.start()
        if any(map(_needs_books, items)):
            _BOOKS.start()
    items.sort(key=lambda item: (_needs_site(item), _needs_books(item)))  # stable within each group


def pytest_sessionfinish(session, exitstatus):
    _BOOKS.stop()
    _BUILD.stop()


@pytest.fixture(scope="session")
def built_site():
    """The folder of the strict build (``index.html``, ``zh/index.html``, ...)."""
    return _BUILD.result()


@pytest.fixture(scope="session")
def printed_books(built_site):
    """The folder of ``handtf-en.pdf``, ``handtf-zh.pdf`` and each one's page texts (``.json``)."""
    return _BOOKS.result(built_site)


@pytest.fixture(scope="session")
def base_url(built_site):
    """``http://127.0.0.1:PORT/handtf/``: the built site served on a free local port."""
    handler = functools.partial(SubPathHandler, directory=str(built_site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}{PREFIX}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session; each test opens and closes its own pages."""
    executable = find_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def crawl(browser, base_url):
    """Every page reachable from the two home pages, loaded once: ``{url: (visit, facts)}``."""
    results = crawl_site(browser, base_url)
    yield results
    for visit, _ in results.values():
        visit.close()
