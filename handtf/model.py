"""The forward pass of a GPT-2-style transformer, as pure numpy functions.

The names and signatures follow picoGPT's ``gpt2.py`` (jaymody/picoGPT, MIT
license). This model keeps only what the hand-made weights need: one block, one
attention head, no layer norm and no feed-forward network.

Every function takes one sequence (``[n_seq]`` token ids) or a batch
(``[n_batch, n_seq]``); a leading ``...`` in a shape comment stands for either.
The arithmetic stays in the dtype of the weights (float16, float32 or float64).
``softmax``, ``linear`` and ``causal_mask`` come from :mod:`handtf.nn`.
"""

import math

import numpy as np

from .nn import _check_self_attention, causal_mask, linear, softmax  # the general building blocks, shared with the concepts part


# --8<-- [start:attention]
# [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v], [n_q, n_k] -> [..., n_q, d_v]
def attention(q, k, v, mask):
    return softmax(q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]) + mask) @ v
# --8<-- [end:attention]


# --8<-- [start:causal_self_attention]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def causal_self_attention(x, c_attn, c_proj):
    _check_self_attention(x, c_attn, c_proj)  # c_attn: n_embd -> 3*n_embd, c_proj: n_embd -> n_embd
    x = linear(x, **c_attn)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    q, k, v = np.split(x, 3, axis=-1)  # -> 3 of [..., n_seq, n_embd]
    mask = causal_mask(x.shape[-2], x.dtype)  # [n_seq, n_seq]
    x = attention(q, k, v, mask)  # -> [..., n_seq, n_embd]
    return linear(x, **c_proj)  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
# --8<-- [end:causal_self_attention]


# --8<-- [start:transformer_block]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def transformer_block(x, attn):
    return x + causal_self_attention(x, **attn)  # residual connection; no layer norm, no MLP
# --8<-- [end:transformer_block]


# --8<-- [start:gpt]
# [..., n_seq] -> [..., n_seq, n_vocab]
def gpt(inputs, wte, wpe, blocks):
    check_weights(wte, wpe, blocks)  # wte [n_vocab, n_embd], wpe [n_ctx, n_embd], blocks as build_model makes them
    inputs = check_token_ids(inputs, n_vocab=wte.shape[0], n_ctx=wpe.shape[0])
    x = wte[inputs] + wpe[: inputs.shape[-1]]  # [..., n_seq] -> [..., n_seq, n_embd]
    for block in blocks:
        x = transformer_block(x, **block)  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    return x @ wte.swapaxes(-1, -2)  # [..., n_seq, n_embd] -> [..., n_seq, n_vocab]
# --8<-- [end:gpt]


def check_weights(wte, wpe, blocks):
    """Say exactly what is wrong with the weights ``gpt`` is given, if anything.

    ``wte`` must be ``[n_vocab, n_embd]`` and ``wpe`` ``[n_ctx, n_embd]``, and every
    block ``{"attn": {"c_attn": ..., "c_proj": ...}}``, as :func:`handtf.build_model`
    makes them. :func:`causal_self_attention` checks the shapes of ``c_attn`` and ``c_proj``.

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
    if not isinstance(blocks, (list, tuple)):
        raise TypeError(f"blocks must be a list of blocks, got {type(blocks).__name__}")
    for i, block in enumerate(blocks):
        attn = block.get("attn") if isinstance(block, dict) and set(block) == {"attn"} else None
        if not isinstance(attn, dict) or set(attn) != {"c_attn", "c_proj"}:
            raise ValueError(
                f"blocks[{i}] must be a dict {{'attn': {{'c_attn': ..., 'c_proj': ...}}}}, got {_layout(block)}"
            )


def check_token_ids(inputs, n_vocab, n_ctx):
    """Return ``inputs`` as an integer array, or say exactly why it cannot be one.

    >>> check_token_ids([0, 1, 1], n_vocab=2, n_ctx=5)
    array([0, 1, 1])
    >>> check_token_ids([0, 2], n_vocab=2, n_ctx=5)
    Traceback (most recent call last):
    ...
    ValueError: token ids must be in 0..1 (the vocabulary has 2 tokens), got 2
    """
    array = np.asarray(inputs)
    if array.ndim not in (1, 2):
        raise ValueError(
            f"token ids must have shape [n_seq] or [n_batch, n_seq], got shape {array.shape}"
        )
    n_seq = array.shape[-1]
    if not 1 <= n_seq <= n_ctx:
        raise ValueError(f"a sequence must hold 1 to {n_ctx} tokens (the context length), got {n_seq}")
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"token ids must be integers, got an array of {array.dtype}")
    if array.size and (array.min() < 0 or array.max() >= n_vocab):
        bad = array.min() if array.min() < 0 else array.max()
        raise ValueError(
            f"token ids must be in 0..{n_vocab - 1} (the vocabulary has {n_vocab} tokens), got {bad}"
        )
    return array


def _layout(tree):
    """The keys of nested dicts, and the type of anything else: what a block looks like."""
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{key!r}: {_layout(value)}" for key, value in tree.items()) + "}"
    return type(tree).__name__
