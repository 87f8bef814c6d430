"""Slow checks that run beside the other tests.

A ``Job`` is work named after the session fixture that returns its result.
When collection finds a selected test that asks for that fixture (directly or
through another fixture), tests/conftest.py starts the job in a thread of its
own, after the session's site is built if the job needs the site, and runs the
tests that ask for it last. So Chromium prints the PDFs, ``mike`` deploys,
Jupyter runs the notebooks and matplotlib redraws the figures, each mostly in
a process of its own, while the unit tests, doctests and browser tests run.

    PDFS = Job("pdfs", print_books, needs_site=True)   # print_books(site, folder)

    @pytest.fixture(scope="session")
    def pdfs():
        return PDFS.result()

The work gets a fresh temporary folder, removed at the end of the session;
what it returns is the fixture's value, and an exception it raises fails
every test that asks for it. ``Job.run`` is ``subprocess.run`` for the work,
with its process killed if the session ends first.
"""

import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

JOBS = {}  # fixture name -> Job
ONE_AT_A_TIME = threading.Lock()  # the jobs that need the site: one beside the tests, on a 2-core machine
TIMEOUT = 1800  # seconds: the longest a job may take on a loaded machine
BUILD = None  # the session's site build (tests/conftest.py sets it): .wait() -> exit code, .folder


class Job:
    def __init__(self, name, work, needs_site=False):
        self.name, self.work, self.needs_site = name, work, needs_site
        self.thread = self.value = self.error = None
        self.folder = None
        self.processes = []
        JOBS[name] = self

    def start(self):
        if self.thread is None:
            self.folder = Path(tempfile.mkdtemp(prefix=f"handtf-{self.name}-"))
            self.thread = threading.Thread(target=self._work, name=self.name, daemon=True)
            self.thread.start()

    def _work(self):
        try:
            if self.needs_site:
                if BUILD.wait() != 0:
                    raise RuntimeError("the site's build failed: see the error of the built_site fixture")
                with ONE_AT_A_TIME:
                    self.value = self.work(BUILD.folder / "site", self.folder)
            else:
                self.value = self.work(self.folder)
        except BaseException as error:  # noqa: BLE001  (handed to the tests, which report it)
            self.error = error

    def result(self):
        """What the work returned, once it has ended; raises what it raised."""
        self.start()
        self.thread.join(TIMEOUT)
        if self.thread.is_alive():
            self.stop()
            raise TimeoutError(f"the background job {self.name!r} took more than {TIMEOUT} s")
        if self.error is not None:
            raise self.error
        return self.value

    def run(self, command, **options):
        """``subprocess.run(command, capture_output=True, text=True, **options)``, stoppable."""
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options)
        self.processes.append(process)
        stdout, stderr = process.communicate()
        return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)

    def stop(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
