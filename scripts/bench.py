"""Benchmarks: the batched ``evaluate`` against the tutorial's per-prefix loop, and generation.

Both evaluations score the same text in the same run; the script prints
microseconds per scored prefix for each and their ratio (target: at least
50x). Then it times ``complete("a", 100_000)`` and ``greedy_search`` over
40,000 steps, each next to a run ten times shorter: both are linear in the
number of new tokens, so the time per token of the two runs should agree
(the ratio printed should be near 1, not near 10).

It also times the cube inside ``gelu``: ``x * x * x`` against numpy's ``x**3``,
a general power (the ratio printed is how many times slower ``**`` is).

Then it runs ``scripts/bench_decoding.py`` (the key/value cache: the adder at
85, 170 and 340 digits and the ratio of each doubling, ``complete`` with and
without the cache, ``induction_rule`` at 10^5 and 10^6 characters), and last
``scripts/bench_training.py``, the two training runs (skip them with
``--no-training``).

    python scripts/bench.py [--repeats N] [--length-in-aab N] [--new-tokens N] [--no-training]
"""

import argparse
import time

import numpy as np

import bench_decoding  # scripts/bench_decoding.py: scripts/ is on the path when this script runs
import bench_training  # scripts/bench_training.py

from handtf import MODEL, complete, evaluate, gpt, greedy_search, tokenize


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
    parser.add_argument("--new-tokens", type=int, default=100_000, help="tokens complete generates (default 100,000)")
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

    n = args.new_tokens
    short_s, _ = best_time(lambda: complete("a", n // 10), 1)
    long_s, text = best_time(lambda: complete("a", n), 1)
    if text != ("a" + "baa" * n)[: n + 1]:
        raise SystemExit("complete did not continue (aab)*")
    print(f'complete("a", {n:_}): {long_s:8.2f} s ({long_s / n * 1e6:.0f} us per token; '
          f"{n // 10:_} tokens: {short_s / (n // 10) * 1e6:.0f} us per token, ratio {long_s / n / (short_s / (n // 10)):.2f})")

    log_probs = np.log([0.6, 0.4])  # a fixed next-token distribution: the cost is the search's own
    short_s, _ = best_time(lambda: greedy_search(lambda tokens: log_probs, [0], 4_000), 1)
    long_s, (tokens, _) = best_time(lambda: greedy_search(lambda tokens: log_probs, [0], 40_000), 1)
    assert tokens == [0] * 40_001
    print(f"greedy_search, 40_000 steps: {long_s:8.2f} s ({long_s / 40_000 * 1e6:.0f} us per step; "
          f"4_000 steps: {short_s / 4_000 * 1e6:.0f} us per step, ratio {long_s / 40_000 / (short_s / 4_000):.2f})")

    x = np.random.default_rng(0).normal(0, 3, 1_000_000)
    power_s, by_power = best_time(lambda: x**3, args.repeats)
    product_s, by_product = best_time(lambda: x * x * x, args.repeats)
    assert np.allclose(by_power, by_product, rtol=1e-15, atol=0)
    print(f"gelu's cube on 10^6 floats: x * x * x {product_s * 1e3:.1f} ms, x**3 {power_s * 1e3:.1f} ms "
          f"(** is {power_s / product_s:.0f}x slower)")

    bench_decoding.main(["--repeats", str(args.repeats)])  # the key/value cache: scripts/bench_decoding.py
    if not args.no_training:
        bench_training.main([])  # the two training runs: scripts/bench_training.py


if __name__ == "__main__":
    main()
