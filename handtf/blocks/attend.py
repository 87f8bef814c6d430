"""Attention: the one ``attention`` of handtf, and multi-head attention built on it.

``attention`` is "Attention Is All You Need"'s scaled dot-product attention
(Vaswani et al., 2017, arXiv:1706.03762, section 3.2.1). GPT-2's
``causal_self_attention`` (:mod:`handtf.model.transformer`), the multi-head functions
below and the encoder-decoder all call it.
It computes and returns, nothing else; :func:`handtf.trace` keeps its
variables from outside (:class:`handtf.model.recording.Recorder`) and shows these
very arrays.

Every function takes one sequence ``[n_seq, d]`` or a batch
``[n_batch, n_seq, d]``; a leading ``...`` in a shape comment stands for either.
Below each forward function is its backward function (see
:mod:`handtf.blocks.activations` for the convention).
"""

import math

import numpy as np

from .activations import softmax, softmax_backward
from ..checks import check_array, check_mask, check_n_head, checked
from ..layouts import check_dense
from .layers import linear, linear_backward
from .masks import causal_mask


@checked
# --8<-- [start:attention_weights]
# [..., n_q, d_k], [..., n_k, d_k], [..., n_q, n_k] -> [..., n_q, n_k]
def attention_weights(q, k, mask=0.0):
    """``softmax(q @ k^T / sqrt(d_k) + mask)``: how much each query attends
    to each key.

    ``mask`` is added to the scores (0 keeps a key, a large negative number
    hides it) and may be anything that broadcasts to ``[..., n_q, n_k]``;
    a boolean mask is refused (make one with ``causal_mask`` or
    ``padding_mask``). Queries and keys may come from different sequences
    (``n_q != n_k``).

    >>> emb = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> attention_weights(emb, emb).round(4)
    array([[0.4555, 0.3199, 0.2246],
           [0.3333, 0.3333, 0.3333],
           [0.2246, 0.3199, 0.4555]])
    """
    # how well each query matches each key
    scores = q @ k.swapaxes(-1, -2)  # [..., n_q, n_k]
    scaled_scores = scores / math.sqrt(q.shape[-1])  # [..., n_q, n_k]
    # hidden keys get a large negative score
    masked_scores = scaled_scores + mask  # [..., n_q, n_k]
    weights = softmax(masked_scores)  # [..., n_q, n_k], each row sums to 1
    return weights
# --8<-- [end:attention_weights]


@checked
# --8<-- [start:attention]
# [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v], [..., n_q, n_k]
#   -> [..., n_q, d_v]
def attention(q, k, v, mask=0.0):
    """Each query's output is the average of the values, weighted by
    ``attention_weights``.

    >>> emb = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> attention(emb, emb, emb).round(4)
    array([[0.6155, 0.3845],
           [0.5   , 0.5   ],
           [0.3845, 0.6155]])
    """
    weights = attention_weights(q, k, mask)  # [..., n_q, n_k]
    # [..., n_q, n_k] @ [..., n_k, d_v] -> [..., n_q, d_v]
    output = weights @ v
    return output
# --8<-- [end:attention]


@checked(forward=attention)
# --8<-- [start:attention_backward]
# [..., n_q, d_v], [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v],
#   [n_q, n_k] -> dq, dk, dv
def attention_backward(dout, q, k, v, mask=0.0):
    """``softmax(q kᵀ / √d_k + mask) v`` backwards, one matrix product per
    line.

    The mask is a constant, so no gradient flows into it; a hidden key's weight
    is 0, so its ``k`` and ``v`` get nothing from that query.

    >>> q = k = v = np.eye(2)
    >>> dout = np.ones((2, 2))
    >>> dq, dk, dv = attention_backward(dout, q, k, v, causal_mask(2))
    >>> # key 0: all of query 0, 0.33 of query 1; key 1: 0.67 of query 1
    >>> dv.round(4)
    array([[1.3302, 1.3302],
           [0.6698, 0.6698]])
    """
    weights = attention_weights(q, k, mask)  # [..., n_q, n_k], recomputed
    dweights = dout @ v.swapaxes(-1, -2)  # [..., n_q, n_k]
    dv = weights.swapaxes(-1, -2) @ dout  # [..., n_k, d_v]
    # [..., n_q, n_k]
    dscores = softmax_backward(dweights, weights) / math.sqrt(q.shape[-1])
    # [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v]
    return dscores @ k, dscores.swapaxes(-1, -2) @ q, dv
# --8<-- [end:attention_backward]


@checked
# --8<-- [start:split_heads]
# [..., n_seq, n_embd] -> [..., n_head, n_seq, n_embd/n_head]
def split_heads(x, n_head):
    """Cut the last axis into ``n_head`` slices and move the head axis in
    front of the positions.

    >>> split_heads(np.arange(8.0).reshape(2, 4), n_head=2)
    array([[[0., 1.],
            [4., 5.]],
    <BLANKLINE>
           [[2., 3.],
            [6., 7.]]])
    """
    # [..., n_seq, n_head, d_head]
    x = x.reshape(*x.shape[:-1], n_head, x.shape[-1] // n_head)
    return x.swapaxes(-2, -3)  # [..., n_head, n_seq, d_head]
# --8<-- [end:split_heads]


@checked
# --8<-- [start:merge_heads]
# [..., n_head, n_seq, d_head] -> [..., n_seq, n_head*d_head]
def merge_heads(x):
    """Undo ``split_heads``: put the heads' slices side by side again.

    >>> x = np.arange(8.0).reshape(2, 4)
    >>> bool(np.array_equal(merge_heads(split_heads(x, n_head=2)), x))
    True
    """
    x = x.swapaxes(-2, -3)  # [..., n_seq, n_head, d_head]
    # [..., n_seq, n_head*d_head]
    return x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])
# --8<-- [end:merge_heads]


@checked
# --8<-- [start:attend_heads]
# [..., n_q, d], [..., n_k, d], [..., n_k, d_v], [..., n_q, n_k]
#   -> [..., n_q, d_v]
def attend_heads(q, k, v, n_head, mask=None):
    """Split projected queries, keys and values into heads, attend in each
    head, merge.

    Every head uses the same ``mask`` (shape ``[n_q, n_k]`` or
    ``[n_batch, n_q, n_k]``, or anything broadcasting to it).

    >>> emb = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> attend_heads(emb, emb, emb, n_head=1).round(4)  # plain attention
    array([[0.6155, 0.3845],
           [0.5   , 0.5   ],
           [0.3845, 0.6155]])
    """
    # the same mask for every head
    mask = 0.0 if mask is None else mask[..., None, :, :]  # [..., 1, n_q, n_k]
    heads = attention(split_heads(q, n_head), split_heads(k, n_head),
                      split_heads(v, n_head), mask)
    # [..., n_head, n_q, d_v/n_head] -> [..., n_q, d_v]
    return merge_heads(heads)
# --8<-- [end:attend_heads]


@checked(forward=attend_heads)
# [..., n_q, d_v], [..., n_q, d], [..., n_k, d], [..., n_k, d_v], n_head,
#   [n_q, n_k] -> dq, dk, dv
def attend_heads_backward(dout, q, k, v, n_head, mask=None):
    """Split into heads, run ``attention_backward`` in every head, merge the
    gradients back.

    >>> q = k = v = np.eye(2)
    >>> dout, mask = np.ones((2, 2)), causal_mask(2)
    >>> [g.shape for g in attend_heads_backward(dout, q, k, v, 2, mask)]
    [(2, 2), (2, 2), (2, 2)]
    """
    # the same mask for every head
    mask = 0.0 if mask is None else mask[..., None, :, :]  # [..., 1, n_q, n_k]
    # each [..., n_head, n_seq, d_head]
    heads = (split_heads(a, n_head) for a in (dout, q, k, v))
    # 3 of [..., n_seq, d]
    return tuple(merge_heads(g) for g in attention_backward(*heads, mask))


@checked
# --8<-- [start:multi_head_attention]
# [..., n_q, n_embd], [..., n_k, n_mem], [..., n_q, n_k] -> [..., n_q, n_embd]
def multi_head_attention(x, memory, c_q, c_k, c_v, c_proj, n_head, mask=None):
    """The paper's MultiHead(Q, K, V): queries from ``x``, keys and values
    from ``memory``.

    Each of ``c_q``, ``c_k``, ``c_v`` projects to ``n_embd``; ``c_proj`` (the
    paper's W^O) maps the merged heads back. With ``memory = x`` this is
    self-attention (pass ``causal_mask`` to hide the future); with the
    encoder's output as ``memory`` it is the decoder's cross-attention.

    >>> eye = {"w": np.eye(2), "b": np.zeros(2)}
    >>> x = np.array([[1.0, 0.0]])
    >>> memory = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> multi_head_attention(x, memory, eye, eye, eye, eye, n_head=1).round(4)
    array([[0.6155, 0.3845]])
    """
    q = linear(x, **c_q)  # [..., n_q, n_embd]
    k = linear(memory, **c_k)  # [..., n_k, n_mem] -> [..., n_k, n_embd]
    v = linear(memory, **c_v)  # [..., n_k, n_mem] -> [..., n_k, n_embd]
    x = attend_heads(q, k, v, n_head, mask)  # [..., n_q, n_embd]
    return linear(x, **c_proj)  # [..., n_q, n_embd]
# --8<-- [end:multi_head_attention]


@checked(forward=multi_head_attention)
# [..., n_q, n_embd], [..., n_q, n_embd], [..., n_k, n_mem]
#   -> [..., n_q, n_embd], [..., n_k, n_mem], {"c_q": ..., ...}
def multi_head_attention_backward(dout, x, memory, c_q, c_k, c_v, c_proj,
                                  n_head, mask=None):
    """``multi_head_attention`` backwards: gradients for ``x`` (queries),
    ``memory`` (keys, values), weights.

    In the decoder's cross-attention ``memory`` is the encoder's output, so
    its gradient is how the loss reaches the encoder.
    """
    # [..., n_q|n_k, n_embd]
    q, k, v = linear(x, **c_q), linear(memory, **c_k), linear(memory, **c_v)
    heads = attend_heads(q, k, v, n_head, mask)  # [..., n_q, n_embd]
    # [..., n_q, n_embd]
    dheads, g_proj = linear_backward(dout, heads, **c_proj)
    # [..., n_q|n_k|n_k, n_embd]
    dq, dk, dv = attend_heads_backward(dheads, q, k, v, n_head, mask)
    dx, g_q = linear_backward(dq, x, **c_q)  # [..., n_q, n_embd]
    dmem_k, g_k = linear_backward(dk, memory, **c_k)  # [..., n_k, n_mem]
    dmem_v, g_v = linear_backward(dv, memory, **c_v)  # [..., n_k, n_mem]
    grads = {"c_q": g_q, "c_k": g_k, "c_v": g_v, "c_proj": g_proj}
    return dx, dmem_k + dmem_v, grads


# The boundary (see handtf.checks): what each function above accepts.


def check_query_key(q, k, v=None):
    """q [..., n_q, d_k] and k [..., n_k, d_k] (and v [..., n_k, d_v]) as arrays whose batch axes broadcast."""
    if np.ndim(q) < 2 or np.ndim(k) < 2:
        raise ValueError(
            f"q and k must have shape [..., n_q, d_k] and [..., n_k, d_k], got {np.shape(q)} and {np.shape(k)}"
        )
    q, k = check_array("q", q, shape="[..., n_q, d_k]"), check_array("k", k, shape="[..., n_k, d_k]")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q has shape {q.shape} and k has shape {k.shape}: their last axes (d_k) must be equal")
    if v is not None:
        v = check_array("v", v, min_ndim=2, shape="[..., n_k, d_v]")
        if v.shape[-2] != k.shape[-2]:
            raise ValueError(
                f"k has shape {k.shape} and v has shape {v.shape}: "
                f"v must have shape [..., n_k, d_v] with n_k = {k.shape[-2]}, one value per key"
            )
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], *([] if v is None else [v.shape[:-2]]))
    except ValueError:
        raise ValueError(f"the batch axes of q {q.shape} and k {k.shape} do not broadcast") from None
    return q, k, v, batch + (q.shape[-2], k.shape[-2])


def check_attention(q, k, v, mask):
    q, k, v, scores_shape = check_query_key(q, k, v)
    if mask is None:
        raise TypeError("mask must be an additive mask that broadcasts to [..., n_q, n_k] (0.0 for none), got None")
    mask = check_mask(mask, scores_shape)
    for with_mask in (False, True):  # the unchecked function: q, k and the mask are finite, so only a sum that overflowed fails
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                finite = np.isfinite(attention_weights.__wrapped__(q, k, mask if with_mask else 0.0)).all()
        except ValueError:  # softmax refuses the score that overflowed to inf
            finite = False
        if not finite and not with_mask:
            raise ValueError(f"the scores q @ k^T overflow {np.result_type(q, k)} (|q| up to {np.abs(q).max():.3g}, "
                             f"|k| up to {np.abs(k).max():.3g}): pass q and k with smaller entries or in a wider dtype")
        if not finite:
            raise ValueError(f"the scores plus the mask overflow {np.result_type(q, k, mask)} (the mask goes down to "
                             f"{np.min(mask):.3g}): hide a key with a large negative number such as -1e9, not near the dtype's limit")
    return {"q": q, "k": k, "v": v, "mask": mask}


def check_attention_weights(q, k, mask):
    return {name: value for name, value in check_attention(q, k, None, mask).items() if name != "v"}


def check_split_heads(x, n_head):
    x = check_array("x", x, min_ndim=2, floating=False, shape="[..., n_seq, n_embd]")
    return {"x": x, "n_head": check_n_head(n_head, x.shape[-1])}


def check_merge_heads(x):
    return {"x": check_array("x", x, min_ndim=3, floating=False, shape="[..., n_head, n_seq, d_head]")}


def check_attend_heads(q, k, v, n_head, mask):
    q, k, v, scores_shape = check_query_key(q, k, v)
    n_head = check_n_head(n_head, q.shape[-1], name="d_k, the last axis of q and k")
    check_n_head(n_head, v.shape[-1], name="d_v, the last axis of v")
    return {"q": q, "k": k, "v": v, "n_head": n_head, "mask": check_mask(mask, scores_shape, min_ndim=2)}


def check_self_attention(x, c_attn, c_proj):
    """x [..., n_seq, n_embd]; c_attn maps n_embd to 3*n_embd (q, k, v side by side), c_proj n_embd to n_embd."""
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    n_embd = x.shape[-1]
    return {
        "x": x,
        "c_attn": check_dense("c_attn", c_attn, n_embd, 3 * n_embd),
        "c_proj": check_dense("c_proj", c_proj, n_embd, n_embd),
    }


def check_multi_head_attention(x, memory, c_q, c_k, c_v, c_proj, n_head, mask):
    x, memory = check_array("x", x, min_ndim=2, shape="[..., n_q, n_embd]"), check_array("memory", memory, min_ndim=2, shape="[..., n_k, n_mem]")
    n_embd, n_mem = x.shape[-1], memory.shape[-1]
    try:
        batch = np.broadcast_shapes(x.shape[:-2], memory.shape[:-2])
    except ValueError:
        raise ValueError(f"the batch axes of x {x.shape} and memory {memory.shape} do not broadcast") from None
    return {
        "x": x,
        "memory": memory,
        "c_q": check_dense("c_q", c_q, n_embd, n_embd),
        "c_k": check_dense("c_k", c_k, n_mem, n_embd),
        "c_v": check_dense("c_v", c_v, n_mem, n_embd),
        "c_proj": check_dense("c_proj", c_proj, n_embd, n_embd),
        "n_head": check_n_head(n_head, n_embd),
        "mask": check_mask(mask, batch + (x.shape[-2], memory.shape[-2]), min_ndim=2),
    }

