"""Shared fixtures: the site, built once per test session, and served.

Every site and browser test asks for these by name; none builds the site itself.

- ``built_site``: the folder of one ``mkdocs build --strict`` (any warning fails it).
- ``base_url``: that folder served on localhost under ``/handtf/``, as deployed.
- ``browser``: Debian's Chromium driven by Playwright (skipped without it, a
  failure under ``CI=true``). Open pages with ``browsing.Visit(browser, url)``.

The crawl of every page is tests/test_reader.py's own fixture: the checks of
every page are all in that file, so the site is crawled once a session.

The tests run in one process per CPU (pytest-xdist: ``-n logical --dist
loadfile`` in pyproject.toml; ``-n 0`` runs them in one). Two recipes of
pytest-xdist's documentation keep the expensive work to once a session:

- ``--dist loadfile``: each test file runs in one worker, so a session fixture
  that only one file uses (the printed PDFs, the deploy dry run, the
  executed notebooks, the figure check) is made once;
- "Making session-scoped fixtures execute only once": the site, which tests in
  many files need, is built by the first worker that needs it, under a
  ``filelock.FileLock`` in the folder the workers share
  (``tmp_path_factory.getbasetemp().parent``); the others wait for the lock and
  read what it left there.
"""

import functools
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from filelock import FileLock

from failure_screenshots import pytest_runtest_makereport  # noqa: F401  (a hook: screenshots of a failing browser test)
from browsing import PREFIX, SiteServer, SubPathHandler, Visit, chromium

ROOT = Path(__file__).resolve().parent.parent
BUILD_TIMEOUT = 600  # seconds: a loaded 2-core machine takes about a minute


# The fast lane, ``python -m pytest -m "not slow"``, leaves out the tests that need one of
# these session fixtures (a fixture a test reaches through another counts too: the crawl
# needs the browser). Each is minutes of CPU on 2 cores; the rest of the suite, the strict
# build, the figure check and the link check on the built HTML included, is the fast lane.
SLOW_FIXTURES = {
    "browser": "Chromium",
    "pdfs": "the printed books",
    "executed_notebooks": "each page's notebook run in Jupyter",
    "properdocs_site": "the second build, with ProperDocs",
    "dry_run": "the deploy's dry run",
}
# the fixtures of the two longest files, each minutes on one worker: they start first
LONGEST_FIXTURES = {"pdfs", "crawl"}
# Within their group, these files start first, longest first: the seconds each took in the fast
# lane on the project's quiet 2-core machine (November 2026). A file ordered by its name alone
# could come last and leave one worker alone with it: the two induction pages, then 10 s each,
# kept one worker busy for 20 s after the other had finished. A file missing here is treated as short.
LONG_FILES = {
    "tests/test_figures.py": 36,
    "tests/test_seq2seq_training.py": 14,
    "tests/test_training.py": 12,
    "tests/test_cli.py": 12,
    "tests/test_reader.py": 8,
    "tests/test_console.py": 6,
    "docs/induction.md": 6,
    "docs/induction.zh.md": 6,
    "tests/test_adder.py": 5,
    "tests/test_cli_train.py": 4,
    "tests/test_exercises.py": 3,
    "tests/test_compiler.py": 3,
    "tests/test_adder_port.py": 3,
    "docs/training-by-hand.md": 3,
    "docs/training-by-hand.zh.md": 3,
}
# the tests that start their slow work themselves, by name, and the files that are slow throughout
SLOW_TESTS = {
    "test_the_notebook_prints_its_saved_outputs": "the notebooks run in Jupyter",
    "test_the_training_claims_hold_with_and_without_avx512": "a second training run, on numpy's other float path",
}
SLOW_FILES = {"test_pdf.py": "the printed books"}


def slow_reason(item):
    """Why a test is in the slow lane (None: it is in the fast lane)."""
    needs = [SLOW_FIXTURES[name] for name in getattr(item, "fixturenames", ()) if name in SLOW_FIXTURES]
    if needs:
        return needs[0]
    by_hand = item.get_closest_marker("slow") and "seconds of work (marked slow in its file)"
    return SLOW_TESTS.get(getattr(item, "originalname", None)) or SLOW_FILES.get(item.path.name) or by_hand


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the marks
def pytest_collection_modifyitems(config, items):
    """Mark the slow tests ``slow``; then order the files longest first, as far as their fixtures tell.

    pytest-xdist (``--dist loadfile --no-loadscope-reorder``) hands each worker the next
    file in this order when its current one is almost done, so the long files must
    start first and the short ones fill the workers' last minutes. The whole suite starts
    with the two longest (the printed books, ``pdfs``; the crawl of every page, ``crawl``),
    then the other files with a slow test, then the others that need the site, then the
    rest; within each group, the ``LONG_FILES`` first, longest first. The fast lane, whose
    slow tests are left out, orders its files by ``LONG_FILES`` alone: the figure check
    starts on one worker while the other builds the site.
    """
    for item in items:
        if slow_reason(item):
            item.add_marker(pytest.mark.slow)
    fast_lane = "not slow" in (config.option.markexpr or "")
    rank = {}
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        here = 0 if fixtures & LONGEST_FIXTURES else 1 if item.get_closest_marker("slow") else 2 if "built_site" in fixtures else 3
        rank[item.path] = 0 if fast_lane else min(rank.get(item.path, 3), here)
    seconds = {item.path: LONG_FILES.get(item.path.as_posix().removeprefix(ROOT.as_posix() + "/"), 0) for item in items}
    items.sort(key=lambda item: (rank[item.path], -seconds[item.path]))  # stable: each file's own order is kept


# What the fast lane left out, said at the end of its run. Under pytest-xdist the workers
# collect and deselect; each sends its list back in ``workeroutput`` (xdist's documented
# channel from a worker to the controller), and the controller prints it once.
_LEFT_OUT = {}


def pytest_deselected(items):
    if "slow" not in (items[0].config.option.markexpr or "") if items else True:
        return  # left out by -k or another mark: asked for by name, nothing to say
    for item in items:
        if slow_reason(item):
            _LEFT_OUT[item.nodeid] = slow_reason(item)


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["handtf_left_out"] = json.dumps(_LEFT_OUT)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, on the controller
def pytest_testnodedown(node, error):
    _LEFT_OUT.update(json.loads(getattr(node, "workeroutput", {}).get("handtf_left_out", "{}")))


def pytest_terminal_summary(terminalreporter):
    if not _LEFT_OUT:
        return
    files = {}
    for nodeid, reason in _LEFT_OUT.items():
        files.setdefault(nodeid.split("::")[0], {}).setdefault(reason, 0)
        files[nodeid.split("::")[0]][reason] += 1
    terminalreporter.section("left out")
    terminalreporter.write_line(f"{len(_LEFT_OUT)} slow tests left out, in {len(files)} files:")
    for path, reasons in sorted(files.items()):
        said = ", ".join(f"{count} {'needs' if count == 1 else 'need'} {reason}" for reason, count in reasons.items())
        terminalreporter.write_line(f"  {path}: {said}")
    if "not slow" in (terminalreporter.config.option.markexpr or ""):
        terminalreporter.write_line('the full suite runs them: python -m pytest (README, "Run the tests")')


def build_site(folder):
    """``mkdocs build --strict`` into ``folder / "site"``: ``{"returncode", "log"}``."""
    try:
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder / "site")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
            # The Material banner (end of life, Zensical) is for people, not for test output.
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )
    except subprocess.TimeoutExpired:
        return {"returncode": None, "log": f"mkdocs build --strict took more than {BUILD_TIMEOUT} s"}
    return {"returncode": result.returncode, "log": result.stdout + result.stderr}


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, worker_id):
    """The folder of the strict build (``index.html``, ``zh/index.html``, ...)."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the folder every worker of this session shares
    outcome = shared / "site-build.json"
    with FileLock(str(outcome) + ".lock"):
        if not outcome.is_file():
            outcome.write_text(json.dumps(build_site(shared)), encoding="utf-8")
        built = json.loads(outcome.read_text(encoding="utf-8"))
    if built["returncode"] != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{built['log']}", pytrace=False)
    return shared / "site"


@pytest.fixture(scope="session")
def base_url(built_site):
    """``http://127.0.0.1:PORT/handtf/``: the built site served on a free local port."""
    handler = functools.partial(SubPathHandler, directory=str(built_site))
    server = SiteServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}{PREFIX}"
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def no_page_error():
    """Every test fails on an uncaught error in a page it opened (issue 50), whatever else it asserts:
    a widget whose handler throws on a bad number fails the test that types one. A test that
    expects an error in a page takes it out of ``Visit.page_errors`` itself."""
    Visit.page_errors.clear()
    yield
    errors, Visit.page_errors[:] = list(Visit.page_errors), []
    if errors:
        pytest.fail(f"{len(errors)} uncaught errors in the pages this test opened:\n" + "\n".join(errors[:10]), pytrace=False)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session; each test opens and closes its own pages."""
    with chromium() as browser:
        yield browser
