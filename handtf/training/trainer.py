"""Training by gradient descent: the paper's recipe, and the hand-made architecture trained from random weights.

The recipe of "Attention Is All You Need" (section 5.3-5.4): the Adam
optimiser with ``beta1 = 0.9``, ``beta2 = 0.98``, ``eps = 1e-9``; a learning
rate that warms up linearly and then decays as ``1/sqrt(step)``; label
smoothing 0.1; dropout 0.1. Adam (``adam_step``, ``adam_moments``), the
schedule and dropout are written here once, and every trainer uses them:
:func:`train` applies Adam and the schedule to a model of exactly the
hand-made model's shape, starting from seeded random weights, on the windows of
a pattern such as ``aab``; ``handtf.seq2seq.training`` and
``handtf.patterns.induction`` train their models with them too.
"""

import math
from dataclasses import dataclass

import numpy as np

from .backprop import loss_and_grads
from ..checks import (
    check_array,
    check_callable,
    check_elements,
    check_finite_result,
    check_fraction,
    check_int_range,
    check_count,
    check_n_head,
    check_positive,
    optional,
    check_real,
    check_rng,
    check_seed,
    check_size,
    check_steps,
    checked,
    shown,
)
from ..model.transformer import gpt
from ..model.tokenizer import CHARS, tokenize
from ..trees import leaves  # noqa: F401 (handtf.training.trainer.leaves: the one walk of a weight tree)
from ..model.weights import N_CTX, N_EMBED, N_VOCAB

BETA1, BETA2, EPS = 0.9, 0.98, 1e-9  # the paper's Adam


@checked
# --8<-- [start:learning_rate]
# step, d_model, warmup -> float
def learning_rate(step, d_model, warmup, factor=1.0):
    """The paper's schedule:
    ``factor * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)``.

    It rises linearly for ``warmup`` steps, peaks at ``step = warmup``, then
    decays as ``1/sqrt(step)``.

    >>> [round(learning_rate(step, d_model=512, warmup=4000), 6)
    ...  for step in (1, 4000, 16000)]
    [0.0, 0.000699, 0.000349]
    """
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
# --8<-- [end:learning_rate]


@checked
# --8<-- [start:adam]
def adam_step(params, grads, moments, step, lr, beta1=BETA1, beta2=BETA2,
              eps=EPS):
    """One in-place Adam update of every array in ``params`` (lists of arrays).

    ``moments`` holds the running means of the gradient (``m``) and of its
    square (``v``), one pair per array; ``step`` counts from 1. Dividing by
    ``1 - beta**step`` undoes the pull towards the zeros they start from.
    """
    for p, g, (m, v) in zip(params, grads, moments):
        m[...] = beta1 * m + (1 - beta1) * g  # a running mean of the gradient
        v[...] = beta2 * v + (1 - beta2) * g**2  # and of its square
        # bias-corrected
        m_hat, v_hat = m / (1 - beta1**step), v / (1 - beta2**step)
        # each weight moves by about lr at most
        p -= lr * m_hat / (np.sqrt(v_hat) + eps)
# --8<-- [end:adam]


@checked
def adam_moments(params):
    """Adam's ``moments`` before the first step: ``m`` and ``v`` start at 0,
    one pair of arrays shaped like each array of ``params``.

    >>> adam_moments([np.ones(2)])
    [(array([0., 0.]), array([0., 0.]))]
    """
    return [(np.zeros_like(p), np.zeros_like(p)) for p in params]


@checked(shape=check_elements, rate=check_fraction, rng=check_rng)
# --8<-- [start:dropout_mask]
# shape, rate -> [...]
def dropout_mask(shape, rate, rng):
    """Keep each entry with probability ``1 - rate`` and scale the kept ones
    by ``1 / (1 - rate)``.

    The scaling ("inverted dropout") keeps the expected value of every entry
    unchanged, so at inference dropout is simply switched off.

    >>> dropout_mask((8,), rate=0.5, rng=np.random.default_rng(0))
    array([2., 0., 0., 0., 2., 2., 2., 2.])
    """
    # [...] 0 or 1 / (1 - rate)
    return (rng.random(shape) >= rate) / (1 - rate)
# --8<-- [end:dropout_mask]


@checked
# --8<-- [start:dropout]
# [...] -> [...]
def dropout(x, rate, rng=None, training=True):
    """Dropout in training (``x * dropout_mask``); the identity at inference.

    >>> x = np.ones(4)
    >>> rng = np.random.default_rng(0)
    >>> dropout(x, 0.5, rng), dropout(x, 0.5, training=False)
    (array([2., 0., 0., 0.]), array([1., 1., 1., 1.]))
    """
    # [...]
    return x * dropout_mask(x.shape, rate, rng) if training and rate > 0 else x
# --8<-- [end:dropout]


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
    token after ``inputs[i, :j + 1]``. A pattern of length ``p`` has ``p``
    distinct windows, one per starting phase.

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


@dataclass(frozen=True)
class Training:
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


def check_learning_rate(step, d_model, warmup, factor):
    return {
        "step": check_int_range("step", step, 1, 2**53, why=" (a float64 counts every step up to 2**53)"),
        "d_model": check_int_range("d_model", d_model, 1, 2**53),
        "warmup": check_int_range("warmup", warmup, 1, 2**53),
        "factor": check_positive("factor", factor),
    }


def check_adam_step(params, grads, moments, step, lr, beta1, beta2, eps):
    if not (isinstance(params, list) and isinstance(grads, list) and isinstance(moments, list)):
        raise TypeError("params, grads and moments must be lists (of arrays, arrays, and (m, v) pairs of arrays)")
    if not len(params) == len(grads) == len(moments):
        raise ValueError(f"params, grads and moments must be as long, got {len(params)}, {len(grads)} and {len(moments)}")
    for i, (p, g, pair) in enumerate(zip(params, grads, moments)):
        if type(p) is not np.ndarray or p.dtype.kind != "f":
            raise TypeError(f"params[{i}] must be a float array (it is updated in place), got {type(p).__name__}")
        if not p.flags.writeable or not all(isinstance(a, np.ndarray) and a.flags.writeable for a in pair):
            name = f"params[{i}]" if not p.flags.writeable else f"moments[{i}]"
            raise ValueError(f"{name} must be a writeable array (adam_step updates it in place), got a read-only one")
        g = check_array(f"grads[{i}]", g, nonempty=False)
        if g.shape != p.shape or len(pair) != 2 or any(np.shape(a) != p.shape for a in pair):
            raise ValueError(f"grads[{i}] and moments[{i}] must have the shape of params[{i}], {p.shape}")
        if any(a.dtype.kind != "f" for a in pair):
            raise TypeError(f"moments[{i}] must be float arrays (m and v are updated in place), got {pair[0].dtype} and {pair[1].dtype}")
    updated = [(f"params[{i}]", p) for i, p in enumerate(params)] + [
        (f"moments[{i}]", a) for i, pair in enumerate(moments) for a in pair]
    for j, (name, a) in enumerate(updated):  # each array updated once: an array given twice would take two updates
        other = next((other for other, b in updated[j + 1 :] if np.may_share_memory(a, b)), None)
        if other is not None:
            raise ValueError(f"{name} and {other} must be separate arrays (each is updated in place), got one array twice")
    return {
        "step": check_int_range("step", step, 1, 2**53, why=" (a float64 counts every step up to 2**53)"),
        "lr": check_real("lr", lr, 0),
        "beta1": check_fraction("beta1", beta1),
        "beta2": check_fraction("beta2", beta2),
        "eps": check_real("eps", eps, 0),
    }


def check_adam_moments(params):
    if not isinstance(params, list):
        raise TypeError(f"params must be a list of arrays (leaves(weights) makes it), got {type(params).__name__}")
    return {"params": [check_array(f"params[{i}]", p, nonempty=False) for i, p in enumerate(params)]}


def check_dropout(x, rate, rng, training):
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"training must be True or False, got {shown(training)}")
    x = check_array("x", x, nonempty=False)
    rate = check_fraction("rate", rate)
    if training and rate > 0:
        check_rng("rng", rng)
    return {"x": x, "rate": rate}


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
