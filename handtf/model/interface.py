"""What every model handtf runs has, and the one place that reads a model.

Every model, set by hand or trained, is a :class:`Model`: GPT-2's weights
(``weights``) with what running them needs, as fields, so the functions that
run a model (``complete``, ``predict``, ``next_token_probs``, ``trace``,
``explain``, ...) run any of them the same way, ``gpt(tokens,
**model.weights, n_head=model.n_head)``:

- ``chars``: the vocabulary, token id = index;
- ``n_ctx``: the model sees the last ``n_ctx`` tokens;
- ``n_head``: the heads of each attention layer;
- ``embed_labels``: what each residual column holds (the widgets' labels);
- ``min_context``: the fewest tokens it needs to predict (1, or a compiled
  pattern's ``k``);
- ``pattern``: the repetition it continues, or ``None`` (``evaluate`` and
  ``verify`` need one).

The kinds are :class:`HandMade` (here), ``CompiledPattern``,
``InductionHead`` and ``Adder`` (``handtf.patterns``); what differs
between them is a field, never a branch on the class. A model checks its
fields when it is made (``dataclasses.replace`` too) and compares by value
(``==``). :func:`read_model` is the one place that reads a model, at the
boundary: a dict of weights (as :func:`handtf.build_model` makes it) becomes
a :class:`HandMade`.

>>> from handtf import compile_pattern
>>> HAND_MADE.chars, HAND_MADE.n_ctx, HAND_MADE.min_context, HAND_MADE.pattern
(('a', 'b'), 5, 1, 'aab')
>>> compile_pattern("abcab").min_context
3
"""

from dataclasses import dataclass

from ..checks import check_alphabet, check_int_range, check_n_head, shown
from ..trees import ByValue
from .tokenizer import CHARS, tokenize
from .transformer import check_model, check_weights
from .weights import EMBED_LABELS, MODEL, N_CTX, check_finite_model

PATTERN = "aab"  # the hand-made model's pattern
MODELS = "HAND_MADE, compile_pattern(...), induction_head(...), adder(...) or a weight dict like build_model()'s"


class Model(ByValue):
    """The interface every model shares (each kind is a frozen dataclass with ``eq=False``).

    Fields: ``weights`` (GPT-2's layout), ``n_head``, ``chars``, ``n_ctx``; a
    kind with more to say about its input overrides :attr:`min_context`.
    """

    @property
    def min_context(self):
        """The fewest tokens the model needs to predict the next: 1 unless the kind says more."""
        return 1

    @property
    def n_embd(self):
        return self.weights["wte"].shape[1]

    def __post_init__(self):
        """Check the fields against each other: made by hand, or by ``dataclasses.replace``."""
        what = type(self).__name__
        weights = check_weights(**self.weights) if isinstance(self.weights, dict) else None
        if weights is None:
            raise TypeError(f"{what}.weights must be a dict of GPT-2's layout (wte, wpe, blocks), got {shown(self.weights)}")
        (n_vocab, n_embd), positions = weights["wte"].shape, weights["wpe"].shape[0]
        chars = check_alphabet(f"{what}.chars", self.chars, sequence=True)
        if len(chars) != n_vocab:
            raise ValueError(f"{what}.chars must name one character per row of wte ({n_vocab}), got {len(chars)}")
        check_int_range(f"{what}.n_ctx", self.n_ctx, 1, positions, " (the rows of wpe)")
        check_n_head(self.n_head, n_embd, "n_embd, the columns of wte")


@dataclass(frozen=True, eq=False)
class HandMade(Model):
    """Weights of the hand-made model's layout, with what running them needs."""

    weights: dict  # GPT-2's layout: wte, wpe, blocks[0] with attn only
    n_head: int = 1
    chars: tuple = CHARS  # token id = index
    n_ctx: int = N_CTX  # the model sees the last n_ctx tokens
    pattern: str = PATTERN  # the pattern whose repetition it continues

    embed_labels: tuple = None  # the tutorial's P0 .. P4, a, b, V for eight columns, else x0, x1, ...

    made_by = "build_model(), or HAND_MADE"

    def __post_init__(self):
        """The fields checked (:class:`Model`), and the columns named when ``embed_labels`` is not given.

        >>> HAND_MADE.embed_labels
        ('P0', 'P1', 'P2', 'P3', 'P4', 'a', 'b', 'V')
        """
        super().__post_init__()
        if self.embed_labels is None:
            width = self.n_embd
            labels = EMBED_LABELS if width == len(EMBED_LABELS) else tuple(f"x{i}" for i in range(width))
            object.__setattr__(self, "embed_labels", labels)  # a frozen dataclass's own default, set once
        elif len(self.embed_labels) != self.n_embd:
            raise ValueError(f"HandMade.embed_labels must name the {self.n_embd} columns of wte, got {len(self.embed_labels)}")


HAND_MADE = HandMade(MODEL)  # the tutorial's model


# The boundary (see handtf.checks): the one place a model's kind is read.


def read_model(model, kind=Model, context=None):
    """``model`` as the functions that run one take it: a :class:`Model` of ``kind``.

    A dict of the hand-made layout (as :func:`handtf.build_model` makes it) is
    checked and wrapped in a :class:`HandMade`. Given the ``context``
    ``trace`` follows, a dict may have fewer positions than ``N_CTX``, as long
    as they hold the tokens of its window.
    """
    if kind is Model and isinstance(model, dict):
        if context is None:
            return HandMade(check_finite_model(model))
        n_seq, weights = min(len(tokenize(context)), N_CTX), check_model(model)
        if n_seq > weights["wpe"].shape[0]:
            raise ValueError(f"a sequence must hold 1 to {weights['wpe'].shape[0]} tokens (the context length), got {n_seq}")
        chars = CHARS + tuple("cdefghijklmnopqrstuvwxyz")[: weights["wte"].shape[0] - len(CHARS)]  # tokens past b: named, never read
        return HandMade(weights, n_ctx=min(N_CTX, weights["wpe"].shape[0]), chars=chars)
    if not isinstance(model, kind):
        wanted = MODELS if kind is Model else f"{'an' if kind.__name__[0] in 'AEIOU' else 'a'} {kind.__name__} ({kind.made_by})"
        raise TypeError(f"model must be {wanted}, got {'a dict' if isinstance(model, dict) else shown(model)}")
    return model
