"""Running the model: the next token, its probabilities, and whole completions.

The model has ``N_CTX = 5`` positions, so it only ever sees the **last five
tokens** of a context; anything earlier is dropped before the forward pass
(as in the tutorial). For ``(aab)*`` two tokens are enough to decide.

Every function runs any model (:class:`handtf.model.interface.Model`) the
same way, ``gpt(tokens, **model.weights, n_head=model.n_head)``, reading its
alphabet (``model.chars``), context (``model.n_ctx``) and the fewest tokens it
needs (``model.min_context``) from it: the hand-made model (``HAND_MADE``, or
any weights of its layout, such as ``MODEL`` or ``train``'s, which the
boundary wraps in a ``HandMade``), a compiled pattern, an induction head and
the adder alike.

>>> from handtf import adder, induction_head
>>> complete(adder(3).prompt(123, 456), 4, model=adder(3))
'321+654=9750'
>>> predict("abcab", model=induction_head())
'c'
"""

import numpy as np

from ..blocks.activations import softmax
from ..checks import check_int_range, checked
from .interface import HAND_MADE, PATTERN, HandMade, Model, read_model  # noqa: F401 (HandMade, Model: importable from here too)
from .task import last_characters, verb
from .decoding import gpt_step, greedy_search
from .transformer import gpt
from .tokenizer import allowed, tokenize, untok

MAX_NEW_TOKENS = 1_000_000  # complete's upper bound: each token costs the same, about 0.1-0.2 ms


@checked
def context_window(context, model=HAND_MADE):
    """The token ids the model sees for ``context``: its last ``N_CTX`` tokens.

    >>> context_window("aabaabaa")
    [0, 0, 1, 0, 0]
    """
    return tokenize(context, model.chars)[-model.n_ctx :]


@checked
# --8<-- [start:next_token_probs]
def next_token_probs(context, model=HAND_MADE):
    """The probability of each token coming after ``context``.

    >>> next_token_probs("aabaa")
    {'a': 0.0, 'b': 1.0}
    """
    tokens = np.array(context_window(context, model))  # [n_seq]
    # [n_seq, n_vocab]
    logits = gpt(tokens, **model.weights, n_head=model.n_head)
    # the last row predicts what follows
    probs = softmax(logits[-1])  # [n_vocab]
    return {char: float(p) for char, p in zip(model.chars, probs)}
# --8<-- [end:next_token_probs]


@checked
# --8<-- [start:predict]
def predict(context, model=HAND_MADE):
    """The most likely next character after ``context`` (``a`` if both are
    equally likely).

    >>> predict("aabaa")
    'b'
    >>> predict("ab")
    'a'
    """
    probs = next_token_probs(context, model)
    return max(probs, key=probs.get)
# --8<-- [end:predict]


@checked
# --8<-- [start:complete]
def complete(context, max_new_tokens=10, model=HAND_MADE):
    """``context`` followed by ``max_new_tokens`` characters, each chosen
    greedily.

    Each step costs at most the same: the model sees the last ``n_ctx`` tokens.

    >>> complete("a")
    'abaabaabaab'
    >>> complete("ba", max_new_tokens=4)
    'baabaa'
    """
    chars = model.chars
    # tokens -> log-probs of the next token, from the last n_ctx tokens
    step = gpt_step(model)
    # append the most likely token (the lower id among equals), again and again
    tokens, _ = greedy_search(step, tokenize(context, chars), max_new_tokens)
    new_tokens = tokens[len(context) :]
    return context + "".join(untok(token, chars) for token in new_tokens)
# --8<-- [end:complete]


@checked
def explain_rows(context, model=HAND_MADE):
    """One row per token the model sees: the token, its prediction, probabilities, logits.

    Row ``i`` predicts the token after the first ``i + 1`` tokens of the window.

    >>> explain_rows("ab")[1]
    {'token': 'b', 'next': 'a', 'probs': (1.0, 0.0), 'logits': (1024.0, 1.0)}
    """
    tokens, chars = context_window(context, model), model.chars
    # [n_seq, n_vocab]
    logits = gpt(np.array(tokens), **model.weights, n_head=model.n_head)
    probs = softmax(logits)  # [n_seq, n_vocab]
    return [
        {
            "token": untok(token, chars),
            "next": untok(int(np.argmax(row_probs)), chars),
            "probs": tuple(float(p) for p in row_probs),
            "logits": tuple(float(x) for x in row_logits),
        }
        for token, row_probs, row_logits in zip(tokens, probs, logits)
    ]


@checked
def explain(context, model=HAND_MADE):
    """The table that ``python -m handtf predict CONTEXT --explain`` prints.

    >>> print(explain("aabaa"))
    token  next   p(a)   p(b)  logit(a)  logit(b)
    a      b     0.000  1.000       1.0    1024.0
    a      b     0.000  1.000       1.0    1024.0
    b      a     1.000  0.000    1024.0       1.0
    a      a     1.000  0.000    1025.0       0.0
    a      b     0.000  1.000       1.0    1024.0
    """
    return format_explanation(explain_rows(context, model), model.chars)


def format_explanation(rows, chars=("a", "b")):
    """:func:`explain`'s table for rows made by :func:`explain_rows`: one p(c) and one logit(c) column per character."""
    lines = [" ".join([f"{'token':<6}", f"{'next':<4}", *(f"p({c})".rjust(6) for c in chars), *(f"logit({c})".rjust(9) for c in chars)])]
    for row in rows:
        numbers = [f"{p:6.3f}" for p in row["probs"]] + [f"{z:9.1f}" for z in row["logits"]]
        lines.append(" ".join([f"{row['token']:<6}", f"{row['next']:<4}", *numbers]))
    return "\n".join(lines)


# The boundary (see handtf.checks): what each function above accepts.


def check_context_window(context, model):
    model = read_model(model)
    chars = model.chars
    if not isinstance(context, str):
        raise TypeError(f"context must be a str of the characters {allowed(chars)}, got {type(context).__name__}")
    n = len(tokenize(context, chars))
    if not n:
        raise ValueError(f"context is empty; the model needs at least one token ({allowed(chars).replace(' and ', ' or ')})")
    if n < model.min_context:
        k, whose = model.min_context, f"of ({model.pattern})* " if model.pattern else ""
        raise ValueError(f"context {context!r} is too short: {last_characters(k)} {whose}{verb(k, 'decide')} the next "
                         f"(the model's min_context), got {n}")
    return {"model": model}


check_next_token_probs = check_predict = check_explain_rows = check_explain = check_context_window


def check_complete(context, max_new_tokens, model):
    max_new_tokens = check_int_range("max_new_tokens", max_new_tokens, 0, MAX_NEW_TOKENS, " (MAX_NEW_TOKENS, complete's upper bound)")
    return check_next_token_probs(context, model) | {"max_new_tokens": max_new_tokens}
