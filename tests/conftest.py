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

The tests run in one process per CPU (pytest-xdist, ``-n logical`` in
pyproject.toml; ``-n 0`` runs them in one). Two units of work go to one worker
each, from start to end: ``crawl``, the tests of the crawled pages (one crawl),
and ``site``, the other tests that need the site or a background job (which
that worker starts); the other tests go one by one to whichever worker is
free. The workers cannot know which of them gets what, so the controller
builds the site, as soon as a worker's collection says a test needs it, into a
folder they share.
"""

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

import background
from failure_screenshots import pytest_runtest_makereport  # noqa: F401  (a hook: screenshots of a failing browser test)
from browsing import LAUNCH_ARGS, PREFIX, SubPathHandler, crawl_site, find_chromium

ROOT = Path(__file__).resolve().parent.parent
BUILD_TIMEOUT = 600  # seconds: a loaded 2-core machine takes about a minute


class _SiteBuild:
    """One ``mkdocs build --strict`` in a subprocess, started once and awaited by ``built_site``.

    Under pytest-xdist the controller runs it and a worker ``share``s its folder:
    there a worker whose tests need the site writes ``needs-site``, and the
    controller writes the build's exit code to ``returncode`` when it ends.
    """

    def __init__(self):
        self.process = None
        self.folder = None
        self.shared = False

    def share(self, folder):
        self.folder, self.shared = Path(folder), True

    def start(self):
        if self.shared:
            (self.folder / "needs-site").touch()
            return
        if self.process is not None:
            return
        self.folder = self.folder or Path(tempfile.mkdtemp(prefix="handtf-site-"))
        self.log = open(self.folder / "build.log", "w+", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(self.folder / "site")],
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            # The Material banner (end of life, Zensical) is for people, not for test output.
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )
        threading.Thread(target=self._write_returncode, daemon=True).start()

    def _write_returncode(self):
        code = self.process.wait()
        (self.folder / "returncode.part").write_text(str(code))
        os.replace(self.folder / "returncode.part", self.folder / "returncode")

    def wait(self):
        """The build's exit code, once it has ended (for a thread: no pytest.fail here)."""
        self.start()
        if not self.shared:
            return self.process.wait(timeout=BUILD_TIMEOUT)
        deadline, done = time.monotonic() + BUILD_TIMEOUT, self.folder / "returncode"
        while not done.exists():
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("mkdocs build --strict", BUILD_TIMEOUT)
            time.sleep(0.1)
        return int(done.read_text())

    def result(self):
        try:
            returncode = self.wait()
        except subprocess.TimeoutExpired:
            self.stop()
            pytest.fail(f"mkdocs build --strict took more than {BUILD_TIMEOUT} s", pytrace=False)
        if returncode != 0:
            log = (self.folder / "build.log").read_text(encoding="utf-8")
            pytest.fail(f"mkdocs build --strict failed:\n{log}", pytrace=False)
        return self.folder / "site"

    def stop(self):
        if self.shared or self.folder is None:
            return  # the controller's to remove
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_BUILD = _SiteBuild()


background.BUILD = _BUILD


_JOBS = []  # the background jobs the selected tests need


def _needs_site(item):
    return "built_site" in getattr(item, "fixturenames", ())


def _jobs_of(item):
    return [background.JOBS[name] for name in getattr(item, "fixturenames", ()) if name in background.JOBS]


def pytest_configure(config):
    if hasattr(config, "workerinput") and "handtf_site" in config.workerinput:
        _BUILD.share(config.workerinput["handtf_site"])


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist's controller: the folder the workers share with its build."""
    if _BUILD.folder is None:
        _BUILD.folder = Path(tempfile.mkdtemp(prefix="handtf-site-"))
    node.workerinput["handtf_site"] = str(_BUILD.folder)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    if (_BUILD.folder / "needs-site").exists():
        _BUILD.start()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's scheduler by scope, where a unit of work (``_unit_of``) is one scope
    and every other test one of its own. (Its ``--dist loadgroup`` would do this for marked
    tests, but under pytest 9.2 it no longer groups them: pytest-xdist #1386.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        units = None

        def _split_scope(self, nodeid):
            if self.units is None:
                listed = _BUILD.folder / "units"
                lines = listed.read_text(encoding="utf-8").splitlines() if listed.exists() else []
                self.units = dict(line.split("\t", 1)[::-1] for line in lines)
            return self.units.get(nodeid, nodeid)

    return ByUnit(config, log)


def _unit_of(item):
    """The unit of work a test belongs to under pytest-xdist, or None if it goes on its own."""
    if _jobs_of(item):
        return "site"
    if "crawl" in getattr(item, "fixturenames", ()):
        return "crawl"
    return "site" if _needs_site(item) else None


def pytest_collection_modifyitems(session, config, items):
    """Start the build and the background jobs the selected tests need, and run the tests
    that need them last: first those of the site, then those of a job, when they are done.
    Under pytest-xdist a worker lists the units of work for the controller, and the worker
    that runs ``site`` starts the jobs with its first test."""
    _JOBS[:] = {job for item in items for job in _jobs_of(item)}
    if not config.option.collectonly:
        if any(map(_needs_site, items)):
            _BUILD.start()
        if not _BUILD.shared:
            for job in _JOBS:
                job.start()
    items.sort(key=lambda item: (bool(_jobs_of(item)), _needs_site(item)))  # stable within each group
    if _BUILD.shared:
        listed = _BUILD.folder / f"units.{os.getpid()}"
        units = ((_unit_of(item), item.nodeid) for item in items)
        listed.write_text("".join(f"{unit}\t{nodeid}\n" for unit, nodeid in units if unit), encoding="utf-8")
        os.replace(listed, _BUILD.folder / "units")


def pytest_runtest_setup(item):
    if _BUILD.shared and _unit_of(item) == "site":
        for job in _JOBS:
            job.start()  # once: a started job ignores this


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
    """Every page reachable from the two home pages, loaded once: ``{url: (visit, facts)}``.

    The pages share one browser context, as a reader's tabs do: its cache, so each
    script and style is fetched and compiled once (a fifth less of Chromium's time)."""
    context = browser.new_context()
    results = crawl_site(context, base_url)
    yield results
    context.close()
