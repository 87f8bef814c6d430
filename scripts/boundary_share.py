"""The boundary's share of the package: how many of handtf's lines check arguments rather than compute.

The rule (issue 26, item 3; the measure behind "about 1,060 of 4,225 non-blank
lines"): count the non-blank lines of

- every top-level ``def check_*`` function of ``handtf/**/*.py`` (decorators
  included) and every top-level assignment that only names ``check_*``
  aliases (``check_relu = check_gelu``),
- all of ``handtf/checks.py``, ``handtf/readers.py`` and ``handtf/layouts.py``, the readers and the
  weight layouts,

and divide by the non-blank lines of every ``handtf/**/*.py``. A second figure,
``wide``, also counts everything from a module's ``# The boundary`` comment to
its end, so that a helper that checks but is not named ``check_*`` is counted
too.

    python scripts/boundary_share.py            # the working tree
    python scripts/boundary_share.py main       # a git revision
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHOLE = ("checks.py", "readers.py", "layouts.py")


def sources(revision=None):
    """``{file name: text}`` of ``handtf/**/*.py`` in the working tree or at ``revision``."""
    if revision is None:
        return {str(path.relative_to(ROOT / "handtf")): path.read_text(encoding="utf-8") for path in sorted((ROOT / "handtf").rglob("*.py"))}
    git = ["git", "-C", str(ROOT)]
    names = subprocess.run(git + ["ls-tree", "-r", "--name-only", revision, "handtf/"], capture_output=True, text=True, check=True)
    return {
        path.removeprefix("handtf/"): subprocess.run(git + ["show", f"{revision}:{path}"], capture_output=True, text=True, check=True).stdout
        for path in names.stdout.split()
        if path.endswith(".py")
    }


def boundary_lines(name, text):
    """The numbers of the non-blank lines of ``text`` that the rule counts, and those the wide rule counts."""
    lines = text.splitlines()
    filled = {number for number, line in enumerate(lines, 1) if line.strip()}
    if name in WHOLE:
        return filled, filled
    counted = set()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            counted.update(range(start, node.end_lineno + 1))
        elif isinstance(node, ast.Assign) and all(
            isinstance(target, ast.Name) and target.id.startswith("check_") for target in node.targets
        ):
            counted.update(range(node.lineno, node.end_lineno + 1))
    marker = next((number for number, line in enumerate(lines, 1) if line.startswith("# The boundary")), None)
    wide = counted | (set(range(marker, len(lines) + 1)) if marker else set())
    return counted & filled, wide & filled


def main(revision=None):
    total = counted = wide = 0
    for name, text in sources(revision).items():
        lines, wide_lines = boundary_lines(name, text)
        total += sum(1 for line in text.splitlines() if line.strip())
        counted, wide = counted + len(lines), wide + len(wide_lines)
    print(f"boundary: {counted} of {total} non-blank lines = {counted / total:.1%} (wide: {wide} = {wide / total:.1%})")


if __name__ == "__main__":
    main(*sys.argv[1:2])
