"""The encoder-decoder's pieces, each forward function with its backward function right below it.

The embedding (token embeddings times ``sqrt(d_model)`` plus sinusoidal positions), the two residual
connections and the two blocks of "Attention Is All You Need" (section 3), built from the package's
building blocks (``attend``, ``layers``, ``masks``, ``positions``). The paper puts the norm after the
sum, ``LayerNorm(x + Sublayer(x))`` (``post_norm``); GPT-2 puts it before, ``x + Sublayer(LayerNorm(x))``
(``pre_norm``). ``keep`` holds the dropout masks of the sublayers' outputs (1.0, no dropout, by default):
``handtf.seq2seq.training`` runs these very blocks with dropout.

A backward function takes ``dout`` (the gradient for its forward function's output) and its forward
function's own arguments, and returns ``dx`` and the gradients of the weights, keyed like the weights.
"""

import math
from types import MappingProxyType

import numpy as np

from ..blocks.activations import relu
from ..blocks.attend import multi_head_attention, multi_head_attention_backward
from ..checks import check_array, check_callable, check_dout, check_ids, check_mask, check_n_head, checked
from ..layouts import check_keys, check_tree, dense_width
from ..blocks.layers import embedding_backward, ffn, ffn_backward, layer_norm, layer_norm_backward
from ..blocks.masks import causal_mask
from ..blocks.positions import positional_encoding


@checked
# --8<-- [start:embed]
# [..., n_seq], [n_vocab, d_model] -> [..., n_seq, d_model]
def embed(tokens, wte):
    """Token embeddings times ``sqrt(d_model)``, plus the positional encoding.

    >>> embed(np.array([1, 0]), wte=np.array([[0.0, 0.0], [0.5, 0.5]]))
    array([[0.70710678, 1.70710678],
           [0.84147098, 0.54030231]])
    """
    n_seq, d_model = tokens.shape[-1], wte.shape[-1]
    # [n_seq, d_model]
    positions = positional_encoding(n_seq, d_model).astype(wte.dtype)
    # [..., n_seq, d_model]
    return wte[tokens] * math.sqrt(d_model) + positions
# --8<-- [end:embed]


@checked
# [..., n_seq, d_model], [..., n_seq], [n_vocab, d_model] -> [n_vocab, d_model]
def embed_backward(dout, tokens, wte):
    """``embed`` backwards: the positional encoding is a constant, the scale ``sqrt(d_model)`` multiplies through."""
    return embedding_backward(dout * math.sqrt(wte.shape[-1]), tokens, wte.shape[0])  # [n_vocab, d_model]


@checked
# --8<-- [start:post_norm]
# [..., n_seq, d_model] -> [..., n_seq, d_model]
def post_norm(x, sublayer, ln, keep=1.0):
    """The paper's residual connection: ``LayerNorm(x + Sublayer(x))``.

    >>> ln = {"g": np.ones(2), "b": np.zeros(2)}
    >>> post_norm(np.array([[0.0, 1.0]]), lambda h: h, ln).round(3)
    array([[-1.,  1.]])
    """
    return layer_norm(x + keep * sublayer(x), **ln)  # [..., n_seq, d_model]
# --8<-- [end:post_norm]


@checked
# --8<-- [start:post_norm_backward]
# [..., n_seq, d_model], [..., n_seq, d_model] -> dx, grads, the norm's grads
def post_norm_backward(dout, x, sublayer, ln, keep=1.0):
    """``post_norm`` backwards, ``LayerNorm(x + keep * Sublayer(x))``;
    ``sublayer`` is the pair (forward, backward)."""
    forward, backward = sublayer
    # through the norm first
    dsum, g_ln = layer_norm_backward(dout, x + keep * forward(x), **ln)
    dh, grads = backward(dsum * keep, x)
    # the residual path plus the sublayer's path
    return dsum + dh, grads, g_ln
# --8<-- [end:post_norm_backward]


@checked
# --8<-- [start:pre_norm]
# [..., n_seq, d_model] -> [..., n_seq, d_model]
def pre_norm(x, sublayer, ln, keep=1.0):
    """GPT-2's residual connection: ``x + Sublayer(LayerNorm(x))``; the sum
    itself is never normalised.

    >>> ln = {"g": np.ones(2), "b": np.zeros(2)}
    >>> pre_norm(np.array([[0.0, 1.0]]), lambda h: h, ln).round(3)
    array([[-1.,  2.]])
    """
    return x + keep * sublayer(layer_norm(x, **ln))  # [..., n_seq, d_model]
# --8<-- [end:pre_norm]


@checked
# [..., n_seq, d_model], [..., n_seq, d_model] -> dx, grads, the norm's grads
def pre_norm_backward(dout, x, sublayer, ln, keep=1.0):
    """``pre_norm`` backwards, ``x + keep * Sublayer(LayerNorm(x))``."""
    _, backward = sublayer
    dh, grads = backward(dout * keep, layer_norm(x, **ln))
    dx, g_ln = layer_norm_backward(dh, x, **ln)
    return dout + dx, grads, g_ln


RESIDUALS = MappingProxyType({"post": post_norm, "pre": pre_norm})

BACKWARD = MappingProxyType({post_norm: post_norm_backward, pre_norm: pre_norm_backward})


# For the blocks' backward functions, a sublayer is a pair (forward, backward) of h -> out; backward
# returns (dh, grads).


def _self_attention(params, n_head, mask):
    def backward(dout, h):
        dx, dmem, grads = multi_head_attention_backward(dout, h, h, **params, n_head=n_head, mask=mask)
        return dx + dmem, grads  # queries, keys and values all come from h

    return lambda h: multi_head_attention(h, h, **params, n_head=n_head, mask=mask), backward


def _cross_attention(params, n_head, memory, mask):
    def backward(dout, h):
        dx, dmem, grads = multi_head_attention_backward(dout, h, memory, **params, n_head=n_head, mask=mask)
        return dx, (grads, dmem)  # keys and values come from memory

    return lambda h: multi_head_attention(h, memory, **params, n_head=n_head, mask=mask), backward


def _feed_forward(params):
    return lambda h: ffn(h, **params, activation=relu), lambda dout, h: ffn_backward(dout, h, **params, activation=relu)


@checked
# --8<-- [start:encoder_block]
# [..., n_src, d_model] -> [..., n_src, d_model]
def encoder_block(x, self_attn, ln_1, mlp, ln_2, n_head, src_mask=None,
                  residual=post_norm, keep=(1.0, 1.0)):
    """Self-attention over the whole source, then the feed-forward network,
    each in a residual.

    >>> from handtf.seq2seq import Config, init_params
    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> params = init_params(config, seed=0)
    >>> x = np.ones((3, 8))
    >>> encoder_block(x, **params["encoder"]["blocks"][0], n_head=2).shape
    (3, 8)
    """
    x = residual(x, lambda h: multi_head_attention(
        h, h, **self_attn, n_head=n_head, mask=src_mask), ln_1, keep[0])
    # [..., n_src, d_model]
    return residual(x, lambda h: ffn(h, **mlp, activation=relu), ln_2,
                    keep[1])
# --8<-- [end:encoder_block]


@checked
# [..., n_src, d_model], [..., n_src, d_model] -> [..., n_src, d_model], grads like the block
def encoder_block_backward(dout, x, self_attn, ln_1, mlp, ln_2, n_head, src_mask=None, residual=post_norm, keep=(1.0, 1.0)):
    """``encoder_block`` backwards: ``dx`` and the block's grads."""
    attend = _self_attention(self_attn, n_head, src_mask)
    x_2 = residual(x, attend[0], ln_1, keep[0])  # the second sublayer's input
    backward, grads = BACKWARD[residual], {}
    dx, grads["mlp"], grads["ln_2"] = backward(dout, x_2, _feed_forward(mlp), ln_2, keep[1])
    dx, grads["self_attn"], grads["ln_1"] = backward(dx, x, attend, ln_1, keep[0])
    return dx, grads


@checked
# --8<-- [start:decoder_block]
# [..., n_tgt, d_model], [..., n_src, d_model] -> [..., n_tgt, d_model]
def decoder_block(x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3,
                  n_head, src_mask=None, residual=post_norm,
                  keep=(1.0, 1.0, 1.0)):
    """Masked self-attention, attention over the encoder's output,
    feed-forward; each in a residual.

    >>> from handtf.seq2seq import Config, init_params
    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> block = init_params(config, seed=0)["decoder"]["blocks"][0]
    >>> x, memory = np.ones((2, 8)), np.ones((3, 8))
    >>> decoder_block(x, memory, **block, n_head=2).shape
    (2, 8)
    """
    future = causal_mask(x.shape[-2], x.dtype)  # [n_tgt, n_tgt]
    x = residual(x, lambda h: multi_head_attention(
        h, h, **self_attn, n_head=n_head, mask=future), ln_1, keep[0])
    x = residual(x, lambda h: multi_head_attention(
        h, memory, **cross_attn, n_head=n_head, mask=src_mask), ln_2, keep[1])
    # [..., n_tgt, d_model]
    return residual(x, lambda h: ffn(h, **mlp, activation=relu), ln_3,
                    keep[2])
# --8<-- [end:decoder_block]


@checked
# [..., n_tgt, d_model], [..., n_tgt, d_model], [..., n_src, d_model] -> dx, dmemory, grads like the block
def decoder_block_backward(dout, x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3, n_head, src_mask=None,
                           residual=post_norm, keep=(1.0, 1.0, 1.0)):
    """``decoder_block`` backwards: ``dx``, ``dmemory`` (how the loss reaches the encoder) and the block's grads."""
    attend = _self_attention(self_attn, n_head, causal_mask(x.shape[-2], x.dtype))
    cross = _cross_attention(cross_attn, n_head, memory, src_mask)
    x_2 = residual(x, attend[0], ln_1, keep[0])  # the second sublayer's input
    x_3 = residual(x_2, cross[0], ln_2, keep[1])  # the third's
    backward, grads = BACKWARD[residual], {}
    dx, grads["mlp"], grads["ln_3"] = backward(dout, x_3, _feed_forward(mlp), ln_3, keep[2])
    dx, (grads["cross_attn"], dmemory), grads["ln_2"] = backward(dx, x_2, cross, ln_2, keep[1])
    dx, grads["self_attn"], grads["ln_1"] = backward(dx, x, attend, ln_1, keep[0])
    return dx, dmemory, grads


# The boundary (see handtf.checks): what each function above accepts.


def block_shapes(kind, d_model, d_ff):
    """The shape of every array of one ``"encoder"`` or ``"decoder"`` block, as ``init_params`` makes it.

    >>> block_shapes("encoder", 8, 32)["mlp"]["c_fc"]
    {'w': (8, 32), 'b': (32,)}
    """

    def dense(n_in, n_out):
        return {"w": (n_in, n_out), "b": (n_out,)}

    ln = {"g": (d_model,), "b": (d_model,)}
    attn = {name: dense(d_model, d_model) for name in ("c_q", "c_k", "c_v", "c_proj")}
    mlp = {"c_fc": dense(d_model, d_ff), "c_proj": dense(d_ff, d_model)}
    if kind == "encoder":
        return {"self_attn": attn, "ln_1": ln, "mlp": mlp, "ln_2": ln}
    return {"self_attn": attn, "ln_1": ln, "cross_attn": attn, "ln_2": ln, "mlp": mlp, "ln_3": ln}


def check_src_mask(src_mask, batch_shape, n_q, n_src):
    return check_mask(src_mask, tuple(batch_shape) + (n_q, n_src), "src_mask", min_ndim=2)


def check_residual_input(x, ln):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, d_model]")
    return x, check_tree("ln", ln, {"g": (x.shape[-1],), "b": (x.shape[-1],)})


def check_embed(tokens, wte):
    wte = check_array("wte", wte, ndim=2)
    if wte.shape[1] % 2:
        raise ValueError(f"wte must have an even d_model (the positional encoding pairs sin and cos), got shape {wte.shape}")
    return {"tokens": check_ids("tokens", tokens, wte.shape[0]), "wte": wte}


def check_post_norm(x, sublayer, ln, keep):
    x, ln = check_residual_input(x, ln)
    return {"x": x, "sublayer": check_callable("sublayer", sublayer), "ln": ln, "keep": check_keep(keep, x.shape)}


def check_keep(keep, shape, n=None):
    """Dropout masks (dropout_mask makes them) of x's shape, or 1.0 (no dropout): one, or ``n`` for a block's sublayers."""
    masks = (keep,) if n is None else keep if isinstance(keep, (tuple, list)) and len(keep) == n else None
    if masks is None or any(not (isinstance(m, float) and m == 1.0) and np.shape(m) != tuple(shape) for m in masks):
        raise ValueError(f"keep must be {n or 1} dropout mask(s) of shape {tuple(shape)} or 1.0 (no dropout), got {keep!r:.80}")
    return keep if n is None else tuple(keep)


check_pre_norm = check_post_norm


def check_block(x, n_head, residual, blocks_key, **block):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, d_model]")
    d_model = x.shape[-1]
    check_n_head(n_head, d_model, name="d_model, the last axis of x")
    shapes = block_shapes(blocks_key, d_model, dense_hidden(block.get("mlp")))
    if residual not in RESIDUALS.values():
        raise ValueError("residual must be post_norm (the paper) or pre_norm (GPT-2)")
    return {"x": x, **check_tree("block", block, shapes)}


def dense_hidden(mlp):
    """The hidden width d_ff of an ``mlp`` dict, read from ``c_fc``'s ``w`` (checked fully afterwards)."""
    check_keys("mlp", mlp, ("c_fc", "c_proj"))
    return dense_width("mlp['c_fc']", mlp["c_fc"])


def check_encoder_block(x, self_attn, ln_1, mlp, ln_2, n_head, src_mask, residual, keep):
    block = dict(self_attn=self_attn, ln_1=ln_1, mlp=mlp, ln_2=ln_2)
    checked_args = check_block(x, n_head, residual, "encoder", **block)
    x = checked_args["x"]
    src_mask = check_src_mask(src_mask, x.shape[:-2], x.shape[-2], x.shape[-2])
    return checked_args | {"src_mask": src_mask, "keep": check_keep(keep, x.shape, 2)}


def check_decoder_block(x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3, n_head, src_mask, residual, keep):
    block = dict(self_attn=self_attn, ln_1=ln_1, cross_attn=cross_attn, ln_2=ln_2, mlp=mlp, ln_3=ln_3)
    checked_args = check_block(x, n_head, residual, "decoder", **block)
    memory = check_memory(memory, checked_args["x"].shape[-1])
    x = checked_args["x"]
    batch = np.broadcast_shapes(x.shape[:-2], memory.shape[:-2])
    src_mask = check_src_mask(src_mask, batch, x.shape[-2], memory.shape[-2])
    return checked_args | {"memory": memory, "src_mask": src_mask, "keep": check_keep(keep, x.shape, 3)}


def check_memory(memory, d_model):
    memory = check_array("memory", memory, min_ndim=2, shape="[..., n_src, d_model]")
    if memory.shape[-1] != d_model:
        raise ValueError(f"memory must have shape [..., n_src, d_model={d_model}], got {memory.shape}")
    return memory


def check_embed_backward(dout, tokens, wte):
    args = check_embed(tokens, wte)
    return args | {"dout": check_dout(dout, args["tokens"].shape + args["wte"].shape[1:])}


def check_post_norm_backward(dout, x, sublayer, ln, keep):
    if not (isinstance(sublayer, tuple) and len(sublayer) == 2 and all(map(callable, sublayer))):
        raise TypeError(f"sublayer must be a pair of functions (forward, backward), got {sublayer!r:.80}")
    args = check_post_norm(x, sublayer[0], ln, keep) | {"sublayer": sublayer}
    return args | {"dout": check_dout(dout, args["x"].shape)}


check_pre_norm_backward = check_post_norm_backward


def check_encoder_block_backward(dout, x, self_attn, ln_1, mlp, ln_2, n_head, src_mask, residual, keep):
    args = check_encoder_block(x, self_attn, ln_1, mlp, ln_2, n_head, src_mask, residual, keep)
    return args | {"dout": check_dout(dout, args["x"].shape)}


def check_decoder_block_backward(dout, x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3, n_head, src_mask, residual,
                                 keep):
    args = check_decoder_block(x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3, n_head, src_mask, residual, keep)
    return args | {"dout": check_dout(dout, args["x"].shape)}
