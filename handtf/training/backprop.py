"""The gradient of the loss of a GPT-2-layout model, by the chain rule through every block.

:func:`loss_and_grads` runs the forward pass of :func:`handtf.gpt2` (its
``gpt2_block`` on each block, keeping each block's input), then, in reverse
order, the backward functions that sit next to their forward functions
(``gpt2_block_backward`` and ``embedding_backward`` in :mod:`handtf.model.picogpt`,
``layer_norm_backward`` in :mod:`handtf.blocks.layers`, ...). Besides the hand-made
model's layout (a block with ``attn`` only) it takes GPT-2's full block (``ln_1``, ``attn``, ``ln_2``, ``mlp``, a final
``ln_f``) and several heads, so the same code trains variants of the model.
"""

import numpy as np

from ..checks import check_finite_result, check_gpt2_weights, check_ids, check_keys, check_n_head, check_real, checked
from ..blocks.loss import cross_entropy_backward, smoothed_targets, soft_cross_entropy
from ..blocks.layers import embedding_backward, layer_norm, layer_norm_backward
from ..model.picogpt import gpt2_block, gpt2_block_backward


@checked(result=lambda value, args: check_finite_result(value, args, "loss or gradient"))
# --8<-- [start:loss_and_grads]
def loss_and_grads(weights, inputs, targets, n_head=1, label_smoothing=0.0):
    """The mean cross-entropy of ``gpt(inputs, **weights)`` against
    ``targets``, and its gradient for every weight.

    ``weights`` is in GPT-2's layout, as ``MODEL``: ``wte``, ``wpe``,
    ``blocks`` (and ``ln_f`` if there is one); the gradients come back in the
    same layout. ``inputs`` and ``targets`` are token ids of shape
    ``[n_batch, n_seq]``.

    >>> from handtf import MODEL
    >>> inputs, targets = np.array([[1, 0, 0]]), np.array([[0, 0, 1]])
    >>> loss, grads = loss_and_grads(MODEL, inputs, targets)
    >>> # the hand-made model is certain and right
    >>> loss, float(np.abs(grads["wte"]).max())
    (0.0, 0.0)
    """
    # [n_vocab, n_embd], [n_ctx, n_embd]
    wte, wpe, ln_f = weights["wte"], weights["wpe"], weights.get("ln_f")
    n_vocab, n_seq = wte.shape[0], inputs.shape[-1]
    # gpt2's forward pass; xs[i] is the input of block i
    xs = [wte[inputs] + wpe[:n_seq]]  # [..., n_seq, n_embd]
    for block in weights["blocks"]:
        xs.append(gpt2_block(xs[-1], **block, n_head=n_head))
    # [..., n_seq, n_embd]
    h = layer_norm(xs[-1], **ln_f) if ln_f else xs[-1]
    logits = h @ wte.T  # [..., n_seq, n_vocab], the output layer shares wte
    # [..., n_seq, n_vocab]
    target_probs = smoothed_targets(targets, n_vocab, label_smoothing)

    # [..., n_seq, n_vocab]
    dlogits = cross_entropy_backward(logits, target_probs)
    # the output layer's use of wte
    grads = {"wte": (dlogits.reshape(-1, n_vocab).T
                     @ h.reshape(-1, h.shape[-1]))}
    dx = dlogits @ wte  # [..., n_seq, n_embd]
    if ln_f:
        dx, grads["ln_f"] = layer_norm_backward(dx, xs[-1], **ln_f)
    grads["blocks"] = [None] * len(weights["blocks"])
    for i in reversed(range(len(weights["blocks"]))):
        dx, grads["blocks"][i] = gpt2_block_backward(
            dx, xs[i], **weights["blocks"][i], n_head=n_head)
    # plus the input layer's use of wte
    grads["wte"] = grads["wte"] + embedding_backward(dx, inputs, n_vocab)
    grads["wpe"] = np.zeros_like(wpe)
    # [n_seq, n_embd]
    grads["wpe"][:n_seq] = dx.reshape(-1, n_seq, dx.shape[-1]).sum(axis=0)
    return soft_cross_entropy(logits, target_probs), grads
# --8<-- [end:loss_and_grads]


# The boundary (see handtf.checks): what each function above accepts.


def check_loss_and_grads(weights, inputs, targets, n_head, label_smoothing):
    check_keys("weights", weights, ("wte", "wpe", "blocks"), " (GPT-2's layout)", optional=("ln_f",))
    weights = check_gpt2_weights("weights", **weights)
    (n_vocab, n_embd), n_ctx = weights["wte"].shape, weights["wpe"].shape[0]
    inputs = check_ids("inputs", inputs, n_vocab, n_ctx=n_ctx)
    targets = check_ids("targets", targets, n_vocab)
    if targets.shape != inputs.shape:
        raise ValueError(f"targets must have the shape of inputs, {inputs.shape}, got {targets.shape}")
    return {
        "weights": weights,
        "inputs": inputs,
        "targets": targets,
        "n_head": check_n_head(n_head, n_embd),
        "label_smoothing": check_real("label_smoothing", label_smoothing, 0, 1, allowed="a number from 0 to 1"),
    }
