"""Checking arguments at the boundary, so that the functions the pages show are only the math.

Every public function of handtf is decorated with :func:`checked`. When it is
called from outside the package, the decorator first runs the module's
``check_<name>`` function on the arguments: it raises a ``ValueError`` or
``TypeError`` that names the argument, what it got and what is allowed. A
check only reads and validates: it may return the arguments as the function
takes them (a list read as an array), and the function takes exactly that
from any caller. Calls from inside handtf (``gpt`` calling
``transformer_block``) skip the check: the outer check already validated
everything that is passed down, in the form the inner function takes. A
function handtf calls back (a ``step_fn``, a ``sublayer``) runs as outside
code again, so its own calls into handtf are checked. Checks keep no state:
no caches, no hashing.

A forward entry point may also name a ``result`` guard (``gpt``, ``gpt2``,
``loss_and_grads``, the encoder-decoder's passes, ``train``): it runs on
every call, from any caller, and refuses an output that is not finite, so
finite weights whose logits overflow get a clear error instead of NaN.

The functions below read each kind of argument one way: a number
(:func:`check_real`), a count (:func:`check_int_range`), a size
(:func:`check_size`, at most :data:`MAX_ELEMENTS` numbers, checked before
anything is allocated), an array of reals (:func:`check_array`), token ids
(:func:`check_ids`), a seed (:func:`check_seed`), and a weight dict of each
layout (``handtf.layouts.check_tree`` with the layout's shapes).

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
from numbers import Integral, Real

import numpy as np

_state = threading.local()  # .inside is True while handtf code runs on behalf of a checked call

MAX_ELEMENTS = 10**8
"""The most numbers an array handtf allocates from a size argument may hold (800 MB in float64).

A size, shape or count that would need more is refused before anything is allocated.
"""


def checked(function=None, *, result=None, quiet=False):
    """Run ``check_<name>`` from ``function``'s module on the arguments of every outside call.

    The check receives every argument by name (defaults filled in) and returns
    ``None`` or a dict of arguments to replace. ``result(value, arguments)``,
    if given, runs after every call (inside ones too) with numpy's overflow
    warnings off, and raises if the value is not usable (not finite).
    ``quiet`` turns numpy's overflow warnings off in a function where an
    overflow rounds to the right answer (``x - max`` of ``[1e308, -1e308]`` is
    ``-inf``, whose ``exp`` is the right 0).
    """
    if function is None:
        return functools.partial(checked, result=result, quiet=quiet)
    signature = inspect.signature(function)
    check_name = f"check_{function.__name__}"

    def run(arguments):
        if result is None and not quiet:
            return function(**arguments)
        if result is None:
            with np.errstate(over="ignore", invalid="ignore"):
                return function(**arguments)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            value = function(**arguments)
        try:
            result(value, arguments)
        except (ValueError, TypeError) as error:
            raise error.with_traceback(None) from None
        return value

    @functools.wraps(function)
    def checked_call(*args, **kwargs):
        if getattr(_state, "inside", False):
            if result is None and not quiet:
                return function(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return run(bound.arguments)
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
            return run(arguments)
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


def shown(value):
    """What an error message says a bad argument was: its repr if short, else its type.

    >>> shown(None), shown("ab")
    ('None', "'ab'")
    >>> shown(10**400)
    'an integer of 1329 bits (too large for a float)'
    >>> shown(np.ma.masked_array([1]))
    'a numpy.MaskedArray'
    """
    if isinstance(value, Integral) and not isinstance(value, bool) and abs(int(value)) > 2**1023:
        return f"an integer of {int(value).bit_length()} bits (too large for a float)"
    if isinstance(value, np.ndarray):
        kind = type(value)
        return f"a {kind.__module__.split('.')[0]}.{kind.__name__}" if kind is not np.ndarray else f"an array of shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 40 and not isinstance(value, (list, tuple, dict)) else f"a {type(value).__name__}"


def check_int(name, value):
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {shown(value)}")
    return int(value)


def check_int_range(name, value, low, high=None, why=""):
    """A count: an integer in ``low..high`` (``high=None``: no upper bound)."""
    value = check_int(name, value)
    if value < low:
        raise ValueError(f"{name} must be at least {low}{why}, got {value}")
    if high is not None and value > high:
        got = f"{value:,}" if value.bit_length() < 64 else shown(value)
        raise ValueError(f"{name} must be at most {high:,}{why}, got {got}")
    return value


def check_positive_int(name, value):
    return check_int_range(name, value, 1)


def check_seed(name, value):
    """A seed for ``np.random.default_rng``: an integer >= 0 (numpy refuses negative seeds)."""
    value = check_int(name, value)
    if value < 0:
        raise ValueError(f"{name} must be at least 0, got {value} (numpy's seeds are whole numbers >= 0)")
    return value


def check_size(name, value, per_item=1, low=1, squared=False):
    """A size: an integer from ``low`` such that ``value * per_item`` numbers fit in :data:`MAX_ELEMENTS`.

    ``squared``: the size makes a square array (``per_item = value``).
    """
    value = check_int_range(name, value, low)
    per_item = value if squared else per_item
    if value * per_item > MAX_ELEMENTS:
        high = math.isqrt(MAX_ELEMENTS) if squared else MAX_ELEMENTS // max(per_item, 1)
        got = f"{value:,}" if value.bit_length() < 64 else shown(value)
        raise ValueError(
            f"{name} must be at most {high:,} (handtf allocates at most MAX_ELEMENTS = {MAX_ELEMENTS:,} numbers), got {got}"
        )
    return value


def check_elements(name, shape):
    """A shape (an int or a tuple of ints >= 0) whose array fits in :data:`MAX_ELEMENTS` numbers."""
    dims = (shape,) if isinstance(shape, Integral) and not isinstance(shape, bool) else shape
    if not isinstance(dims, (tuple, list)) or not all(isinstance(d, Integral) and not isinstance(d, bool) for d in dims):
        raise TypeError(f"{name} must be a shape: an integer or a tuple of integers, got {shown(shape)}")
    if any(d < 0 for d in dims):
        raise ValueError(f"{name} must be a shape of sizes >= 0, got {tuple(int(d) for d in dims)}")
    if math.prod(int(d) for d in dims) > MAX_ELEMENTS:
        raise ValueError(
            f"{name} must hold at most MAX_ELEMENTS = {MAX_ELEMENTS:,} numbers, got a shape of {math.prod(int(d) for d in dims):.3g}"
        )
    return tuple(int(d) for d in dims)


def check_real(name, value, low=-math.inf, high=math.inf, low_open=False, allowed=None):
    """A finite real number in ``[low, high]`` (``(low, high]`` with ``low_open``); ``allowed`` words the error."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {shown(value)}")
    try:
        number = float(value)
    except OverflowError:  # a Python int beyond float64
        number = math.inf if value > 0 else -math.inf
    if not math.isfinite(number) or number < low or number > high or (low_open and number == low):
        if high < math.inf:
            bounds = f" in {'(' if low_open else '['}{low:g}, {high:g}]"
        elif low > -math.inf:
            bounds = f" {'>' if low_open else '>='} {low:g}"
        else:
            bounds = ""
        raise ValueError(f"{name} must be {allowed or 'a finite number' + bounds}, got {shown(value)}")
    return number


def read_array(name, value, what="an array of real numbers"):
    """``value`` as a plain ndarray (a list or tuple is read with ``np.asarray``), or an error naming ``name``.

    ndarray subclasses are refused: numpy's functions ignore a masked array's
    mask, and ``*`` multiplies matrices as ``@`` would.
    """
    if isinstance(value, np.ndarray):
        if type(value) is not np.ndarray:
            raise TypeError(
                f"{name} must be {what} (a plain numpy array or a list), got {shown(value)}, an ndarray subclass; "
                "pass np.asarray(...) of it, or .filled(...) for a masked array"
            )
        return value
    try:
        array = np.asarray(value)
    except (ValueError, OverflowError, TypeError):  # a ragged list
        raise TypeError(f"{name} must be {what}, got a ragged {type(value).__name__} (rows of different lengths)") from None
    if array.dtype == object and array.ndim == 0:
        raise TypeError(f"{name} must be {what}, got object values ({shown(value)})")
    if array.dtype == object:
        huge = any(isinstance(v, Integral) and abs(v) > 2**1023 for v in array.flat)
        raise TypeError(f"{name} must be {what}, got object values" + (" (an integer too large for a float)" if huge else ""))
    return array


def check_array(name, value, ndim=None, min_ndim=0, floating=True, nonempty=True, finite=True, shape=None):
    """``value`` as a numpy array of real numbers (a list is fine), or a precise error.

    ``floating`` turns integers into float64 (and keeps float16/32/64);
    ``nonempty`` refuses an axis of length 0; ``finite`` refuses NaN and inf;
    ``shape`` describes the expected shape in error messages (``"[..., n_seq, n_embd]"``).
    """
    array = read_array(name, value)
    if array.dtype == bool or array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got {array.dtype} values")
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


def check_ids(name, ids, n_vocab, ndims=(1, 2), n_ctx=None):
    """Token ids as an integer array in ``0..n_vocab-1`` with one of ``ndims`` axes (and 1 to ``n_ctx`` in the last)."""
    array = read_array(name, ids, "integer token ids")
    if array.size == 0 and array.dtype.kind == "f":
        array = array.astype(np.int64)  # numpy reads [] as float64
    if array.dtype == bool or array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integer token ids, got {array.dtype} values")
    if array.ndim not in ndims:
        shapes = " or ".join(["[n_seq]", "[n_batch, n_seq]"][n - 1] if n in (1, 2) else "a single id" for n in ndims)
        raise ValueError(f"{name} must have shape {shapes}, got shape {array.shape}")
    if n_ctx is not None and array.ndim and not 1 <= array.shape[-1] <= n_ctx:
        raise ValueError(f"a sequence must hold 1 to {n_ctx} tokens (the context length), got {array.shape[-1]}")
    if array.ndim and array.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one token, got shape {array.shape}")
    if array.size and (array.min() < 0 or array.max() >= n_vocab):
        bad = array.min() if array.min() < 0 else array.max()
        raise ValueError(f"{name} must be token ids in 0..{n_vocab - 1} (a vocabulary of {n_vocab}), got {bad}")
    return array.astype(np.int64)


def check_finite_result(value, arguments, what="output"):
    """A result guard: every array in ``value`` (nested tuples, lists, dicts) and every float is finite."""
    for path, leaf in _leaves(value, ""):
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind == "f" and not np.isfinite(leaf).all():
            where = tuple(int(i) for i in np.argwhere(~np.isfinite(leaf))[0])
            raise ValueError(
                f"the {what} is not finite ({leaf[where]} at {path}{list(where)}): the weights are so large that "
                f"the computation overflows {leaf.dtype}; use smaller weights (or learning rate) or a wider dtype"
            )
        if isinstance(leaf, float) and not math.isfinite(leaf):
            raise ValueError(
                f"the {what} is not finite ({leaf} at {path or 'the result'}): the computation overflows; "
                "use smaller weights (or learning rate) or a wider dtype"
            )


def _leaves(value, path):
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, f"{path}[{key!r}]")]
    if isinstance(value, (list, tuple)):
        return [leaf for i, item in enumerate(value) for leaf in _leaves(item, f"{path}[{i}]")]
    return [(path, value)]


def finite_logits(logits, arguments):
    """``gpt``'s and ``gpt2``'s result guard: logits that overflowed are refused, naming the first tokens that overflow."""
    if not np.isfinite(logits).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(logits))[0])
        tokens = arguments["inputs"][where[:-2]][: where[-2] + 1].tolist()
        raise ValueError(
            f"the model's logits are not finite after tokens {tokens} (they overflow {logits.dtype}); "
            "use smaller weights or a wider dtype"
        )


def check_vector(name, vector, size, what):
    vector = check_array(name, vector, nonempty=False)
    if vector.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},) ({what}), got shape {vector.shape}")
    return vector


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
    if read_array("mask", mask).dtype == bool:
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


def check_dout(dout, shape):
    """A backward function's ``dout``: an array with the shape of its forward function's output."""
    dout = check_array("dout", dout, nonempty=False)
    if dout.shape != tuple(shape):
        raise ValueError(f"dout must have the shape of the forward output, {tuple(shape)}, got {dout.shape}")
    return dout


# The weight layouts (a dense layer, a nested dict of arrays, GPT-2's blocks) live in layouts.py.
from .layouts import (  # noqa: E402  (layouts reads arrays with the functions above)
    BLOCK_PARTS,
    check_dense,
    check_gpt2_weights,
    check_keys,
    check_tree,
    dense_width,
    gpt2_block_shapes,
    layout,
    names,
    numbers_in,
)

