"""The tokenizer: one character, one token."""

# --8<-- [start:tokenizer]
CHARS = ("a", "b")  # token id -> character


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
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    for position, char in enumerate(text):
        if char not in CHARS:
            raise ValueError(
                f"{char!r} at position {position} is not a token; "
                f"the allowed characters are {' and '.join(map(repr, CHARS))}"
            )
    return [CHARS.index(char) for char in text]


def untok(token):
    """Turn one token id back into its character.

    >>> untok(0), untok(1)
    ('a', 'b')
    """
    if isinstance(token, bool) or not hasattr(token, "__index__"):
        raise TypeError(f"token must be an integer id, got {type(token).__name__}")
    if not 0 <= token < len(CHARS):
        raise ValueError(f"token must be 0 ('a') or 1 ('b'), got {token}")
    return CHARS[token]
# --8<-- [end:tokenizer]
