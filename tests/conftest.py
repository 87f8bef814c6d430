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

Slow checks (the PDFs, the deploy, the notebooks, the figures) run beside the
other tests as background jobs: see tests/background.py.
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

import background
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
        try:
            returncode = self.wait()
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


background.BUILD = _BUILD


def _needs_site(item):
    return "built_site" in getattr(item, "fixturenames", ())


def _jobs_of(item):
    return [background.JOBS[name] for name in getattr(item, "fixturenames", ()) if name in background.JOBS]


def pytest_collection_modifyitems(session, config, items):
    """Start the build and the background jobs the selected tests need, and run the tests
    that need them last: first those of the site, then those of a job, when they are done."""
    if not config.option.collectonly:
        if any(map(_needs_site, items)):
            _BUILD.start()
        for job in {job for item in items for job in _jobs_of(item)}:
            job.start()
    items.sort(key=lambda item: (bool(_jobs_of(item)), _needs_site(item)))  # stable within each group


def pytest_sessionfinish(session, exitstatus):
    for job in background.JOBS.values():
        job.stop()
    _BUILD.stop()


@pytest.fixture(scope="session")
def built_site():
    """The folder of the strict build (``index.html``, ``zh/index.html``, ...)."""
    return _BUILD.result()


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
