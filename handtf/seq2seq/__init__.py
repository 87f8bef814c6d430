"""The encoder-decoder Transformer of "Attention Is All You Need", forward and backward.

Two modules, read in this order:

- ``handtf.seq2seq.blocks``: the pieces. The embedding (token embeddings times
  ``sqrt(d_model)`` plus sinusoidal positions), the paper's and GPT-2's residual connections
  (``post_norm``, ``pre_norm``), the encoder block and the decoder block; each forward function
  with its backward function right below it.
- ``handtf.seq2seq.model``: the model assembled from them. Its sizes (``Config``), its seeded
  random weights (``init_params``), and its forward pass (``encode``, ``decode``, ``forward``).

``handtf.seq2seq_training`` trains it with the paper's recipe, running these same functions, and
``handtf.translate`` decodes with it. Every name below is importable from ``handtf.seq2seq``.
"""

from .blocks import (
    RESIDUALS,
    decoder_block,
    decoder_block_backward,
    embed,
    embed_backward,
    encoder_block,
    encoder_block_backward,
    post_norm,
    post_norm_backward,
    pre_norm,
    pre_norm_backward,
)
from .model import Config, decode, encode, forward, init_params, param_shapes

__all__ = [
    "Config",
    "init_params",
    "embed",
    "embed_backward",
    "post_norm",
    "post_norm_backward",
    "pre_norm",
    "pre_norm_backward",
    "RESIDUALS",
    "encoder_block",
    "encoder_block_backward",
    "decoder_block",
    "decoder_block_backward",
    "encode",
    "decode",
    "forward",
    "param_shapes",
]
