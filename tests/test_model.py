"""The forward pass and the hand-designed weights."""

import warnings

import numpy as np
import pytest

from handtf import (
    EMBED_LABELS,
    LG,
    MODEL,
    N_CTX,
    N_EMBED,
    N_VOCAB,
    QKV_LABELS,
    attention,
    build_model,
    causal_mask,
    causal_self_attention,
    gpt,
    linear,
    softmax,
    tokenize,
)


def test_dimensions_and_labels():
    assert (N_CTX, N_VOCAB, N_EMBED, LG) == (5, 2, 8, 1024)
    assert len(EMBED_LABELS) == N_EMBED and len(QKV_LABELS) == 3 * N_EMBED
    assert MODEL["wte"].shape == (N_VOCAB, N_EMBED)
    assert MODEL["wpe"].shape == (N_CTX, N_EMBED)
    attn = MODEL["blocks"][0]["attn"]
    assert attn["c_attn"]["w"].shape == (N_EMBED, 3 * N_EMBED)
    assert attn["c_attn"]["b"].shape == (3 * N_EMBED,)
    assert attn["c_proj"]["w"].shape == (N_EMBED, N_EMBED)
    assert attn["c_proj"]["b"].shape == (N_EMBED,)


def tutorial_c_attn(lg):
    """The tutorial's c_attn, written out row by row as it prints it."""
    rows = []
    for i in range(8):
        q, k, v = [0.0] * 8, [0.0] * 8, [0.0] * 8
        if i < 5:
            q[max(i - 1, 0)] = lg
            q[i] = lg
            k[i] = 1.0
        v[7] = {5: 1.0, 6: -1.0}.get(i, 0.0)
        rows.append(q + k + v)
    return np.array(rows)


@pytest.mark.parametrize("lg", [1, 2.5, 1024])
def test_weights_match_the_tutorial(lg):
    model = build_model(lg)
    np.testing.assert_array_equal(model["blocks"][0]["attn"]["c_attn"]["w"], tutorial_c_attn(lg))
    c_proj = model["blocks"][0]["attn"]["c_proj"]
    expected_w = np.zeros((8, 8))
    expected_w[7, 5:7] = [-lg, lg]
    np.testing.assert_array_equal(c_proj["w"], expected_w)
    np.testing.assert_array_equal(c_proj["b"], [0, 0, 0, 0, 0, lg, 0, 0])
    np.testing.assert_array_equal(model["wte"], np.eye(8)[[5, 6]])
    np.testing.assert_array_equal(model["wpe"], np.eye(8)[:5])


def test_softmax_rows_sum_to_one_and_shift_invariant():
    x = np.array([[1.0, 2.0, 3.0], [10.0, 0.0, 0.0]])
    p = softmax(x)
    np.testing.assert_allclose(p.sum(axis=-1), 1.0)
    np.testing.assert_allclose(softmax(x + 100), p)
    np.testing.assert_allclose(p[0], np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum())


def test_linear_and_attention_against_direct_formulas():
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=2)
    np.testing.assert_allclose(linear(x, w, b), x @ w + b)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 5))
    mask = causal_mask(3)
    scores = q @ k.T / 2.0 + mask
    expected = np.exp(scores - scores.max(1, keepdims=True))
    expected = expected / expected.sum(1, keepdims=True) @ v
    np.testing.assert_allclose(attention(q, k, v, mask), expected)


def test_causal_mask_hides_only_the_future():
    mask = causal_mask(4)
    assert (mask[np.tril_indices(4)] == 0).all()
    assert (mask[np.triu_indices(4, 1)] == -1e10).all()
    assert np.isfinite(causal_mask(4, np.float16)).all()


def test_changing_a_later_token_never_changes_an_earlier_logit():
    base = np.array(tokenize("aabaa"))
    for position in range(5):
        changed = base.copy()
        changed[position] = 1 - changed[position]
        np.testing.assert_array_equal(gpt(changed, **MODEL)[:position], gpt(base, **MODEL)[:position])


def test_batch_equals_one_sequence_at_a_time():
    batch = np.array([tokenize(s) for s in ["aabaa", "abaab", "baaba", "bbbbb", "ababa"]])
    logits = gpt(batch, **MODEL)
    assert logits.shape == (5, 5, 2)
    for row, tokens in zip(logits, batch):
        np.testing.assert_array_equal(row, gpt(tokens, **MODEL))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_every_float_dtype_gives_the_same_predictions_without_warnings(dtype):
    model = build_model(dtype=dtype)
    batch = np.array([tokenize(s) for s in ["aabaa", "abaab", "baaba", "aa", "a"][:3]])
    with warnings.catch_warnings(), np.errstate(all="raise", under="ignore"):
        warnings.simplefilter("error")
        logits = gpt(batch, **model)
        short = gpt(np.array([0]), **model)
    assert logits.dtype == dtype and short.dtype == dtype
    assert np.isfinite(logits).all()
    np.testing.assert_array_equal(logits.argmax(-1), gpt(batch, **MODEL).argmax(-1))


def test_unit_weights_gpt_matches_the_tutorial_numbers():
    logits = gpt(np.array(tokenize("aabaa")), **MODEL)
    np.testing.assert_array_equal(
        logits, [[1, 1024], [1, 1024], [1024, 1], [1025, 0], [1, 1024]]
    )


@pytest.mark.parametrize(
    "inputs, error, message",
    [
        ([0.0, 1.0], TypeError, "inputs must be integer token ids, got float64"),
        ([True, False], TypeError, "inputs must be integer token ids, got bool"),
        ([0, 2], ValueError, r"inputs must be token ids in 0..1 .* got 2"),
        ([-1, 0], ValueError, r"got -1"),
        ([], ValueError, "a sequence must hold 1 to 5 tokens"),
        ([0] * 6, ValueError, r"1 to 5 tokens \(the context length\), got 6"),
        ([[[0]]], ValueError, r"shape \[n_seq\] or \[n_batch, n_seq\]"),
    ],
)
def test_gpt_refuses_bad_token_ids(inputs, error, message):
    with pytest.raises(error, match=message):
        gpt(np.array(inputs), **MODEL)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"lg": 0}, ValueError, "lg must be a positive finite number, got 0"),
        ({"lg": float("inf")}, ValueError, "finite"),
        ({"lg": "big"}, TypeError, "lg must be a real number, got 'big'"),
        ({"dtype": np.int64}, TypeError, "floating-point"),
    ],
)
def test_build_model_refuses_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        build_model(**kwargs)


ATTN = MODEL["blocks"][0]["attn"]


@pytest.mark.parametrize(
    "weights, error, message",
    [
        ({"wte": np.ones((2, 7))}, ValueError, r"wte and wpe must have shapes .* same n_embd, got \(2, 7\) and \(5, 8\)"),
        ({"wpe": np.ones(8)}, ValueError, r"got \(2, 8\) and \(8,\)"),
        ({"blocks": None}, TypeError, "blocks must be a list of blocks, got NoneType"),
        ({"blocks": [ATTN]}, ValueError, r"blocks\[0\] must be a dict \{'attn': .*got \{'c_attn': \{'w': ndarray"),
        ({"blocks": [{"attn": {"c_attn": ATTN["c_attn"]}}]}, ValueError, r"blocks\[0\] must be a dict"),
        (
            {"blocks": [{"attn": {**ATTN, "c_proj": {"w": np.ones((8, 3)), "b": np.zeros(3)}}}]},
            ValueError,
            r"blocks\[0\]\['attn'\]\['c_proj'\] must have w of shape \(8, 8\) and b of shape \(8,\), got w \(8, 3\) and b \(3,\)",
        ),
        (
            {"blocks": [{"attn": {**ATTN, "c_attn": {"w": np.ones((8, 9)), "b": np.zeros(9)}}}]},
            ValueError,
            r"blocks\[0\]\['attn'\]\['c_attn'\] must have w of shape \(8, 24\) and b of shape \(24,\), got w \(8, 9\)",
        ),
    ],
)
def test_gpt_refuses_weights_that_do_not_fit_together(weights, error, message):
    with pytest.raises(error, match=message):
        gpt(np.array([0, 1]), **{**MODEL, **weights})


def test_causal_self_attention_refuses_inputs_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"x must have shape \[\.\.\., n_seq, n_embd\], got shape \(8,\)"):
        causal_self_attention(np.ones(8), **ATTN)
    with pytest.raises(ValueError, match=r"c_attn must have w of shape \(5, 15\)"):
        causal_self_attention(np.ones((3, 5)), **ATTN)
    with pytest.raises(ValueError, match="c_attn must be a dict with keys 'w' and 'b'"):
        causal_self_attention(np.ones((3, 8)), [ATTN["c_attn"]["w"]], ATTN["c_proj"])
