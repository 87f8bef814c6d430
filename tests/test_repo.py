"""The repository's promises about installing: pinned dependencies (what CI runs: test_workflows.py)."""

import re
import tomllib
from importlib import metadata

from pages import ROOT


def pins():
    """constraints.txt as {normalised name: version}."""
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pairs = [line.split("==") for line in lines if line.strip() and not line.startswith("#")]
    return {normalise(name): version.strip() for name, version in pairs}


def normalise(name):
    return re.sub(r"[-_.]+", "-", name).lower()


NOT_PINNED = {"handtf", "pip", "setuptools"}  # the project itself, and what venv brings


def test_every_installed_package_is_pinned():
    pinned = pins()
    installed = {normalise(dist.metadata["Name"]): dist.version for dist in metadata.distributions()}
    unpinned = [f"{name}=={version}" for name, version in installed.items() if name not in pinned and name not in NOT_PINNED]
    assert not unpinned, f"add to constraints.txt: {unpinned}"
    wrong = [f"{name}: installed {version}, pinned {pinned[name]}" for name, version in installed.items() if pinned.get(name, version) != version]
    assert not wrong, wrong


def test_the_project_pins_its_extras_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for extra in project["optional-dependencies"].values():
        for requirement in extra:
            name, version = requirement.split("==")
            assert pins()[normalise(name)] == version, requirement
