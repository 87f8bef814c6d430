"""The hand-made architecture trained from random weights: :func:`train`.

:func:`train` starts from seeded random weights of exactly the hand-made
model's shape (:func:`init_weights`) and trains them on the windows of a
pattern such as ``aab`` (:func:`pattern_windows`), with the gradients of
``handtf.training.backprop`` and the optimiser every trainer shares
(``handtf.training.optimiser``: Adam and the paper's learning-rate schedule).
"""

from dataclasses import dataclass

import numpy as np

from .backprop import loss_and_grads
from .optimiser import adam_moments, adam_step, learning_rate
from ..checks import (
    check_callable,
    check_count,
    check_finite_result,
    check_fraction,
    check_int_range,
    check_n_head,
    check_positive,
    check_real,
    check_seed,
    check_size,
    check_steps,
    checked,
    optional,
)
from ..model.tokenizer import CHARS, tokenize
from ..model.transformer import gpt
from ..model.weights import N_CTX, N_EMBED, N_VOCAB
from ..trees import ByValue, leaves


@checked
def init_weights(seed, n_embd=N_EMBED, std=0.5):
    """Seeded random weights of the hand-made model's layout: ``wte``, ``wpe`` and one attention block.

    Every weight is drawn from N(0, std²), biases start at 0. With the default
    ``n_embd = 8`` the shapes are exactly those of ``MODEL``.

    >>> {name: w.shape for name, w in init_weights(seed=0).items() if name != "blocks"}
    {'wte': (2, 8), 'wpe': (5, 8)}
    """
    rng = np.random.default_rng(seed)
    normal = lambda *shape: rng.normal(0, std, shape)  # noqa: E731
    attn = {
        "c_attn": {"w": normal(n_embd, 3 * n_embd), "b": np.zeros(3 * n_embd)},
        "c_proj": {"w": normal(n_embd, n_embd), "b": np.zeros(n_embd)},
    }
    return {"wte": normal(N_VOCAB, n_embd), "wpe": normal(N_CTX, n_embd), "blocks": [{"attn": attn}]}


@checked
# --8<-- [start:pattern_windows]
def pattern_windows(pattern, n_ctx=N_CTX):
    """Every window of ``n_ctx`` tokens of the endless repetition of
    ``pattern``, and its targets.

    The targets are the same text moved one token on: ``targets[i, j]`` is the
    token after ``inputs[i, :j + 1]``. A pattern of length ``p`` gives ``p``
    windows, one per starting phase.

    >>> inputs, targets = pattern_windows("aab")
    >>> as_text = lambda rows: ["".join(CHARS[t] for t in row) for row in rows]
    >>> as_text(inputs), as_text(targets)
    (['aabaa', 'abaab', 'baaba'], ['abaab', 'baaba', 'aabaa'])
    """
    text = tokenize(pattern * (n_ctx // len(pattern) + 2))
    # [p, n_ctx + 1]
    windows = np.array([text[phase : phase + n_ctx + 1]
                        for phase in range(len(pattern))])
    # inputs and targets, [p, n_ctx] each
    return windows[:, :-1], windows[:, 1:]
# --8<-- [end:pattern_windows]


def determined(inputs, targets):
    """True where the context ``inputs[i, :j + 1]`` always has the same next token in these windows.

    A lone ``a`` in ``aab`` text is followed by ``a`` or by ``b``: no model can get both right.

    >>> determined(*pattern_windows("aab"))
    array([[False,  True,  True,  True,  True],
           [False,  True,  True,  True,  True],
           [ True,  True,  True,  True,  True]])
    """
    nexts = {}
    for row, target in zip(inputs, targets):
        for j in range(len(row)):
            nexts.setdefault(tuple(row[: j + 1]), set()).add(int(target[j]))
    return np.array([[len(nexts[tuple(row[: j + 1])]) == 1 for j in range(len(row))] for row in inputs])


def margins(weights, inputs, targets, n_head=1):
    """``logit(right) - logit(wrong)`` at every window and position (two tokens); > 0 means right."""
    logits = gpt(inputs, **weights, n_head=n_head)  # [p, n_ctx, 2]
    right = np.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]
    return 2 * right - logits.sum(axis=-1)  # [p, n_ctx]


@dataclass(frozen=True, eq=False)
class Training(ByValue):
    """What ``train`` returns: the trained weights and how training went."""

    weights: dict  # the GPT-2 layout of MODEL; with one head, gpt(tokens, **weights) runs it
    losses: np.ndarray  # [steps] the loss before each step
    solved_at: int | None  # the first step after which every determined context was right (checked every step)
    min_margin: float  # the smallest margin over the determined contexts at the end
    n_head: int

    @property
    def solved(self):
        """Right on every determined context at the end of training."""
        return self.min_margin > 0


@checked(result=lambda result, args: check_finite_result(
    {"weights": result.weights, "losses": result.losses, "min_margin": result.min_margin}, args, "training's result"),
    steps=check_steps, seed=check_seed, warmup=check_count, factor=check_positive, label_smoothing=check_fraction,
    progress=optional(check_callable))
# --8<-- [start:train]
def train(pattern="aab", steps=400, seed=0, n_embd=N_EMBED, n_head=1,
          warmup=50, factor=1.0, label_smoothing=0.0, progress=None):
    """Train a model of the hand-made shape from random weights, with Adam and
    the paper's schedule.

    The data are the pattern's windows (``pattern_windows``), all in one batch
    at every step, so a seed fixes the whole run. ``progress(step, loss)`` is
    called after every step, if given.

    >>> result = train("aab", steps=100, seed=0)
    >>> result.losses.shape, result.solved
    ((100,), True)
    """
    inputs, targets = pattern_windows(pattern)  # [p, n_ctx] each
    # the contexts a model can get right
    decidable = determined(inputs, targets)  # [p, n_ctx]
    weights = init_weights(seed, n_embd)
    params = leaves(weights)
    moments = adam_moments(params)
    losses, solved_at = [], None
    for step in range(1, steps + 1):
        loss, grads = loss_and_grads(weights, inputs, targets, n_head,
                                     label_smoothing)
        losses.append(loss)
        rate = learning_rate(step, n_embd, warmup, factor)
        adam_step(params, leaves(grads), moments, step, rate)
        right = margins(weights, inputs, targets, n_head)[decidable].min() > 0
        # the first step of the final run of right answers
        solved_at = (solved_at or step) if right else None
        if progress is not None:
            progress(step, loss)
    final = float(margins(weights, inputs, targets, n_head)[decidable].min())
    return Training(weights, np.array(losses), solved_at, final, n_head)
# --8<-- [end:train]


# The boundary (see handtf.checks): what each function above accepts.


def check_init_weights(seed, n_embd, std):
    return {"seed": check_seed("seed", seed), "n_embd": check_size("n_embd", n_embd, squared=True), "std": check_real("std", std, 0)}


def check_pattern_windows(pattern, n_ctx):
    if not isinstance(pattern, str) or len(pattern) < 2:
        raise ValueError(f"pattern must be a string of at least 2 characters from {CHARS!r}, got {pattern!r}")
    tokenize(pattern)  # names a character outside the vocabulary
    return {"n_ctx": check_int_range("n_ctx", n_ctx, 1, N_CTX, why=" (the hand-made model's context)")}


def check_train(pattern, steps, seed, n_embd, n_head, warmup, factor, label_smoothing, progress):
    check_pattern_windows(pattern, N_CTX)
    n_embd = check_size("n_embd", n_embd, squared=True)
    return {"n_embd": n_embd, "n_head": check_n_head(n_head, n_embd, "n_embd")}
