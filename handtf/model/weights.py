"""The hand-designed weights, as labelled data.

Every column of the embeddings has one job, named by a label:

    P0 P1 P2 P3 P4 | a  b | V
    position       | token| scratch column for the attention's verdict

``build_model(lg)`` builds the whole model for any "large" constant ``lg``;
``MODEL`` is the one the tutorial uses, with ``LG = 1024``.
"""

from types import MappingProxyType

import numpy as np

from ..checks import check_float_dtype, check_positive, checked
from ..trees import read_only, tree_map
from .transformer import check_model, gpt

N_CTX = 5  # context length: the model sees at most 5 tokens
N_VOCAB = 2  # two tokens: a (id 0) and b (id 1)
N_EMBED = 8  # 5 position columns + 2 token columns + 1 scratch column
LG = 1024  # "large": big enough to drown everything it is added to

EMBED_LABELS = ("P0", "P1", "P2", "P3", "P4", "a", "b", "V")
POSITION_LABELS = EMBED_LABELS[:N_CTX]
TOKEN_LABELS = ("a", "b")
QKV_LABELS = tuple(f"{part}:{label}" for part in "qkv" for label in EMBED_LABELS)

_P = MappingProxyType({label: EMBED_LABELS.index(label) for label in EMBED_LABELS})  # label -> column


# --8<-- [start:embeddings]
def token_embeddings():
    """``wte``: token ``a`` switches on column ``a``, token ``b`` column ``b``.

    >>> token_embeddings()[1]  # token b
    array([0., 0., 0., 0., 0., 0., 1., 0.])
    """
    wte = np.zeros((N_VOCAB, N_EMBED))  # [n_vocab, n_embd]
    wte[0, _P["a"]] = 1
    wte[1, _P["b"]] = 1
    return wte


def position_embeddings():
    """``wpe``: position ``i`` switches on column ``Pi`` (one-hot).

    >>> position_embeddings()[2]  # position 2
    array([0., 0., 1., 0., 0., 0., 0., 0.])
    """
    wpe = np.zeros((N_CTX, N_EMBED))  # [n_ctx, n_embd]
    wpe[:, :N_CTX] = np.eye(N_CTX)
    return wpe
# --8<-- [end:embeddings]


@checked
# --8<-- [start:c_attn]
def c_attn_weights(lg=LG):
    """``c_attn``: the ``[8, 24]`` matrix that makes q, k and v from the
    embedding.

    Columns 0-7 make ``q``, 8-15 make ``k``, 16-23 make ``v``.

    - ``q``: the token at position ``i`` looks for positions ``i - 1`` and
      ``i`` (its *attention window*), with strength ``lg``.
    - ``k``: each token offers its own position, copied unchanged.
    - ``v``: token ``a`` becomes ``+1`` and token ``b`` becomes ``-1``, in
      column ``V``.

    >>> w = c_attn_weights(lg=1024)["w"]
    >>> w[3, :8]  # position 3 looks for positions 2 and 3
    array([   0.,    0., 1024., 1024.,    0.,    0.,    0.,    0.])
    """
    # --8<-- [start:c_attn_q]
    q = np.zeros((N_EMBED, N_EMBED))  # [n_embd, n_embd]
    for i in range(N_CTX):
        q[i, max(i - 1, 0) : i + 1] = lg  # position i -> window {i - 1, i}
    # --8<-- [end:c_attn_q]
    # --8<-- [start:c_attn_k]
    k = np.zeros((N_EMBED, N_EMBED))  # [n_embd, n_embd]
    k[:N_CTX, :N_CTX] = np.eye(N_CTX)  # position i -> key Pi
    # --8<-- [end:c_attn_k]
    # --8<-- [start:c_attn_v]
    v = np.zeros((N_EMBED, N_EMBED))  # [n_embd, n_embd]
    v[_P["a"], _P["V"]] = 1  # a -> +1
    v[_P["b"], _P["V"]] = -1  # b -> -1
    # --8<-- [end:c_attn_v]
    return {
        "w": np.concatenate([q, k, v], axis=1),  # [n_embd, 3*n_embd]
        "b": np.zeros(3 * N_EMBED),  # [3*n_embd]
    }
# --8<-- [end:c_attn]


@checked
# --8<-- [start:c_proj]
def c_proj_weights(lg=LG):
    """``c_proj``: turn the verdict in column ``V`` into a scaled one-hot
    token.

    The bias sets column ``a`` to ``lg``; a verdict of 1 in ``V`` moves that
    ``lg`` from column ``a`` to column ``b``.

    >>> c_proj = c_proj_weights(lg=1024)
    >>> c_proj["w"][7]  # row V
    array([    0.,     0.,     0.,     0.,     0., -1024.,  1024.,     0.])
    >>> c_proj["b"]
    array([   0.,    0.,    0.,    0.,    0., 1024.,    0.,    0.])
    """
    # --8<-- [start:c_proj_body]
    w = np.zeros((N_EMBED, N_EMBED))  # [n_embd, n_embd]
    w[_P["V"], _P["a"]] = -lg
    w[_P["V"], _P["b"]] = lg
    b = np.zeros(N_EMBED)  # [n_embd]
    b[_P["a"]] = lg
    return {"w": w, "b": b}
    # --8<-- [end:c_proj_body]
# --8<-- [end:c_proj]


@checked
# --8<-- [start:build_model]
def build_model(lg=LG, dtype=np.float64):
    """The whole hand-made model, keyed like GPT-2, so ``gpt(tokens, **model)``
    runs.

    >>> model = build_model(lg=1024)
    >>> sorted(model), sorted(model["blocks"][0]["attn"])
    (['blocks', 'wpe', 'wte'], ['c_attn', 'c_proj'])
    """
    attn = {
        "c_attn": c_attn_weights(lg),  # [n_embd, 3*n_embd], [3*n_embd]
        "c_proj": c_proj_weights(lg),  # [n_embd, n_embd], [n_embd]
    }
    model = {
        "wte": token_embeddings(),  # [n_vocab, n_embd]
        "wpe": position_embeddings(),  # [n_ctx, n_embd]
        "blocks": [{"attn": attn}],
    }
    return as_dtype(model, dtype)


def as_dtype(tree, dtype):
    """Every array of a nested dict/list, cast to ``dtype``."""
    return tree_map(lambda array: array.astype(dtype), tree)
# --8<-- [end:build_model]


# The boundary (see handtf.checks): what each function above accepts.


def check_lg(lg):
    return check_positive("lg", lg)


def check_c_attn_weights(lg):
    return {"lg": check_lg(lg)}


check_c_proj_weights = check_c_attn_weights


def check_build_model(lg, dtype):
    lg, dtype = check_lg(lg), check_float_dtype("dtype", dtype)
    windows = (np.arange(2**N_CTX)[:, None] >> np.arange(N_CTX)) & 1  # [32, N_CTX], every window of a and b
    try:  # the causal mask makes row i of a window's logits those of its first i + 1 tokens: every input, checked
        with np.errstate(over="ignore"):
            gpt(windows, **check_finite_model(build_model.__wrapped__(lg, dtype)))
    except ValueError as error:
        raise ValueError(f"lg = {lg:g} overflows {dtype}: {error}") from None
    return {"lg": lg, "dtype": dtype}


def check_finite_model(model):
    """A model of handtf's shape (``n_vocab = 2``, ``n_ctx >= N_CTX``); ``gpt``'s result guard refuses logits that overflow."""
    model = check_model(model)
    if model["wte"].shape[0] != N_VOCAB or model["wpe"].shape[0] < N_CTX:
        raise ValueError(
            f"model must have a vocabulary of {N_VOCAB} tokens and at least {N_CTX} positions, "
            f"got wte of shape {model['wte'].shape} and wpe of shape {model['wpe'].shape}"
        )
    return model


MODEL = read_only(build_model(LG))  # the tutorial's model, lg = 1024 in float64; read-only: change a copy.deepcopy(MODEL)
