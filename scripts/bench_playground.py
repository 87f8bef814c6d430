"""How long the playground's widgets take to show an edit (goal: one frame, 16 ms).

Runs the browser tests that measure it (``tests/test_playground.py``, "the cost
of an edit": the site is built and served as in the test suite) and prints, for
each widget, the main thread's median CPU milliseconds per edit, as Chromium's
own trace counts them (the event handler that redraws the widget, then the
style, layout and paint of the frame that shows it), and its ratio to the
16 ms frame. CPU time, not wall-clock time, so that other work on the machine
counts for less; the load average is printed with it.

    python scripts/bench_playground.py
"""

import re
import subprocess
import sys
from pathlib import Path

from bench_site import load  # scripts/, this script's folder

ROOT = Path(__file__).resolve().parent.parent
FRAME_MS = 16
MEASURED = re.compile(r"^\.*(?P<what>[^.\n].*): CPU ms per edit, median (?P<median>[\d.]+), worst (?P<worst>[\d.]+)$", re.MULTILINE)


def main():
    print(f"before: {load()}", flush=True)
    # -n 0: in one process, whose -s output is the script's to read (pytest-xdist's workers print nothing).
    command = [sys.executable, "-m", "pytest", "-n", "0", "tests/test_playground.py", "-k", "cost", "-s", "-q",
               "-p", "no:randomly", "--no-header"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    found = MEASURED.findall(result.stdout)
    if result.returncode != 0 or not found:
        print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
        print("bench_playground.py: the measuring tests failed or measured nothing", file=sys.stderr)
        return 1
    for what, median, worst in found:
        print(f"{what:55} median {float(median):5.1f} ms, worst {float(worst):5.1f} ms, "
              f"{float(median) / FRAME_MS:4.2f} x a frame   (goal: at most 1 x)")
    print(f"after:  {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
