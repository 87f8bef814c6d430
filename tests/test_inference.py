"""Tokenizer, prediction, completion, trace and display."""

import numpy as np
import pytest

from handtf import (
    MODEL,
    Trace,
    build_model,
    complete,
    context_window,
    explain_rows,
    format_matrix,
    format_number,
    gpt,
    next_token_probs,
    predict,
    tokenize,
    trace,
    untok,
)


def test_tokenize_round_trips():
    assert tokenize("aabaa") == [0, 0, 1, 0, 0]
    assert tokenize("") == []
    assert "".join(untok(t) for t in tokenize("abba")) == "abba"
    assert untok(np.int64(1)) == "b"


@pytest.mark.parametrize(
    "text, error, message",
    [
        ("abc", ValueError, r"'c' at position 2 is not a token; the allowed characters are 'a' and 'b'"),
        ("A", ValueError, r"'A' at position 0"),
        ("a b", ValueError, r"' ' at position 1"),
        (b"ab", TypeError, "text must be a str, got bytes"),
        (None, TypeError, "text must be a str, got NoneType"),
        (["a"], TypeError, "got list"),
    ],
)
def test_tokenize_refuses_bad_text(text, error, message):
    with pytest.raises(error, match=message):
        tokenize(text)


@pytest.mark.parametrize(
    "token, error, message",
    [(2, ValueError, "got 2"), (-1, ValueError, "got -1"), ("a", TypeError, "got str"), (True, TypeError, "got bool")],
)
def test_untok_refuses_bad_tokens(token, error, message):
    with pytest.raises(error, match=message):
        untok(token)


@pytest.mark.parametrize(
    "context, expected",
    [("a", "abaabaabaab"), ("ba", "baabaabaabaa"), ("abaab", "abaabaabaabaaba")],
)
def test_the_three_completions_of_the_tutorial(context, expected):
    assert complete(context) == expected


def test_complete_recovers_from_a_context_outside_the_pattern():
    # "bb" never occurs in (aab)*; two steps later the model is back in phase.
    assert complete("bbbbb", 6) == "bbbbbaabaab"[: 5 + 6]
    assert complete("ab", 0) == "ab"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: complete(""), ValueError, "context is empty"),
        (lambda: complete(5), TypeError, "context must be a str of the characters .a. and .b., got int"),
        (lambda: complete("a", -1), ValueError, "max_new_tokens must be at least 0, got -1"),
        (lambda: complete("a", 2.0), TypeError, "max_new_tokens must be an integer, got 2.0"),
        (lambda: predict(""), ValueError, "context is empty"),
        (lambda: predict("abx"), ValueError, "'x' at position 2"),
        (lambda: next_token_probs(None), TypeError, "got NoneType"),
        (lambda: trace(""), ValueError, "context is empty"),
    ],
)
def test_inference_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_model_sees_only_the_last_five_tokens():
    assert context_window("bbbbbaabaa") == tokenize("aabaa")
    assert predict("bbbbbaabaa") == predict("aabaa") == "b"


def test_next_token_probs_is_a_distribution():
    probs = next_token_probs("aab")
    assert set(probs) == {"a", "b"} and sum(probs.values()) == pytest.approx(1.0)
    assert probs["a"] > 0.999


def test_explain_rows_are_the_predictions_after_each_prefix():
    rows = explain_rows("aabaa")
    assert "".join(row["next"] for row in rows) == "bbaab"
    assert rows[-1]["logits"] == (1.0, 1024.0)


def test_trace_agrees_with_gpt_and_with_the_tutorial():
    t = trace("aabaa")
    assert [name for name in Trace.names() if len(getattr(t, name)) != 5] == []  # one row per token
    np.testing.assert_array_equal(t.logits, gpt(t.tokens, **MODEL))
    np.testing.assert_array_equal(t.embedding, t.token_embedding + t.position_embedding)
    np.testing.assert_array_equal(t.qkv, np.concatenate([t.q, t.k, t.v], axis=1))
    expected_weights = np.zeros((5, 5))
    expected_weights[0, 0] = 1
    for i in range(1, 5):
        expected_weights[i, i - 1 : i + 1] = 0.5
    np.testing.assert_allclose(t.attention_weights, expected_weights, atol=1e-100)
    np.testing.assert_array_equal(t.attention_output[:, 7], [1, 1, 0, 0, 1])
    np.testing.assert_array_equal(t.v[:, 7], [1, 1, -1, 1, 1])
    assert t.predictions == "bbaab"
    assert t.context == "aabaa"


def test_trace_with_a_small_lg_blurs_attention():
    t = trace("aabaa", build_model(lg=1))
    assert t.attention_weights[4, 4] < 0.5 and t.attention_weights[4, 0] > 0.05


@pytest.mark.parametrize(
    "model, error, message",
    [
        (None, TypeError, r"model must be HAND_MADE, compile_pattern\(...\), induction_head\(...\), adder\(...\) or a weight dict like build_model\(\)'s, got None"),
        ({"wte": MODEL["wte"], "blocks": MODEL["blocks"]}, ValueError, r"keys 'wte', 'wpe' and 'blocks'.*got one without 'wpe'"),
        ({**MODEL, "wpe": MODEL["wpe"][:3]}, ValueError, r"a sequence must hold 1 to 3 tokens \(the context length\), got 5"),
        ({**MODEL, "wte": np.ones((2, 7))}, ValueError, r"wte and wpe must have shapes"),
        (
            {**MODEL, "blocks": [{"attn": {**MODEL["blocks"][0]["attn"], "c_proj": {"w": np.ones((8, 3)), "b": np.zeros(3)}}}]},
            ValueError,
            r"blocks\[0\]\['attn'\]\['c_proj'\] must have w of shape \(8, 8\)",
        ),
    ],
)
def test_trace_refuses_a_model_it_cannot_follow(model, error, message):
    with pytest.raises(error, match=message):
        trace("aabaa", model)


def test_complete_reads_only_the_last_five_characters():
    long = "aab" * 400 + "a"
    assert complete(long, 7)[len(long) :] == complete(long[-5:], 7)[5:] == "abaabaa"
    assert complete("a", np.int64(2)) == "aba"


def test_format_number_keeps_the_digits_of_whole_numbers():
    assert [format_number(1500.0, digits=0), format_number(1.5, digits=0), format_number(0.25, digits=1)] == ["1500", "2", "0.2"]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: format_matrix([["a", "b"]]), TypeError, "matrix must hold real numbers, got <U1 values"),
        (lambda: format_matrix([1 + 2j]), TypeError, "got complex128 values"),
        (lambda: format_matrix([[1, "2"]]), TypeError, "matrix must hold real numbers"),
        (lambda: format_matrix(None), TypeError, "got object values"),
        (lambda: format_matrix([]), ValueError, r"matrix must be a non-empty 1-d or 2-d array, got shape \(0,\)"),
        (lambda: format_matrix(np.zeros((0, 3))), ValueError, r"got shape \(0, 3\)"),
        (lambda: format_matrix(3.0), ValueError, r"got shape \(\)"),
        (lambda: format_matrix([1.0], digits=-1), ValueError, "digits must be 0 or more, got -1"),
        (lambda: format_matrix([1.0], digits=1.5), TypeError, "digits must be an integer, got 1.5"),
        (lambda: format_number("1.5"), TypeError, "value must be a real number, got '1.5'"),
        (lambda: format_number(np.ones(2)), TypeError, "value must be a real number"),
    ],
)
def test_display_refuses_what_is_not_a_table_of_numbers(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_format_matrix_checks_labels():
    with pytest.raises(ValueError, match="rows has 1 labels for 2 rows"):
        format_matrix([[1], [2]], rows=["x"])
    with pytest.raises(ValueError, match="1-d or 2-d"):
        format_matrix(np.zeros((2, 2, 2)))
