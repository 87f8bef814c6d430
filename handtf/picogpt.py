"""GPT-2's whole forward pass, as picoGPT writes it, for models that use more of it.

The hand-made ``(aab)*`` model runs in :func:`handtf.gpt`, which keeps only
what it needs. A compiled pattern (:func:`handtf.compile_pattern`) needs
several heads and a feed-forward network, so it runs here: picoGPT's
``gpt2`` (jaymody/picoGPT, MIT license), where a block is two residual lines.
The layer norms ``ln_1``, ``ln_2`` and ``ln_f`` and the ``mlp`` are used
where a model has them and skipped where it leaves them out. Like ``gpt``,
each step passes what it computes to ``record``.

``embedding_backward``, below ``gpt2``, is the backward of its first line,
the lookup ``wte[inputs]``; the other backward functions sit below their
forward functions in ``activations``, ``layers``, ``attend`` and ``loss``.
"""

import numpy as np

from .attend import mha
from .checks import (
    check_array,
    check_callable,
    check_dout,
    check_gpt2_weights,
    check_ids,
    check_n_head,
    check_positive_int,
    check_size,
    check_tree,
    checked,
    finite_logits,
    gpt2_block_shapes,
)
from .layers import ffn, layer_norm
from .recording import ignore


@checked
# --8<-- [start:gpt2_block]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def gpt2_block(x, attn, n_head, mlp=None, ln_1=None, ln_2=None, record=ignore):
    # causal multi-head attention
    x = x + mha(layer_norm(x, **ln_1) if ln_1 else x, **attn, n_head=n_head,
                record=record)
    record(attention_residual=x)
    if mlp:
        # position-wise feed-forward network
        x = x + ffn(layer_norm(x, **ln_2) if ln_2 else x, **mlp, record=record)
    record(residual=x)
    return x
# --8<-- [end:gpt2_block]


@checked(result=finite_logits)
# --8<-- [start:gpt2]
# [..., n_seq] -> [..., n_seq, n_vocab]
def gpt2(inputs, wte, wpe, blocks, n_head, ln_f=None, record=ignore):
    # [..., n_seq] -> [..., n_seq, n_embd]
    x = wte[inputs] + wpe[: inputs.shape[-1]]
    record(embedding=x)
    for block in blocks:
        # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
        x = gpt2_block(x, **block, n_head=n_head, record=record)
    x = layer_norm(x, **ln_f) if ln_f else x
    # [..., n_seq, n_embd] -> [..., n_seq, n_vocab]
    return x @ wte.swapaxes(-1, -2)
# --8<-- [end:gpt2]


@checked
# --8<-- [start:embedding_backward]
# [..., n_seq, n_embd], [..., n_seq], n_vocab -> [n_vocab, n_embd]
def embedding_backward(dout, tokens, n_vocab):
    """``wte[tokens]`` backwards: each row of ``dout`` is added to the row of
    its token.

    A token that occurs twice collects both gradients (``np.add.at`` adds
    repeated indices; ``dwte[tokens] += dout`` would keep only one).

    >>> dout = np.array([[1.0], [2.0], [4.0]])
    >>> embedding_backward(dout, np.array([0, 1, 0]), n_vocab=2)
    array([[5.],
           [2.]])
    """
    # [n_vocab, n_embd]
    dwte = np.zeros((n_vocab, dout.shape[-1]), dtype=dout.dtype)
    np.add.at(dwte, tokens.reshape(-1), dout.reshape(-1, dout.shape[-1]))
    return dwte
# --8<-- [end:embedding_backward]


# The boundary (see handtf.checks): what each function above accepts.

def check_gpt2_block(x, attn, n_head, mlp, ln_1, ln_2, record):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    block = {"attn": attn} | {name: part for name, part in (("mlp", mlp), ("ln_1", ln_1), ("ln_2", ln_2)) if part}
    block = check_tree("block", block, gpt2_block_shapes("block", block, x.shape[-1]))
    return block | {"x": x, "n_head": check_n_head(n_head, x.shape[-1]), "record": check_callable("record", record)}


def check_gpt2(inputs, wte, wpe, blocks, n_head, ln_f, record):
    weights = check_gpt2_weights("", wte, wpe, blocks, ln_f)
    inputs = check_ids("inputs", inputs, weights["wte"].shape[0], n_ctx=weights["wpe"].shape[0])
    return weights | {
        "inputs": inputs,
        "n_head": check_n_head(n_head, weights["wte"].shape[1], name="n_embd"),
        "record": check_callable("record", record),
    }


def check_embedding_backward(dout, tokens, n_vocab):
    tokens = check_ids("tokens", tokens, check_positive_int("n_vocab", n_vocab))
    dout = check_array("dout", dout, min_ndim=tokens.ndim + 1)
    n_vocab = check_size("n_vocab", n_vocab, per_item=dout.shape[-1])  # dwte is [n_vocab, n_embd]
    check_dout(dout, tokens.shape + dout.shape[-1:])
    return {"dout": dout, "tokens": tokens, "n_vocab": n_vocab}
