"""``python -m handtf train``: train the hand-made architecture on a pattern, or the encoder-decoder on a task.

    handtf train [PATTERN] [--steps N] [--seed S] [--heads H]
    handtf train --task {copy,reverse} [--steps N] [--seed S]

A progress line (on stderr) counts the steps and shows the loss; the final
figures go to stdout.
"""

import argparse
import sys

from ..model.evaluation import verify
from ..seq2seq.training import TASKS, exact_match, train_seq2seq
from ..model.tokenizer import CHARS
from ..training.trainer import train

MAX_STEPS = 100_000  # a bound that keeps a typo from running for hours


def _pattern(text):
    if len(text) < 2 or set(text) - set(CHARS):
        raise argparse.ArgumentTypeError(f"a pattern is 2 or more of the characters {', '.join(CHARS)}, got {text!r}")
    return text


def _bounded(low, high):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {value}")
        return value

    return parse


def add_parser(commands):
    """Add the ``train`` command to the command line's subparsers."""
    p = commands.add_parser("train", help="train the hand-made architecture (or the encoder-decoder) from random weights")
    p.add_argument("pattern", nargs="?", type=_pattern, default="aab", help="the pattern to learn (default aab)")
    p.add_argument("--task", choices=TASKS, help="train the encoder-decoder on this task instead")
    p.add_argument("--steps", type=_bounded(1, MAX_STEPS), help="Adam steps (default 400, or 1000 with --task)")
    p.add_argument("--seed", type=_bounded(0, 2**32 - 1), default=0, help="seed of the random weights (default 0)")
    p.add_argument("--heads", type=int, choices=(1, 2, 4, 8), default=1, help="attention heads (default 1)")


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
        return _run_task(args)
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
