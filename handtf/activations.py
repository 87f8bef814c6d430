"""Activations and the softmax: the element-wise and row-wise functions of a Transformer.

Written in the style of picoGPT's ``gpt2.py`` (jaymody/picoGPT, MIT license).
A leading ``...`` in a shape comment stands for any number of batch axes; the
arithmetic stays in the dtype of the input.
"""

import math

import numpy as np

from .checks import check_array, check_scores, checked


@checked
# --8<-- [start:gelu]
# [...] -> [...]
def gelu(x):
    """GPT-2's GELU: the tanh approximation of ``x * Phi(x)``.

    >>> gelu(np.array([-1.0, 0.0, 1.0, 3.0])).round(4)
    array([-0.1588,  0.    ,  0.8412,  2.9964])
    """
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))  # [...]
# --8<-- [end:gelu]


@checked
# --8<-- [start:relu]
# [...] -> [...]
def relu(x):
    """The paper's activation: ``max(0, x)``.

    >>> relu(np.array([-2.0, 0.0, 3.0]))
    array([0., 0., 3.])
    """
    return np.maximum(x, 0)  # [...]
# --8<-- [end:relu]


@checked
# --8<-- [start:softmax]
# [..., n] -> [..., n]
def softmax(x):
    """Turn each row of scores into probabilities (stable: the row maximum is subtracted first).

    An entry of ``-inf`` gets probability 0 (a row of only ``-inf`` gives NaN:
    ``-inf - (-inf)``); NaN and ``+inf`` are refused.

    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    """
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))  # [..., n], largest entry becomes e^0 = 1
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)  # [..., n], each row sums to 1
# --8<-- [end:softmax]


@checked
# --8<-- [start:log_softmax]
# [..., n] -> [..., n]
def log_softmax(x):
    """``log(softmax(x))`` by log-sum-exp, finite even where ``softmax`` rounds to 0.

    >>> log_softmax(np.array([0.0, 1000.0])).round(3)
    array([-1000.,     0.])
    """
    shifted = x - np.max(x, axis=-1, keepdims=True)  # [..., n], largest entry becomes 0
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))  # [..., n]
# --8<-- [end:log_softmax]


# The boundary (see handtf.checks): what each function above accepts.


def check_gelu(x):
    return {"x": check_array("x", x)}


check_relu = check_gelu


def check_softmax(x):
    return {"x": check_scores("x", x)}


check_log_softmax = check_softmax
