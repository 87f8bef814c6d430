"""The induction head's shape trained from random weights, with the package's backprop and Adam.

:func:`train_induction` is the induction page's comparison: the hand-set
:func:`handtf.induction_head`'s two attention-only layers, every weight drawn
at random, trained on fresh random sequences to predict what the induction
rule predicts (:func:`handtf.induction_rule`).
"""

from dataclasses import dataclass

import numpy as np

from ..checks import check_int_range, check_positive, check_seed, check_steps, checked
from ..patterns.induction import InductionHead, check_induction_head, induction_head, rule_targets
from ..trees import ByValue, leaves
from .backprop import loss_and_grads
from .optimiser import adam_moments, adam_step


@dataclass(frozen=True, eq=False)
class InductionTraining(ByValue):
    """A model of the induction head's shape, trained from random weights (:func:`train_induction`)."""

    model: InductionHead  # the trained weights, in the hand-set model's layout
    losses: np.ndarray  # [steps] the batch loss before each step


def induction_targets(ids):
    """What a model should predict at each position of ``ids [batch, n]``: the rule's token where it
    applies, else the current token (what the hand-set model predicts there, so its loss is 0)."""
    expected = rule_targets(ids)  # [batch, n], -1 where not covered
    return np.where(expected >= 0, expected, ids)


@checked
# --8<-- [start:train_induction]
def train_induction(alphabet="abc", n_ctx=8, steps=1000, seed=0,
                    batch=64, lr=0.01, std=0.3):
    """Train a two-layer, attention-only GPT-2 of the hand-set shape from
    random weights, with the package's backprop and Adam, on fresh random
    sequences at every step.

    >>> result = train_induction(steps=5, seed=0)
    >>> result.losses.shape, result.model.n_embd
    ((5,), 14)
    """
    v, chars = len(alphabet), tuple(alphabet)
    d = 2 * v + n_ctx  # the hand-set model's n_embd
    rng = np.random.default_rng(seed)
    normal = lambda *shape: rng.normal(0, std, shape)  # noqa: E731
    attn = lambda: {  # noqa: E731
        "c_attn": {"w": normal(d, 3 * d), "b": np.zeros(3 * d)},
        "c_proj": {"w": normal(d, d), "b": np.zeros(d)}}
    weights = {"wte": normal(v, d), "wpe": normal(n_ctx, d),
               "blocks": [{"attn": attn()}, {"attn": attn()}]}
    params = leaves(weights)
    moments = adam_moments(params)
    losses = []
    for step in range(1, steps + 1):
        ids = rng.integers(0, v, size=(batch, n_ctx))  # [batch, n_ctx]
        loss, grads = loss_and_grads(weights, ids, induction_targets(ids))
        losses.append(loss)
        adam_step(params, leaves(grads), moments, step, lr)
    labels = induction_head(alphabet, n_ctx).embed_labels  # same columns
    model = InductionHead(chars=chars, n_ctx=n_ctx, n_head=1,
                          weights=weights, embed_labels=labels)
    return InductionTraining(model=model, losses=np.array(losses))
# --8<-- [end:train_induction]


# The boundary (see handtf.checks): what each function above accepts.


def check_train_induction(alphabet, n_ctx, steps, seed, batch, lr, std):
    check_induction_head(alphabet, n_ctx, np.float64)
    check_steps("steps", steps)
    check_seed("seed", seed)
    check_int_range("batch", batch, 1, 4096)
    check_positive("lr", lr, at_most=1)
    check_positive("std", std, at_most=10)
