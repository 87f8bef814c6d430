"""Measuring the model: the tutorial's accuracy test and an exhaustive check.

Both run one batched forward pass over every context at once instead of one
call per prefix (``scripts/bench.py`` measures the difference).
"""

from dataclasses import dataclass

import numpy as np

from .checks import check_ids, check_int_range, checked
from .model import gpt
from .tokenizer import CHARS, tokenize
from .weights import MODEL, N_CTX, check_finite_model

PATTERN = "aab"
MAX_LEN = 1_000_000  # verify's upper bound: linear in max_len, a few seconds and ~200 MB at the bound
MAX_LEN_LISTED = 10_000  # valid_contexts's upper bound: its strings take memory quadratic in max_len


@checked
# --8<-- [start:next_token_logits]
def next_token_logits(token_ids, context_lengths, model=MODEL):
    """The logits for the token after each prefix ``token_ids[:n]``, ``n`` in ``context_lengths``.

    Each prefix is cut to its last ``N_CTX`` tokens, as :func:`handtf.predict`
    does. Prefixes shorter than ``N_CTX`` share the window at the start of the
    text: the causal mask makes row ``n - 1`` of that window depend on its
    first ``n`` tokens only. The model is a pure function of its window, so
    each distinct window goes through one batched forward pass once (a long
    ``(aab)*`` text has only three).

    >>> next_token_logits([0, 0, 1, 0, 0, 1], [2, 6]).tolist()  # after "aa", after "aabaab"
    [[1.0, 1024.0], [1024.0, 1.0]]
    """
    tokens, lengths = np.asarray(token_ids), np.asarray(context_lengths)  # [n_text], [n_contexts]
    width = min(N_CTX, len(tokens))
    starts = np.maximum(lengths - width, 0)  # [n_contexts] where each context's window starts
    windows = np.lib.stride_tricks.sliding_window_view(tokens, width)[starts]  # [n_contexts, width]
    codes = windows @ len(model["wte"]) ** np.arange(width)  # [n_contexts], one number per window
    _, first, which = np.unique(codes, return_index=True, return_inverse=True)  # [n_distinct] x2, [n_contexts]
    logits = gpt(windows[first], **model)  # [n_distinct, width, n_vocab]
    return logits[which, lengths - 1 - starts]  # [n_contexts, n_vocab]
# --8<-- [end:next_token_logits]


@dataclass(frozen=True)
class Evaluation:
    """How many next tokens the model got right, and where it went wrong."""

    correct: int
    total: int
    mistakes: tuple  # the positions i whose text[i] was mispredicted

    @property
    def accuracy(self):
        return self.correct / self.total


@checked
# --8<-- [start:evaluate]
def evaluate(text=PATTERN * 10, model=MODEL):
    """Predict ``text[i]`` from ``text[:i]`` for every ``i`` in ``2 .. len(text) - 2``.

    These are the tutorial's bounds: the first two characters are never
    predicted (one token cannot tell the phase of ``aab``) and neither is the
    last one.

    >>> result = evaluate("aab" * 10)
    >>> result.correct, result.total, result.accuracy
    (27, 27, 1.0)
    """
    tokens = tokenize(text)
    positions = np.arange(2, len(tokens) - 1)  # [n_scored] the i whose text[i] is predicted
    predicted = next_token_logits(tokens, positions, model).argmax(axis=-1)  # [n_scored]
    wrong = positions[predicted != np.asarray(tokens)[positions]]
    return Evaluation(
        correct=len(positions) - len(wrong),
        total=len(positions),
        mistakes=tuple(int(i) for i in wrong),
    )
# --8<-- [end:evaluate]


@dataclass(frozen=True)
class Verification:
    """The result of checking every valid context up to some length."""

    checked: int  # how many contexts were predicted
    correct: int
    min_margin: float  # the smallest logit(expected) - logit(other) seen
    failures: tuple  # (context, expected next character) pairs the model got wrong

    @property
    def passed(self):
        return self.correct == self.checked


@checked
# --8<-- [start:verify]
def valid_contexts(max_len):
    """Every substring of ``(aab)*`` of length 2 to ``max_len``, with the character after it.

    A substring starts in one of three phases (``aab``, ``aba``, ``baa``).

    >>> valid_contexts(3)
    [('aa', 'b'), ('ab', 'a'), ('ba', 'a'), ('aab', 'a'), ('aba', 'a'), ('baa', 'b')]
    """
    text = PATTERN * (max_len // len(PATTERN) + 2)
    return [
        (text[phase : phase + length], text[phase + length])
        for length in range(2, max_len + 1)
        for phase in range(len(PATTERN))
    ]
# --8<-- [end:verify]


@checked
# --8<-- [start:verify_all]
def verify(max_len=30, model=MODEL):
    """Check that the model predicts the right next token for every valid context.

    >>> result = verify(max_len=30)
    >>> result.passed, result.checked, result.min_margin
    (True, 87, 1023.0)
    """
    text = PATTERN * (max_len // len(PATTERN) + 2)
    by_phase = [tokenize(text[phase:]) for phase in range(len(PATTERN))]  # one long text per phase
    margins, failures = [], []
    for phase, tokens in enumerate(by_phase):
        lengths = np.arange(2, max_len + 1)  # [n] context lengths in this phase
        logits = next_token_logits(tokens, lengths, model)  # [n, n_vocab]
        expected = np.asarray(tokens)[lengths]  # [n]
        rows = np.arange(len(lengths))
        margin = logits[rows, expected] - logits[rows, 1 - expected]  # [n]
        margins.append(margin)
        failures += [
            (text[phase : phase + n], CHARS[e]) for n, e, m in zip(lengths, expected, margin) if not m > 0
        ]  # a NaN margin is a failure too
    margins = np.concatenate(margins)  # [3 * (max_len - 1)]
    return Verification(
        checked=len(margins),
        correct=len(margins) - len(failures),
        min_margin=float(margins.min()),
        failures=tuple(failures),
    )
# --8<-- [end:verify_all]


# The boundary (see handtf.checks): what each function above accepts.


def check_next_token_logits(token_ids, context_lengths, model):
    model = check_finite_model(model)
    if np.ndim(token_ids) != 1 or np.size(token_ids) == 0:
        raise ValueError(f"token_ids must be a non-empty sequence of shape [n_text], got shape {np.shape(token_ids)}")
    tokens = check_ids("token_ids", token_ids, n_vocab=len(model["wte"]), ndims=(1,))  # [n_text]
    lengths = np.asarray(context_lengths)  # [n_contexts]
    if lengths.ndim != 1:
        raise ValueError(f"context_lengths must have shape [n_contexts], got shape {lengths.shape}")
    if lengths.size and (lengths.dtype == bool or lengths.dtype.kind not in "iu"):  # an empty list is float64 to numpy
        raise TypeError(f"context_lengths must be integers, got {lengths.dtype} values")
    if lengths.size and (lengths.min() < 1 or lengths.max() > len(tokens)):
        bad = lengths.min() if lengths.min() < 1 else lengths.max()
        raise ValueError(f"context_lengths must be in 1..{len(tokens)} (the text's length), got {bad}")
    # signed, so that lengths - width may go below 0
    return {"token_ids": tokens, "context_lengths": lengths.astype(np.int64), "model": model}


def check_evaluate(text, model):
    n = len(tokenize(text))
    if n < 4:
        raise ValueError(f"text must have at least 4 characters to score one prediction, got {n}")
    return {"model": check_finite_model(model)}


def check_valid_contexts(max_len):
    why = " (MAX_LEN_LISTED: valid_contexts's strings take memory that grows with max_len squared)"
    max_len = check_int_range("max_len", max_len, 2, None, " (the shortest valid context)")
    return {"max_len": check_int_range("max_len", max_len, 2, MAX_LEN_LISTED, why)}


def check_verify(max_len, model):
    max_len = check_int_range("max_len", max_len, 2, None, " (the shortest valid context)")
    max_len = check_int_range("max_len", max_len, 2, MAX_LEN, " (MAX_LEN, verify's upper bound)")
    return {"max_len": max_len, "model": check_finite_model(model)}
