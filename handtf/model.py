"""The forward pass of a GPT-2-style transformer, as pure numpy functions.

The names and signatures follow picoGPT's ``gpt2.py`` (jaymody/picoGPT, MIT
license). This model keeps only what the hand-made weights need: one block, one
attention head, no layer norm and no feed-forward network: the special case of
:func:`handtf.gpt2`, GPT-2's whole forward pass, which gives the same logits
(a test checks it).

Every function takes one sequence (``[n_seq]`` token ids) or a batch
(``[n_batch, n_seq]``); a leading ``...`` in a shape comment stands for either.
The arithmetic stays in the dtype of the weights (float16, float32 or float64).
``attention`` is the package's one attention (:mod:`handtf.attend`). The
functions compute and return, nothing else: :func:`handtf.trace` keeps their
variables from outside (:class:`handtf.recording.Recorder`).
"""

import numpy as np

from .attend import attention, check_self_attention
from .checks import check_array, check_dense, check_ids, check_keys, checked
from .layers import linear
from .masks import causal_mask


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
    x = x + causal_self_attention(x, **attn)
    return x
# --8<-- [end:transformer_block]


@checked
# --8<-- [start:gpt]
# [..., n_seq] -> [..., n_seq, n_vocab]
def gpt(inputs, wte, wpe, blocks):
    token_embedding = wte[inputs]  # [..., n_seq] -> [..., n_seq, n_embd]
    position_embedding = wpe[: inputs.shape[-1]]  # [n_seq, n_embd]
    x = token_embedding + position_embedding  # [..., n_seq, n_embd]
    for block in blocks:
        # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
        x = transformer_block(x, **block)
    # [..., n_seq, n_embd] -> [..., n_seq, n_vocab]
    return x @ wte.swapaxes(-1, -2)
# --8<-- [end:gpt]


# The boundary (see handtf.checks): what each function above accepts.


def check_attn(name, attn, n_embd):
    """``{"c_attn": n_embd -> 3*n_embd, "c_proj": n_embd -> n_embd}`` as build_model makes it."""
    check_keys(name, attn, ("c_attn", "c_proj"))
    return {
        "c_attn": check_dense(f"{name}['c_attn']", attn["c_attn"], n_embd, 3 * n_embd),
        "c_proj": check_dense(f"{name}['c_proj']", attn["c_proj"], n_embd, n_embd),
    }


def check_causal_self_attention(x, c_attn, c_proj):
    return check_self_attention(x, c_attn, c_proj)


def check_transformer_block(x, attn):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    return {"x": x, "attn": check_attn("attn", attn, x.shape[-1])}


def layout(tree):
    """The keys of nested dicts, and the type of anything else: what a block looks like."""
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{key!r}: {layout(value)}" for key, value in tree.items()) + "}"
    return type(tree).__name__


def check_weights(wte, wpe, blocks):
    """The weights ``gpt`` runs: ``wte [n_vocab, n_embd]``, ``wpe [n_ctx, n_embd]``, blocks as build_model makes them.

    Returns them as float arrays of one dtype, or says exactly what is wrong.

    >>> check_weights(np.zeros((2, 8)), np.zeros((5, 7)), blocks=[])
    Traceback (most recent call last):
    ...
    ValueError: wte and wpe must have shapes [n_vocab, n_embd] and [n_ctx, n_embd] with the same n_embd, got (2, 8) and (5, 7)
    """
    if np.ndim(wte) != 2 or np.ndim(wpe) != 2 or np.shape(wte)[1] != np.shape(wpe)[1]:
        raise ValueError(
            "wte and wpe must have shapes [n_vocab, n_embd] and [n_ctx, n_embd] with the same n_embd, "
            f"got {np.shape(wte)} and {np.shape(wpe)}"
        )
    wte, wpe = check_array("wte", wte), check_array("wpe", wpe)
    if not isinstance(blocks, (list, tuple)):
        raise TypeError(f"blocks must be a list of blocks, got {type(blocks).__name__}")
    checked_blocks = []
    for i, block in enumerate(blocks):
        attn = block.get("attn") if isinstance(block, dict) and set(block) == {"attn"} else None
        if not isinstance(attn, dict) or set(attn) != {"c_attn", "c_proj"}:
            raise ValueError(
                f"blocks[{i}] must be a dict {{'attn': {{'c_attn': ..., 'c_proj': ...}}}}, got {layout(block)}"
            )
        checked_blocks.append({"attn": check_attn(f"blocks[{i}]['attn']", block["attn"], wte.shape[1])})
    dtypes = {wte.dtype, wpe.dtype} | {d[n].dtype for b in checked_blocks for d in b["attn"].values() for n in d}
    if len(dtypes) > 1:
        raise TypeError(f"the weights must share one float dtype, got {sorted(map(str, dtypes))}")
    return {"wte": wte, "wpe": wpe, "blocks": checked_blocks}


def check_model(model, name="model"):
    """A model dict as :func:`handtf.build_model` makes it, its arrays checked by :func:`check_weights`."""
    if not isinstance(model, dict):
        raise TypeError(f"{name} must be a dict like build_model()'s, got {type(model).__name__}")
    check_keys(name, model, ("wte", "wpe", "blocks"), needs=", as build_model() makes it")
    return check_weights(**model)


def check_gpt(inputs, wte, wpe, blocks):
    weights = check_weights(wte, wpe, blocks)
    n_vocab, n_ctx = weights["wte"].shape[0], weights["wpe"].shape[0]
    if np.shape(inputs)[-1:] == (0,) or np.shape(inputs)[-1:] > (n_ctx,):
        raise ValueError(f"a sequence must hold 1 to {n_ctx} tokens (the context length), got {np.shape(inputs)[-1]}")
    inputs = check_ids("inputs", inputs, n_vocab)
    if inputs.shape[-1] > n_ctx:
        raise ValueError(f"a sequence must hold 1 to {n_ctx} tokens (the context length), got {inputs.shape[-1]}")
    return {"inputs": inputs, **weights}
