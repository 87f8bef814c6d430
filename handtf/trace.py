"""Every intermediate of one forward pass, by name.

``trace`` repeats the steps of :func:`handtf.model.gpt` one at a time and keeps
each result, so a page can print (and a figure can draw) the exact matrix the
model computed. A test checks that its logits equal ``gpt``'s.
"""

import math
from dataclasses import dataclass, fields

import numpy as np

from .inference import context_window
from .model import check_token_ids, check_weights
from .nn import _check_self_attention, causal_mask, linear, softmax
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


# --8<-- [start:trace]
def trace(context, model=MODEL):
    """Run the model on ``context`` (its last ``N_CTX`` tokens) and keep every step.

    >>> t = trace("aabaa")
    >>> t.embedding.shape, t.qkv.shape, t.attention_weights.shape, t.logits.shape
    ((5, 8), (5, 24), (5, 5), (5, 2))
    """
    _check_one_block_model(model)
    (block,) = model["blocks"]
    c_attn, c_proj = block["attn"]["c_attn"], block["attn"]["c_proj"]
    wte, wpe = model["wte"], model["wpe"]
    tokens = check_token_ids(context_window(context), n_vocab=wte.shape[0], n_ctx=wpe.shape[0])  # [n_seq]
    token_embedding = wte[tokens]  # [n_seq, n_embd]
    position_embedding = wpe[: len(tokens)]  # [n_seq, n_embd]
    embedding = token_embedding + position_embedding  # [n_seq, n_embd]
    _check_self_attention(embedding, c_attn, c_proj)  # c_attn: n_embd -> 3*n_embd, c_proj: n_embd -> n_embd
    qkv = linear(embedding, **c_attn)  # [n_seq, 3*n_embd]
    q, k, v = np.split(qkv, 3, axis=-1)  # 3 of [n_seq, n_embd]
    scores = q @ k.swapaxes(-1, -2)  # [n_seq, n_seq]
    scaled_scores = scores / math.sqrt(q.shape[-1])  # [n_seq, n_seq]
    mask = causal_mask(len(tokens), embedding.dtype)  # [n_seq, n_seq]
    masked_scores = scaled_scores + mask  # [n_seq, n_seq]
    attention_weights = softmax(masked_scores)  # [n_seq, n_seq]
    attention_output = attention_weights @ v  # [n_seq, n_embd]
    projection = linear(attention_output, **c_proj)  # [n_seq, n_embd]
    residual = embedding + projection  # [n_seq, n_embd]
    logits = residual @ wte.swapaxes(-1, -2)  # [n_seq, n_vocab]
    probs = softmax(logits)  # [n_seq, n_vocab]
    return Trace(
        context="".join(untok(int(t)) for t in tokens), tokens=tokens,
        token_embedding=token_embedding, position_embedding=position_embedding, embedding=embedding,
        qkv=qkv, q=q, k=k, v=v,
        scores=scores, scaled_scores=scaled_scores, mask=mask, masked_scores=masked_scores,
        attention_weights=attention_weights, attention_output=attention_output,
        projection=projection, residual=residual, logits=logits, probs=probs,
    )
# --8<-- [end:trace]


def _check_one_block_model(model):
    if not isinstance(model, dict):
        raise TypeError(f"model must be a dict like build_model()'s, got {type(model).__name__}")
    if set(model) != {"wte", "wpe", "blocks"}:
        raise ValueError(f"model must have the keys 'blocks', 'wpe' and 'wte', as build_model() makes it, got {sorted(model)}")
    check_weights(**model)
    if len(model["blocks"]) != 1:
        raise ValueError(f"trace follows a model with exactly one block, got {len(model['blocks'])} blocks")
