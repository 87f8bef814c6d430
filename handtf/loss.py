"""The training loss: cross-entropy of the next token, computed by log-sum-exp."""

import numpy as np

from .activations import log_softmax
from .checks import check_ids, check_scores, checked


@checked
# --8<-- [start:cross_entropy]
# [..., n_seq, n_vocab], [..., n_seq] -> scalar
def cross_entropy(logits, targets):
    """The mean over positions of ``-log softmax(logits)[target]``, via log-sum-exp.

    >>> cross_entropy(np.zeros((2, 4)), np.array([0, 3])) == float(np.log(4))  # uniform: log(n_vocab)
    True
    """
    log_probs = log_softmax(logits)  # [..., n_seq, n_vocab]
    picked = np.take_along_axis(log_probs, targets[..., None], axis=-1)  # [..., n_seq, 1]
    return float(-np.mean(picked))
# --8<-- [end:cross_entropy]


# The boundary (see handtf.checks): what cross_entropy accepts.


def check_cross_entropy(logits, targets):
    logits = check_scores("logits", logits)
    targets = check_ids("targets", targets, logits.shape[-1], ndims=range(logits.ndim))
    if targets.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets must have shape {logits.shape[:-1]} (logits without the vocabulary axis), got shape {targets.shape}"
        )
    return {"logits": logits, "targets": targets}
