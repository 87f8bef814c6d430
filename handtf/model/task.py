"""The task: continue a repeating pattern, and how many of its last characters decide the next.

The hand-made model continues ``(aab)*``; a compiled pattern (the page "Any
pattern") continues any repetition. Both are measured against the pattern
itself: :func:`shortest_period` is the repetition's unit and
:func:`context_needed` the fewest characters that decide the next, ``k``.
"""

from ..checks import MAX_TEXT, check_alphabet, checked

GPT2_N_HIDDEN = 3072  # GPT-2 small's feed-forward width: a compiled pattern has one unit per phase


def last_characters(k):
    """``'the last 3 characters'``, or ``'the last character'`` for ``k = 1``: for messages."""
    return "the last character" if k == 1 else f"the last {k} characters"


def verb(k, plural):
    """``plural`` (``'decide'``, ``'are'``) agreeing with :func:`last_characters` ``(k)``: ``'decides'``, ``'is'`` for ``k = 1``."""
    return ({"are": "is"}.get(plural, plural + "s")) if k == 1 else plural


@checked
def shortest_period(pattern):
    """The shortest string whose repetition is ``pattern``:
    ``"abab"`` -> ``"ab"``.

    >>> shortest_period("abab"), shortest_period("aba"), shortest_period("aaa")
    ('ab', 'aba', 'a')
    """
    n = len(pattern)
    return next(pattern[:p] for p in range(1, n + 1)
                if n % p == 0 and pattern[:p] * (n // p) == pattern)


@checked
# --8<-- [start:context_needed]
def context_needed(pattern):
    """The smallest ``k`` such that the last ``k`` characters of
    ``pattern``'s repetition decide the next.

    Two phases of the repetition that look the same for their last ``L``
    characters must be told apart by the one before: ``k`` is one more than
    the longest past that two different phases share. Reading each phase's
    past backwards, those are rotations of the reversed pattern, and the
    longest shared start of two of them is found between neighbours in
    sorted order.

    >>> context_needed("aab"), context_needed("abc"), context_needed("aaab")
    (2, 1, 3)
    """
    pattern = shortest_period(pattern)
    n, backwards = len(pattern), pattern[::-1]
    # each phase's past, newest first
    pasts = sorted(backwards[i:] + backwards[:i] for i in range(n))
    shared = [_common_start(a, b) for a, b in zip(pasts, pasts[1:])]
    return 1 + max(shared, default=0)
# --8<-- [end:context_needed]


def _common_start(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))



# The boundary (see handtf.checks): what each function above accepts.


def check_text(name, pattern):
    """A non-empty str (any characters) of at most :data:`~handtf.checks.MAX_TEXT`: what shortest_period accepts (linear in it)."""
    if not isinstance(pattern, str):
        raise TypeError(f"{name} must be a str, got {type(pattern).__name__}")
    if not pattern:
        raise ValueError("pattern is empty; give the characters to repeat, e.g. 'aab'")
    if len(pattern) > MAX_TEXT:
        raise ValueError(f"{name} must have at most {MAX_TEXT:,} characters (MAX_TEXT), got {len(pattern):,}")
    return pattern


def check_shortest_period(pattern):
    check_text("pattern", pattern)


MAX_PERIOD = GPT2_N_HIDDEN
"""``context_needed`` sorts every phase's past, ``n**2`` characters for a period of ``n``: at most this period (3,072, as ``compile_pattern``)."""


def check_context_needed(pattern):
    period = len(shortest_period.__wrapped__(check_text("pattern", pattern)))
    if period > MAX_PERIOD:
        raise ValueError(f"pattern repeats every {period:,} characters; context_needed compares every two phases "
                         f"({period:,}**2 characters) and takes a period of at most {MAX_PERIOD:,} (MAX_PERIOD, GPT-2 small's n_hidden)")




def read_pattern(pattern):
    """A pattern to continue (a str of printable characters, no spaces, at most :data:`MAX_PERIOD` a period): its shortest period."""
    check_alphabet("pattern", check_text("pattern", pattern), distinct=False)
    period = shortest_period.__wrapped__(pattern)
    if len(period) > MAX_PERIOD:
        raise ValueError(f"pattern repeats every {len(period):,} characters; at most {MAX_PERIOD:,} (MAX_PERIOD, GPT-2 small's n_hidden)")
    return period
