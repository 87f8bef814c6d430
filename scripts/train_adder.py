"""Train the hand-set adder's architecture from random weights, and check it the same way.

    python scripts/train_adder.py [--digits N] [--steps S] [--seed K] [--lr LR] [--every E] [--save PATH]

The model has the hand-set adder's shapes (one layer, two heads, 38 GELU
units, 16 columns, no layer norm) and starts from random weights;
``handtf.train_adder`` trains it with the package's backprop
(``loss_and_grads``) and Adam (``adam_step``) on fresh random additions. Every
``E`` steps the model is checked in float64 (every pair up to 3 digits, else
AdderBoard's protocol); at the end in float32 and float64. ``--save`` writes
the trained weights and the losses to an ``.npz`` file.
"""

import argparse
import time

import numpy as np

from handtf import verify_adder
from handtf.training.adder import train_adder
from handtf.trees import leaves


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--digits", type=int, default=2)
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--save", default=None)
    args = parser.parse_args()
    start, passes = time.time(), []

    def on_step(step, model):
        if step % args.every:
            return
        check = verify_adder(model, dtypes=(np.float64,))
        if check.passed:
            passes.append(step)
        print(f"step {step}: {check.correct['float64'] / check.pairs:.2%} of {check.pairs:,} right, "
              f"{time.time() - start:.0f} s", flush=True)

    result = train_adder(args.digits, steps=args.steps, seed=args.seed, lr=args.lr, on_step=on_step)
    print("losses every 100 steps:", np.round(result.losses[::100], 4).tolist())
    print(verify_adder(result.model))
    print(f"steps at which every check passed: {passes}")
    if args.save:
        np.savez(args.save, losses=result.losses, **{str(i): a for i, a in enumerate(leaves(result.model.weights))})


if __name__ == "__main__":
    main()
