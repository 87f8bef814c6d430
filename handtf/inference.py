"""Running the model: the next token, its probabilities, and whole completions.

The model has ``N_CTX = 5`` positions, so it only ever sees the **last five
tokens** of a context; anything earlier is dropped before the forward pass
(as in the tutorial). For ``(aab)*`` two tokens are enough to decide.
"""

import numpy as np

from .model import gpt, softmax
from .nn import _check_int
from .tokenizer import CHARS, tokenize, untok
from .weights import MODEL, N_CTX


def context_window(context):
    """The token ids the model sees for ``context``: its last ``N_CTX`` tokens.

    >>> context_window("aabaabaa")
    [0, 0, 1, 0, 0]
    """
    tokens = tokenize(context)
    if not tokens:
        raise ValueError("context is empty; the model needs at least one token ('a' or 'b')")
    return tokens[-N_CTX:]


# --8<-- [start:next_token_probs]
def next_token_probs(context, model=MODEL):
    """The probability of each token coming after ``context``.

    >>> next_token_probs("aabaa")
    {'a': 0.0, 'b': 1.0}
    """
    logits = gpt(np.array(context_window(context)), **model)  # [n_seq, n_vocab]
    probs = softmax(logits[-1])  # [n_vocab], the last row predicts what follows
    return {char: float(p) for char, p in zip(CHARS, probs)}


def predict(context, model=MODEL):
    """The most likely next character after ``context``.

    >>> predict("aabaa")
    'b'
    >>> predict("ab")
    'a'
    """
    probs = next_token_probs(context, model)
    return max(probs, key=probs.get)
# --8<-- [end:next_token_probs]


# --8<-- [start:complete]
def complete(context, max_new_tokens=10, model=MODEL):
    """``context`` followed by ``max_new_tokens`` characters, each chosen greedily.

    >>> complete("a")
    'abaabaabaab'
    >>> complete("ba", max_new_tokens=4)
    'baabaa'
    """
    _check_int("max_new_tokens", max_new_tokens)
    if max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be 0 or more, got {max_new_tokens}")
    context_window(context)  # refuse an empty or invalid context before the loop
    text = context
    for _ in range(max_new_tokens):
        text += predict(text[-N_CTX:], model)  # the model sees only the last N_CTX tokens
    return text
# --8<-- [end:complete]


def explain_rows(context, model=MODEL):
    """One row per token the model sees: the token, its prediction, probabilities, logits.

    Row ``i`` predicts the token after the first ``i + 1`` tokens of the window.

    >>> explain_rows("ab")[1]
    {'token': 'b', 'next': 'a', 'probs': (1.0, 0.0), 'logits': (1024.0, 1.0)}
    """
    tokens = context_window(context)
    logits = gpt(np.array(tokens), **model)  # [n_seq, n_vocab]
    probs = softmax(logits)  # [n_seq, n_vocab]
    return [
        {
            "token": untok(token),
            "next": untok(int(np.argmax(row_probs))),
            "probs": tuple(float(p) for p in row_probs),
            "logits": tuple(float(x) for x in row_logits),
        }
        for token, row_probs, row_logits in zip(tokens, probs, logits)
    ]


def explain(context, model=MODEL):
    """The table that ``python -m handtf predict CONTEXT --explain`` prints.

    >>> print(explain("aabaa"))
    token  next   p(a)   p(b)  logit(a)  logit(b)
    a      b     0.000  1.000       1.0    1024.0
    a      b     0.000  1.000       1.0    1024.0
    b      a     1.000  0.000    1024.0       1.0
    a      a     1.000  0.000    1025.0       0.0
    a      b     0.000  1.000       1.0    1024.0
    """
    lines = ["token  next   p(a)   p(b)  logit(a)  logit(b)"]
    for row in explain_rows(context, model):
        (p_a, p_b), (logit_a, logit_b) = row["probs"], row["logits"]
        lines.append(
            f"{row['token']:<6} {row['next']:<4} {p_a:6.3f} {p_b:6.3f} {logit_a:9.1f} {logit_b:9.1f}"
        )
    return "\n".join(lines)
