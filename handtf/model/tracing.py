"""Every intermediate of one forward pass, by name.

``trace`` runs :func:`handtf.gpt` itself (:func:`handtf.gpt2` for a compiled
pattern) inside a :class:`handtf.model.recording.Recorder`, which keeps the value of
every variable of the forward functions as they compute it: every matrix a
page prints or a figure draws is the one the forward pass computed, not a copy
of its steps. ``STEPS`` and ``PATTERN_STEPS`` say which variable of which
function each field of a trace is.
"""

from dataclasses import dataclass, fields

import numpy as np

from ..blocks.activations import softmax
from ..blocks.attend import attention, attention_weights
from ..checks import checked
from ..patterns.compiler import CompiledPattern
from .inference import check_context_window, context_window
from ..blocks.layers import ffn
from .transformer import causal_self_attention, check_model, gpt, transformer_block
from .picogpt import gpt2, gpt2_block
from .recording import Recorder
from .running import alphabet, run
from .tokenizer import untok
from .weights import MODEL


@dataclass(frozen=True)
class Trace:
    """The intermediates of one forward pass over ``context`` (the window the model sees)."""

    context: str  # the tokens the model saw, as text
    tokens: np.ndarray  # [n_seq] token ids
    token_embedding: np.ndarray  # [n_seq, n_embd] wte[tokens]
    position_embedding: np.ndarray  # [n_seq, n_embd] wpe[:n_seq]
    embedding: np.ndarray  # [n_seq, n_embd] their sum, the block's input
    qkv: np.ndarray  # [n_seq, 3*n_embd] linear(embedding, **c_attn)
    q: np.ndarray  # [n_seq, n_embd] what each token looks for
    k: np.ndarray  # [n_seq, n_embd] what each token offers
    v: np.ndarray  # [n_seq, n_embd] what each token passes on
    scores: np.ndarray  # [n_seq, n_seq] q @ k^T
    scaled_scores: np.ndarray  # [n_seq, n_seq] q @ k^T / sqrt(d_k)
    mask: np.ndarray  # [n_seq, n_seq] the causal mask
    masked_scores: np.ndarray  # [n_seq, n_seq] scaled_scores + mask
    attention_weights: np.ndarray  # [n_seq, n_seq] softmax(masked_scores)
    attention_output: np.ndarray  # [n_seq, n_embd] attention_weights @ v
    projection: np.ndarray  # [n_seq, n_embd] linear(attention_output, **c_proj)
    residual: np.ndarray  # [n_seq, n_embd] embedding + projection
    logits: np.ndarray  # [n_seq, n_vocab] residual @ wte^T
    probs: np.ndarray  # [n_seq, n_vocab] softmax(logits)

    @classmethod
    def names(cls):
        """The names of the intermediates, in the order they are computed.

        >>> Trace.names()[:4]
        ('tokens', 'token_embedding', 'position_embedding', 'embedding')
        """
        return tuple(field.name for field in fields(cls) if field.name != "context")

    @property
    def predictions(self):
        """The predicted next character after each prefix of the window.

        >>> trace("aabaa").predictions
        'bbaab'
        """
        return "".join(untok(int(i)) for i in np.argmax(self.probs, axis=-1))


@dataclass(frozen=True)
class PatternTrace:
    """The intermediates of one forward pass of a compiled pattern (:func:`handtf.compile_pattern`)."""

    context: str  # the tokens the model saw, as text
    chars: tuple  # the model's alphabet
    tokens: np.ndarray  # [n_seq] token ids
    embedding: np.ndarray  # [n_seq, n_embd] wte[tokens] + wpe[:n_seq]
    scores: np.ndarray  # [n_head, n_seq, n_seq] q @ k^T in each head
    scaled_scores: np.ndarray  # [n_head, n_seq, n_seq] divided by sqrt(d_head)
    mask: np.ndarray  # [1, n_seq, n_seq] the causal mask, the same for every head
    masked_scores: np.ndarray  # [n_head, n_seq, n_seq]
    attention_weights: np.ndarray  # [n_head, n_seq, n_seq] one row of weights per head and position
    attention_output: np.ndarray  # [n_head, n_seq, d_head] each head's weighted values
    attention_residual: np.ndarray  # [n_seq, n_embd] embedding + c_proj(heads side by side)
    pre_activation: np.ndarray  # [n_seq, n_hidden] linear(attention_residual, **c_fc)
    hidden: np.ndarray  # [n_seq, n_hidden] gelu(pre_activation)
    residual: np.ndarray  # [n_seq, n_embd] attention_residual + linear(hidden, **c_proj)
    logits: np.ndarray  # [n_seq, n_vocab] residual @ wte^T
    probs: np.ndarray  # [n_seq, n_vocab] softmax(logits)

    @property
    def predictions(self):
        """The predicted next character after each prefix of the window (rows shorter than ``k`` are guesses)."""
        return "".join(untok(int(i), self.chars) for i in np.argmax(self.probs, axis=-1))


# Each field of a trace: (the function, its variable, which of the variable's
# values: 0 the first, -1 the last). Most fields are named as the code names
# them; ``embedding`` is gpt's ``x`` before the blocks, ``residual`` the
# block's ``x`` after its residual sums.
ATTENTION_STEPS = {  # the same in both passes: the one attention
    "scores": (attention_weights, "scores", 0),
    "scaled_scores": (attention_weights, "scaled_scores", 0),
    "mask": (attention_weights, "mask", 0),
    "masked_scores": (attention_weights, "masked_scores", 0),
    "attention_weights": (attention_weights, "weights", 0),
    "attention_output": (attention, "output", 0),
}
STEPS = {
    "token_embedding": (gpt, "token_embedding", 0),
    "position_embedding": (gpt, "position_embedding", 0),
    "embedding": (gpt, "x", 0),
    **{name: (causal_self_attention, name, 0) for name in ("qkv", "q", "k", "v", "projection")},
    **ATTENTION_STEPS,
    "residual": (transformer_block, "x", -1),
}
PATTERN_STEPS = {
    "embedding": (gpt2, "x", 0),
    **ATTENTION_STEPS,
    "attention_residual": (gpt2_block, "x", 1),
    "pre_activation": (ffn, "pre_activation", 0),
    "hidden": (ffn, "hidden", 0),
    "residual": (gpt2_block, "x", -1),
}

@checked
# --8<-- [start:trace]
def trace(context, model=MODEL):
    """Run the model on ``context`` (its last ``N_CTX`` tokens) and keep every
    step.

    >>> t = trace("aabaa")
    >>> (t.embedding.shape, t.qkv.shape, t.attention_weights.shape,
    ...  t.logits.shape)
    ((5, 8), (5, 24), (5, 5), (5, 2))
    """
    tokens = np.array(context_window(context, model))  # [n_seq]
    compiled = isinstance(model, CompiledPattern)
    # several heads and a feed-forward network: another set of steps
    steps = PATTERN_STEPS if compiled else STEPS
    functions = {function for function, _, _ in steps.values()}
    # every value of every variable of those functions, kept as computed
    with Recorder(*functions) as record:
        logits = run(model, tokens)  # [n_seq, n_vocab]
    kept = {name: record.arrays[function.__name__][variable][which]
            for name, (function, variable, which) in steps.items()}
    if compiled:
        return PatternTrace(
            context="".join(untok(int(t), model.chars) for t in tokens),
            chars=model.chars, tokens=tokens, **kept,
            logits=logits, probs=softmax(logits),
        )
    return Trace(
        context="".join(untok(int(t)) for t in tokens),
        tokens=tokens, **kept,
        logits=logits,
        probs=softmax(logits),  # [n_seq, n_vocab]
    )
# --8<-- [end:trace]


# The boundary (see handtf.checks): what trace accepts.


def check_trace(context, model):
    if isinstance(model, CompiledPattern):
        return check_context_window(context, model)  # a context of at least k tokens of its alphabet
    n_seq = len(context_window(context))  # refuses an empty context or a character that is not a token
    model = check_model(model)
    if n_seq > model["wpe"].shape[0]:
        raise ValueError(f"a sequence must hold 1 to {model['wpe'].shape[0]} tokens (the context length), got {n_seq}")
    if len(model["blocks"]) != 1:
        raise ValueError(f"trace follows a model with exactly one block, got {len(model['blocks'])} blocks")
    return {"model": model}
