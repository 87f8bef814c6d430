"""Train the hand-set adder's architecture from random weights, and check it the same way.

    python scripts/train_adder.py [--digits N] [--steps S] [--seed K] [--batch B] [--lr LR] [--warmup W]
                                  [--cooldown C] [--full-length] [--every E] [--save PATH]

The model has the hand-set adder's shapes (one layer, two heads, 38 GELU
units, 16 columns, no layer norm) and starts from random weights;
``handtf.training.adder.train_adder`` trains it with the package's backprop
(``loss_and_grads``) and Adam (``adam_step``) on fresh random additions,
their numbers of mixed lengths unless ``--full-length``. The defaults (10
digits, seed 0, batches of 64, lr 0.02, warmup 250) with ``--steps 24000
--cooldown 8000`` are the run of the page "A GPT-2 that adds, by hand",
whose last weights are ``handtf/training/data/adder-trained.npz``
(``handtf.trained_adder()``). Every
``E`` steps the model is checked in float64 (every pair up to 3 digits, else
AdderBoard's protocol); at the end in float32 and float64. ``--save`` writes
the trained weights and the losses to an ``.npz`` file at the end, and the
weights of the best check so far to ``PATH`` with ``.best`` before ``.npz``.
"""

import argparse
import time

import numpy as np

from handtf import verify_adder
from handtf.training.adder import train_adder
from handtf.trees import leaves


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--digits", type=int, default=10)
    parser.add_argument("--steps", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--warmup", type=int, default=250)
    parser.add_argument("--cooldown", type=int, default=0)
    parser.add_argument("--full-length", action="store_true", help="every number n_digits long (mixed=False)")
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--save", default=None)
    args = parser.parse_args()
    start, passes, best = time.time(), [], [-1]

    def save(path, model, **extra):
        np.savez(path, **extra, **{str(i): a for i, a in enumerate(leaves(model.weights))})

    def on_step(step, model):
        if step % args.every:
            return
        check = verify_adder(model, dtypes=(np.float64,))
        right = check.correct["float64"]
        if check.passed:
            passes.append(step)
        if args.save and right > best[0]:
            best[0] = right
            save(args.save.removesuffix(".npz") + ".best.npz", model, step=step)
        print(f"step {step}: {right} of {check.pairs} right, smallest margin {check.min_margin['float64']:.3g}, "
              f"{time.time() - start:.0f} s; wrong: {list(check.failures[:3])}", flush=True)

    result = train_adder(args.digits, steps=args.steps, seed=args.seed, batch=args.batch, lr=args.lr,
                         warmup=args.warmup, cooldown=args.cooldown, mixed=not args.full_length, on_step=on_step)
    print("losses every 100 steps:", np.round(result.losses[::100], 4).tolist())
    print(verify_adder(result.model))
    print(f"steps at which every check passed: {passes}")
    if args.save:
        save(args.save, result.model, losses=result.losses, step=args.steps)


if __name__ == "__main__":
    main()
