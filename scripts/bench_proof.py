"""How long the proof over every pair takes: the hand-set adder at several sizes, and the trained adder.

    python scripts/bench_proof.py [--digits N ...]

Prints each proof's result, its wall and CPU time, and the cases it
enumerated a second (``handtf.prove_adder``). The goal (issue 48): seconds at
10 digits. A speed goal lives here, never in a timed test.
"""

import argparse
import time

from handtf import adder, prove_adder, trained_adder


def timed(name, model):
    wall, cpu = time.perf_counter(), time.process_time()
    result = prove_adder(model)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(result)
    print(f"  {name}: {wall:.2f} s wall, {cpu:.2f} CPU-s, {result.cases / wall:,.0f} cases a second", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--digits", type=int, nargs="+", default=[2, 5, 10, 20])
    args = parser.parse_args()
    for n in args.digits:
        timed(f"adder({n})", adder(n))
    timed("trained_adder()", trained_adder())


if __name__ == "__main__":
    main()
