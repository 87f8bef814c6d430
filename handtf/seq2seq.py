"""The encoder-decoder Transformer of "Attention Is All You Need", forward pass only.

The paper's model (Vaswani et al., 2017, section 3) from the blocks in
``handtf.nn``: token embeddings scaled by ``sqrt(d_model)`` plus sinusoidal
positions; ``n_layers`` encoder blocks (self-attention, feed-forward) and
``n_layers`` decoder blocks (masked self-attention, attention over the
encoder's output, feed-forward); ReLU feed-forward networks; the output
projection shares its matrix with the target embedding (section 3.4).

Each sublayer sits in a residual connection with a layer norm. The paper puts
the norm after the sum, ``LayerNorm(x + Sublayer(x))`` (``norm="post"``, the
default); GPT-2 puts it before, ``x + Sublayer(LayerNorm(x))``, and adds one
final norm after the stack (``norm="pre"``).

The weights are seeded random numbers, not trained ones: outputs are
reproducible but meaningless. There is no dropout and no training code.
Token arrays are ``[n_seq]`` or ``[n_batch, n_seq]``; ``...`` in a shape
comment stands for either.
"""

import math
from dataclasses import dataclass

import numpy as np

from .decoding import beam_search, greedy_search
from .nn import (
    _check_ids,
    _check_n_head,
    _check_positive_int,
    causal_mask,
    ffn,
    layer_norm,
    log_softmax,
    multi_head_attention,
    positional_encoding,
    relu,
)


@dataclass(frozen=True)
class Config:
    """The sizes of an encoder-decoder Transformer (the paper's base model: 512, 8, 2048, 6).

    >>> Config(vocab_src=5, vocab_tgt=6, d_model=8, n_head=2, d_ff=32, n_layers=1).norm
    'post'
    """

    vocab_src: int
    vocab_tgt: int
    d_model: int
    n_head: int
    d_ff: int
    n_layers: int
    norm: str = "post"

    def __post_init__(self):
        for name in ("vocab_src", "vocab_tgt", "d_model", "n_head", "d_ff", "n_layers"):
            _check_positive_int(name, getattr(self, name))
        _check_n_head(self.n_head, self.d_model, name="d_model")
        if self.d_model % 2:
            raise ValueError(f"d_model must be even (the positional encoding pairs sin and cos), got {self.d_model}")
        if self.norm not in RESIDUALS:
            raise ValueError(f"norm must be 'post' (the paper) or 'pre' (GPT-2), got {self.norm!r}")


def init_params(vocab_src, vocab_tgt, d_model, n_head, d_ff, n_layers, seed, norm="post"):
    """Seeded random weights: a nested dict keyed by what each array is.

    Matrices are drawn from N(0, 1/n_in) so activations keep their scale;
    embeddings from N(0, 1/d_model), so that after the ``sqrt(d_model)``
    scaling they match the positional encoding's scale; biases are 0, layer
    norm gains 1. The same seed always gives the same weights.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1, seed=0)
    >>> sorted(params["decoder"]["blocks"][0])
    ['cross_attn', 'ln_1', 'ln_2', 'ln_3', 'mlp', 'self_attn']
    >>> params["encoder"]["wte"].shape, params["decoder"]["wte"].shape
    ((5, 8), (6, 8))
    """
    config = Config(vocab_src, vocab_tgt, d_model, n_head, d_ff, n_layers, norm)
    rng = np.random.default_rng(seed)

    def dense(n_in, n_out):
        return {"w": rng.normal(0, 1 / math.sqrt(n_in), (n_in, n_out)), "b": np.zeros(n_out)}

    def norm_params():
        return {"g": np.ones(d_model), "b": np.zeros(d_model)}

    def attention():
        return {name: dense(d_model, d_model) for name in ("c_q", "c_k", "c_v", "c_proj")}

    def mlp():
        return {"c_fc": dense(d_model, d_ff), "c_proj": dense(d_ff, d_model)}

    def stack(vocab, blocks):
        params = {"wte": rng.normal(0, 1 / math.sqrt(d_model), (vocab, d_model)), "blocks": blocks}
        return params | ({"ln_f": norm_params()} if norm == "pre" else {})

    encoder_blocks = [
        {"self_attn": attention(), "ln_1": norm_params(), "mlp": mlp(), "ln_2": norm_params()}
        for _ in range(n_layers)
    ]
    encoder = stack(vocab_src, encoder_blocks)
    decoder_blocks = [
        {
            "self_attn": attention(), "ln_1": norm_params(),
            "cross_attn": attention(), "ln_2": norm_params(),
            "mlp": mlp(), "ln_3": norm_params(),
        }
        for _ in range(n_layers)
    ]
    decoder = stack(vocab_tgt, decoder_blocks)
    return {"config": config, "encoder": encoder, "decoder": decoder}


# --8<-- [start:embed]
# [..., n_seq], [n_vocab, d_model] -> [..., n_seq, d_model]
def embed(tokens, wte):
    """Token embeddings times ``sqrt(d_model)``, plus the sinusoidal positional encoding.

    >>> embed(np.array([1, 0]), wte=np.array([[0.0, 0.0], [0.5, 0.5]]))
    array([[0.70710678, 1.70710678],
           [0.84147098, 0.54030231]])
    """
    d_model = wte.shape[-1]
    positions = positional_encoding(tokens.shape[-1], d_model).astype(wte.dtype)  # [n_seq, d_model]
    return wte[tokens] * math.sqrt(d_model) + positions  # [..., n_seq, d_model]
# --8<-- [end:embed]


# --8<-- [start:post_norm]
# [..., n_seq, d_model] -> [..., n_seq, d_model]
def post_norm(x, sublayer, ln):
    """The paper's residual connection: ``LayerNorm(x + Sublayer(x))``.

    >>> ln = {"g": np.ones(2), "b": np.zeros(2)}
    >>> post_norm(np.array([[0.0, 1.0]]), lambda h: h, ln).round(3)
    array([[-1.,  1.]])
    """
    return layer_norm(x + sublayer(x), **ln)  # [..., n_seq, d_model]
# --8<-- [end:post_norm]


# --8<-- [start:pre_norm]
# [..., n_seq, d_model] -> [..., n_seq, d_model]
def pre_norm(x, sublayer, ln):
    """GPT-2's residual connection: ``x + Sublayer(LayerNorm(x))``; the sum itself is never normalised.

    >>> ln = {"g": np.ones(2), "b": np.zeros(2)}
    >>> pre_norm(np.array([[0.0, 1.0]]), lambda h: h, ln).round(3)
    array([[-1.,  2.]])
    """
    return x + sublayer(layer_norm(x, **ln))  # [..., n_seq, d_model]
# --8<-- [end:pre_norm]


RESIDUALS = {"post": post_norm, "pre": pre_norm}


# --8<-- [start:encoder_block]
# [..., n_src, d_model] -> [..., n_src, d_model]
def encoder_block(x, self_attn, ln_1, mlp, ln_2, n_head, src_mask=None, residual=post_norm):
    """Self-attention over the whole source, then the feed-forward network, each in a residual.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1, seed=0)
    >>> x = np.ones((3, 8))
    >>> encoder_block(x, **params["encoder"]["blocks"][0], n_head=2).shape
    (3, 8)
    """
    x = residual(x, lambda h: multi_head_attention(h, h, **self_attn, n_head=n_head, mask=src_mask), ln_1)
    return residual(x, lambda h: ffn(h, **mlp, activation=relu), ln_2)  # [..., n_src, d_model]
# --8<-- [end:encoder_block]


# --8<-- [start:decoder_block]
# [..., n_tgt, d_model], [..., n_src, d_model] -> [..., n_tgt, d_model]
def decoder_block(x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3, n_head, src_mask=None, residual=post_norm):
    """Masked self-attention, attention over the encoder's output, feed-forward; each in a residual.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1, seed=0)
    >>> decoder_block(np.ones((2, 8)), np.ones((3, 8)), **params["decoder"]["blocks"][0], n_head=2).shape
    (2, 8)
    """
    future = causal_mask(x.shape[-2], x.dtype)  # [n_tgt, n_tgt]
    x = residual(x, lambda h: multi_head_attention(h, h, **self_attn, n_head=n_head, mask=future), ln_1)
    x = residual(x, lambda h: multi_head_attention(h, memory, **cross_attn, n_head=n_head, mask=src_mask), ln_2)
    return residual(x, lambda h: ffn(h, **mlp, activation=relu), ln_3)  # [..., n_tgt, d_model]
# --8<-- [end:decoder_block]


# --8<-- [start:encode]
# [..., n_src] -> [..., n_src, d_model]
def encode(src, params, src_mask=None):
    """The encoder: embed the source, run every encoder block. The result is the decoder's ``memory``.

    ``src_mask`` (optional) hides padding: ``padding_mask(src == pad_id)``,
    shape ``[..., 1, n_src]``.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=2, seed=0)
    >>> encode(np.array([1, 2, 3]), params).shape
    (3, 8)
    """
    config = params["config"]
    src = _check_sequence(src, config.vocab_src, "src")
    x = embed(src, params["encoder"]["wte"])  # [..., n_src, d_model]
    for block in params["encoder"]["blocks"]:
        x = encoder_block(x, **block, n_head=config.n_head, src_mask=src_mask, residual=RESIDUALS[config.norm])
    return layer_norm(x, **params["encoder"]["ln_f"]) if config.norm == "pre" else x  # [..., n_src, d_model]
# --8<-- [end:encode]


# --8<-- [start:decode]
# [..., n_tgt], [..., n_src, d_model] -> [..., n_tgt, vocab_tgt]
def decode(tgt, memory, params, src_mask=None):
    """The decoder: embed the target so far, run every decoder block, project to target-vocabulary logits.

    Row ``i`` of the result scores the token after ``tgt[..., :i+1]``; it
    never depends on later target tokens.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=2, seed=0)
    >>> memory = encode(np.array([1, 2, 3]), params)
    >>> decode(np.array([0, 4]), memory, params).shape
    (2, 6)
    """
    config = params["config"]
    tgt = _check_sequence(tgt, config.vocab_tgt, "tgt")
    if np.shape(memory)[-1:] != (config.d_model,):
        raise ValueError(f"memory must have shape [..., n_src, d_model={config.d_model}], got {np.shape(memory)}")
    wte = params["decoder"]["wte"]  # [vocab_tgt, d_model]
    x = embed(tgt, wte)  # [..., n_tgt, d_model]
    for block in params["decoder"]["blocks"]:
        x = decoder_block(x, memory, **block, n_head=config.n_head, src_mask=src_mask, residual=RESIDUALS[config.norm])
    if config.norm == "pre":
        x = layer_norm(x, **params["decoder"]["ln_f"])  # [..., n_tgt, d_model]
    return x @ wte.swapaxes(-1, -2)  # [..., n_tgt, d_model] -> [..., n_tgt, vocab_tgt], tied to the embedding
# --8<-- [end:decode]


# --8<-- [start:forward]
# [..., n_src], [..., n_tgt] -> [..., n_tgt, vocab_tgt]
def forward(src, tgt, params, src_mask=None):
    """Encode ``src``, then decode ``tgt`` against it: the logits a training loss would use.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1, seed=0)
    >>> forward(np.array([[1, 2, 3]]), np.array([[0, 4]]), params).shape
    (1, 2, 6)
    """
    return decode(tgt, encode(src, params, src_mask), params, src_mask)  # [..., n_tgt, vocab_tgt]
# --8<-- [end:forward]


# --8<-- [start:greedy_decode]
def greedy_decode(params, src, bos, eos, max_len):
    """Translate one source sequence by always taking the most likely next token.

    Returns the target tokens, starting with ``bos`` and ending with ``eos`` if
    it came within ``max_len`` new tokens. Each step re-runs the decoder on the
    whole prefix (no cache), which is slow but simple.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1, seed=0)
    >>> tokens = greedy_decode(params, np.array([1, 2, 3]), bos=0, eos=1, max_len=4)
    >>> tokens[0], 2 <= len(tokens) <= 5
    (0, True)
    """
    tokens, _ = greedy_search(_next_token_log_probs(params, src, bos, eos), [bos], max_len, eos)
    return tokens
# --8<-- [end:greedy_decode]


# --8<-- [start:beam_decode]
def beam_decode(params, src, bos, eos, max_len, beam_width, length_penalty=0.0):
    """Translate one source sequence with ``decoding.beam_search``; return the best target tokens.

    >>> params = init_params(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1, seed=0)
    >>> src = np.array([1, 2, 3])
    >>> beam_decode(params, src, 0, 1, 4, beam_width=1) == greedy_decode(params, src, 0, 1, 4)
    True
    """
    step_fn = _next_token_log_probs(params, src, bos, eos)
    hypotheses = beam_search(step_fn, [bos], beam_width, max_len, eos, length_penalty)
    return hypotheses[0][0]
# --8<-- [end:beam_decode]


# the step function of greedy_search and beam_search: target prefix -> log-probs of the next token
def _next_token_log_probs(params, src, bos, eos):
    config = params["config"]
    if np.ndim(src) != 1:
        raise ValueError(f"src must be one sequence of shape [n_src], got shape {np.shape(src)}")
    for name, token in (("bos", bos), ("eos", eos)):
        if isinstance(token, bool) or not isinstance(token, (int, np.integer)):
            raise TypeError(f"{name} must be an integer token id, got {token!r}")
        _check_ids(token, config.vocab_tgt, name)
    memory = encode(src, params)  # [n_src, d_model]
    return lambda tokens: log_softmax(decode(np.array(tokens), memory, params)[-1])  # [vocab_tgt]


def _check_sequence(tokens, n_vocab, name):
    tokens = _check_ids(tokens, n_vocab, name)
    if tokens.ndim not in (1, 2) or tokens.shape[-1] == 0:
        raise ValueError(f"{name} must have shape [n_seq] or [n_batch, n_seq] with n_seq >= 1, got {tokens.shape}")
    return tokens
