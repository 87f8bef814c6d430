"""Activations and the softmax: the element-wise and row-wise functions of a Transformer.

Written in the style of picoGPT's ``gpt2.py`` (jaymody/picoGPT, MIT license).
A leading ``...`` in a shape comment stands for any number of batch axes; the
arithmetic stays in the dtype of the input.

Backpropagation by hand: below a forward function ``y = f(x)`` sits its
backward function ``f_backward(dout, x)``. It takes ``dout``, the gradient of
the loss with respect to ``y`` (the same shape as ``y``), and the forward
function's own inputs, and returns the gradient with respect to ``x`` (and,
in :mod:`handtf.blocks.layers` and :mod:`handtf.blocks.attend`, a dict of gradients keyed
like the weights). It recomputes the forward intermediates it needs rather
than caching them, so each one reads as the chain rule for its forward
function and nothing else. ``tests/test_backprop.py`` checks every one
against finite differences in float64.
"""

import math
from types import MappingProxyType

import numpy as np

from ..checks import check_array, check_dout, check_scores, checked


@checked(x=check_array)
# --8<-- [start:gelu]
# [...] -> [...]
def gelu(x):
    """GPT-2's GELU: the tanh approximation of ``x * Phi(x)``.

    Beyond ``|x| = 10`` the tanh is ±1 to the last bit, so ``x`` is clipped
    there inside it: ``x**3`` would overflow (float16 at 41, float64 at 6e102).

    >>> gelu(np.array([-1.0, 0.0, 1.0, 3.0])).round(4)
    array([-0.1588,  0.    ,  0.8412,  2.9964])
    """
    c = math.sqrt(2 / math.pi)
    x_c = np.clip(x, -10, 10)  # [...], the same tanh, no overflow
    cube = x_c * x_c * x_c  # [...], x_c**3 without numpy's slow general power
    return 0.5 * x * (1 + np.tanh(c * (x_c + 0.044715 * cube)))  # [...]
# --8<-- [end:gelu]


@checked(forward=gelu)
# [...], [...] -> [...]
def gelu_backward(dout, x):
    """The derivative of the tanh GELU,
    ``0.5 (1 + t) + 0.5 x (1 - t²) c (1 + 3·0.044715 x²)``.

    >>> gelu_backward(np.array([1.0, 1.0]), np.array([0.0, 10.0]))
    array([0.5, 1. ])
    """
    c = math.sqrt(2 / math.pi)
    x_c = np.clip(x, -10, 10)  # [...], as in gelu: beyond 10, t = ±1, dt = 0
    t = np.tanh(c * (x_c + 0.044715 * (x_c * x_c * x_c)))  # [...], as in gelu
    dt = (1 - t**2) * c * (1 + 3 * 0.044715 * x_c**2)  # [...], the slope of t
    return dout * (0.5 * (1 + t) + 0.5 * x * dt)  # [...]


@checked(x=check_array)
# --8<-- [start:relu]
# [...] -> [...]
def relu(x):
    """The paper's activation: ``max(0, x)``.

    >>> relu(np.array([-2.0, 0.0, 3.0]))
    array([0., 0., 3.])
    """
    return np.maximum(x, 0)  # [...]
# --8<-- [end:relu]


@checked(forward=relu)
# [...], [...] -> [...]
def relu_backward(dout, x):
    """``max(0, x)`` passes the gradient where ``x > 0``, stops it elsewhere.

    >>> relu_backward(np.array([5.0, 5.0]), np.array([-1.0, 2.0]))
    array([0., 5.])
    """
    return dout * (x > 0)  # [...]


ACTIVATION_BACKWARD = MappingProxyType({gelu: gelu_backward, relu: relu_backward})  # what ffn_backward may call


@checked(quiet=True, x=check_scores)
# --8<-- [start:softmax]
# [..., n] -> [..., n]
def softmax(x):
    """Turn each row of scores into probabilities (stable: the row maximum is
    subtracted first).

    An entry of ``-inf`` gets probability 0 (a row of only ``-inf`` gives NaN:
    ``-inf - (-inf)``); NaN and ``+inf`` are refused.

    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    """
    # largest entry becomes e^0 = 1
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))  # [..., n]
    # each row sums to 1
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)  # [..., n]
# --8<-- [end:softmax]


@checked
# --8<-- [start:softmax_backward]
# [..., n], [..., n] -> [..., n]
def softmax_backward(dout, probs):
    """``p = softmax(x)``: ``dx = p * (dp - Σ dp * p)`` row by row (``probs``
    is the forward output).

    Adding the same number to a whole row of ``x`` leaves ``p`` unchanged, so
    every row of ``dx`` sums to 0.

    >>> p = np.array([0.25, 0.75])
    >>> softmax_backward(np.array([1.0, 0.0]), p)
    array([ 0.1875, -0.1875])
    """
    # [..., n]
    return probs * (dout - np.sum(dout * probs, axis=-1, keepdims=True))
# --8<-- [end:softmax_backward]


@checked(quiet=True, x=check_scores)
# --8<-- [start:log_softmax]
# [..., n] -> [..., n]
def log_softmax(x):
    """``log(softmax(x))`` by log-sum-exp, finite even where ``softmax``
    rounds to 0.

    >>> log_softmax(np.array([0.0, 1000.0])).round(3)
    array([-1000.,     0.])
    """
    # largest entry becomes 0
    shifted = x - np.max(x, axis=-1, keepdims=True)  # [..., n]
    # [..., n]
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
# --8<-- [end:log_softmax]


# The boundary (see handtf.checks): what softmax_backward accepts.


def check_softmax_backward(dout, probs):
    probs = check_array("probs", probs, min_ndim=1)
    if (probs < 0).any() or (probs > 1).any() or not np.allclose(probs.sum(axis=-1), 1, rtol=0, atol=1e-3):
        raise ValueError("probs must be softmax's output: each entry from 0 to 1 and each row summing to 1")
    return {"dout": check_dout(dout, probs.shape), "probs": probs}
