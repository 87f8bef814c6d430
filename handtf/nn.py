"""The general building blocks of a Transformer, as pure numpy functions.

These are the pieces of "Attention Is All You Need" (Vaswani et al., 2017,
arXiv:1706.03762) written in the style of picoGPT's ``gpt2.py``
(jaymody/picoGPT, MIT license): small pure functions, weights as plain dicts
keyed by GPT-2's names (``w``/``b``, ``g``/``b``, ``c_attn``, ``c_fc``,
``c_proj``) and unpacked with ``**``.

Every function takes one sequence ``[n_seq, d]`` or a batch
``[n_batch, n_seq, d]``; a leading ``...`` in a shape comment stands for
either. The arithmetic stays in the dtype of the inputs.
"""

import math
from numbers import Real

import numpy as np


# --8<-- [start:gelu]
# [...] -> [...]
def gelu(x):
    """GPT-2's GELU: the tanh approximation of ``x * Phi(x)``.

    >>> gelu(np.array([-1.0, 0.0, 1.0, 3.0])).round(4)
    array([-0.1588,  0.    ,  0.8412,  2.9964])
    """
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))  # [...]
# --8<-- [end:gelu]


# --8<-- [start:relu]
# [...] -> [...]
def relu(x):
    """The paper's activation: ``max(0, x)``.

    >>> relu(np.array([-2.0, 0.0, 3.0]))
    array([0., 0., 3.])
    """
    return np.maximum(x, 0)  # [...]
# --8<-- [end:relu]


# --8<-- [start:softmax]
# [..., n] -> [..., n]
def softmax(x):
    """Turn each row of scores into probabilities (stable: the row maximum is subtracted first).

    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    """
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))  # [..., n], largest entry becomes e^0 = 1
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)  # [..., n], each row sums to 1
# --8<-- [end:softmax]


# --8<-- [start:log_softmax]
# [..., n] -> [..., n]
def log_softmax(x):
    """``log(softmax(x))`` by log-sum-exp, finite even where ``softmax`` rounds to 0.

    >>> log_softmax(np.array([0.0, 1000.0])).round(3)
    array([-1000.,     0.])
    """
    shifted = x - np.max(x, axis=-1, keepdims=True)  # [..., n], largest entry becomes 0
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))  # [..., n]
# --8<-- [end:log_softmax]


# --8<-- [start:layer_norm]
# [..., n_embd], [n_embd], [n_embd] -> [..., n_embd]
def layer_norm(x, g, b, eps=1e-5):
    """Normalise each row to mean 0 and variance 1, then scale by ``g`` and shift by ``b``.

    The variance is the biased one (divided by ``n_embd``), as in GPT-2 and PyTorch.

    >>> row = np.array([0.0, 1.0, 0.0, 0.0])
    >>> layer_norm(row, g=np.ones(4), b=np.zeros(4)).round(3)
    array([-0.577,  1.732, -0.577, -0.577])
    """
    if np.ndim(x) < 1:
        raise ValueError("x must have shape [..., n_embd], got a scalar")
    _check_vector("g", g, x.shape[-1], "n_embd, the last axis of x")
    _check_vector("b", b, x.shape[-1], "n_embd, the last axis of x")
    _check_real("eps", eps)
    if not eps >= 0:
        raise ValueError(f"eps must be >= 0, got {eps}")
    mean = np.mean(x, axis=-1, keepdims=True)  # [..., 1]
    variance = np.var(x, axis=-1, keepdims=True)  # [..., 1], biased: divides by n_embd
    return g * (x - mean) / np.sqrt(variance + eps) + b  # [..., n_embd]
# --8<-- [end:layer_norm]


# --8<-- [start:linear]
# [..., m, n_in], [n_in, n_out], [n_out] -> [..., m, n_out]
def linear(x, w, b):
    """An affine map ``x @ w + b`` applied to every row.

    >>> linear(np.array([[1.0, 2.0]]), w=np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]), b=np.zeros(3))
    array([[1., 2., 3.]])
    """
    if np.ndim(w) != 2:
        raise ValueError(f"w must have shape [n_in, n_out], got shape {np.shape(w)}")
    if np.ndim(x) < 1 or x.shape[-1] != w.shape[0]:
        raise ValueError(
            f"x has shape {np.shape(x)} but w has shape {w.shape}: "
            f"the last axis of x must equal n_in = {w.shape[0]}"
        )
    _check_vector("b", b, w.shape[1], "n_out, the second axis of w")
    return x @ w + b  # [..., m, n_out]
# --8<-- [end:linear]


# --8<-- [start:ffn]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def ffn(x, c_fc, c_proj, activation=gelu):
    """The position-wise feed-forward network: widen, apply ``activation``, project back.

    Each row (position) goes through the same two layers on its own. ``c_fc``
    usually maps ``n_embd`` to ``4 * n_embd``. GPT-2 uses ``gelu``, the paper ``relu``.

    >>> c_fc = {"w": np.array([[1.0, -1.0]]), "b": np.zeros(2)}
    >>> c_proj = {"w": np.array([[1.0], [1.0]]), "b": np.zeros(1)}
    >>> ffn(np.array([[-3.0], [2.0]]), c_fc, c_proj, activation=relu)  # relu(x) + relu(-x) = |x|
    array([[3.],
           [2.]])
    """
    if np.ndim(x) < 1:
        raise ValueError("x must have shape [..., n_seq, n_embd], got a scalar")
    n_embd, n_hidden = np.shape(x)[-1], _dense_width("c_fc", c_fc)
    _check_dense("c_fc", c_fc, n_embd, n_hidden)  # w: [n_embd, n_hidden], usually n_hidden = 4 * n_embd
    _check_dense("c_proj", c_proj, n_hidden, n_embd)  # w: [n_hidden, n_embd], back to the input's width
    hidden = activation(linear(x, **c_fc))  # [..., n_seq, n_embd] -> [..., n_seq, n_hidden]
    return linear(hidden, **c_proj)  # [..., n_seq, n_hidden] -> [..., n_seq, n_embd]
# --8<-- [end:ffn]


# --8<-- [start:attention_weights]
# [..., n_q, d_k], [..., n_k, d_k], [..., n_q, n_k] -> [..., n_q, n_k]
def attention_weights(q, k, mask=None):
    """``softmax(q @ k^T / sqrt(d_k) + mask)``: how much each query attends to each key.

    ``mask`` is added to the scores (0 keeps a key, a large negative number
    hides it) and may be anything that broadcasts to ``[..., n_q, n_k]``.
    Queries and keys may come from different sequences (``n_q != n_k``).

    >>> emb = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> attention_weights(emb, emb).round(4)
    array([[0.4555, 0.3199, 0.2246],
           [0.3333, 0.3333, 0.3333],
           [0.2246, 0.3199, 0.4555]])
    """
    _check_attention_inputs(q, k)
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1])  # [..., n_q, n_k]
    if mask is not None:
        _check_mask(mask, scores.shape)
        scores = scores + mask  # [..., n_q, n_k], hidden keys get a large negative score
    return softmax(scores)  # [..., n_q, n_k], each row sums to 1
# --8<-- [end:attention_weights]


# --8<-- [start:scaled_dot_product_attention]
# [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v], [..., n_q, n_k] -> [..., n_q, d_v]
def scaled_dot_product_attention(q, k, v, mask=None):
    """Each query's output is the average of the values, weighted by ``attention_weights``.

    >>> emb = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> scaled_dot_product_attention(emb, emb, emb).round(4)
    array([[0.6155, 0.3845],
           [0.5   , 0.5   ],
           [0.3845, 0.6155]])
    """
    _check_attention_inputs(q, k)
    _check_values(k, v)
    return attention_weights(q, k, mask) @ v  # [..., n_q, n_k] @ [..., n_k, d_v] -> [..., n_q, d_v]
# --8<-- [end:scaled_dot_product_attention]


# --8<-- [start:causal_mask]
# n_seq -> [n_seq, n_seq]
def causal_mask(n_seq, dtype=np.float64):
    """The additive mask that lets position ``i`` see only positions ``0..i``.

    0 on and below the diagonal; above it a large negative number whose
    ``exp`` is 0. GPT-2 uses ``-1e10``, but float16 only reaches -65504, so
    the value is ``max(-1e10, finfo(dtype).min / 2)``: half the most negative
    number still zeroes ``exp()`` and leaves room to add a score without
    overflowing to ``-inf`` (``-inf`` would turn a fully masked row into NaN).

    >>> causal_mask(3)
    array([[ 0.e+00, -1.e+10, -1.e+10],
           [ 0.e+00,  0.e+00, -1.e+10],
           [ 0.e+00,  0.e+00,  0.e+00]])
    >>> float(causal_mask(2, np.float16)[0, 1])
    -32752.0
    """
    _check_positive_int("n_seq", n_seq)
    return np.triu(np.full((n_seq, n_seq), _masked_score(dtype), dtype=dtype), k=1)  # [n_seq, n_seq]
# --8<-- [end:causal_mask]


# --8<-- [start:padding_mask]
# [..., n_k] -> [..., n_q, n_k]
def padding_mask(key_is_pad, n_q=1, dtype=np.float64):
    """The additive mask that hides padding keys from every query.

    ``key_is_pad`` is a boolean array, True where a key is padding (for
    example ``tokens == pad_id``). With the default ``n_q=1`` the mask has
    shape ``[..., 1, n_k]`` and broadcasts over any number of queries. To
    combine it with a causal mask take ``np.minimum`` of the two, which,
    unlike a sum, cannot overflow.

    >>> padding_mask(np.array([False, False, True]), n_q=2)
    array([[ 0.e+00,  0.e+00, -1.e+10],
           [ 0.e+00,  0.e+00, -1.e+10]])
    """
    key_is_pad = np.asarray(key_is_pad)
    if key_is_pad.dtype != bool:
        raise TypeError(f"key_is_pad must be a boolean array (True = padding), got dtype {key_is_pad.dtype}")
    if key_is_pad.ndim < 1:
        raise ValueError("key_is_pad must have shape [..., n_k], got a scalar")
    _check_positive_int("n_q", n_q)
    per_key = np.where(key_is_pad, _masked_score(dtype), 0).astype(dtype)  # [..., n_k]
    return np.repeat(per_key[..., None, :], n_q, axis=-2)  # [..., n_q, n_k]
# --8<-- [end:padding_mask]


# --8<-- [start:split_heads]
# [..., n_seq, n_embd] -> [..., n_head, n_seq, n_embd/n_head]
def split_heads(x, n_head):
    """Cut the last axis into ``n_head`` slices and move the head axis in front of the positions.

    >>> split_heads(np.arange(8.0).reshape(2, 4), n_head=2)
    array([[[0., 1.],
            [4., 5.]],
    <BLANKLINE>
           [[2., 3.],
            [6., 7.]]])
    """
    if np.ndim(x) < 2:
        raise ValueError(f"x must have shape [..., n_seq, n_embd], got shape {np.shape(x)}")
    _check_n_head(n_head, x.shape[-1])
    x = x.reshape(*x.shape[:-1], n_head, x.shape[-1] // n_head)  # [..., n_seq, n_head, d_head]
    return x.swapaxes(-2, -3)  # [..., n_head, n_seq, d_head]
# --8<-- [end:split_heads]


# --8<-- [start:merge_heads]
# [..., n_head, n_seq, d_head] -> [..., n_seq, n_head*d_head]
def merge_heads(x):
    """Undo ``split_heads``: put the heads' slices side by side again.

    >>> x = np.arange(8.0).reshape(2, 4)
    >>> bool(np.array_equal(merge_heads(split_heads(x, n_head=2)), x))
    True
    """
    if np.ndim(x) < 3:
        raise ValueError(f"x must have shape [..., n_head, n_seq, d_head], got shape {np.shape(x)}")
    x = x.swapaxes(-2, -3)  # [..., n_seq, n_head, d_head]
    return x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])  # [..., n_seq, n_head*d_head]
# --8<-- [end:merge_heads]


# --8<-- [start:attend_heads]
# [..., n_q, d], [..., n_k, d], [..., n_k, d_v], [..., n_q, n_k] -> [..., n_q, d_v]
def attend_heads(q, k, v, n_head, mask=None):
    """Split projected queries, keys and values into heads, attend in each head, merge.

    Every head uses the same ``mask`` (shape ``[n_q, n_k]`` or ``[n_batch, n_q, n_k]``,
    or anything broadcasting to it).

    >>> emb = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> attend_heads(emb, emb, emb, n_head=1).round(4)  # one head: plain attention
    array([[0.6155, 0.3845],
           [0.5   , 0.5   ],
           [0.3845, 0.6155]])
    """
    _check_attention_inputs(q, k)  # before splitting, so that errors show the shapes passed in
    _check_values(k, v)
    _check_n_head(n_head, q.shape[-1], name="d_k, the last axis of q and k")
    _check_n_head(n_head, v.shape[-1], name="d_v, the last axis of v")
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim < 2:
            raise ValueError(f"mask must have shape [..., n_q, n_k], got shape {mask.shape}")
        _check_mask(mask, np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (q.shape[-2], k.shape[-2]))
        mask = mask[..., None, :, :]  # [..., 1, n_q, n_k], the same mask for every head
    heads = scaled_dot_product_attention(
        split_heads(q, n_head), split_heads(k, n_head), split_heads(v, n_head), mask
    )  # [..., n_head, n_q, d_v/n_head]
    return merge_heads(heads)  # [..., n_q, d_v]
# --8<-- [end:attend_heads]


# --8<-- [start:mha]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def mha(x, c_attn, c_proj, n_head):
    """GPT-2's causal multi-head self-attention.

    ``c_attn`` maps ``n_embd`` to ``3 * n_embd`` (queries, keys and values side
    by side); ``c_proj`` maps ``n_embd`` back to ``n_embd``. That is
    ``4 * n_embd**2 + 4 * n_embd`` numbers for any ``n_head``.

    >>> eye = {"w": np.hstack([np.eye(2)] * 3), "b": np.zeros(6)}
    >>> emb = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> mha(emb, eye, {"w": np.eye(2), "b": np.zeros(2)}, n_head=1).round(4)
    array([[1.    , 0.    ],
           [0.75  , 0.25  ],
           [0.3845, 0.6155]])
    """
    _check_self_attention(x, c_attn, c_proj)
    _check_n_head(n_head, x.shape[-1])
    qkv = linear(x, **c_attn)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    q, k, v = np.split(qkv, 3, axis=-1)  # -> 3 of [..., n_seq, n_embd]
    mask = causal_mask(x.shape[-2], qkv.dtype)  # [n_seq, n_seq]
    x = attend_heads(q, k, v, n_head, mask)  # -> [..., n_seq, n_embd]
    return linear(x, **c_proj)  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
# --8<-- [end:mha]


# --8<-- [start:multi_head_attention]
# [..., n_q, n_embd], [..., n_k, n_mem], [..., n_q, n_k] -> [..., n_q, n_embd]
def multi_head_attention(x, memory, c_q, c_k, c_v, c_proj, n_head, mask=None):
    """The paper's MultiHead(Q, K, V): queries from ``x``, keys and values from ``memory``.

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
    n_embd = x.shape[-1]
    _check_n_head(n_head, n_embd)
    _check_dense("c_q", c_q, n_embd, n_embd)
    _check_dense("c_k", c_k, memory.shape[-1], n_embd)
    _check_dense("c_v", c_v, memory.shape[-1], n_embd)
    _check_dense("c_proj", c_proj, n_embd, n_embd)
    q = linear(x, **c_q)  # [..., n_q, n_embd]
    k = linear(memory, **c_k)  # [..., n_k, n_mem] -> [..., n_k, n_embd]
    v = linear(memory, **c_v)  # [..., n_k, n_mem] -> [..., n_k, n_embd]
    x = attend_heads(q, k, v, n_head, mask)  # [..., n_q, n_embd]
    return linear(x, **c_proj)  # [..., n_q, n_embd]
# --8<-- [end:multi_head_attention]


# --8<-- [start:positional_encoding]
# n_pos, d_model -> [n_pos, d_model]
def positional_encoding(n_pos, d_model):
    """The paper's sinusoids: ``PE[pos, 2i] = sin(pos / 10000**(2i/d_model))``, ``PE[pos, 2i+1] = cos(...)``.

    >>> positional_encoding(3, 4).round(4)
    array([[ 0.    ,  1.    ,  0.    ,  1.    ],
           [ 0.8415,  0.5403,  0.01  ,  1.    ],
           [ 0.9093, -0.4161,  0.02  ,  0.9998]])
    """
    _check_positive_int("n_pos", n_pos)
    angles = np.arange(n_pos)[:, None] * _frequencies(d_model)  # [n_pos, 1] * [d_model/2] -> [n_pos, d_model/2]
    pe = np.empty((n_pos, d_model))  # [n_pos, d_model]
    pe[:, 0::2] = np.sin(angles)  # even columns
    pe[:, 1::2] = np.cos(angles)  # odd columns
    return pe
# --8<-- [end:positional_encoding]


# --8<-- [start:position_shift_matrix]
# k, d_model -> [d_model, d_model]
def position_shift_matrix(k, d_model):
    """The fixed matrix ``M_k`` with ``PE[pos + k] = PE[pos] @ M_k`` for every ``pos``.

    Each (sin, cos) pair turns by the angle ``k * freq_i``, by the
    angle-addition formulas; so ``M_k`` is block-diagonal with 2x2 rotations
    and does not depend on ``pos``.

    >>> pe = positional_encoding(10, 4)
    >>> bool(np.allclose(pe[:7] @ position_shift_matrix(3, 4), pe[3:]))
    True
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer number of positions, got {k!r}")
    angles = k * _frequencies(d_model)  # [d_model/2]
    even = np.arange(0, d_model, 2)  # [d_model/2], the sin column of each pair
    m = np.zeros((d_model, d_model))  # [d_model, d_model]
    m[even, even] = np.cos(angles)  # sin(a+b) = sin a cos b + cos a sin b
    m[even + 1, even] = np.sin(angles)
    m[even, even + 1] = -np.sin(angles)  # cos(a+b) = cos a cos b - sin a sin b
    m[even + 1, even + 1] = np.cos(angles)
    return m
# --8<-- [end:position_shift_matrix]


# --8<-- [start:rope]
# [..., n_seq, d], [n_seq] -> [..., n_seq, d]
def rope(x, positions=None):
    """Rotary position embedding (RoPE, Su et al. 2021, arXiv:2104.09864).

    Row ``n`` of ``x`` is at position ``positions[n]`` (default ``0..n_seq-1``);
    each of its column pairs ``(2i, 2i+1)`` turns by the angle
    ``positions[n] * freq_i``, with the sinusoids' frequencies
    ``1 / 10000**(2i/d)``. Applied to queries and keys (not values), it makes
    ``rope(q) @ rope(k).T`` depend on positions only through their offset.

    >>> rope(np.array([[1.0, 0.0], [1.0, 0.0]])).round(4)  # row 1 turns by 1 radian
    array([[1.    , 0.    ],
           [0.5403, 0.8415]])
    """
    if np.ndim(x) < 2 or x.shape[-1] < 2 or x.shape[-1] % 2:
        raise ValueError(
            f"x must have shape [..., n_seq, d] with an even d (RoPE turns pairs of columns), got shape {np.shape(x)}"
        )
    n_seq, d = x.shape[-2:]
    positions = np.arange(n_seq) if positions is None else _check_positions(positions, n_seq)
    angles = positions[:, None] * _frequencies(d)  # [n_seq, 1] * [d/2] -> [n_seq, d/2]
    dtype = np.result_type(x.dtype, np.float16)  # x's float type; integers become float64
    cos, sin = np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)  # [n_seq, d/2] each
    first, second = x[..., 0::2], x[..., 1::2]  # [..., n_seq, d/2] each: the two columns of every pair
    out = np.empty(x.shape, dtype=dtype)  # [..., n_seq, d]
    out[..., 0::2] = first * cos - second * sin  # a 2-d rotation of each pair
    out[..., 1::2] = first * sin + second * cos
    return out
# --8<-- [end:rope]


# --8<-- [start:cross_entropy]
# [..., n_seq, n_vocab], [..., n_seq] -> scalar
def cross_entropy(logits, targets):
    """The mean over positions of ``-log softmax(logits)[target]``, via log-sum-exp.

    >>> cross_entropy(np.zeros((2, 4)), np.array([0, 3])) == float(np.log(4))  # uniform: log(n_vocab)
    True
    """
    logits = np.asarray(logits)
    if logits.ndim < 1:
        raise ValueError("logits must have shape [..., n_vocab], got a scalar")
    targets = _check_ids(targets, logits.shape[-1], "targets")
    if targets.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets must have shape {logits.shape[:-1]} (logits without the vocabulary axis), "
            f"got shape {targets.shape}"
        )
    log_probs = log_softmax(logits)  # [..., n_seq, n_vocab]
    picked = np.take_along_axis(log_probs, targets[..., None], axis=-1)  # [..., n_seq, 1]
    return float(-np.mean(picked))
# --8<-- [end:cross_entropy]


# [d_model/2]: the angular frequency 1 / 10000**(2i/d_model) of each (sin, cos) pair
def _frequencies(d_model):
    _check_positive_int("d_model", d_model)
    if d_model % 2:
        raise ValueError(f"d_model must be even (one sin and one cos column per frequency), got {d_model}")
    return 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)


def _masked_score(dtype):
    if not np.issubdtype(dtype, np.floating):
        raise TypeError(f"a mask needs a floating dtype, got {np.dtype(dtype)}")
    return max(-1e10, float(np.finfo(dtype).min) / 2)


def _check_int(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")


def _check_positive_int(name, value):
    _check_int(name, value)
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")


def _check_real(name, value):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")


def _check_ids(ids, n_vocab, name):
    ids = np.asarray(ids)
    if ids.dtype == bool or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"{name} must be integer token ids, got {ids.dtype} values")
    if ids.size and (ids.min() < 0 or ids.max() >= n_vocab):
        bad = ids.min() if ids.min() < 0 else ids.max()
        raise ValueError(f"{name} must be token ids in 0..{n_vocab - 1} (a vocabulary of {n_vocab}), got {bad}")
    return ids


def _check_vector(name, vector, size, what):
    if np.shape(vector) != (size,):
        raise ValueError(f"{name} must have shape ({size},) ({what}), got shape {np.shape(vector)}")


def _check_dense(name, params, n_in, n_out):
    if not isinstance(params, dict) or set(params) != {"w", "b"}:
        raise ValueError(f"{name} must be a dict with keys 'w' and 'b', got {params!r}")
    if np.shape(params["w"]) != (n_in, n_out) or np.shape(params["b"]) != (n_out,):
        raise ValueError(
            f"{name} must have w of shape {(n_in, n_out)} and b of shape {(n_out,)}, "
            f"got w {np.shape(params['w'])} and b {np.shape(params['b'])}"
        )


# x: [..., n_seq, n_embd]; c_attn maps n_embd to 3*n_embd (q, k, v side by side), c_proj n_embd to n_embd
def _check_self_attention(x, c_attn, c_proj):
    if np.ndim(x) < 2:
        raise ValueError(f"x must have shape [..., n_seq, n_embd], got shape {np.shape(x)}")
    n_embd = np.shape(x)[-1]
    _check_dense("c_attn", c_attn, n_embd, 3 * n_embd)
    _check_dense("c_proj", c_proj, n_embd, n_embd)


def _check_positions(positions, n_seq):
    positions = np.asarray(positions)
    if positions.dtype == bool or not np.issubdtype(positions.dtype, np.integer):
        raise TypeError(f"positions must be integers, got {positions.dtype} values")
    if positions.shape != (n_seq,):
        raise ValueError(f"positions must have shape ({n_seq},), one per row of x, got shape {positions.shape}")
    return positions


def _dense_width(name, params):
    w = params.get("w") if isinstance(params, dict) else None
    if np.ndim(w) != 2:
        raise ValueError(
            f"{name} must be a dict with 'w' of shape [n_in, n_out] and 'b' of shape [n_out], got {params!r}"
        )
    return np.shape(w)[1]


def _check_n_head(n_head, size, name="n_embd, the last axis of x"):
    _check_positive_int("n_head", n_head)
    if size % n_head:
        raise ValueError(f"n_head = {n_head} must divide {name} = {size}")


def _check_attention_inputs(q, k):
    if np.ndim(q) < 2 or np.ndim(k) < 2:
        raise ValueError(
            f"q and k must have shape [..., n_q, d_k] and [..., n_k, d_k], got {np.shape(q)} and {np.shape(k)}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q has shape {q.shape} and k has shape {k.shape}: their last axes (d_k) must be equal")
    if k.shape[-2] < 1:
        raise ValueError(f"k must hold at least one key, got shape {k.shape}")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except ValueError:
        raise ValueError(f"the batch axes of q {q.shape} and k {k.shape} do not broadcast") from None


def _check_values(k, v):
    if np.ndim(v) < 2 or v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"k has shape {k.shape} and v has shape {np.shape(v)}: "
            f"v must have shape [..., n_k, d_v] with n_k = {k.shape[-2]}, one value per key"
        )


def _check_mask(mask, scores_shape):
    try:
        fits = np.broadcast_shapes(np.shape(mask), scores_shape) == scores_shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask has shape {np.shape(mask)}, which does not broadcast to the scores' shape "
            f"{scores_shape} ([..., n_q, n_k])"
        )
