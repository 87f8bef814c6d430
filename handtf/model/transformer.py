"""The forward pass of a GPT-2-style transformer, as pure numpy functions.

The names and signatures follow picoGPT's ``gpt2.py`` (jaymody/picoGPT, MIT
license). This model keeps only what the hand-made weights need: one block, one
attention head, no layer norm and no feed-forward network: the special case of
:func:`handtf.gpt2`, GPT-2's whole forward pass, which gives the same logits
(a test checks it).

Every function takes one sequence (``[n_seq]`` token ids) or a batch
(``[n_batch, n_seq]``); a leading ``...`` in a shape comment stands for either.
``gpt``'s comments, the first listing a reader meets, show one sequence only, as
picoGPT's do; the same lines run a batch (the arrays gain a leading axis).
The arithmetic stays in the dtype of the weights (float16, float32 or float64).
``attention`` is the package's one attention (:mod:`handtf.blocks.attend`). The
functions compute and return, nothing else: :func:`handtf.trace` keeps their
variables from outside (:class:`handtf.model.recording.Recorder`).
"""

import numpy as np

from ..blocks.attend import attention, check_self_attention
from ..checks import (
    check_array,
    check_gpt2_weights,
    check_ids,
    check_keys,
    check_tree,
    checked,
    finite_logits,
    gpt2_block_shapes,
)
from ..blocks.layers import linear
from ..blocks.masks import causal_mask


@checked
# --8<-- [start:causal_self_attention]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def causal_self_attention(x, c_attn, c_proj):
    qkv = linear(x, **c_attn)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    q, k, v = np.split(qkv, 3, axis=-1)  # -> 3 of [..., n_seq, n_embd]
    mask = causal_mask(x.shape[-2], x.dtype)  # [n_seq, n_seq]
    x = attention(q, k, v, mask)  # -> [..., n_seq, n_embd]
    # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    projection = linear(x, **c_proj)
    return projection
# --8<-- [end:causal_self_attention]


@checked
# --8<-- [start:transformer_block]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def transformer_block(x, attn):
    # residual connection; no layer norm, no MLP
    # --8<-- [start:residual]
    x = x + causal_self_attention(x, **attn)
    # --8<-- [end:residual]
    return x
# --8<-- [end:transformer_block]


@checked(result=finite_logits)
# --8<-- [start:gpt]
# [n_seq] -> [n_seq, n_vocab]
def gpt(inputs, wte, wpe, blocks):
    token_embedding = wte[inputs]  # [n_seq] -> [n_seq, n_embd]
    position_embedding = wpe[: inputs.shape[-1]]  # [n_seq, n_embd]
    x = token_embedding + position_embedding  # [n_seq, n_embd]
    for block in blocks:
        x = transformer_block(x, **block)  # [n_seq, n_embd] -> [n_seq, n_embd]
    return x @ wte.T  # [n_seq, n_embd] -> [n_seq, n_vocab]
# --8<-- [end:gpt]


# The boundary (see handtf.checks): what each function above accepts.


check_causal_self_attention = check_self_attention


def check_transformer_block(x, attn):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    attn = check_tree("attn", attn, gpt2_block_shapes("block", {"attn": attn}, x.shape[-1], ("attn",))["attn"])
    return {"x": x, "attn": attn}


def check_weights(wte, wpe, blocks):
    """The weights ``gpt`` runs: GPT-2's layout with ``attn`` only, as build_model makes them, in one float dtype.

    >>> check_weights(np.zeros((2, 8)), np.zeros((5, 7)), blocks=[])
    Traceback (most recent call last):
    ...
    ValueError: wte and wpe must have shapes [n_vocab, n_embd] and [n_ctx, n_embd] with the same n_embd, got (2, 8) and (5, 7)
    """
    weights = check_gpt2_weights("", wte, wpe, blocks, parts=("attn",))
    arrays = [weights["wte"], weights["wpe"]] + [d[n] for b in weights["blocks"] for d in b["attn"].values() for n in d]
    if len({a.dtype for a in arrays}) > 1:
        raise TypeError(f"the weights must share one float dtype, got {sorted({str(a.dtype) for a in arrays})}")
    return weights


def check_model(model, name="model"):
    """A model dict as :func:`handtf.build_model` makes it, its arrays checked by :func:`check_weights`."""
    if not isinstance(model, dict):
        raise TypeError(f"{name} must be a dict like build_model()'s, got {type(model).__name__}")
    check_keys(name, model, ("wte", "wpe", "blocks"), needs=", as build_model() makes it")
    return check_weights(**model)


def check_gpt(inputs, wte, wpe, blocks):
    weights = check_weights(wte, wpe, blocks)
    return {"inputs": check_ids("inputs", inputs, weights["wte"].shape[0], n_ctx=weights["wpe"].shape[0]), **weights}
