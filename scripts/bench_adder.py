"""The hand-set adder at 10 digits, checked as AdderBoard checks, then on 100,000 more random pairs.

    python scripts/bench_adder.py [--digits N] [--more M] [--seed S]

First AdderBoard's protocol (its ``verify.py``: 10 edge cases and 10,000
pairs from ``random.Random(2025)``, at least 99% to qualify), then ``M``
more pairs from ``random.Random(S)`` (default 100,000 from seed 2026), each
in float32 and float64, with the smallest logit margin over every digit
written. Exits 1 if an addition comes out wrong.
"""

import argparse
import random
import time

import numpy as np

from handtf import adder, verify_adder, verify_pairs


def report(title, result, seconds):
    print(result)
    worst = min(result.correct.values()) / result.pairs
    print(f"  {title}: {worst:.2%} right ({'qualifies' if worst >= 0.99 else 'does not qualify'} at 99%), "
          f"{seconds:.0f} s", flush=True)
    for a, b, written, dtype in result.failures:
        print(f"  wrong ({dtype}): {a} + {b} = {a + b}, the model wrote {written}")
    return result.passed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--digits", type=int, default=10)
    parser.add_argument("--more", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    model = adder(args.digits)
    print(model)
    start = time.time()
    passed = report("AdderBoard's protocol", verify_adder(model), time.time() - start)
    rng, top = random.Random(args.seed), 10**args.digits - 1
    pairs = np.array([(rng.randint(0, top), rng.randint(0, top)) for _ in range(args.more)]).reshape(-1, 2)
    start = time.time()
    more = verify_pairs(model, pairs[:, 0], pairs[:, 1], what=f"random pairs, seed {args.seed}")
    passed = report("more pairs", more, time.time() - start) and passed
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
