"""Screenshots of the pages a failing browser test had open, for the CI run's artifact.

Set ``HANDTF_FAILURE_SCREENSHOTS=DIR`` (the test workflow does): every page a
``browsing.Visit`` opened is photographed as it closes, into a folder of the
running test's own, and the pages still open when a test fails are photographed
then. A test that passes leaves nothing behind; a failing one leaves
``DIR/<test>/NN-<page>.png``, which the workflow uploads.
"""

import os
import re
import shutil
from pathlib import Path

import pytest


def folder(nodeid=None):
    """The folder of test ``nodeid`` (by default the running one) under ``$HANDTF_FAILURE_SCREENSHOTS``, or None."""
    root = os.environ.get("HANDTF_FAILURE_SCREENSHOTS")
    test = nodeid or os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    if not root or not test:
        return None
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test)[:150]
    return Path(root) / name


def photograph(page, label=""):
    """Save a screenshot of ``page`` into the running test's folder; never fail the test over it."""
    where = folder()
    if where is None or page.is_closed():
        return
    where.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{label}{page.url.split('/handtf/', 1)[-1] or 'home'}")[:80]
    try:
        page.screenshot(path=str(where / f"{len(list(where.iterdir())):02d}-{stem}.png"), timeout=5000)
    except Exception:  # a crashed or navigating page: the test's own failure says more
        pass


FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if not os.environ.get("HANDTF_FAILURE_SCREENSHOTS"):
        return report
    if report.failed:
        item.stash[FAILED] = True
        from browsing import Visit

        for visit in list(Visit.open_visits)[-20:]:  # the newest pages still open
            photograph(visit.page, "open-")
    elif report.when == "teardown" and not item.stash.get(FAILED, False) and (where := folder(item.nodeid)) is not None:
        shutil.rmtree(where, ignore_errors=True)
    return report
