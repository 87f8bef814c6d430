"""The command line: ``python -m handtf`` (or ``handtf``)."""

import argparse
import errno
import io
import os
import signal
import sys

from . import adder as cli_adder, induction as cli_induction, train as cli_train, whole_number
from ..patterns.compiler import compile_pattern, describe
from ..model.evaluation import MAX_LEN, PATTERN, evaluate, verify
from ..model.inference import MAX_NEW_TOKENS, complete, context_window, explain_rows, format_explanation
from ..model.tokenizer import tokenize
from ..model.weights import N_CTX

DESCRIPTION = "A GPT-2-style transformer whose weights were set by hand to continue (aab)*."


def _context(text):
    """argparse type for a context: validated up front so errors read as one line."""
    try:
        context_window(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


_whole_number = whole_number


def _whole_number_in(low, high, high_name, low_words):
    """An argparse type: a whole number from ``low`` (``low_words`` says so) to ``high`` (``high_name``)."""

    def read(text):
        value = _whole_number(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low_words}, got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,} ({high_name}), got {value:,}")
        return value

    return read


_count = _whole_number_in(0, MAX_NEW_TOKENS, "MAX_NEW_TOKENS", "0 or more")
_max_len = _whole_number_in(2, MAX_LEN, "MAX_LEN", "at least 2 (the shortest valid context)")


def _text(text):
    try:
        tokenize(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if len(text) < 4:
        raise argparse.ArgumentTypeError(f"needs at least 4 characters to score one prediction, got {len(text)}")
    return text


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is one line on stderr and exit code 2 (no usage dump).

    ``--help`` writes with ``print`` so that a stdout that cannot take it
    raises, as any other output does (argparse itself ignores the error and
    exits 0, as if the help had been shown).
    """

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def print_help(self, file=None):
        print(self.format_help(), end="", file=file or sys.stdout)


MAX_LEN_HELP = f"longest context to check (default 30, at most {MAX_LEN:,})"


def build_parser():
    parser = _Parser(prog="handtf", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = commands.add_parser("complete", help="continue a context greedily")
    p.add_argument("context", type=_context, help="a string of a and b, e.g. aab")
    p.add_argument("-n", "--max-new-tokens", type=_count, default=10, help=f"how many characters to add (default 10, at most {MAX_NEW_TOKENS:,})")

    p = commands.add_parser("predict", help="the next character after a context")
    p.add_argument("context", type=_context, help="a string of a and b; the model sees its last 5 characters")
    p.add_argument("--explain", action="store_true", help="print the prediction of every position the model sees")

    p = commands.add_parser("evaluate", help="the tutorial's accuracy test on a text")
    p.add_argument("text", nargs="?", type=_text, default=PATTERN * 10, help="default: aab repeated 10 times")

    p = commands.add_parser("verify", help="check every valid (aab)* context up to a length")
    p.add_argument("--max-len", type=_max_len, default=30, help=MAX_LEN_HELP)
    p.add_argument("--pattern", help="check a model compiled for this pattern instead, e.g. abcab")

    p = commands.add_parser("compile", help="design GPT-2 weights for any repeating pattern and check them")
    p.add_argument("pattern", help="the characters to repeat, e.g. abcab")
    p.add_argument("--n-ctx", type=_whole_number, default=None, help="the context window (default: the k the pattern needs)")
    p.add_argument("--max-len", type=_max_len, default=30, help=MAX_LEN_HELP)

    cli_train.add_parser(commands)
    cli_induction.add_parser(commands, _whole_number)
    cli_adder.add_parser(commands, _whole_number)
    return parser


def _verify(max_len, model=None, heading=None):
    """Print ``heading`` (if any) and verify's result; return the exit code. Nothing is printed if verify refuses."""
    result = verify(max_len) if model is None else verify(max_len, model)
    if heading:
        print(heading)
    shortest = 2 if model is None else model.k
    print(f"checked {result.checked} contexts of length {shortest} to {max_len}: {result.correct} correct")
    print(f"smallest logit margin: {result.min_margin:g}")
    for context, expected in result.failures:
        print(f"wrong: {context} -> expected {expected}")
    return 0 if result.passed else 1


def run(args):
    """Carry out one parsed command; return its exit code."""
    if args.command == "complete":
        for piece in _completion(args.context, args.max_new_tokens):
            sys.stdout.write(piece)
            sys.stdout.flush()  # streamed: `complete -n 1000000 | head -c1` answers at once
        print()
    elif args.command == "predict":
        rows = explain_rows(args.context)  # one forward pass; its last row predicts the next character
        if args.explain:
            print(format_explanation(rows))
        p_a, p_b = rows[-1]["probs"]
        print(f"{rows[-1]['next']}  (p(a) = {p_a:.3f}, p(b) = {p_b:.3f})")
    elif args.command == "evaluate":
        result = evaluate(args.text)
        print(f"accuracy: {result.accuracy:.1%} ({result.correct} / {result.total})")
        if result.mistakes:
            print("mispredicted positions: " + ", ".join(map(str, result.mistakes)))
        return 0 if not result.mistakes else 1
    elif args.command == "verify" and args.pattern is None:
        return _verify(args.max_len)
    elif args.command in ("verify", "compile"):
        model = compile_pattern(args.pattern, n_ctx=getattr(args, "n_ctx", None))
        return _verify(args.max_len, model, describe(model) if args.command == "compile" else None)
    elif args.command == "train":
        return cli_train.run(args)
    elif args.command == "induction":
        return cli_induction.run(args)
    elif args.command in ("adder", "add"):
        return cli_adder.run(args)
    return 0


def _completion(context, n):
    """``complete(context, n)`` without the context, in pieces that grow from 16 characters: the first is out at once.

    The model sees only the last ``N_CTX`` characters, so each piece continues from them alone.
    """
    size = 16
    while n > 0:
        piece = complete(context[-N_CTX:], min(size, n))[len(context[-N_CTX:]) :]
        yield piece
        context, n, size = context[-N_CTX:] + piece, n - len(piece), min(2 * size, 65536)


def main(argv=None):
    """Parse, run, print; every failure is one line on stderr and a conventional exit code, never a traceback.

    A closed stdout (``| head -c1``) exits 141 (128 + SIGPIPE) in silence, a
    stdout that cannot be written (``> /dev/full``) 120 (what Python itself
    uses when the final flush fails), running out of memory 1, Ctrl-C 130.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C is KeyboardInterrupt again (see cli_start)
    _usable_streams()
    parser = build_parser()
    try:
        code = _parse_and_run(parser, argv)
        sys.stdout.flush()  # write now, while errors can still be caught
    except UnicodeError as error:  # not a bad argument: the terminal cannot show a character
        code = _quiet_stdout(120, f"cannot write the output: {error}")
    except (ValueError, TypeError) as error:  # a pattern the design cannot take, or a max_len below its k
        parser.error(str(error))
    except BrokenPipeError:
        code = _quiet_stdout(141)
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EIO, errno.EBADF):
            raise
        code = _quiet_stdout(120, f"cannot write the output: {os.strerror(error.errno)}")
    except MemoryError:
        code = _quiet_stdout(1, "out of memory; try a smaller -n or --max-len")
    except KeyboardInterrupt:
        code = _quiet_stdout(130)
    sys.exit(code)


def _parse_and_run(parser, argv):
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # after --help, or a usage error (already said on stderr)
        return done.code
    return run(args)


class _Closed(io.TextIOBase):
    """Stands for a closed stdout (``>&-``): every write fails as writing to a closed descriptor does."""

    def write(self, text):
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


class _Forgiving(io.TextIOBase):
    """Stands for stderr: a message that cannot be written (``2>/dev/full``, ``2>&-``) is dropped, not raised."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        try:
            return self.stream.write(text) if self.stream is not None else len(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self):
        try:
            self.stream is not None and self.stream.flush()
        except (OSError, ValueError):
            pass

    def isatty(self):
        try:
            return self.stream is not None and self.stream.isatty()
        except (OSError, ValueError):
            return False


def _usable_streams():
    """A closed stdout fails on write (exit 120); stderr never fails; characters the encoding lacks are escaped."""
    if sys.stdout is None:
        sys.stdout = _Closed()
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if not isinstance(sys.stderr, _Forgiving):
        sys.stderr = _Forgiving(sys.stderr)


def _quiet_stdout(code, message=None):
    """Point stdout at /dev/null (so the interpreter's last flush cannot fail), say ``message`` on stderr."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind stdout
        sys.stdout = io.StringIO()
    if message:
        print(f"handtf: error: {message}", file=sys.stderr)
    return code
