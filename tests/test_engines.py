"""The site builds with ProperDocs too, and it is the same site.

MkDocs 1.6.1 (August 2024) is the last MkDocs 1.x; ProperDocs continues it with the
same plugins, hooks and ``mkdocs.yml``. It builds the site once in this file's
worker, and the result is compared file by file with the session's MkDocs build:
every file the same, byte for byte, but for the ``<meta name="generator">`` tag.
ProperDocs is pinned in the ``properdocs`` extra, which the README's test command
installs; without it the test is skipped, except under CI, where that is a failure.
How to switch: CONTRIBUTING.md, "The build engine".
"""

import gzip
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = re.compile(rb'<meta name="generator" content="[^"]*">')


@pytest.fixture(scope="session")
def properdocs_site(built_site, tmp_path_factory):
    """``properdocs build --strict`` of the same mkdocs.yml; None without ProperDocs."""
    if importlib.util.find_spec("properdocs") is None:
        return None
    out = tmp_path_factory.mktemp("properdocs") / "site"
    result = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    if result.returncode != 0:
        pytest.fail(f"properdocs build --strict failed:\n{result.stdout}\n{result.stderr}", pytrace=False)
    return out


def content(path):
    """A built file as compared: without its generator tag; a gzip file by what it holds."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return GENERATOR.sub(b"", data)


def test_properdocs_builds_the_same_site(built_site, properdocs_site):
    if properdocs_site is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but ProperDocs is not installed: the README's test command installs .[properdocs]",
                        pytrace=False)
        pytest.skip("ProperDocs is not installed (pip install -c constraints.txt -e '.[properdocs]')")
    mkdocs = {p.relative_to(built_site) for p in Path(built_site).rglob("*") if p.is_file()}
    properdocs = {p.relative_to(properdocs_site) for p in Path(properdocs_site).rglob("*") if p.is_file()}
    assert mkdocs == properdocs, (sorted(mkdocs - properdocs)[:10], sorted(properdocs - mkdocs)[:10])
    assert len(mkdocs) > 200, len(mkdocs)
    different = [str(name) for name in sorted(mkdocs) if content(built_site / name) != content(properdocs_site / name)]
    assert not different, f"{len(different)} files differ: {different[:10]}"
    generators = GENERATOR.findall((Path(properdocs_site) / "index.html").read_bytes())
    assert generators and b"ProperDocs" in generators[0], generators
