"""Deploy this release of the site as its own version: ``python scripts/deploy.py [--push]``.

The release ``X.Y.Z`` (``handtf.__version__``) is built by mike and committed to
the branch (default ``gh-pages``) as the version ``X.Y``, with the alias
``latest`` (a redirect) and ``latest`` as the site's default page. A patch
release replaces the text of its ``X.Y``; a course that links to ``1.0`` keeps
the text it cited.

Before anything is pushed, the heading anchors of the new version are
compared with those of the version ``latest`` pointed at: a link into the
previous release must still lead somewhere. An anchor that disappeared is
named and the deploy stops (give the heading its old id back with
``{#old-id}``), unless ``--allow-missing-anchors``.

Without ``--push`` it is a dry run: the branch is committed locally and
nothing leaves the machine. ``--site-url`` sets the address the site is
published at (``HANDTF_SITE_URL``), used in every page's citation.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import handtf  # noqa: E402

ALIAS = "latest"


def series(version=handtf.__version__):
    """``1.0.3`` -> ``1.0``: the site version a release is deployed as."""
    major, minor, _ = version.split(".")
    return f"{major}.{minor}"


class _Headings(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        if re.fullmatch(r"h[1-6]", tag):
            self.ids.update(value for name, value in attrs if name == "id" and value)


def heading_anchors(folder):
    """{page path: {heading id, ...}} of a built site (``attention/``, ``zh/attention/``)."""
    folder = Path(folder)
    anchors = {}
    for page in sorted(folder.rglob("index.html")):
        relative = page.parent.relative_to(folder).as_posix()
        parser = _Headings()
        parser.feed(page.read_text(encoding="utf-8"))
        if parser.ids:
            anchors["" if relative == "." else f"{relative}/"] = parser.ids
    return anchors


def disappeared(old, new):
    """The ``page#anchor`` links into ``old`` that lead nowhere in ``new``, sorted."""
    return sorted(f"{page}#{anchor}" for page, ids in old.items() for anchor in ids - new.get(page, set()))


def git(*args, cwd=ROOT, **kwargs):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, **kwargs).stdout


def branch_exists(branch, cwd=ROOT):
    return subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], cwd=cwd).returncode == 0


def deployed_versions(branch, cwd=ROOT):
    """mike's versions.json on the branch: [{"version", "title", "aliases"}, ...], newest first."""
    if not branch_exists(branch, cwd):
        return []
    return json.loads(git("show", f"{branch}:versions.json", cwd=cwd))


def anchors_on_branch(branch, version, cwd=ROOT):
    """The heading anchors of one deployed version, read from the branch."""
    with tempfile.TemporaryDirectory() as scratch:
        archive = subprocess.run(["git", "archive", branch, version], cwd=cwd, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", scratch], input=archive, check=True)
        return heading_anchors(Path(scratch) / version)


def deploy(branch="gh-pages", push=False, site_url=None, allow_missing_anchors=False, remote="origin", cwd=ROOT):
    """Build and commit this release to ``branch``; push it only if its anchors keep the previous release's."""
    version = series()
    previous = next((v["version"] for v in deployed_versions(branch, cwd) if ALIAS in v["aliases"]), None)
    old = anchors_on_branch(branch, previous, cwd) if previous else {}
    before = git("rev-parse", branch, cwd=cwd).strip() if branch_exists(branch, cwd) else None
    bin_dir = str(Path(sys.executable).parent)  # mike runs `mkdocs` from PATH: this environment's
    env = {**os.environ, "HANDTF_VERSIONS": "mike", "NO_MKDOCS_2_WARNING": "1", "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    if site_url:
        env["HANDTF_SITE_URL"] = site_url
    mike = [str(Path(bin_dir) / "mike")]
    subprocess.run(
        [*mike, "deploy", "--branch", branch, "--update-aliases", "--alias-type", "redirect", "--ignore-remote-status",
         "--title", f"{version} ({handtf.__version__})", "--message", f"Deploy handtf {handtf.__version__} as {version}",
         version, ALIAS],
        cwd=cwd, env=env, check=True,
    )
    subprocess.run([*mike, "set-default", "--branch", branch, "--ignore-remote-status", ALIAS], cwd=cwd, env=env, check=True)
    gone = disappeared(old, anchors_on_branch(branch, version, cwd))
    if gone:
        print(f"{len(gone)} heading anchors of {previous} are gone from {version}:", *gone, sep="\n  ", file=sys.stderr)
        if not allow_missing_anchors:
            # undo the deploy: the branch as it was (or no branch, as there was none)
            git(*(["update-ref", f"refs/heads/{branch}", before] if before else ["branch", "-D", branch]), cwd=cwd)
            raise SystemExit(1)
    if push:
        git("push", remote, branch, cwd=cwd)
    print(f"deployed handtf {handtf.__version__} as {version} (alias {ALIAS}) to {branch}" + ("" if push else ", not pushed"))
    return version


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--branch", default="gh-pages", help="the branch the site is published from (default gh-pages)")
    parser.add_argument("--push", action="store_true", help="push the branch (without it: a dry run, local only)")
    parser.add_argument("--remote", default="origin")
    parser.add_argument("--site-url", help="where the site is published, e.g. https://example.org/handtf/")
    parser.add_argument("--allow-missing-anchors", action="store_true", help="deploy even if anchors disappeared")
    args = parser.parse_args(argv)
    deploy(args.branch, args.push, args.site_url, args.allow_missing_anchors, args.remote)


if __name__ == "__main__":
    main()
