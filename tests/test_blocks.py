"""The building blocks of the concepts pages: positions, layer norm, activations, the feed-forward network.

Each block is checked against a plain reference written from the formula (loops
over Python floats, no numpy broadcasting to hide mistakes), on many inputs,
and every input it must refuse is refused with a message that says why.
"""

import math

import numpy as np
import pytest

from handtf import ffn, gelu, layer_norm, layer_norm_backward, linear, position_shift_matrix, positional_encoding, relu, rope
from handtf.seq2seq import post_norm, pre_norm

RNG_SEEDS = range(5)


def dense(rng, n_in, n_out):
    return {"w": rng.normal(0, 1 / math.sqrt(n_in), (n_in, n_out)), "b": rng.normal(0, 0.1, n_out)}


# ---------------------------------------------------------------- positional encoding


def pe_by_loop(n_pos, d_model):
    """The paper's formula, one entry at a time."""
    rows = []
    for pos in range(n_pos):
        row = []
        for column in range(d_model):
            i = column // 2
            angle = pos / 10000 ** (2 * i / d_model)
            row.append(math.sin(angle) if column % 2 == 0 else math.cos(angle))
        rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize("n_pos, d_model", [(1, 2), (7, 4), (50, 16), (3, 512), (128, 64)])
def test_positional_encoding_matches_the_formula(n_pos, d_model):
    pe = positional_encoding(n_pos, d_model)
    assert pe.shape == (n_pos, d_model)
    np.testing.assert_allclose(pe, pe_by_loop(n_pos, d_model), rtol=0, atol=1e-12)


def test_positional_encoding_accepts_numpy_integers():
    np.testing.assert_array_equal(positional_encoding(np.int64(5), np.int32(8)), positional_encoding(5, 8))


def test_positional_encoding_rows_are_prefixes():
    np.testing.assert_array_equal(positional_encoding(100, 16)[:10], positional_encoding(10, 16))


@pytest.mark.parametrize("d_model", [1, 3, 5, 513])
def test_positional_encoding_refuses_an_odd_d_model(d_model):
    with pytest.raises(ValueError, match=rf"d_model must be even .*got {d_model}"):
        positional_encoding(4, d_model)


@pytest.mark.parametrize("n_pos", [3.0, "3", True, None, np.float64(3)])
def test_positional_encoding_refuses_a_non_integer_n_pos(n_pos):
    with pytest.raises(TypeError, match="n_pos must be an integer"):
        positional_encoding(n_pos, 4)


@pytest.mark.parametrize("d_model", [4.0, "4", False])
def test_positional_encoding_refuses_a_non_integer_d_model(d_model):
    with pytest.raises(TypeError, match="d_model must be an integer"):
        positional_encoding(3, d_model)


@pytest.mark.parametrize("name, args", [("n_pos", (0, 4)), ("n_pos", (-2, 4)), ("d_model", (3, 0)), ("d_model", (3, -4))])
def test_positional_encoding_refuses_sizes_below_one(name, args):
    with pytest.raises(ValueError, match=f"{name} must be at least 1"):
        positional_encoding(*args)


@pytest.mark.parametrize("d_model", [2, 8, 64])
def test_a_shift_by_k_is_one_matrix_for_every_position(d_model):
    n_pos = 80
    pe = positional_encoding(n_pos, d_model)
    for k in range(-n_pos + 1, n_pos):
        m = position_shift_matrix(k, d_model)
        if k >= 0:
            np.testing.assert_allclose(pe[: n_pos - k] @ m, pe[k:], atol=1e-9, err_msg=f"k = {k}")
        else:
            np.testing.assert_allclose(pe[-k:] @ m, pe[: n_pos + k], atol=1e-9, err_msg=f"k = {k}")


def test_shift_matrices_are_rotations_that_compose():
    d_model = 16
    np.testing.assert_array_equal(position_shift_matrix(0, d_model), np.eye(d_model))
    for j in range(-6, 7):
        m_j = position_shift_matrix(j, d_model)
        np.testing.assert_allclose(m_j @ m_j.T, np.eye(d_model), atol=1e-12)
        np.testing.assert_allclose(m_j.T, position_shift_matrix(-j, d_model), atol=1e-12)
        for k in range(-6, 7):
            np.testing.assert_allclose(m_j @ position_shift_matrix(k, d_model), position_shift_matrix(j + k, d_model), atol=1e-12)


def test_dot_products_of_positions_depend_only_on_the_distance():
    pe = positional_encoding(40, 32)
    sims = pe @ pe.T
    frequencies = 1 / 10000 ** (np.arange(0, 32, 2) / 32)
    for p in range(40):
        for q in range(40):
            assert sims[p, q] == pytest.approx(float(np.cos((p - q) * frequencies).sum()), abs=1e-9)


@pytest.mark.parametrize("k", [1.0, 1.5, True, "1", None])
def test_position_shift_matrix_refuses_a_non_integer_shift(k):
    with pytest.raises(TypeError, match="k must be an integer number of positions"):
        position_shift_matrix(k, 4)


def test_position_shift_matrix_accepts_numpy_integers_and_refuses_an_odd_d_model():
    np.testing.assert_array_equal(position_shift_matrix(np.int64(3), 4), position_shift_matrix(3, 4))
    with pytest.raises(ValueError, match="d_model must be even"):
        position_shift_matrix(1, 5)


# ---------------------------------------------------------------- rope


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_rope_scores_depend_only_on_the_offset(seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, 16))

    def score(m, n):
        return float(rope(q[None], [m])[0] @ rope(k[None], [n])[0])

    for offset in (-7, -1, 0, 2, 5):
        reference = score(max(-offset, 0), max(offset, 0))
        for start in (0, 3, 10, 250, 4096):
            assert score(start, start + offset) == pytest.approx(reference, abs=1e-9), (offset, start)


def test_rope_scores_change_with_the_offset():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 8))
    scores = rope(np.tile(q, (6, 1))) @ rope(np.tile(k, (6, 1))).T
    assert len({round(float(scores[0, n]), 9) for n in range(6)}) == 6


def test_rope_rotates_each_pair_by_position_times_frequency():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(7, 8))
    out = rope(x)
    frequencies = [1 / 10000 ** (2 * i / 8) for i in range(4)]
    for n in range(7):
        for i, frequency in enumerate(frequencies):
            a, b = float(x[n, 2 * i]), float(x[n, 2 * i + 1])
            c, s = math.cos(n * frequency), math.sin(n * frequency)
            assert out[n, 2 * i] == pytest.approx(a * c - b * s, abs=1e-12)
            assert out[n, 2 * i + 1] == pytest.approx(a * s + b * c, abs=1e-12)
        # the same 2x2 rotations as the sinusoids' shift matrix, turned the other way
        np.testing.assert_allclose(out[n], x[n] @ position_shift_matrix(n, 8).T, atol=1e-12)


def test_rope_keeps_lengths_leaves_position_zero_alone_and_works_on_batches():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 5, 6))  # [n_batch, n_head, n_seq, d]
    out = rope(x)
    assert out.shape == x.shape
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1))
    np.testing.assert_array_equal(out[..., 0, :], x[..., 0, :])
    np.testing.assert_allclose(out[1, 2], rope(x[1, 2]))
    np.testing.assert_allclose(rope(x, positions=np.arange(5)), out)


def test_rope_keeps_float_dtypes_and_turns_integers_into_floats():
    assert rope(np.ones((3, 4), dtype=np.float32)).dtype == np.float32
    assert rope(np.ones((3, 4), dtype=np.int64)).dtype == np.float64


@pytest.mark.parametrize("shape", [(4,), (3, 5), (3, 1), (3, 0)])
def test_rope_refuses_a_shape_without_pairs_of_columns(shape):
    with pytest.raises(ValueError, match=r"x must have shape \[\.\.\., n_seq, d\] with an even d"):
        rope(np.ones(shape))


def test_rope_refuses_bad_positions():
    with pytest.raises(ValueError, match=r"positions must have shape \(3,\), one per row of x, got shape \(2,\)"):
        rope(np.ones((3, 4)), positions=[0, 1])
    with pytest.raises(TypeError, match="positions must be integers, got float64"):
        rope(np.ones((3, 4)), positions=[0.0, 1.0, 2.0])
    with pytest.raises(TypeError, match="positions must be integers, got bool"):
        rope(np.ones((2, 4)), positions=[True, False])


# ---------------------------------------------------------------- layer norm


def layer_norm_by_hand(row, g, b, eps):
    """The formula for one row, in plain Python: biased variance, eps inside the root."""
    n = len(row)
    mean = sum(row) / n
    variance = sum((value - mean) ** 2 for value in row) / n
    return [g[j] * (row[j] - mean) / math.sqrt(variance + eps) + b[j] for j in range(n)]


@pytest.mark.parametrize("seed", RNG_SEEDS)
@pytest.mark.parametrize("shape", [(6,), (4, 6), (2, 3, 6)])
@pytest.mark.parametrize("eps", [1e-5, 0.0, 0.5])
def test_layer_norm_matches_the_formula(seed, shape, eps):
    rng = np.random.default_rng(seed)
    x = rng.normal(2, 3, size=shape)
    g, b = rng.normal(1, 0.5, size=6), rng.normal(0, 0.5, size=6)
    out = layer_norm(x, g, b, eps=eps)
    assert out.shape == x.shape
    for index in np.ndindex(shape[:-1]):
        expected = layer_norm_by_hand(x[index].tolist(), g.tolist(), b.tolist(), eps)
        np.testing.assert_allclose(out[index], expected, rtol=1e-12, atol=1e-12)


def test_layer_norm_of_the_tutorials_row():
    row = np.array([0.0, 1.0, 0.0, 0.0])
    ones, zeros = np.ones(4), np.zeros(4)
    assert layer_norm(row, ones, zeros).round(8).tolist() == [-0.57733487, 1.73200462, -0.57733487, -0.57733487]
    np.testing.assert_allclose(layer_norm(row, ones, zeros, eps=0), [-1 / math.sqrt(3), math.sqrt(3), -1 / math.sqrt(3), -1 / math.sqrt(3)])


def test_layer_norm_gives_mean_zero_and_unit_variance_before_g_and_b():
    rng = np.random.default_rng(3)
    x = rng.normal(5, 10, size=(3, 4, 32))
    y = layer_norm(x, np.ones(32), np.zeros(32), eps=0)
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=-1), 1, atol=1e-12)


def test_layer_norm_differs_from_the_unbiased_std_version():
    # The Annotated Transformer style: (x - mean) / (std + eps) with the n - 1 standard deviation.
    row = np.array([0.0, 1.0, 0.0, 0.0])
    annotated = (row - row.mean()) / (row.std(ddof=1) + 1e-6)
    assert annotated.round(3).tolist() == [-0.5, 1.5, -0.5, -0.5]
    assert not np.allclose(layer_norm(row, np.ones(4), np.zeros(4)), annotated, atol=0.1)


def test_layer_norm_of_a_constant_row_is_b():
    b = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(layer_norm(np.full((2, 3), 7.0), np.full(3, 3.0), b), np.broadcast_to(b, (2, 3)))


def test_g_and_b_undo_layer_norm_only_when_every_row_has_the_same_statistics():
    from handtf import trace

    t = trace("aabaa")
    g, b = np.full(8, math.sqrt(0.1875 + 1e-5)), np.full(8, 0.25)
    np.testing.assert_allclose(layer_norm(t.embedding, g, b), t.embedding, atol=1e-12)
    assert len(set(np.var(t.residual, axis=-1).tolist())) == 2


@pytest.mark.parametrize("name, g, b", [
    ("g", np.ones(3), np.zeros(4)),
    ("g", np.ones((1, 4)), np.zeros(4)),
    ("b", np.ones(4), np.zeros(5)),
    ("b", np.ones(4), 0.0),
])
def test_layer_norm_refuses_g_and_b_of_the_wrong_shape(name, g, b):
    with pytest.raises(ValueError, match=rf"{name} must have shape \(4,\) \(n_embd, the last axis of x\)"):
        layer_norm(np.ones((2, 4)), g, b)


@pytest.mark.parametrize("eps", [-1e-5, -1, float("nan")])
def test_layer_norm_refuses_a_negative_eps(eps):
    with pytest.raises(ValueError, match="eps must be a finite number >= 0"):
        layer_norm(np.ones(4), np.ones(4), np.zeros(4), eps=eps)


@pytest.mark.parametrize("eps", ["1e-5", None, True, np.array([1e-5])])
def test_layer_norm_refuses_an_eps_that_is_not_a_number(eps):
    with pytest.raises(TypeError, match="eps must be a real number"):
        layer_norm(np.ones(4), np.ones(4), np.zeros(4), eps=eps)


def test_layer_norm_accepts_numpy_eps_and_refuses_a_scalar_x():
    np.testing.assert_array_equal(
        layer_norm(np.arange(4.0), np.ones(4), np.zeros(4), eps=np.float32(1e-5)),
        layer_norm(np.arange(4.0), np.ones(4), np.zeros(4), eps=float(np.float32(1e-5))),
    )
    with pytest.raises(ValueError, match=r"x must have shape \[\.\.\., n_embd\], got a scalar"):
        layer_norm(np.float64(1.0), np.ones(1), np.zeros(1))


# ---------------------------------------------------------------- activations


def gelu_exact(value):
    return value * 0.5 * (1 + math.erf(value / math.sqrt(2)))


def test_gelu_is_close_to_the_exact_erf_form():
    grid = np.linspace(-10, 10, 4001)
    gaps = np.abs(gelu(grid) - np.array([gelu_exact(float(v)) for v in grid]))
    assert gaps.max() < 5e-4
    assert float(grid[np.argmax(gaps)]) == pytest.approx(2.7, abs=0.1)
    assert gaps[np.abs(grid) > 6].max() < 1e-7


def test_gelu_known_values():
    assert gelu(np.array([-1.0, 0.0, 1.0, 3.0])).round(4).tolist() == [-0.1588, 0.0, 0.8412, 2.9964]
    assert float(gelu(np.float64(100.0))) == 100.0
    assert abs(float(gelu(np.float64(-100.0)))) < 1e-300
    grid = np.linspace(-6, 6, 1201)
    assert round(float(gelu(grid).min()), 2) == -0.17


def test_gelu_minus_gelu_of_minus_x_is_x():
    x = np.linspace(-8, 8, 161)
    np.testing.assert_allclose(gelu(x) - gelu(-x), x, atol=1e-12)


def test_gelu_keeps_the_dtype():
    assert gelu(np.ones(3, dtype=np.float32)).dtype == np.float32


def test_relu():
    x = np.array([[-2.0, -0.5, 0.0], [0.5, 3.0, -1e-9]])
    np.testing.assert_array_equal(relu(x), [[0.0, 0.0, 0.0], [0.5, 3.0, 0.0]])
    np.testing.assert_array_equal(relu(x) - relu(-x), x)
    assert relu(np.array([-3, 4])).tolist() == [0, 4]
    assert relu(np.ones(2, dtype=np.float16)).dtype == np.float16


# ---------------------------------------------------------------- linear and the feed-forward network


@pytest.mark.parametrize("seed", RNG_SEEDS)
@pytest.mark.parametrize("activation", [relu, gelu])
def test_ffn_is_the_explicit_matrix_formula(seed, activation):
    rng = np.random.default_rng(seed)
    c_fc, c_proj = dense(rng, 6, 24), dense(rng, 24, 6)
    x = rng.normal(size=(5, 6))
    hidden = activation(x @ c_fc["w"] + c_fc["b"])
    np.testing.assert_allclose(ffn(x, c_fc, c_proj, activation=activation), hidden @ c_proj["w"] + c_proj["b"])


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_ffn_is_position_wise(seed):
    rng = np.random.default_rng(seed)
    c_fc, c_proj = dense(rng, 8, 32), dense(rng, 32, 8)
    x = rng.normal(size=(2, 7, 8))  # a batch
    out = ffn(x, c_fc, c_proj)
    assert out.shape == x.shape
    for batch in range(2):
        for position in range(7):
            np.testing.assert_allclose(out[batch, position], ffn(x[batch, position], c_fc, c_proj))
    perm = rng.permutation(7)
    np.testing.assert_allclose(ffn(x[:, perm], c_fc, c_proj), out[:, perm])
    changed = x.copy()
    changed[1, 3] += 1.0
    differs = ~np.isclose(ffn(changed, c_fc, c_proj), out).all(axis=-1)
    assert np.argwhere(differs).tolist() == [[1, 3]]


@pytest.mark.parametrize("activation", [relu, gelu])
def test_an_ffn_twice_as_wide_can_copy_its_input(activation):
    x = np.random.default_rng(0).normal(size=(4, 5))
    eye = np.eye(5)
    copy_fc = {"w": np.hstack([eye, -eye]), "b": np.zeros(10)}
    copy_proj = {"w": np.vstack([eye, -eye]), "b": np.zeros(5)}
    np.testing.assert_allclose(ffn(x, copy_fc, copy_proj, activation=activation), x, atol=1e-12)
    zero_proj = {"w": np.zeros((10, 5)), "b": np.zeros(5)}
    np.testing.assert_array_equal(x + ffn(x, copy_fc, zero_proj), x)


def test_ffn_parameter_count():
    from handtf.seq2seq import Config, init_params

    for d in (8, 16):
        params = init_params(Config(3, 3, d_model=d, n_head=2, d_ff=4 * d, n_layers=1), seed=0)
        mlp = params["encoder"]["blocks"][0]["mlp"]
        assert sum(array.size for layer in mlp.values() for array in layer.values()) == 8 * d**2 + 5 * d


FC = {"w": np.ones((4, 16)), "b": np.zeros(16)}
PROJ = {"w": np.ones((16, 4)), "b": np.zeros(4)}


@pytest.mark.parametrize("c_fc, c_proj, message", [
    ({"w": np.ones((5, 16)), "b": np.zeros(16)}, PROJ, r"c_fc must have w of shape \(4, 16\) and b of shape \(16,\), got w \(5, 16\)"),
    ({"w": np.ones((4, 16)), "b": np.zeros(15)}, PROJ, r"c_fc must have w of shape \(4, 16\) and b of shape \(16,\), got w \(4, 16\) and b \(15,\)"),
    (FC, {"w": np.ones((8, 4)), "b": np.zeros(4)}, r"c_proj must have w of shape \(16, 4\) and b of shape \(4,\), got w \(8, 4\)"),
    (FC, {"w": np.ones((16, 5)), "b": np.zeros(5)}, r"c_proj must have w of shape \(16, 4\) and b of shape \(4,\), got w \(16, 5\)"),
    ({"w": np.ones((4, 16))}, PROJ, r"c_fc must be a dict with keys 'w' and 'b'"),
    (FC, {"w": np.ones((16, 4)), "b": np.zeros(4), "g": np.ones(4)}, r"c_proj must be a dict with keys 'w' and 'b'"),
    ({"w": np.ones(4), "b": np.zeros(4)}, PROJ, r"c_fc must be a dict with 'w' of shape \[n_in, n_out\]"),
    ([np.ones((4, 16)), np.zeros(16)], PROJ, r"c_fc must be a dict with 'w' of shape \[n_in, n_out\]"),
])
def test_ffn_refuses_weights_of_the_wrong_shape(c_fc, c_proj, message):
    with pytest.raises(ValueError, match=message):
        ffn(np.ones((3, 4)), c_fc, c_proj)


def test_ffn_refuses_a_scalar_input():
    with pytest.raises(ValueError, match="x must have shape"):
        ffn(np.float64(1.0), FC, PROJ)


def test_linear_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match=r"w must have shape \[n_in, n_out\], got shape \(4,\)"):
        linear(np.ones((2, 4)), np.ones(4), np.zeros(1))
    with pytest.raises(ValueError, match=r"the last axis of x must equal n_in = 3"):
        linear(np.ones((2, 4)), np.ones((3, 2)), np.zeros(2))
    with pytest.raises(ValueError, match=r"b must have shape \(2,\) \(n_out, the second axis of w\), got shape \(3,\)"):
        linear(np.ones((2, 4)), np.ones((4, 2)), np.zeros(3))


# ---------------------------------------------------------------- post-norm and pre-norm


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_post_norm_and_pre_norm_are_the_two_formulas(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(2, 5, 8))
    c = dense(rng, 8, 8)
    ln = {"g": rng.normal(1, 0.2, 8), "b": rng.normal(0, 0.2, 8)}

    def sublayer(h):
        return h @ c["w"] + c["b"]

    np.testing.assert_allclose(post_norm(x, sublayer, ln), layer_norm(x + sublayer(x), **ln))
    np.testing.assert_allclose(pre_norm(x, sublayer, ln), x + sublayer(layer_norm(x, **ln)))


def test_pre_norm_keeps_the_identity_path_and_post_norm_normalises():
    rng = np.random.default_rng(0)
    x = rng.normal(3, 2, size=(4, 16))
    ln = {"g": np.ones(16), "b": np.zeros(16)}

    def zero(h):
        return np.zeros_like(h)

    np.testing.assert_array_equal(pre_norm(x, zero, ln), x)
    np.testing.assert_allclose(post_norm(x, zero, ln), layer_norm(x, **ln))


def test_the_residual_stream_grows_under_pre_norm_and_stays_normalised_under_post_norm():
    rng = np.random.default_rng(0)
    d = 16
    weights = [rng.normal(0, 1 / math.sqrt(d), (d, d)) for _ in range(12)]
    x = rng.normal(size=(4, d))
    ln = {"g": np.ones(d), "b": np.zeros(d)}
    post, pre = x, x
    for w in weights:
        post = post_norm(post, lambda h: h @ w, ln)
        pre = pre_norm(pre, lambda h: h @ w, ln)
        np.testing.assert_allclose(np.linalg.norm(post, axis=-1), math.sqrt(d), rtol=1e-5)
    assert np.linalg.norm(pre, axis=-1).mean() > 3 * math.sqrt(d)
    np.testing.assert_allclose(np.linalg.norm(layer_norm(pre, **ln), axis=-1), math.sqrt(d), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_of_a_tiny_row_without_eps(dtype):
    """[t, 2t]: mean 1.5t, deviations -0.5t and +0.5t, standard deviation 0.5t, so [-1, 1]
    whatever t is, even where t*t underflows to 0 (t = 1e-300 in float64, 1e-30 in float32)."""
    tiny = {np.float32: 1e-30, np.float64: 1e-300}[dtype]
    x = np.array([[tiny, 2 * tiny]], dtype)
    with np.errstate(all="raise"):
        y = layer_norm(x, g=np.ones(2, dtype), b=np.zeros(2, dtype), eps=0.0)
        dx, _ = layer_norm_backward(np.array([[1.0, 0.0]], dtype), x, np.ones(2, dtype), np.zeros(2, dtype), eps=0.0)
    np.testing.assert_allclose(y, [[-1.0, 1.0]], rtol=1e-6)
    assert np.isfinite(dx).all()
