"""The versioned site: a dry run of scripts/deploy.py into a local branch, and the deploy workflow.

The dry run deploys a copy of this working tree into a fresh repository whose
branch already holds a previous release, 0.9: the session's built site with
one heading more. The deploy must add this release next to it, move the alias
``latest``, and name that heading as the one anchor that disappeared.
"""

import functools
import json
import re
import shutil
import subprocess
import sys
import threading

import pytest

from browsing import PREFIX, SiteServer, SubPathHandler, Visit
from pages import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import deploy  # noqa: E402

BRANCH = "site-dry-run"
SITE_URL = "https://example.org/handtf/"
GONE = "an-anchor-only-0-9-had"
SERIES = deploy.series()


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def deploy_beside_a_previous_release(site, folder):
    """(repository, what deploy.py printed): this release deployed next to a fake 0.9."""
    repo = folder / "repo"
    repo.mkdir()
    files = git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "dry run")
    git(repo, "config", "user.email", "dry-run@localhost")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "this working tree")
    # The previous release on the branch: the built site as 0.9, with a heading this release lacks.
    git(repo, "checkout", "-q", "--orphan", BRANCH)
    git(repo, "rm", "-rq", "--cached", ".")
    previous = folder / "previous"
    shutil.copytree(site, previous / "0.9")
    attention = previous / "0.9" / "attention" / "index.html"
    attention.write_text(
        attention.read_text(encoding="utf-8").replace("</article>", f'<h2 id="{GONE}">Old</h2></article>', 1),
        encoding="utf-8",
    )
    (previous / "versions.json").write_text(json.dumps([{"version": "0.9", "title": "0.9", "aliases": ["latest"]}]))
    git(repo, "--work-tree", str(previous), "add", "-A", ".")
    git(repo, "commit", "-q", "-m", "release 0.9")
    git(repo, "checkout", "-q", "-f", "main")
    main_before = git(repo, "rev-parse", "main")
    result = subprocess.run(
        [sys.executable, "scripts/deploy.py", "--branch", BRANCH, "--site-url", SITE_URL, "--allow-missing-anchors"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert git(repo, "rev-parse", "main") == main_before, "the deploy touched the working branch"
    return repo, result


@pytest.fixture(scope="session")
def dry_run(built_site, tmp_path_factory):
    return deploy_beside_a_previous_release(built_site, tmp_path_factory.mktemp("dry-run"))


def branch_file(repo, path):
    return git(repo, "show", f"{BRANCH}:{path}")


def test_the_release_is_deployed_as_its_version_with_the_latest_alias(dry_run):
    repo, result = dry_run
    versions = json.loads(branch_file(repo, "versions.json"))
    assert [(v["version"], v["aliases"]) for v in versions] == [(SERIES, ["latest"]), ("0.9", [])]
    assert re.search(r'url=latest/"', branch_file(repo, "index.html")), "the site's root does not lead to latest"
    redirect = branch_file(repo, "latest/attention/index.html")
    assert f'url=../../{SERIES}/attention/"' in redirect
    for page in ("index.html", "attention/index.html", "zh/index.html", "zh/attention/index.html"):
        assert "handtf-course" in branch_file(repo, f"{SERIES}/{page}"), page
    assert branch_file(repo, "0.9/attention/index.html").count(GONE) == 1, "the previous release was changed"
    assert not git(repo, "remote"), "a dry run has nowhere to push to"
    assert "not pushed" in result.stdout


def test_pages_cite_the_deployed_version_at_the_published_address(dry_run):
    repo, _ = dry_run
    page = branch_file(repo, f"{SERIES}/zh/attention/index.html")
    assert f"{SITE_URL}{SERIES}/zh/attention/#" in page


def test_the_deploy_names_the_anchor_that_disappeared_and_only_it(dry_run):
    _, result = dry_run
    assert f"1 heading anchors of 0.9 are gone from {SERIES}:" in result.stderr, result.stderr[-2000:]
    assert f"attention/#{GONE}" in result.stderr


def test_without_permission_a_missing_anchor_stops_the_deploy(dry_run, tmp_path):
    """The check itself, on the deployed branch: this release against the doctored 0.9."""
    repo, _ = dry_run
    old = deploy.anchors_on_branch(BRANCH, "0.9", cwd=repo)
    new = deploy.anchors_on_branch(BRANCH, SERIES, cwd=repo)
    assert deploy.disappeared(old, new) == [f"attention/#{GONE}"]
    assert deploy.disappeared(new, new) == []
    assert sum(map(len, new.values())) > 200, "too few heading anchors found: is the parser reading the pages?"


def test_heading_anchors_are_read_from_headings_only(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h2 id="kept">x</h2><div id="not-a-heading"></div><h3 id="中文">y</h3>')
    (tmp_path / "index.html").write_text('<h1 id="home">h</h1>')
    assert deploy.heading_anchors(tmp_path) == {"": {"home"}, "a/": {"kept", "中文"}}
    assert deploy.disappeared({"a/": {"kept", "gone"}, "b/": {"x"}}, {"a/": {"kept"}}) == ["a/#gone", "b/#x"]


@pytest.fixture(scope="module")
def deployed_url(dry_run, tmp_path_factory):
    """The branch's files served under /handtf/, as the hosting would."""
    repo, _ = dry_run
    folder = tmp_path_factory.mktemp("deployed")
    archive = subprocess.run(["git", "archive", BRANCH], cwd=repo, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    server = SiteServer(("127.0.0.1", 0), functools.partial(SubPathHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}{PREFIX}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("page", ["attention/", "zh/attention/"])
def test_the_version_selector_lists_both_versions_in_both_languages(deployed_url, browser, page):
    visit = Visit(browser, f"{deployed_url}{SERIES}/{page}", idle=True)  # what it fetches later is checked
    try:
        selector = visit.page.locator(".md-version")
        selector.wait_for(state="attached", timeout=15000)
        assert selector.locator(".md-version__current").inner_text().startswith(SERIES)
        links = selector.locator("a.md-version__link")
        hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
        assert any(href.rstrip("/").endswith(f"0.9/{page}".rstrip("/")) or href.endswith("0.9/") for href in hrefs), hrefs
        assert not visit.console_errors and not visit.failed, visit.console_errors + visit.failed
    finally:
        visit.close()
