"""The adder checked the way the field checks it: AdderBoard's protocol, and every pair at small sizes.

AdderBoard (github.com/anadim/AdderBoard) ranks transformers that add two
10-digit numbers by one shared check: 10 edge cases and 10,000 random pairs from
Python's ``random.Random(2025)``, at least 99% right to qualify. ``verify_adder``
runs it (every pair up to 3 digits) on the hand-set :func:`handtf.adder` and keeps
the logit margin of every digit written.
"""

import math
import random
from dataclasses import dataclass, replace

import numpy as np

from ..checks import check_dtypes, check_int_range, check_seed, checked, type_name
from ..model.weights import as_dtype
from .addition import CHUNK, adder, check_model, check_n_digits, encode, forward, greedy_sums, read_number


MAX_COUNT = 10**6  # random pairs: a list of about 100 MB, minutes of checking (verify_adder's memory stays a CHUNK's)


@dataclass(frozen=True)
class AdderCheck:
    """Additions run through the model, each digit's logit margin kept (:func:`verify_pairs`)."""

    n_digits: int
    pairs: int  # how many additions were checked
    what: str  # which additions: "every pair" or "AdderBoard's test, seed 2025"
    correct: dict  # dtype name -> additions greedy decoding got right
    min_margin: dict  # dtype name -> smallest logit(right digit) - largest other logit, over every step
    failures: tuple  # up to 10 (a, b, the model's sum, dtype name)

    @property
    def passed(self):
        return all(n == self.pairs for n in self.correct.values())

    def __repr__(self):
        lines = [f"AdderCheck(n_digits={self.n_digits}): {self.pairs:,} additions, {self.what}"]
        for name in self.correct:
            lines.append(f"  {name}: {self.correct[name]:,} of {self.pairs:,} right, "
                         f"smallest margin {self.min_margin[name]:.6g}")
        return "\n".join(lines)


def edge_cases(n_digits):
    """AdderBoard's 10 fixed cases, written for ``n_digits`` (at 10 digits, exactly its list)."""
    top, half = 10**n_digits - 1, 5 * 10 ** (n_digits - 1)
    ones = int("1" * n_digits)
    return [(0, 0), (0, 1), (top, 0), (top, 1), (top, top), (half, half), (ones, top + 1 - ones),
            (int("1234567890"[:n_digits]), int("9876543210"[:n_digits])), (top, top), (1, top)]


@checked
def adderboard_pairs(n_digits=10, count=10_000, seed=2025):
    """AdderBoard's test: its 10 edge cases, then ``count`` pairs (at most
    ``MAX_COUNT``) from Python's ``random.Random(seed)``, drawn as its
    ``verify.py`` draws them.

    >>> pairs = adderboard_pairs()
    >>> len(pairs), pairs[:2]
    (10010, [(0, 0), (0, 1)])
    """
    return [pair for chunk in _adderboard_chunks(n_digits, count, seed) for pair in chunk]


def _adderboard_chunks(n_digits, count, seed):
    """:func:`adderboard_pairs`, drawn ``CHUNK`` pairs at a time: memory stays small whatever ``count``."""
    rng, top = random.Random(seed), 10**n_digits - 1
    yield edge_cases(n_digits)
    for start in range(0, count, CHUNK):
        yield [(rng.randint(0, top), rng.randint(0, top)) for _ in range(min(CHUNK, count - start))]


def every_pair(n_digits):
    """All ``10 ** (2 n_digits)`` pairs, as two arrays."""
    a, b = np.divmod(np.arange(10 ** (2 * n_digits), dtype=np.int64), 10**n_digits)
    return a, b


@checked
def verify_pairs(model, a, b, what="", dtypes=(np.float32, np.float64)):
    """Run ``a[k] + b[k]`` through ``model`` in each dtype and keep the margin of every digit it writes.

    One forward pass reads each prompt followed by its right answer: the logits at the
    position of step ``i`` are the ones greedy decoding sees there once steps ``0 .. i-1``
    wrote the right digits. So if every step's right digit wins (margin > 0), greedy
    decoding writes the right sum, by induction over the steps; where one does not win,
    the sum greedy decoding really writes is reported.

    >>> verify_pairs(adder(2), *every_pair(2), what="every pair")
    AdderCheck(n_digits=2): 10,000 additions, every pair
      float32: 10,000 of 10,000 right, smallest margin 1023
      float64: 10,000 of 10,000 right, smallest margin 1023
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    names = [np.dtype(t).name for t in dtypes]
    correct, margins, failures = dict.fromkeys(names, 0), dict.fromkeys(names, math.inf), []
    for name in names:
        cast = replace(model, weights=as_dtype(model.weights, name))
        for start in range(0, len(a), CHUNK):
            prompts, answers = encode(model, a[start : start + CHUNK], b[start : start + CHUNK])
            teacher = np.concatenate([prompts, answers[:, :-1]], axis=1)  # [batch, n_ctx]
            logits = forward(cast, teacher)[:, -answers.shape[1]:]  # [batch, n + 1, n_vocab]
            want = np.take_along_axis(logits, answers[..., None], axis=-1)[..., 0]  # [batch, n + 1]
            np.put_along_axis(logits, answers[..., None], -np.inf, axis=-1)
            margin = want - logits.max(axis=-1)  # [batch, n + 1], NaN counts as wrong
            right = (margin > 0).all(axis=1)  # [batch]
            correct[name] += int(right.sum())
            margins[name] = min(margins[name], float(margin.min()) if not np.isnan(margin).any() else -math.inf)
            wrong = np.nonzero(~right)[0][: 10 - len(failures)]
            if len(wrong):
                written = greedy_sums(cast, prompts[wrong])  # [n_wrong, n + 1], what greedy decoding writes
                for k, sums in zip(wrong, written):
                    failures.append((int(a[start + k]), int(b[start + k]), int(read_number(sums)), name))
    return AdderCheck(n_digits=model.n_digits, pairs=len(a), what=what, correct=correct,
                      min_margin=margins, failures=tuple(failures))


@checked
def verify_adder(model=None, count=10_000, seed=2025, dtypes=(np.float32, np.float64)):
    """Check ``model`` (the hand-set ``adder()`` by default) the way the field does: every pair
    up to 3 digits, else AdderBoard's protocol (10 edge cases, ``count`` random pairs from ``seed``,
    at most ``MAX_COUNT``).

    >>> verify_adder(adder(1))
    AdderCheck(n_digits=1): 100 additions, every pair
      float32: 100 of 100 right, smallest margin 1023
      float64: 100 of 100 right, smallest margin 1023
    """
    model = adder() if model is None else model
    if model.n_digits <= 3:
        return verify_pairs(model, *every_pair(model.n_digits), what="every pair", dtypes=dtypes)
    what = f"AdderBoard's test, seed {seed}"
    checks = [verify_pairs(model, *np.array(chunk, dtype=np.int64).reshape(-1, 2).T, what=what, dtypes=dtypes)
              for chunk in _adderboard_chunks(model.n_digits, count, seed)]  # CHUNK pairs at a time
    return AdderCheck(n_digits=model.n_digits, pairs=sum(c.pairs for c in checks), what=what,
                      correct={name: sum(c.correct[name] for c in checks) for name in checks[0].correct},
                      min_margin={name: min(c.min_margin[name] for c in checks) for name in checks[0].min_margin},
                      failures=tuple(failure for c in checks for failure in c.failures)[:10])


# The boundary (see handtf.checks): what each function above accepts.


INT64_DIGITS = 18  # two 18-digit numbers and their sum fit in int64; the checks add in int64


def check_adderboard_pairs(n_digits, count, seed):
    return {"n_digits": check_int_range("n_digits", n_digits, 1, INT64_DIGITS, " (two 18-digit numbers still add in int64)"),
            "count": check_int_range("count", count, 0, MAX_COUNT, " (MAX_COUNT)"), "seed": check_seed("seed", seed)}


def check_int64_model(model):
    """An Adder whose sums the checks can add in int64: ``n_digits`` at most 18."""
    check_model(model)
    if model.n_digits > INT64_DIGITS:
        raise ValueError(f"the check adds in int64, up to {INT64_DIGITS} digits; this model has n_digits = {model.n_digits}")
    return model


def check_verify_pairs(model, a, b, what, dtypes):
    check_int64_model(model)
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 1 or a.shape != b.shape or not np.issubdtype(a.dtype, np.integer) or not np.issubdtype(b.dtype, np.integer):
        raise ValueError(f"a and b must be 1-D arrays of whole numbers of the same length, got shapes {a.shape} and {b.shape}")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= 10**model.n_digits):
        raise ValueError(f"a and b must be from 0 to {10**model.n_digits - 1:,} (n_digits = {model.n_digits})")
    if not isinstance(what, str):
        raise TypeError(f"what must be a str (the additions' description), got {type_name(what)}")
    return {"a": a.astype(np.int64), "b": b.astype(np.int64), "dtypes": check_dtypes("dtypes", dtypes)}


def check_verify_adder(model, count, seed, dtypes):
    return {"model": None if model is None else check_int64_model(model),
            "count": check_int_range("count", count, 0, MAX_COUNT, " (MAX_COUNT)"), "seed": check_seed("seed", seed),
            "dtypes": check_dtypes("dtypes", dtypes)}
