"""The accuracy test, the exhaustive verification, and the batched evaluation."""

import numpy as np
import pytest

from handtf import MODEL, build_model, evaluate, gpt, next_token_logits, predict, tokenize, valid_contexts, verify


def per_prefix_evaluation(text, model=MODEL):
    """The tutorial's loop: one forward pass per prefix (the reference)."""
    correct = 0
    positions = range(2, len(text) - 1)
    for i in positions:
        window = np.array(tokenize(text[:i])[-5:])
        correct += int(gpt(window, **model)[-1].argmax()) == tokenize(text[i])[0]
    return correct, len(positions)


def test_27_of_27():
    result = evaluate("aab" * 10)
    assert (result.correct, result.total, result.accuracy, result.mistakes) == (27, 27, 1.0, ())


@pytest.mark.parametrize("text", ["aab" * 10, "abab" * 5, "bbaabbba", "aaaaaaa", "aabaabbaab", "abaa"])
@pytest.mark.parametrize("lg", [1, 3, 1024])
def test_batched_evaluation_equals_the_per_prefix_loop(text, lg):
    model = build_model(lg)
    result = evaluate(text, model)
    assert (result.correct, result.total) == per_prefix_evaluation(text, model)


def test_evaluate_reports_where_it_went_wrong():
    result = evaluate("abababab")
    assert result.mistakes == (3, 5)
    assert result.correct == result.total - 2


def test_next_token_logits_matches_one_call_per_prefix():
    tokens = tokenize("baabaabbab")
    lengths = np.arange(1, len(tokens) + 1)
    expected = [gpt(np.array(tokens[:n][-5:]), **MODEL)[-1] for n in lengths]
    np.testing.assert_array_equal(next_token_logits(tokens, lengths), expected)


def test_every_valid_context_is_predicted_right():
    result = verify(max_len=60)
    assert result.passed and result.failures == ()
    assert result.checked == 3 * 59
    assert result.min_margin == 1023.0
    for context, expected in valid_contexts(12):
        assert predict(context) == expected


def test_valid_contexts_are_substrings_of_the_pattern():
    contexts = valid_contexts(9)
    assert len(contexts) == 3 * 8
    for context, following in contexts:
        assert (context + following) in "aab" * 5


def test_a_small_lg_fails_verification_and_says_where():
    result = verify(max_len=10, model=build_model(lg=2))
    assert not result.passed
    assert ("aabaa", "b") in result.failures
    assert result.min_margin < 0


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: evaluate("aab"), ValueError, "at least 4 characters .* got 3"),
        (lambda: evaluate("aabc"), ValueError, "'c' at position 3"),
        (lambda: evaluate(7), TypeError, "got int"),
        (lambda: verify(1), ValueError, "at least 2"),
        (lambda: verify("5"), TypeError, "max_len must be an integer, got '5'"),
        (lambda: valid_contexts(0), ValueError, "at least 2"),
        (lambda: next_token_logits([], [1]), ValueError, r"token_ids must be a non-empty sequence of shape \[n_text\], got shape \(0,\)"),
        (lambda: next_token_logits("aab", [1]), ValueError, r"token_ids must be a non-empty sequence .* got shape \(\)"),
        (lambda: next_token_logits([0, 2, 0], [2]), ValueError, r"token_ids must be token ids in 0..1 .* got 2"),
        (lambda: next_token_logits([0.0, 1.0], [2]), TypeError, "token_ids must be integer token ids, got float64 values"),
        (lambda: next_token_logits([0, 1, 0], [1.5]), TypeError, "context_lengths must be integers, got float64 values"),
        (lambda: next_token_logits([0, 1, 0], 2), ValueError, r"context_lengths must have shape \[n_contexts\], got shape \(\)"),
        (lambda: next_token_logits([0, 1, 0], [0]), ValueError, r"context_lengths must be in 1..3 \(the text's length\), got 0"),
        (lambda: next_token_logits([0, 1, 0], [2, 4]), ValueError, "got 4"),
    ],
)
def test_evaluation_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_next_token_logits_takes_numpy_lengths_of_any_integer_type_and_none_at_all():
    tokens = tokenize("aabaabaa")
    expected = next_token_logits(tokens, [2, 8])
    np.testing.assert_array_equal(next_token_logits(np.array(tokens, np.uint8), np.array([2, 8], np.uint8)), expected)
    assert next_token_logits(tokens, []).shape == (0, 2)


def test_verify_and_valid_contexts_take_numpy_integers():
    assert verify(np.int64(12)) == verify(12)
    assert valid_contexts(np.int32(4)) == valid_contexts(4)
