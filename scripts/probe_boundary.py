"""Hostile-user probes of handtf's boundary (issue 28): does each bad or extreme input get a clear answer?

A Python probe is clear when the call either

- raises a ``ValueError`` or ``TypeError`` whose message names the argument
  (``error("x")``), or
- returns what an independent derivation says (``value(predicate)``),

with no warning on the way. Anything else is unclear: another exception
(``OverflowError``, ``MemoryError``, ``IndexError``, ...), a message that does
not name the argument, a warning, a NaN or a wrong value.

A command-line probe is clear when ``python -m handtf ...`` exits with the
documented code (0 for valid input, 2 for a bad argument, 120 for an output
it cannot write, 141 for a closed stdout) and prints no traceback, at most one
line on stderr.

    python scripts/probe_boundary.py            # the handtf on sys.path
    PYTHONPATH=/some/older/checkout python scripts/probe_boundary.py
    python scripts/probe_boundary.py -v         # every unclear probe, with what it did
"""

import os
import signal
import subprocess
import sys
import warnings

import numpy as np

import handtf as h
from handtf.training.adder import train_adder

NAN, INF = float("nan"), float("inf")
BIG = 10**400  # a Python int no float holds
X = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
EYE = {"w": np.eye(2), "b": np.zeros(2)}
QKV = {"w": np.hstack([np.eye(2)] * 3), "b": np.zeros(6)}
RNG = np.random.default_rng(0)


class IntLike(int):
    """An int subclass, as a hostile user (or a library) might pass."""


class FloatLike(float):
    pass


def error(*names):
    return ("error", names)


def value(predicate):
    return ("value", predicate)


def finite(result):
    leaves = result if isinstance(result, (tuple, list)) else [result]
    return all(np.isfinite(np.asarray(leaf, dtype=float)).all() for leaf in leaves if not isinstance(leaf, dict))


def close(expected, tol=1e-6):
    return lambda result: np.allclose(np.asarray(result, dtype=np.float64), expected, rtol=tol, atol=tol)


def config(**kw):
    return h.Config(5, 6, **({"d_model": 8, "n_head": 2, "d_ff": 16, "n_layers": 1} | kw))


CONFIG = config()
PARAMS = h.init_params(CONFIG, seed=0)
F16 = np.float16

PROBES = [
    # numbers: huge ints, subclasses, NaN, bools, strings
    ("layer_norm eps=10**400", lambda: h.layer_norm(X, np.ones(2), np.zeros(2), eps=BIG), error("eps")),
    ("layer_norm eps=-10**400", lambda: h.layer_norm(X, np.ones(2), np.zeros(2), eps=-BIG), error("eps")),
    ("layer_norm eps=True", lambda: h.layer_norm(X, np.ones(2), np.zeros(2), eps=True), error("eps")),
    ("layer_norm eps='1e-5'", lambda: h.layer_norm(X, np.ones(2), np.zeros(2), eps="1e-5"), error("eps")),
    ("layer_norm eps=FloatLike", lambda: h.layer_norm(X, np.ones(2), np.zeros(2), eps=FloatLike(1e-5)), value(finite)),
    ("apply_temperature 10**400", lambda: h.apply_temperature([1.0, 2.0], BIG), error("temperature")),
    ("apply_temperature -inf", lambda: h.apply_temperature([1.0, 2.0], -INF), error("temperature")),
    ("apply_temperature 1e-320", lambda: h.apply_temperature([1.0, 2.0], 1e-320), error("temperature")),
    ("top_p_filter 10**400", lambda: h.top_p_filter([1.0, 2.0], BIG), error("top_p")),
    ("top_p_filter NaN", lambda: h.top_p_filter([1.0, 2.0], NAN), error("top_p")),
    ("top_k_filter 10**400", lambda: h.top_k_filter([1.0, 2.0], BIG), error("top_k")),
    ("top_k_filter IntLike(1)", lambda: h.top_k_filter([1.0, 2.0], IntLike(1)), value(lambda r: r[0] == -INF and r[1] == 2.0)),
    ("top_k_filter np.int8(1)", lambda: h.top_k_filter([1.0, 2.0], np.int8(1)), value(lambda r: r[1] == 2.0)),
    ("sample temperature 10**400", lambda: h.sample([0.0, 1.0], temperature=BIG, rng=RNG), error("temperature")),
    ("beam_search length_penalty 10**400", lambda: h.beam_search(lambda t: np.log([0.5, 0.5]), [0], 2, 3, length_penalty=BIG), error("length_penalty")),
    ("beam_search beam_width 10**400", lambda: h.beam_search(lambda t: np.log([0.5, 0.5]), [0], BIG, 3), value(lambda r: len(r) >= 1)),
    ("greedy_search max_len 10**400", lambda: h.greedy_search(lambda t: np.log([0.5, 0.5]), [0], BIG), error("max_len")),
    ("greedy_search eos 10**400", lambda: h.greedy_search(lambda t: np.log([0.5, 0.5]), [0], 3, eos=BIG), error("eos")),
    ("greedy_search eos -1", lambda: h.greedy_search(lambda t: np.log([0.5, 0.5]), [0], 3, eos=-1), error("eos")),
    ("greedy_search eos 1.0", lambda: h.greedy_search(lambda t: np.log([0.5, 0.5]), [0], 3, eos=1.0), error("eos")),
    ("build_model lg=-10**400", lambda: h.build_model(-BIG), error("lg")),
    ("build_model lg=np.float32(inf)", lambda: h.build_model(np.float32(INF)), error("lg")),
    ("build_model lg='1024'", lambda: h.build_model("1024"), error("lg")),
    ("build_model lg=1e-320", lambda: h.build_model(1e-320), value(lambda m: set(m) == {"wte", "wpe", "blocks"})),
    ("c_attn_weights lg=10**400", lambda: h.c_attn_weights(BIG), error("lg")),
    ("learning_rate step=10**400", lambda: h.training.optimiser.learning_rate(BIG, 8, 4), error("step")),
    ("learning_rate factor=10**400", lambda: h.training.optimiser.learning_rate(1, 8, 4, factor=BIG), error("factor")),
    ("learning_rate d_model=0", lambda: h.training.optimiser.learning_rate(1, 0, 4), error("d_model")),
    ("format_number 10**400", lambda: h.format_number(BIG), error("value")),
    ("format_number digits=10**400", lambda: h.format_number(1.0, digits=BIG), error("digits")),
    ("format_number digits=-1", lambda: h.format_number(1.0, digits=-1), error("digits")),
    ("format_number IntLike", lambda: h.format_number(IntLike(3)), value(lambda r: isinstance(r, str) and "3" in r)),
    ("smoothed_targets smoothing=10**400", lambda: h.smoothed_targets([0], 4, BIG), error("smoothing")),
    ("train factor=-10**400", lambda: h.train("aab", steps=1, factor=-BIG), error("factor")),
    ("train label_smoothing=1", lambda: h.train("aab", steps=1, label_smoothing=1), error("label_smoothing")),
    ("train_seq2seq dropout=1.0", lambda: h.train_seq2seq("copy", steps=1, dropout=1.0), error("dropout")),
    ("train_seq2seq factor=NaN", lambda: h.train_seq2seq("copy", steps=1, factor=NAN), error("factor")),
    ("position_shift_matrix k=10**400", lambda: h.position_shift_matrix(BIG, 4), error("k")),
    ("position_shift_matrix k=-10**400", lambda: h.position_shift_matrix(-BIG, 4), error("k")),
    # counts and sizes: huge, negative, floats, bools, subclasses
    ("causal_mask(10**400)", lambda: h.causal_mask(BIG), error("n_seq")),
    ("causal_mask(-1)", lambda: h.causal_mask(-1), error("n_seq")),
    ("causal_mask(True)", lambda: h.causal_mask(True), error("n_seq")),
    ("causal_mask(IntLike(2))", lambda: h.causal_mask(IntLike(2)), value(lambda m: m.shape == (2, 2) and m[0, 1] < -1e8 and m[1, 0] == 0)),
    ("causal_mask(np.int64(3))", lambda: h.causal_mask(np.int64(3)), value(lambda m: m.shape == (3, 3))),
    ("causal_mask(3.0)", lambda: h.causal_mask(3.0), error("n_seq")),
    ("positional_encoding(10**400, 4)", lambda: h.positional_encoding(BIG, 4), error("n_pos")),
    ("positional_encoding(4, 10**6)", lambda: h.positional_encoding(4, 10**6), error("d_model")),
    ("positional_encoding(4, -2)", lambda: h.positional_encoding(4, -2), error("d_model")),
    ("padding_mask n_q=10**12", lambda: h.padding_mask([False, True], n_q=10**12), error("n_q")),
    ("padding_mask n_q=0", lambda: h.padding_mask([False, True], n_q=0), error("n_q")),
    ("smoothed_targets n_vocab=10**400", lambda: h.smoothed_targets([0], BIG), error("n_vocab")),
    ("smoothed_targets n_vocab=0", lambda: h.smoothed_targets([0], 0), error("n_vocab")),
    ("embedding_backward n_vocab=10**12", lambda: h.embedding_backward(np.ones((1, 2)), [0], 10**12), error("n_vocab")),
    ("dropout_mask shape=(10**400,)", lambda: h.training.optimiser.dropout_mask((BIG,), 0.5, RNG), error("shape")),
    ("dropout_mask shape=2.5", lambda: h.training.optimiser.dropout_mask(2.5, 0.5, RNG), error("shape")),
    ("dropout_mask rng=0", lambda: h.training.optimiser.dropout_mask((2,), 0.5, 0), error("rng")),
    ("init_weights n_embd=10**6", lambda: h.training.trainer.init_weights(0, n_embd=10**6), error("n_embd")),
    ("complete max_new_tokens=10**400", lambda: h.complete("a", BIG), error("max_new_tokens")),
    ("complete max_new_tokens=IntLike(2)", lambda: h.complete("a", IntLike(2)), value(lambda r: r == h.complete("a", 2))),
    ("verify max_len=-10**400", lambda: h.verify(-BIG), error("max_len")),
    ("verify max_len=3.0", lambda: h.verify(3.0), error("max_len")),
    ("valid_contexts max_len=10**400", lambda: h.valid_contexts(BIG), error("max_len")),
    ("train steps=10**400", lambda: h.train("aab", steps=BIG), error("steps")),
    ("train n_embd=10**400", lambda: h.train("aab", steps=1, n_embd=BIG), error("n_embd")),
    ("train n_head=0", lambda: h.train("aab", steps=1, n_head=0), error("n_head")),
    ("train_seq2seq batch_size=10**400", lambda: h.train_seq2seq("copy", steps=1, batch_size=BIG), error("batch_size")),
    ("train_seq2seq length=10**400", lambda: h.train_seq2seq("copy", steps=1, length=BIG), error("length")),
    ("train_seq2seq n_test=10**400", lambda: h.train_seq2seq("copy", steps=1, n_test=BIG), error("n_test")),
    ("init_params of d_model=10**400", lambda: h.init_params(h.Config(5, 6, d_model=BIG, n_head=2, d_ff=8, n_layers=1), seed=0), error("config", "d_model")),
    ("Config vocab_src=-1", lambda: h.Config(-1, 6, d_model=8, n_head=2, d_ff=8, n_layers=1), error("vocab_src")),
    ("Config n_layers=2.0", lambda: h.Config(5, 6, d_model=8, n_head=2, d_ff=8, n_layers=2.0), error("n_layers")),
    ("init_params d_ff=10**9", lambda: h.init_params(config(d_ff=10**9), seed=0), error("config", "parameters")),
    ("compile_pattern n_ctx=10**400", lambda: h.compile_pattern("aab", n_ctx=BIG), error("n_ctx")),
    ("compile_pattern n_ctx=2.0", lambda: h.compile_pattern("aab", n_ctx=2.0), error("n_ctx")),
    ("phases k=10**400", lambda: h.phases("aab", BIG), error("k")),
    ("describe max_rows=0", lambda: h.describe(h.compile_pattern("aab"), max_rows=0), error("max_rows")),
    ("induction_head n_ctx=10**400", lambda: h.induction_head("abc", n_ctx=BIG), error("n_ctx")),
    ("train_induction steps=10**400", lambda: h.train_induction(steps=BIG), error("steps")),
    ("train_induction seed=-1", lambda: h.train_induction(seed=-1), error("seed")),
    ("untok(10**400)", lambda: h.untok(BIG), error("token")),
    ("untok(IntLike(1))", lambda: h.untok(IntLike(1)), value(lambda r: r == "b")),
    # seeds
    ("init_params seed=-1", lambda: h.init_params(CONFIG, seed=-1), error("seed")),
    ("init_params seed=10**400", lambda: h.init_params(CONFIG, seed=BIG), value(lambda p: "encoder" in p)),
    ("init_params seed=1.5", lambda: h.init_params(CONFIG, seed=1.5), error("seed")),
    ("init_params seed='0'", lambda: h.init_params(CONFIG, seed="0"), error("seed")),
    ("init_weights seed=-5", lambda: h.training.trainer.init_weights(-5), error("seed")),
    ("train seed=-1", lambda: h.train("aab", steps=1, seed=-1), error("seed")),
    ("train seed=True", lambda: h.train("aab", steps=1, seed=True), error("seed")),
    # arrays: ragged, subclasses, object, complex, strings, empty, wrong dims
    ("softmax ragged", lambda: h.softmax([[1.0], [1.0, 2.0]]), error("x")),
    ("softmax np.matrix", lambda: h.softmax(np.matrix([[1.0, 2.0]])), error("x")),
    ("softmax masked", lambda: h.softmax(np.ma.masked_array([1.0, 2.0], mask=[0, 1])), error("x")),
    ("softmax of dicts", lambda: h.softmax([{}, {}]), error("x")),
    ("softmax of None", lambda: h.softmax(None), error("x")),
    ("softmax of a scalar", lambda: h.softmax(3.0), error("x")),
    ("gelu complex", lambda: h.gelu(np.array([1j])), error("x")),
    ("gelu strings", lambda: h.gelu(np.array(["1"])), error("x")),
    ("gelu np.matrix", lambda: h.gelu(np.matrix([[1.0]])), error("x")),
    ("gelu list with 10**400", lambda: h.gelu([BIG]), error("x")),
    ("gelu datetime", lambda: h.gelu(np.array(["2020-01-01"], dtype="datetime64[D]")), error("x")),
    ("layer_norm ragged", lambda: h.layer_norm([[1.0, 2.0], [3.0]], np.ones(2), np.zeros(2)), error("x")),
    ("layer_norm g masked", lambda: h.layer_norm(X, np.ma.ones(2), np.zeros(2)), error("g")),
    ("linear w np.matrix", lambda: h.linear(X, np.matrix(np.eye(2)), np.zeros(2)), error("w")),
    ("linear b a scalar", lambda: h.linear(X, np.eye(2), 0.0), error("b")),
    ("attention q ragged", lambda: h.attention([[1.0], [1.0, 2.0]], X, X), error("q")),
    ("attention mask None", lambda: h.attention(X, X, X, None), error("mask")),
    ("attention mask ragged", lambda: h.attention(X, X, X, [[0.0], [0.0, 0.0]]), error("mask")),
    ("attention v 1-d", lambda: h.attention(X, X, np.ones(3)), error("v")),
    ("attend_heads mask 1-d", lambda: h.attend_heads(X, X, X, 1, np.zeros(3)), error("mask")),
    ("split_heads n_head=10**400", lambda: h.split_heads(X, BIG), error("n_head")),
    ("mha c_attn a list", lambda: h.mha(X, [1, 2], EYE, 1), error("c_attn")),
    ("mha c_attn w ragged", lambda: h.mha(X, {"w": [[1.0], [1.0, 2.0]], "b": np.zeros(6)}, EYE, 1), error("c_attn")),
    ("ffn c_fc None", lambda: h.ffn(X, None, EYE), error("c_fc")),
    ("rope positions 10**400", lambda: h.rope(np.ones((1, 2)), [BIG]), error("positions")),
    ("rope positions ragged", lambda: h.rope(np.ones((2, 2)), [[0], [0, 1]]), error("positions")),
    ("cross_entropy targets ragged", lambda: h.cross_entropy(np.zeros((2, 3)), [[0], [0, 1]]), error("targets")),
    ("cross_entropy targets 10**400", lambda: h.cross_entropy(np.zeros((1, 3)), [BIG]), error("targets")),
    ("cross_entropy targets np.matrix", lambda: h.cross_entropy(np.zeros((1, 3)), np.matrix([[0]])), error("targets")),
    ("gpt inputs ragged", lambda: h.gpt([[0, 1], [0]], **h.MODEL), error("inputs")),
    ("gpt inputs 10**400", lambda: h.gpt([BIG], **h.MODEL), error("inputs")),
    ("gpt inputs masked", lambda: h.gpt(np.ma.masked_array([0, 1]), **h.MODEL), error("inputs")),
    ("gpt wte np.matrix", lambda: h.gpt([0], np.matrix(h.MODEL["wte"]), h.MODEL["wpe"], h.MODEL["blocks"]), error("wte")),
    ("gpt blocks a dict", lambda: h.gpt([0], h.MODEL["wte"], h.MODEL["wpe"], {"attn": {}}), error("blocks")),
    ("gpt2 n_head 10**400", lambda: h.gpt2([0], **h.MODEL, n_head=BIG), error("n_head")),
    ("loss_and_grads weights a list", lambda: h.loss_and_grads([1, 2], [0], [0]), error("weights")),
    ("loss_and_grads targets ragged", lambda: h.loss_and_grads(h.MODEL, [[0, 1], [0, 1]], [[0], [0, 1]]), error("targets")),
    ("next_token_logits lengths ragged", lambda: h.next_token_logits([0, 1], [[1], [1, 2]]), error("context_lengths")),
    ("next_token_logits lengths 10**400", lambda: h.next_token_logits([0, 1], [BIG]), error("context_lengths")),
    ("encode src 10**400", lambda: h.encode([BIG], PARAMS, CONFIG), error("src")),
    ("encode src_mask ragged", lambda: h.encode([1, 2], PARAMS, CONFIG, [[0.0], [0.0, 0.0]]), error("src_mask")),
    ("decode memory ragged", lambda: h.decode([0], [[0.0] * 8, [0.0]], PARAMS, CONFIG), error("memory")),
    ("greedy_decode bos 10**400", lambda: h.greedy_decode(PARAMS, CONFIG, [1, 2], bos=BIG, eos=1, max_len=3), error("bos")),
    ("greedy_decode src 2-d", lambda: h.greedy_decode(PARAMS, CONFIG, [[1, 2]], bos=0, eos=1, max_len=3), error("src")),
    ("greedy_decode max_len 10**400", lambda: h.greedy_decode(PARAMS, CONFIG, [1, 2], bos=0, eos=1, max_len=BIG), error("max_len")),
    ("seq2seq_loss_and_grads src floats", lambda: h.seq2seq.training.seq2seq_loss_and_grads(PARAMS, CONFIG, [[1.0]], [[0]], [[1]]), error("src")),
    ("seq2seq_loss_and_grads src ragged", lambda: h.seq2seq.training.seq2seq_loss_and_grads(PARAMS, CONFIG, [[1], [1, 2]], [[0]], [[1]]), error("src")),
    ("format_matrix ragged", lambda: h.format_matrix([[1.0], [1.0, 2.0]]), error("matrix")),
    ("format_matrix masked", lambda: h.format_matrix(np.ma.ones((2, 2))), error("matrix")),
    ("show rows a number", lambda: h.show([[1.0, 2.0]], rows=3), error("rows")),
    ("tokenize text None", lambda: h.tokenize(None), error("text")),
    ("tokenize chars a number", lambda: h.tokenize("ab", 3), error("chars")),
    ("predict context bytes", lambda: h.predict(b"ab"), error("context")),
    ("evaluate text None", lambda: h.evaluate(None), error("text")),
    ("compile_pattern pattern bytes", lambda: h.compile_pattern(b"ab"), error("pattern")),
    ("compile_pattern dtype 'fast'", lambda: h.compile_pattern("ab", dtype="fast"), error("dtype")),
    ("adam_step step=10**400", lambda: h.training.optimiser.adam_step([np.zeros(2)], [np.ones(2)], [(np.zeros(2), np.zeros(2))], BIG, 0.1), error("step")),
    ("adam_step grads ragged", lambda: h.training.optimiser.adam_step([np.zeros(2)], [[1.0, [2.0]]], [(np.zeros(2), np.zeros(2))], 1, 0.1), error("grads")),
    ("adam_step lr NaN", lambda: h.training.optimiser.adam_step([np.zeros(2)], [np.ones(2)], [(np.zeros(2), np.zeros(2))], 1, NAN), error("lr")),
    ("induction_attention text 10**400", lambda: h.induction_attention(h.induction_head(), BIG), error("text")),
    ("verify_induction dtypes 'x'", lambda: h.verify_induction(dtypes="float64"), error("dtypes")),
    # extreme finite values: right, or a clear error naming the argument
    ("layer_norm [1e200,-1e200]", lambda: h.layer_norm([[1e200, -1e200]], np.ones(2), np.zeros(2)), value(close([[1, -1]], 1e-3))),
    ("layer_norm float32 [1e30,-1e30]", lambda: h.layer_norm(np.array([[1e30, -1e30]], np.float32), np.ones(2, np.float32), np.zeros(2, np.float32)), value(close([[1, -1]], 1e-3))),
    ("layer_norm float16 [6e4,-6e4]", lambda: h.layer_norm(np.array([[6e4, -6e4]], F16), np.ones(2, F16), np.zeros(2, F16)), value(close([[1, -1]], 1e-2))),
    ("layer_norm [1e-300, 2e-300]", lambda: h.layer_norm([[1e-300, 2e-300]], np.ones(2), np.zeros(2), eps=0.0), value(close([[-1, 1]], 1e-6))),
    ("layer_norm float64 max", lambda: h.layer_norm([[1.7e308, -1.7e308, 0.0]], np.ones(3), np.zeros(3)), value(close([[1.5**0.5, -(1.5**0.5), 0.0]], 1e-3))),  # mean 0, std m*sqrt(2/3)
    ("gelu float16 [300,-300]", lambda: h.gelu(np.array([300.0, -300.0], F16)), value(close([300, 0], 1e-2))),
    ("gelu [1e308,-1e308]", lambda: h.gelu(np.array([1e308, -1e308])), value(close([1e308, 0], 1e-6))),
    ("gelu_backward float32 [1e30,-1e30]", lambda: h.gelu_backward(np.ones(2, np.float32), np.array([1e30, -1e30], np.float32)), value(close([1, 0], 1e-3))),
    ("gelu_backward float16 [-300]", lambda: h.gelu_backward(np.ones(1, F16), np.array([-300.0], F16)), value(close([0], 1e-3))),
    ("relu_backward [1e308]", lambda: h.relu_backward([1.0], [1e308]), value(close([1]))),
    ("softmax float16 [6e4,-6e4]", lambda: h.softmax(np.array([6e4, -6e4], F16)), value(close([1, 0]))),
    ("softmax [1e308,-1e308]", lambda: h.softmax([1e308, -1e308]), value(close([1, 0]))),
    ("log_softmax [1e308,-1e308]", lambda: h.log_softmax([1e308, -1e308]), value(lambda r: r[0] == 0.0 and r[1] == -INF or (r[0] == 0 and r[1] < -1e307))),
    ("softmax float32 [3e38,-3e38]", lambda: h.softmax(np.array([3e38, -3e38], np.float32)), value(close([1, 0]))),
    ("attention scores near 1e200", lambda: h.attention(np.array([[1e100, 0.0]]), np.array([[1e100, 0.0], [-1e100, 0.0]]), np.array([[1.0], [2.0]])), value(close([[1.0]]))),
    ("attention_weights float16 q=[[300]]", lambda: h.attention_weights(np.array([[300.0]], F16), np.array([[300.0], [-300.0]], F16)), error("q", "k")),
    ("attention q·k overflows float64", lambda: h.attention(np.array([[1e200, 0.0]]), np.array([[1e200, 0.0]]), np.array([[1.0]])), error("q", "k")),
    ("cross_entropy [[1e308,-1e308]] target 0", lambda: h.cross_entropy([[1e308, -1e308]], [0]), value(lambda r: r == 0.0)),
    ("cross_entropy float16 far apart target 1", lambda: h.cross_entropy(np.array([[6e4, -6e4]], F16), [1]), error("logits")),
    ("cross_entropy [[1e308,-1e308]] target 1", lambda: h.cross_entropy([[1e308, -1e308]], [1]), error("logits")),
    ("soft_cross_entropy [[1e308,-1e308]] half", lambda: h.soft_cross_entropy([[1e308, -1e308]], [[0.5, 0.5]]), value(lambda r: r == 1e308)),
    ("soft_cross_entropy float32 [[3e38,-3e38]] on the low one", lambda: h.soft_cross_entropy(np.array([[3e38, -3e38]], np.float32), np.array([[0.0, 1.0]], np.float32)), error("logits")),
    ("cross_entropy_backward [[1e308,-1e308]]", lambda: h.cross_entropy_backward([[1e308, -1e308]], [[0.0, 1.0]]), value(close([[1, -1]]))),
    ("linear overflows float16", lambda: h.linear(np.array([[6e4, 6e4]], F16), np.ones((2, 1), F16), np.zeros(1, F16)), error("x", "w")),
    ("gpt float16 model that overflows", lambda: h.gpt([[0, 1, 1, 1, 1]], **overflowing()), error("logits", "weights")),
    ("gpt2 float16 model that overflows", lambda: h.gpt2((np.arange(32)[:, None] >> np.arange(5)) & 1, **overflowing(), n_head=1), error("logits", "weights")),
    ("loss_and_grads model that overflows", lambda: h.loss_and_grads(overflowing(), (np.arange(32)[:, None] >> np.arange(5)) & 1, (np.arange(32)[:, None] >> np.arange(5)) & 1), error("loss", "weights")),
    ("train factor 1e300", lambda: h.train("aab", steps=30, factor=1e300), error("factor", "learning rate", "weights")),
    ("build_model lg=1e300", lambda: h.verify(10, h.build_model(1e300)).correct, value(lambda r: r == 27)),
    ("build_model lg=1e-300", lambda: h.build_model(1e-300), value(lambda m: np.isfinite(m["wte"]).all())),
    ("smoothed_targets smoothing 1e-320", lambda: h.smoothed_targets([0], 2, 1e-320), value(close([[1, 0]]))),
    # state: a failing call changes nothing
    ("adam_step read-only param", lambda: adam_read_only(), value(lambda r: r)),
    ("adam_step a list param", lambda: h.training.optimiser.adam_step([[0.0, 0.0]], [np.ones(2)], [(np.zeros(2), np.zeros(2))], 1, 0.1), error("params")),
    # callbacks
    ("greedy_search step_fn returns a str", lambda: h.greedy_search(lambda t: "ab", [0], 3), error("step_fn")),
    ("greedy_search step_fn returns ragged", lambda: h.greedy_search(lambda t: [[0.0], [0.0, 1.0]], [0], 3), error("step_fn")),
    ("greedy_search step_fn shrinks", lambda: h.greedy_search(lambda t: np.zeros(3 - len(t)), [0], 3), error("step_fn")),
    ("train progress not callable", lambda: h.train("aab", steps=1, progress=3), error("progress")),
    ("ffn activation np.tanh", lambda: h.ffn(X, EYE, EYE, activation=np.tanh), value(finite)),
    ("describe of a str", lambda: h.describe("aab"), error("model")),
    ("trace model a list", lambda: h.trace("ab", [1, 2]), error("model")),
    ("exact_match of a dict", lambda: h.seq2seq.training.exact_match({}), error("result")),
    ("task_pairs rng=None", lambda: h.seq2seq.training.task_pairs("copy", 2, 3, 4, None), error("rng")),
    ("task_pairs n_pairs=10**400", lambda: h.seq2seq.training.task_pairs("copy", BIG, 3, 4, RNG), error("n_pairs")),
    ("task_pairs length=10**400", lambda: h.seq2seq.training.task_pairs("copy", 2, BIG, 4, RNG), error("length")),
    # issue 42: shared state, silent answers, unbounded work
    ("MODEL's bias written", lambda: write_refused(lambda: h.MODEL["blocks"][0]["attn"]["c_proj"]["b"].__setitem__(5, 0.0)), value(lambda r: r)),
    ("GPT2_SMALL's n_head written", lambda: write_refused(lambda: h.GPT2_SMALL.__setitem__("n_head", 1)), value(lambda r: r)),
    ("split_heads result written", lambda: written_result_leaves_x(lambda x: h.split_heads(x, 2)), value(lambda r: r)),
    ("verify_induction dtypes twice", lambda: h.verify_induction(h.induction_head("ab", n_ctx=4), (np.float64, np.float64)), error("dtypes")),
    ("adam_step m is v", lambda: h.training.optimiser.adam_step([np.zeros(2)], [np.ones(2)], [(M, M)], 1, 0.1), error("moments")),
    ("attention scores + mask overflow", lambda: h.attention(np.array([[1e154]]), np.array([[-1e154], [-1e154]]), np.eye(2), np.full((1, 2), -1e308)), error("mask")),
    ("ffn activation giving NaN", lambda: h.ffn(X, EYE, EYE, activation=lambda x: x * NAN), error("activation")),
    ("softmax_backward negative probs", lambda: h.softmax_backward(np.ones(2), np.array([-0.5, 1.5])), error("probs")),
    ("dropout training='no'", lambda: h.training.optimiser.dropout(np.ones(4), 0.5, RNG, training="no"), error("training")),
    ("beam_search length_penalty 1e6", lambda: h.beam_search(lambda t: np.log([0.5, 0.5]), [0], 2, 3, length_penalty=1e6), error("length_penalty")),
    ("cross_entropy target of probability 0", lambda: h.cross_entropy([[0.0, -INF]], [1]), error("target")),
    ("context_needed period 20,000", lambda: h.context_needed("a" * 19999 + "b"), error("pattern")),
    ("phases 10,000 x 100,000", lambda: h.phases("a" * 9999 + "b", 100000), error("phases", "k")),
    ("induction_head 20,000 characters", lambda: h.induction_head("x" * 20000), error("alphabet")),
    # issue 50: a fresh set of the adder's probes, of the kinds the issue found (none of its own cases)
    ("add '0x10'", lambda: h.adder(3).add("0x10", 1), error("a")),
    ("add '1e3'", lambda: h.adder(3).add("1e3", 1), error("a")),
    ("add ' '", lambda: h.adder(3).add(1, " "), error("b")),
    ("add an Arabic-Indic digit", lambda: h.adder(3).add("\u0663", 1), error("a")),
    ("add np.int64(-1)", lambda: h.adder(3).add(np.int64(-1), 1), error("a")),
    ("add the largest uint64", lambda: h.adder(10).add(np.uint64(2**64 - 1), 1), error("a")),
    ("add 10**4300", lambda: h.adder(3).add(10**4300, 0), error("a")),
    ("answer 10**10000", lambda: h.adder(3).answer(10**10000), error("total")),
    ("add '+7'", lambda: h.adder(3).add("+7", 1), error("a")),
    ("add np.uint64 of 10 digits", lambda: h.adder(10).add(np.uint64(9_999_999_999), np.int16(1)), value(lambda r: r == 10**10)),
    ("verify_pairs at 20 digits", lambda: h.patterns.adderboard.verify_pairs(h.adder(20), [1], [1]), error("n_digits")),
    ("verify_pairs float64 and np.dtype float64", lambda: h.patterns.adderboard.verify_pairs(h.adder(1), [1], [1], dtypes=[np.float64, np.dtype("float64")]), error("dtypes")),
    ("verify_adder 'float32' and 'f4'", lambda: h.verify_adder(h.adder(1), dtypes=("float32", "f4")), error("dtypes")),
    ("verify_adder numpy count and seed", lambda: h.verify_adder(h.adder(4), count=np.int64(3), seed=np.uint8(7)), value(lambda r: r.pairs == 13 and r.passed and r.what.endswith("seed 7"))),
    ("adderboard_pairs np.int32 seed", lambda: h.adderboard_pairs(4, 5, np.int32(2025)) == h.adderboard_pairs(4, 5, 2025), value(lambda r: r is True)),
    ("train_adder on_step a str", lambda: train_adder(n_digits=2, steps=1, on_step="print"), error("on_step")),
    ("MODEL's wpe made writeable", lambda: write_refused(lambda: h.MODEL["wpe"].setflags(write=True)), value(lambda r: r)),
    ("GPT2_SMALL by dict.__setitem__", lambda: storage_write_ignored(h.GPT2_SMALL, "n_head", 1), value(lambda r: r)),
    ("MODEL by dict.__setitem__", lambda: storage_write_ignored(h.MODEL, "wte", np.zeros((2, 8))), value(lambda r: r)),
]


def storage_write_ignored(tree, key, new):
    """``dict.__setitem__`` gets past a read-only dict's refusals: what it writes is never read, no answer changes."""
    old, before = tree[key], (h.evaluate().correct, h.compile_pattern("aaab").n_head, h.complete("a"))
    dict.__setitem__(tree, key, new)
    try:
        return tree[key] is old and (h.evaluate().correct, h.compile_pattern("aaab").n_head, h.complete("a")) == before
    finally:
        dict.__setitem__(tree, key, old)

M = np.zeros(2)


def write_refused(write):
    """A write into the package's shared state raises and changes no answer."""
    before = h.evaluate().correct, h.compile_pattern("aaab").n_head
    try:
        write()
    except (TypeError, ValueError, AttributeError):
        return (h.evaluate().correct, h.compile_pattern("aaab").n_head) == before
    return False


def written_result_leaves_x(call):
    x = np.arange(8.0).reshape(2, 4)
    call(x)[...] = -1
    return bool((x == np.arange(8.0).reshape(2, 4)).all())


def overflowing():
    with np.errstate(over="ignore"):
        return h.build_model.__wrapped__(40_000.0, np.float16)


def adam_read_only():
    param, m, v = np.zeros(3), np.zeros(3), np.zeros(3)
    param.setflags(write=False)
    try:
        h.training.optimiser.adam_step([param], [np.ones(3)], [(m, v)], 1, 0.1)
    except (ValueError, TypeError) as error:
        return "params" in str(error) and not m.any() and not v.any()
    return False


class TooSlow(Exception):
    pass


def alarm(signum, frame):
    raise TooSlow(f"no answer in {LIMIT} s")


LIMIT = 20  # seconds a probe may take


def run(call, expect):
    """``(clear, what happened)``"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # np.matrix's own, when the probe builds one
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(LIMIT)
        try:
            result = call()
        except (ValueError, TypeError) as error:
            message = str(error)
            names = expect[1] if expect[0] == "error" else ()
            named = any(name in message for name in names)
            return (named and not caught), f"{type(error).__name__}: {message[:150]}"
        except BaseException as error:  # noqa: BLE001  (anything else is what the probe looks for)
            return False, f"{type(error).__name__}: {str(error)[:150]}"
        finally:
            signal.alarm(0)
    if caught:
        return False, f"warning: {caught[0].message}"
    if expect[0] == "error":
        return False, f"no error, returned {str(result)[:80]}"
    try:
        right = bool(expect[1](result))
    except Exception as error:  # noqa: BLE001
        right = False
        result = f"{result!r:.60} ({type(error).__name__} when checking)"
    return right, f"returned {str(result)[:80]}"


CLI = [
    # (label, arguments, stdin/stdout setup, allowed exit codes)
    ("complete -n 10**400", ["complete", "a", "-n", str(BIG)[:500]], None, {2}),
    ("complete -n -1", ["complete", "a", "-n", "-1"], None, {2}),
    ("complete -n 1e3", ["complete", "a", "-n", "1e3"], None, {2}),
    ("complete -n ' 3'", ["complete", "a", "-n", " 3"], None, {0, 2}),
    ("complete -n ３ (fullwidth)", ["complete", "a", "-n", "３"], None, {0, 2}),
    ("complete -n 0x10", ["complete", "a", "-n", "0x10"], None, {2}),
    ("complete -n 1_000", ["complete", "a", "-n", "1_000"], None, {0, 2}),
    ("complete empty context", ["complete", ""], None, {2}),
    ("complete context with c", ["complete", "abc"], None, {2}),
    ("complete context with a NUL-like char", ["complete", "a\x7f"], None, {2}),
    ("complete context of 10**5 chars", ["complete", "aab" * 33333], None, {0, 2}),
    ("predict surrogate escape", ["predict", "a\udcff"], None, {2}),
    ("predict emoji", ["predict", "a😀"], None, {2}),
    ("predict --explain empty", ["predict", "", "--explain"], None, {2}),
    ("evaluate 'aab'", ["evaluate", "aab"], None, {2}),
    ("evaluate text with spaces", ["evaluate", "aab aab aab"], None, {2}),
    ("verify --max-len 10**400", ["verify", "--max-len", str(BIG)[:500]], None, {2}),
    ("verify --max-len nan", ["verify", "--max-len", "nan"], None, {2}),
    ("verify --pattern ''", ["verify", "--pattern", ""], None, {2}),
    ("verify --pattern with a space", ["verify", "--pattern", "a b"], None, {2}),
    ("compile --n-ctx 10**400", ["compile", "aab", "--n-ctx", str(BIG)[:500]], None, {2}),
    ("compile --n-ctx -1", ["compile", "aab", "--n-ctx", "-1"], None, {2}),
    ("compile a pattern of 400 characters", ["compile", "".join(chr(0x4E00 + i) for i in range(400))], None, {2}),
    ("compile --max-len 0", ["compile", "aab", "--max-len", "0"], None, {2}),
    ("train --steps 10**400", ["train", "--steps", str(BIG)[:500]], None, {2}),
    ("train --steps 0", ["train", "--steps", "0"], None, {2}),
    ("train --seed -1", ["train", "--seed", "-1"], None, {2}),
    ("train --seed 10**400", ["train", "--seed", str(BIG)[:500], "--steps", "1"], None, {0, 2}),
    ("train --heads 3", ["train", "--heads", "3"], None, {2}),
    ("train --task sort", ["train", "--task", "sort"], None, {2}),
    ("train pattern abc", ["train", "abc"], None, {2}),
    ("induction --alphabet ''", ["induction", "--alphabet", ""], None, {2}),
    ("induction --alphabet aa", ["induction", "--alphabet", "aa"], None, {2}),
    ("induction --n-ctx 10**400", ["induction", "--n-ctx", str(BIG)[:500]], None, {2}),
    ("unknown command", ["fly"], None, {2}),
    ("no command", [], None, {0, 2}),
    ("closed stdout descriptor", ["complete", "a", "-n", "5"], "close-stdout", {0, 120, 141}),
    ("stdout /dev/full", ["complete", "a", "-n", "5"], "full-stdout", {120}),
    ("ascii-only output encoding", ["compile", "阿波"], "ascii", {0, 1, 120}),
    ("closed stderr and a bad argument", ["complete", "a", "-n", "-1"], "close-stderr", {2}),
    ("closed stdin", ["complete", "a"], "close-stdin", {0}),
    ("a huge -n on predict", ["predict", "a", "-n", "5"], None, {2}),
    ("train --task copy --heads 4", ["train", "--task", "copy", "--heads", "4", "--steps", "1"], None, {2}),
    ("train abab --task copy", ["train", "abab", "--task", "copy", "--steps", "1"], None, {2}),
    ("compile aaab --max-len 2", ["compile", "aaab", "--max-len", "2"], "no-stdout", {2}),
    ("add '' 1", ["add", "", "1"], None, {2}),
    ("add -0 1", ["add", "-0", "1"], None, {2}),
    ("add a full-width 2", ["add", "1", "\uff12"], None, {2}),
    ("add 5,000 nines", ["add", "9" * 5000, "1"], None, {2}),
    ("adder --digits 1_0", ["adder", "--digits", "1_0"], None, {2}),
    ("adder --digits ' 3 '", ["adder", "--digits", " 3 "], None, {2}),
    ("adder --digits of 5,000 digits", ["adder", "--digits", "9" * 5000], None, {2}),
    ("induction --n-ctx an Arabic-Indic 3", ["induction", "--n-ctx", "\u0663"], None, {2}),
    ("train --steps 1_000", ["train", "--steps", "1_000"], None, {2}),
    ("complete -n +5", ["complete", "a", "-n", "+5"], None, {2}),
    ("induction --alphabet of 40,000 characters", ["induction", "--alphabet", "".join(map(chr, range(0x4E00, 0x4E00 + 20000))) * 2], None, {2}),
]


def run_cli(arguments, setup, codes):
    command = [sys.executable, "-m", "handtf", *arguments]
    env = os.environ | {"PYTHONIOENCODING": "ascii:strict"} if setup == "ascii" else dict(os.environ)
    shell_redirect = {"close-stdout": ">&-", "full-stdout": ">/dev/full", "close-stderr": "2>&-", "close-stdin": "<&-"}.get(setup)
    if shell_redirect:
        quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in command)
        stderr_file = "/dev/null" if setup == "close-stderr" else None
        done = subprocess.run(
            ["bash", "-c", f"{quoted} {shell_redirect}"], capture_output=stderr_file is None, text=True, env=env,
            errors="replace", timeout=120,
        )
    else:
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=env, errors="replace", timeout=120)
        except subprocess.TimeoutExpired:
            return False, "no answer in 120 s"
    stderr = done.stderr or ""
    clear = done.returncode in codes and "Traceback" not in stderr and len(stderr.strip().splitlines()) <= 1
    clear = clear and not (setup == "no-stdout" and done.stdout)  # a refusal prints nothing before it
    return clear, f"exit {done.returncode}, stderr {stderr.strip()[:150]!r}"


def main(verbose=False):
    results = []
    for label, call, expect in PROBES:
        results.append((label, *run(call, expect)))
        if verbose and not results[-1][1]:
            print(f"  UNCLEAR {label}: {results[-1][2]}", flush=True)
    unclear = [(label, what) for label, clear, what in results if not clear]
    print(f"Python: {len(results) - len(unclear)} of {len(results)} probes clear", flush=True)
    cli = [(label, *run_cli(arguments, setup, codes)) for label, arguments, setup, codes in CLI]
    cli_unclear = [(label, what) for label, clear, what in cli if not clear]
    print(f"command line: {len(cli) - len(cli_unclear)} of {len(cli)} probes clear")
    if verbose:
        for label, what in cli_unclear:
            print(f"  UNCLEAR {label}: {what}")


if __name__ == "__main__":
    main(verbose="-v" in sys.argv)
