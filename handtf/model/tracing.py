"""Every intermediate of one forward pass, by name.

``trace`` runs :func:`handtf.gpt` itself inside a
:class:`handtf.model.recording.Recorder`, which keeps the value of every variable
of the forward functions as they compute it: every matrix a page prints or a
figure draws is the one the forward pass computed, not a copy of its steps.
``STEPS`` says which variable of which function each field of a trace is. The
hand-made model and a compiled pattern run the same functions, so they have
one kind of trace; the fields of a feed-forward network are ``None`` in a
model without one, and a model of several blocks (the induction head) has a
layer axis in front of every field of a block.
"""

from dataclasses import dataclass, fields
from types import MappingProxyType

import numpy as np

from ..blocks.activations import softmax
from ..blocks.attend import attention_weights
from ..checks import checked
from ..trees import ByValue
from .inference import HAND_MADE, check_context_window, context_window
from .interface import read_model
from ..blocks.layers import ffn
from .transformer import causal_self_attention, gpt, transformer_block
from .recording import Recorder
from .tokenizer import untok


@dataclass(frozen=True, eq=False)
class Trace(ByValue):
    """The intermediates of one forward pass over ``context`` (the window the model sees)."""

    context: str  # the tokens the model saw, as text
    chars: tuple  # the model's alphabet: token id = index
    tokens: np.ndarray  # [n_seq] token ids
    token_embedding: np.ndarray  # [n_seq, n_embd] wte[tokens]
    position_embedding: np.ndarray  # [n_seq, n_embd] wpe[:n_seq]
    embedding: np.ndarray  # [n_seq, n_embd] their sum, the block's input
    qkv: np.ndarray  # [n_seq, 3*n_embd] linear(embedding, **c_attn)
    q: np.ndarray  # [n_seq, n_embd] what each token looks for
    k: np.ndarray  # [n_seq, n_embd] what each token offers
    v: np.ndarray  # [n_seq, n_embd] what each token passes on
    # with several heads, the next four have a head axis in front: [n_head, n_seq, n_seq]
    scores: np.ndarray  # [n_seq, n_seq] q @ k^T
    scaled_scores: np.ndarray  # [n_seq, n_seq] q @ k^T / sqrt(d_k)
    mask: np.ndarray  # [n_seq, n_seq] the causal mask
    masked_scores: np.ndarray  # [n_seq, n_seq] scaled_scores + mask
    attention_weights: np.ndarray  # [n_seq, n_seq] softmax(masked_scores)
    attention_output: np.ndarray  # [n_seq, n_embd] attention_weights @ v (the heads side by side)
    projection: np.ndarray  # [n_seq, n_embd] linear(attention_output, **c_proj)
    # a block with a feed-forward network (None without one)
    attention_residual: np.ndarray | None  # [n_seq, n_embd] embedding + projection, the network's input
    pre_activation: np.ndarray | None  # [n_seq, n_hidden] linear(attention_residual, **c_fc)
    hidden: np.ndarray | None  # [n_seq, n_hidden] gelu(pre_activation)
    residual: np.ndarray  # [n_seq, n_embd] the block's output: embedding + projection (+ the network's output)
    logits: np.ndarray  # [n_seq, n_vocab] residual @ wte^T
    probs: np.ndarray  # [n_seq, n_vocab] softmax(logits)

    @classmethod
    def names(cls):
        """The names of the intermediates every model has, in the order they are computed.

        >>> Trace.names()[:4]
        ('tokens', 'token_embedding', 'position_embedding', 'embedding')
        """
        return tuple(field.name for field in fields(cls) if field.name not in ("context", "chars", *FEED_FORWARD))

    @property
    def predictions(self):
        """The predicted next character after each prefix of the window.

        >>> trace("aabaa").predictions
        'bbaab'
        """
        return "".join(untok(int(i), self.chars) for i in np.argmax(self.probs, axis=-1))


PatternTrace = Trace  # a compiled pattern's trace: the same kind (the name the API had when it was a second one)

FEED_FORWARD = ("attention_residual", "pre_activation", "hidden")  # the fields of a block's feed-forward network
PER_HEAD = ("scores", "scaled_scores", "masked_scores", "attention_weights")  # [n_head, n_seq, n_seq]

# Each field of a trace: (the function, its variable, which of the variable's
# values: 0 the first, -1 the last). Most fields are named as the code names
# them; ``embedding`` is gpt's ``x`` before the blocks, ``attention_output``
# causal_self_attention's ``x`` after its heads, ``residual`` the block's
# ``x`` after its residual lines.
STEPS = {
    "token_embedding": (gpt, "token_embedding", 0),
    "position_embedding": (gpt, "position_embedding", 0),
    "embedding": (gpt, "x", 0),
    **{name: (causal_self_attention, name, 0) for name in ("qkv", "q", "k", "v", "mask", "projection")},
    **{name: (attention_weights, name, 0) for name in ("scores", "scaled_scores", "masked_scores")},
    "attention_weights": (attention_weights, "weights", 0),
    "attention_output": (causal_self_attention, "x", 1),
    "attention_residual": (transformer_block, "x", 1),
    "pre_activation": (ffn, "pre_activation", 0),
    "hidden": (ffn, "hidden", 0),
    "residual": (transformer_block, "x", -1),
}
STEPS = MappingProxyType(STEPS)  # a read-only table


@checked
def trace(context, model=HAND_MADE):
    """Run the model on ``context`` (its last ``N_CTX`` tokens) and keep every
    step.

    >>> t = trace("aabaa")
    >>> (t.embedding.shape, t.qkv.shape, t.attention_weights.shape,
    ...  t.logits.shape)
    ((5, 8), (5, 24), (5, 5), (5, 2))
    """
    tokens = np.array(context_window(context, model))  # [n_seq]
    functions = {function for function, _, _ in STEPS.values()}
    # every value of every variable of those functions, kept as computed
    with Recorder(*functions) as record:
        # [n_seq, n_vocab]
        logits = gpt(tokens, **model.weights, n_head=model.n_head)
    n_layer = len(model.weights["blocks"])
    # each field: the value it names, one per block (a layer axis if several)
    kept = {name: per_layer(record.arrays.get(function.__name__, {}),
                            variable, which, n_layer)
            for name, (function, variable, which) in STEPS.items()}
    if model.n_head == 1:  # one head: no head axis
        kept |= {name: kept[name][..., 0, :, :] for name in PER_HEAD}
    if kept["hidden"] is None:  # no feed-forward network
        kept["attention_residual"] = None
    return Trace(
        context="".join(untok(int(t), model.chars) for t in tokens),
        chars=model.chars, tokens=tokens, **kept, logits=logits,
        probs=softmax(logits),  # [n_seq, n_vocab]
    )


def per_layer(arrays, variable, which, n_layer):
    """Value ``which`` of each block's call of ``variable``, among a function's recorded ``arrays``.

    ``gpt``'s variables (one call) are as kept; a block's have one value per
    block, stacked on a layer axis in front when there are several blocks.
    """
    values = arrays.get(variable)
    if values is None:
        return None
    if len(values) % n_layer:  # gpt's own: called once
        return values[which]
    per = len(values) // n_layer
    chosen = [values[i * per : (i + 1) * per][which] for i in range(n_layer)]
    return chosen[0] if n_layer == 1 else np.stack(chosen)


# The boundary (see handtf.checks): what trace accepts.


def check_trace(context, model):
    # weights of the hand-made layout are followed over the window the hand-made model sees
    model = check_context_window(context, read_model(model, context=context))["model"]
    if not model.weights["blocks"]:
        raise ValueError("trace follows a model with at least one block, got 0 blocks")
    return {"model": model}
