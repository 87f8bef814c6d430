"""The readers of handtf's arguments: one per kind of argument, each naming what it got and what is allowed.

:mod:`handtf.checks` hands each argument of a public function to one of
these (``@checked(x=check_array)``, or a module's ``check_<name>``): a number
(``check_real``, ``check_positive``), a count (``check_int_range``,
``check_steps``), a size (``check_size``: at most :data:`MAX_ELEMENTS`
numbers, checked before anything is allocated), an array of reals
(``check_array``), scores and logits (``check_scores``), token ids
(``check_ids``), an alphabet (``check_alphabet``), a seed (``check_seed``), a
mask, a dtype. The weight layouts read their arrays with them
(``handtf.layouts``). Nothing here imports the rest of handtf.
"""

import math
from numbers import Integral, Real

import numpy as np

MAX_ELEMENTS = 10**8
"""The most numbers an array handtf allocates from a size argument may hold (800 MB in float64): more is refused first."""


def check_rng(name, value):
    if not isinstance(value, np.random.Generator):
        raise TypeError(f"{name} must be a np.random.Generator (e.g. np.random.default_rng(0)), got {shown(value)}")
    return value


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
    return text if len(text) <= 40 and not isinstance(value, (list, tuple, dict)) else f"a {type_name(value)}"


def type_name(value):
    """The name of ``value``'s type for a message: a read-only dict or list of handtf's (``MODEL``) is a ``dict`` or ``list``."""
    return next((kind.__name__ for kind in (dict, list) if isinstance(value, kind) and type(value).__module__ == "handtf.trees"),
                type(value).__name__)


def check_int_range(name, value, low=None, high=None, why="", low_why=""):
    """A count: an integer in ``low..high`` (``None``: no bound); ``why`` and ``low_why`` explain the bounds."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {shown(value)}")
    value = int(value)
    if low is not None and value < low:
        raise ValueError(f"{name} must be at least {low}{low_why}, got {value if value.bit_length() < 64 else shown(value)}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be at most {high:,}{why}, got {f'{value:,}' if value.bit_length() < 64 else shown(value)}")
    return value


def check_count(name, value):
    """A count of at least 1 (steps, heads, a width)."""
    return check_int_range(name, value, 1)


MAX_TEXT = 10**6
"""The most characters a pattern may hold, or a function may build from one (``phases``): more is refused before any work."""


MAX_STEPS = 10**6
"""The most steps a loop of handtf runs (training steps, decoded tokens): a typo does not run for days."""


def check_steps(name, value):
    """A number of steps (training, decoding): 1 to :data:`MAX_STEPS`."""
    return check_int_range(name, value, 1, MAX_STEPS, " (MAX_STEPS, a bound that keeps a typo from running for days)")


def check_positive(name, value, at_most=math.inf):
    """A real number > 0 (``lg``, a temperature, a learning rate, ``top_p``), at most ``at_most``: the one positive-number rule."""
    return check_real(name, value, 0, at_most, low_open=True)


def check_fraction(name, value):
    """A number in [0, 1): a probability that is not 1 (a rate, a beta, a smoothing)."""
    return check_real(name, value, 0, 1, high_open=True)


def optional(reader):
    """``reader``, or ``None`` left as it is."""
    return lambda name, value: None if value is None else reader(name, value)


def check_seed(name, value):
    """A seed for ``np.random.default_rng``: an integer >= 0 (numpy refuses negative seeds)."""
    if check_int_range(name, value) < 0:
        raise ValueError(f"{name} must be at least 0, got {value} (numpy's seeds are whole numbers >= 0)")
    return int(value)


def decimal_digits(value):
    """How many decimal digits the whole number ``value`` >= 0 has, without ``str`` (which refuses past 4,300 digits).

    >>> decimal_digits(0), decimal_digits(999), decimal_digits(10**5000)
    (1, 3, 5001)
    """
    count = max(1, int((value.bit_length() - 1) * 0.30102999566398120) + 1)  # log10(2): exact or one short
    return count + (value >= 10**count)


def check_decimal(name, value, most, why):
    """A whole number >= 0 of at most ``most`` decimal digits: an int, or a str of the digits 0-9 (leading 0s
    allowed), as an int. ``why`` ends the message about too many digits ("this model reads at most 3 (n_digits)").

    The one reader of the adder's numbers (``a``, ``b``, a total) and of the command line's whole numbers:
    its messages say what is wrong in words, and the adder widget (docs/assets/javascripts/adder.js) says
    the same words. A str is read character by character before any conversion, so 5,000 digits are
    refused by their count, not by Python's limit on converting long strs.

    >>> check_decimal("a", "007", 3, "at most 3")
    7
    >>> check_decimal("a", "", 3, "at most 3")
    Traceback (most recent call last):
    ...
    ValueError: a is empty; write it with the digits 0-9
    >>> check_decimal("b", "1 2", 3, "at most 3")
    Traceback (most recent call last):
    ...
    ValueError: b has ' ' at position 1; write it with the digits 0-9 only
    """
    if isinstance(value, str):
        if not value:
            raise ValueError(f"{name} is empty; write it with the digits 0-9")
        if value[0] == "-":
            raise ValueError(f"{name} starts with a minus sign; the adder takes numbers of 0 or more, "
                             "written with the digits 0-9")
        bad = next((i for i, char in enumerate(value) if char not in "0123456789"), None)
        if bad is not None:
            raise ValueError(f"{name} has {value[bad]!r} at position {bad}; write it with the digits 0-9 only")
        count = max(len(value.lstrip("0")), 1)
        if count > most:
            raise ValueError(f"{name} has {count:,} digits; {why}")
        return int(value)
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be a whole number (an int, or a str of the digits 0-9), got {type_name(value)}")
    value = int(value)
    if value < 0:
        raise ValueError(f"{name} is negative{f' ({value})' if value.bit_length() < 64 else ''}; "
                         "the adder takes numbers of 0 or more")
    if decimal_digits(value) > most:
        raise ValueError(f"{name} has {decimal_digits(value):,} digits; {why}")
    return value


def check_dtypes(name, dtypes, least=4):
    """A non-empty tuple (or list) of float dtypes, each named once (a check counts each on its own): their names."""
    if isinstance(dtypes, (str, type, np.dtype)) or not isinstance(dtypes, (tuple, list)) or not dtypes:
        raise TypeError(f"{name} must be a non-empty tuple of float dtypes, e.g. (np.float32, np.float64), got {shown(dtypes)}")
    names = [check_float_dtype(name, dtype, least=least).name for dtype in dtypes]
    if len(set(names)) != len(names):
        raise ValueError(f"{name} must name each dtype once (each is counted on its own), got {', '.join(names)}")
    return tuple(names)


def check_size(name, value, per_item=1, low=1, squared=False):
    """A size: an integer from ``low`` such that ``value * per_item`` numbers fit in :data:`MAX_ELEMENTS`.

    ``squared``: the size makes a square array (``per_item = value``).
    """
    value = check_int_range(name, value, low)
    high = math.isqrt(MAX_ELEMENTS) if squared else MAX_ELEMENTS // max(per_item, 1)
    return check_int_range(name, value, low, high, f" (handtf allocates at most MAX_ELEMENTS = {MAX_ELEMENTS:,} numbers)")


def check_elements(name, shape):
    """A shape (an int or a tuple of ints >= 0) whose array fits in :data:`MAX_ELEMENTS` numbers."""
    dims = (shape,) if isinstance(shape, Integral) and not isinstance(shape, bool) else shape
    if not isinstance(dims, (tuple, list)) or not all(isinstance(d, Integral) and not isinstance(d, bool) for d in dims):
        raise TypeError(f"{name} must be a shape: an integer or a tuple of integers, got {shown(shape)}")
    dims = tuple(int(d) for d in dims)
    if any(d < 0 for d in dims):
        raise ValueError(f"{name} must be a shape of sizes >= 0, got {dims}")
    if math.prod(dims) > MAX_ELEMENTS:
        raise ValueError(f"{name} must hold at most MAX_ELEMENTS = {MAX_ELEMENTS:,} numbers, got a shape of {math.prod(dims) if math.prod(dims) < 10**30 else shown(math.prod(dims))} numbers")
    return dims


def check_real(name, value, low=-math.inf, high=math.inf, low_open=False, high_open=False):
    """A finite real number in ``[low, high]`` (``(low`` with ``low_open``, ``high)`` with ``high_open``).

    Every error about a number's range is worded here (``allowed_reals``).
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {shown(value)}")
    try:
        number = float(value)
    except OverflowError:  # a Python int beyond float64
        number = math.inf
    if not (math.isfinite(number) and low <= number <= high) or number in ((low,) if low_open else ()) + ((high,) if high_open else ()):
        raise ValueError(f"{name} must be {allowed_reals(low, high, low_open, high_open)}, got {shown(value)}")
    return number


def allowed_reals(low, high, low_open, high_open):
    """What ``check_real`` allows, in words: above 0 is "positive", any other range its bounds.

    >>> allowed_reals(0, math.inf, True, False)
    'a positive finite number'
    >>> allowed_reals(0, 1, True, False)
    'a positive finite number at most 1'
    >>> allowed_reals(0, math.inf, False, False)
    'a finite number >= 0'
    >>> allowed_reals(0, 1, False, True)
    'a finite number in [0, 1)'
    """
    upper = f" {'below' if high_open else 'at most'} {high:g}" if high < math.inf else ""
    if low == 0 and low_open:  # the positive-number rule
        return "a positive finite number" + upper
    if high < math.inf:
        return f"a finite number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    return "a finite number" + (f" {'>' if low_open else '>='} {low:g}" if low > -math.inf else "")


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
        raise TypeError(f"{name} must be {what}, got a ragged {type_name(value)} (rows of different lengths)") from None
    if array.dtype == object:
        huge = any(isinstance(v, Integral) and abs(v) > 2**1023 for v in array.flat)
        got = f" ({shown(value)})" if array.ndim == 0 else " (an integer too large for a float)" if huge else ""
        raise TypeError(f"{name} must be {what}, got object values{got}")
    return array


def check_array(name, value, ndim=None, min_ndim=0, floating=True, nonempty=True, finite=True, shape=None):
    """``value`` as a numpy array of real numbers (a list is fine), or a precise error.

    ``floating`` turns integers into float64 (and keeps float16/32/64);
    ``nonempty`` refuses an axis of length 0; ``finite`` refuses NaN and inf
    (``finite="scores"``: NaN and +inf, as -inf hides a score);
    ``shape`` describes the expected shape in error messages (``"[..., n_seq, n_embd]"``).
    """
    array = read_array(name, value)
    if array.dtype == bool or array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got {array.dtype} values")
    if (ndim is not None and array.ndim != ndim) or array.ndim < min_ndim:
        wanted = shape or ("(" + ", ".join(["n"] * ndim) + ")" if ndim is not None else f"with at least {min_ndim} axes")
        raise ValueError(f"{name} must have shape {wanted}, got {'a scalar' if array.ndim == 0 else f'shape {array.shape}'}")
    if nonempty and 0 in array.shape:
        raise ValueError(f"{name} must have {f'shape {shape} with no empty axis' if shape else 'no empty axis'}, got shape {array.shape}")
    if floating and array.dtype.kind != "f":
        array = array.astype(np.float64)
    if finite and array.dtype.kind == "f":
        bad = np.isnan(array) | (array == np.inf) if finite == "scores" else ~np.isfinite(array)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            allowed = "NaN or +inf" if finite == "scores" else "NaN or inf"
            raise ValueError(f"{name} must not contain {allowed}, got {array[where]} at index {where}")
    return array


def check_scores(name, x, ndim=None):
    """Scores or logits ``[..., n]``: -inf hides an entry (a row of only -inf gives NaN, as in numpy), NaN and +inf are refused.

    The one reader of logits: ``ndim=1`` asks for one row ``[n_vocab]`` (what
    a decoder picks a token from), read as float64 with at least one finite entry.
    """
    array = check_array(name, x, ndim=ndim, min_ndim=1, finite="scores", shape="[n_vocab]" if ndim == 1 else None)
    if ndim == 1:
        array = array.astype(np.float64)
        if not np.isfinite(array).any():
            raise ValueError(f"{name} must have at least one finite entry, got all -inf")
    return array


def check_alphabet(name, chars, distinct=True, at_least=1, at_most=None, why="", low_why="", sequence=False):
    """Characters that are tokens, as a tuple: printable, not spaces, each once (unless ``distinct=False``, for a pattern).

    The one reader of an alphabet: ``tokenize``'s ``chars``, a pattern to
    compile, an induction head's alphabet and the command line's. A str (or,
    with ``sequence``, a tuple or list of one-character strs); at most
    ``at_most`` characters (``why`` says why), checked before anything else,
    and at least ``at_least`` (``low_why``),
    then every character once: the work is linear in the length.
    """
    what = "distinct single characters, such as ('a', 'b')" if sequence else "a str of distinct characters, e.g. 'abc'"
    if sequence and isinstance(chars, (tuple, list)) and all(isinstance(c, str) and len(c) == 1 for c in chars):
        chars = "".join(chars)
    if not isinstance(chars, str):
        raise TypeError(f"{name} must be {what if distinct else 'a str'}, got {'None' if chars is None else 'a ' + type(chars).__name__}")
    if at_most is not None and len(chars) > at_most:
        raise ValueError(f"{name} must have at most {at_most:,} characters{why}, got {len(chars):,}")
    for position, char in enumerate(chars):
        if not char.isprintable() or char.isspace():
            raise ValueError(f"{char!r} at position {position} of the {name} cannot be a token; "
                             "characters must be printable and not spaces")
    if distinct and len(set(chars)) != len(chars):
        seen, repeated = set(), set()
        for char in chars:
            (repeated if char in seen else seen).add(char)
        listed = sorted(repeated)
        more = f" and {len(listed) - 5:,} more" if len(listed) > 5 else ""
        raise ValueError(f"{name} has {', '.join(map(repr, listed[:5]))}{more} more than once; each character is one token")
    if len(chars) < at_least:
        raise ValueError(f"{name} must have at least {at_least} characters{low_why}, got {chars!r}")
    return tuple(chars)


def check_ids(name, ids, n_vocab=None, ndims=(1, 2), n_ctx=None):
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
    largest = np.iinfo(np.int64).max if n_vocab is None else n_vocab - 1  # int64 holds every id (uint64 would wrap)
    if array.size and (array.min() < 0 or array.max() > largest):
        bad = array.min() if array.min() < 0 else array.max()
        allowed = f"in 0..{n_vocab - 1} (a vocabulary of {n_vocab})" if n_vocab is not None else f"in 0..{largest:,}"
        raise ValueError(f"{name} must be token ids {allowed}, got {bad}")
    return array.astype(np.int64)


def check_n_head(n_head, size, name="n_embd, the last axis of x"):
    n_head = check_count("n_head", n_head)
    if size % n_head:
        raise ValueError(f"n_head = {n_head} must divide {name} = {size}")
    return n_head


def check_mask(mask, scores_shape, name="mask", min_ndim=0):
    """An additive mask (0 keeps a key, a large negative number hides it) that broadcasts to the scores.

    ``None`` means no mask; ``min_ndim=2`` asks for ``[..., n_q, n_k]`` (a mask shared by heads). Booleans are refused: "True hides" and "True keeps"
    are both in use elsewhere, so handtf asks for the additive mask that
    ``causal_mask`` and ``padding_mask`` make.
    """
    if mask is None:
        return None
    if read_array(name, mask).dtype == bool:
        raise TypeError(
            f"{name} must be additive (0 keeps a key, a large negative number hides it), got booleans; "
            "make one with padding_mask(key_is_pad) or causal_mask(n_seq)"
        )
    mask = check_array(name, mask, nonempty=False)
    if mask.ndim < min_ndim:
        raise ValueError(f"{name} must have shape [..., n_q, n_k], got shape {mask.shape}")
    try:
        fits = np.broadcast_shapes(mask.shape, scores_shape) == tuple(scores_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"{name} has shape {mask.shape}, which does not broadcast to the scores' shape {tuple(scores_shape)} ([..., n_q, n_k])"
        )
    return mask


def check_float_dtype(name, dtype, least=2):
    """A numpy floating dtype of at least ``least`` bytes (2: float16, float32 or float64; 4: float32 or float64)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a floating-point type such as np.float16/32/64, got {dtype!r}") from None
    allowed = "float16/32/64" if least < 4 else "float32 or float64"
    if dtype.kind != "f":
        raise TypeError(f"{name} must be a floating-point type such as {allowed}, got {dtype}")
    if dtype.itemsize < least:
        raise TypeError(f"{name} must be {allowed}, got {dtype}")
    return dtype


def check_dout(dout, shape):
    """A backward function's ``dout``: an array with the shape of its forward function's output."""
    dout = check_array("dout", dout, nonempty=False)
    if dout.shape != tuple(shape):
        raise ValueError(f"dout must have the shape of the forward output, {tuple(shape)}, got {dout.shape}")
    return dout


# The weight layouts live in layouts.py, which reads arrays with the functions above.
