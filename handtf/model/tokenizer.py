"""The tokenizer: one character, one token."""

from ..checks import check_alphabet, checked
from ..layouts import names

# --8<-- [start:tokenizer]
CHARS = ("a", "b")  # token id -> character
# --8<-- [end:tokenizer]


@checked
# --8<-- [start:tokenize]
def tokenize(text, chars=CHARS):
    """Turn a string into token ids: each character's index in ``chars``
    (``a`` and ``b`` by default).

    >>> tokenize("aabaa")
    [0, 0, 1, 0, 0]
    >>> tokenize("")
    []
    >>> tokenize("abc")
    Traceback (most recent call last):
    ...
    ValueError: 'c' at position 2 is not a token; the allowed characters are
    'a' and 'b'
    >>> tokenize("abc", chars=("a", "b", "c"))  # a compiled pattern's alphabet
    [0, 1, 2]
    """
    return [chars.index(char) for char in text]
# --8<-- [end:tokenize]


@checked
# --8<-- [start:untok]
def untok(token, chars=CHARS):
    """Turn one token id back into its character.

    >>> untok(0), untok(1), untok(2, chars=("a", "b", "c"))
    ('a', 'b', 'c')
    """
    return chars[token]
# --8<-- [end:untok]


# The boundary (see handtf.checks): what each function above accepts.


def check_chars(chars):
    """An alphabet: a tuple of distinct one-character strings (a str is read as its characters)."""
    return check_alphabet("chars", chars, sequence=True)


allowed = names  # ``'a' and 'b'``, or ``'a', 'b' and 'c'``


def check_tokenize(text, chars):
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    chars = check_chars(chars)
    bad = next((position for position, char in enumerate(text) if char not in chars), None)
    if bad is not None:
        raise ValueError(f"{text[bad]!r} at position {bad} is not a token; the allowed characters are {allowed(chars)}")
    return {"chars": chars}


def check_untok(token, chars):
    if isinstance(token, bool) or not hasattr(token, "__index__") or getattr(token, "ndim", 0) != 0:
        raise TypeError(f"token must be one integer id, got {type(token).__name__}; for a sequence, untok each id")
    chars = check_chars(chars)
    if not 0 <= token < len(chars):
        ids = " or ".join(f"{i} ({c!r})" for i, c in enumerate(chars)) if len(chars) <= 3 else f"0..{len(chars) - 1}"
        raise ValueError(f"token must be {ids}, got {token}")
    return {"chars": chars}
