"""Checking arguments at the boundary, so that the functions the pages show are only the math.

Every public function of handtf is decorated with :func:`checked`. When it is
called from outside the package, the decorator first reads its arguments: it
raises a ``ValueError`` or ``TypeError`` that names the argument, what it got
and what is allowed, and hands the function the arguments as read (a list as
an array, integers as float64). handtf's own calls pass arguments in that
form and skip the reading, so a function takes the same inputs from any
caller. A function handtf calls back (a ``step_fn``) runs as outside code
again. Reading keeps no state: no caches, no hashing.

A function's arguments are read in one place, its decorator:
``@checked(x=check_array)`` names each argument's reader;
``@checked(forward=linear)`` reads a backward function's arguments as its
forward function does, and ``dout`` as an array of the forward output's
shape; the module's ``check_<name>``, if there is one, then checks what
relates the arguments (a mask that broadcasts to the scores). Each kind of
argument has one reader, in :mod:`handtf.readers` (all of them importable from here too): a number (``check_real``), a count
(``check_int_range``), a size (``check_size``: at most :data:`MAX_ELEMENTS`
numbers, checked before anything is allocated), an array of reals
(``check_array``), token ids (``check_ids``), a seed (``check_seed``), and
a weight dict of each layout (``handtf.layouts``). A ``result`` guard
(``gpt``, the losses, ``train``, ...) runs on every call and refuses an
output that is not finite, so weights whose logits overflow get a clear
error instead of NaN.

>>> from handtf import softmax
>>> softmax([0.0, float("nan")])
Traceback (most recent call last):
...
ValueError: x must not contain NaN or +inf, got nan at index (1,)
"""

import functools
import inspect
import sys
import threading

import numpy as np

from .readers import (  # noqa: F401 (every reader, as handtf.checks.NAME too)
    MAX_ELEMENTS,
    MAX_STEPS,
    MAX_TEXT,
    check_alphabet,
    check_array,
    check_count,
    check_decimal,
    check_dout,
    check_dtypes,
    check_elements,
    check_float_dtype,
    check_fraction,
    check_ids,
    check_int_range,
    check_mask,
    check_n_head,
    check_positive,
    check_real,
    check_rng,
    check_scores,
    check_seed,
    check_size,
    check_steps,
    decimal_digits,
    optional,
    read_array,
    shown,
    type_name,
)
from .trees import paths, tree_map

_state = threading.local()  # .inside is True while handtf code runs on behalf of a checked call


def checked(function=None, *, result=None, quiet=False, forward=None, **readers):
    """Read the arguments of every outside call of ``function`` (see the module's introduction).

    ``readers``: ``read(name, value)`` for some arguments; ``forward``: the
    forward function of a backward one; then the module's ``check_<name>``,
    if any, takes every argument by name and returns ``None`` or a dict of
    arguments as read. ``result(value, arguments)`` runs after every call
    (inside ones too) with numpy's overflow warnings off, and raises if the
    value is not finite. ``quiet`` turns the warnings off where an overflow
    rounds to the right answer (``exp(-inf)`` is the right 0).
    """
    if function is None:
        return functools.partial(checked, result=result, quiet=quiet, forward=forward, **readers)
    signature = inspect.signature(function)

    def check(**arguments):
        read = check_backward(forward, arguments) if forward else {}
        read |= {name: reader(name, arguments[name]) for name, reader in readers.items()}
        relate = getattr(sys.modules[function.__module__], f"check_{function.__name__}", None)
        return read | ((relate(**(arguments | read)) or {}) if relate else {})

    def run(arguments):
        if result is None:
            with np.errstate(**({"over": "ignore", "invalid": "ignore"} if quiet else {})):
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
        if getattr(_state, "inside", False) and result is None and not quiet:
            return function(*args, **kwargs)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{function.__name__}(): {error}") from None
        bound.apply_defaults()
        if getattr(_state, "inside", False):
            return run(bound.arguments)
        try:
            arguments = bound.arguments | (check(**bound.arguments) or {})
        except (ValueError, TypeError) as error:
            raise error.with_traceback(None) from None  # the message is the whole story: no frames of the check
        _state.inside = True
        try:
            return unshared(run(arguments), [leaf for value in bound.arguments.values() for _, leaf in paths(value)])
        finally:
            _state.inside = False

    checked_call.check, checked_call.readers, checked_call.forward = check, readers, forward
    return checked_call


def unshared(value, given):
    """``value`` with every array that shares memory with one of ``given`` (the caller's arguments) copied.

    No function of handtf hands back a view of what it was given (``split_heads``
    reshapes, ``dropout`` at inference is the identity): writing into a result
    never changes the caller's arrays, nor the package's read-only models.
    """
    arrays = [a for a in given if isinstance(a, np.ndarray)]
    if not arrays or type(value) not in (np.ndarray, tuple, list, dict):
        return value
    shares = lambda leaf: isinstance(leaf, np.ndarray) and any(np.may_share_memory(leaf, a) for a in arrays)  # noqa: E731
    return tree_map(lambda leaf: leaf.copy() if shares(leaf) else leaf, value, into=(dict, list, tuple))


def check_backward(forward, arguments):
    """A backward function's arguments: its forward function's, read as it reads them, and ``dout`` of its output's shape."""
    names = [n for n in inspect.signature(forward).parameters if n in arguments]  # a forward's cache has no backward
    read = {**arguments, **(forward.check(**{n: arguments[n] for n in names}) or {})}
    _state.inside = True
    try:
        with np.errstate(all="ignore"):
            shape = np.shape(forward(**{n: read[n] for n in names}))
    finally:
        _state.inside = False
    return read | {"dout": check_dout(arguments["dout"], shape)}


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
        raise TypeError(f"{name} must be a function, got {type_name(value)}")
    return outside(value)


def check_finite_result(value, arguments, what="output", source=None):
    """A result guard: every array in ``value`` (nested tuples, lists, dicts) and every float is finite.

    ``source`` names the argument whose size overflowed (``"logits"``).
    """
    for path, leaf in paths(value):
        if isinstance(leaf, (np.ndarray, float)) and not np.isfinite(leaf).all():
            where = tuple(int(i) for i in np.argwhere(~np.isfinite(leaf))[0]) if np.ndim(leaf) else ()
            at = f"{leaf[where]} at {path}{list(where)}" if where else f"{leaf} at {path or 'the result'}"
            given = np.asarray(arguments[source]) if source else None
            why = (f"the computation overflows {getattr(leaf, 'dtype', 'float64')}; use smaller weights (or learning rate) "
                   "or a wider dtype") if source is None else (
                f"{source} from {given.min():.3g} to {given.max():.3g} give a {what} beyond {given.dtype}'s largest "
                f"number, {float(np.finfo(given.dtype).max):.3g}; pass {source} closer together or in a wider dtype")
            raise ValueError(f"the {what} is not finite ({at}): {why}")


def finite_logits(logits, arguments):
    """``gpt``'s and ``gpt2``'s result guard: logits that overflowed are refused, naming the first tokens that overflow."""
    if not np.isfinite(logits).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(logits))[0])
        tokens = arguments["inputs"][where[:-2]][: where[-2] + 1].tolist()
        raise ValueError(
            f"the model's logits are not finite after tokens {tokens} (they overflow {logits.dtype}); "
            "use smaller weights or a wider dtype"
        )
