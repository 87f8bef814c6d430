"""Compiled patterns in predict, complete, evaluate, verify, trace, the tokenizer and the command line.

Expected values come from repeating the pattern (the next character), from
counting phases and lengths by hand, and from the independent GPT-2 forward
pass of ``test_compiler``; the hand-made model's numbers are the tutorial's.
"""

import copy
import subprocess
import sys

import numpy as np
import pytest
from test_compiler import PATTERNS, gpt2 as independent_gpt2

from handtf import (
    MODEL,
    compile_pattern,
    complete,
    evaluate,
    explain,
    gpt2,
    next_token_probs,
    predict,
    tokenize,
    trace,
    untok,
    valid_contexts,
    verify,
)
from handtf.patterns.compiler import LG


def repetition(pattern, n):
    return pattern * (n // len(pattern) + 2)


@pytest.mark.parametrize("pattern", PATTERNS[::7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_handtf_gpt2_gives_the_logits_of_the_independent_forward_pass(pattern, dtype):
    model = compile_pattern(pattern, n_ctx=context_plus(pattern, 2), dtype=dtype)
    rng = np.random.default_rng(len(pattern))
    tokens = rng.integers(0, len(model.chars), size=(4, model.n_ctx))  # any windows, valid or not
    ours = gpt2(tokens, **model.weights, n_head=model.n_head)
    theirs = np.stack([independent_gpt2(row, **model.weights, n_head=model.n_head) for row in tokens])
    assert ours.dtype == theirs.dtype == dtype
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9 if dtype == np.float64 else 1e-3)


def context_plus(pattern, extra):
    from handtf import context_needed

    return context_needed(pattern) + extra


def test_gpt2_uses_layer_norms_and_skips_absent_parts_like_picogpt():
    rng = np.random.default_rng(0)
    n_vocab, n_ctx, n_embd, n_head, n_hidden = 5, 6, 8, 2, 32
    dense = lambda n_in, n_out: {"w": rng.normal(size=(n_in, n_out)), "b": rng.normal(size=n_out)}
    norm = lambda: {"g": rng.normal(size=n_embd), "b": rng.normal(size=n_embd)}
    block = {"attn": {"c_attn": dense(n_embd, 3 * n_embd), "c_proj": dense(n_embd, n_embd)},
             "mlp": {"c_fc": dense(n_embd, n_hidden), "c_proj": dense(n_hidden, n_embd)}, "ln_1": norm(), "ln_2": norm()}
    weights = {"wte": rng.normal(size=(n_vocab, n_embd)), "wpe": rng.normal(size=(n_ctx, n_embd)),
               "blocks": [block, {"attn": copy.deepcopy(block["attn"])}], "ln_f": norm()}
    tokens = np.array([1, 4, 0, 2, 3])
    np.testing.assert_allclose(gpt2(tokens, **weights, n_head=n_head), independent_gpt2(tokens, **weights, n_head=n_head), atol=1e-9)


def test_predict_complete_and_probabilities():
    model = compile_pattern("abcab")
    text = repetition("abcab", 40)
    for start in range(5):
        for length in range(3, 12):
            assert predict(text[start : start + length], model) == text[start + length]
    assert complete("cab", max_new_tokens=10, model=model) == "cab" + text[5:15]  # "cab" is text[2:5]
    assert next_token_probs("bca", model) == {"a": 0.0, "b": 1.0, "c": 0.0}
    assert complete("aa", max_new_tokens=6, model=compile_pattern("aab")) == "aabaabaa"
    assert complete("xyz", max_new_tokens=4, model=compile_pattern("xyz")) == "xyzxyzx"


def test_a_context_too_short_or_outside_the_alphabet_is_refused():
    model = compile_pattern("abcab")
    with pytest.raises(ValueError, match=r"context 'ab' is too short: the last 3 characters of \(abcab\)\* decide"):
        predict("ab", model)
    with pytest.raises(ValueError, match="'d' at position 1 is not a token; the allowed characters are 'a', 'b' and 'c'"):
        complete("adc", model=model)
    with pytest.raises(ValueError, match="context is empty"):
        trace("", model=model)


def test_the_tokenizer_takes_an_alphabet():
    assert tokenize("cab", chars=("a", "b", "c")) == [2, 0, 1]
    assert untok(2, chars="abc") == "c"
    with pytest.raises(ValueError, match="'x' at position 0 is not a token; the allowed characters are 'a', 'b' and 'c'"):
        tokenize("x", chars="abc")
    with pytest.raises(ValueError, match="chars has 'a' more than once; each character is one token"):
        tokenize("a", chars=("a", "a"))
    with pytest.raises(ValueError, match="token must be 0..3, got 4"):
        untok(4, chars="abcd")


@pytest.mark.parametrize("pattern", ["a", "ab", "aab", "abcab", "aaab", "abcd", "abacabad"])
def test_verify_checks_every_phase_and_length(pattern):
    model = compile_pattern(pattern)
    k, n = model.k, len(pattern)
    result = verify(max_len=12, model=model)
    assert result.passed and result.checked == n * (12 - k + 1)
    assert result.min_margin == (np.inf if pattern == "a" else LG)
    assert result.first_failure is None


def test_verify_names_the_first_failing_context():
    model = compile_pattern("abcab")
    broken = copy.deepcopy(model)
    unit = model.hidden_labels.index("abc→a")
    broken.weights["blocks"][0]["mlp"]["c_fc"]["b"][unit] += 16  # fires with one slot wrong
    result = verify(max_len=6, model=broken)
    # Windows one slot away from abc: aba (next b) and bbc/cbc/acc... only aba occurs; it then has a tie 1024 : 1024
    text = repetition("abcab", 10)
    expected = sorted(
        ((text[s : s + n], text[s + n]) for n in range(3, 7) for s in range(5) if text[s + n - 3 : s + n] == "aba"),
        key=lambda f: len(f[0]),
    )
    assert set(result.failures) == set(expected) and result.min_margin == 0
    assert result.first_failure == expected[0] == ("aba", "b")


def test_verify_with_a_pattern_checks_the_hand_made_model_on_it():
    assert verify(max_len=30, model=MODEL, pattern="aab") == verify(max_len=30)
    wrong = verify(max_len=8, model=MODEL, pattern="abb")  # the (aab)* model on (abb)*
    assert not wrong.passed and wrong.first_failure == ("ab", "b")
    assert valid_contexts(4, pattern="abb")[:3] == [("ab", "b"), ("bb", "a"), ("ba", "b")]
    with pytest.raises(ValueError, match="pattern 'abc' has characters the model has no token for: 'c'"):
        verify(model=MODEL, pattern="abc")
    with pytest.raises(ValueError, match="max_len must be at least 3"):
        verify(max_len=2, model=compile_pattern("abcab"))


def test_evaluate_skips_the_first_k_characters():
    model = compile_pattern("aaab")
    result = evaluate("aaab" * 5, model)
    assert (result.correct, result.total) == (16, 16)  # positions 3 .. 18
    assert evaluate("aaab" * 5 + "b" + "aaab", model).mistakes == (20,)
    with pytest.raises(ValueError, match="text must have at least 5 characters"):
        evaluate("aaab", model)


def test_trace_keeps_every_head_and_the_lookup_table():
    model = compile_pattern("abcab")
    t = trace("cabca", model=model)  # the model sees the last 3: "bca"
    assert t.context == "bca" and t.predictions[-1] == "b"
    assert t.attention_weights.shape == (3, 3, 3)
    for d in range(3):  # head d at the last position looks exactly d back
        assert t.attention_weights[d, -1].tolist() == [1.0 if j == 2 - d else 0.0 for j in range(3)]
    assert t.pre_activation[-1].tolist() == [-40.0, 8.0, -40.0, -24.0, -24.0]
    assert t.hidden[-1].tolist() == [0.0, 8.0, 0.0, 0.0, 0.0]
    assert t.logits[-1].tolist() == [0.0, 1024.0, 0.0]
    np.testing.assert_array_equal(t.logits, gpt2(t.tokens, **model.weights, n_head=3))


def test_the_hand_made_model_is_unchanged():
    assert verify(max_len=30).min_margin == 1023 and evaluate().correct == 27
    assert explain("aabaa").splitlines()[0] == "token  next   p(a)   p(b)  logit(a)  logit(b)"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "handtf", *args], capture_output=True, text=True, timeout=60)


def test_cli_compile_prints_the_design_and_its_check():
    result = cli("compile", "abcab")
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "pattern (abcab)*: period 5, characters 'abc'"
    assert "  bca -> b" in lines
    assert lines[-2:] == ["checked 140 contexts of length 3 to 30: 140 correct", "smallest logit margin: 1024"]


def test_cli_verify_pattern():
    result = cli("verify", "--pattern", "abab", "--max-len", "10")  # reduced to (ab)*, k = 1
    assert (result.returncode, result.stdout) == (0, "checked 20 contexts of length 1 to 10: 20 correct\nsmallest logit margin: 1024\n")


@pytest.mark.parametrize(
    "args, message",
    [
        (("compile", ""), "pattern is empty"),
        (("compile", "a b"), "' ' at position 1 of the pattern cannot be a token"),
        (("compile", "a" * 13 + "b"), "the design supports at most 12 (GPT-2 small's heads)"),
        (("compile", "aab", "--n-ctx", "1"), "n_ctx must be 2 to 1024"),
        (("verify", "--pattern", "abcab", "--max-len", "2"), "max_len must be at least 3"),
    ],
)
def test_cli_errors_are_one_line(args, message):
    result = cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr and "Traceback" not in result.stderr
