"""The command-line sessions shown on the pages and in the README print what the command line prints."""

import re
import shlex
import subprocess
import sys

import pytest

from pages import DOCS, ROOT, pages

CONSOLE_BLOCK = re.compile(r"^([ \t]*)```console\n(.*?)^\1```", re.DOTALL | re.MULTILINE)  # also in a collapsed block
HANDTF_COMMAND = re.compile(r"^(?:\.venv/bin/)?python -m handtf\b(?P<args>[^#A-Z\[]*)$")


def sessions(path):
    """Each ``$ command`` of the file's console blocks, with the lines shown after it."""
    found = []
    for indent, block in CONSOLE_BLOCK.findall(path.read_text(encoding="utf-8")):
        for line in block.splitlines():
            line = line.removeprefix(indent)
            if line.startswith("$ "):
                found.append((line[2:].strip(), []))
            elif found:
                found[-1][1].append(line)
    return found


FILES = [ROOT / "README.md", *(page for page in pages() if page.suffix == ".md" and sessions(page))]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_console_sessions_show_real_output(path):
    checked, returncode = 0, None
    for command, shown in sessions(path):
        if command == "echo $?":
            assert shown == [str(returncode)], f"after the previous command, echo $? prints {returncode}"
            continue
        match = HANDTF_COMMAND.match(command)
        if not match:
            continue  # a placeholder such as CONTEXT, or another program
        result = subprocess.run(
            [sys.executable, "-m", "handtf", *shlex.split(match["args"])], capture_output=True, text=True, cwd=ROOT
        )
        returncode = result.returncode
        if shown:
            assert result.stdout.splitlines() == shown, f"$ {command}"
        else:
            assert returncode == 0, f"$ {command} failed: {result.stderr}"
        checked += 1
    assert checked, f"{path.relative_to(ROOT)} shows no handtf command that could be checked"


def test_the_pages_show_sessions():
    assert any(DOCS in path.parents for path in FILES)
    # a session inside a collapsed block is read too (its lines indented by the block)
    assert sessions(DOCS / "training-by-hand.md")[0] == ("python -m handtf train --steps 100", [
        "trained 100 steps from seed 0, 1 head(s): final loss 0.0924",
        "right on every determined context from step 24 on",
        "smallest margin: 8.98",
        "verify: 87 / 87 contexts of length 2 to 30 correct"])
