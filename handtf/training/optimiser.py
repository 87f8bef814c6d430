"""The optimiser every trainer shares: the paper's recipe, written once.

The recipe of "Attention Is All You Need" (section 5.3-5.4): the Adam
optimiser with ``beta1 = 0.9``, ``beta2 = 0.98``, ``eps = 1e-9``
(:func:`adam_step`, which starts from :func:`adam_moments`); a learning rate
that warms up linearly and then decays as ``1/sqrt(step)``
(:func:`learning_rate`); and dropout (:func:`dropout_mask`, :func:`dropout`).
:func:`handtf.train` (``handtf.training.trainer``), ``handtf.seq2seq.training``,
``handtf.patterns.induction`` and ``handtf.training.adder`` train their models
with them; a trainer hands :func:`adam_step` the arrays of its weights as
:func:`handtf.trees.leaves` lists them.
"""

import numpy as np

from ..checks import check_array, check_elements, check_fraction, check_int_range, check_positive, check_real, check_rng
from ..checks import checked, shown

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
