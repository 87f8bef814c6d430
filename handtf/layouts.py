"""The weight layouts handtf reads, each one way: a dense layer, a nested dict of arrays, GPT-2's blocks.

Part of the boundary (:mod:`handtf.checks`; it reads its arrays with
:mod:`handtf.readers`, and nothing imports it back): ``gpt``,
``transformer_block`` and ``loss_and_grads`` all read GPT-2's layout with
:func:`check_gpt2_weights` (the hand-made model is that layout with ``attn``
only); the encoder-decoder reads its own with :func:`check_tree` and the
shapes ``param_shapes`` gives.
"""

import numpy as np

from .readers import check_array, read_array, shown
from .trees import paths, tree_map


def check_keys(name, tree, keys, needs="", optional=()):
    """``tree`` must be a dict with exactly ``keys`` (and any of ``optional``); the error names the missing or extra keys.

    ``needs`` says, after the keys, what asks for them (" for config = ...").
    """
    wanted = f"{name} must be a dict with keys {names(keys)}{f' and optionally {names(optional)}' if optional else ''}{needs}"
    if not isinstance(tree, dict):
        raise ValueError(f"{wanted}, got {type(tree).__name__}")
    missing, extra = [k for k in keys if k not in tree], [k for k in tree if k not in keys + optional]
    if missing:
        raise ValueError(f"{wanted}, got one without {names(missing)}")
    if extra:
        raise ValueError(f"{wanted}, got one with the unexpected key {names(extra)}")


def names(keys):
    """``'a', 'b' and 'c'``"""
    quoted = [repr(k) for k in keys]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def dense_width(name, params):
    """The output width ``n_out`` of a ``{"w": [n_in, n_out], "b": [n_out]}`` dict."""
    w = params.get("w") if isinstance(params, dict) else None
    if w is None or np.ndim(read_array(f"{name}['w']", w)) != 2:
        raise ValueError(f"{name} must be a dict with 'w' of shape [n_in, n_out] and 'b' of shape [n_out], got {params!r}")
    return np.shape(w)[1]


def check_dense(name, params, n_in, n_out, needs=""):
    """``{"w": [n_in, n_out], "b": [n_out]}`` with finite float arrays."""
    check_keys(name, params, ("w", "b"), needs)
    w = check_array(f"{name}['w']", params["w"], ndim=2)
    b = check_array(f"{name}['b']", params["b"], ndim=1)
    if w.shape != (n_in, n_out) or b.shape != (n_out,):
        raise ValueError(
            f"{name} must have w of shape {(n_in, n_out)} and b of shape {(n_out,)}{needs}, got w {w.shape} and b {b.shape}"
        )
    return {"w": w, "b": b}


def check_tree(name, tree, shapes, needs=""):
    """Nested dicts and lists of arrays shaped like ``shapes`` (dicts, lists, and shape tuples at the leaves).

    Returns the same tree with every leaf a finite float array; an error names
    the path of the first missing key, wrong length or wrong shape, and then
    ``needs``: what asks for that layout (" for config = ...").
    """
    def node(path, shape, given):  # a dict or list of the layout: the keys or the length, worded here
        if isinstance(shape, dict):
            check_keys(path, given, tuple(shape), needs)
        elif not isinstance(given, (list, tuple)) or len(given) != len(shape):
            got = f"{len(given)} items" if isinstance(given, (list, tuple)) else type(given).__name__
            raise ValueError(f"{path} must be a list of {len(shape)} items{needs}, got {got}")

    def read(path, shape, given):  # a shape, or a dense layer {"w": ..., "b": ...}
        if isinstance(shape, dict):
            return check_dense(path, given, *shape["w"])
        array = check_array(path, given, nonempty=False)
        if array.shape != shape:
            raise ValueError(f"{path} must have shape {shape}{needs}, got shape {array.shape}")
        return array

    dense = lambda shape: isinstance(shape, dict) and set(shape) == {"w", "b"} and not needs  # noqa: E731
    return tree_map(read, shapes, tree, path=name, leaf=lambda shape: isinstance(shape, tuple) or dense(shape), check=node, at=True)


# The GPT-2 weight layout, read one way by gpt, transformer_block and loss_and_grads.

BLOCK_PARTS = ("attn", "ln_1", "mlp", "ln_2")  # a block has 'attn'; the hand-made model has nothing else


def gpt2_block_shapes(name, block, n_embd, parts=BLOCK_PARTS):
    """The shape of every array of a GPT-2 block of width ``n_embd`` with ``'attn'`` and any of ``parts``."""
    attn = block.get("attn") if isinstance(block, dict) else None
    if not isinstance(attn, dict) or set(attn) != {"c_attn", "c_proj"} or set(block) - set(parts):
        optional = f" and optionally {names(parts[1:])}" if parts[1:] else ""
        got = layout(block) if isinstance(block, dict) else shown(block)
        raise ValueError(f"{name} must be a dict {{'attn': {{'c_attn': ..., 'c_proj': ...}}}}{optional}, got {got}")
    dense = lambda n_in, n_out: {"w": (n_in, n_out), "b": (n_out,)}  # noqa: E731
    shapes = {"attn": {"c_attn": dense(n_embd, 3 * n_embd), "c_proj": dense(n_embd, n_embd)}}
    shapes |= {ln: {"g": (n_embd,), "b": (n_embd,)} for ln in ("ln_1", "ln_2") if ln in block}
    if "mlp" in block:
        n_hidden = dense_width(f"{name}['mlp']['c_fc']", block["mlp"].get("c_fc") if isinstance(block["mlp"], dict) else None)
        shapes["mlp"] = {"c_fc": dense(n_embd, n_hidden), "c_proj": dense(n_hidden, n_embd)}
    return {part: shapes[part] for part in block}


def layout(tree):
    """The keys of nested dicts (and lists), and the type of each leaf: what a block looks like.

    >>> layout({"attn": {"w": np.zeros(2)}, "n": 3})
    "{'attn': {'w': ndarray}, 'n': int}"
    """
    return repr(tree_map(lambda leaf: TypeName(type(leaf).__name__), tree))


class TypeName(str):
    """A type's name, written without quotes in a layout."""

    def __repr__(self):
        return str(self)


def check_gpt2_weights(name, wte, wpe, blocks, ln_f=None, parts=BLOCK_PARTS):
    """``wte [n_vocab, n_embd]``, ``wpe [n_ctx, n_embd]``, a list of blocks and an optional ``ln_f``, as finite arrays.

    ``name`` is the dict they came in (``"weights"``: ``weights['wte']``), or ``""`` for separate arguments.
    """
    path = (lambda key: f"{name}[{key!r}]") if name else (lambda key: key)  # noqa: E731
    wte, wpe = check_array(path("wte"), wte), check_array(path("wpe"), wpe)
    if wte.ndim != 2 or wpe.ndim != 2 or wte.shape[1] != wpe.shape[1]:
        raise ValueError(
            f"{path('wte')} and {path('wpe')} must have shapes [n_vocab, n_embd] and [n_ctx, n_embd] with the same n_embd, "
            f"got {wte.shape} and {wpe.shape}"
        )
    if not isinstance(blocks, (list, tuple)):
        raise TypeError(f"{path('blocks')} must be a list of blocks, got {type(blocks).__name__}")
    n_embd = wte.shape[1]
    shapes = [gpt2_block_shapes(f"{path('blocks')}[{i}]", block, n_embd, parts) for i, block in enumerate(blocks)]
    weights = {"wte": wte, "wpe": wpe, "blocks": check_tree(path("blocks"), list(blocks), shapes)}
    if ln_f is not None:
        weights["ln_f"] = check_tree(path("ln_f"), ln_f, {"g": (n_embd,), "b": (n_embd,)})
    return weights


def numbers_in(shapes):
    """How many numbers a nested dict/list of shape tuples holds (``[block] * n_layers``: one block, counted once).

    >>> numbers_in({"w": (2, 3), "blocks": [{"b": (4,)}] * 10**9})
    4000000006
    """
    counted = {}  # id of a repeated list of one block -> its numbers: the block is walked once
    size = lambda shape: int(np.prod(shape, dtype=object))  # noqa: E731
    shape_leaf = lambda node: isinstance(node, tuple)  # noqa: E731

    def leaf(node):
        if isinstance(node, list) and len(node) > 1 and all(item is node[0] for item in node):
            counted[id(node)] = len(node) * sum(n for _, n in paths(tree_map(size, node[0], leaf=shape_leaf)))
            return True
        return shape_leaf(node)

    sizes = tree_map(lambda node: counted[id(node)] if id(node) in counted else size(node), shapes, leaf=leaf)
    return sum(n for _, n in paths(sizes))
