"""The layers with weights: an affine map, layer norm, the feed-forward network, and the embedding's backward.

Weights are plain dicts keyed by GPT-2's names (``w``/``b`` for an affine map,
``g``/``b`` for a layer norm, ``c_fc``/``c_proj`` for the feed-forward
network) and unpacked with ``**``, as in picoGPT's ``gpt2.py``
(jaymody/picoGPT, MIT license).

Below each forward function is its backward function (see
:mod:`handtf.blocks.activations` for the convention): ``dx`` and the gradients of the
weights, in a dict keyed like the weights.
"""

import numpy as np

from .activations import ACTIVATION_BACKWARD, gelu
from ..checks import check_array, check_backward, check_callable, check_dout, check_ids, check_count, check_real, check_size, checked
from ..layouts import check_dense, check_tree, dense_width


@checked
# --8<-- [start:linear]
# [..., m, n_in], [n_in, n_out], [n_out] -> [..., m, n_out]
def linear(x, w, b):
    """An affine map ``x @ w + b`` applied to every row.

    >>> w = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    >>> linear(np.array([[1.0, 2.0]]), w=w, b=np.zeros(3))
    array([[1., 2., 3.]])
    """
    return x @ w + b  # [..., m, n_out]
# --8<-- [end:linear]


@checked(forward=linear)
# [..., n_out], [..., n_in], [n_in, n_out], [n_out]
#   -> [..., n_in], {"w": [n_in, n_out], "b": [n_out]}
def linear_backward(dout, x, w, b):
    """``y = x @ w + b``: ``dx = dy @ wᵀ``, ``dw = xᵀ @ dy`` and ``db = Σ dy``
    over every row.

    >>> x, w = np.array([[3.0]]), np.array([[1.0, 1.0]])
    >>> dx, grads = linear_backward(np.array([[1.0, 2.0]]), x, w, np.zeros(2))
    >>> dx, grads["w"], grads["b"]
    (array([[3.]]), array([[3., 6.]]), array([1., 2.]))
    """
    # every leading axis flattened
    rows_x = x.reshape(-1, x.shape[-1])  # [rows, n_in]
    rows_d = dout.reshape(-1, dout.shape[-1])  # [rows, n_out]
    return dout @ w.T, {"w": rows_x.T @ rows_d, "b": rows_d.sum(axis=0)}


@checked
# --8<-- [start:layer_norm]
# [..., n_embd], [n_embd], [n_embd] -> [..., n_embd]
def layer_norm(x, g, b, eps=1e-5):
    """Normalise each row to mean 0 and variance 1, then scale by ``g`` and
    shift by ``b``.

    The variance is the biased one (divided by ``n_embd``), as in GPT-2 and
    PyTorch. It is computed in float32 or wider, on the row divided by its
    largest ``|x|`` (or by ``sqrt(eps)``, if larger), so no square
    overflows or vanishes: in float16 the square of 256 is already too
    large, and in float64 that of 1e200, which would turn
    ``[1e200, -1e200]`` into ``[0, 0]``.

    >>> row = np.array([0.0, 1.0, 0.0, 0.0])
    >>> layer_norm(row, g=np.ones(4), b=np.zeros(4)).round(3)
    array([-0.577,  1.732, -0.577, -0.577])
    """
    # float16 widened to float32
    wide = x.astype(np.promote_types(x.dtype, np.float32))  # [..., n_embd]
    # each row scaled into [-1, 1] first, so squares neither overflow nor
    # vanish (the floor keeps eps / scale**2 at most 1)
    floor = np.sqrt(eps) or np.finfo(wide.dtype).tiny
    scale = np.maximum(np.max(np.abs(wide), axis=-1, keepdims=True), floor)
    wide = wide / scale  # [..., n_embd]
    mean = np.mean(wide, axis=-1, keepdims=True)  # [..., 1]
    # biased: divides by n_embd
    variance = np.var(wide, axis=-1, keepdims=True)  # [..., 1]
    std = np.sqrt(variance + eps / scale / scale)  # eps scaled as x was
    return (g * (wide - mean) / std + b).astype(x.dtype)  # [..., n_embd]
# --8<-- [end:layer_norm]


@checked(forward=layer_norm)
# [..., n], [..., n], [n], [n] -> [..., n], {"g": [n], "b": [n]}
def layer_norm_backward(dout, x, g, b, eps=1e-5):
    """Layer norm backwards. With ``x̂ = (x - mean) / std`` and
    ``dx̂ = dy * g``: ``dx = (dx̂ - mean(dx̂) - x̂ * mean(dx̂ * x̂)) / std``,
    each mean over the row.

    The two means are there because every entry of the row moves the row's
    mean and variance: ``dx`` of a row always sums to 0.

    >>> dout, x = np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]])
    >>> g, b = np.ones(2), np.zeros(2)
    >>> dx, grads = layer_norm_backward(dout, x, g, b, eps=0)
    >>> dx, grads["g"], grads["b"]
    (array([[0., 0.]]), array([-1.,  0.]), array([1., 0.]))
    """
    # as in layer_norm: rows scaled into [-1, 1], squares stay finite and > 0
    floor = np.sqrt(eps) or np.finfo(np.result_type(x, np.float32)).tiny
    scale = np.maximum(np.max(np.abs(x), axis=-1, keepdims=True), floor)
    y = x / scale  # [..., n]
    std = np.sqrt(np.var(y, axis=-1, keepdims=True) + eps / scale / scale)
    x_hat = (y - np.mean(y, axis=-1, keepdims=True)) / std  # [..., n]
    dx_hat = dout * g  # [..., n]
    # std * scale is the standard deviation of x
    dx = (dx_hat - dx_hat.mean(axis=-1, keepdims=True)
          - x_hat * (dx_hat * x_hat).mean(axis=-1, keepdims=True)) / std
    dx = dx / scale
    rows = lambda a: a.reshape(-1, a.shape[-1])  # noqa: E731  [rows, n]
    return dx, {"g": np.sum(rows(dout * x_hat), axis=0),
                "b": np.sum(rows(dout), axis=0)}


@checked
# --8<-- [start:ffn]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def ffn(x, c_fc, c_proj, activation=gelu):
    """The position-wise feed-forward network: widen, apply ``activation``,
    project back.

    Each row (position) goes through the same two layers on its own.
    ``c_fc`` usually maps ``n_embd`` to ``4 * n_embd``. GPT-2 uses
    ``gelu``, the paper ``relu``.

    >>> c_fc = {"w": np.array([[1.0, -1.0]]), "b": np.zeros(2)}
    >>> c_proj = {"w": np.array([[1.0], [1.0]]), "b": np.zeros(1)}
    >>> from handtf import relu
    >>> # relu(x) + relu(-x) = |x|
    >>> ffn(np.array([[-3.0], [2.0]]), c_fc, c_proj, activation=relu)
    array([[3.],
           [2.]])
    """
    # [..., n_seq, n_embd] -> [..., n_seq, n_hidden]
    pre_activation = linear(x, **c_fc)
    hidden = activation(pre_activation)  # [..., n_seq, n_hidden]
    # [..., n_seq, n_hidden] -> [..., n_seq, n_embd]
    return linear(hidden, **c_proj)
# --8<-- [end:ffn]


@checked
# [..., n_embd], [..., n_embd] -> [..., n_embd], {"c_fc": ..., "c_proj": ...}
def ffn_backward(dout, x, c_fc, c_proj, activation=gelu):
    """The feed-forward network backwards: through ``c_proj``, the activation,
    then ``c_fc``.

    >>> c_fc = {"w": np.array([[1.0, -1.0]]), "b": np.zeros(2)}
    >>> c_proj = {"w": np.array([[1.0], [1.0]]), "b": np.zeros(1)}
    >>> from handtf import relu
    >>> dout, x = np.array([[1.0]]), np.array([[-3.0]])
    >>> dx, grads = ffn_backward(dout, x, c_fc, c_proj, activation=relu)
    >>> dx  # the forward pass computes |x|, whose slope at -3 is -1
    array([[-1.]])
    """
    hidden = linear(x, **c_fc)  # [..., n_hidden], before the activation
    # [..., n_hidden]
    dact, g_proj = linear_backward(dout, activation(hidden), **c_proj)
    dhidden = ACTIVATION_BACKWARD[activation](dact, hidden)  # [..., n_hidden]
    dx, g_fc = linear_backward(dhidden, x, **c_fc)  # [..., n_embd]
    return dx, {"c_fc": g_fc, "c_proj": g_proj}


@checked
# [..., n_seq, n_embd], [..., n_seq], n_vocab -> [n_vocab, n_embd]
def embedding_backward(dout, tokens, n_vocab):
    """``wte[tokens]`` backwards: each row of ``dout`` is added to the row of
    its token.

    A token that occurs twice collects both gradients (``np.add.at`` adds
    repeated indices; ``dwte[tokens] += dout`` would keep only one).

    >>> dout = np.array([[1.0], [2.0], [4.0]])
    >>> embedding_backward(dout, np.array([0, 1, 0]), n_vocab=2)
    array([[5.],
           [2.]])
    """
    # [n_vocab, n_embd]
    dwte = np.zeros((n_vocab, dout.shape[-1]), dtype=dout.dtype)
    np.add.at(dwte, tokens.reshape(-1), dout.reshape(-1, dout.shape[-1]))
    return dwte


# The boundary (see handtf.checks): what each function above accepts.


def check_linear(x, w, b):
    w = check_array("w", w, ndim=2, shape="[n_in, n_out]")
    x = check_array("x", x, min_ndim=1, shape="[..., n_in]")
    if x.shape[-1] != w.shape[0]:
        raise ValueError(
            f"x has shape {x.shape} but w has shape {w.shape}: the last axis of x must equal n_in = {w.shape[0]}"
        )
    b = check_tree("b", b, w.shape[1:], " (n_out, the second axis of w)")
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite(x @ w + b).all()
    if not finite:
        raise ValueError(f"x @ w + b overflows {np.result_type(x, w, b)} (|x| up to {np.abs(x).max():.3g}, "
                         f"|w| up to {np.abs(w).max():.3g}): pass smaller x or w, or a wider dtype")
    return {"x": x, "w": w, "b": b}


def check_layer_norm(x, g, b, eps):
    x = check_array("x", x, min_ndim=1, shape="[..., n_embd]")
    g, b = (check_tree(name, v, x.shape[-1:], " (n_embd, the last axis of x)") for name, v in (("g", g), ("b", b)))
    eps = check_real("eps", eps, low=0)
    if eps == 0 and (np.ptp(x, axis=-1) == 0).any():
        raise ValueError("eps = 0 divides by a zero variance: x has a constant row; use eps > 0 (default 1e-5)")
    return {"x": x, "g": g, "b": b, "eps": eps}


def check_ffn(x, c_fc, c_proj, activation):
    x = check_array("x", x, min_ndim=1, shape="[..., n_seq, n_embd]")
    n_embd, n_hidden = x.shape[-1], dense_width("c_fc", c_fc)
    return {
        "x": x,
        "c_fc": check_dense("c_fc", c_fc, n_embd, n_hidden),  # w: [n_embd, n_hidden], usually n_hidden = 4 * n_embd
        "c_proj": check_dense("c_proj", c_proj, n_hidden, n_embd),  # w: [n_hidden, n_embd], back to the input's width
        "activation": checked_activation(activation),
    }


def checked_activation(activation):
    """``activation``, each answer checked: finite real numbers of its input's shape (a function of each number on its own)."""
    activation = check_callable("activation", activation)

    def run(x):
        try:
            y = check_array("activation(x)", activation(x), nonempty=False)
        except (ValueError, TypeError) as error:
            raise type(error)(f"activation must give finite real numbers: {error}") from None
        if y.shape != x.shape:
            raise ValueError(f"activation must keep the shape of its input, {x.shape} (it acts on each number), got {y.shape}")
        return y

    return run


# A backward function takes what its forward function takes, plus ``dout`` shaped like the forward output.


def check_ffn_backward(dout, x, c_fc, c_proj, activation):
    if activation not in ACTIVATION_BACKWARD:
        raise ValueError(f"activation must be handtf.gelu or handtf.relu (they have a backward function), got {activation!r}")
    return check_backward(ffn, locals()) | {"activation": activation}


def check_embedding_backward(dout, tokens, n_vocab):
    n_vocab = check_count("n_vocab", n_vocab)
    tokens = check_ids("tokens", tokens, n_vocab)
    dout = check_array("dout", dout, min_ndim=tokens.ndim + 1)
    check_dout(dout, tokens.shape + dout.shape[-1:])
    n_vocab = check_size("n_vocab", n_vocab, per_item=dout.shape[-1])  # dwte is [n_vocab, n_embd]
    return {"dout": dout, "tokens": tokens, "n_vocab": n_vocab}
