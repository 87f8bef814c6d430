"""How long an author waits: the site's build, its live reload, and the test suite.

In one run this times

1. the cold bilingual strict build (``mkdocs build --strict``, a fresh process),
2. the plugins-only floor: the same build, in a fresh process too, of the same
   ``mkdocs.yml`` and the same pages with the same third-party plugins (Material,
   mkdocs-static-i18n, search with jieba, autorefs, mkdocstrings) and Markdown
   extensions, but without the site's own code: no ``hooks:`` (hooks/), none of its
   own Markdown extensions (handtf_site/), no theme overrides (``custom_dir``,
   overrides/), and mkdocstrings without the site's templates (templates/) and its
   griffe extension (hooks/griffe_doctest.py). ``floor_config`` derives it from
   ``mkdocs.yml`` on every run, so it cannot drift from the site. Without the site's
   code some pages render differently and warn (the notebook page is a download,
   not a page, without the hook that reads notebooks), so the floor is built without
   ``--strict``; the benchmark checks that it still wrote every Markdown page in
   both languages. It prints both builds and their ratio (goal: the site's own code
   adds at most 15%, a ratio of at most 1.15);
3. under the edit loop CONTRIBUTING gives, one language at a time
   (``HANDTF_LOCALE=en mkdocs serve``, then ``HANDTF_LOCALE=zh mkdocs serve``:
   mkdocs-static-i18n's ``build_only_locale`` builds that language alone, at the
   site's root) on a free localhost port, the time from saving a page to the
   browser showing the reloaded page, an English page and then its Chinese twin
   (goal: at most 5 s each), and how much of it the server's rebuild took (as
   ``mkdocs serve`` logs it);
4. the README's test command without the installs, ``python -m pytest``
   (goal: at most 12 minutes on a 2-core machine, at most 1,400 CPU-s).

Timings depend on the machine's load, so the load average is printed with
them, and each command's CPU time (its own and its children's) next to its
wall-clock time (the two builds are timed in turn; on a shared machine their
ratio of CPU times is the steadier one); with the suite, also how busy all the cores were meanwhile (Chromium
is not a child of the suite), and so the shortest time that much work can take on
them. ``--skip-reload`` and ``--skip-tests`` leave out steps 3 and 4;
``--repeat N`` times each build and the reload N times and keeps the fastest
(for a build, its shortest wall-clock time and its least CPU time).
"""

import argparse
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUIET = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's end-of-life banner, once per build
BOTH = {k: v for k, v in QUIET.items() if k != "HANDTF_LOCALE"}  # the builds: both languages, whatever the shell says
WAIT = 300  # seconds: the longest any one step may take before the benchmark gives up
EDITED_PAGES = {"en": "attention.md", "zh": "attention.zh.md"}  # each served alone, at the root
SERVE = ["serve"]  # what CONTRIBUTING's edit loop runs: HANDTF_LOCALE=LANGUAGE mkdocs serve
EDITED_ADDRESS = "attention/"
SITE_CODE = ("hooks", "handtf_site", "overrides", "templates")  # the site's own code and templates: not in the floor
FLOOR_GOAL = 1.15  # the site's own code adds at most 15% to the plugins-only floor


class Timing:
    """Wall-clock seconds and the CPU seconds (user + system) of a command and its children.

    On a machine shared with other work the wall clock grows with the load; the
    CPU time much less, so both are printed.
    """

    def __init__(self, wall, cpu):
        self.wall, self.cpu = wall, cpu
        self.rebuilds = []  # a reload's: the seconds of each rebuild ``mkdocs serve`` logged

    def __lt__(self, other):
        return self.wall < other.wall

    def __truediv__(self, other):
        return f"{self.wall / other.wall:5.2f} x wall, {self.cpu / other.cpu:5.2f} x CPU"

    def __str__(self):
        return f"{self.wall:6.1f} s wall, {self.cpu:6.1f} s CPU"


def fastest(timings):
    """The shortest wall-clock time and the least CPU time of several runs (not always the same run's)."""
    return Timing(min(t.wall for t in timings), min(t.cpu for t in timings))


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, cwd, timeout=WAIT * 4, env=QUIET):
    """Run ``command``; return its Timing, or exit with its output if it fails or takes too long."""
    start, cpu = time.perf_counter(), children_cpu()
    try:
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"{' '.join(map(str, command))} took more than {timeout} s ({load()})")
    elapsed = Timing(time.perf_counter() - start, children_cpu() - cpu)
    if result.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed


def strict_build(root, scratch):
    return timed([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(scratch / "site")], root, env=BOTH)


def site_code(name):
    """Whether a config value names the site's own code: a file or folder in SITE_CODE, or a module in one.

    >>> [site_code(n) for n in ["hooks/mainline.py", "handtf_site.figures", "templates", "pymdownx.details"]]
    [True, True, True, False]
    """
    return isinstance(name, str) and re.split(r"[/.]", name, maxsplit=1)[0] in SITE_CODE


def floor_config(root=ROOT):
    """``root``'s mkdocs.yml, read as MkDocs reads it (``!ENV``, ``!!python/...``), without the site's own code.

    Dropped: ``hooks``, ``theme.custom_dir``, the Markdown extensions from handtf_site/,
    mkdocstrings' ``custom_templates`` and the griffe extensions from hooks/, the site's
    code folders from ``watch``; and ``strict``, since pages that need the site's code
    warn without it. Everything else, the third-party plugins and their options
    included, is as the site has it.
    """
    from mkdocs.utils.yaml import yaml_load

    with open(root / "mkdocs.yml", encoding="utf-8") as file:
        config = yaml_load(file)
    config.pop("hooks", None)
    config["strict"] = False
    config["watch"] = [path for path in config.get("watch", []) if not site_code(path)]  # (for `mkdocs serve`)
    config["theme"] = {key: value for key, value in config["theme"].items() if key != "custom_dir"}
    config["markdown_extensions"] = [e for e in config["markdown_extensions"] if not site_code(_name(e))]
    config["plugins"] = [_without_site_code(plugin) for plugin in config["plugins"]]
    return config


def _name(entry):
    """The name of a plugin or Markdown extension as mkdocs.yml lists it: a name, or a name with options."""
    return entry if isinstance(entry, str) else next(iter(entry))


def _without_site_code(plugin):
    if isinstance(plugin, str):
        return plugin
    (name, options), = plugin.items()
    if name != "mkdocstrings":
        return plugin
    options = {key: value for key, value in options.items() if key != "custom_templates"}
    handlers = {}
    for handler, settings in options.get("handlers", {}).items():
        inner = dict(settings.get("options", {}))
        if "extensions" in inner:
            inner["extensions"] = [e for e in inner["extensions"] if not site_code(_name(e))]
        handlers[handler] = {**settings, "options": inner}
    return {name: {**options, "handlers": handlers}}


def build_floor(site_dir, root=ROOT):
    """Build the floor into ``site_dir`` as ``mkdocs build`` would (its command's own steps), in this process."""
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config.defaults import MkDocsConfig

    logger = logging.getLogger("mkdocs")  # as `mkdocs build` logs: MkDocs' messages, from INFO up
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    config = MkDocsConfig(config_file_path=str(root / "mkdocs.yml"))
    config.load_dict({**floor_config(root), "site_dir": str(site_dir)})
    errors, _ = config.validate()
    if errors:
        sys.exit(f"the floor's config does not validate: {errors}")
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()


def floor_build(root, scratch):
    """Time the floor's build in a fresh process, then check it wrote every Markdown page in both languages."""
    site = scratch / "floor-site"
    runner = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_site; bench_site.build_floor(sys.argv[1])"
    timing = timed([sys.executable, "-c", runner, str(site)], root, env=BOTH)
    missing = [page for page in built_pages(root) if not (site / page).exists()]
    if missing:
        sys.exit(f"the floor build did not write {len(missing)} pages: {', '.join(map(str, missing[:5]))}")
    return timing


def built_pages(root):
    """Where each Markdown page of each language is written: ``task/index.html``, ``zh/task/index.html``."""
    docs = root / "docs"
    for page in sorted(docs.rglob("*.md")):
        if not page.name.endswith(".zh.md"):
            relative = page.relative_to(docs)
            folder = relative.parent / ("" if relative.stem == "index" else relative.stem)
            yield folder / "index.html"
            yield "zh" / folder / "index.html"


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
            logged = (scratch / f"serve-{language}.log").stat().st_size
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
            timing = Timing(time.perf_counter() - start, process_cpu(server.pid) - cpu)
            time.sleep(1)  # the server goes quiet before the next save
            with open(scratch / f"serve-{language}.log", encoding="utf-8") as file:
                file.seek(logged)
                timing.rebuilds = rebuilds(file.read())
            timings.append(timing)
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


def rebuilds(log):
    """What ``mkdocs serve`` logged after a save: the seconds of each rebuild it started.

    >>> rebuilds("INFO    -  Detected file changes\\nINFO    -  Documentation built in 3.21 seconds\\n")
    [3.21]
    """
    return [float(seconds) for seconds in re.findall(r"Documentation built in ([\d.]+) seconds", log)]


def process_cpu(pid):
    """CPU seconds (user + system) that process ``pid`` has used so far."""
    import psutil  # (here: the floor's build and tests/test_bench_site.py import this module without it)

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def machine_busy():
    """CPU seconds all cores have spent working since boot: every process's, Chromium's
    included (the suite's Chromium is no child of the suite, so its time is not in ``timed``'s)."""
    import psutil

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
        builds, floors = [], []
        for _ in range(args.repeat):  # in turn, so that both meet much the same load
            builds.append(strict_build(ROOT, scratch))
            floors.append(floor_build(ROOT, scratch))
        build, floor = fastest(builds), fastest(floors)
        print(f"bilingual strict build:        {build}", flush=True)
        print(f"plugins-only floor:            {floor}   (no hooks, handtf_site, overrides; not strict)", flush=True)
        print(f"ratio:                         {build / floor}   (goal: at most {FLOOR_GOAL} x)", flush=True)
        if not args.skip_reload:
            for language, timing in reload_times(ROOT, scratch, args.repeat).items():
                print(f"edit -> reloaded page ({language}):   {timing}   (goal: at most 5 s wall)", flush=True)
                built = " + ".join(f"{seconds:.1f} s" for seconds in timing.rebuilds) or "none logged"
                print(f"  of which the server's rebuilds: {built} (the rest: noticing the save, the browser's reload)")
    if not args.skip_tests:
        busy = machine_busy()
        suite = timed([sys.executable, "-m", "pytest", "-q"], ROOT, timeout=WAIT * 12)
        busy, cores = machine_busy() - busy, os.cpu_count()
        print(f"test suite (python -m pytest): {suite}   (goal: at most 720 s wall)", flush=True)
        print(
            f"  meanwhile the {cores} cores worked {busy:.0f} CPU-s, {busy / (cores * suite.wall):.0%} of the time they had:"
            f" this much work takes at least {busy / cores:.0f} s on them",
            flush=True,
        )
    print(f"after:  {load()}")


if __name__ == "__main__":
    main()
