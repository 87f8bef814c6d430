"""The encoder-decoder Transformer of "Attention Is All You Need", assembled: its sizes, its weights, its forward pass.

The paper's model (Vaswani et al., 2017, section 3) from the blocks of ``handtf.seq2seq.blocks``:
token embeddings scaled by ``sqrt(d_model)`` plus sinusoidal positions; ``n_layers`` encoder blocks
(self-attention, feed-forward) and ``n_layers`` decoder blocks (masked self-attention, attention over the
encoder's output, feed-forward); ReLU feed-forward networks; the output projection shares its matrix with
the target embedding (section 3.4). With ``norm="pre"`` (GPT-2's residual connection) each stack adds one
final norm after its blocks.

The sizes are a :class:`handtf.seq2seq.Config`, kept apart from the weights as nanoGPT keeps its
``GPTConfig``: :func:`handtf.init_params` makes the weights (only arrays, in nested dicts), and
``encode``, ``decode`` and ``forward`` take the config next to them. The weights are seeded random
numbers, not trained ones: outputs are reproducible but meaningless; ``handtf.seq2seq.training`` trains
them. Token arrays are ``[n_seq]`` or ``[n_batch, n_seq]``; ``...`` in a shape comment stands for either.
"""

import math
from dataclasses import astuple, dataclass

import numpy as np

from ..checks import check_elements, check_finite_result, check_n_head, check_count, check_seed
from ..checks import check_ids, checked, read_array
from ..layouts import check_tree, numbers_in
from ..blocks.layers import layer_norm
from .blocks import RESIDUALS, block_shapes, check_memory, check_src_mask, decoder_block, embed, encoder_block


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
    ln = {"g": (d,), "b": (d,)}

    def stack(vocab, kind):
        blocks = [block_shapes(kind, d, config.d_ff)] * config.n_layers
        return {"wte": (vocab, d), "blocks": blocks} | ({"ln_f": ln} if config.norm == "pre" else {})

    return {"encoder": stack(config.vocab_src, "encoder"), "decoder": stack(config.vocab_tgt, "decoder")}

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


def check_sequence(name, tokens, n_vocab):
    shape = read_array(name, tokens, "token ids").shape
    if len(shape) not in (1, 2) or shape[-1] == 0:
        raise ValueError(f"{name} must have shape [n_seq] or [n_batch, n_seq] with n_seq >= 1, got {shape}")
    return check_ids(name, tokens, n_vocab)


def check_encode(src, params, config, src_mask):
    params = check_params(params, config)
    src = check_sequence("src", src, config.vocab_src)
    src_mask = check_src_mask(src_mask, src.shape[:-1], src.shape[-1], src.shape[-1])
    return {"src": src, "params": params, "src_mask": src_mask}


def check_decode(tgt, memory, params, config, src_mask):
    params = check_params(params, config)
    tgt = check_sequence("tgt", tgt, config.vocab_tgt)
    memory = check_memory(memory, config.d_model)
    src_mask = check_src_mask(src_mask, batch_of("tgt", tgt, "memory", memory.shape, 2), tgt.shape[-1], memory.shape[-2])
    return {"tgt": tgt, "memory": memory, "params": params, "src_mask": src_mask}


def check_forward(src, tgt, params, config, src_mask):
    checked_args = check_encode(src, params, config, src_mask) | {"tgt": check_sequence("tgt", tgt, config.vocab_tgt)}
    batch_of("tgt", checked_args["tgt"], "src", checked_args["src"].shape, 1)
    return checked_args


def batch_of(name, tokens, other, other_shape, other_axes):
    """The batch shape ``tokens [..., n_seq]`` and ``other`` (``other_axes`` axes after its batch) share, or an error naming both."""
    try:
        return np.broadcast_shapes(tokens.shape[:-1], other_shape[:-other_axes])
    except ValueError:
        raise ValueError(f"{name} and {other} must have the same batch size (or one of them none): "
                         f"{name} has shape {tokens.shape}, {other} {tuple(other_shape)}") from None
