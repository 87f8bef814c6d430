"""What runs where: the README's commands are the ones every CI place runs.

Three places run the tests: ``.ci/run`` (a clean clone on the project's own
machine), ``.github/workflows/test.yml`` (every push and pull request, and the
release deploy, which calls it before it publishes) and the deploy itself
(``deploy.yml``). They must run exactly the commands README.md gives, so the
README, the workflows and ``.ci/run`` cannot drift apart.
"""

import functools
import os
import re
import socket
import struct
import subprocess
import sys
import textwrap
import threading
from http.server import ThreadingHTTPServer

import pytest
import yaml

import failure_screenshots
from browsing import PREFIX, SiteServer, SubPathHandler
from pages import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"


def readme_command(heading):
    """The one command in the ```bash block under README.md's ``## heading``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(rf"## {re.escape(heading)}\n[^#]*?```bash\n(.+?)\n```", readme, re.DOTALL)[1].strip()


TEST_COMMAND = readme_command("Run the tests")
SITE_INSTALL = readme_command("Read the site locally").split(" && .venv/bin/mkdocs serve")[0]  # its install, no server


def workflow(name):
    """A workflow as data; YAML 1.1 reads the key ``on`` as True, so it is put back."""
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps(job):
    return job.get("steps", [])


def runs(job):
    return [step.get("run", "") for step in steps(job)]


def test_ci_run_runs_the_readme_test_command():
    assert TEST_COMMAND.endswith(".venv/bin/python -m pytest"), TEST_COMMAND
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_push_and_pull_request_runs_the_readme_tests_under_ci():
    flow = workflow("test.yml")
    assert {"push", "pull_request", "workflow_call"} <= set(flow["on"])
    assert flow["permissions"] == {"contents": "read"}, "least privilege: the tests only read the repository"
    assert flow["concurrency"]["cancel-in-progress"] is True
    assert "github.ref" in flow["concurrency"]["group"], "one run per branch at a time"
    (job,) = flow["jobs"].values()
    assert job["container"].startswith("python:3.11-bookworm"), "the Debian of .ci/run and the deploy"
    (test_step,) = [step for step in steps(job) if TEST_COMMAND in step.get("run", "")]
    assert test_step["env"]["CI"] == "true", "under CI a missing browser or pdftotext fails instead of skipping"
    installs = " ".join(runs(job)[: steps(job).index(test_step)])
    for tool in ("chromium", "fonts-wqy-microhei", "fonts-noto-cjk", "poppler-utils", *BOOK_FONTS):
        assert tool in installs, f"{tool} must be installed before the tests (README, 'Run the tests')"


BOOK_FONTS = ("fonts-liberation", "fonts-dejavu-core", "fonts-lxgw-wenkai")  # scripts/build_pdf.py's PRINT_FONTS


def test_the_books_fonts_are_installed_everywhere_they_print():
    """The faces the books are set in (and only those: build_pdf.font_config) are installed by
    README's apt line, .ci/run, the test workflow and the deploy, which prints the books."""
    text = (ROOT / "scripts" / "build_pdf.py").read_text(encoding="utf-8")
    named = set(re.findall(r'^    "(fonts-[a-z0-9-]+)": \[', text, re.MULTILINE))
    assert named == set(BOOK_FONTS), named
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    apt = re.search(r"`apt-get install ([^`]+)`", readme)[1].split()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    deploy = " ".join(" ".join(runs(job)) for job in workflow("deploy.yml")["jobs"].values() if "steps" in job)
    for package in BOOK_FONTS:
        assert package in apt, f"README's apt-get line does not install {package}"
        assert package in ci, f".ci/run does not install {package}"
        assert package in deploy, f"the deploy, which prints the books, does not install {package}"


def test_pip_downloads_are_cached_on_the_pins():
    (job,) = workflow("test.yml")["jobs"].values()
    (cache,) = [step for step in steps(job) if step.get("uses", "").startswith("actions/cache@")]
    assert "constraints.txt" in cache["with"]["key"] and cache["with"]["path"] == "~/.cache/pip"


def test_a_failing_browser_test_uploads_its_screenshots():
    (job,) = workflow("test.yml")["jobs"].values()
    (test_step,) = [step for step in steps(job) if TEST_COMMAND in step.get("run", "")]
    folder = test_step["env"]["HANDTF_FAILURE_SCREENSHOTS"]
    (upload,) = [step for step in steps(job) if step.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["if"] == "failure()" and upload["with"]["path"].rstrip("/") == folder.rstrip("/")


def test_the_deploy_publishes_only_after_the_tests_passed():
    flow = workflow("deploy.yml")
    assert flow["on"]["push"]["tags"] == ["v*.*.*"]
    assert flow["permissions"] == {"contents": "read"}, "only the deploy job may write"
    test_job = flow["jobs"]["test"]
    assert test_job["uses"] == "./.github/workflows/test.yml", "the deploy reuses the test workflow, not a copy of it"
    deploy = flow["jobs"]["deploy"]
    assert deploy["needs"] == "test" and deploy["permissions"] == {"contents": "write"}
    commands = runs(deploy)
    assert not any("pytest" in run for run in commands), "the tests ran in the job 'test'"
    installed = [i for i, run in enumerate(commands) if run.strip() == SITE_INSTALL]
    pdf = [i for i, run in enumerate(commands) if "scripts/build_pdf.py --out" in run]
    pushed = [i for i, run in enumerate(commands) if "scripts/deploy.py --push" in run]
    assert installed and pdf and pushed and installed[0] < pdf[0] < pushed[0], commands
    books = [line for line in commands[pdf[0]].splitlines() if "scripts/build_pdf.py" in line]
    assert all("--site-url" in line for line in books), "the cover must name the published address, not a local one"
    assert any("--no-solutions" in line for line in books) and any("--no-solutions" not in line for line in books)
    # the site is built once, before both editions, which print that build (--site)
    built = [line for line in commands[pdf[0]].splitlines() if "mkdocs build --strict --site-dir" in line]
    assert len(built) == 1, commands[pdf[0]]
    folder = built[0].split("--site-dir", 1)[1].split()[0]
    assert all(f"--site {folder} " in line for line in books), (folder, books)
    assert commands[pdf[0]].index(built[0]) < commands[pdf[0]].index(books[0])


def test_the_readme_says_what_runs_where():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for place in (".github/workflows/test.yml", ".github/workflows/deploy.yml", ".ci/run"):
        assert place in readme, f"README.md does not say what {place} runs"
    assert "python scripts/deploy.py" in readme and "python scripts/build_pdf.py --out" in readme


def test_failure_screenshots_are_kept_for_failing_tests_only(tmp_path):
    """Run two tests that each leave a picture; only the failing one's is kept."""
    (tmp_path / "test_inner.py").write_text(textwrap.dedent("""
        import failure_screenshots

        def leave_a_picture():
            where = failure_screenshots.folder()
            where.mkdir(parents=True, exist_ok=True)
            (where / "00-page.png").write_bytes(b"png")

        def test_passes():
            leave_a_picture()

        def test_fails():
            leave_a_picture()
            assert False
    """))
    shots = tmp_path / "shots"
    env = {**os.environ, "HANDTF_FAILURE_SCREENSHOTS": str(shots), "PYTHONPATH": os.path.dirname(failure_screenshots.__file__)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "failure_screenshots", "-o", "addopts=", "-c", os.devnull, str(tmp_path / "test_inner.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert "1 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    kept = sorted(p.relative_to(shots).as_posix() for p in shots.rglob("*.png"))
    assert len(kept) == 1 and "test_fails" in kept[0] and "test_passes" not in kept[0], kept


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_fast_lane_leaves_out_the_slow_tests_and_says_which(tmp_path, workers):
    """A test that needs the browser (here a stand-in fixture of that name) is marked slow by
    tests/conftest.py, ``-m "not slow"`` leaves it out, and the run's last lines say so, with
    pytest-xdist's workers too."""
    (tmp_path / "test_inner.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.fixture
        def browser():
            raise AssertionError("a slow fixture was set up in the fast lane")

        def test_fast():
            pass

        def test_needs_the_browser(browser):
            pass
    """))
    tests = os.path.dirname(failure_screenshots.__file__)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest", "-o", "addopts=", "-c", os.devnull,
         "-o", "markers=slow: as in pyproject.toml", "-n", workers, "-m", "not slow", str(tmp_path / "test_inner.py")],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": tests}, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr  # xdist counts no deselected
    assert "1 slow tests left out, in 1 files:\n  test_inner.py: 1 needs Chromium" in done.stdout, done.stdout


def test_each_file_the_order_names_exists():
    """tests/conftest.py starts these files first, longest first: a renamed or removed file
    would silently drop to the end of the run, where one worker could be left alone with it."""
    from conftest import LONG_FILES

    missing = [path for path in LONG_FILES if not (ROOT / path).is_file()]
    assert not missing, f"LONG_FILES in tests/conftest.py names files that do not exist: {missing}"
    assert list(LONG_FILES.values()) == sorted(LONG_FILES.values(), reverse=True), "keep LONG_FILES longest first"


@pytest.mark.parametrize("quiet", [True, False])
def test_a_page_closed_mid_answer_prints_no_traceback(tmp_path, capsys, quiet):
    """The test server (browsing.SiteServer) says nothing when the browser hangs up while it
    answers; socketserver's own server prints the traceback, which is what this test would see."""
    (tmp_path / "big.bin").write_bytes(b"x" * 8_000_000)  # more than the socket buffers hold
    server_class = SiteServer if quiet else ThreadingHTTPServer
    server = server_class(("127.0.0.1", 0), functools.partial(SubPathHandler, directory=str(tmp_path)))

    def hang_up():
        client = socket.create_connection(server.server_address)
        client.sendall(f"GET {PREFIX}big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        client.recv(1024)  # the answer has started
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset: the page is gone

    browser = threading.Thread(target=hang_up)
    browser.start()
    request, address = server.get_request()
    server.process_request_thread(request, address)  # answered here, in this thread: what it prints is seen below
    browser.join(timeout=30)
    server.server_close()
    said = capsys.readouterr().err
    if quiet:
        assert said == "", said
    else:
        assert "Traceback" in said and ("BrokenPipeError" in said or "ConnectionResetError" in said), said
