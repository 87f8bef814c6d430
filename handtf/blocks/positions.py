"""Positions: the paper's sinusoids, the fixed matrix that shifts them, and rotary embeddings (RoPE).

All three use the same frequencies ``1 / 10000**(2i/d)``, one per pair of columns.
"""

import numpy as np

from ..checks import check_array, check_int_range, check_size, checked, read_array, shown


# [d_model/2]: the angular frequency 1 / 10000**(2i/d_model) of each (sin, cos) pair
def frequencies(d_model):
    """The frequency of each column pair.

    >>> frequencies(4)
    array([1.  , 0.01])
    """
    return 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)


@checked
# --8<-- [start:positional_encoding]
# n_pos, d_model -> [n_pos, d_model]
def positional_encoding(n_pos, d_model):
    """The paper's sinusoids:
    ``PE[pos, 2i] = sin(pos / 10000**(2i/d_model))``,
    ``PE[pos, 2i+1] = cos(...)``.

    >>> positional_encoding(3, 4).round(4)
    array([[ 0.    ,  1.    ,  0.    ,  1.    ],
           [ 0.8415,  0.5403,  0.01  ,  1.    ],
           [ 0.9093, -0.4161,  0.02  ,  0.9998]])
    """
    # [n_pos, 1] * [d_model/2] -> [n_pos, d_model/2]
    angles = np.arange(n_pos)[:, None] * frequencies(d_model)
    pe = np.empty((n_pos, d_model))  # [n_pos, d_model]
    pe[:, 0::2] = np.sin(angles)  # even columns
    pe[:, 1::2] = np.cos(angles)  # odd columns
    return pe
# --8<-- [end:positional_encoding]


@checked
# --8<-- [start:position_shift_matrix]
# k, d_model -> [d_model, d_model]
def position_shift_matrix(k, d_model):
    """The fixed matrix ``M_k`` with ``PE[pos + k] = PE[pos] @ M_k`` for every
    ``pos``.

    Each (sin, cos) pair turns by the angle ``k * freq_i``, by the
    angle-addition formulas; so ``M_k`` is block-diagonal with 2x2 rotations
    and does not depend on ``pos``.

    >>> pe = positional_encoding(10, 4)
    >>> bool(np.allclose(pe[:7] @ position_shift_matrix(3, 4), pe[3:]))
    True
    """
    angles = k * frequencies(d_model)  # [d_model/2]
    even = np.arange(0, d_model, 2)  # [d_model/2], the sin column of each pair
    m = np.zeros((d_model, d_model))  # [d_model, d_model]
    m[even, even] = np.cos(angles)  # sin(a+b) = sin a cos b + cos a sin b
    m[even + 1, even] = np.sin(angles)
    m[even, even + 1] = -np.sin(angles)  # cos(a+b) = cos a cos b - sin a sin b
    m[even + 1, even + 1] = np.cos(angles)
    return m
# --8<-- [end:position_shift_matrix]


@checked
# --8<-- [start:rope]
# [..., n_seq, d], [n_seq] -> [..., n_seq, d]
def rope(x, positions=None):
    """Rotary position embedding (RoPE, Su et al. 2021, arXiv:2104.09864).

    Row ``n`` of ``x`` is at position ``positions[n]`` (default
    ``0..n_seq-1``); each of its column pairs ``(2i, 2i+1)`` turns by the
    angle ``positions[n] * freq_i``, with the sinusoids' frequencies
    ``1 / 10000**(2i/d)``. Applied to queries and keys (not values), it makes
    ``rope(q) @ rope(k).T`` depend on positions only through their offset.

    >>> # row 1 turns by 1 radian
    >>> rope(np.array([[1.0, 0.0], [1.0, 0.0]])).round(4)
    array([[1.    , 0.    ],
           [0.5403, 0.8415]])
    """
    # [n_seq]
    positions = np.arange(x.shape[-2]) if positions is None else positions
    # [n_seq, 1] * [d/2] -> [n_seq, d/2]
    angles = positions[:, None] * frequencies(x.shape[-1])
    # [n_seq, d/2] each
    cos, sin = np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype)
    # [..., n_seq, d/2] each: the two columns of every pair
    first, second = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)  # [..., n_seq, d]
    out[..., 0::2] = first * cos - second * sin  # a 2-d rotation of each pair
    out[..., 1::2] = first * sin + second * cos
    return out
# --8<-- [end:rope]


# The boundary (see handtf.checks): what each function above accepts.


def check_d_model(d_model):
    d_model = check_size("d_model", d_model, squared=True)  # up to [d_model, d_model]
    if d_model % 2:
        raise ValueError(f"d_model must be even (one sin and one cos column per frequency), got {d_model}")
    return d_model


def check_positional_encoding(n_pos, d_model):
    d_model = check_d_model(d_model)
    return {"n_pos": check_size("n_pos", n_pos, per_item=d_model), "d_model": d_model}


def check_position_shift_matrix(k, d_model):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer number of positions, got {shown(k)}")
    k = check_int_range("k", k, -(2**53), 2**53, why=" in size (a float64 holds every position up to 2**53)")
    return {"k": k, "d_model": check_d_model(d_model)}


def check_rope(x, positions):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, d] with an even d (RoPE turns pairs of columns)")
    if x.shape[-1] % 2:
        raise ValueError(f"x must have shape [..., n_seq, d] with an even d (RoPE turns pairs of columns), got shape {x.shape}")
    if positions is not None:
        positions = read_array("positions", positions, "integers")
        if positions.dtype == bool or positions.dtype.kind not in "iu":
            raise TypeError(f"positions must be integers, got {positions.dtype} values")
        if positions.shape != (x.shape[-2],):
            raise ValueError(f"positions must have shape ({x.shape[-2]},), one per row of x, got shape {positions.shape}")
    return {"x": x, "positions": positions}
