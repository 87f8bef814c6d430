"""The encoder-decoder Transformer of "Attention Is All You Need", forward pass only.

The paper's model (Vaswani et al., 2017, section 3) from the package's building blocks (``attend``,
``layers``, ``masks``, ``positions``): token embeddings scaled by ``sqrt(d_model)`` plus sinusoidal
positions; ``n_layers`` encoder blocks (self-attention, feed-forward) and ``n_layers`` decoder blocks
(masked self-attention, attention over the encoder's output, feed-forward); ReLU feed-forward
networks; the output projection shares its matrix with the target embedding (section 3.4).

Each sublayer sits in a residual connection with a layer norm. The paper puts the norm after the
sum, ``LayerNorm(x + Sublayer(x))`` (``norm="post"``, the default); GPT-2 puts it before,
``x + Sublayer(LayerNorm(x))``, and adds one final norm after the stack (``norm="pre"``).

The sizes are a :class:`handtf.seq2seq.Config`, kept apart from the weights as nanoGPT keeps its
``GPTConfig``: :func:`handtf.init_params` makes the weights (only arrays, in nested dicts), and
``encode``, ``decode`` and ``forward`` take the config next to them. The weights are seeded random
numbers, not trained ones: outputs are reproducible but meaningless. ``handtf.seq2seq_training``
trains them, running these very blocks with dropout: ``keep`` holds the dropout masks of the
sublayers' outputs (1.0, no dropout, by default). Token arrays are ``[n_seq]`` or
``[n_batch, n_seq]``; ``...`` in a shape comment stands for either.
"""

import math
from dataclasses import astuple, dataclass

import numpy as np

from .activations import relu
from .attend import multi_head_attention
from .checks import check_elements, check_finite_result, check_seed, dense_width, numbers_in  # noqa: I001
from .checks import (
    check_array,
    check_callable,
    check_ids,
    check_keys,
    check_mask,
    check_n_head,
    check_count,
    check_tree,
    checked,
)
from .layers import ffn, layer_norm
from .masks import causal_mask
from .positions import positional_encoding


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
            check_count(name, getattr(self, name))
        check_n_head(self.n_head, self.d_model, name="d_model")
        if self.d_model % 2:
            raise ValueError(f"d_model must be even (the positional encoding pairs sin and cos), got {self.d_model}")
        if self.norm not in RESIDUALS:
            raise ValueError(f"norm must be 'post' (the paper) or 'pre' (GPT-2), got {self.norm!r}")


@checked
def init_params(config, seed):
    """Seeded random weights for ``config``: a nested dict keyed by what each array is, and nothing else.

    Matrices are drawn from N(0, 1/n_in) so activations keep their scale;
    embeddings from N(0, 1/d_model), so that after the ``sqrt(d_model)``
    scaling they match the positional encoding's scale; biases are 0, layer
    norm gains 1. The same seed always gives the same weights. The sizes stay
    in ``config``, which every function that runs the weights takes next to them.

    >>> config = Config(vocab_src=5, vocab_tgt=6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> params = init_params(config, seed=0)
    >>> sorted(params)
    ['decoder', 'encoder']
    >>> sorted(params["decoder"]["blocks"][0])
    ['cross_attn', 'ln_1', 'ln_2', 'ln_3', 'mlp', 'self_attn']
    >>> params["encoder"]["wte"].shape, params["decoder"]["wte"].shape
    ((5, 8), (6, 8))
    """
    vocab_src, vocab_tgt, d_model, _, d_ff, n_layers, norm = astuple(config)
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
    return {"encoder": encoder, "decoder": decoder}


@checked
# --8<-- [start:embed]
# [..., n_seq], [n_vocab, d_model] -> [..., n_seq, d_model]
def embed(tokens, wte):
    """Token embeddings times ``sqrt(d_model)``, plus the positional encoding.

    >>> embed(np.array([1, 0]), wte=np.array([[0.0, 0.0], [0.5, 0.5]]))
    array([[0.70710678, 1.70710678],
           [0.84147098, 0.54030231]])
    """
    n_seq, d_model = tokens.shape[-1], wte.shape[-1]
    # [n_seq, d_model]
    positions = positional_encoding(n_seq, d_model).astype(wte.dtype)
    # [..., n_seq, d_model]
    return wte[tokens] * math.sqrt(d_model) + positions
# --8<-- [end:embed]


@checked
# --8<-- [start:post_norm]
# [..., n_seq, d_model] -> [..., n_seq, d_model]
def post_norm(x, sublayer, ln, keep=1.0):
    """The paper's residual connection: ``LayerNorm(x + Sublayer(x))``.

    >>> ln = {"g": np.ones(2), "b": np.zeros(2)}
    >>> post_norm(np.array([[0.0, 1.0]]), lambda h: h, ln).round(3)
    array([[-1.,  1.]])
    """
    return layer_norm(x + keep * sublayer(x), **ln)  # [..., n_seq, d_model]
# --8<-- [end:post_norm]


@checked
# --8<-- [start:pre_norm]
# [..., n_seq, d_model] -> [..., n_seq, d_model]
def pre_norm(x, sublayer, ln, keep=1.0):
    """GPT-2's residual connection: ``x + Sublayer(LayerNorm(x))``; the sum
    itself is never normalised.

    >>> ln = {"g": np.ones(2), "b": np.zeros(2)}
    >>> pre_norm(np.array([[0.0, 1.0]]), lambda h: h, ln).round(3)
    array([[-1.,  2.]])
    """
    return x + keep * sublayer(layer_norm(x, **ln))  # [..., n_seq, d_model]
# --8<-- [end:pre_norm]


RESIDUALS = {"post": post_norm, "pre": pre_norm}


@checked
# --8<-- [start:encoder_block]
# [..., n_src, d_model] -> [..., n_src, d_model]
def encoder_block(x, self_attn, ln_1, mlp, ln_2, n_head, src_mask=None,
                  residual=post_norm, keep=(1.0, 1.0)):
    """Self-attention over the whole source, then the feed-forward network,
    each in a residual.

    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> params = init_params(config, seed=0)
    >>> x = np.ones((3, 8))
    >>> encoder_block(x, **params["encoder"]["blocks"][0], n_head=2).shape
    (3, 8)
    """
    x = residual(x, lambda h: multi_head_attention(
        h, h, **self_attn, n_head=n_head, mask=src_mask), ln_1, keep[0])
    # [..., n_src, d_model]
    return residual(x, lambda h: ffn(h, **mlp, activation=relu), ln_2,
                    keep[1])
# --8<-- [end:encoder_block]


@checked
# --8<-- [start:decoder_block]
# [..., n_tgt, d_model], [..., n_src, d_model] -> [..., n_tgt, d_model]
def decoder_block(x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3,
                  n_head, src_mask=None, residual=post_norm,
                  keep=(1.0, 1.0, 1.0)):
    """Masked self-attention, attention over the encoder's output,
    feed-forward; each in a residual.

    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> block = init_params(config, seed=0)["decoder"]["blocks"][0]
    >>> x, memory = np.ones((2, 8)), np.ones((3, 8))
    >>> decoder_block(x, memory, **block, n_head=2).shape
    (2, 8)
    """
    future = causal_mask(x.shape[-2], x.dtype)  # [n_tgt, n_tgt]
    x = residual(x, lambda h: multi_head_attention(
        h, h, **self_attn, n_head=n_head, mask=future), ln_1, keep[0])
    x = residual(x, lambda h: multi_head_attention(
        h, memory, **cross_attn, n_head=n_head, mask=src_mask), ln_2, keep[1])
    # [..., n_tgt, d_model]
    return residual(x, lambda h: ffn(h, **mlp, activation=relu), ln_3,
                    keep[2])
# --8<-- [end:decoder_block]


@checked(result=check_finite_result)
# --8<-- [start:encode]
# [..., n_src] -> [..., n_src, d_model]
def encode(src, params, config, src_mask=None):
    """The encoder: embed the source, run every encoder block.

    The result is the decoder's ``memory``. ``src_mask`` (optional) hides
    padding: ``padding_mask(src == pad_id)``, shape ``[..., 1, n_src]``.

    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=2)
    >>> params = init_params(config, seed=0)
    >>> encode(np.array([1, 2, 3]), params, config).shape
    (3, 8)
    """
    x = embed(src, params["encoder"]["wte"])  # [..., n_src, d_model]
    for block in params["encoder"]["blocks"]:
        x = encoder_block(x, **block, n_head=config.n_head, src_mask=src_mask,
                          residual=RESIDUALS[config.norm])
    if config.norm == "pre":
        x = layer_norm(x, **params["encoder"]["ln_f"])  # [..., n_src, d_model]
    return x
# --8<-- [end:encode]


@checked(result=check_finite_result)
# --8<-- [start:decode]
# [..., n_tgt], [..., n_src, d_model] -> [..., n_tgt, vocab_tgt]
def decode(tgt, memory, params, config, src_mask=None):
    """The decoder: embed the target so far, run every decoder block, project
    to target-vocabulary logits.

    Row ``i`` of the result scores the token after ``tgt[..., :i+1]``; it
    never depends on later target tokens.

    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=2)
    >>> params = init_params(config, seed=0)
    >>> memory = encode(np.array([1, 2, 3]), params, config)
    >>> decode(np.array([0, 4]), memory, params, config).shape
    (2, 6)
    """
    wte = params["decoder"]["wte"]  # [vocab_tgt, d_model]
    x = embed(tgt, wte)  # [..., n_tgt, d_model]
    for block in params["decoder"]["blocks"]:
        x = decoder_block(x, memory, **block, n_head=config.n_head,
                          src_mask=src_mask, residual=RESIDUALS[config.norm])
    if config.norm == "pre":
        x = layer_norm(x, **params["decoder"]["ln_f"])  # [..., n_tgt, d_model]
    # [..., n_tgt, d_model] -> [..., n_tgt, vocab_tgt], tied to the embedding
    return x @ wte.swapaxes(-1, -2)
# --8<-- [end:decode]


@checked(result=check_finite_result)
# --8<-- [start:forward]
# [..., n_src], [..., n_tgt] -> [..., n_tgt, vocab_tgt]
def forward(src, tgt, params, config, src_mask=None):
    """Encode ``src``, then decode ``tgt`` against it: the logits a training
    loss would use.

    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> params = init_params(config, seed=0)
    >>> src, tgt = np.array([[1, 2, 3]]), np.array([[0, 4]])
    >>> forward(src, tgt, params, config).shape
    (1, 2, 6)
    """
    memory = encode(src, params, config, src_mask)  # [..., n_src, d_model]
    # [..., n_tgt, vocab_tgt]
    return decode(tgt, memory, params, config, src_mask)
# --8<-- [end:forward]


# The boundary (see handtf.checks): what each function above accepts.


def param_shapes(config):
    """The shape of every array ``init_params`` makes for ``config``, in the same nested layout.

    >>> param_shapes(Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1))["decoder"]["wte"]
    (6, 8)
    """
    d = config.d_model

    def dense(n_in, n_out):
        return {"w": (n_in, n_out), "b": (n_out,)}

    ln = {"g": (d,), "b": (d,)}
    attn = {name: dense(d, d) for name in ("c_q", "c_k", "c_v", "c_proj")}
    mlp = {"c_fc": dense(d, config.d_ff), "c_proj": dense(config.d_ff, d)}
    encoder_block = {"self_attn": attn, "ln_1": ln, "mlp": mlp, "ln_2": ln}
    decoder_block = {"self_attn": attn, "ln_1": ln, "cross_attn": attn, "ln_2": ln, "mlp": mlp, "ln_3": ln}

    def stack(vocab, block):
        return {"wte": (vocab, d), "blocks": [block] * config.n_layers} | ({"ln_f": ln} if config.norm == "pre" else {})

    return {"encoder": stack(config.vocab_src, encoder_block), "decoder": stack(config.vocab_tgt, decoder_block)}


def check_config(config):
    if not isinstance(config, Config):
        raise TypeError(
            "config must be a handtf.seq2seq.Config (Config(vocab_src, vocab_tgt, d_model, n_head, d_ff, n_layers)), "
            f"got {type(config).__name__}"
        )
    return config


def check_init_params(config, seed):
    check_elements(f"the parameters of config = {check_config(config)}", numbers_in(param_shapes(config)))
    return {"config": config, "seed": check_seed("seed", seed)}


def check_params(params, config):
    """``params`` as ``init_params(config, ...)`` makes them: every array at its place, with the shape ``config`` gives it.

    >>> params = init_params(Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1), seed=0)
    >>> check_params(params, Config(4, 6, d_model=8, n_head=2, d_ff=32, n_layers=1))
    Traceback (most recent call last):
    ...
    ValueError: params['encoder']['wte'] must have shape (4, 8) for config = Config(vocab_src=4, vocab_tgt=6, d_model=8, n_head=2, d_ff=32, n_layers=1, norm='post'), got shape (5, 8)
    """
    config = check_config(config)
    return check_tree("params", params, param_shapes(config), needs=f" for config = {config}")


def check_src_mask(src_mask, batch_shape, n_q, n_src):
    return check_mask(src_mask, tuple(batch_shape) + (n_q, n_src), "src_mask", min_ndim=2)


def check_residual_input(x, ln):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, d_model]")
    return x, check_tree("ln", ln, {"g": (x.shape[-1],), "b": (x.shape[-1],)})


def check_embed(tokens, wte):
    wte = check_array("wte", wte, ndim=2)
    if wte.shape[1] % 2:
        raise ValueError(f"wte must have an even d_model (the positional encoding pairs sin and cos), got shape {wte.shape}")
    return {"tokens": check_ids("tokens", tokens, wte.shape[0]), "wte": wte}


def check_post_norm(x, sublayer, ln, keep):
    x, ln = check_residual_input(x, ln)
    return {"x": x, "sublayer": check_callable("sublayer", sublayer), "ln": ln, "keep": check_keep(keep, x.shape)}


def check_keep(keep, shape, n=None):
    """Dropout masks (dropout_mask makes them) of x's shape, or 1.0 (no dropout): one, or ``n`` for a block's sublayers."""
    masks = (keep,) if n is None else keep if isinstance(keep, (tuple, list)) and len(keep) == n else None
    if masks is None or any(not (isinstance(m, float) and m == 1.0) and np.shape(m) != tuple(shape) for m in masks):
        raise ValueError(f"keep must be {n or 1} dropout mask(s) of shape {tuple(shape)} or 1.0 (no dropout), got {keep!r:.80}")
    return keep if n is None else tuple(keep)


check_pre_norm = check_post_norm


def check_block(x, n_head, residual, blocks_key, **block):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, d_model]")
    d_model = x.shape[-1]
    config = Config(1, 1, d_model, check_n_head(n_head, d_model, name="d_model, the last axis of x"), 1, 1)
    shapes = param_shapes(config)[blocks_key]["blocks"][0]
    d_ff = dense_hidden(block.get("mlp"))
    shapes["mlp"] = {"c_fc": {"w": (d_model, d_ff), "b": (d_ff,)}, "c_proj": {"w": (d_ff, d_model), "b": (d_model,)}}
    if residual not in RESIDUALS.values():
        raise ValueError("residual must be post_norm (the paper) or pre_norm (GPT-2)")
    return {"x": x, **check_tree("block", block, shapes)}


def dense_hidden(mlp):
    """The hidden width d_ff of an ``mlp`` dict, read from ``c_fc``'s ``w`` (checked fully afterwards)."""
    check_keys("mlp", mlp, ("c_fc", "c_proj"))
    return dense_width("mlp['c_fc']", mlp["c_fc"])


def check_encoder_block(x, self_attn, ln_1, mlp, ln_2, n_head, src_mask, residual, keep):
    block = dict(self_attn=self_attn, ln_1=ln_1, mlp=mlp, ln_2=ln_2)
    checked_args = check_block(x, n_head, residual, "encoder", **block)
    x = checked_args["x"]
    src_mask = check_src_mask(src_mask, x.shape[:-2], x.shape[-2], x.shape[-2])
    return checked_args | {"src_mask": src_mask, "keep": check_keep(keep, x.shape, 2)}


def check_decoder_block(x, memory, self_attn, ln_1, cross_attn, ln_2, mlp, ln_3, n_head, src_mask, residual, keep):
    block = dict(self_attn=self_attn, ln_1=ln_1, cross_attn=cross_attn, ln_2=ln_2, mlp=mlp, ln_3=ln_3)
    checked_args = check_block(x, n_head, residual, "decoder", **block)
    memory = check_memory(memory, checked_args["x"].shape[-1])
    x = checked_args["x"]
    batch = np.broadcast_shapes(x.shape[:-2], memory.shape[:-2])
    src_mask = check_src_mask(src_mask, batch, x.shape[-2], memory.shape[-2])
    return checked_args | {"memory": memory, "src_mask": src_mask, "keep": check_keep(keep, x.shape, 3)}


def check_memory(memory, d_model):
    memory = check_array("memory", memory, min_ndim=2, shape="[..., n_src, d_model]")
    if memory.shape[-1] != d_model:
        raise ValueError(f"memory must have shape [..., n_src, d_model={d_model}], got {memory.shape}")
    return memory


def check_encode(src, params, config, src_mask):
    params = check_params(params, config)
    src = check_ids("src", src, config.vocab_src)
    src_mask = check_src_mask(src_mask, src.shape[:-1], src.shape[-1], src.shape[-1])
    return {"src": src, "params": params, "src_mask": src_mask}


def check_decode(tgt, memory, params, config, src_mask):
    params = check_params(params, config)
    tgt = check_ids("tgt", tgt, config.vocab_tgt)
    memory = check_memory(memory, config.d_model)
    src_mask = check_src_mask(src_mask, np.broadcast_shapes(tgt.shape[:-1], memory.shape[:-2]), tgt.shape[-1], memory.shape[-2])
    return {"tgt": tgt, "memory": memory, "params": params, "src_mask": src_mask}


def check_forward(src, tgt, params, config, src_mask):
    return check_encode(src, params, config, src_mask) | {"tgt": check_ids("tgt", tgt, config.vocab_tgt)}
