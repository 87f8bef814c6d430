"""The training loss: cross-entropy of the next token, computed by log-sum-exp, and its gradient.

``smoothed_targets`` makes the target distribution of label smoothing,
``soft_cross_entropy`` is the cross-entropy against any target distribution,
and ``cross_entropy_backward`` is its gradient for the logits.
"""

import math

import numpy as np

from .activations import log_softmax, softmax
from ..checks import check_array, check_finite_result, check_ids, check_real, check_scores, check_size, checked


@checked(result=lambda loss, args: check_finite_result(loss, args, "loss", source="logits"))
# --8<-- [start:cross_entropy]
# [..., n_seq, n_vocab], [..., n_seq] -> scalar
def cross_entropy(logits, targets):
    """The mean over positions of ``-log softmax(logits)[target]``, via
    log-sum-exp.

    >>> # uniform: log(n_vocab)
    >>> cross_entropy(np.zeros((2, 4)), np.array([0, 3])) == float(np.log(4))
    True
    """
    log_probs = log_softmax(logits)  # [..., n_seq, n_vocab]
    # [..., n_seq, 1]
    picked = np.take_along_axis(log_probs, targets[..., None], axis=-1)
    return float(-np.mean(picked))
# --8<-- [end:cross_entropy]


@checked
# --8<-- [start:smoothed_targets]
# [...], n_vocab, smoothing -> [..., n_vocab]
def smoothed_targets(targets, n_vocab, smoothing=0.0):
    """The target distribution: ``1 - smoothing`` on the right token plus
    ``smoothing`` spread evenly over all tokens.

    With ``smoothing = 0`` it is the one-hot vector of plain cross-entropy.

    >>> smoothed_targets(np.array([1]), n_vocab=4, smoothing=0.1)
    array([[0.025, 0.925, 0.025, 0.025]])
    """
    # [..., n_vocab]
    return (1 - smoothing) * np.eye(n_vocab)[targets] + smoothing / n_vocab
# --8<-- [end:smoothed_targets]


@checked(result=lambda loss, args: check_finite_result(loss, args, "loss", source="logits"))
# --8<-- [start:soft_cross_entropy]
# [..., n_vocab], [..., n_vocab] -> scalar
def soft_cross_entropy(logits, target_probs):
    """The mean over positions of ``-Σ target_probs * log softmax(logits)``.

    With one-hot targets this is ``cross_entropy``. Written as
    ``log Σ e^(x - top) + Σ p (top - x)`` (the same, as ``Σ p = 1``), with
    the differences halved, it stays finite for logits as far apart as
    ``1e308`` and ``-1e308``, where ``-log_softmax`` would be ``inf``.

    >>> targets = smoothed_targets(np.array([1]), 4, 0.1)
    >>> soft_cross_entropy(np.zeros((1, 4)), targets) == float(np.log(4))
    True
    """
    top = np.max(logits, axis=-1, keepdims=True)  # [..., 1]
    half_gap = top / 2 - logits / 2  # [..., n_vocab], (top - x) / 2 >= 0
    # log Σ e^(x - top), as e^(-gap/2) squared
    log_sum = np.log(np.sum(np.exp(-half_gap) ** 2, axis=-1))  # [...]
    per_row = 2 * np.sum(target_probs * half_gap, axis=-1) + log_sum  # [...]
    return float(np.mean(per_row))
# --8<-- [end:soft_cross_entropy]


@checked
# --8<-- [start:cross_entropy_backward]
# [..., n_vocab], [..., n_vocab] -> [..., n_vocab]
def cross_entropy_backward(logits, target_probs):
    """The gradient of ``soft_cross_entropy`` for its logits:
    ``(softmax(logits) - target_probs) / n_positions``.

    >>> cross_entropy_backward(np.zeros((1, 2)), np.array([[1.0, 0.0]]))
    array([[-0.5,  0.5]])
    """
    n_positions = math.prod(logits.shape[:-1])
    return (softmax(logits) - target_probs) / n_positions  # [..., n_vocab]
# --8<-- [end:cross_entropy_backward]


# The boundary (see handtf.checks): what each function above accepts.


def check_cross_entropy(logits, targets):
    logits = check_scores("logits", logits)
    targets = check_ids("targets", targets, logits.shape[-1], ndims=range(logits.ndim))
    if targets.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets must have shape {logits.shape[:-1]} (logits without the vocabulary axis), got shape {targets.shape}"
        )
    hidden = np.isneginf(np.take_along_axis(logits, targets[..., None], axis=-1)[..., 0])
    if hidden.any():
        where = tuple(int(i) for i in np.argwhere(hidden)[0])
        raise ValueError(f"logits give target {int(targets[where])} at {list(where)} the logit -inf (probability 0), "
                         "so the loss is infinite; a target must have a finite logit")
    return {"logits": logits, "targets": targets}


def check_smoothed_targets(targets, n_vocab, smoothing):
    n_vocab = check_size("n_vocab", n_vocab, squared=True)  # np.eye(n_vocab)
    targets = check_ids("targets", targets, n_vocab)
    check_size("n_vocab", n_vocab, per_item=targets.size)  # one row per target
    return {
        "targets": targets,
        "n_vocab": n_vocab,
        "smoothing": check_real("smoothing", smoothing, 0, 1),
    }


def check_soft_cross_entropy(logits, target_probs):
    logits = check_array("logits", logits, min_ndim=1)
    target_probs = check_array("target_probs", target_probs, min_ndim=1)
    if target_probs.shape != logits.shape:
        raise ValueError(f"target_probs must have the shape of logits, {logits.shape}, got {target_probs.shape}")
    if (target_probs < 0).any() or not np.allclose(target_probs.sum(axis=-1), 1):
        raise ValueError("target_probs must be probabilities: each row at least 0 and summing to 1")
    return {"logits": logits, "target_probs": target_probs}


check_cross_entropy_backward = check_soft_cross_entropy
