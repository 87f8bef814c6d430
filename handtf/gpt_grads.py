"""The gradient of the loss of a GPT-2-layout model, by the chain rule through every block.

:func:`loss_and_grads` runs the forward pass of ``gpt`` (keeping each block's
input), then, in reverse order, the backward functions that sit next to
their forward functions (``mha_backward`` in :mod:`handtf.attend`,
``ffn_backward`` and ``layer_norm_backward`` in :mod:`handtf.layers`, ...). Besides the hand-made model's layout (a block with ``attn`` only) it
takes GPT-2's full block (``ln_1``, ``attn``, ``ln_2``, ``mlp``, a final
``ln_f``) and several heads, so the same code trains variants of the model.
"""

import numpy as np

from .attend import mha, mha_backward
from .checks import (
    check_array,
    check_dout,
    check_finite_result,
    check_gpt2_weights,
    check_ids,
    check_n_head,
    check_real,
    check_tree,
    checked,
    gpt2_block_shapes,
    shown,
)
from .layers import ffn, ffn_backward, layer_norm, layer_norm_backward
from .loss import cross_entropy_backward, smoothed_targets, soft_cross_entropy
from .picogpt import embedding_backward


@checked
# --8<-- [start:block]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def block(x, attn, ln_1=None, mlp=None, ln_2=None, n_head=1):
    """A GPT-2 block; the hand-made model's block is the one with only
    ``attn``.

    ``x + mha(ln_1(x))``, then ``x + ffn(ln_2(x))`` if the block has an
    ``mlp``; a missing ``ln_1`` or ``ln_2`` is the identity.
    """
    x = x + mha(_norm(x, ln_1), **attn, n_head=n_head)  # [..., n_seq, n_embd]
    # [..., n_seq, n_embd]
    return x if mlp is None else x + ffn(_norm(x, ln_2), **mlp)
# --8<-- [end:block]


@checked
# --8<-- [start:block_backward]
# [..., n_seq, n_embd], [..., n_seq, n_embd]
#   -> [..., n_seq, n_embd], grads like the block
def block_backward(dout, x, attn, ln_1=None, mlp=None, ln_2=None, n_head=1):
    """``block`` backwards: a residual connection passes ``dout`` through
    unchanged *and* into its branch."""
    grads = {}
    if mlp is not None:
        # the input of the second residual
        x_mid = x + mha(_norm(x, ln_1), **attn, n_head=n_head)
        dh, grads["mlp"] = ffn_backward(dout, _norm(x_mid, ln_2), **mlp)
        # residual + branch
        dout = dout + _norm_backward(dh, x_mid, ln_2, grads, "ln_2")
    dh, grads["attn"] = mha_backward(dout, _norm(x, ln_1), **attn,
                                     n_head=n_head)
    # residual + branch
    return dout + _norm_backward(dh, x, ln_1, grads, "ln_1"), grads
# --8<-- [end:block_backward]


def _norm(x, ln):
    return x if ln is None else layer_norm(x, **ln)  # a missing norm is the identity


def _norm_backward(dout, x, ln, grads, name):
    if ln is None:
        return dout
    dx, grads[name] = layer_norm_backward(dout, x, **ln)
    return dx


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
    wte, wpe = weights["wte"], weights["wpe"]
    n_vocab, n_seq = wte.shape[0], inputs.shape[-1]
    # [..., n_seq, n_embd]; xs[i] is the input of block i
    xs = [wte[inputs] + wpe[:n_seq]]
    for params in weights["blocks"]:
        xs.append(block(xs[-1], **params, n_head=n_head))
    h = _norm(xs[-1], weights.get("ln_f"))  # [..., n_seq, n_embd]
    logits = h @ wte.T  # [..., n_seq, n_vocab], the output layer shares wte
    # [..., n_seq, n_vocab]
    target_probs = smoothed_targets(targets, n_vocab, label_smoothing)

    # [..., n_seq, n_vocab]
    dlogits = cross_entropy_backward(logits, target_probs)
    # the output layer's use of wte
    grads = {"wte": (dlogits.reshape(-1, n_vocab).T
                     @ h.reshape(-1, h.shape[-1]))}
    dx = dlogits @ wte  # [..., n_seq, n_embd]
    dx = _norm_backward(dx, xs[-1], weights.get("ln_f"), grads, "ln_f")
    grads["blocks"] = [None] * len(weights["blocks"])
    for i in reversed(range(len(weights["blocks"]))):
        dx, grads["blocks"][i] = block_backward(
            dx, xs[i], **weights["blocks"][i], n_head=n_head)
    # plus the input layer's use of wte
    grads["wte"] = grads["wte"] + embedding_backward(dx, inputs, n_vocab)
    grads["wpe"] = np.zeros_like(wpe)
    # [n_seq, n_embd]
    grads["wpe"][:n_seq] = dx.reshape(-1, n_seq, dx.shape[-1]).sum(axis=0)
    return soft_cross_entropy(logits, target_probs), grads
# --8<-- [end:loss_and_grads]


# The boundary (see handtf.checks): what each function above accepts.


def check_block(x, attn, ln_1, mlp, ln_2, n_head):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    given = {"attn": attn, "ln_1": ln_1, "mlp": mlp, "ln_2": ln_2}
    block = {key: value for key, value in given.items() if value is not None}
    block = check_tree("block", block, gpt2_block_shapes("block", block, x.shape[-1]))
    return {"x": x, **block, "n_head": check_n_head(n_head, x.shape[-1])}


def check_block_backward(dout, x, attn, ln_1, mlp, ln_2, n_head):
    args = check_block(x, attn, ln_1, mlp, ln_2, n_head)
    return args | {"dout": check_dout(dout, args["x"].shape)}


def check_loss_and_grads(weights, inputs, targets, n_head, label_smoothing):
    if not isinstance(weights, dict) or not {"wte", "wpe", "blocks"} <= set(weights) <= {"wte", "wpe", "blocks", "ln_f"}:
        got = f"keys {sorted(weights)}" if isinstance(weights, dict) else shown(weights)
        raise ValueError(f"weights must be a dict with 'wte', 'wpe', 'blocks' and optionally 'ln_f' (GPT-2's layout), got {got}")
    weights = check_gpt2_weights("weights", **weights)
    inputs = check_ids("inputs", inputs, weights["wte"].shape[0], n_ctx=weights["wpe"].shape[0])
    targets = check_ids("targets", targets, weights["wte"].shape[0])
    if targets.shape != inputs.shape:
        raise ValueError(f"targets must have the shape of inputs, {inputs.shape}, got {targets.shape}")
    return {
        "weights": weights,
        "inputs": inputs,
        "targets": targets,
        "n_head": check_n_head(n_head, weights["wte"].shape[1]),
        "label_smoothing": check_real("label_smoothing", label_smoothing, 0, 1, allowed="a number from 0 to 1"),
    }
