"""Benchmark: the two training runs, timed (goal: each well under a minute on 2 cores).

    python scripts/bench_training.py [--seeds N]

Prints the wall-clock time and steps per second of ``train("aab")`` (the
hand-made architecture, 400 steps) and of ``train_seq2seq("reverse")`` (the
encoder-decoder, 1000 steps), with what each run reached. ``--seeds N`` also
trains the hand-made architecture from seeds 0..N-1, with one head and with
two, and prints how many reach 100% and after how many steps.
``scripts/bench.py`` runs this too.
"""

import argparse
import os
import statistics
import time

from handtf.seq2seq.training import exact_match, train_seq2seq
from handtf.training.trainer import train

GOAL_S = 60


def timed(function):
    """Wall-clock and CPU seconds of one call: on a shared, loaded machine the CPU time is the run's own cost."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return (time.perf_counter() - wall, time.process_time() - cpu), result


def report(name, steps, seconds, reached):
    wall, cpu = seconds
    verdict = "well under" if wall < GOAL_S / 2 else "under" if wall < GOAL_S else "OVER"
    print(f"{name}: {steps} steps in {wall:6.1f} s wall, {cpu:6.1f} s CPU "
          f"({steps / wall:7.1f} steps/s; {verdict} {GOAL_S} s); {reached}")
    print(f"{'':34}  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def seeds_report(n_seeds):
    for n_head in (1, 2):
        runs = [train("aab", steps=400, seed=s, n_head=n_head) for s in range(n_seeds)]
        solved = sorted(r.solved_at for r in runs if r.solved)
        failed = [s for s, r in enumerate(runs) if not r.solved]
        steps = f"median {statistics.median(solved):g}, max {max(solved)} steps to 100%" if solved else "none solved"
        print(f"  {n_head} head(s): {len(solved)} / {n_seeds} seeds reach 100% ({steps}); failing seeds: {failed}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=0, help="also report success over this many seeds")
    args = parser.parse_args(argv)
    seconds, result = timed(lambda: train("aab", steps=400, seed=0))
    report("train('aab'), hand-made shape    ", 400, seconds, f"100% from step {result.solved_at}" if result.solved else "not solved")
    seconds, result = timed(lambda: train_seq2seq("reverse", steps=1000, seed=0))
    greedy, beam = exact_match(result), exact_match(result, beam_width=4)
    report("train_seq2seq('reverse')         ", 1000, seconds, f"exact match greedy {greedy:.0%}, beam {beam:.0%}")
    if args.seeds:
        print(f"success over {args.seeds} seeds (400 steps each):")
        seeds_report(args.seeds)


if __name__ == "__main__":
    main()
