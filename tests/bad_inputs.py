"""Bad inputs a new user might try, each with the error handtf gives (issue 11, item 4).

Each case is (label, call, exception type, regex the message must match). The
message names what is wrong and what is allowed. ``test_bad_inputs.py`` runs
them all; the same table, run against an older handtf, measures how many got a
clear error there.
"""

import numpy as np

import handtf as h
from handtf.training.adder import train_adder

NAN, INF = float("nan"), float("inf")
X = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])  # [3, 2]
EYE = {"w": np.eye(2), "b": np.zeros(2)}
M2 = np.zeros(2)  # one array passed as both of Adam's moments
QKV = {"w": np.hstack([np.eye(2)] * 3), "b": np.zeros(6)}


def model_with(path, value):
    """MODEL with one entry replaced (``path`` of keys and indices) or deleted (``value=KeyError``)."""
    model = {"wte": h.MODEL["wte"], "wpe": h.MODEL["wpe"], "blocks": [{"attn": dict(h.MODEL["blocks"][0]["attn"])}]}
    node = model
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return model


def overflowing_float16_model():
    """Finite float16 weights whose logits overflow: lg = 40,000 makes logits near 2 * lg > 65,504."""
    with np.errstate(over="ignore"):
        model = h.build_model.__wrapped__(40_000.0, np.float16)
    return model


CONFIG = h.Config(5, 6, d_model=8, n_head=2, d_ff=16, n_layers=1)
PARAMS = h.init_params(CONFIG, seed=0)


def params_without(*path):
    import copy

    params = copy.deepcopy(PARAMS)
    node = params
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return params


def log_probs_with_nan(tokens):
    return [0.0, NAN]


CASES = [
    # activations
    ("softmax of an empty row", lambda: h.softmax([]), ValueError, r"^x must have no empty axis, got shape \(0,\)$"),
    ("softmax of NaN", lambda: h.softmax([0.0, NAN]), ValueError, r"x must not contain NaN or \+inf"),
    ("softmax of +inf", lambda: h.softmax([INF, 0.0]), ValueError, r"x must not contain NaN or \+inf"),
    ("softmax of text", lambda: h.softmax("ab"), TypeError, r"x must be an array of real numbers"),
    ("softmax of a ragged list", lambda: h.softmax([[1.0, 2.0], [3.0]]), TypeError, r"x must be an array of real numbers"),
    ("softmax of booleans", lambda: h.softmax([True, False]), TypeError, r"got bool values"),
    ("log_softmax of NaN", lambda: h.log_softmax([NAN]), ValueError, r"NaN"),
    ("gelu of NaN", lambda: h.gelu([1.0, NAN]), ValueError, r"x must not contain NaN or inf"),
    ("relu of text", lambda: h.relu(["a"]), TypeError, r"x must be an array of real numbers"),
    ("relu of complex numbers", lambda: h.relu(np.array([1j])), TypeError, r"complex128"),
    # layers
    ("layer_norm, eps = 0 on a constant row", lambda: h.layer_norm([[1.0, 1.0]], [1.0, 1.0], [0.0, 0.0], eps=0), ValueError, r"eps = 0 .* constant row"),
    ("layer_norm, g of the wrong shape", lambda: h.layer_norm(X, np.ones(3), np.zeros(2)), ValueError, r"g must have shape \(2,\)"),
    ("layer_norm, x with NaN", lambda: h.layer_norm([NAN, 1.0], np.ones(2), np.zeros(2)), ValueError, r"x must not contain NaN"),
    ("layer_norm, a scalar x", lambda: h.layer_norm(3.0, np.ones(1), np.zeros(1)), ValueError, r"x must have shape \[\.\.\., n_embd\], got a scalar"),
    ("layer_norm, eps = NaN", lambda: h.layer_norm(X, np.ones(2), np.zeros(2), eps=NAN), ValueError, r"eps must be a finite number >= 0"),
    ("linear, a 1-d w", lambda: h.linear(X, np.ones(2), np.zeros(2)), ValueError, r"w must have shape \[n_in, n_out\]"),
    ("linear, mismatched x and w", lambda: h.linear(X, np.ones((3, 2)), np.zeros(2)), ValueError, r"last axis of x must equal n_in = 3"),
    ("linear, NaN in w", lambda: h.linear(X, np.array([[NAN, 0.0], [0.0, 1.0]]), np.zeros(2)), ValueError, r"w must not contain NaN"),
    ("linear, x empty", lambda: h.linear(np.zeros((0, 2)), np.eye(2), np.zeros(2)), ValueError, r"no empty axis"),
    ("ffn, c_fc without 'b'", lambda: h.ffn(X, {"w": np.eye(2)}, EYE), ValueError, r"c_fc must be a dict with keys 'w' and 'b', got one without 'b'"),
    ("ffn, activation not a function", lambda: h.ffn(X, EYE, EYE, activation="relu"), TypeError, r"activation must be a function"),
    # attention
    ("attention, d_k = 0", lambda: h.attention(np.zeros((3, 0)), np.zeros((3, 0)), X), ValueError, r"q must have shape \[\.\.\., n_q, d_k\] with no empty axis"),
    ("attention, no keys", lambda: h.attention(X, np.zeros((0, 2)), np.zeros((0, 2))), ValueError, r"k must have shape .* no empty axis"),
    ("attention, a boolean mask", lambda: h.attention(X, X, X, mask=np.tril(np.ones((3, 3), bool))), TypeError, r"mask must be additive .* got booleans"),
    ("attention, a mask with -inf", lambda: h.attention(X, X, X, mask=np.where(np.eye(3), 0, -INF)), ValueError, r"mask must not contain NaN or inf"),
    ("attention, a mask of the wrong shape", lambda: h.attention(X, X, X, mask=np.zeros((2, 3))), ValueError, r"does not broadcast to the scores' shape \(3, 3\)"),
    ("attention, v with another number of rows", lambda: h.attention(X, X, X[:2]), ValueError, r"one value per key"),
    ("attention, NaN in q", lambda: h.attention([[NAN, 0.0]], X, X), ValueError, r"q must not contain NaN"),
    ("attention_weights, 1-d q", lambda: h.attention_weights([1.0, 0.0], X), ValueError, r"q and k must have shape"),
    ("split_heads, n_head not dividing", lambda: h.split_heads(X, 3), ValueError, r"n_head = 3 must divide"),
    ("merge_heads, 2-d input", lambda: h.merge_heads(X), ValueError, r"x must have shape \[\.\.\., n_head, n_seq, d_head\]"),
    ("attend_heads, n_head = 0", lambda: h.attend_heads(X, X, X, 0), ValueError, r"n_head must be at least 1"),
    ("mha, c_attn of the wrong shape", lambda: h.mha(X, EYE, EYE, 1), ValueError, r"c_attn must have w of shape \(2, 6\)"),
    ("mha, n_head a float", lambda: h.mha(X, QKV, EYE, 1.0), TypeError, r"n_head must be an integer"),
    ("multi_head_attention, a boolean mask", lambda: h.multi_head_attention(X, X, EYE, EYE, EYE, EYE, 1, mask=np.ones((3, 3), bool)), TypeError, r"got booleans"),
    ("multi_head_attention, c_k missing", lambda: h.multi_head_attention(X, X, EYE, None, EYE, EYE, 1), ValueError, r"c_k must be a dict with keys 'w' and 'b'"),
    # masks and positions
    ("causal_mask(0)", lambda: h.causal_mask(0), ValueError, r"n_seq must be at least 1"),
    ("causal_mask(2.5)", lambda: h.causal_mask(2.5), TypeError, r"n_seq must be an integer"),
    ("causal_mask with an integer dtype", lambda: h.causal_mask(3, int), TypeError, r"a mask needs a floating dtype"),
    ("padding_mask of integers", lambda: h.padding_mask([0, 1]), TypeError, r"key_is_pad must be a boolean array"),
    ("padding_mask of no keys", lambda: h.padding_mask(np.zeros(0, bool)), ValueError, r"n_k >= 1"),
    ("positional_encoding, odd d_model", lambda: h.positional_encoding(3, 5), ValueError, r"d_model must be even"),
    ("positional_encoding, 0 positions", lambda: h.positional_encoding(0, 4), ValueError, r"n_pos must be at least 1"),
    ("position_shift_matrix, a fractional shift", lambda: h.position_shift_matrix(1.5, 4), TypeError, r"k must be an integer number of positions"),
    ("rope, an odd width", lambda: h.rope(np.ones((2, 3))), ValueError, r"with an even d"),
    ("rope, fractional positions", lambda: h.rope(np.ones((2, 2)), [0.5, 1.0]), TypeError, r"positions must be integers"),
    # loss
    ("cross_entropy, a target out of range", lambda: h.cross_entropy(np.zeros((2, 4)), [0, 4]), ValueError, r"targets must be token ids in 0..3"),
    ("cross_entropy, NaN logits", lambda: h.cross_entropy([[NAN, 0.0]], [0]), ValueError, r"logits must not contain NaN"),
    ("cross_entropy, targets of the wrong shape", lambda: h.cross_entropy(np.zeros((2, 4)), [0]), ValueError, r"targets must have shape \(2,\)"),
    ("cross_entropy, float targets", lambda: h.cross_entropy(np.zeros((2, 4)), [0.0, 1.0]), TypeError, r"targets must be integer token ids"),
    # the hand-made model
    ("gpt, NaN in a weight", lambda: h.gpt(np.array([0, 1]), **model_with(("wte",), np.full((2, 8), NAN))), ValueError, r"wte must not contain NaN or inf"),
    ("gpt, a token id out of range", lambda: h.gpt([0, 2], **h.MODEL), ValueError, r"inputs must be token ids in 0..1"),
    ("gpt, float token ids", lambda: h.gpt([0.0, 1.0], **h.MODEL), TypeError, r"inputs must be integer token ids"),
    ("gpt, no tokens", lambda: h.gpt([], **h.MODEL), ValueError, r"a sequence must hold 1 to 5 tokens"),
    ("gpt, too many tokens", lambda: h.gpt([0] * 6, **h.MODEL), ValueError, r"a sequence must hold 1 to 5 tokens"),
    ("gpt, a block without 'attn'", lambda: h.gpt([0], h.MODEL["wte"], h.MODEL["wpe"], [{}]), ValueError, r"blocks\[0\] must be a dict \{'attn'"),
    ("gpt, c_proj missing", lambda: h.gpt([0], **model_with(("blocks", 0, "attn", "c_proj"), KeyError)), ValueError, r"blocks\[0\] must be a dict"),
    ("gpt, weights of two dtypes", lambda: h.gpt([0], **model_with(("wte",), h.MODEL["wte"].astype(np.float32))), TypeError, r"share one float dtype"),
    ("build_model, lg that overflows float16", lambda: h.build_model(lg=1e5, dtype=np.float16), ValueError, r"lg = 100000 overflows float16"),
    ("build_model, lg whose logits overflow float16", lambda: h.build_model(lg=40_000, dtype=np.float16), ValueError, r"lg = 40000 overflows float16: .*not finite"),
    ("build_model, lg = 0", lambda: h.build_model(lg=0), ValueError, r"lg must be a positive finite number"),
    ("build_model, lg = NaN", lambda: h.build_model(lg=NAN), ValueError, r"lg must be a positive finite number"),
    ("build_model, an integer dtype", lambda: h.build_model(dtype=np.int32), TypeError, r"dtype must be a floating-point type"),
    ("build_model, a dtype that is not one", lambda: h.build_model(dtype="fast"), TypeError, r"dtype must be a floating-point type"),
    # running and measuring the hand-made model
    ("verify, a model whose logits overflow", lambda: h.verify(30, overflowing_float16_model()), ValueError, r"logits are not finite"),
    ("evaluate, a model whose logits overflow", lambda: h.evaluate("aab" * 5, overflowing_float16_model()), ValueError, r"logits are not finite"),
    ("evaluate, a model without 'wpe'", lambda: h.evaluate("aab" * 5, model_with(("wpe",), KeyError)), ValueError, r"^model must be a dict with keys 'wte', 'wpe' and 'blocks', as build_model\(\) makes it, got one without 'wpe'$"),
    ("predict, a model with an extra key", lambda: h.predict("aab", model=h.MODEL | {"ln_f": {}}), ValueError, r"model must be a dict with keys .*, got one with the unexpected key 'ln_f'"),
    ("verify, max_len above its bound", lambda: h.verify(10**7), ValueError, r"max_len must be at most 1,000,000"),
    ("valid_contexts, max_len above its bound", lambda: h.valid_contexts(10**6), ValueError, r"max_len must be at most 10,000"),
    ("complete, a negative count", lambda: h.complete("a", -1), ValueError, r"max_new_tokens must be at least 0"),
    ("complete, a fractional count", lambda: h.complete("a", 2.5), TypeError, r"max_new_tokens must be an integer"),
    ("complete, a count above its bound", lambda: h.complete("a", 10**9), ValueError, r"max_new_tokens must be at most 1,000,000"),
    ("complete, an empty context", lambda: h.complete("", 3), ValueError, r"context is empty"),
    ("complete, a character that is not a token", lambda: h.complete("abc"), ValueError, r"'c' at position 2 is not a token"),
    ("predict, None", lambda: h.predict(None), TypeError, r"^context must be a str of the characters 'a' and 'b', got NoneType$"),
    ("trace, token ids", lambda: h.trace([0, 1]), TypeError, r"^context must be a str of the characters 'a' and 'b', got list$"),
    ("complete, a compiled model and token ids", lambda: h.complete([0, 1], 3, h.compile_pattern("abc")), TypeError, r"^context must be a str of the characters 'a', 'b' and 'c', got list$"),
    ("predict, a NaN model", lambda: h.predict("ab", model_with(("wpe",), np.full((5, 8), NAN))), ValueError, r"wpe must not contain NaN"),
    ("next_token_logits, float lengths", lambda: h.next_token_logits([0, 1], [1.0]), TypeError, r"context_lengths must be integers"),
    ("tokenize, bytes", lambda: h.tokenize(b"ab"), TypeError, r"text must be a str, got bytes"),
    ("untok(2)", lambda: h.untok(2), ValueError, r"token must be 0 \('a'\) or 1 \('b'\)"),
    ("untok(True)", lambda: h.untok(True), TypeError, r"token must be one integer id"),
    ("untok(array of ids)", lambda: h.untok(np.array([0, 1])), TypeError, r"token must be one integer id, got ndarray"),
    # decoding
    ("greedy of NaN logits", lambda: h.greedy([0.0, NAN]), ValueError, r"logits must not contain NaN or \+inf"),
    ("top_k_filter, top_k = 0", lambda: h.top_k_filter([1.0, 2.0], 0), ValueError, r"top_k must be at least 1"),
    ("top_p_filter, top_p = 0", lambda: h.top_p_filter([1.0, 2.0], 0), ValueError, r"top_p must be a positive finite number at most 1"),
    ("apply_temperature, temperature 0", lambda: h.apply_temperature([1.0], 0), ValueError, r"temperature must be a positive finite number"),
    ("sample, rng a seed", lambda: h.sample([1.0, 2.0], rng=0), TypeError, r"rng must be a np.random.Generator"),
    ("greedy_search, step_fn answers NaN", lambda: h.greedy_search(log_probs_with_nan, [0], 3), ValueError, r"logits must not contain NaN"),
    ("greedy_search, step_fn not a function", lambda: h.greedy_search(None, [0], 3), TypeError, r"step_fn must be a function"),
    ("greedy_search, no start tokens", lambda: h.greedy_search(log_probs_with_nan, [], 3), ValueError, r"start_tokens must be a non-empty list"),
    ("beam_search, beam_width 0", lambda: h.beam_search(log_probs_with_nan, [0], 0, 3), ValueError, r"beam_width must be at least 1"),
    # the encoder-decoder
    ("Config, odd d_model", lambda: h.Config(5, 6, d_model=7, n_head=1, d_ff=8, n_layers=1), ValueError, r"d_model must be even"),
    ("Config, n_head not dividing d_model", lambda: h.Config(5, 6, d_model=8, n_head=3, d_ff=8, n_layers=1), ValueError, r"n_head = 3 must divide d_model"),
    ("init_params, sizes instead of a Config", lambda: h.init_params(5, 6), TypeError, r"config must be a handtf.seq2seq.Config"),
    ("init_params, a negative seed", lambda: h.init_params(CONFIG, seed=-1), ValueError, r"seed must be at least 0, got -1"),
    ("encode, params without 'encoder'", lambda: h.encode([1, 2], params_without("encoder"), CONFIG), ValueError, r"params must be a dict with keys .*got one without 'encoder'"),
    ("encode, params without one weight", lambda: h.encode([1, 2], params_without("encoder", "blocks", 0, "ln_1", "g"), CONFIG), ValueError, r"params\['encoder'\]\['blocks'\]\[0\]\['ln_1'\] must be a dict .* without 'g'"),
    ("encode, params with the config inside", lambda: h.encode([1, 2], PARAMS | {"config": CONFIG}, CONFIG), ValueError, r"params must be a dict .* unexpected key 'config'"),
    ("encode, without a config", lambda: h.encode([1, 2], PARAMS), TypeError, r"encode\(\): missing a required argument: 'config'"),
    ("encode, a config the weights do not fit", lambda: h.encode([1, 2], PARAMS, h.Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)), ValueError, r"params\['encoder'\]\['blocks'\]\[0\]\['mlp'\]\['c_fc'\]\['w'\] must have shape \(8, 32\) for config = Config\(vocab_src=5, vocab_tgt=6, d_model=8, n_head=2, d_ff=32, n_layers=1, norm='post'\), got shape \(8, 16\)"),
    ("encode, a source id out of range", lambda: h.encode([1, 5], PARAMS, CONFIG), ValueError, r"src must be token ids in 0..4"),
    ("encode, a boolean src_mask", lambda: h.encode([1, 2], PARAMS, CONFIG, np.array([[True, False]])), TypeError, r"got booleans"),
    ("decode, memory of the wrong width", lambda: h.decode([0], np.zeros((2, 4)), PARAMS, CONFIG), ValueError, r"memory must have shape \[\.\.\., n_src, d_model=8\]"),
    ("greedy_decode, bos out of range", lambda: h.greedy_decode(PARAMS, CONFIG, [1, 2], bos=6, eos=1, max_len=3), ValueError, r"bos must be token ids in 0..5"),
    # backpropagation and training
    ("linear_backward, dout of the wrong shape", lambda: h.linear_backward(np.ones((3, 3)), X, **EYE), ValueError, r"dout must have the shape of the forward output, \(3, 2\), got \(3, 3\)"),
    ("softmax_backward, dout of the wrong shape", lambda: h.softmax_backward(np.ones(3), np.ones(4) / 4), ValueError, r"dout must have the shape of the forward output, \(4,\)"),
    ("gelu_backward, NaN in dout", lambda: h.gelu_backward([1.0, NAN], [0.0, 1.0]), ValueError, r"dout must not contain NaN"),
    ("ffn_backward, an activation without a backward", lambda: h.ffn_backward(X, X, EYE, EYE, np.tanh), ValueError, r"activation must be handtf.gelu or handtf.relu"),
    ("layer_norm_backward, g of the wrong size", lambda: h.layer_norm_backward(X, X, np.ones(3), np.zeros(2)), ValueError, r"g must have shape \(2,\)"),
    ("attention_backward, dout of the wrong shape", lambda: h.attention_backward(np.ones((3, 3)), X, X, X), ValueError, r"dout must have the shape of the forward output, \(3, 2\)"),
    ("mha_backward, n_head not dividing n_embd", lambda: h.mha_backward(X, X, QKV, EYE, n_head=3), ValueError, r"n_head = 3 must divide"),
    ("embedding_backward, a token out of range", lambda: h.embedding_backward(np.ones((2, 4)), np.array([0, 3]), n_vocab=3), ValueError, r"tokens must be token ids in 0..2"),
    ("smoothed_targets, smoothing 1.5", lambda: h.smoothed_targets(np.array([0]), 4, smoothing=1.5), ValueError, r"smoothing must be a finite number in \[0, 1\]"),
    ("soft_cross_entropy, targets not probabilities", lambda: h.soft_cross_entropy(np.zeros((1, 2)), np.array([[0.5, 0.6]])), ValueError, r"target_probs must be probabilities"),
    ("cross_entropy_backward, targets of the wrong shape", lambda: h.cross_entropy_backward(np.zeros((1, 2)), np.array([[1.0, 0.0, 0.0]])), ValueError, r"target_probs must have the shape of logits"),
    ("loss_and_grads, a window longer than n_ctx", lambda: h.loss_and_grads(h.MODEL, [0, 0, 1, 0, 0, 1], [0, 1, 0, 0, 1, 0]), ValueError, r"a sequence must hold 1 to 5 tokens"),
    ("loss_and_grads, targets shorter than inputs", lambda: h.loss_and_grads(h.MODEL, [0, 1], [0]), ValueError, r"targets must have the shape of inputs"),
    ("train, a character outside the vocabulary", lambda: h.train("abc"), ValueError, r"'c'"),
    ("train, n_head not dividing n_embd", lambda: h.train("aab", n_head=3), ValueError, r"n_head = 3 must divide n_embd = 8"),
    ("train_seq2seq, an unknown task", lambda: h.train_seq2seq("sort"), ValueError, r"task must be one of copy, reverse"),
    # induction heads (issue 29): the messages the induction page and the docstrings show
    ("verify_induction, 2,391,483 sequences", lambda: h.verify_induction(h.induction_head("abc", n_ctx=13)), ValueError, r"^3 characters and n_ctx = 13 make 2,391,483 sequences to check; the exhaustive check runs at most 1,000,000 \(MAX_SEQUENCES\): use fewer characters or a shorter n_ctx$"),
    ("verify_induction, the (aab)* model", lambda: h.verify_induction(h.MODEL), TypeError, r"^model must be an InductionHead \(from induction_head\(\)\), got a dict$"),
    ("verify_induction, one dtype not in a tuple", lambda: h.verify_induction(dtypes=np.float32), TypeError, r"^dtypes must be a non-empty tuple of float dtypes, e.g. \(np.float32, np.float64\), got "),
    ("verify_induction, float16", lambda: h.verify_induction(dtypes=(np.float16,)), TypeError, r"^dtypes must be float32 or float64, got float16$"),
    ("induction_head, n_ctx beyond GPT-2 small", lambda: h.induction_head("abc", n_ctx=763), ValueError, r"^n_ctx must be at most 762 \(2 \* 3 token columns \+ n_ctx position columns must fit GPT-2 small's n_embd = 768\), got 763$"),
    ("induction_head, a repeated character", lambda: h.induction_head("aa"), ValueError, r"^alphabet has 'a' more than once; each character is one token$"),
    ("induction_head, one character", lambda: h.induction_head("a"), ValueError, r"^alphabet must have at least 2 characters \(a margin needs a wrong token\), got 'a'$"),
    ("induction_head, a space in the alphabet", lambda: h.induction_head("a b"), ValueError, r"^' ' at position 1 of the alphabet cannot be a token; characters must be printable and not spaces$"),
    ("induction_attention, a character outside the alphabet", lambda: h.induction_attention(h.induction_head(), "abd"), ValueError, r"^text has characters outside the alphabet 'abc': 'd'$"),
    ("induction_attention, longer than n_ctx", lambda: h.induction_attention(h.induction_head(), "abcabcabc"), ValueError, r"^text must be a str of 1 to 8 characters \(n_ctx\), got 'abcabcabc'$"),
    ("induction_attention, the (aab)* model", lambda: h.induction_attention(h.MODEL, "ab"), TypeError, r"^model must be an InductionHead \(from induction_head\(\)\), got a dict$"),
    ("train_induction, n_ctx = 1", lambda: h.train_induction(n_ctx=1), ValueError, r"^n_ctx must be at least 2 \(a repeat needs two positions\), got 1$"),
    ("train_induction, lr = 0", lambda: h.train_induction(lr=0), ValueError, r"^lr must be a positive finite number at most 1, got 0$"),
    # display
    ("format_number of text", lambda: h.format_number("x"), TypeError, r"value must be a real number"),
    ("format_matrix of nothing", lambda: h.format_matrix([]), ValueError, r"matrix must be a non-empty 1-d or 2-d array"),
    ("show with too few labels", lambda: h.show([[1, 2]], cols=["a"]), ValueError, r"cols has 1 labels for 2 cols"),
    # issue 28: one reader per kind of argument (handtf.checks), each refusing by name what it cannot take
    ("layer_norm, eps = 10**400 (an int beyond float64)", lambda: h.layer_norm(X, np.ones(2), np.zeros(2), eps=10**400), ValueError, r"^eps must be a finite number >= 0, got an integer of 1329 bits \(too large for a float\)$"),
    ("train, factor = 10**400", lambda: h.train("aab", steps=1, factor=10**400), ValueError, r"^factor must be a positive finite number, got an integer of 1329 bits"),
    ("build_model, lg = 10**400", lambda: h.build_model(10**400), ValueError, r"^lg must be a positive finite number, got an integer of 1329 bits"),
    ("sample, temperature = 10**400", lambda: h.sample(np.zeros(3), temperature=10**400), ValueError, r"^temperature must be a positive finite number, got an integer"),
    ("format_number of 10**400", lambda: h.format_number(10**400), ValueError, r"^value must be a number a float can hold"),
    ("softmax of a list holding 10**400", lambda: h.softmax([10**400, 0]), TypeError, r"^x must be an array of real numbers, got object values \(an integer too large for a float\)$"),
    ("softmax of a masked array", lambda: h.softmax(np.ma.masked_array([1.0, 2.0], mask=[0, 1])), TypeError, r"^x must be an array of real numbers \(a plain numpy array or a list\), got a numpy.MaskedArray, an ndarray subclass"),
    ("gelu of a record array view", lambda: h.gelu(np.arange(3.0).view(np.recarray)), TypeError, r"x must be .* an ndarray subclass"),
    ("gpt, ragged inputs", lambda: h.gpt([[0, 1], [0]], **h.MODEL), TypeError, r"^inputs must be integer token ids, got a ragged list \(rows of different lengths\)$"),
    ("encode, a ragged src", lambda: h.encode([[1, 2], [1]], PARAMS, CONFIG), TypeError, r"^src must be .*got a ragged list"),
    ("padding_mask, a ragged key_is_pad", lambda: h.padding_mask([[True, False], [True]]), TypeError, r"^key_is_pad must be .*got a ragged list"),
    ("greedy_search, a step_fn giving None", lambda: h.greedy_search(lambda t: None, [0], 3), TypeError, r"^step_fn must return log-probs \[n_vocab\]: logits must be an array of real numbers, got object values \(None\)$"),
    ("train, seed = -1", lambda: h.train("aab", steps=1, seed=-1), ValueError, r"^seed must be at least 0, got -1 \(numpy's seeds are whole numbers >= 0\)$"),
    ("train_seq2seq, seed = -1", lambda: h.train_seq2seq("copy", steps=1, seed=-1), ValueError, r"^seed must be at least 0, got -1"),
    ("causal_mask, 10**6 positions (8 TB)", lambda: h.causal_mask(10**6), ValueError, r"^n_seq must be at most 10,000 \(handtf allocates at most MAX_ELEMENTS = 100,000,000 numbers\), got 1,000,000$"),
    ("positional_encoding, 10**9 positions", lambda: h.positional_encoding(10**9, 512), ValueError, r"^n_pos must be at most 195,312 .*MAX_ELEMENTS"),
    ("smoothed_targets, n_vocab = 10**6", lambda: h.smoothed_targets([0, 1], 10**6), ValueError, r"^n_vocab must be at most 10,000 .*MAX_ELEMENTS"),
    ("dropout_mask, a shape of 10**12 numbers", lambda: h.training.optimiser.dropout_mask((10**6, 10**6), 0.5, np.random.default_rng(0)), ValueError, r"^shape must hold at most MAX_ELEMENTS = 100,000,000 numbers"),
    ("dropout_mask, a negative shape", lambda: h.training.optimiser.dropout_mask((-1,), 0.5, np.random.default_rng(0)), ValueError, r"^shape must be a shape of sizes >= 0, got \(-1,\)$"),
    ("init_params, 10**6 layers", lambda: h.init_params(h.Config(5, 6, d_model=8, n_head=2, d_ff=16, n_layers=10**6), seed=0), ValueError, r"must hold at most MAX_ELEMENTS"),
    ("train_seq2seq, batch_size = 10**9", lambda: h.train_seq2seq("copy", steps=1, batch_size=10**9), ValueError, r"^batch_size must be at most .*MAX_ELEMENTS"),
    ("describe of a number", lambda: h.describe(42), TypeError, r"^model must be a CompiledPattern \(what compile_pattern returns\), got 42$"),
    ("describe of the hand-made model", lambda: h.describe(h.MODEL), TypeError, r"^model must be a CompiledPattern .*got a dict$"),
    ("gpt, weights whose logits overflow", lambda: h.gpt([[0, 1, 1, 1, 1]], **overflowing_float16_model()), ValueError, r"^the model's logits are not finite after tokens \[0, 1.*\] \(they overflow float16\); use smaller weights or a wider dtype$"),
    ("gpt2, weights whose logits overflow", lambda: h.gpt2((np.arange(32)[:, None] >> np.arange(5)) & 1, **overflowing_float16_model(), n_head=1), ValueError, r"^the model's logits are not finite after tokens"),
    ("cross_entropy, a loss beyond float64", lambda: h.cross_entropy([[1e308, -1e308]], [1]), ValueError, r"^the loss is not finite .*: logits from -1e\+308 to 1e\+308 give a loss beyond float64's largest number"),
    # issue 28, this session's probes (scripts/probe_boundary.py): the argument named, what it got, what is allowed
    ("cross_entropy, float16 logits whose loss overflows", lambda: h.cross_entropy(np.array([[6e4, -6e4]], np.float16), [1]), ValueError, r"logits from -6e\+04 to 6e\+04 give a loss beyond float16's largest number, 6.55e\+04; pass logits closer together or in a wider dtype$"),
    ("soft_cross_entropy, float32 logits whose loss overflows", lambda: h.soft_cross_entropy(np.array([[3e38, -3e38]], np.float32), np.array([[0.0, 1.0]], np.float32)), ValueError, r"logits from -3e\+38 to 3e\+38 give a loss beyond float32's"),
    ("attention, mask None", lambda: h.attention(X, X, X, None), TypeError, r"^mask must be an additive mask that broadcasts to \[\.\.\., n_q, n_k\] \(0\.0 for none\), got None$"),
    ("attend_heads, a 1-d mask", lambda: h.attend_heads(X, X, X, 1, np.zeros(3)), ValueError, r"^mask must have shape \[\.\.\., n_q, n_k\], got shape \(3,\)$"),
    ("next_token_logits, ragged lengths", lambda: h.next_token_logits([0, 1], [[1], [1, 2]]), TypeError, r"^context_lengths must be integers, got a ragged list"),
    ("encode, a ragged src_mask", lambda: h.encode([1, 2], PARAMS, CONFIG, [[0.0], [0.0, 0.0]]), TypeError, r"^src_mask must be .*got a ragged list"),
    ("attention_weights, scores overflow float16", lambda: h.attention_weights(np.array([[300.0]], np.float16), np.array([[300.0], [-300.0]], np.float16)),
     ValueError, r"^the scores q @ k\^T overflow float16 \(\|q\| up to 300, \|k\| up to 300\): pass q and k with smaller entries or in a wider dtype$"),
    ("attention, scores overflow float64", lambda: h.attention(np.array([[1e200, 0.0]]), np.array([[1e200, 0.0]]), np.array([[1.0]])),
     ValueError, r"^the scores q @ k\^T overflow float64"),
    ("linear, output overflows float16", lambda: h.linear(np.array([[6e4, 6e4]], np.float16), np.ones((2, 1), np.float16), np.zeros(1, np.float16)),
     ValueError, r"^x @ w \+ b overflows float16 \(\|x\| up to 6e\+04, \|w\| up to 1\): pass smaller x or w, or a wider dtype$"),
    ("show, rows a number", lambda: h.show([[1.0, 2.0]], rows=3), TypeError, r"^rows must be a list of 1 labels, got 3$"),
    ("adam_step, step = 10**400", lambda: h.training.optimiser.adam_step([np.zeros(2)], [np.ones(2)], [(np.zeros(2), np.zeros(2))], 10**400, 0.1), ValueError, r"^step must be at most 9,007,199,254,740,992 \(a float64 counts every step up to 2\*\*53\), got an integer of 1329 bits"),
    ("adam_step, ragged grads", lambda: h.training.optimiser.adam_step([np.zeros(2)], [[1.0, [2.0]]], [(np.zeros(2), np.zeros(2))], 1, 0.1), TypeError, r"^grads\[0\] must be an array of real numbers, got a ragged list"),
    ("dropout_mask, a shape of 10**400", lambda: h.training.optimiser.dropout_mask((10**400,), 0.5, np.random.default_rng(0)), ValueError, r"^shape must hold at most MAX_ELEMENTS = 100,000,000 numbers, got a shape of an integer of 1329 bits"),
    ("dropout_mask, rng a seed", lambda: h.training.optimiser.dropout_mask((2,), 0.5, 0), TypeError, r"^rng must be a np.random.Generator \(e.g. np.random.default_rng\(0\)\), got 0$"),
    ("greedy_search, eos a float", lambda: h.greedy_search(log_probs_with_nan, [0], 3, eos=1.0), TypeError, r"^eos must be None or an integer token id, got 1.0$"),
    ("train_induction, seed = -1", lambda: h.train_induction(seed=-1), ValueError, r"^seed must be at least 0, got -1"),
    ("greedy_search, max_len = 10**400", lambda: h.greedy_search(log_probs_with_nan, [0], 10**400), ValueError, r"^max_len must be at most 1,000,000 \(MAX_STEPS, a bound that keeps a typo from running for days\), got an integer of 1329 bits"),
    ("train, steps = 10**7", lambda: h.train("aab", steps=10**7), ValueError, r"^steps must be at most 1,000,000 \(MAX_STEPS"),
    ("task_pairs, length = 10**400", lambda: h.seq2seq.training.task_pairs("copy", 2, 10**400, 4, np.random.default_rng(0)), ValueError, r"^length must be at most 50, got an integer of 1329 bits"),
    ("train, progress not a function", lambda: h.train("aab", steps=1, progress=3), TypeError, r"^progress must be a function, got int$"),
    # issue 42: silent wrong answers, misleading messages and unbounded work, each now a clear error
    ("verify_induction, float64 twice", lambda: h.verify_induction(h.induction_head("ab", n_ctx=4), (np.float64, np.float64)), ValueError, r"^dtypes must name each dtype once \(each is counted on its own\), got float64, float64$"),
    ("adam_step, m and v one array", lambda: h.training.optimiser.adam_step([np.zeros(2)], [np.ones(2)], [(M2, M2)], 1, 0.1), ValueError, r"^moments\[0\] and moments\[0\] must be separate arrays"),
    ("adam_step, integer moments", lambda: h.training.optimiser.adam_step([np.zeros(2)], [np.ones(2)], [(np.zeros(2, int), np.zeros(2, int))], 1, 0.1), TypeError, r"^moments\[0\] must be float arrays"),
    ("attention, a mask whose sum with the scores overflows", lambda: h.attention(np.array([[1e154]]), np.array([[-1e154], [-1e154]]), np.eye(2), np.full((1, 2), -1e308)), ValueError, r"^the scores plus the mask overflow float64"),
    ("ffn, an activation giving NaN", lambda: h.ffn(X, EYE, EYE, activation=lambda x: x * NAN), ValueError, r"^activation must give finite real numbers: activation\(x\) must not contain NaN"),
    ("ffn, an activation changing the shape", lambda: h.ffn(X, EYE, EYE, activation=lambda x: x[..., :1]), ValueError, r"^activation must keep the shape of its input, \(3, 2\)"),
    ("softmax_backward, negative probabilities", lambda: h.softmax_backward(np.ones(2), np.array([-0.5, 1.5])), ValueError, r"^probs must be softmax's output"),
    ("dropout, training='no'", lambda: h.training.optimiser.dropout(np.ones(4), 0.5, np.random.default_rng(0), training="no"), TypeError, r"^training must be True or False, got 'no'$"),
    ("beam_search, length_penalty 1e6", lambda: h.beam_search(log_probs_with_nan, [0], 2, 3, length_penalty=1e6), ValueError, r"^length_penalty must be at most 646.1 for max_len = 3"),
    ("forward, batches of 2 and 3", lambda: h.forward(np.ones((2, 3), int), np.ones((3, 3), int), PARAMS, CONFIG), ValueError, r"^tgt and src must have the same batch size"),
    ("cross_entropy, a target of probability 0", lambda: h.cross_entropy([[0.0, -INF]], [1]), ValueError, r"^logits give target 1 at \[0\] the logit -inf \(probability 0\), so the loss is infinite"),
    ("tokenize, chars a set", lambda: h.tokenize("ab", {"a", "b"}), TypeError, r"^chars must be distinct single characters, such as \('a', 'b'\), got a set$"),
    ("Recorder of a ufunc", lambda: h.Recorder(np.exp), TypeError, r"^functions must be Python functions"),
    ("context_needed, a period of 20,000", lambda: h.context_needed("a" * 19999 + "b"), ValueError, r"^pattern repeats every 20,000 characters; .*at most 3,072 \(MAX_PERIOD"),
    ("phases, 10**9 characters", lambda: h.phases("a" * 9999 + "b", 100000), ValueError, r"^phases of 10,000 characters with k = 100,000 make"),
    ("induction_head, 20,000 characters", lambda: h.induction_head("x" * 20000), ValueError, r"^alphabet must have at most 383 characters"),
    ("compile_pattern, U+200B in the pattern", lambda: h.compile_pattern("ab\u200b"), ValueError, r"^'\\u200b' at position 2 of the pattern cannot be a token"),
    # issue 50: silent wrong answers and obscure errors of the adder, each now a clear error in words
    ("verify_pairs, 19 digits (int64 overflows)", lambda: h.patterns.adderboard.verify_pairs(h.adder(19), [1], [2]), ValueError, r"^the check adds in int64, up to 18 digits; this model has n_digits = 19$"),
    ("verify_pairs, float32 twice", lambda: h.patterns.adderboard.verify_pairs(h.adder(1), [1], [2], dtypes=(np.float32, "float32")), ValueError, r"^dtypes must name each dtype once \(each is counted on its own\), got float32, float32$"),
    ("verify_adder, float64 twice", lambda: h.verify_adder(h.adder(1), dtypes=("float64", np.float64)), ValueError, r"^dtypes must name each dtype once"),
    ("adder.add, an empty str", lambda: h.adder(3).add("", 1), ValueError, r"^a is empty; write it with the digits 0-9$"),
    ("adder.add, -0", lambda: h.adder(3).add("-0", 1), ValueError, r"^a starts with a minus sign; the adder takes numbers of 0 or more, written with the digits 0-9$"),
    ("adder.add, a full-width digit", lambda: h.adder(3).add("\uff11", 1), ValueError, r"^a has '\uff11' at position 0; write it with the digits 0-9 only$"),
    ("adder.add, 1_0", lambda: h.adder(3).add(1, "1_0"), ValueError, r"^b has '_' at position 1; write it with the digits 0-9 only$"),
    ("adder.add, 5,000 digits in a str", lambda: h.adder(3).add("9" * 5000, 1), ValueError, r"^a has 5,000 digits; this model reads at most 3 \(n_digits\)$"),
    ("adder.add, an int of 5,001 digits", lambda: h.adder(3).add(10**5000, 1), ValueError, r"^a has 5,001 digits; this model reads at most 3 \(n_digits\)$"),
    ("adder.add, a negative int", lambda: h.adder(3).add(1, -1), ValueError, r"^b is negative \(-1\); the adder takes numbers of 0 or more$"),
    ("adder.add, a float", lambda: h.adder(3).add(1.0, 2), TypeError, r"^a must be a whole number \(an int, or a str of the digits 0-9\), got float$"),
    ("train_adder, on_step a number", lambda: train_adder(n_digits=2, steps=1, on_step=5), TypeError, r"^on_step must be a function, got int$"),
    ("train_induction, steps above MAX_STEPS", lambda: h.train_induction(steps=10**7), ValueError, r"^steps must be at most 1,000,000 \(MAX_STEPS"),
]
