"""GPT-2's forward pass, as pure numpy functions: the one handtf runs and the pages show.

The names and signatures follow picoGPT's ``gpt2.py`` (jaymody/picoGPT, MIT
license). ``gpt`` runs every model of the package: the hand-made ``(aab)*``
model, the models ``train`` trains, compiled patterns
(:func:`handtf.compile_pattern`) and induction heads. A part a model leaves
out is skipped: the hand-made model has one block with one head, no layer
norm (``ln_1``, ``ln_2``, ``ln_f``; ``norm`` is then ``x`` itself) and no
feed-forward network (``mlp``); a compiled pattern has several heads and an
``mlp``; GPT-2 has them all.

Every function takes one sequence (``[n_seq]`` token ids) or a batch
(``[n_batch, n_seq]``); a leading ``...`` in a shape comment stands for either.
``gpt``'s comments, the first listing a reader meets, show one sequence only, as
picoGPT's do; the same lines run a batch (the arrays gain a leading axis).
The arithmetic stays in the dtype of the weights (float16, float32 or float64).
The functions compute and return, nothing else: :func:`handtf.trace` keeps
their variables from outside (:class:`handtf.model.recording.Recorder`). Each
backward function sits right below its forward function; the backward of
``gpt``'s first lines, the lookup ``wte[inputs]``, is ``embedding_backward``
(:mod:`handtf.blocks.layers`), and :func:`handtf.training.backprop.loss_and_grads` puts them
together.
"""

import numpy as np

from ..blocks.attend import attend_heads, attend_heads_backward, check_self_attention
from ..checks import check_array, check_ids, check_n_head, checked, finite_logits
from ..layouts import check_gpt2_weights, check_keys, check_tree, gpt2_block_shapes
from ..blocks.layers import ffn, ffn_backward, layer_norm, layer_norm_backward, linear, linear_backward
from ..blocks.masks import causal_mask
from ..trees import leaves


@checked
# --8<-- [start:norm]
# [..., n_embd] -> [..., n_embd]
def norm(x, ln=None):
    """Layer norm where the weights have one (``ln``), else ``x`` itself."""
    return layer_norm(x, **ln) if ln else x
# --8<-- [end:norm]


def _norm_backward(dout, x, ln, grads, name):
    if not ln:
        return dout  # a missing norm is the identity
    dx, grads[name] = layer_norm_backward(dout, x, **ln)
    return dx


@checked
# --8<-- [start:causal_self_attention]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def causal_self_attention(x, c_attn, c_proj, n_head=1):
    qkv = linear(x, **c_attn)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    q, k, v = np.split(qkv, 3, axis=-1)  # -> 3 of [..., n_seq, n_embd]
    mask = causal_mask(x.shape[-2], x.dtype)  # [n_seq, n_seq]
    # attention in each head's slice; one head is attention itself
    x = attend_heads(q, k, v, n_head, mask)  # -> [..., n_seq, n_embd]
    # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    projection = linear(x, **c_proj)
    return projection
# --8<-- [end:causal_self_attention]


@checked(forward=causal_self_attention)
# [..., n_seq, n_embd], [..., n_seq, n_embd]
#   -> [..., n_seq, n_embd], {"c_attn": ..., "c_proj": ...}
def causal_self_attention_backward(dout, x, c_attn, c_proj, n_head=1):
    """``causal_self_attention`` backwards.

    q, k and v all come from ``x``, so ``x`` gets the sum of the three paths,
    through the one matrix ``c_attn``.
    """
    # 3 of [..., n_seq, n_embd]
    q, k, v = np.split(linear(x, **c_attn), 3, axis=-1)
    mask = causal_mask(x.shape[-2], x.dtype)  # [n_seq, n_seq]
    # the input of c_proj
    heads = attend_heads(q, k, v, n_head, mask)  # [..., n_seq, n_embd]
    # [..., n_seq, n_embd]
    dheads, g_proj = linear_backward(dout, heads, **c_proj)
    dq, dk, dv = attend_heads_backward(dheads, q, k, v, n_head, mask)
    dqkv = np.concatenate([dq, dk, dv], axis=-1)  # [..., n_seq, 3*n_embd]
    dx, g_attn = linear_backward(dqkv, x, **c_attn)  # [..., n_seq, n_embd]
    return dx, {"c_attn": g_attn, "c_proj": g_proj}


@checked
# --8<-- [start:transformer_block]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def transformer_block(x, attn, n_head=1, mlp=None, ln_1=None, ln_2=None):
    # two residual lines; a part the weights leave out is skipped
    # --8<-- [start:residual]
    x = x + causal_self_attention(norm(x, ln_1), **attn, n_head=n_head)
    # --8<-- [end:residual]
    # --8<-- [start:ffn_residual]
    if mlp:  # a position-wise feed-forward network
        x = x + ffn(norm(x, ln_2), **mlp)
    # --8<-- [end:ffn_residual]
    return x
# --8<-- [end:transformer_block]


@checked(forward=transformer_block)
# --8<-- [start:transformer_block_backward]
# [..., n_seq, n_embd], [..., n_seq, n_embd]
#   -> [..., n_seq, n_embd], grads like the block
def transformer_block_backward(dout, x, attn, n_head=1, mlp=None, ln_1=None,
                               ln_2=None):
    """``transformer_block`` backwards: a residual connection passes
    ``dout`` through unchanged *and* into its branch."""
    grads = {}
    if mlp:
        # the second residual's input: the block's first line
        x_mid = transformer_block(x, attn, n_head, ln_1=ln_1)
        dh, grads["mlp"] = ffn_backward(dout, norm(x_mid, ln_2), **mlp)
        # residual + branch
        dout = dout + _norm_backward(dh, x_mid, ln_2, grads, "ln_2")
    dh, grads["attn"] = causal_self_attention_backward(
        dout, norm(x, ln_1), **attn, n_head=n_head)
    # residual + branch
    return dout + _norm_backward(dh, x, ln_1, grads, "ln_1"), grads
# --8<-- [end:transformer_block_backward]


@checked(result=finite_logits)
# --8<-- [start:gpt]
# [n_seq] -> [n_seq, n_vocab]
def gpt(inputs, wte, wpe, blocks, n_head=1, ln_f=None):
    token_embedding = wte[inputs]  # [n_seq] -> [n_seq, n_embd]
    position_embedding = wpe[: inputs.shape[-1]]  # [n_seq, n_embd]
    x = token_embedding + position_embedding  # [n_seq, n_embd]
    for block in blocks:
        # [n_seq, n_embd] -> [n_seq, n_embd]
        x = transformer_block(x, **block, n_head=n_head)
    x = norm(x, ln_f)  # [n_seq, n_embd]
    return x @ wte.T  # [n_seq, n_embd] -> [n_seq, n_vocab]
# --8<-- [end:gpt]


# picoGPT's names for the same functions (the package's API before they were one)
gpt2, gpt2_block, gpt2_block_backward = gpt, transformer_block, transformer_block_backward
mha, mha_backward = causal_self_attention, causal_self_attention_backward


# The boundary (see handtf.checks): what each function above accepts.


def check_norm(x, ln):
    x = check_array("x", x, min_ndim=1, shape="[..., n_embd]")
    if ln is None:
        return {"x": x}
    return {"x": x, "ln": check_tree("ln", ln, {"g": x.shape[-1:], "b": x.shape[-1:]})}


def check_causal_self_attention(x, c_attn, c_proj, n_head):
    args = check_self_attention(x, c_attn, c_proj)
    return args | {"n_head": check_n_head(n_head, args["x"].shape[-1])}


def check_transformer_block(x, attn, n_head, mlp, ln_1, ln_2):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    block = {"attn": attn} | {name: part for name, part in (("mlp", mlp), ("ln_1", ln_1), ("ln_2", ln_2)) if part}
    block = check_tree("block", block, gpt2_block_shapes("block", block, x.shape[-1]))
    return block | {"x": x, "n_head": check_n_head(n_head, x.shape[-1])}


def check_weights(wte, wpe, blocks, ln_f=None, parts=None):
    """The weights ``gpt`` runs, in GPT-2's layout and one float dtype (``parts``: the block parts allowed).

    >>> check_weights(np.zeros((2, 8)), np.zeros((5, 7)), blocks=[])
    Traceback (most recent call last):
    ...
    ValueError: wte and wpe must have shapes [n_vocab, n_embd] and [n_ctx, n_embd] with the same n_embd, got (2, 8) and (5, 7)
    """
    weights = check_gpt2_weights("", wte, wpe, blocks, ln_f, **({"parts": parts} if parts else {}))
    arrays = leaves(weights)
    if len({a.dtype for a in arrays}) > 1:
        raise TypeError(f"the weights must share one float dtype, got {sorted({str(a.dtype) for a in arrays})}")
    return weights


def check_model(model, name="model"):
    """A model dict as :func:`handtf.build_model` makes it (``attn`` only), its arrays checked by :func:`check_weights`."""
    if not isinstance(model, dict):
        raise TypeError(f"{name} must be a dict like build_model()'s, got {type(model).__name__}")
    check_keys(name, model, ("wte", "wpe", "blocks"), needs=", as build_model() makes it")
    return check_weights(**model, parts=("attn",))


def check_gpt(inputs, wte, wpe, blocks, n_head, ln_f):
    weights = check_weights(wte, wpe, blocks, ln_f)
    n_vocab, n_embd = weights["wte"].shape
    return weights | {
        "inputs": check_ids("inputs", inputs, n_vocab, n_ctx=weights["wpe"].shape[0]),
        "n_head": check_n_head(n_head, n_embd, name="n_embd"),
    }
