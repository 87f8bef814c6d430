"""The gradient of the loss of a GPT-2-layout model, by the chain rule through every block.

:func:`loss_and_grads` runs :func:`handtf.gpt` itself, keeping its ``x`` as
it computes it (a :class:`handtf.model.recording.Recorder`: the embedding, then
each block's output), then, in reverse order, the backward functions that
sit next to their forward functions (``transformer_block_backward`` in
:mod:`handtf.model.transformer`, ``layer_norm_backward`` and ``embedding_backward`` in
:mod:`handtf.blocks.layers`, ...). Besides the hand-made model's layout (a block
with ``attn`` only) it takes GPT-2's full block (``ln_1``, ``attn``,
``ln_2``, ``mlp``, a final ``ln_f``) and several heads, so the same code
trains variants of the model.
"""

import numpy as np

from ..checks import check_finite_result, check_ids, check_n_head, check_real, checked
from ..layouts import check_gpt2_weights, check_keys
from ..blocks.loss import cross_entropy_backward, smoothed_targets, soft_cross_entropy
from ..blocks.layers import embedding_backward, layer_norm_backward
from ..model.transformer import gpt, transformer_block_backward
from ..model.recording import Recorder


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
    wte, blocks, ln_f = weights["wte"], weights["blocks"], weights.get("ln_f")
    n_vocab, n_seq = wte.shape[0], inputs.shape[-1]
    # gpt itself, its x kept as computed: the embedding, each block's output
    with Recorder(gpt) as record:
        logits = gpt(inputs, **weights, n_head=n_head)  # [..., n_seq, n_vocab]
    x = record.arrays["gpt"]["x"]  # each [..., n_seq, n_embd]
    # xs[i] is the input of block i; h, the last x, meets wte.T
    xs, h = x[: len(blocks) + 1], x[-1]
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
    grads["blocks"] = [None] * len(blocks)
    for i in reversed(range(len(blocks))):
        dx, grads["blocks"][i] = transformer_block_backward(
            dx, xs[i], **blocks[i], n_head=n_head)
    # plus the input layer's use of wte
    grads["wte"] = grads["wte"] + embedding_backward(dx, inputs, n_vocab)
    grads["wpe"] = np.zeros_like(weights["wpe"])
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
        "label_smoothing": check_real("label_smoothing", label_smoothing, 0, 1),
    }
