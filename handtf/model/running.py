"""What running a model needs to know about it, for the hand-made model and compiled patterns alike.

The functions of :mod:`handtf.model.inference`, :mod:`handtf.model.evaluation` and
:mod:`handtf.model.tracing` take either the hand-made ``(aab)*`` model (a dict as
:func:`handtf.build_model` makes it, run by :func:`handtf.gpt`) or a
:class:`handtf.CompiledPattern` (run by GPT-2's whole forward pass,
:func:`handtf.model.picogpt.gpt2`). These few functions are the only place that tells
them apart.

>>> from handtf import MODEL, compile_pattern
>>> alphabet(MODEL), context_length(MODEL), pattern_of(MODEL)
(('a', 'b'), 5, 'aab')
>>> model = compile_pattern("abcab")
>>> alphabet(model), context_length(model), pattern_of(model)
(('a', 'b', 'c'), 3, 'abcab')
"""

from ..patterns.compiler import CompiledPattern
from .picogpt import gpt2
from .transformer import gpt
from .tokenizer import CHARS
from .weights import N_CTX

PATTERN = "aab"  # the hand-made model's pattern


def alphabet(model):
    """The characters of the model's vocabulary; token id = index."""
    return model.chars if isinstance(model, CompiledPattern) else CHARS


def context_length(model):
    """How many of the last tokens the model sees."""
    return model.n_ctx if isinstance(model, CompiledPattern) else N_CTX


def pattern_of(model):
    """The pattern whose repetition the model continues."""
    return model.pattern if isinstance(model, CompiledPattern) else PATTERN


# [..., n_seq] -> [..., n_seq, n_vocab]
def run(model, tokens):
    """The model's forward pass on token ids: ``gpt`` for the hand-made model, ``gpt2`` for a compiled one."""
    if isinstance(model, CompiledPattern):
        return gpt2(tokens, **model.weights, n_head=model.n_head)
    return gpt(tokens, **model)
