"""Benchmark: the batched ``evaluate`` against the tutorial's per-prefix loop.

Both score the same text in the same run; the script prints microseconds per
scored prefix for each and their ratio (target: at least 50x).

    python scripts/bench.py [--repeats N] [--length-in-aab N]
"""

import argparse
import time

import bench_training  # noqa: E402  (scripts/ is on the path when this script runs)
import numpy as np

from handtf import MODEL, evaluate, gpt, tokenize


def per_prefix_accuracy(text):
    """The tutorial's loop, one forward pass per prefix.

    Unlike the tutorial it tokenizes only the last five characters, so the
    loop stays linear in the text and the ratio measures batching alone.
    """
    correct = 0
    for i in range(2, len(text) - 1):
        window = np.array(tokenize(text[max(i - 5, 0) : i]))
        correct += int(gpt(window, **MODEL)[-1].argmax()) == tokenize(text[i])[0]
    return correct


def best_time(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--length-in-aab", type=int, default=10_000)
    parser.add_argument("--no-training", action="store_true", help="skip the training runs (scripts/bench_training.py)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    if args.length_in_aab < 2:
        parser.error(f"--length-in-aab must be at least 2 (evaluate needs 4 characters), got {args.length_in_aab}")
    text = "aab" * args.length_in_aab
    n_prefixes = len(text) - 3

    batched_s, result = best_time(lambda: evaluate(text), args.repeats)
    loop_s, loop_correct = best_time(lambda: per_prefix_accuracy(text), 1)
    if not result.correct == loop_correct == n_prefixes:
        raise SystemExit(f"the two methods disagree: {result.correct} and {loop_correct} of {n_prefixes} correct")

    print(f"text: 'aab' * {args.length_in_aab} ({n_prefixes} prefixes scored, all correct)")
    print(f"per-prefix loop : {loop_s / n_prefixes * 1e6:8.2f} us per prefix")
    print(f"batched evaluate: {batched_s / n_prefixes * 1e6:8.2f} us per prefix")
    print(f"speed-up        : {loop_s / batched_s:8.1f}x (target >= 50x)")
    if not args.no_training:
        bench_training.main([])  # the two training runs: scripts/bench_training.py


if __name__ == "__main__":
    main()
