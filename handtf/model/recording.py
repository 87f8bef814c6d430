"""Keeping what a forward pass computes, by the names its code gives it, without a line in that code.

The forward functions (``gpt``, ``attention`` ...) are only the math: they
record nothing. A :class:`Recorder` follows the functions it is given while
its ``with`` block runs (Python's own tracing hook, ``sys.settrace``) and
keeps every value each of their variables takes, in order: the arguments as a
call starts, then each new value after a line assigns one. That is how
:func:`handtf.trace` shows the model's own matrices, under the names the code
gives them.
"""

import inspect
import sys

import numpy as np


class Recorder:
    """Keep every value each variable of ``functions`` takes while the ``with`` block runs.

    ``arrays[function_name][variable]`` lists the values in the order they
    were computed: a variable assigned twice (``x = x + ...``) keeps both,
    and a function called twice adds its second call's values after the
    first's. An array is kept as a copy, so a later write into the caller's
    array (or the recorded one) changes neither.

    >>> def double(x):
    ...     y = 2 * x
    ...     y = y + 1
    ...     return y
    >>> with Recorder(double) as record:
    ...     result = double(3)
    >>> record.arrays
    {'double': {'x': [3], 'y': [6, 7]}}
    """

    def __init__(self, *functions):
        # a @checked function: follow the function it wraps
        plain = [inspect.unwrap(f) for f in functions]
        bad = next((f for f, p in zip(functions, plain) if not inspect.isfunction(p)), None)
        if bad is not None:
            raise TypeError(f"functions must be Python functions (def or lambda), whose lines can be followed, got {bad!r}")
        self.names = {p.__code__: f.__name__ for f, p in zip(functions, plain)}
        self.arrays = {}

    def __enter__(self):
        self.previous = sys.gettrace()
        sys.settrace(self.start)
        return self

    def __exit__(self, *exception):
        sys.settrace(self.previous)

    def start(self, frame, event, arg):
        """The hook of every new call: follow it, line by line, if it is one of the functions."""
        if frame.f_code not in self.names:
            return None
        arrays = self.arrays.setdefault(self.names[frame.f_code], {})
        seen = {}  # variable -> the value last kept, to keep each value once

        def keep(frame, event, arg):
            for name, value in frame.f_locals.items():
                if seen.get(name, keep) is not value:
                    seen[name] = value
                    arrays.setdefault(name, []).append(value.copy() if isinstance(value, np.ndarray) else value)
            return keep

        return keep(frame, event, arg)
