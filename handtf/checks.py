"""Checking arguments at the boundary, so that the functions the pages show are only the math.

Every public function of handtf is decorated with :func:`checked`. When it is
called from outside the package, the decorator first runs the module's
``check_<name>`` function on the arguments: it raises a ``ValueError`` or
``TypeError`` that names what is wrong and what is allowed, and may return
normalised arguments (a list becomes an array, ``None`` becomes "no mask").
Calls from inside handtf (``gpt`` calling ``transformer_block``) skip the
check: the outer call already checked everything it passes down. A function
handtf calls back (a ``step_fn``, a ``sublayer``) runs as outside code again,
so its own calls into handtf are checked.

The functions below are the shared pieces those ``check_<name>`` functions use.

>>> from handtf import softmax
>>> softmax([0.0, float("nan")])
Traceback (most recent call last):
...
ValueError: x must not contain NaN or +inf, got nan at index (1,)
"""

import functools
import inspect
import math
import sys
import threading
from numbers import Real

import numpy as np

_state = threading.local()  # .inside is True while handtf code runs on behalf of a checked call


def checked(function):
    """Run ``check_<name>`` from ``function``'s module on the arguments of every outside call.

    The check receives every argument by name (defaults filled in) and returns
    ``None`` or a dict of arguments to replace.
    """
    signature = inspect.signature(function)
    check_name = f"check_{function.__name__}"

    @functools.wraps(function)
    def checked_call(*args, **kwargs):
        if getattr(_state, "inside", False):
            return function(*args, **kwargs)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{function.__name__}(): {error}") from None
        bound.apply_defaults()
        check = getattr(sys.modules[function.__module__], check_name)
        try:
            fixed = check(**bound.arguments)
        except (ValueError, TypeError) as error:
            raise error.with_traceback(None) from None  # the message is the whole story: no frames of the check
        arguments = bound.arguments | (fixed or {})
        _state.inside = True
        try:
            return function(**arguments)
        finally:
            _state.inside = False

    checked_call.check_name = check_name
    return checked_call


def outside(function):
    """``function`` as code from outside handtf: the handtf functions it calls check their arguments."""

    @functools.wraps(function)
    def as_outside(*args, **kwargs):
        inside = getattr(_state, "inside", False)
        _state.inside = False
        try:
            return function(*args, **kwargs)
        finally:
            _state.inside = inside

    return as_outside


def check_callable(name, value):
    if not callable(value):
        raise TypeError(f"{name} must be a function, got {type(value).__name__}")
    return outside(value)


def check_int(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    return int(value)


def check_int_range(name, value, low, high=None, why=""):
    """An integer in ``low..high`` (``high=None``: no upper bound)."""
    value = check_int(name, value)
    if value < low:
        raise ValueError(f"{name} must be at least {low}{why}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be at most {high:,}{why}, got {value:,}")
    return value


def check_positive_int(name, value):
    return check_int_range(name, value, 1)


def check_real(name, value, low=-math.inf, high=math.inf, low_open=False, allowed=None):
    """A finite real number in ``[low, high]`` (``(low, high]`` with ``low_open``); ``allowed`` words the error."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    given, value = value, float(value)
    if not math.isfinite(value) or value < low or value > high or (low_open and value == low):
        if high < math.inf:
            bounds = f" in {'(' if low_open else '['}{low:g}, {high:g}]"
        elif low > -math.inf:
            bounds = f" {'>' if low_open else '>='} {low:g}"
        else:
            bounds = ""
        raise ValueError(f"{name} must be {allowed or 'a finite number' + bounds}, got {given!r}")
    return value


def check_array(name, value, ndim=None, min_ndim=0, floating=True, nonempty=True, finite=True, shape=None):
    """``value`` as a numpy array of real numbers (a list is fine), or a precise error.

    ``floating`` turns integers into float64 (and keeps float16/32/64);
    ``nonempty`` refuses an axis of length 0; ``finite`` refuses NaN and inf;
    ``shape`` describes the expected shape in error messages (``"[..., n_seq, n_embd]"``).
    """
    array = value if isinstance(value, np.ndarray) else np.asarray(value) if _is_numeric(value) else None
    if array is None or array.dtype == bool or array.dtype.kind not in "iuf":
        what = type(value).__name__ if array is None else f"{array.dtype} values"
        raise TypeError(f"{name} must be an array of real numbers, got {what}")
    if (ndim is not None and array.ndim != ndim) or array.ndim < min_ndim:
        wanted = shape or ("(" + ", ".join(["n"] * ndim) + ")" if ndim is not None else f"with at least {min_ndim} axes")
        got = "a scalar" if array.ndim == 0 else f"shape {array.shape}"
        raise ValueError(f"{name} must have shape {wanted}, got {got}")
    if nonempty and 0 in array.shape:
        wanted = f"shape {shape} with no empty axis" if shape else "no empty axis"
        raise ValueError(f"{name} must have {wanted}, got shape {array.shape}")
    if floating and array.dtype.kind != "f":
        array = array.astype(np.float64)
    if finite and array.dtype.kind == "f" and not np.isfinite(array).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ValueError(f"{name} must not contain NaN or inf, got {array[where]} at index {where}")
    return array


def _is_numeric(value):
    try:
        return np.asarray(value).dtype != object
    except ValueError:  # a ragged list
        return False


def check_ids(name, ids, n_vocab, ndims=(1, 2)):
    """Token ids as an integer array in ``0..n_vocab-1`` with one of ``ndims`` axes."""
    array = np.asarray(ids) if _is_numeric(ids) else None
    if array is not None and array.size == 0:
        array = array.astype(np.int64)  # numpy reads [] as float64
    if array is None or array.dtype == bool or array.dtype.kind not in "iu":
        what = type(ids).__name__ if array is None else f"{array.dtype} values"
        raise TypeError(f"{name} must be integer token ids, got {what}")
    if array.ndim not in ndims:
        shapes = " or ".join(["[n_seq]", "[n_batch, n_seq]"][n - 1] if n in (1, 2) else "a single id" for n in ndims)
        raise ValueError(f"{name} must have shape {shapes}, got shape {array.shape}")
    if array.ndim and array.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one token, got shape {array.shape}")
    if array.size and (array.min() < 0 or array.max() >= n_vocab):
        bad = array.min() if array.min() < 0 else array.max()
        raise ValueError(f"{name} must be token ids in 0..{n_vocab - 1} (a vocabulary of {n_vocab}), got {bad}")
    return array.astype(np.int64)


def check_vector(name, vector, size, what):
    vector = check_array(name, vector, nonempty=False)
    if vector.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},) ({what}), got shape {vector.shape}")
    return vector


def check_keys(name, tree, keys, needs=""):
    """``tree`` must be a dict with exactly ``keys``; the error names the missing or extra keys.

    ``needs`` says, after the keys, what asks for them (" for config = ...").
    """
    wanted = f"{name} must be a dict with keys {names(keys)}{needs}"
    if not isinstance(tree, dict):
        raise ValueError(f"{wanted}, got {type(tree).__name__}")
    missing, extra = [k for k in keys if k not in tree], [k for k in tree if k not in keys]
    if missing:
        raise ValueError(f"{wanted}, got one without {names(missing)}")
    if extra:
        raise ValueError(f"{wanted}, got one with the unexpected key {names(extra)}")


def names(keys):
    """``'a', 'b' and 'c'``"""
    quoted = [repr(k) for k in keys]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def dense_width(name, params):
    """The output width ``n_out`` of a ``{"w": [n_in, n_out], "b": [n_out]}`` dict."""
    w = params.get("w") if isinstance(params, dict) else None
    if np.ndim(w) != 2:
        raise ValueError(f"{name} must be a dict with 'w' of shape [n_in, n_out] and 'b' of shape [n_out], got {params!r}")
    return np.shape(w)[1]


def check_dense(name, params, n_in, n_out):
    """``{"w": [n_in, n_out], "b": [n_out]}`` with finite float arrays."""
    check_keys(name, params, ("w", "b"))
    w = check_array(f"{name}['w']", params["w"], ndim=2)
    b = check_array(f"{name}['b']", params["b"], ndim=1)
    if w.shape != (n_in, n_out) or b.shape != (n_out,):
        raise ValueError(
            f"{name} must have w of shape {(n_in, n_out)} and b of shape {(n_out,)}, got w {w.shape} and b {b.shape}"
        )
    return {"w": w, "b": b}


def check_n_head(n_head, size, name="n_embd, the last axis of x"):
    n_head = check_positive_int("n_head", n_head)
    if size % n_head:
        raise ValueError(f"n_head = {n_head} must divide {name} = {size}")
    return n_head


def check_mask(mask, scores_shape):
    """An additive mask (0 keeps a key, a large negative number hides it) that broadcasts to the scores.

    ``None`` means no mask. Booleans are refused: "True hides" and "True keeps"
    are both in use elsewhere, so handtf asks for the additive mask that
    ``causal_mask`` and ``padding_mask`` make.
    """
    if mask is None:
        return None
    if np.asarray(mask).dtype == bool:
        raise TypeError(
            "mask must be additive (0 keeps a key, a large negative number hides it), got booleans; "
            "make one with padding_mask(key_is_pad) or causal_mask(n_seq)"
        )
    mask = check_array("mask", mask, nonempty=False)
    try:
        fits = np.broadcast_shapes(mask.shape, scores_shape) == tuple(scores_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask has shape {mask.shape}, which does not broadcast to the scores' shape {tuple(scores_shape)} ([..., n_q, n_k])"
        )
    return mask


def check_float_dtype(name, dtype):
    """A numpy floating dtype (float16, float32 or float64)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a floating-point type such as np.float16/32/64, got {dtype!r}") from None
    if dtype.kind != "f":
        raise TypeError(f"{name} must be a floating-point type such as float16/32/64, got {dtype}")
    return dtype


def check_scores(name, x, min_ndim=1):
    """Scores ``[..., n]``: -inf hides an entry (a row of only -inf gives NaN, as in numpy), NaN and +inf are refused."""
    x = check_array(name, x, min_ndim=min_ndim, finite=False)
    bad = np.isnan(x) | (x == np.inf)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must not contain NaN or +inf, got {x[where]} at index {where}")
    return x


def check_tree(name, tree, shapes, needs=""):
    """Nested dicts and lists of arrays shaped like ``shapes`` (dicts, lists, and shape tuples at the leaves).

    Returns the same tree with every leaf a finite float array; an error names
    the path of the first missing key, wrong length or wrong shape, and then
    ``needs``: what asks for that layout (" for config = ...").
    """
    if isinstance(shapes, dict):
        check_keys(name, tree, tuple(shapes), needs)
        return {key: check_tree(f"{name}[{key!r}]", tree[key], shape, needs) for key, shape in shapes.items()}
    if isinstance(shapes, list):
        if not isinstance(tree, (list, tuple)) or len(tree) != len(shapes):
            got = f"{len(tree)} items" if isinstance(tree, (list, tuple)) else type(tree).__name__
            raise ValueError(f"{name} must be a list of {len(shapes)} items{needs}, got {got}")
        return [check_tree(f"{name}[{i}]", item, shape, needs) for i, (item, shape) in enumerate(zip(tree, shapes))]
    array = check_array(name, tree, nonempty=False)
    if array.shape != shapes:
        raise ValueError(f"{name} must have shape {shapes}{needs}, got shape {array.shape}")
    return array


def check_dout(dout, shape):
    """A backward function's ``dout``: an array with the shape of its forward function's output."""
    dout = check_array("dout", dout, nonempty=False)
    if dout.shape != tuple(shape):
        raise ValueError(f"dout must have the shape of the forward output, {tuple(shape)}, got {dout.shape}")
    return dout

