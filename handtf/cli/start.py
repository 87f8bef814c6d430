"""The first thing the command line does, before numpy is imported: Ctrl-C then exits 130 without a traceback."""

import os
import signal
import sys


def starting_command_line():
    """True while ``python -m handtf`` or the ``handtf`` script imports the package."""
    args = getattr(sys, "orig_argv", [])
    if "-m" in args:
        return args[args.index("-m") + 1 : args.index("-m") + 2] == ["handtf"]
    return os.path.basename(sys.argv[0] if sys.argv else "") in ("handtf", "handtf.exe")


def quiet_interrupt(force=False):
    """When the command line starts (or ``force``), Ctrl-C exits 130 in silence until :func:`handtf.cli.main.main` restores Python's handler."""

    def interrupted(signum, frame):
        raise SystemExit(130)

    if (force or starting_command_line()) and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupted)
