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
        (lambda: verify("5"), TypeError, "max_len must be an int, got str"),
        (lambda: valid_contexts(0), ValueError, "at least 2"),
    ],
)
def test_evaluation_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
