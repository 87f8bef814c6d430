"""The hand-set adder's architecture trained from random weights, with the package's backprop and Adam.

:func:`train_adder` is the page's comparison: the same one layer, two heads,
38 GELU units and 16 columns as :func:`handtf.adder`, every weight drawn at
random, trained on fresh random additions by :func:`handtf.loss_and_grads` and
the one Adam step of :mod:`handtf.training.optimiser`.
"""

from dataclasses import dataclass

import numpy as np

from ..checks import check_callable, check_int_range, check_positive, check_seed, check_steps, checked
from ..model.weights import as_dtype
from ..patterns.addition import CHARS, LABELS, N_HEAD, Adder, adder, check_n_digits, encode
from ..trees import ByValue, leaves
from .backprop import loss_and_grads
from .optimiser import adam_moments, adam_step, learning_rate


@dataclass(frozen=True, eq=False)
class AdderTraining(ByValue):
    """A model of the hand-set adder's shape, trained from random weights (:func:`train_adder`)."""

    model: Adder  # the trained weights, in the hand-set model's layout
    losses: np.ndarray  # [steps] the batch loss before each step


@checked
# --8<-- [start:train_adder]
def train_adder(n_digits=10, steps=1000, seed=0, batch=64, lr=0.02,
                warmup=250, cooldown=0, mixed=True, std=0.2, on_step=None):
    """Train a GPT-2 of the hand-set adder's shape (one layer, two heads,
    38 GELU units, 16 columns) from random weights, with the package's
    backprop and Adam, on fresh random additions at every step.

    The learning rate follows the Transformer paper's schedule (Vaswani
    et al., 2017): it rises to ``lr`` over ``warmup`` steps, then falls as
    ``1/sqrt(step)``, and over the last ``cooldown`` steps linearly
    towards 0. With ``mixed``, each
    number has a random length of 1 to ``n_digits`` digits (padded with 0s
    like any other): short sums show where the digits of a column sit.
    ``on_step(step, model)``, if given, runs after each step.

    >>> result = train_adder(n_digits=2, steps=5, seed=0)
    >>> result.losses.shape, result.model.n_embd
    ((5,), 16)
    """
    shapes = adder(n_digits).weights  # the hand-set model: only its shapes
    rng = np.random.default_rng(seed)
    weights = as_dtype(shapes, np.float64)
    for array in leaves(weights):  # every weight random, every bias 0
        array[...] = rng.normal(0, std, array.shape) if array.ndim == 2 else 0
    model = Adder(chars=CHARS, n_digits=n_digits, n_head=N_HEAD,
                  weights=weights, embed_labels=LABELS)
    params = leaves(weights)
    moments = adam_moments(params)
    losses = []
    for step in range(1, steps + 1):
        # 10 ** the length of each number: random (mixed), or n_digits
        top = (10 ** rng.integers(1, n_digits + 1, (2, batch)) if mixed
               else 10**n_digits)
        a, b = rng.integers(0, top, (2, batch))  # [batch] each
        prompts, answers = encode(model, a, b)
        text = np.concatenate([prompts, answers], axis=1)  # [batch, n_ctx + 1]
        loss, grads = loss_and_grads(weights, text[:, :-1], text[:, 1:],
                                     n_head=N_HEAD)
        losses.append(loss)
        # the Transformer paper's schedule (Vaswani et al., 2017), lr at
        # step warmup; then down towards 0
        rate = learning_rate(step, 1, warmup, factor=lr * warmup**0.5)
        rate *= min(1, (steps - step + 1) / (cooldown + 1))
        adam_step(params, leaves(grads), moments, step, rate)
        if on_step:
            on_step(step, model)
    return AdderTraining(model=model, losses=np.array(losses))
# --8<-- [end:train_adder]


TRAINED = "data/adder-trained.npz"  # beside this module: scripts/train_adder.py --steps 24000 --cooldown 8000 --save


def trained_adder():
    """The 10-digit adder trained from random weights that the adder page shows, in the hand-set layout.

    ``scripts/train_adder.py --steps 24000 --cooldown 8000`` (seed 0) wrote its
    weights at the last step; they ship with the package.

    >>> model = trained_adder()
    >>> model.add(9_876_543_210, 1_234_567_899)
    11111111109
    """
    from importlib.resources import files

    model = adder(10)
    with files(__package__).joinpath(TRAINED).open("rb") as file, np.load(file) as saved:
        arrays = [saved[str(i)] for i in range(len(leaves(model.weights)))]
    weights = as_dtype(model.weights, np.float64)
    for array, stored in zip(leaves(weights), arrays):
        array[...] = stored
    return Adder(chars=CHARS, n_digits=10, n_head=N_HEAD, weights=weights, embed_labels=LABELS)


# The boundary (see handtf.checks): what each function above accepts.


def check_train_adder(n_digits, steps, seed, batch, lr, warmup, cooldown, mixed, std, on_step):
    read = {"n_digits": check_int_range("n_digits", n_digits, 1, 18, " (the additions are drawn in int64)"),
            "steps": check_steps("steps", steps), "seed": check_seed("seed", seed),
            "batch": check_int_range("batch", batch, 1, 4096), "lr": check_positive("lr", lr, at_most=1),
            "warmup": check_int_range("warmup", warmup, 1, 1_000_000)}
    read["cooldown"] = check_int_range("cooldown", cooldown, 0, read["steps"], " (steps)")
    if not isinstance(mixed, bool):
        raise TypeError(f"mixed must be True or False, got {mixed!r}")
    return read | {"std": check_positive("std", std, at_most=10),
                   "on_step": None if on_step is None else check_callable("on_step", on_step)}
