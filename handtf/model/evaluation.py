"""Measuring the model: the tutorial's accuracy test and an exhaustive check.

Both run one batched forward pass over every context at once instead of one
call per prefix (``scripts/bench.py`` measures the difference).
"""

from dataclasses import dataclass

import numpy as np

from ..checks import check_ids, check_int_range, checked, read_array
from .interface import HAND_MADE, PATTERN, read_model
from .task import context_needed, read_pattern
from .transformer import gpt
from .tokenizer import tokenize

MAX_LEN = 1_000_000  # verify's upper bound: linear in max_len, a few seconds and ~200 MB at the bound
MAX_LEN_LISTED = 10_000  # valid_contexts's upper bound: its strings take memory quadratic in max_len


@checked
# --8<-- [start:next_token_logits]
def next_token_logits(token_ids, context_lengths, model=HAND_MADE):
    """The logits for the token after each prefix ``token_ids[:n]``, ``n`` in
    ``context_lengths``.

    Each prefix is cut to its last ``N_CTX`` tokens, as :func:`handtf.predict`
    does. Prefixes shorter than ``N_CTX`` share the window at the start of the
    text: the causal mask makes row ``n - 1`` of that window depend on its
    first ``n`` tokens only. The model is a pure function of its window, so
    each distinct window goes through one batched forward pass once (a long
    ``(aab)*`` text has only three).

    >>> # after "aa", after "aabaab"
    >>> next_token_logits([0, 0, 1, 0, 0, 1], [2, 6]).tolist()
    [[1.0, 1024.0], [1024.0, 1.0]]
    """
    # [n_text], [n_contexts]
    tokens, lengths = np.asarray(token_ids), np.asarray(context_lengths)
    width = min(model.n_ctx, len(tokens))
    # [n_contexts] where each context's window starts
    starts = np.maximum(lengths - width, 0)
    # [n_contexts, width]
    windows = np.lib.stride_tricks.sliding_window_view(tokens, width)[starts]
    # [n_distinct] x2, [n_contexts]
    _, first, which = np.unique(windows, axis=0, return_index=True,
                                return_inverse=True)
    # [n_distinct, width, n_vocab]
    logits = gpt(windows[first], **model.weights, n_head=model.n_head)
    return logits[which.ravel(), lengths - 1 - starts]  # [n_contexts, n_vocab]
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
def evaluate(text=PATTERN * 10, model=HAND_MADE):
    """Predict ``text[i]`` from ``text[:i]`` for every ``i`` in
    ``2 .. len(text) - 2``.

    These are the tutorial's bounds: the first two characters are never
    predicted (one token cannot tell the phase of ``aab``) and neither is the
    last one. For a compiled pattern the first ``k`` are skipped, the
    characters it needs to decide.

    >>> result = evaluate("aab" * 10)
    >>> result.correct, result.total, result.accuracy
    (27, 27, 1.0)
    """
    tokens = tokenize(text, model.chars)
    # [n_scored] the i whose text[i] is predicted
    positions = np.arange(context_needed(model.pattern), len(tokens) - 1)
    # [n_scored]
    predicted = next_token_logits(tokens, positions, model).argmax(axis=-1)
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
    min_margin: float  # the smallest logit(expected) - largest logit(other) seen
    failures: tuple  # (context, expected next character) pairs the model got wrong

    @property
    def passed(self):
        return self.correct == self.checked

    @property
    def first_failure(self):
        """The shortest context the model got wrong (the first phase among equals), or ``None``."""
        return min(self.failures, key=lambda failure: len(failure[0]), default=None)


@checked
# --8<-- [start:verify]
def valid_contexts(max_len, pattern=PATTERN):
    """Every substring of ``(aab)*`` of length 2 to ``max_len``, with the
    character after it.

    A substring starts in one of three phases (``aab``, ``aba``, ``baa``). For
    another pattern the lengths start at the ``k`` it needs
    (:func:`handtf.model.task.context_needed`), and there is one
    phase per character of its shortest period.

    >>> valid_contexts(3)[:3]
    [('aa', 'b'), ('ab', 'a'), ('ba', 'a')]
    """
    text = pattern * (max_len // len(pattern) + 2)
    return [
        (text[phase : phase + length], text[phase + length])
        for length in range(context_needed(pattern), max_len + 1)
        for phase in range(len(pattern))
    ]
# --8<-- [end:verify]


@checked
# --8<-- [start:verify_all]
def verify(max_len=30, model=HAND_MADE, pattern=None):
    """Check that the model predicts the right next token for every valid
    context.

    ``pattern`` is the model's own by default: ``aab`` for the hand-made
    model, and a compiled pattern's. Every phase and every length from ``k``
    to ``max_len`` is checked; the margin is the right logit minus the
    largest other one.

    >>> result = verify(max_len=30)
    >>> result.passed, result.checked, result.min_margin
    (True, 87, 1023.0)
    """
    pattern = model.pattern if pattern is None else pattern
    chars, k = model.chars, context_needed(pattern)
    text = pattern * (max_len // len(pattern) + 2)
    # tokenized once; each phase starts further in
    all_tokens = tokenize(text, chars)
    margins, failures = [], []
    for phase in range(len(pattern)):
        tokens = all_tokens[phase:]  # the text started at this phase
        # [n] context lengths in this phase
        lengths = np.arange(k, max_len + 1)
        logits = next_token_logits(tokens, lengths, model)  # [n, n_vocab]
        expected = np.asarray(tokens)[lengths]  # [n]
        rows = np.arange(len(lengths))
        is_right = np.eye(len(chars), dtype=bool)[expected]  # [n, n_vocab]
        others = np.where(is_right, -np.inf, logits)  # without the right one
        # +inf with a single character
        margin = logits[rows, expected] - others.max(axis=-1)  # [n]
        margins.append(margin)
        failures += [
            (text[phase : phase + n], chars[e])
            for n, e, m in zip(lengths, expected, margin) if not m > 0
        ]  # a NaN margin is a failure too
    margins = np.concatenate(margins)  # [n_phases * (max_len - k + 1)]
    return Verification(
        checked=len(margins),
        correct=len(margins) - len(failures),
        min_margin=float(margins.min()),
        failures=tuple(failures),
    )
# --8<-- [end:verify_all]


# The boundary (see handtf.checks): what each function above accepts.

SHORTEST = " (the shortest valid context)"


def check_next_token_logits(token_ids, context_lengths, model):
    model = read_model(model)
    if np.ndim(token_ids) != 1 or np.size(token_ids) == 0:
        raise ValueError(f"token_ids must be a non-empty sequence of shape [n_text], got shape {np.shape(token_ids)}")
    tokens = check_ids("token_ids", token_ids, n_vocab=len(model.chars), ndims=(1,))  # [n_text]
    lengths = read_array("context_lengths", context_lengths, "integers")  # [n_contexts]
    if lengths.ndim != 1:
        raise ValueError(f"context_lengths must have shape [n_contexts], got shape {lengths.shape}")
    if lengths.size and (lengths.dtype == bool or lengths.dtype.kind not in "iu"):  # an empty list is float64 to numpy
        raise TypeError(f"context_lengths must be integers, got {lengths.dtype} values")
    if lengths.size and (lengths.min() < 1 or lengths.max() > len(tokens)):
        bad = lengths.min() if lengths.min() < 1 else lengths.max()
        raise ValueError(f"context_lengths must be in 1..{len(tokens)} (the text's length), got {bad}")
    # signed, so that lengths - width may go below 0
    return {"token_ids": tokens, "context_lengths": lengths.astype(np.int64), "model": model}


def pattern_model(model, name):
    """A model that continues a pattern (``pattern`` is not None): what ``name`` measures."""
    model = read_model(model)
    if model.pattern is None:
        raise TypeError(f"{name} measures a model that continues a pattern (HAND_MADE, a weight dict, compile_pattern(...)); "
                        f"a {type(model).__name__} continues none")
    return model


def check_evaluate(text, model):
    model = pattern_model(model, "evaluate")
    n, least = len(tokenize(text, model.chars)), context_needed(model.pattern) + 2
    if n < least:
        raise ValueError(f"text must have at least {least} characters to score one prediction, got {n}")
    return {"model": model}


def check_valid_contexts(max_len, pattern):
    pattern = read_pattern(pattern)
    why = " (MAX_LEN_LISTED: valid_contexts's strings take memory that grows with max_len squared)"
    return {"max_len": check_int_range("max_len", max_len, context_needed(pattern), MAX_LEN_LISTED, why, SHORTEST), "pattern": pattern}


def check_verify(max_len, model, pattern):
    model = read_model(model) if pattern is not None else pattern_model(model, "verify without a pattern")
    pattern = read_pattern(model.pattern if pattern is None else pattern)
    extra = sorted(set(pattern) - set(model.chars))
    if extra:
        raise ValueError(
            f"pattern {pattern!r} has characters the model has no token for: {', '.join(map(repr, extra))}"
        )
    max_len = check_int_range("max_len", max_len, context_needed(pattern), MAX_LEN, " (MAX_LEN, verify's upper bound)", SHORTEST)
    return {"max_len": max_len, "model": model, "pattern": pattern}
