"""One forward pass per architecture: each block, norm and attention is defined once, and everything runs it.

The same for the backward pass and the optimiser: each backward function sits right below its forward
function, and every trainer runs the one Adam, schedule and dropout mask of ``handtf.training.optimiser``.

Two checks. ``test_*_runs_the_one_*`` replaces the one function that defines a
piece of maths wherever handtf holds it (module attributes, dicts such as
``RESIDUALS``) and asserts every entry point's output changes: an entry point
that ran a copy of the maths would not change. ``test_the_maths_is_written_once``
reads the source and finds each formula's functions, so a second definition
fails even when nothing calls it yet.
"""

import ast
import dis
import importlib
import pkgutil
import re
import sys
import types
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

import handtf
from handtf import MODEL, compile_pattern, gpt, trace, train_induction
from handtf.training.backprop import loss_and_grads
from handtf.seq2seq import Config, forward, init_params
from handtf.seq2seq.training import seq2seq_loss_and_grads, train_seq2seq
from handtf.training.trainer import margins, pattern_windows, train
from handtf.trees import leaves

ROOT = Path(__file__).resolve().parent.parent
MODULES = [importlib.import_module(m.name) for m in pkgutil.walk_packages(handtf.__path__, "handtf.")]


def test_there_is_one_gpt_one_block_one_attention_and_one_trace():
    """picoGPT's names, kept for the API, are the one forward's functions, not second definitions."""
    assert handtf.gpt2 is handtf.gpt is handtf.model.transformer.gpt
    assert handtf.gpt2_block is handtf.transformer_block and handtf.mha is handtf.causal_self_attention
    assert handtf.model.transformer.gpt2_block_backward is handtf.transformer_block_backward
    assert handtf.mha_backward is handtf.causal_self_attention_backward
    assert handtf.PatternTrace is handtf.Trace
    assert not any(hasattr(handtf, name) for name in ("picogpt", "running", "PATTERN_STEPS"))


# ---- every entry point runs the one function


def replace_everywhere(monkeypatch, function, changed):
    """Put ``changed`` wherever handtf holds ``function``: module attributes, dict values and keys."""
    places = 0
    for module in MODULES:
        for name, value in list(vars(module).items()):
            if value is function:
                monkeypatch.setattr(module, name, changed)
                places += 1
            elif isinstance(value, (dict, MappingProxyType)) and not name.startswith("__"):
                table = {changed if key is function else key: changed if item is function else item for key, item in value.items()}
                table |= {key: item for key, item in value.items() if key is function}  # a table from a forward function to its backward
                if table != dict(value):  # a read-only table (issue 42) is replaced whole, for the test only
                    monkeypatch.setattr(module, name, MappingProxyType(table) if isinstance(value, MappingProxyType) else table)
    assert places, f"{function.__name__} is nowhere in handtf"


def gpt2_weights(rng, n_embd=8, n_vocab=2, n_ctx=5):
    norm = lambda: {"g": 1 + 0.1 * rng.normal(size=n_embd), "b": 0.1 * rng.normal(size=n_embd)}  # noqa: E731
    dense = lambda n_in, n_out: {"w": rng.normal(0, 0.5, (n_in, n_out)), "b": 0.1 * rng.normal(size=n_out)}  # noqa: E731
    block = {
        "attn": {"c_attn": dense(n_embd, 3 * n_embd), "c_proj": dense(n_embd, n_embd)},
        "ln_1": norm(), "ln_2": norm(), "mlp": {"c_fc": dense(n_embd, 16), "c_proj": dense(16, n_embd)},
    }
    return {"wte": rng.normal(size=(n_vocab, n_embd)), "wpe": rng.normal(size=(n_ctx, n_embd)), "blocks": [block],
            "ln_f": norm()}


WEIGHTS = gpt2_weights(np.random.default_rng(1))
INPUTS, TARGETS = pattern_windows("aab")
PATTERN = compile_pattern("abcab")
INDUCTION = handtf.induction_head("abc", n_ctx=5)
SEQ2SEQ = {norm: Config(6, 6, d_model=8, n_head=2, d_ff=16, n_layers=2, norm=norm) for norm in ("post", "pre")}
SRC, TGT_IN, TGT_OUT = np.array([[2, 3, 4], [5, 4, 3]]), np.array([[0, 4, 3], [0, 3, 4]]), np.array([[4, 3, 1], [3, 4, 1]])

# what each entry point computes, as one array
ENTRY_POINTS = {
    "gpt": lambda: gpt(INPUTS, **MODEL),
    "trace": lambda: np.concatenate([trace("aabaa").residual, trace("aabaa").logits], axis=1),
    "gpt with GPT-2's whole block": lambda: gpt(INPUTS, **WEIGHTS, n_head=2),
    "trace of a compiled pattern": lambda: trace("cabca", model=PATTERN).logits,
    "loss_and_grads": lambda: np.array(loss_and_grads(WEIGHTS, INPUTS, TARGETS, n_head=2)[0]),
    "train": lambda: train("aab", steps=3, seed=0, n_head=2).losses,
    "train's margins": lambda: margins(WEIGHTS, INPUTS, TARGETS, n_head=2),
    **{
        f"seq2seq forward ({norm})": (lambda c=c: forward(SRC, TGT_IN, init_params(c, seed=0), c))
        for norm, c in SEQ2SEQ.items()
    },
    **{
        f"seq2seq_loss_and_grads ({norm})": (
            lambda c=c: np.array(seq2seq_loss_and_grads(init_params(c, seed=0), c, SRC, TGT_IN, TGT_OUT)[0])
        )
        for norm, c in SEQ2SEQ.items()
    },
}


def flat(grads):
    return np.concatenate([g.ravel() for g in leaves(grads)])


# the backward pass and the trainers
ENTRY_POINTS |= {
    "loss_and_grads' gradients": lambda: flat(loss_and_grads(WEIGHTS, INPUTS, TARGETS, n_head=2)[1]),
    **{
        f"seq2seq gradients ({norm})": (
            lambda c=c: flat(seq2seq_loss_and_grads(init_params(c, seed=0), c, SRC, TGT_IN, TGT_OUT)[1])
        )
        for norm, c in SEQ2SEQ.items()
    },
    "seq2seq_loss_and_grads with dropout": lambda: np.array(seq2seq_loss_and_grads(
        init_params(SEQ2SEQ["post"], seed=0), SEQ2SEQ["post"], SRC, TGT_IN, TGT_OUT, dropout=0.5,
        rng=np.random.default_rng(0))[0]),
    "train_seq2seq": lambda: train_seq2seq(steps=2, length=3, n_symbols=4, batch_size=4, d_model=8, n_head=2, d_ff=16,
                                           n_test=2, warmup=1).losses,
    "train_induction": lambda: train_induction(steps=3, seed=0).losses,
    "the induction head": lambda: handtf.induction_attention(INDUCTION, "abcab")[2],
    # decoding with the key/value cache: the prompt, then one position a step, through the same functions
    "decoding with a cache": lambda: np.stack([step([0, 1, 2, 0, 1, 2][:n]) for step in [handtf.gpt_step(PATTERN)]
                                               for n in range(3, 7)]),
}
SEQ2SEQ_POINTS = [name for name in ENTRY_POINTS if name.startswith("seq2seq") and "gradients" not in name
                  and "dropout" not in name]
SEQ2SEQ_GRADS = [name for name in ENTRY_POINTS if name.startswith("seq2seq gradients")]
GPT2_POINTS = ["gpt with GPT-2's whole block", "trace of a compiled pattern", "loss_and_grads", "train", "train's margins"]
# every model: the hand-made one, GPT-2's layout, a compiled pattern, the trained ones, the induction head
GPT_POINTS = ["gpt", "trace", *GPT2_POINTS, "train_induction", "the induction head", "decoding with a cache"]
TRAINERS = ["train", "train_seq2seq", "train_induction"]


def backward_with_a_larger_dout(real):
    """A backward function changed: it passes on the gradient of 1.5 times the loss."""
    return lambda dout, *args, **kwargs: real(1.5 * dout, *args, **kwargs)


def adam_with_a_larger_rate(real):
    return lambda params, grads, moments, step, lr, **kwargs: real(params, grads, moments, step, 1.5 * lr, **kwargs)


def adam_from_other_moments(real):
    return lambda params: [(m + 1.0, v + 1.0) for m, v in real(params)]

# each piece of maths: the one function that defines it, and the entry points that must run it
REGISTRY = {
    "the GPT-2 block": ("model.transformer", "transformer_block", GPT_POINTS),
    "attention": ("blocks.attend", "attention", list(ENTRY_POINTS)),
    "causal self-attention, with any number of heads": ("model.transformer", "causal_self_attention", GPT_POINTS),
    "the encoder-decoder's attention": ("blocks.attend", "multi_head_attention", SEQ2SEQ_POINTS),
    "layer norm": ("blocks.layers", "layer_norm", ["gpt with GPT-2's whole block", "loss_and_grads", "train's margins",
                                            *SEQ2SEQ_POINTS]),
    "the feed-forward network": ("blocks.layers", "ffn", ["gpt with GPT-2's whole block", "trace of a compiled pattern",
                                                   "loss_and_grads", "decoding with a cache",
                                                   *SEQ2SEQ_POINTS]),
    "the paper's residual norm": ("seq2seq", "post_norm", [p for p in SEQ2SEQ_POINTS if "post" in p]),
    "GPT-2's residual norm": ("seq2seq", "pre_norm", [p for p in SEQ2SEQ_POINTS if "pre" in p]),
    "the encoder block": ("seq2seq", "encoder_block", SEQ2SEQ_POINTS),
    "the decoder block": ("seq2seq", "decoder_block", SEQ2SEQ_POINTS),
    "the encoder-decoder's embedding": ("seq2seq", "embed", SEQ2SEQ_POINTS),
    # the backward pass: each backward function, written once beside its forward one, is the one the trainers run
    "the GPT-2 block's backward": ("model.transformer", "transformer_block_backward", ["loss_and_grads' gradients"],
                                   backward_with_a_larger_dout),
    "causal self-attention's backward": ("model.transformer", "causal_self_attention_backward", ["loss_and_grads' gradients"],
                                         backward_with_a_larger_dout),
    "the encoder-decoder's attention's backward": ("blocks.attend", "multi_head_attention_backward", SEQ2SEQ_GRADS,
                                                   backward_with_a_larger_dout),
    "layer norm's backward": ("blocks.layers", "layer_norm_backward", ["loss_and_grads' gradients", *SEQ2SEQ_GRADS],
                              backward_with_a_larger_dout),
    "the feed-forward network's backward": ("blocks.layers", "ffn_backward", ["loss_and_grads' gradients", *SEQ2SEQ_GRADS],
                                            backward_with_a_larger_dout),
    "the embedding lookup's backward": ("blocks.layers", "embedding_backward", ["loss_and_grads' gradients", *SEQ2SEQ_GRADS],
                                        backward_with_a_larger_dout),
    "the encoder-decoder's embedding's backward": ("seq2seq", "embed_backward", SEQ2SEQ_GRADS,
                                                   backward_with_a_larger_dout),
    "the paper's residual norm's backward": ("seq2seq", "post_norm_backward", ["seq2seq gradients (post)"],
                                             backward_with_a_larger_dout),
    "GPT-2's residual norm's backward": ("seq2seq", "pre_norm_backward", ["seq2seq gradients (pre)"],
                                         backward_with_a_larger_dout),
    "the encoder block's backward": ("seq2seq", "encoder_block_backward", SEQ2SEQ_GRADS, backward_with_a_larger_dout),
    "the decoder block's backward": ("seq2seq", "decoder_block_backward", SEQ2SEQ_GRADS, backward_with_a_larger_dout),
    # the optimiser: every trainer runs handtf.training.optimiser's
    "Adam's step": ("training.optimiser", "adam_step", TRAINERS, adam_with_a_larger_rate),
    "Adam's moments": ("training.optimiser", "adam_moments", TRAINERS, adam_from_other_moments),
    "the learning-rate schedule": ("training.optimiser", "learning_rate", ["train", "train_seq2seq"]),
    "dropout's mask": ("training.optimiser", "dropout_mask", ["seq2seq_loss_and_grads with dropout", "train_seq2seq"]),
}


@pytest.mark.parametrize("maths", REGISTRY)
def test_every_entry_point_runs_the_one_function(monkeypatch, maths):
    module_name, name, points, *change = REGISTRY[maths]
    real = getattr(importlib.import_module(f"handtf.{module_name}"), name)
    before = {point: ENTRY_POINTS[point]() for point in points}

    def changed(*args, **kwargs):
        return real(*args, **kwargs) * 1.5

    replace_everywhere(monkeypatch, real, change[0](real) if change else changed)
    unchanged = [point for point in points if np.array_equal(ENTRY_POINTS[point](), before[point])]
    assert not unchanged, f"{', '.join(unchanged)} ran a copy of {maths} ({module_name}.{name}), not the function itself"


def test_the_entry_point_test_would_catch_a_copy(monkeypatch):
    """Not vacuous: a trainer whose forward runs its own copy of the GPT-2 block keeps its loss when the one block changes."""
    import types

    import handtf.training.backprop

    real = handtf.model.transformer.transformer_block
    one_gpt = handtf.model.transformer.gpt.__wrapped__
    # the same maths under a second name the patch does not reach, run by a gpt that calls it
    copied_gpt = types.FunctionType(one_gpt.__code__, {**one_gpt.__globals__, "transformer_block": real.__wrapped__},
                                    argdefs=one_gpt.__defaults__)
    monkeypatch.setattr(handtf.training.backprop, "gpt", copied_gpt)
    before = ENTRY_POINTS["loss_and_grads"]()
    replace_everywhere(monkeypatch, real, lambda *a, **k: real(*a, **k) * 1.5)
    np.testing.assert_array_equal(ENTRY_POINTS["loss_and_grads"](), before)


# ---- the source defines each formula once


def is_call_to(node, names):
    return isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in names


def calls_in(node, names):
    return any(is_call_to(n, names) for n in ast.walk(node))


ATTENTIONS = {"mha", "causal_self_attention", "multi_head_attention", "attention", "attend_heads"}
NORMS = {"layer_norm", "norm"}  # norm: layer norm where the weights have one
# formula: (what finds it in a function's body, the functions allowed to write it)
FORMULAS = {
    "a block's residual sum around attention, x + attn(...)": (
        lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and calls_in(n.right, ATTENTIONS),
        {"model.transformer.transformer_block"},
    ),
    "a norm around a residual sum, LayerNorm(x + ...)": (
        lambda n: is_call_to(n, {"layer_norm"}) and any(isinstance(a, ast.BinOp) and isinstance(a.op, ast.Add)
                                                      for a in n.args),
        {"seq2seq.blocks.post_norm"},
    ),
    "a residual sum around a norm, x + f(LayerNorm(x))": (
        lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and calls_in(n.right, NORMS),
        {"seq2seq.blocks.pre_norm", "model.transformer.transformer_block"},  # GPT-2's block is pre-norm, written inline as picoGPT writes it
    ),
    "layer norm's variance": (
        lambda n: is_call_to(n, {"var"}),
        {"blocks.layers.layer_norm", "blocks.layers.layer_norm_backward"},
    ),
    "attention's scores, q @ k^T": (
        lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) and ast.unparse(n.right).startswith("k."),
        {"blocks.attend.attention_weights"},
    ),
    "GPT-2's embedding, wte[inputs] + wpe[...]": (
        lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)
        and any(name in ast.unparse(n.left) for name in ("wte", "token_embedding"))
        and any(name in ast.unparse(n.right) for name in ("wpe", "position_embedding")),
        {"model.transformer.gpt"},
    ),
    # the optimiser, which every trainer shares
    "Adam's running means, beta * m + (1 - beta) * g": (
        lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and getattr(n.left, "value", None) == 1
        and "beta" in ast.unparse(n.right),
        {"training.optimiser.adam_step"},
    ),
    "Adam's starting moments, a pair of zero arrays a weight": (
        lambda n: isinstance(n, ast.Tuple) and len(n.elts) == 2 and all(is_call_to(e, {"zeros_like"}) for e in n.elts),
        {"training.optimiser.adam_moments"},
    ),
    "the warm-up schedule, step**-0.5 and warmup**-1.5": (
        lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and ast.unparse(n.right) in ("-0.5", "-1.5"),
        {"training.optimiser.learning_rate"},
    ),
    "dropout's mask, rng.random(shape) >= rate": (
        lambda n: isinstance(n, ast.Compare) and calls_in(n.left, {"random"}),
        {"training.optimiser.dropout_mask"},
    ),
}


def writers(sources):
    """For each formula, the functions (``module.function``) whose own body writes it."""
    found = {formula: set() for formula in FORMULAS}
    for module, text in sources.items():
        for function in ast.walk(ast.parse(text)):
            if isinstance(function, ast.FunctionDef):
                body = [n for statement in function.body for n in ast.walk(statement)]
                for formula, (finds, _) in FORMULAS.items():
                    if any(finds(n) for n in body):
                        found[formula].add(f"{module}.{function.name}")
    return found


def package_sources():
    """{module name under handtf (``model``, ``seq2seq.blocks``): its source}."""
    paths = sorted((ROOT / "handtf").rglob("*.py"))
    return {".".join(path.relative_to(ROOT / "handtf").with_suffix("").parts): path.read_text(encoding="utf-8")
            for path in paths}


def test_the_maths_is_written_once():
    found = writers(package_sources())
    for formula, (_, allowed) in FORMULAS.items():
        # a nested function counts for the function around it, and for itself
        assert found[formula] <= allowed, f"{formula} is written again in {sorted(found[formula] - allowed)}"
        assert found[formula], f"{formula}: the scan finds nothing, so it checks nothing"


def test_the_source_scan_would_catch_the_old_copies():
    """Not vacuous: the copies this test replaced (gpt_grads.block, training.logits_of, a dropout residual) fail it."""
    old = '''
def block(x, attn, ln_1=None, mlp=None, ln_2=None, n_head=1):
    x = x + mha(_norm(x, ln_1), **attn, n_head=n_head)
    return x if mlp is None else x + ffn(_norm(x, ln_2), **mlp)

def logits_of(weights, inputs, n_head=1):
    x = weights["wte"][inputs] + weights["wpe"][: inputs.shape[-1]]

def _residual(x, sublayer, ln, keep, norm):
    forward, _ = sublayer
    if norm == "post":
        return layer_norm(x + keep * forward(x), **ln)
    return x + keep * forward(layer_norm(x, **ln))
'''
    found = writers({"copies": old})
    assert found["a block's residual sum around attention, x + attn(...)"] == {"copies.block"}
    assert found["GPT-2's embedding, wte[inputs] + wpe[...]"] == {"copies.logits_of"}
    assert found["a norm around a residual sum, LayerNorm(x + ...)"] == {"copies._residual"}
    assert found["a residual sum around a norm, x + f(LayerNorm(x))"] == {"copies._residual"}


def test_the_source_scan_would_catch_a_second_optimiser():
    """Not vacuous: a trainer that writes its own Adam, moments, schedule or dropout fails the scan."""
    copy = '''
def train_my_way(weights, grads, steps, warmup, rng):
    params = leaves(weights)
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    for step in range(1, steps + 1):
        lr = 32**-0.5 * min(step**-0.5, step * warmup**-1.5)
        keep = (rng.random((2, 8)) >= 0.1) / 0.9
        for p, g, (m, v) in zip(params, leaves(grads), moments):
            m[...] = 0.9 * m + (1 - 0.9) * g
            v[...] = beta2 * v + (1 - beta2) * g**2
'''
    found = writers({"copies": copy})
    for formula in ("Adam's running means, beta * m + (1 - beta) * g", "Adam's starting moments, a pair of zero arrays a weight",
                    "the warm-up schedule, step**-0.5 and warmup**-1.5", "dropout's mask, rng.random(shape) >= rate"):
        assert found[formula] == {"copies.train_my_way"}, formula


# ---- each backward function sits right below its forward function

# backward functions whose forward pass is not a function of the package
NO_FORWARD_FUNCTION = {"blocks.layers.embedding_backward": "its forward is numpy's lookup wte[tokens], a line of gpt"}
# backward functions named otherwise than their forward function
FORWARD_OF = {"blocks.loss.cross_entropy_backward": "soft_cross_entropy"}  # cross_entropy is its case of one-hot targets


def backward_functions(sources):
    """{``module.name_backward``: the public function defined just before it} for every backward function."""
    found = {}
    for module, text in sources.items():
        public = [node.name for node in ast.parse(text).body
                  if isinstance(node, ast.FunctionDef) and not node.name.startswith(("_", "check_"))]
        for before, name in zip([None, *public], public):
            if name.endswith("_backward"):
                found[f"{module}.{name}"] = before
    return found


def misplaced(sources):
    """The backward functions that are not the next public function after their forward one, in the same module."""
    return sorted(f"{name} (after {before})" for name, before in backward_functions(sources).items()
                  if before != FORWARD_OF.get(name, name.rpartition(".")[2].removesuffix("_backward"))
                  and name not in NO_FORWARD_FUNCTION)


def test_every_backward_function_sits_right_below_its_forward_function():
    found = backward_functions(package_sources())
    assert misplaced(package_sources()) == [], "put each backward function right below its forward function"
    assert set(NO_FORWARD_FUNCTION) | set(FORWARD_OF) <= set(found), "an exception no longer needed"
    # the scan sees every backward function, the encoder-decoder's too
    assert {"blocks.activations.softmax_backward", "blocks.attend.attention_backward", "blocks.layers.layer_norm_backward",
            "model.transformer.transformer_block_backward", "seq2seq.blocks.embed_backward", "seq2seq.blocks.post_norm_backward",
            "seq2seq.blocks.pre_norm_backward", "seq2seq.blocks.encoder_block_backward",
            "seq2seq.blocks.decoder_block_backward"} <= set(found)


def test_the_placement_scan_would_catch_the_old_layout():
    """Not vacuous: the encoder-decoder's backward functions in seq2seq_training, away from their forward ones."""
    old = '''
def task_pairs(task, n_pairs, length, n_symbols, rng): ...
def _self_attention(params, n_head, mask): ...
def embed_backward(dout, tokens, wte): ...
def post_norm_backward(dout, x, sublayer, ln, keep=1.0): ...
def pre_norm_backward(dout, x, sublayer, ln, keep=1.0): ...
def check_embed_backward(dout, tokens, wte): ...
'''
    assert misplaced({"seq2seq.training": old}) == [
        "seq2seq.training.embed_backward (after task_pairs)",
        "seq2seq.training.post_norm_backward (after embed_backward)",
        "seq2seq.training.pre_norm_backward (after post_norm_backward)",
    ]
    assert misplaced({"blocks": "def pre_norm(x): ...\ndef pre_norm_backward(dout, x): ...\n"}) == []


def test_every_field_of_a_trace_is_a_variable_of_its_function():
    """The trace's names are the code's: each field reads a variable the forward function really has."""
    import inspect

    from handtf.model.tracing import STEPS, Trace

    for field, (function, variable, _) in STEPS.items():
        assert field in Trace.__dataclass_fields__
        assert variable in inspect.unwrap(function).__code__.co_varnames, f"{function.__name__} has no {variable}"


# ---- the main line shows the forward pass every model runs

FORWARD_MODULES = ("model/transformer", "blocks/attend", "blocks/masks", "blocks/activations", "blocks/layers")
SHOWN = re.compile(r'--8<-- "handtf/([\w/]+)\.py:(\w+)"')  # the forward pass's modules, above


def mainline_pages():
    """The main line, as mkdocs.yml lists it (extra.mainline), in both languages."""
    listed = re.search(r"^\s*mainline: \[(.*)\]", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M).group(1)
    pages = [ROOT / "docs" / name.strip() for name in listed.split(",")]
    return pages + [page.with_suffix(".zh.md") for page in pages]


def shown_on_the_main_line():
    """{(module, section)} of every forward listing a main-line page embeds."""
    return {(module, section) for page in mainline_pages() for module, section in SHOWN.findall(page.read_text(encoding="utf-8"))
            if module in FORWARD_MODULES}


def code_lines(module, section):
    """The lines of a section that run when its code runs (statements, not comments, docstrings or ``def``)."""
    path = ROOT / "handtf" / f"{module}.py"
    text = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(text) if line.strip() == f"# --8<-- [start:{section}]")
    end = next(i for i, line in enumerate(text) if i > start and line.strip() == f"# --8<-- [end:{section}]")
    codes, runnable = [compile("\n".join(text), str(path), "exec")], set()
    while codes:
        code = codes.pop()
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        if code.co_name != "<module>":
            runnable |= {line for _, line in dis.findlinestarts(code) if line is not None}
    return {(str(path), line) for line in range(start + 2, end + 1) if line in runnable}


def lines_run(run):
    """Every (file, line) of handtf that ``run()`` executes."""
    seen, package = set(), str(ROOT / "handtf")

    def follow(frame, event, arg):
        if event == "line":
            seen.add((frame.f_code.co_filename, frame.f_lineno))
        return follow

    def start(frame, event, arg):
        return follow if frame.f_code.co_filename.startswith(package) else None

    previous = sys.gettrace()
    sys.settrace(start)
    try:
        run()
    finally:
        sys.settrace(previous)
    return seen


THREE = {
    "train": lambda: train("aab", steps=2, seed=0),
    "a compiled pattern": lambda: handtf.complete("abc", 3, model=compile_pattern("abcab")),
    "the induction head": lambda: handtf.verify_induction(handtf.induction_head("ab", n_ctx=3)),
}


@pytest.fixture(scope="module")
def runs():
    return {name: lines_run(run) for name, run in THREE.items()}


def not_run(sections, runs):
    """``module.py:line (section): who does not run it`` for each line of ``sections`` that one of the three skips."""
    return sorted(f"{Path(path).name}:{line} ({module}:{section}): not run by {', '.join(missing)}"
                  for module, section in sections for path, line in code_lines(module, section)
                  if (missing := [name for name, lines in runs.items() if (path, line) not in lines]))


def test_every_line_the_main_line_shows_runs_in_training_a_compiled_pattern_and_the_induction_head(runs):
    shown = shown_on_the_main_line()
    # the forward pass the main line teaches, section by section
    assert {("model/transformer", s) for s in ("gpt", "causal_self_attention", "residual")} <= shown
    assert not_run(shown, runs) == []


def test_the_line_check_would_catch_a_line_only_one_model_runs(runs):
    """Not vacuous: the block's feed-forward line runs in a compiled pattern only, so showing it would fail."""
    assert [problem.split(": ", 1)[1] for problem in not_run({("model/transformer", "ffn_residual")}, runs)] == [
        "not run by train, the induction head"]


# ---- one interface for every model: no dispatch on the model's kind past the boundary

MODEL_KINDS = {"CompiledPattern", "HandMade", "InductionHead", "Adder", "Model"}


def kind_tests(sources):
    """``module.function`` of every function that asks ``isinstance(..., <a model kind>)``."""
    found = set()
    for module, text in sources.items():
        for function in ast.walk(ast.parse(text)):
            if isinstance(function, ast.FunctionDef) and any(
                    is_call_to(n, {"isinstance"}) and MODEL_KINDS & {getattr(a, "id", None) for a in ast.walk(n.args[1])}
                    for n in ast.walk(function)):
                found.add(f"{module}.{function.name}")
    return found


def test_only_the_boundary_asks_which_kind_of_model_it_has():
    """Every model runs the same code: one reader at the boundary, read_model, is the one place that reads a model's kind."""
    sources = package_sources()
    assert kind_tests(sources) <= {"model.interface.read_model"}
    # read_model asks isinstance(model, kind), kind one of the four or Model: the only place any kind is asked for
    asks = {f"{module}.{function.name}" for module, text in sources.items() for function in ast.walk(ast.parse(text))
            if isinstance(function, ast.FunctionDef) and any(is_call_to(n, {"read_model"}) for n in ast.walk(function))}
    assert "model.inference.check_context_window" in asks and "patterns.addition.check_model" in asks


def test_the_kind_scan_would_catch_the_old_dispatch():
    """Not vacuous: running.py's run chose a forward pass by the model's kind."""
    old = '''
def run(model, tokens):
    if isinstance(model, CompiledPattern):
        return gpt2(tokens, **model.weights, n_head=model.n_head)
    return gpt(tokens, **model)
'''
    assert kind_tests({"running": old}) == {"running.run"}
