"""Running the model: the next token, its probabilities, and whole completions.

The model has ``N_CTX = 5`` positions, so it only ever sees the **last five
tokens** of a context; anything earlier is dropped before the forward pass
(as in the tutorial). For ``(aab)*`` two tokens are enough to decide.

Every function runs a model the same way, ``gpt(tokens, **model.weights,
n_head=model.n_head)``, reading its alphabet (``model.chars``), context
(``model.n_ctx``) and pattern from it: the hand-made model (``HAND_MADE``, or
any weights of its layout, such as ``MODEL`` or ``train``'s, which the
boundary wraps in a :class:`HandMade`) and a compiled pattern
(:func:`handtf.compile_pattern`) alike.

>>> HAND_MADE.chars, HAND_MADE.n_ctx, HAND_MADE.n_head, HAND_MADE.pattern
(('a', 'b'), 5, 1, 'aab')
"""

from dataclasses import dataclass, replace

import numpy as np

from ..blocks.activations import softmax
from ..checks import check_int_range, checked
from ..patterns.compiler import CompiledPattern, last_characters, verb
from .decoding import gpt_step, greedy_search
from .transformer import gpt
from .tokenizer import CHARS, allowed, tokenize, untok
from .weights import MODEL, N_CTX, check_finite_model

MAX_NEW_TOKENS = 1_000_000  # complete's upper bound: each token costs the same, about 0.1-0.2 ms
PATTERN = "aab"  # the hand-made model's pattern


@dataclass(frozen=True)
class HandMade:
    """Weights of the hand-made model's layout, with what running them needs: a compiled pattern's interface."""

    weights: dict  # GPT-2's layout: wte, wpe, blocks[0] with attn only
    n_head: int = 1
    chars: tuple = CHARS  # token id = index
    n_ctx: int = N_CTX  # the model sees the last n_ctx tokens
    pattern: str = PATTERN  # the pattern whose repetition it continues


HAND_MADE = HandMade(MODEL)  # the tutorial's model


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

    Each step costs at most the same: the model sees only the last
    ``model.n_ctx`` tokens, and its keys and values of earlier ones are kept.

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


def read_model(model):
    """A model as the functions that run one take it: a :class:`HandMade` or a compiled pattern.

    Weights of the hand-made model's layout (a dict as :func:`handtf.build_model`
    makes it) are checked and wrapped, once, here at the boundary.
    """
    if isinstance(model, CompiledPattern):
        return model
    if isinstance(model, HandMade):
        return replace(model, weights=check_finite_model(model.weights))
    return HandMade(check_finite_model(model))


def check_context_window(context, model):
    model = read_model(model)
    chars = model.chars
    if not isinstance(context, str):
        raise TypeError(f"context must be a str of the characters {allowed(chars)}, got {type(context).__name__}")
    n = len(tokenize(context, chars))
    if not n:
        raise ValueError(f"context is empty; the model needs at least one token ({allowed(chars).replace(' and ', ' or ')})")
    if isinstance(model, CompiledPattern) and n < model.k:
        raise ValueError(
            f"context {context!r} is too short: {last_characters(model.k)} of ({model.pattern})* {verb(model.k, 'decide')} the next, "
            f"got {n}"
        )
    return {"model": model}


check_next_token_probs = check_predict = check_explain_rows = check_explain = check_context_window


def check_complete(context, max_new_tokens, model):
    max_new_tokens = check_int_range("max_new_tokens", max_new_tokens, 0, MAX_NEW_TOKENS, " (MAX_NEW_TOKENS, complete's upper bound)")
    return check_next_token_probs(context, model) | {"max_new_tokens": max_new_tokens}
