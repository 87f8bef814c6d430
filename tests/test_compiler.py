"""compile_pattern: every valid context of many patterns, run in a GPT-2 forward pass written here.

The forward pass below is picoGPT's ``gpt2.py`` written out again, independently
of ``handtf``: GPT-2's tanh GELU, causal multi-head attention with one loop over
heads, residual blocks that skip the parts a model leaves out, and ``x @ wte.T``.
The expected next characters come from repeating the pattern, and the expected
``k`` from trying every window length, not from the compiler's own rules.
"""

import itertools
import math

import numpy as np
import pytest

from handtf.patterns.compiler import GPT2_SMALL, LG, MAX_CHARS, compile_pattern, context_needed, shortest_period


# ---- an independent GPT-2 forward pass (after picoGPT) ----

def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))  # x * x * x: numpy's x**3 is slow for negative x


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def layer_norm(x, g, b, eps=1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    return g * (x - mean) / np.sqrt(variance + eps) + b


def linear(x, w, b):
    return (x.reshape(-1, x.shape[-1]) @ w).reshape(*x.shape[:-1], w.shape[-1]) + b  # one matmul for a batch


def ffn(x, c_fc, c_proj):
    return linear(gelu(linear(x, **c_fc)), **c_proj)


def attention(q, k, v, mask):
    return softmax(q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn, c_proj, n_head):
    x = linear(x, **c_attn)
    qkv_heads = [np.split(part, n_head, axis=-1) for part in np.split(x, 3, axis=-1)]
    causal_mask = (1 - np.tri(x.shape[-2], dtype=x.dtype)) * -1e10
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]
    return linear(np.concatenate(out_heads, axis=-1), **c_proj)


def transformer_block(x, n_head, attn, mlp=None, ln_1=None, ln_2=None):
    x = x + mha(layer_norm(x, **ln_1) if ln_1 else x, **attn, n_head=n_head)
    if mlp:
        x = x + ffn(layer_norm(x, **ln_2) if ln_2 else x, **mlp)
    return x


def gpt2(inputs, wte, wpe, blocks, n_head, ln_f=None):
    x = wte[inputs] + wpe[: inputs.shape[-1]]  # inputs: [n_seq] or [n_batch, n_seq]
    for block in blocks:
        x = transformer_block(x, n_head=n_head, **block)
    return (layer_norm(x, **ln_f) if ln_f else x) @ wte.T


# ---- the patterns: every pattern of period 1 to 6 over 1 to 4 characters, up to renaming ----

def canonical_patterns(max_period, max_chars):
    """Strings whose letters appear in the order a, b, c, ... (so renaming gives nothing new), not powers."""
    letters = "abcd"[:max_chars]
    for n in range(1, max_period + 1):
        for chars in itertools.product(letters, repeat=n):
            text = "".join(chars)
            seen = "".join(dict.fromkeys(text))
            if seen != letters[: len(seen)]:
                continue
            if any(n % p == 0 and text[:p] * (n // p) == text for p in range(1, n)):
                continue
            yield text


PATTERNS = list(canonical_patterns(6, 4))


def brute_force_k(pattern):
    """The smallest k for which no two phases with the same last k characters disagree on the next."""
    n = len(pattern)
    text = pattern * 4
    for k in range(1, n + 1):
        table = {}
        if all(table.setdefault(text[s + n : s + n + k], text[s + n + k]) == text[s + n + k] for s in range(n)):
            return k
    raise AssertionError("k never exceeds the period")


def every_context(pattern, max_len):
    """(context, next) for every phase and every length 1..max_len of the repetition."""
    text = pattern * (max_len // len(pattern) + 2)
    return [(text[s : s + n], text[s + n]) for s in range(len(pattern)) for n in range(1, max_len + 1)]


def check_every_context(model, max_len):
    """Run the independent forward pass on every valid context; return the smallest margin."""
    w, margins = model.weights, []
    valid = [(c, nxt) for c, nxt in every_context(model.pattern, max_len) if len(c) >= model.k]
    windows = {}  # the contexts the model sees, grouped by length for one batched pass each
    for context, nxt in valid:
        window = tuple(model.chars.index(c) for c in context[-model.n_ctx :])
        windows.setdefault(len(window), {})[window] = (model.chars.index(nxt), context)  # each window once
    for group in windows.values():
        tokens = np.array(list(group))  # [n_batch, n_seq]
        logits = np.concatenate(  # [n_batch, n_vocab], 256 windows at a time to keep memory small
            [gpt2(chunk, **w, n_head=model.n_head)[:, -1] for chunk in np.split(tokens, range(256, len(tokens), 256))]
        )
        assert logits.dtype == w["wte"].dtype
        for row, (nxt, context) in zip(logits, group.values()):
            expected = np.zeros(len(model.chars))
            expected[nxt] = LG
            np.testing.assert_array_equal(row, expected, err_msg=f"{model.pattern}: {context!r}")
            others = np.delete(row, nxt)
            margins.append(row[nxt] - (others.max() if others.size else -np.inf))
    return min(margins)


def test_the_pattern_list_covers_periods_1_to_6_and_alphabets_1_to_4():
    assert {len(p) for p in PATTERNS} == {1, 2, 3, 4, 5, 6}
    assert {len(set(p)) for p in PATTERNS} == {1, 2, 3, 4}
    assert "aab" in PATTERNS and "abcd" in PATTERNS and "aabb" in PATTERNS and "abab" not in PATTERNS


@pytest.mark.parametrize("pattern", PATTERNS)
def test_context_needed_matches_a_brute_force_search(pattern):
    assert context_needed(pattern) == brute_force_k(pattern)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_valid_context_is_predicted_with_margin_lg(pattern, dtype):
    model = compile_pattern(pattern, dtype=dtype)
    assert model.k == brute_force_k(pattern) and model.n_ctx == model.k and model.n_head == model.k
    # contexts up to n_ctx + period: every window the model can see, at the start and in the middle of a text
    margin = check_every_context(model, model.n_ctx + len(pattern) + 1)
    assert margin == (LG if len(set(pattern)) > 1 else np.inf)


@pytest.mark.parametrize("pattern", ["aab", "abcab", "aaab", "abcd", "abacad"])
@pytest.mark.parametrize("extra", [1, 4])
def test_a_larger_context_window_works_too(pattern, extra):
    model = compile_pattern(pattern, n_ctx=context_needed(pattern) + extra, dtype=np.float32)
    assert model.weights["wpe"].shape[0] == model.n_ctx
    assert check_every_context(model, model.n_ctx + len(pattern) + 2) == LG


def test_the_weights_have_gpt2s_layout_and_nothing_unused():
    model = compile_pattern("abcab")
    w = model.weights
    assert sorted(w) == ["blocks", "wpe", "wte"]  # no ln_f
    (block,) = w["blocks"]
    assert sorted(block) == ["attn", "mlp"]  # no ln_1, ln_2
    assert sorted(block["attn"]) == ["c_attn", "c_proj"] and sorted(block["mlp"]) == ["c_fc", "c_proj"]
    n_embd, n_hidden = model.n_embd, len(model.hidden_labels)
    assert w["wte"].shape == (3, n_embd) and w["wpe"].shape == (3, n_embd)
    assert block["attn"]["c_attn"]["w"].shape == (n_embd, 3 * n_embd)
    assert block["attn"]["c_proj"]["w"].shape == (n_embd, n_embd)
    assert block["mlp"]["c_fc"]["w"].shape == (n_embd, n_hidden) and n_hidden == 5
    assert block["mlp"]["c_proj"]["w"].shape == (n_hidden, n_embd)
    assert n_embd % model.n_head == 0 and len(model.embed_labels) == n_embd


def test_hand_checked_numbers_for_aab():
    # (aab)*: "aa" -> b, "ab" -> a, "ba" -> a, so k = 2 and two heads (offsets 0 and 1).
    # Columns: a b | P0 P1 | a@0 b@0 | a@1 b@1 = 8 = 2 heads of 4.
    model = compile_pattern("aab")
    assert model.embed_labels == ("a", "b", "P0", "P1", "a@0", "b@0", "a@1", "b@1")
    assert model.table == {"aa": "b", "ab": "a", "ba": "a"}
    q = model.weights["blocks"][0]["attn"]["c_attn"]["w"][:, :8]
    # head 1 (columns 4-7): position 1 (row P1 = 3) looks for position 0 (head column 0) with 1024 * sqrt(4)
    assert q[3, 4] == 2048 and np.count_nonzero(q[:, 4:]) == 1
    fc = model.weights["blocks"][0]["mlp"]["c_fc"]
    # unit for "aa" -> b: 16 from a@0 and 16 from a@1, bias 8 - 16 * 2 = -24
    unit = model.hidden_labels.index("aa→b")
    assert fc["w"][:, unit].tolist() == [0, 0, 0, 0, 16, 0, 16, 0] and fc["b"][unit] == -24


def test_gelu_is_an_exact_switch_at_plus_and_minus_8():
    for dtype in (np.float32, np.float64):
        assert gelu(np.array([8, -8, -24], dtype=dtype)).tolist() == [8, 0, 0]


def test_a_power_of_a_pattern_is_its_shortest_period():
    assert shortest_period("abab") == "ab" and shortest_period("aaaa") == "a" and shortest_period("aba") == "aba"
    assert compile_pattern("abcabc").pattern == "abc"
    assert repr(compile_pattern("abab")) == repr(compile_pattern("ab"))


def test_the_largest_models_the_design_allows():
    # the biggest alphabet: 383 characters, each followed by the next one (k = 1)
    chars = "".join(chr(0x4E00 + i) for i in range(MAX_CHARS))
    model = compile_pattern(chars)
    assert model.n_embd == GPT2_SMALL["n_embd"] - 1 and model.k == 1
    assert check_every_context(model, 2) == LG
    # the longest look-back: twelve a's then b needs all 12 heads
    model = compile_pattern("a" * 12 + "b", dtype=np.float32)
    assert model.k == 12 and model.n_head == GPT2_SMALL["n_head"]
    assert check_every_context(model, 30) == LG
    # the longest period: 3072 random characters from 8 (one feed-forward unit per phase)
    rng = np.random.default_rng(0)
    model = compile_pattern("".join("abcdefgh"[i] for i in rng.integers(0, 8, 3072)), dtype=np.float32)
    assert len(model.pattern) == len(model.hidden_labels) == GPT2_SMALL["n_hidden"] and model.k == brute_force_k(model.pattern)
    assert check_every_context(model, model.k) == LG  # every window of length k = n_ctx


@pytest.mark.parametrize(
    "pattern, n_ctx, error, message",
    [
        (123, None, TypeError, "pattern must be a str, got int"),
        (["a", "b"], None, TypeError, "pattern must be a str, got list"),
        ("", None, ValueError, "pattern is empty"),
        ("a b", None, ValueError, "' ' at position 1 of the pattern cannot be a token"),
        ("ab\n", None, ValueError, "'\\n' at position 2 of the pattern cannot be a token"),
        ("aab", 1, ValueError, "n_ctx must be 2 to 1024: the last 2 characters of (aab)* decide"),
        ("aab", 2000, ValueError, "n_ctx must be 2 to 1024"),
        ("aab", 2.0, TypeError, "n_ctx must be an integer"),
        ("aab", True, TypeError, "n_ctx must be an integer"),
        ("a" * 13 + "b", None, ValueError, "the last 13 characters of (aaaaaaaaaaaaab)* are needed"),
        ("ab" * 2000 + "c", None, ValueError, "repeats every 4001 characters"),
        ("".join(chr(0x4E00 + i) for i in range(MAX_CHARS + 1)), None, ValueError, "at most 383"),
        ("abcdefgh" * 2 + "a", 200, ValueError, "needs n_embd ="),
    ],
)
def test_bad_input_is_refused_with_a_clear_error(pattern, n_ctx, error, message):
    with pytest.raises(error) as raised:
        compile_pattern(pattern, n_ctx=n_ctx)
    assert message in str(raised.value)


def test_bad_dtype_is_refused():
    with pytest.raises(TypeError, match="dtype must be a floating-point type"):
        compile_pattern("ab", dtype=np.int64)
    with pytest.raises(TypeError, match="dtype must be float32 or float64, got float16"):
        compile_pattern("ab", dtype=np.float16)
