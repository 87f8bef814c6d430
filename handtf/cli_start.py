"""The first thing the command line does, before numpy is imported: Ctrl-C then exits 130 without a traceback."""

import signal
import sys


def quiet_interrupt():
    """Until :func:`handtf.cli.main` restores Python's handler, Ctrl-C (SIGINT) exits 130 in silence."""

    def interrupted(signum, frame):
        raise SystemExit(130)

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler and sys.platform != "emscripten":
        signal.signal(signal.SIGINT, interrupted)
