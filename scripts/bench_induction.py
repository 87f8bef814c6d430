"""Does training find the induction head? Seeds, CPU time per run and the exhaustive check of each.

    python scripts/bench_induction.py [--seeds N] [--steps S]

Each run trains a two-layer, attention-only model of the hand-set shape
(``handtf.train_induction``) and checks it on every sequence
(``handtf.verify_induction``). The goal: at most a minute of CPU per run;
the last line prints the ratio to that budget.
"""

import argparse
import time

from handtf import train_induction, verify_induction

BUDGET = 60.0  # seconds of CPU per run (issue 29)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    passed, slowest = 0, 0.0
    for seed in range(args.seeds):
        start = time.process_time()
        result = train_induction(steps=args.steps, seed=seed)
        seconds = time.process_time() - start
        check = verify_induction(result.model)
        slowest = max(slowest, seconds)
        passed += check.passed
        print(f"seed {seed}: train {seconds:.1f} s CPU, final loss {result.losses[-1]:.4f}, "
              f"{min(check.correct.values()):,} of {check.covered:,} right, "
              f"smallest margin {min(check.min_margin.values()):.2f}", flush=True)
    print(f"{passed} of {args.seeds} seeds pass the exhaustive check after {args.steps} steps")
    print(f"slowest run: {slowest:.1f} s CPU = {slowest / BUDGET:.2f} of the {BUDGET:.0f} s budget")


if __name__ == "__main__":
    main()
