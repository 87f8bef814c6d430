"""GPT-2's forward pass, as pure numpy functions: the one handtf runs and the pages show.

The names and signatures follow picoGPT's ``gpt2.py`` (jaymody/picoGPT, MIT
license). ``gpt`` runs every model of the package: the hand-made ``(aab)*``
model, the models ``train`` trains, compiled patterns
(:func:`handtf.compile_pattern`) and induction heads. A part a model leaves
out is skipped: the hand-made model has one block with one head, no layer
norm (``ln_1``, ``ln_2``, ``ln_f``; ``norm`` is then ``x`` itself) and no
feed-forward network (``mlp``); a compiled pattern has several heads and an
``mlp``; GPT-2 has them all.

Every function takes one sequence (``[n_seq]`` token ids) or a batch
(``[n_batch, n_seq]``); a leading ``...`` in a shape comment stands for either.
``gpt``'s comments, the first listing a reader meets, show one sequence only, as
picoGPT's do; the same lines run a batch (the arrays gain a leading axis).
The arithmetic stays in the dtype of the weights (float16, float32 or float64).
The functions compute and return, nothing else: :func:`handtf.trace` keeps
their variables from outside (:class:`handtf.model.recording.Recorder`). Each
backward function sits right below its forward function; the backward of
``gpt``'s first lines, the lookup ``wte[inputs]``, is ``embedding_backward``
(:mod:`handtf.blocks.layers`), and :func:`handtf.training.backprop.loss_and_grads` puts them
together.
"""

import numpy as np

from ..blocks.attend import attend_heads, attend_heads_backward, check_self_attention
from ..checks import check_array, check_ids, check_n_head, checked, finite_logits
from ..layouts import check_gpt2_weights, check_keys, check_tree, gpt2_block_shapes
from ..blocks.layers import ffn, ffn_backward, layer_norm, layer_norm_backward, linear, linear_backward
from ..blocks.masks import causal_mask
from ..trees import leaves


@checked
# --8<-- [start:norm]
# [..., n_embd] -> [..., n_embd]
def norm(x, ln=None):
    """Layer norm where the weights have one (``ln``), else ``x`` itself."""
    return layer_norm(x, **ln) if ln else x
# --8<-- [end:norm]


def _norm_backward(dout, x, ln, grads, name):
    if not ln:
        return dout  # a missing norm is the identity
    dx, grads[name] = layer_norm_backward(dout, x, **ln)
    return dx


@checked
# --8<-- [start:causal_self_attention]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def causal_self_attention(x, c_attn, c_proj, n_head=1, cache=None):
    qkv = linear(x, **c_attn)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    q, k, v = np.split(qkv, 3, axis=-1)  # -> 3 of [..., n_seq, n_embd]
    # with a cache: the earlier positions' keys and values, then these
    # -> 2 of [..., n_past + n_seq, n_embd]
    k, v = cache.extend(k, v) if cache else (k, v)
    n_past = k.shape[-2] - x.shape[-2]  # 0 without a cache
    mask = causal_mask(x.shape[-2], x.dtype, n_past)  # [n_seq, n_past + n_seq]
    # attention in each head's slice; one head is attention itself
    x = attend_heads(q, k, v, n_head, mask)  # -> [..., n_seq, n_embd]
    # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    projection = linear(x, **c_proj)
    return projection
# --8<-- [end:causal_self_attention]


@checked(forward=causal_self_attention)
# [..., n_seq, n_embd], [..., n_seq, n_embd]
#   -> [..., n_seq, n_embd], {"c_attn": ..., "c_proj": ...}
def causal_self_attention_backward(dout, x, c_attn, c_proj, n_head=1):
    """``causal_self_attention`` backwards.

    q, k and v all come from ``x``, so ``x`` gets the sum of the three paths,
    through the one matrix ``c_attn``.
    """
    # 3 of [..., n_seq, n_embd]
    q, k, v = np.split(linear(x, **c_attn), 3, axis=-1)
    mask = causal_mask(x.shape[-2], x.dtype)  # [n_seq, n_seq]
    # the input of c_proj
    heads = attend_heads(q, k, v, n_head, mask)  # [..., n_seq, n_embd]
    # [..., n_seq, n_embd]
    dheads, g_proj = linear_backward(dout, heads, **c_proj)
    dq, dk, dv = attend_heads_backward(dheads, q, k, v, n_head, mask)
    dqkv = np.concatenate([dq, dk, dv], axis=-1)  # [..., n_seq, 3*n_embd]
    dx, g_attn = linear_backward(dqkv, x, **c_attn)  # [..., n_seq, n_embd]
    return dx, {"c_attn": g_attn, "c_proj": g_proj}


@checked
# --8<-- [start:transformer_block]
# [..., n_seq, n_embd] -> [..., n_seq, n_embd]
def transformer_block(x, attn, n_head=1, mlp=None, ln_1=None, ln_2=None,
                      cache=None):
    # two residual lines; a part the weights leave out is skipped
    # --8<-- [start:residual]
    x = x + causal_self_attention(norm(x, ln_1), **attn, n_head=n_head,
                                  cache=cache)
    # --8<-- [end:residual]
    # --8<-- [start:ffn_residual]
    if mlp:  # a position-wise feed-forward network
        x = x + ffn(norm(x, ln_2), **mlp)
    # --8<-- [end:ffn_residual]
    return x
# --8<-- [end:transformer_block]


@checked(forward=transformer_block)
# --8<-- [start:transformer_block_backward]
# [..., n_seq, n_embd], [..., n_seq, n_embd]
#   -> [..., n_seq, n_embd], grads like the block
def transformer_block_backward(dout, x, attn, n_head=1, mlp=None, ln_1=None,
                               ln_2=None):
    """``transformer_block`` backwards: a residual connection passes
    ``dout`` through unchanged *and* into its branch."""
    grads = {}
    if mlp:
        # the second residual's input: the block's first line
        x_mid = transformer_block(x, attn, n_head, ln_1=ln_1)
        dh, grads["mlp"] = ffn_backward(dout, norm(x_mid, ln_2), **mlp)
        # residual + branch
        dout = dout + _norm_backward(dh, x_mid, ln_2, grads, "ln_2")
    dh, grads["attn"] = causal_self_attention_backward(
        dout, norm(x, ln_1), **attn, n_head=n_head)
    # residual + branch
    return dout + _norm_backward(dh, x, ln_1, grads, "ln_1"), grads
# --8<-- [end:transformer_block_backward]


class KVCache:
    """The keys and values ``gpt`` computed with ``weights``, block by block: pass it again and only new positions run.

    Under the causal mask a position's key and value never depend on later
    tokens, so ``gpt(inputs, **weights, cache=cache)`` computes only the
    positions after the ``n_seq`` it holds and keeps theirs too; the logits
    are the whole sequence's rows. At most ``n_ctx`` positions, one model.

    >>> from handtf import MODEL
    >>> cache = KVCache(MODEL)
    >>> gpt(np.array([0, 0]), **MODEL, cache=cache).shape, cache.n_seq
    ((2, 2), 2)
    """

    def __init__(self, weights):
        weights = check_weights(**weights) if isinstance(weights, dict) else weights
        if not isinstance(weights, dict):
            raise TypeError(f"weights must be a dict in GPT-2's layout (wte, wpe, blocks), got {type(weights).__name__}")
        if not weights["blocks"]:
            raise ValueError("weights must have at least one block: keys and values are a block's")
        self.weights = weights  # the weights whose keys and values it holds
        self.blocks = [KeysValues() for _ in weights["blocks"]]  # one per block

    @property
    def n_seq(self):
        """How many positions the cache holds (0 when new)."""
        return 0 if self.blocks[0].k is None else self.blocks[0].k.shape[-2]

    def keep(self, n_seq):
        """Forget every position from ``n_seq`` on: the cache of the first ``n_seq`` tokens."""
        for kept in self.blocks:
            kept.k, kept.v = (None, None) if n_seq == 0 else (kept.k[..., :n_seq, :], kept.v[..., :n_seq, :])

    def __iter__(self):
        """Each block's :class:`KeysValues`, in order (``gpt`` pairs them with the blocks)."""
        return iter(self.blocks)

    def __repr__(self):
        return f"KVCache(n_seq={self.n_seq}, {len(self.blocks)} blocks)"


class KeysValues:
    """One block's keys and values ``[..., n_seq, n_embd]`` in a :class:`KVCache`."""

    def __init__(self):
        self.k = self.v = None

    def extend(self, k, v):
        """The kept keys and values followed by ``k`` and ``v``; all of them are kept."""
        if self.k is not None:
            k, v = np.concatenate([self.k, k], axis=-2), np.concatenate([self.v, v], axis=-2)
        self.k, self.v = k, v
        return k, v


@checked(result=finite_logits)
# --8<-- [start:gpt]
# [n_seq] -> [n_seq, n_vocab]
def gpt(inputs, wte, wpe, blocks, n_head=1, ln_f=None, cache=None):
    n_past = cache.n_seq if cache else 0  # positions run before, cached
    token_embedding = wte[inputs]  # [n_seq] -> [n_seq, n_embd]
    position_embedding = wpe[n_past:][: inputs.shape[-1]]  # [n_seq, n_embd]
    x = token_embedding + position_embedding  # [n_seq, n_embd]
    for block, kept in zip(blocks, cache or [None] * len(blocks)):
        # [n_seq, n_embd] -> [n_seq, n_embd]
        x = transformer_block(x, **block, n_head=n_head, cache=kept)
    x = norm(x, ln_f)  # [n_seq, n_embd]
    return x @ wte.T  # [n_seq, n_embd] -> [n_seq, n_vocab]
# --8<-- [end:gpt]


# picoGPT's names for the same functions (the package's API before they were one)
gpt2, gpt2_block, gpt2_block_backward = gpt, transformer_block, transformer_block_backward
mha, mha_backward = causal_self_attention, causal_self_attention_backward


# The boundary (see handtf.checks): what each function above accepts.


def check_norm(x, ln):
    x = check_array("x", x, min_ndim=1, shape="[..., n_embd]")
    if ln is None:
        return {"x": x}
    return {"x": x, "ln": check_tree("ln", ln, {"g": x.shape[-1:], "b": x.shape[-1:]})}


def check_causal_self_attention(x, c_attn, c_proj, n_head, cache=None):
    args = check_self_attention(x, c_attn, c_proj)
    check_block_cache(cache, args["x"])
    return args | {"n_head": check_n_head(n_head, args["x"].shape[-1])}


def check_transformer_block(x, attn, n_head, mlp, ln_1, ln_2, cache=None):
    x = check_array("x", x, min_ndim=2, shape="[..., n_seq, n_embd]")
    block = {"attn": attn} | {name: part for name, part in (("mlp", mlp), ("ln_1", ln_1), ("ln_2", ln_2)) if part}
    block = check_tree("block", block, gpt2_block_shapes("block", block, x.shape[-1]))
    check_block_cache(cache, x)
    return block | {"x": x, "n_head": check_n_head(n_head, x.shape[-1])}


def check_block_cache(cache, x):
    """``None``, or one block's :class:`KeysValues` of ``x``'s batch shape, width and dtype."""
    if cache is None:
        return
    if not isinstance(cache, KeysValues):
        raise TypeError(f"cache must be one block's keys and values (KVCache(weights).blocks[i]), got {type(cache).__name__}")
    if cache.k is not None and (cache.k.shape[:-2] != x.shape[:-2] or cache.k.shape[-1] != x.shape[-1]
                                or cache.k.dtype != x.dtype or cache.v is None or cache.v.shape != cache.k.shape):
        raise ValueError(f"cache must hold keys and values [..., n_past, n_embd] of x's batch shape, width and dtype "
                         f"{x.shape[:-2]}, {x.shape[-1]}, {x.dtype}, got {cache.k.shape} in {cache.k.dtype}")


def check_weights(wte, wpe, blocks, ln_f=None, parts=None):
    """The weights ``gpt`` runs, in GPT-2's layout and one float dtype (``parts``: the block parts allowed).

    >>> check_weights(np.zeros((2, 8)), np.zeros((5, 7)), blocks=[])
    Traceback (most recent call last):
    ...
    ValueError: wte and wpe must have shapes [n_vocab, n_embd] and [n_ctx, n_embd] with the same n_embd, got (2, 8) and (5, 7)
    """
    weights = check_gpt2_weights("", wte, wpe, blocks, ln_f, **({"parts": parts} if parts else {}))
    arrays = leaves(weights)
    if len({a.dtype for a in arrays}) > 1:
        raise TypeError(f"the weights must share one float dtype, got {sorted({str(a.dtype) for a in arrays})}")
    return weights


def check_model(model, name="model"):
    """A model dict as :func:`handtf.build_model` makes it (``attn`` only), its arrays checked by :func:`check_weights`."""
    if not isinstance(model, dict):
        raise TypeError(f"{name} must be a dict like build_model()'s, got {type(model).__name__}")
    check_keys(name, model, ("wte", "wpe", "blocks"), needs=", as build_model() makes it")
    return check_weights(**model, parts=("attn",))


def check_gpt(inputs, wte, wpe, blocks, n_head, ln_f, cache=None):
    weights = check_weights(wte, wpe, blocks, ln_f)
    n_vocab, n_embd = weights["wte"].shape
    n_ctx = weights["wpe"].shape[0]
    checked_args = weights | {
        "inputs": check_ids("inputs", inputs, n_vocab, n_ctx=n_ctx),
        "n_head": check_n_head(n_head, n_embd, name="n_embd"),
    }
    if cache is not None:
        check_cache(cache, weights, checked_args["inputs"])
    return checked_args


def check_cache(cache, weights, inputs):
    """A :class:`KVCache` of these weights, for ``inputs`` of its batch shape, with room for them within ``n_ctx``."""
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a handtf.KVCache (KVCache(weights)), got {type(cache).__name__}")
    mine, given = leaves(cache.weights), leaves(weights)
    if len(mine) != len(given) or not all(a is b or (a.shape == b.shape and np.array_equal(a, b)) for a, b in zip(mine, given)):
        raise ValueError("cache holds the keys and values of other weights; make a KVCache(weights) for each model")
    dtype, (n_ctx, n_embd), n_past, batch = given[0].dtype, weights["wpe"].shape, cache.n_seq, inputs.shape[:-1]
    for i, kept in enumerate(cache.blocks):
        shape = None if kept.k is None else kept.k.shape
        if (shape is None) != (n_past == 0) or (shape and (shape[-2:] != (n_past, n_embd) or kept.k.dtype != dtype
                                                          or kept.v is None or kept.v.shape != shape)):
            raise ValueError(f"cache's block {i} must hold keys and values [..., {n_past}, {n_embd}] in {dtype}, like "
                             "its block 0 (a KVCache is changed only by gpt and keep)")
        if shape and shape[:-2] != batch:
            raise ValueError(f"inputs must have the batch shape of the cache's sequences, {shape[:-2]}, got {batch}")
    if n_past + inputs.shape[-1] > n_ctx:
        raise ValueError(f"the cache holds {n_past} positions and inputs {inputs.shape[-1]} more: "
                         f"{n_past + inputs.shape[-1]} is beyond n_ctx = {n_ctx}, the positions the model has")

