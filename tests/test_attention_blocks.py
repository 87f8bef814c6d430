"""The attention building blocks of handtf against independently computed values.

The references here are written with plain Python loops and explicit column
slices, not with handtf's functions, so that a shared mistake cannot hide.
"""

import math

import numpy as np
import pytest

from handtf import (
    attend_heads,
    attention_weights,
    causal_mask,
    causal_self_attention,
    merge_heads,
    mha,
    multi_head_attention,
    padding_mask,
    attention,
    softmax,
    split_heads,
)

MASKED = -1e10


# --- references: loops over queries, keys and heads ---------------------------------------------


def ref_attention(q, k, v, hidden=None):
    """Scaled dot-product attention of one sequence, one query at a time.

    ``hidden(i, j)`` says whether query ``i`` may not see key ``j``.
    """
    n_q, d_k = q.shape
    n_k = k.shape[0]
    out = np.zeros((n_q, v.shape[1]))
    weights = np.zeros((n_q, n_k))
    for i in range(n_q):
        visible = [j for j in range(n_k) if hidden is None or not hidden(i, j)]
        scores = {j: sum(q[i, c] * k[j, c] for c in range(d_k)) / math.sqrt(d_k) for j in visible}
        top = max(scores.values())
        exps = {j: math.exp(s - top) for j, s in scores.items()}
        total = sum(exps.values())
        for j, e in exps.items():
            weights[i, j] = e / total
            out[i] += weights[i, j] * v[j]
    return out, weights


def ref_heads(q, k, v, n_head, hidden=None):
    """Attention head by head on explicit column slices, glued back together."""
    d_head, d_v_head = q.shape[1] // n_head, v.shape[1] // n_head
    outs = []
    for h in range(n_head):
        cols, vcols = slice(h * d_head, (h + 1) * d_head), slice(h * d_v_head, (h + 1) * d_v_head)
        outs.append(ref_attention(q[:, cols], k[:, cols], v[:, vcols], hidden)[0])
    return np.hstack(outs)


def causal(i, j):
    return j > i


def ref_mha(x, c_attn, c_proj, n_head):
    """GPT-2's causal multi-head self-attention, from its definition."""
    d = x.shape[1]
    w, b = c_attn["w"], c_attn["b"]
    q = x @ w[:, :d] + b[:d]
    k = x @ w[:, d : 2 * d] + b[d : 2 * d]
    v = x @ w[:, 2 * d :] + b[2 * d :]
    return ref_heads(q, k, v, n_head, causal) @ c_proj["w"] + c_proj["b"]


def ref_multi_head_attention(x, memory, c_q, c_k, c_v, c_proj, n_head, hidden=None):
    q = x @ c_q["w"] + c_q["b"]
    k = memory @ c_k["w"] + c_k["b"]
    v = memory @ c_v["w"] + c_v["b"]
    return ref_heads(q, k, v, n_head, hidden) @ c_proj["w"] + c_proj["b"]


def dense(rng, n_in, n_out, scale=1.0):
    return {"w": scale * rng.standard_normal((n_in, n_out)), "b": scale * rng.standard_normal(n_out)}


# --- the source notebook's three-token example --------------------------------------------------

EMB = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])


def test_the_notebook_example_reproduces_its_printed_numbers():
    # printed by the notebook with numpy's default 8 decimals
    scores = [[1.0, 0.5, 0.0], [0.5, 0.5, 0.5], [0.0, 0.5, 1.0]]
    weights = [
        [0.45552749, 0.31986617, 0.22460634],
        [0.33333333, 0.33333333, 0.33333333],
        [0.22460634, 0.31986617, 0.45552749],
    ]
    output = [[0.61546057, 0.38453943], [0.5, 0.5], [0.38453943, 0.61546057]]
    assert np.array_equal(EMB @ EMB.T, scores)
    assert np.allclose(attention_weights(EMB, EMB), weights, rtol=0, atol=5e-9)
    assert np.allclose(attention(EMB, EMB, EMB), output, rtol=0, atol=5e-9)


def test_the_notebook_example_by_hand():
    # row 0: softmax([1, 0.5, 0] / sqrt 2), computed with math alone
    exps = [math.exp(s / math.sqrt(2)) for s in (1.0, 0.5, 0.0)]
    row = [e / sum(exps) for e in exps]
    assert attention_weights(EMB, EMB)[0].tolist() == pytest.approx(row, abs=1e-15)
    out = [sum(row[j] * EMB[j, c] for j in range(3)) for c in range(2)]
    assert attention(EMB, EMB, EMB)[0].tolist() == pytest.approx(out, abs=1e-15)


# --- the soft lookup ----------------------------------------------------------------------------


def test_a_soft_lookup_is_a_weighted_sum_and_an_exact_lookup_is_one_hot():
    table = {"apple": 10, "banana": 5, "chair": 2}
    weights = {"apple": 0.6, "banana": 0.4, "chair": 0.0}
    assert sum(weights[key] * table[key] for key in table) == 8.0
    keys = 100 * np.eye(3)  # three orthogonal keys; a sharp query on the first
    values = np.array([[10.0], [5.0], [2.0]])
    assert attention(keys[:1], keys, values)[0, 0] == 10.0


def test_one_query_is_a_softmax_of_dot_products():
    keys = np.array([[1, 0, 0, 0, 0.8, 0.2], [0, 1, 0, 0, 1.0, 0.0], [0, 0, 1, 0, 0.5, 0.5], [0, 0, 0, 1, 0.2, 0.8]])
    prices = np.array([3.0, 2.0, 4.0, 5.0])
    query = np.array([4.0, 0, 0, 0, 0, 0])
    expected = [math.exp(float(key @ query) / math.sqrt(6)) for key in keys]
    expected = [e / sum(expected) for e in expected]
    assert attention_weights(query[None], keys)[0].tolist() == pytest.approx(expected, abs=1e-15)
    out = attention(query[None], keys, prices[:, None])
    assert out.shape == (1, 1)
    assert out[0, 0] == pytest.approx(sum(w * p for w, p in zip(expected, prices)), abs=1e-14)


# --- scaled dot-product attention against the loop reference ------------------------------------


@pytest.mark.parametrize("n_q, n_k, d_k, d_v", [(1, 1, 1, 1), (3, 3, 2, 2), (2, 5, 4, 3), (6, 2, 8, 1), (4, 4, 16, 5)])
def test_attention_matches_the_loop_reference(n_q, n_k, d_k, d_v):
    rng = np.random.default_rng(n_q * 100 + n_k * 10 + d_k)
    q, k, v = rng.standard_normal((n_q, d_k)), rng.standard_normal((n_k, d_k)), rng.standard_normal((n_k, d_v))
    out, weights = ref_attention(q, k, v)
    assert np.allclose(attention_weights(q, k), weights, rtol=0, atol=1e-12)
    assert np.allclose(attention(q, k, v), out, rtol=0, atol=1e-12)
    assert np.allclose(attention_weights(q, k).sum(axis=-1), 1.0)


def test_a_mask_equals_leaving_the_hidden_keys_out():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((5, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 3))
    out, weights = ref_attention(q, k, v, causal)
    assert np.allclose(attention_weights(q, k, causal_mask(5)), weights, rtol=0, atol=1e-12)
    assert np.allclose(attention(q, k, v, causal_mask(5)), out, rtol=0, atol=1e-12)


def test_a_batch_equals_one_sequence_at_a_time():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 4, 2)), rng.standard_normal((3, 5, 2)), rng.standard_normal((3, 5, 3))
    key_is_pad = np.array([[False] * 5, [False, False, False, True, True], [False] * 4 + [True]])
    mask = padding_mask(key_is_pad)  # [3, 1, 5]
    batch = attention(q, k, v, mask)
    for b in range(3):
        hidden = lambda i, j, b=b: bool(key_is_pad[b, j])
        assert np.allclose(batch[b], ref_attention(q[b], k[b], v[b], hidden)[0], rtol=0, atol=1e-12)


# --- masks --------------------------------------------------------------------------------------


def test_causal_mask_is_the_upper_triangle():
    for n in range(1, 7):
        mask = causal_mask(n)
        for i in range(n):
            for j in range(n):
                assert mask[i, j] == (MASKED if j > i else 0.0)
        # the notebook's construction, with -1e10 for -inf
        assert np.array_equal(mask, np.triu(np.full((n, n), MASKED), k=1))


def test_causal_mask_in_float16_leaves_room_below_it():
    mask = causal_mask(3, np.float16)
    assert mask.dtype == np.float16
    assert float(mask[0, 1]) == -32752.0
    assert float(np.finfo(np.float16).min) == 2 * float(mask[0, 1])


def test_causally_masked_weights_are_exactly_zero_above_the_diagonal():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 4)) * 10
    weights = attention_weights(x, x, causal_mask(6))
    assert np.all(weights[np.triu_indices(6, k=1)] == 0.0)
    assert weights[0, 0] == 1.0


def test_padding_mask_values_and_shape():
    mask = padding_mask(np.array([False, True, False]))
    assert mask.shape == (1, 3)
    assert mask.tolist() == [[0.0, MASKED, 0.0]]
    assert padding_mask(np.array([[False, True], [True, False]]), n_q=3).shape == (2, 3, 2)


def test_padding_and_causal_masks_combine_with_minimum():
    key_is_pad = np.array([[False, False, False, False], [False, False, True, True]])
    both = np.minimum(causal_mask(4), padding_mask(key_is_pad))
    assert both.shape == (2, 4, 4)
    for b in range(2):
        for i in range(4):
            for j in range(4):
                assert both[b, i, j] == (MASKED if (j > i or key_is_pad[b, j]) else 0.0)
    # summing would double the hidden score where both hide a key; the minimum never does
    assert both.min() == MASKED
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 2))
    weights = attention_weights(x, x, both)
    assert np.all(weights[1][:, 2:] == 0.0)  # padding keys get no weight
    # the real tokens of the padded sequence get what they get without the padding
    alone = attention(x[1, :2], x[1, :2], x[1, :2], causal_mask(2))
    assert np.allclose(attention(x, x, x, both)[1, :2], alone, rtol=0, atol=1e-15)


def test_a_fully_hidden_row_stays_finite():
    left = np.array([[9.0, 9.0], [1.0, 0.0], [0.0, 1.0]])  # padding first
    mask = np.minimum(causal_mask(3), padding_mask(np.array([True, False, False])))
    weights = attention_weights(left, left, mask)
    assert np.all(np.isfinite(weights))
    assert np.allclose(weights.sum(axis=-1), 1.0)
    # rows that can see a key attend only to what they may see
    assert weights[1].tolist() == [0.0, 1.0, 0.0]
    assert weights[2, 0] == 0.0


def change_each_token_and_compare(attend, x):
    """For each position t, add 1 to token t: outputs before t must not change at all, the one at t must."""
    before = attend(x)
    for t in range(x.shape[-2]):
        changed = x.copy()
        changed[..., t, :] += 1.0
        after = attend(changed)
        assert np.array_equal(after[..., :t, :], before[..., :t, :]), f"changing token {t} changed an earlier output"
        assert not np.allclose(after[..., t, :], before[..., t, :]), f"changing token {t} did not change its own output"


def test_the_causal_mask_never_leaks_the_future_in_attention():
    rng = np.random.default_rng(5)
    change_each_token_and_compare(lambda x: attention(x, x, x, causal_mask(6)), rng.standard_normal((6, 3)))


@pytest.mark.parametrize("n_head", [1, 2, 4])
def test_mha_never_leaks_the_future(n_head):
    rng = np.random.default_rng(6)
    c_attn, c_proj = dense(rng, 8, 24, scale=0.5), dense(rng, 8, 8)  # small enough not to saturate softmax
    change_each_token_and_compare(lambda x: mha(x, c_attn, c_proj, n_head), rng.standard_normal((5, 8)))
    change_each_token_and_compare(lambda x: mha(x, c_attn, c_proj, n_head), rng.standard_normal((2, 5, 8)))


@pytest.mark.parametrize("n_head", [1, 2, 4])
def test_multi_head_attention_with_a_causal_mask_never_leaks_the_future(n_head):
    rng = np.random.default_rng(7)
    c_q, c_k, c_v, c_proj = (dense(rng, 4, 4, scale=0.5) for _ in range(4))
    attend = lambda x: multi_head_attention(x, x, c_q, c_k, c_v, c_proj, n_head, mask=causal_mask(x.shape[-2]))
    change_each_token_and_compare(attend, rng.standard_normal((5, 4)))
    change_each_token_and_compare(attend, rng.standard_normal((3, 5, 4)))


def test_without_a_mask_the_future_does_leak():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 3))
    changed = x.copy()
    changed[3] += 1.0
    assert not np.allclose(attention(changed, changed, changed)[0], attention(x, x, x)[0])


# --- heads --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_head", [1, 2, 4, 8])
def test_split_heads_takes_consecutive_column_slices(n_head):
    x = np.arange(40.0).reshape(5, 8)
    heads = split_heads(x, n_head)
    d_head = 8 // n_head
    assert heads.shape == (n_head, 5, d_head)
    for h in range(n_head):
        assert np.array_equal(heads[h], x[:, h * d_head : (h + 1) * d_head])
    assert np.array_equal(merge_heads(heads), x)


def test_split_and_merge_keep_batch_axes():
    x = np.arange(48.0).reshape(2, 3, 8)
    heads = split_heads(x, 4)
    assert heads.shape == (2, 4, 3, 2)
    assert np.array_equal(heads[1, 2], x[1, :, 4:6])
    assert np.array_equal(merge_heads(heads), x)


@pytest.mark.parametrize("n_head", [1, 2, 4])
def test_attend_heads_matches_head_by_head_slices(n_head):
    rng = np.random.default_rng(9)
    q, k, v = rng.standard_normal((4, 8)), rng.standard_normal((6, 8)), rng.standard_normal((6, 4))
    assert np.allclose(attend_heads(q, k, v, n_head), ref_heads(q, k, v, n_head), rtol=0, atol=1e-12)
    q = rng.standard_normal((6, 8))
    masked = attend_heads(q, k, v, n_head, mask=causal_mask(6))
    assert np.allclose(masked, ref_heads(q, k, v, n_head, causal), rtol=0, atol=1e-12)


def test_attend_heads_with_a_batch_and_a_padding_mask():
    rng = np.random.default_rng(10)
    q, k, v = (rng.standard_normal((2, 4, 6)) for _ in range(3))
    key_is_pad = np.array([[False, False, False, False], [False, False, True, True]])
    out = attend_heads(q, k, v, 3, mask=padding_mask(key_is_pad))
    for b in range(2):
        hidden = lambda i, j, b=b: bool(key_is_pad[b, j])
        assert np.allclose(out[b], ref_heads(q[b], k[b], v[b], 3, hidden), rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_head", [1, 2, 4, 8])
def test_mha_matches_the_reference(n_head):
    rng = np.random.default_rng(11)
    c_attn, c_proj = dense(rng, 8, 24), dense(rng, 8, 8)
    x = rng.standard_normal((5, 8))
    assert np.allclose(mha(x, c_attn, c_proj, n_head), ref_mha(x, c_attn, c_proj, n_head), rtol=0, atol=1e-12)


def test_mha_with_one_head_is_plain_attention():
    rng = np.random.default_rng(12)
    c_attn, c_proj = dense(rng, 4, 12), dense(rng, 4, 4)
    x = rng.standard_normal((5, 4))
    q, k, v = (x @ c_attn["w"][:, i * 4 : (i + 1) * 4] + c_attn["b"][i * 4 : (i + 1) * 4] for i in range(3))
    plain = ref_attention(q, k, v, causal)[0] @ c_proj["w"] + c_proj["b"]
    assert np.allclose(mha(x, c_attn, c_proj, n_head=1), plain, rtol=0, atol=1e-12)
    assert np.allclose(mha(x, c_attn, c_proj, n_head=1), causal_self_attention(x, c_attn, c_proj), rtol=0, atol=1e-12)
    assert not np.allclose(mha(x, c_attn, c_proj, n_head=2), plain)


def test_mha_is_multi_head_attention_with_c_attn_cut_in_three_and_a_causal_mask():
    rng = np.random.default_rng(13)
    c_attn, c_proj = dense(rng, 6, 18), dense(rng, 6, 6)
    thirds = [{"w": c_attn["w"][:, i * 6 : (i + 1) * 6], "b": c_attn["b"][i * 6 : (i + 1) * 6]} for i in range(3)]
    x = rng.standard_normal((2, 4, 6))
    expected = multi_head_attention(x, x, *thirds, c_proj, n_head=3, mask=causal_mask(4))
    assert np.allclose(mha(x, c_attn, c_proj, n_head=3), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("d", [4, 8, 16])
def test_the_parameter_count_does_not_depend_on_the_number_of_heads(d):
    rng = np.random.default_rng(d)
    c_attn, c_proj = dense(rng, d, 3 * d), dense(rng, d, d)
    n_params = sum(p.size for layer in (c_attn, c_proj) for p in layer.values())
    assert n_params == 4 * d * d + 4 * d
    x = rng.standard_normal((3, d))
    for n_head in (1, 2, 4):
        assert mha(x, c_attn, c_proj, n_head).shape == (3, d)  # the same weights for every n_head
        # the paper's count: per head three [d, d/n_head] matrices and biases, plus W^O and its bias
        d_head = d // n_head
        assert n_head * 3 * (d * d_head + d_head) + d * d + d == n_params


def test_two_heads_attend_to_different_things():
    x = np.array([[4.0, 0.0, 4.0, 0.0], [0.0, 4.0, 0.0, 0.0], [4.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 0.0]])
    q = x @ np.diag([1.0, 1.0, 0.0, 0.0]) + np.array([0.0, 0.0, 4.0, 0.0])
    weights = attention_weights(split_heads(q, 2), split_heads(x, 2), causal_mask(4))
    same_letter = [[1, 0, 0, 0], [0, 1, 0, 0], [0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
    first_token = [[1, 0, 0, 0]] * 4
    assert np.allclose(weights[0], same_letter, atol=1e-4)
    assert np.allclose(weights[1], first_token, atol=1e-4)
    eye = {"w": np.eye(4), "b": np.zeros(4)}
    c_q = {"w": np.diag([1.0, 1.0, 0.0, 0.0]), "b": np.array([0.0, 0.0, 4.0, 0.0])}
    out = multi_head_attention(x, x, c_q, eye, eye, eye, n_head=2, mask=causal_mask(4))
    assert np.allclose(out, [[4, 0, 4, 0], [0, 4, 4, 0], [4, 0, 4, 0], [0, 4, 4, 0]], atol=1e-3)


# --- cross-attention ----------------------------------------------------------------------------


@pytest.mark.parametrize("n_head", [1, 2])
def test_cross_attention_has_n_q_rows_and_attends_over_n_k_keys(n_head):
    rng = np.random.default_rng(14)
    x, memory = rng.standard_normal((2, 4)), rng.standard_normal((5, 3))  # n_q=2, n_k=5, memory width 3
    c_q, c_k, c_v, c_proj = dense(rng, 4, 4), dense(rng, 3, 4), dense(rng, 3, 4), dense(rng, 4, 4)
    key_is_pad = np.array([False, False, False, True, True])
    out = multi_head_attention(x, memory, c_q, c_k, c_v, c_proj, n_head, mask=padding_mask(key_is_pad))
    assert out.shape == (2, 4)
    hidden = lambda i, j: bool(key_is_pad[j])
    expected = ref_multi_head_attention(x, memory, c_q, c_k, c_v, c_proj, n_head, hidden)
    assert np.allclose(out, expected, rtol=0, atol=1e-12)


def test_the_seed_cross_attention_example():
    eye = {"w": np.eye(2), "b": np.zeros(2)}
    memory = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [9.0, 9.0]])
    target = np.array([[1.0, 0.0], [0.0, 1.0]])
    mask = padding_mask(np.array([False, False, False, True]))
    out = multi_head_attention(target, memory, eye, eye, eye, eye, n_head=1, mask=mask)
    assert np.allclose(out, [[0.61546057, 0.38453943], [0.38453943, 0.61546057]], rtol=0, atol=5e-9)


# --- why sqrt(d_k) ------------------------------------------------------------------------------


def test_dot_products_spread_like_sqrt_d_k_and_scaling_prevents_saturation():
    rng = np.random.default_rng(0)
    for d_k in (4, 64, 1024):
        q, k = rng.standard_normal((10_000, d_k)), rng.standard_normal((10_000, d_k))
        assert np.std(np.sum(q * k, axis=-1)) == pytest.approx(math.sqrt(d_k), rel=0.05)
    q, k = rng.standard_normal((1000, 1024)), rng.standard_normal((8, 1024))
    assert softmax(q @ k.T).max(axis=-1).mean() > 0.9
    assert attention_weights(q, k).max(axis=-1).mean() < 0.5


# --- refusals -----------------------------------------------------------------------------------

X4 = np.ones((3, 4))
C_ATTN4 = {"w": np.ones((4, 12)), "b": np.zeros(12)}
C_PROJ4 = {"w": np.eye(4), "b": np.zeros(4)}
EYE4 = {"w": np.eye(4), "b": np.zeros(4)}


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: mha(X4, C_ATTN4, C_PROJ4, 3), ValueError, r"n_head = 3 must divide n_embd, the last axis of x = 4"),
        (lambda: mha(X4, C_ATTN4, C_PROJ4, 0), ValueError, r"n_head must be at least 1, got 0"),
        (lambda: mha(X4, C_ATTN4, C_PROJ4, 2.0), TypeError, r"n_head must be an integer, got 2.0"),
        (lambda: split_heads(np.ones((3, 6)), 4), ValueError, r"n_head = 4 must divide n_embd, the last axis of x = 6"),
        (
            lambda: multi_head_attention(X4, X4, EYE4, EYE4, EYE4, EYE4, n_head=3),
            ValueError,
            r"n_head = 3 must divide n_embd, the last axis of x = 4",
        ),
        (
            lambda: attend_heads(X4, X4, np.ones((3, 6)), 4),
            ValueError,
            r"n_head = 4 must divide d_v, the last axis of v = 6",
        ),
    ],
)
def test_n_head_must_divide_the_width(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        # queries and keys of different lengths
        (lambda: attention_weights(np.ones((3, 2)), np.ones((3, 3))), r"q has shape \(3, 2\) and k has shape \(3, 3\): their last axes \(d_k\) must be equal"),
        (lambda: attend_heads(np.ones((3, 4)), np.ones((3, 6)), np.ones((3, 4)), 2), r"q has shape \(3, 4\) and k has shape \(3, 6\)"),
        (lambda: attention_weights(np.ones(2), np.ones((3, 2))), r"q and k must have shape \[\.\.\., n_q, d_k\] and \[\.\.\., n_k, d_k\]"),
        (lambda: attention_weights(np.ones((2, 3, 2)), np.ones((4, 3, 2))), r"the batch axes of q \(2, 3, 2\) and k \(4, 3, 2\) do not broadcast"),
        # one value per key
        (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((2, 2))), r"v must have shape \[\.\.\., n_k, d_v\] with n_k = 3, one value per key"),
        (lambda: attend_heads(np.ones((3, 4)), np.ones((3, 4)), np.ones((2, 4)), 2), r"k has shape \(3, 4\) and v has shape \(2, 4\)"),
        # masks of the wrong shape
        (lambda: attention_weights(np.ones((3, 2)), np.ones((3, 2)), np.zeros((3, 2))), r"mask has shape \(3, 2\), which does not broadcast to the scores' shape \(3, 3\)"),
        (lambda: attend_heads(X4, X4, X4, 2, mask=np.zeros((3, 2))), r"mask has shape \(3, 2\), which does not broadcast to the scores' shape \(3, 3\)"),
        (lambda: attend_heads(X4, X4, X4, 2, mask=np.zeros(3)), r"mask must have shape \[\.\.\., n_q, n_k\], got shape \(3,\)"),
        (
            lambda: multi_head_attention(np.ones((2, 4)), np.ones((5, 4)), EYE4, EYE4, EYE4, EYE4, 2, mask=causal_mask(2)),
            r"mask has shape \(2, 2\), which does not broadcast to the scores' shape \(2, 5\)",
        ),
        # weights of the wrong shape
        (lambda: mha(X4, {"w": np.ones((4, 8)), "b": np.zeros(8)}, C_PROJ4, 2), r"c_attn must have w of shape \(4, 12\) and b of shape \(12,\), got w \(4, 8\) and b \(8,\)"),
        (lambda: mha(X4, C_ATTN4, {"w": np.ones((4, 3)), "b": np.zeros(3)}, 2), r"c_proj must have w of shape \(4, 4\) and b of shape \(4,\)"),
        (lambda: mha(X4, {"w": np.ones((4, 12))}, C_PROJ4, 2), r"c_attn must be a dict with keys 'w' and 'b'"),
        (lambda: multi_head_attention(X4, np.ones((5, 3)), EYE4, EYE4, EYE4, EYE4, 2), r"c_k must have w of shape \(3, 4\)"),
        # arrays of the wrong rank
        (lambda: split_heads(np.ones(4), 2), r"x must have shape \[\.\.\., n_seq, n_embd\], got shape \(4,\)"),
        (lambda: merge_heads(np.ones((3, 4))), r"x must have shape \[\.\.\., n_head, n_seq, d_head\], got shape \(3, 4\)"),
        (lambda: mha(np.ones(4), C_ATTN4, C_PROJ4, 2), r"x must have shape \[\.\.\., n_seq, n_embd\], got shape \(4,\)"),
        (lambda: causal_mask(0), r"n_seq must be at least 1, got 0"),
    ],
)
def test_shape_mismatches_are_refused_with_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_padding_mask_needs_booleans_and_masks_need_floats():
    with pytest.raises(TypeError, match=r"key_is_pad must be a boolean array \(True = padding\), got dtype int64"):
        padding_mask(np.array([0, 1]))
    with pytest.raises(TypeError, match=r"a mask needs a floating dtype, got int64"):
        causal_mask(3, np.int64)
