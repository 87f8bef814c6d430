"""Backpropagation by hand: one backward function for each forward building block.

For a forward function ``y = f(x, weights)`` the backward function takes
``dy`` (the gradient of the loss with respect to ``y``, the same shape as
``y``) and the forward function's own inputs, and returns the gradient with
respect to ``x`` and, where ``f`` has weights, a dict of gradients keyed like
the weights. Backward functions recompute the forward intermediates they need
rather than caching them, so each one reads as the chain rule for its forward
function and nothing else. The tests check every one against finite
differences in float64.

Shapes: ``...`` in a shape comment stands for any number of leading axes.
"""

import math

import numpy as np

from .activations import gelu, log_softmax, relu, softmax
from .attend import (
    attend_heads,
    attention_weights,
    check_attend_heads,
    check_attention,
    check_mha,
    check_multi_head_attention,
    merge_heads,
    mha,
    split_heads,
)
from .checks import check_array, check_ids, check_n_head, check_positive_int, check_real, check_tree, checked
from .layers import check_ffn, check_layer_norm, check_linear, ffn, layer_norm, linear
from .masks import causal_mask


@checked
# --8<-- [start:linear_backward]
# [..., n_out], [..., n_in], [n_in, n_out], [n_out] -> [..., n_in], {"w": [n_in, n_out], "b": [n_out]}
def linear_backward(dout, x, w, b):
    """``y = x @ w + b``: ``dx = dy @ wᵀ``, ``dw = xᵀ @ dy`` and ``db = Σ dy`` over every row.

    >>> dx, grads = linear_backward(np.array([[1.0, 2.0]]), np.array([[3.0]]), np.array([[1.0, 1.0]]), np.zeros(2))
    >>> dx, grads["w"], grads["b"]
    (array([[3.]]), array([[3., 6.]]), array([1., 2.]))
    """
    rows_x = x.reshape(-1, x.shape[-1])  # [rows, n_in], every leading axis flattened
    rows_d = dout.reshape(-1, dout.shape[-1])  # [rows, n_out]
    return dout @ w.T, {"w": rows_x.T @ rows_d, "b": rows_d.sum(axis=0)}
# --8<-- [end:linear_backward]


@checked
# --8<-- [start:softmax_backward]
# [..., n], [..., n] -> [..., n]
def softmax_backward(dout, probs):
    """``p = softmax(x)``: ``dx = p * (dp - Σ dp * p)`` row by row (``probs`` is the forward output).

    Adding the same number to a whole row of ``x`` leaves ``p`` unchanged, so
    every row of ``dx`` sums to 0.

    >>> p = np.array([0.25, 0.75])
    >>> softmax_backward(np.array([1.0, 0.0]), p)
    array([ 0.1875, -0.1875])
    """
    return probs * (dout - np.sum(dout * probs, axis=-1, keepdims=True))  # [..., n]
# --8<-- [end:softmax_backward]


@checked
# --8<-- [start:gelu_backward]
# [...], [...] -> [...]
def gelu_backward(dout, x):
    """The derivative of the tanh GELU, ``0.5 (1 + t) + 0.5 x (1 - t²) c (1 + 3·0.044715 x²)``.

    >>> gelu_backward(np.array([1.0, 1.0]), np.array([0.0, 10.0]))
    array([0.5, 1. ])
    """
    c = math.sqrt(2 / math.pi)
    t = np.tanh(c * (x + 0.044715 * x**3))  # [...]
    return dout * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * c * (1 + 3 * 0.044715 * x**2))  # [...]
# --8<-- [end:gelu_backward]


@checked
# --8<-- [start:relu_backward]
# [...], [...] -> [...]
def relu_backward(dout, x):
    """``max(0, x)`` passes the gradient where ``x > 0`` and stops it elsewhere.

    >>> relu_backward(np.array([5.0, 5.0]), np.array([-1.0, 2.0]))
    array([0., 5.])
    """
    return dout * (x > 0)  # [...]
# --8<-- [end:relu_backward]


ACTIVATION_BACKWARD = {gelu: gelu_backward, relu: relu_backward}


@checked
# --8<-- [start:ffn_backward]
# [..., n_embd], [..., n_embd] -> [..., n_embd], {"c_fc": ..., "c_proj": ...}
def ffn_backward(dout, x, c_fc, c_proj, activation=gelu):
    """The feed-forward network backwards: through ``c_proj``, the activation, then ``c_fc``.

    >>> c_fc = {"w": np.array([[1.0, -1.0]]), "b": np.zeros(2)}
    >>> c_proj = {"w": np.array([[1.0], [1.0]]), "b": np.zeros(1)}
    >>> dx, grads = ffn_backward(np.array([[1.0]]), np.array([[-3.0]]), c_fc, c_proj, activation=relu)
    >>> dx  # the forward pass computes |x|, whose slope at -3 is -1
    array([[-1.]])
    """
    hidden = linear(x, **c_fc)  # [..., n_hidden], before the activation
    dact, g_proj = linear_backward(dout, activation(hidden), **c_proj)  # [..., n_hidden]
    dhidden = ACTIVATION_BACKWARD[activation](dact, hidden)  # [..., n_hidden]
    dx, g_fc = linear_backward(dhidden, x, **c_fc)  # [..., n_embd]
    return dx, {"c_fc": g_fc, "c_proj": g_proj}
# --8<-- [end:ffn_backward]


@checked
# --8<-- [start:layer_norm_backward]
# [..., n], [..., n], [n], [n] -> [..., n], {"g": [n], "b": [n]}
def layer_norm_backward(dout, x, g, b, eps=1e-5):
    """Layer norm backwards. With ``x̂ = (x - mean) / std`` and ``dx̂ = dy * g``:
    ``dx = (dx̂ - mean(dx̂) - x̂ * mean(dx̂ * x̂)) / std``, each mean over the row.

    The two means are there because every entry of the row moves the row's
    mean and variance: ``dx`` of a row always sums to 0.

    >>> dx, grads = layer_norm_backward(np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]]), np.ones(2), np.zeros(2), eps=0)
    >>> dx, grads["g"], grads["b"]
    (array([[0., 0.]]), array([-1.,  0.]), array([1., 0.]))
    """
    std = np.sqrt(np.var(x, axis=-1, keepdims=True) + eps)  # [..., 1]
    x_hat = (x - np.mean(x, axis=-1, keepdims=True)) / std  # [..., n]
    dx_hat = dout * g  # [..., n]
    dx = (dx_hat - dx_hat.mean(axis=-1, keepdims=True) - x_hat * (dx_hat * x_hat).mean(axis=-1, keepdims=True)) / std
    rows = lambda a: a.reshape(-1, a.shape[-1])  # noqa: E731  [rows, n]
    return dx, {"g": np.sum(rows(dout * x_hat), axis=0), "b": np.sum(rows(dout), axis=0)}
# --8<-- [end:layer_norm_backward]


@checked
# --8<-- [start:attention_backward]
# [..., n_q, d_v], [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v], [n_q, n_k] -> dq, dk, dv
def attention_backward(dout, q, k, v, mask=0.0):
    """``softmax(q kᵀ / √d_k + mask) v`` backwards, one matrix product per line.

    The mask is a constant, so no gradient flows into it; a hidden key's weight
    is 0, so its ``k`` and ``v`` get nothing from that query.

    >>> q = k = v = np.eye(2)
    >>> dq, dk, dv = attention_backward(np.ones((2, 2)), q, k, v, causal_mask(2))
    >>> dv.round(4)  # key 0: all of query 0, 0.33 of query 1; key 1: 0.67 of query 1
    array([[1.3302, 1.3302],
           [0.6698, 0.6698]])
    """
    weights = attention_weights(q, k, mask)  # [..., n_q, n_k], recomputed
    dweights = dout @ v.swapaxes(-1, -2)  # [..., n_q, n_k]
    dv = weights.swapaxes(-1, -2) @ dout  # [..., n_k, d_v]
    dscores = softmax_backward(dweights, weights) / math.sqrt(q.shape[-1])  # [..., n_q, n_k]
    return dscores @ k, dscores.swapaxes(-1, -2) @ q, dv  # [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v]
# --8<-- [end:attention_backward]


@checked
# --8<-- [start:attend_heads_backward]
# [..., n_q, d_v], [..., n_q, d], [..., n_k, d], [..., n_k, d_v], n_head, [n_q, n_k] -> dq, dk, dv
def attend_heads_backward(dout, q, k, v, n_head, mask=None):
    """Split into heads, run ``attention_backward`` in every head, merge the gradients back.

    >>> q = k = v = np.eye(2)
    >>> [g.shape for g in attend_heads_backward(np.ones((2, 2)), q, k, v, 2, causal_mask(2))]
    [(2, 2), (2, 2), (2, 2)]
    """
    mask = 0.0 if mask is None else mask[..., None, :, :]  # [..., 1, n_q, n_k], the same mask for every head
    heads = (split_heads(a, n_head) for a in (dout, q, k, v))  # each [..., n_head, n_seq, d_head]
    return tuple(merge_heads(g) for g in attention_backward(*heads, mask))  # 3 of [..., n_seq, d]
# --8<-- [end:attend_heads_backward]


@checked
# --8<-- [start:mha_backward]
# [..., n_seq, n_embd], [..., n_seq, n_embd] -> [..., n_seq, n_embd], {"c_attn": ..., "c_proj": ...}
def mha_backward(dout, x, c_attn, c_proj, n_head=1):
    """Causal multi-head self-attention backwards (``nn.mha``; with one head, the hand-made model's).

    q, k and v all come from ``x``, so ``x`` gets the sum of the three paths,
    through the one matrix ``c_attn``.
    """
    q, k, v = np.split(linear(x, **c_attn), 3, axis=-1)  # 3 of [..., n_seq, n_embd]
    mask = causal_mask(x.shape[-2], x.dtype)  # [n_seq, n_seq]
    heads = attend_heads(q, k, v, n_head, mask)  # [..., n_seq, n_embd], the input of c_proj
    dheads, g_proj = linear_backward(dout, heads, **c_proj)  # [..., n_seq, n_embd]
    dqkv = np.concatenate(attend_heads_backward(dheads, q, k, v, n_head, mask), axis=-1)  # [..., n_seq, 3*n_embd]
    dx, g_attn = linear_backward(dqkv, x, **c_attn)  # [..., n_seq, n_embd]
    return dx, {"c_attn": g_attn, "c_proj": g_proj}
# --8<-- [end:mha_backward]


@checked
# --8<-- [start:multi_head_attention_backward]
def multi_head_attention_backward(dout, x, memory, c_q, c_k, c_v, c_proj, n_head, mask=None):
    """``nn.multi_head_attention`` backwards: gradients for ``x`` (queries), ``memory`` (keys, values), weights.

    In the decoder's cross-attention ``memory`` is the encoder's output, so
    its gradient is how the loss reaches the encoder.
    """
    q, k, v = linear(x, **c_q), linear(memory, **c_k), linear(memory, **c_v)  # [..., n_q|n_k, n_embd]
    heads = attend_heads(q, k, v, n_head, mask)  # [..., n_q, n_embd]
    dheads, g_proj = linear_backward(dout, heads, **c_proj)
    dq, dk, dv = attend_heads_backward(dheads, q, k, v, n_head, mask)
    dx, g_q = linear_backward(dq, x, **c_q)
    dmem_k, g_k = linear_backward(dk, memory, **c_k)
    dmem_v, g_v = linear_backward(dv, memory, **c_v)
    return dx, dmem_k + dmem_v, {"c_q": g_q, "c_k": g_k, "c_v": g_v, "c_proj": g_proj}
# --8<-- [end:multi_head_attention_backward]


@checked
# --8<-- [start:embedding_backward]
# [..., n_seq, n_embd], [..., n_seq], n_vocab -> [n_vocab, n_embd]
def embedding_backward(dout, tokens, n_vocab):
    """``wte[tokens]`` backwards: each row of ``dout`` is added to the row of its token.

    A token that occurs twice collects both gradients (``np.add.at`` adds
    repeated indices; ``dwte[tokens] += dout`` would keep only one).

    >>> embedding_backward(np.array([[1.0], [2.0], [4.0]]), np.array([0, 1, 0]), n_vocab=2)
    array([[5.],
           [2.]])
    """
    dwte = np.zeros((n_vocab, dout.shape[-1]), dtype=dout.dtype)  # [n_vocab, n_embd]
    np.add.at(dwte, tokens.reshape(-1), dout.reshape(-1, dout.shape[-1]))
    return dwte
# --8<-- [end:embedding_backward]


@checked
# --8<-- [start:smoothed_targets]
# [...], n_vocab, smoothing -> [..., n_vocab]
def smoothed_targets(targets, n_vocab, smoothing=0.0):
    """The target distribution: ``1 - smoothing`` on the right token plus ``smoothing`` spread evenly over all tokens.

    With ``smoothing = 0`` it is the one-hot vector of plain cross-entropy.

    >>> smoothed_targets(np.array([1]), n_vocab=4, smoothing=0.1)
    array([[0.025, 0.925, 0.025, 0.025]])
    """
    return (1 - smoothing) * np.eye(n_vocab)[targets] + smoothing / n_vocab  # [..., n_vocab]
# --8<-- [end:smoothed_targets]


@checked
# --8<-- [start:soft_cross_entropy]
# [..., n_vocab], [..., n_vocab] -> scalar
def soft_cross_entropy(logits, target_probs):
    """The mean over positions of ``-Σ target_probs * log softmax(logits)``.

    With one-hot targets this is ``nn.cross_entropy``.

    >>> soft_cross_entropy(np.zeros((1, 4)), smoothed_targets(np.array([1]), 4, 0.1)) == float(np.log(4))
    True
    """
    return float(np.mean(np.sum(target_probs * -log_softmax(logits), axis=-1)))
# --8<-- [end:soft_cross_entropy]


@checked
# --8<-- [start:cross_entropy_backward]
# [..., n_vocab], [..., n_vocab] -> [..., n_vocab]
def cross_entropy_backward(logits, target_probs):
    """The gradient of ``soft_cross_entropy`` for its logits: ``(softmax(logits) - target_probs) / n_positions``.

    >>> cross_entropy_backward(np.zeros((1, 2)), np.array([[1.0, 0.0]]))
    array([[-0.5,  0.5]])
    """
    n_positions = math.prod(logits.shape[:-1])
    return (softmax(logits) - target_probs) / n_positions  # [..., n_vocab]
# --8<-- [end:cross_entropy_backward]


# The boundary (see handtf.checks): what each function above accepts. A backward
# function takes what its forward function takes, plus ``dout`` shaped like the forward output.


def check_dout(dout, shape):
    dout = check_array("dout", dout, nonempty=False)
    if dout.shape != tuple(shape):
        raise ValueError(f"dout must have the shape of the forward output, {tuple(shape)}, got {dout.shape}")
    return dout


def check_linear_backward(dout, x, w, b):
    args = check_linear(x, w, b)
    return args | {"dout": check_dout(dout, args["x"].shape[:-1] + args["w"].shape[1:])}


def check_softmax_backward(dout, probs):
    probs = check_array("probs", probs, min_ndim=1)
    return {"dout": check_dout(dout, probs.shape), "probs": probs}


def check_gelu_backward(dout, x):
    x = check_array("x", x)
    return {"dout": check_dout(dout, x.shape), "x": x}


check_relu_backward = check_gelu_backward


def check_ffn_backward(dout, x, c_fc, c_proj, activation):
    if activation not in ACTIVATION_BACKWARD:
        raise ValueError(f"activation must be handtf.gelu or handtf.relu (they have a backward function), got {activation!r}")
    args = check_ffn(x, c_fc, c_proj, activation) | {"activation": activation}
    return args | {"dout": check_dout(dout, args["x"].shape)}


def check_layer_norm_backward(dout, x, g, b, eps):
    args = check_layer_norm(x, g, b, eps)
    return args | {"dout": check_dout(dout, args["x"].shape)}


def _output_shape(q, v):
    return np.broadcast_shapes(q.shape[:-2], v.shape[:-2]) + (q.shape[-2], v.shape[-1])


def check_attention_backward(dout, q, k, v, mask):
    args = check_attention(q, k, v, mask, record=print)
    del args["record"]
    return args | {"dout": check_dout(dout, _output_shape(args["q"], args["v"]))}


def check_attend_heads_backward(dout, q, k, v, n_head, mask):
    args = check_attend_heads(q, k, v, n_head, mask)
    return args | {"dout": check_dout(dout, _output_shape(args["q"], args["v"]))}


def check_mha_backward(dout, x, c_attn, c_proj, n_head):
    args = check_mha(x, c_attn, c_proj, n_head)
    return args | {"dout": check_dout(dout, args["x"].shape)}


def check_multi_head_attention_backward(dout, x, memory, c_q, c_k, c_v, c_proj, n_head, mask):
    args = check_multi_head_attention(x, memory, c_q, c_k, c_v, c_proj, n_head, mask)
    return args | {"dout": check_dout(dout, _output_shape(args["x"], args["x"]))}


def check_embedding_backward(dout, tokens, n_vocab):
    n_vocab = check_positive_int("n_vocab", n_vocab)
    tokens = check_ids("tokens", tokens, n_vocab)
    dout = check_array("dout", dout, min_ndim=tokens.ndim + 1)
    check_dout(dout, tokens.shape + dout.shape[-1:])
    return {"dout": dout, "tokens": tokens, "n_vocab": n_vocab}


def check_smoothed_targets(targets, n_vocab, smoothing):
    n_vocab = check_positive_int("n_vocab", n_vocab)
    return {
        "targets": check_ids("targets", targets, n_vocab),
        "n_vocab": n_vocab,
        "smoothing": check_real("smoothing", smoothing, 0, 1, allowed="a number from 0 to 1"),
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
