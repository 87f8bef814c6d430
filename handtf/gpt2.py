"""GPT-2's whole forward pass, as picoGPT writes it, for models that use more of it.

The hand-made ``(aab)*`` model runs in :func:`handtf.gpt`, which keeps only
what it needs. A compiled pattern (:func:`handtf.compile_pattern`) needs
several heads and a feed-forward network, so it runs here: picoGPT's
``gpt2`` (jaymody/picoGPT, MIT license), where a block is two residual lines.
The layer norms ``ln_1``, ``ln_2`` and ``ln_f`` and the ``mlp`` are used
where a model has them and skipped where it leaves them out.
"""

import numpy as np

from .attend import mha
from .layers import ffn, layer_norm


# --8<-- [start:gpt2]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def gpt2_block(x, attn, n_head, mlp=None, ln_1=None, ln_2=None):
    x = x + mha(layer_norm(x, **ln_1) if ln_1 else x, **attn, n_head=n_head)  # multi-head causal attention
    if mlp:
        x = x + ffn(layer_norm(x, **ln_2) if ln_2 else x, **mlp)  # position-wise feed-forward network
    return x


# [..., n_seq] -> [..., n_seq, n_vocab]
def gpt2(inputs, wte, wpe, blocks, n_head, ln_f=None):
    x = wte[inputs] + wpe[: inputs.shape[-1]]  # [..., n_seq] -> [..., n_seq, n_embd]
    for block in blocks:
        x = gpt2_block(x, **block, n_head=n_head)  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    x = layer_norm(x, **ln_f) if ln_f else x
    return x @ wte.swapaxes(-1, -2)  # [..., n_seq, n_embd] -> [..., n_seq, n_vocab]
# --8<-- [end:gpt2]
