"""Masks: the additive matrices that hide keys from queries (the future, or padding).

A mask is added to the attention scores: 0 keeps a key, a large negative
number hides it, because its ``exp`` is 0.
"""

import numpy as np

from ..checks import check_elements, check_float_dtype, check_size, checked, read_array


# a score that exp() turns into 0, with room to add a score without overflowing to -inf
def masked_score(dtype):
    """``max(-1e10, finfo(dtype).min / 2)``: GPT-2's ``-1e10``, or half the most negative float16.

    >>> masked_score(np.float64), masked_score(np.float16)
    (-10000000000.0, -32752.0)
    """
    return max(-1e10, float(np.finfo(dtype).min) / 2)


@checked
# --8<-- [start:causal_mask]
# n_seq -> [n_seq, n_past + n_seq]
def causal_mask(n_seq, dtype=np.float64, n_past=0):
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

    ``n_past`` earlier positions (their keys kept in a cache, see
    :class:`handtf.KVCache`) come first: the rows are the last ``n_seq`` of
    ``causal_mask(n_past + n_seq)``.

    >>> causal_mask(1, n_past=2)
    array([[0., 0., 0.]])
    """
    hidden = np.full((n_seq, n_past + n_seq), masked_score(dtype), dtype=dtype)
    # [n_seq, n_past + n_seq], 0 on and below the shifted diagonal
    return np.triu(hidden, k=n_past + 1)
# --8<-- [end:causal_mask]


@checked
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
    # [..., n_k]
    per_key = np.where(key_is_pad, masked_score(dtype), 0).astype(dtype)
    return np.repeat(per_key[..., None, :], n_q, axis=-2)  # [..., n_q, n_k]
# --8<-- [end:padding_mask]


# The boundary (see handtf.checks): what each function above accepts.


def check_dtype(dtype):
    try:
        return check_float_dtype("dtype", dtype)
    except TypeError:
        shown = np.dtype(dtype) if isinstance(dtype, type) and issubclass(dtype, np.generic) else repr(dtype)
        raise TypeError(f"a mask needs a floating dtype, got {shown} (use float16, float32 or float64)") from None


def check_causal_mask(n_seq, dtype, n_past):
    n_seq = check_size("n_seq", n_seq, squared=True)  # [n_seq, n_seq]
    n_past = check_size("n_past", n_past, per_item=n_seq, low=0)  # [n_seq, n_past + n_seq]
    check_elements("the mask [n_seq, n_past + n_seq]", (n_seq, n_past + n_seq))
    return {"n_seq": n_seq, "dtype": check_dtype(dtype), "n_past": n_past}


def check_padding_mask(key_is_pad, n_q, dtype):
    key_is_pad = read_array("key_is_pad", key_is_pad, "a boolean array (True = padding)")
    if key_is_pad.dtype != bool:
        raise TypeError(f"key_is_pad must be a boolean array (True = padding), got dtype {key_is_pad.dtype}")
    if key_is_pad.ndim < 1 or key_is_pad.shape[-1] == 0:
        raise ValueError(f"key_is_pad must have shape [..., n_k] with n_k >= 1, got shape {key_is_pad.shape}")
    n_q = check_size("n_q", n_q, per_item=key_is_pad.size)
    return {"key_is_pad": key_is_pad, "n_q": n_q, "dtype": check_dtype(dtype)}
