"""The tokenizer: one character, one token."""

from .checks import checked

# --8<-- [start:tokenizer]
CHARS = ("a", "b")  # token id -> character
# --8<-- [end:tokenizer]


@checked
# --8<-- [start:tokenize]
def tokenize(text):
    """Turn a string of ``a`` and ``b`` into token ids.

    >>> tokenize("aabaa")
    [0, 0, 1, 0, 0]
    >>> tokenize("")
    []
    >>> tokenize("abc")
    Traceback (most recent call last):
    ...
    ValueError: 'c' at position 2 is not a token; the allowed characters are 'a' and 'b'
    """
    return [CHARS.index(char) for char in text]
# --8<-- [end:tokenize]


@checked
# --8<-- [start:untok]
def untok(token):
    """Turn one token id back into its character.

    >>> untok(0), untok(1)
    ('a', 'b')
    """
    return CHARS[token]
# --8<-- [end:untok]


# The boundary (see handtf.checks): what each function above accepts.


def check_tokenize(text):
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    bad = next((position for position, char in enumerate(text) if char not in CHARS), None)
    if bad is not None:
        raise ValueError(
            f"{text[bad]!r} at position {bad} is not a token; the allowed characters are {' and '.join(map(repr, CHARS))}"
        )


def check_untok(token):
    if isinstance(token, bool) or not hasattr(token, "__index__"):
        raise TypeError(f"token must be an integer id, got {type(token).__name__}")
    if not 0 <= token < len(CHARS):
        raise ValueError(f"token must be 0 ('a') or 1 ('b'), got {token}")
