"""``python -m handtf train``: train the hand-made architecture on a pattern, or the encoder-decoder on a task.

    handtf train [PATTERN] [--steps N] [--seed S] [--heads H]
    handtf train --task {copy,reverse} [--steps N] [--seed S]

A progress line (on stderr) counts the steps and shows the loss; the final
figures go to stdout.
"""

import argparse
import sys

from ..checks import MAX_STEPS, check_int_range, check_steps
from ..model.evaluation import verify
from . import whole_number
from ..seq2seq.training import TASKS, exact_match, train_seq2seq
from ..training.trainer import check_pattern_windows, train
from ..model.weights import N_CTX


def _read(reader):
    """An argparse type: a whole number, read by the package's own ``reader`` (the same bounds, the same words)."""

    def parse(text):
        value = whole_number(text)
        try:
            return reader(value)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def _pattern(text):
    try:
        check_pattern_windows(text, N_CTX)
    except (ValueError, TypeError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_parser(commands):
    """Add the ``train`` command to the command line's subparsers."""
    p = commands.add_parser("train", help="train the hand-made architecture (or the encoder-decoder) from random weights")
    p.add_argument("pattern", nargs="?", type=_pattern, help="the pattern to learn (default aab; not with --task)")
    p.add_argument("--task", choices=TASKS, help="train the encoder-decoder on this task instead")
    p.add_argument("--steps", type=_read(lambda n: check_steps("steps", n)),
                   help=f"Adam steps (default 400, or 1000 with --task; at most {MAX_STEPS:,})")
    p.add_argument("--seed", type=_read(lambda n: check_int_range("seed", n, 0, 2**32 - 1)), default=0,
                   help="seed of the random weights (default 0)")
    p.add_argument("--heads", type=int, choices=(1, 2, 4, 8), help="attention heads (default 1; not with --task)")


class _Progress:
    """``step 120/400  loss 0.1234`` on one line of stderr, rewritten in place on a terminal."""

    def __init__(self, steps, stream=None):
        stream = stream or sys.stderr
        self.steps, self.stream, self.live = steps, stream, stream.isatty()
        self.every = 1 if self.live else max(1, steps // 10)  # a log file gets ten lines
        self.start = "\r" if self.live else ""

    def __call__(self, step, loss):
        if step % self.every == 0 or step == self.steps:
            end = "" if self.live and step < self.steps else "\n"
            self.stream.write(f"{self.start}step {step}/{self.steps}  loss {loss:.4f}{end}")
            self.stream.flush()


def run(args):
    """Carry out ``handtf train``; return the exit code (0 if the model learned its task, else 1)."""
    if args.task is not None:
        given = [option for option, value in (("a pattern", args.pattern), ("--heads", args.heads)) if value is not None]
        if given:  # the encoder-decoder has neither: refused, not ignored
            raise ValueError(f"--task trains the encoder-decoder: leave out {' and '.join(given)} (for the hand-made architecture only)")
        return _run_task(args)
    args.pattern, args.heads = args.pattern or "aab", args.heads or 1
    steps = args.steps or 400
    result = train(args.pattern, steps=steps, seed=args.seed, n_head=args.heads, progress=_Progress(steps))
    print(f"trained {steps} steps from seed {args.seed}, {args.heads} head(s): final loss {result.losses[-1]:.4f}")
    if result.solved:
        print(f"right on every determined context from step {result.solved_at} on")
    else:
        print("not right on every determined context")
    print(f"smallest margin: {result.min_margin:.3g}")
    if args.pattern == "aab" and args.heads == 1:  # the hand-made model's own check runs the trained weights too
        checked = verify(30, model=result.weights)
        print(f"verify: {checked.correct} / {checked.checked} contexts of length 2 to 30 correct")
    return 0 if result.solved else 1


def _run_task(args):
    steps = args.steps or 1000
    result = train_seq2seq(args.task, steps=steps, seed=args.seed, progress=_Progress(steps))
    print(f"trained the encoder-decoder on {args.task} for {steps} steps from seed {args.seed}")
    greedy, beam = exact_match(result), exact_match(result, beam_width=4)
    n = len(result.test_src)
    print(f"exact match on {n} held-out sequences: greedy {greedy:.1%}, beam (width 4) {beam:.1%}")
    return 0 if min(greedy, beam) >= 0.99 else 1
