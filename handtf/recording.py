"""Recording the intermediates of a forward pass, as the pass computes them.

The forward-pass functions (``gpt``, ``attention`` ...) take an optional
``record`` function and call it with the arrays they compute, by name. The
default, :func:`ignore`, keeps nothing; :class:`Recorder` keeps everything,
which is how :func:`handtf.trace` shows the model's own matrices.
"""


def ignore(**arrays):
    """The default recorder: keep nothing."""


class Recorder:
    """Keep every array a forward pass records, by name; a name recorded twice keeps both, in order.

    >>> record = Recorder()
    >>> record(q=1, k=2)
    >>> record(q=3)
    >>> record.arrays
    {'q': [1, 3], 'k': [2]}
    """

    def __init__(self):
        self.arrays = {}

    def __call__(self, **arrays):
        for name, array in arrays.items():
            self.arrays.setdefault(name, []).append(array)
