"""GPT-2's whole forward pass, as picoGPT writes it, for models that use more of it.

The hand-made ``(aab)*`` model runs in :func:`handtf.gpt`, which keeps only
what it needs. A compiled pattern (:func:`handtf.compile_pattern`) needs
several heads and a feed-forward network, so it runs here: picoGPT's
``gpt2`` (jaymody/picoGPT, MIT license), where a block is two residual lines.
The layer norms ``ln_1``, ``ln_2`` and ``ln_f`` and the ``mlp`` are used
where a model has them and skipped where it leaves them out. ``gpt2_block``
is the package's one GPT-2 block: ``gpt2``, ``loss_and_grads`` and ``train``
run it, and the hand-made model's ``gpt`` is its special case (one head,
``attn`` only; a test holds them equal).

``gpt2_block_backward`` sits below ``gpt2_block``; the backward of ``gpt2``'s
first line, the lookup ``wte[inputs]``, is ``embedding_backward`` with the
layers (:mod:`handtf.blocks.layers`), and the other backward functions sit below
their forward functions in ``activations``, ``layers``, ``attend`` and
``loss``.
"""

import numpy as np

from ..blocks.attend import mha, mha_backward
from ..checks import (
    check_array,
    check_gpt2_weights,
    check_ids,
    check_n_head,
    check_tree,
    checked,
    finite_logits,
    gpt2_block_shapes,
)
from ..blocks.layers import embedding_backward, ffn, ffn_backward, layer_norm, layer_norm_backward  # noqa: F401


@checked
# --8<-- [start:gpt2_block]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def gpt2_block(x, attn, n_head, mlp=None, ln_1=None, ln_2=None):
    # causal multi-head attention
    x = x + mha(layer_norm(x, **ln_1) if ln_1 else x, **attn, n_head=n_head)
    if mlp:
        # position-wise feed-forward network
        x = x + ffn(layer_norm(x, **ln_2) if ln_2 else x, **mlp)
    return x
# --8<-- [end:gpt2_block]


@checked(forward=gpt2_block)
# --8<-- [start:gpt2_block_backward]
# [..., n_seq, n_embd], [..., n_seq, n_embd]
#   -> [..., n_seq, n_embd], grads like the block
def gpt2_block_backward(dout, x, attn, n_head, mlp=None, ln_1=None,
                        ln_2=None):
    """``gpt2_block`` backwards: a residual connection passes ``dout``
    through unchanged *and* into its branch."""
    grads = {}
    if mlp:
        # the input of the second residual
        x_mid = x + mha(_norm(x, ln_1), **attn, n_head=n_head)
        dh, grads["mlp"] = ffn_backward(dout, _norm(x_mid, ln_2), **mlp)
        # residual + branch
        dout = dout + _norm_backward(dh, x_mid, ln_2, grads, "ln_2")
    dh, grads["attn"] = mha_backward(dout, _norm(x, ln_1), **attn,
                                     n_head=n_head)
    # residual + branch
    return dout + _norm_backward(dh, x, ln_1, grads, "ln_1"), grads
# --8<-- [end:gpt2_block_backward]


def _norm(x, ln):
    return layer_norm(x, **ln) if ln else x  # a missing norm is the identity


def _norm_backward(dout, x, ln, grads, name):
    if not ln:
        return dout
    dx, grads[name] = layer_norm_backward(dout, x, **ln)
    return dx


@checked(result=finite_logits)
# --8<-- [start:gpt2]
# [..., n_seq] -> [..., n_seq, n_vocab]
def gpt2(inputs, wte, wpe, blocks, n_head, ln_f=None):
    # [..., n_seq] -> [..., n_seq, n_embd]
    x = wte[inputs] + wpe[: inputs.shape[-1]]
    for block in blocks:
        # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
        x = gpt2_block(x, **block, n_head=n_head)
    x = layer_norm(x, **ln_f) if ln_f else x
    # [..., n_seq, n_embd] -> [..., n_seq, n_vocab]
    return x @ wte.swapaxes(-1, -2)
# --8<-- [end:gpt2]


# The boundary (see handtf.checks): what each function above accepts.

def check_gpt2_block(x, attn, n_head, mlp, ln_1, ln_2):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    block = {"attn": attn} | {name: part for name, part in (("mlp", mlp), ("ln_1", ln_1), ("ln_2", ln_2)) if part}
    block = check_tree("block", block, gpt2_block_shapes("block", block, x.shape[-1]))
    return block | {"x": x, "n_head": check_n_head(n_head, x.shape[-1])}


def check_gpt2(inputs, wte, wpe, blocks, n_head, ln_f):
    weights = check_gpt2_weights("", wte, wpe, blocks, ln_f)
    n_vocab, n_embd = weights["wte"].shape
    return weights | {
        "inputs": check_ids("inputs", inputs, n_vocab, n_ctx=weights["wpe"].shape[0]),
        "n_head": check_n_head(n_head, n_embd, name="n_embd"),
    }

