"""The encoder-decoder Transformer of "Attention Is All You Need", forward and backward.

The paper's model (Vaswani et al., 2017, section 3) from the package's building blocks (``attend``,
``layers``, ``masks``, ``positions``): token embeddings scaled by ``sqrt(d_model)`` plus sinusoidal
positions; ``n_layers`` encoder blocks (self-attention, feed-forward) and ``n_layers`` decoder blocks
(masked self-attention, attention over the encoder's output, feed-forward); ReLU feed-forward
networks; the output projection shares its matrix with the target embedding (section 3.4). Each
sublayer sits in a residual connection with a layer norm: after the sum, ``LayerNorm(x + Sublayer(x))``,
as the paper (``norm="post"``, the default), or before the sublayer, ``x + Sublayer(LayerNorm(x))``, as
GPT-2, which adds one final norm after the stack (``norm="pre"``).

Two modules, read in this order:

- ``handtf.seq2seq.blocks``, the pieces: ``embed``, ``post_norm``, ``pre_norm``, ``encoder_block``
  and ``decoder_block``, each forward function with its backward function right below it.
- ``handtf.seq2seq.model``, the model assembled from them: its sizes (``Config``, kept apart from the
  weights as nanoGPT keeps its ``GPTConfig``), its weights (``init_params``: seeded random numbers,
  so outputs are reproducible but meaningless) and its forward pass (``encode``, ``decode``,
  ``forward``), which take the config next to the weights.

``handtf.seq2seq.training`` trains the model with the paper's recipe, running these same functions
with dropout (the blocks' ``keep`` masks), and ``handtf.seq2seq.translate`` decodes with it. Every name
below is importable from ``handtf.seq2seq``. Token arrays are ``[n_seq]`` or ``[n_batch, n_seq]``;
``...`` in a shape comment stands for either.
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
