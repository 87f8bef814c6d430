"""How long an author waits: the site's build, its live reload, and the test suite.

In one run this times

1. the cold bilingual strict build (``mkdocs build --strict``, a fresh process),
2. a bare Material build of the same English pages (Material's defaults and
   nothing else), and prints both and their ratio (goal: at most 4x);
3. under the edit loop CONTRIBUTING gives, one language at a time
   (``HANDTF_LOCALE=en mkdocs serve``, then ``HANDTF_LOCALE=zh mkdocs serve``:
   mkdocs-static-i18n's ``build_only_locale`` builds that language alone, at the
   site's root) on a free localhost port, the time from saving a page to the
   browser showing the reloaded page, an English page and then its Chinese twin
   (goal: at most 5 s each);
4. the README's test command without the installs, ``python -m pytest``
   (goal: at most 5 minutes on a 2-core machine).

Timings depend on the machine's load, so the load average is printed with
them, and each command's CPU time (its own and its children's) next to its
wall-clock time; with the suite, also how busy all the cores were meanwhile (Chromium
is not a child of the suite), and so the shortest time that much work can take on
them. ``--skip-reload`` and ``--skip-tests`` leave out steps 3 and 4;
``--repeat N`` times each build and the reload N times and keeps the fastest.
"""

import argparse
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
QUIET = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's end-of-life banner, once per build
WAIT = 300  # seconds: the longest any one step may take before the benchmark gives up
EDITED_PAGES = {"en": "attention.md", "zh": "attention.zh.md"}  # each served alone, at the root
SERVE = ["serve"]  # what CONTRIBUTING's edit loop runs: HANDTF_LOCALE=LANGUAGE mkdocs serve
EDITED_ADDRESS = "attention/"
BARE_CONFIG = "site_name: bare\ntheme:\n  name: material\n"


class Timing:
    """Wall-clock seconds and the CPU seconds (user + system) of a command and its children.

    On a machine shared with other work the wall clock grows with the load; the
    CPU time much less, so both are printed.
    """

    def __init__(self, wall, cpu):
        self.wall, self.cpu = wall, cpu

    def __lt__(self, other):
        return self.wall < other.wall

    def __truediv__(self, other):
        return f"{self.wall / other.wall:5.1f} x wall, {self.cpu / other.cpu:5.1f} x CPU"

    def __str__(self):
        return f"{self.wall:6.1f} s wall, {self.cpu:6.1f} s CPU"


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, cwd, timeout=WAIT * 4):
    """Run ``command``; return its Timing, or exit with its output if it fails or takes too long."""
    start, cpu = time.perf_counter(), children_cpu()
    try:
        result = subprocess.run(command, cwd=cwd, env=QUIET, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"{' '.join(map(str, command))} took more than {timeout} s ({load()})")
    elapsed = Timing(time.perf_counter() - start, children_cpu() - cpu)
    if result.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed


def strict_build(root, scratch):
    return timed([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(scratch / "site")], root)


def bare_project(root, scratch):
    """A Material site of the English Markdown pages and their assets, with Material's defaults."""
    project = scratch / "bare"
    docs = project / "docs"
    for page in (root / "docs").rglob("*.md"):
        if not page.name.endswith(".zh.md"):
            target = docs / page.relative_to(root / "docs")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(page, target)
    shutil.copytree(root / "docs" / "assets", docs / "assets", dirs_exist_ok=True)  # again with --repeat
    (project / "mkdocs.yml").write_text(BARE_CONFIG, encoding="utf-8")
    return project


def bare_build(root, scratch):
    project = bare_project(root, scratch)
    return timed([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(scratch / "bare-site")], project)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url, deadline):
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    sys.exit(f"mkdocs serve did not answer {url} within {WAIT} s")


def reload_times(root, scratch, repeat=1):
    """``{language: Timing}``: from saving a page under ``HANDTF_LOCALE=language mkdocs serve`` to the
    browser showing the change (the CPU is the server's); the fastest of ``repeat`` saves."""
    project = scratch / "project"
    shutil.copytree(root, project, ignore=shutil.ignore_patterns(".git", ".venv", "site", "__pycache__", "*.egg-info"))
    from playwright.sync_api import sync_playwright

    found = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])
        for language, source in EDITED_PAGES.items():
            found[language] = serve_and_edit(project, scratch, language, source, browser, repeat)
        browser.close()
    return found


def serve_and_edit(project, scratch, language, source, browser, repeat):
    port = free_port()
    base = f"http://127.0.0.1:{port}/handtf/"
    log = open(scratch / f"serve-{language}.log", "w", encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", *SERVE, "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project,
        env={**QUIET, "HANDTF_LOCALE": language},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(base, time.monotonic() + WAIT)
        page = browser.new_page()
        page.goto(base + EDITED_ADDRESS, wait_until="load")
        path = project / "docs" / source
        timings = []
        for _ in range(repeat):
            marker = f"bench-marker-{time.time_ns()}"
            cpu = process_cpu(server.pid)
            start = time.perf_counter()
            saved = scratch / "saving.md"  # outside docs/, then moved in: saved in one step, as an editor does
            saved.write_text(path.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")
            os.replace(saved, path)  # (a truncate, then a write, can start two rebuilds on a loaded machine)
            page.wait_for_function(
                f"() => document.body && document.body.innerText.includes({marker!r})",
                timeout=WAIT * 1000,
                polling=100,
            )
            timings.append(Timing(time.perf_counter() - start, process_cpu(server.pid) - cpu))
            time.sleep(1)  # the server goes quiet before the next save
        page.close()
        return min(timings)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def process_cpu(pid):
    """CPU seconds (user + system) that process ``pid`` has used so far."""
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def machine_busy():
    """CPU seconds all cores have spent working since boot: every process's, Chromium's
    included (the suite's Chromium is no child of the suite, so its time is not in ``timed``'s)."""
    times = psutil.cpu_times()
    return times.user + times.nice + times.system + times.irq + times.softirq


def chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        sys.exit("the reload time needs Chromium (apt-get install chromium), or pass --skip-reload")
    return path


def load():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="time each build and the reload this many times, keep the fastest")
    parser.add_argument("--skip-reload", action="store_true", help="do not time the live reload")
    parser.add_argument("--skip-tests", action="store_true", help="do not time the test suite")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    print(f"before: {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="handtf-bench-") as scratch:
        scratch = Path(scratch)
        build = min(strict_build(ROOT, scratch) for _ in range(args.repeat))
        print(f"bilingual strict build:       {build}", flush=True)
        bare = min(bare_build(ROOT, scratch) for _ in range(args.repeat))
        print(f"bare Material build (en):     {bare}", flush=True)
        print(f"ratio:                        {build / bare}   (goal: at most 4 x)", flush=True)
        if not args.skip_reload:
            for language, timing in reload_times(ROOT, scratch, args.repeat).items():
                print(f"edit -> reloaded page ({language}):   {timing}   (goal: at most 5 s wall)", flush=True)
    if not args.skip_tests:
        busy = machine_busy()
        suite = timed([sys.executable, "-m", "pytest", "-q"], ROOT, timeout=WAIT * 12)
        busy, cores = machine_busy() - busy, os.cpu_count()
        print(f"test suite (python -m pytest): {suite}   (goal: at most 300 s wall)", flush=True)
        print(
            f"  meanwhile the {cores} cores worked {busy:.0f} CPU-s, {busy / (cores * suite.wall):.0%} of the time they had:"
            f" this much work takes at least {busy / cores:.0f} s on them",
            flush=True,
        )
    print(f"after:  {load()}")


if __name__ == "__main__":
    main()
