"""Benchmark: decoding with the key/value cache grows about linearly; the work that did not, before it.

    python scripts/bench_decoding.py [--repeats N] [--uncached]

Prints CPU seconds (best of ``--repeats``; on a shared machine the CPU time is
the run's own cost) of:

- ``adder(n).add`` and ``adder_steps`` at n = 85, 170 and 340 digits, and the
  ratio of each doubling: about 2 is linear in the digits (the prompt's one
  forward pass adds a little more);
- the same additions decoded without the cache (a full forward pass for every
  digit, the loop ``greedy_sums`` ran before, without the boundary's checks) at
  85 and 170 digits, and at 340 with ``--uncached`` (about half a minute);
- ``complete("a", N)`` on the hand-made model, with the cache (``gpt_step``)
  and with a full forward pass of the last ``n_ctx`` tokens a step: its window
  of 5 slides, so the cache saves little there and the ratio shows its cost;
- ``induction_rule`` on 10^5 and 10^6 characters: about 10 is linear.

``scripts/bench.py`` runs this too.
"""

import argparse
import random
import time

import numpy as np

from handtf import HAND_MADE, adder, adder_steps, complete, gpt, induction_rule, tokenize
from handtf.checks import checked


def cpu_seconds(function, repeats):
    """The least CPU time of ``repeats`` calls, and the last result."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        result = function()
        best = min(best, time.process_time() - start)
    return best, result


@checked  # inside the boundary, as handtf's own loops: the forward passes it runs are not checked again
def uncached_sum(model, a, b):
    """``a + b`` decoded the way greedy_sums did before the cache: a full forward pass for every digit."""
    ids = [model.chars.index(c) for c in model.prompt(a, b)]
    for _ in range(model.n_digits + 1):
        ids.append(int(gpt(np.array(ids), **model.weights, n_head=model.n_head)[-1].argmax()))
    return int("".join(model.chars[t] for t in reversed(ids[-(model.n_digits + 1):])))


@checked
def uncached_complete(context, n_new, model=HAND_MADE):
    """``complete`` as it was: a full forward pass of the last ``n_ctx`` tokens a step."""
    tokens = tokenize(context, model.chars)
    for _ in range(n_new):
        tokens.append(int(gpt(np.array(tokens[-model.n_ctx:]), **model.weights, n_head=model.n_head)[-1].argmax()))
    return context + "".join(model.chars[t] for t in tokens[len(context):])


def ratios(times):
    return ", ".join(f"{later / earlier:.1f}x" for earlier, later in zip(times, times[1:]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--uncached", action="store_true", help="also decode 340 digits without the cache (slow)")
    parser.add_argument("--new-tokens", type=int, default=20_000, help="tokens complete writes (default 20,000)")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.new_tokens < 1:
        parser.error("--repeats and --new-tokens must be at least 1")

    sizes = (85, 170, 340)
    add_s, steps_s, plain_s = [], [], []
    for n in sizes:
        model = adder(n)
        a, b = int("9" * n), int("1" + "0" * (n - 1)) + 1
        seconds, total = cpu_seconds(lambda: model.add(a, b), args.repeats)
        assert total == a + b
        add_s.append(seconds)
        seconds, steps = cpu_seconds(lambda: adder_steps(model, a, b), args.repeats)
        assert len(steps) == n + 1
        steps_s.append(seconds)
        if n < 340 or args.uncached:
            seconds, total = cpu_seconds(lambda: uncached_sum(model, a, b), 1)
            assert total == a + b
            plain_s.append(seconds)
    print("digits                 " + "".join(f"{n:>10}" for n in sizes) + "   ratio per doubling")
    print("adder(n).add           " + "".join(f"{s:9.3f}s" for s in add_s) + f"   {ratios(add_s)}")
    print("adder_steps            " + "".join(f"{s:9.3f}s" for s in steps_s) + f"   {ratios(steps_s)}")
    print("add without the cache  " + "".join(f"{s:9.3f}s" for s in plain_s) + f"   {ratios(plain_s)}"
          + ("" if args.uncached else "   (340: --uncached)"))

    n = args.new_tokens
    cached, text = cpu_seconds(lambda: complete("a", n), 1)
    plain, same = cpu_seconds(lambda: uncached_complete("a", n), 1)
    assert text == same
    print(f'complete("a", {n:_}): with the cache {cached / n * 1e6:.0f} us a token, '
          f"without {plain / n * 1e6:.0f} us (the cache's cost on a sliding window of 5: {cached / plain:.2f}x)")

    rng = random.Random(0)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(10**6))
    short, _ = cpu_seconds(lambda: induction_rule(text[: 10**5]), args.repeats)
    long, _ = cpu_seconds(lambda: induction_rule(text), args.repeats)
    print(f"induction_rule: 10^5 characters {short:.3f}s, 10^6 {long:.3f}s, ratio {long / short:.1f}x (10x is linear)")


if __name__ == "__main__":
    main()
