"""Every backward function against finite differences (float64, relative error <= 1e-6).

For a forward function ``y = f(x)`` the scalar ``L = Σ y * R`` (``R`` a fixed
random array) has ``dL/dy = R``; so ``backward(R, x)`` must equal the central
difference ``(L(x + eps) - L(x - eps)) / 2 eps`` of every entry of every input.
That is an independent derivation: it uses the forward function only.
"""

import numpy as np
import pytest

from handtf import MODEL, build_model, cross_entropy, ffn, gelu, gpt, layer_norm, linear, mha, relu, softmax
from handtf import attend_heads, attention, causal_mask, multi_head_attention
from handtf import (
    attend_heads_backward,
    attention_backward,
    cross_entropy_backward,
    embedding_backward,
    ffn_backward,
    gelu_backward,
    layer_norm_backward,
    linear_backward,
    mha_backward,
    multi_head_attention_backward,
    relu_backward,
    smoothed_targets,
    soft_cross_entropy,
    softmax_backward,
)
from handtf.training.backprop import loss_and_grads
from handtf.trees import leaves, paths
from handtf.model.transformer import transformer_block, transformer_block_backward

TOLERANCE = 1e-6


def numerical_gradient(loss, array, eps=1e-6):
    """Central differences of ``loss()`` for every entry of ``array`` (changed in place, then restored)."""
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        saved = array[index]
        array[index] = saved + eps
        up = loss()
        array[index] = saved - eps
        down = loss()
        array[index] = saved
        grad[index] = (up - down) / (2 * eps)
    return grad


def assert_gradient(analytic, numeric, name=""):
    assert analytic.shape == numeric.shape, name
    scale = max(np.linalg.norm(analytic), np.linalg.norm(numeric))
    assert scale > 1e-8, f"{name}: the gradient is 0, so the check would prove nothing"
    error = np.linalg.norm(analytic - numeric) / scale
    assert error <= TOLERANCE, f"{name}: relative error {error:.2e}"


def check_tree(loss, weights, grads, zero=()):
    """Compare every array of ``grads`` with the finite differences of ``loss`` in the matching ``weights`` array.

    Paths in ``zero`` have a gradient that is 0 in exact arithmetic; both sides must be about 0.
    """
    pairs = dict(paths(grads))
    assert set(pairs) == {path for path, _ in paths(weights)}, "gradients must have the weights' layout"
    for path, array in paths(weights):
        numeric = numerical_gradient(loss, array)
        if path in zero:
            np.testing.assert_allclose(pairs[path], 0, atol=1e-12)
            np.testing.assert_allclose(numeric, 0, atol=1e-7)
        else:
            assert_gradient(pairs[path], numeric, path)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def dense(rng, n_in, n_out):
    return {"w": rng.normal(size=(n_in, n_out)), "b": rng.normal(size=n_out)}


def test_linear(rng):
    x, params, r = rng.normal(size=(2, 3, 4)), dense(rng, 4, 5), rng.normal(size=(2, 3, 5))
    loss = lambda: np.sum(linear(x, **params) * r)  # noqa: E731
    dx, grads = linear_backward(r, x, **params)
    assert_gradient(dx, numerical_gradient(loss, x), "x")
    check_tree(loss, params, grads)


def test_softmax(rng):
    x, r = rng.normal(size=(3, 4, 5)), rng.normal(size=(3, 4, 5))
    dx = softmax_backward(r, softmax(x))
    assert_gradient(dx, numerical_gradient(lambda: np.sum(softmax(x) * r), x))
    np.testing.assert_allclose(dx.sum(axis=-1), 0, atol=1e-12)  # shifting a row changes nothing


@pytest.mark.parametrize("activation, backward", [(gelu, gelu_backward), (relu, relu_backward)])
def test_activations(rng, activation, backward):
    x = rng.normal(size=(4, 6)) * 3
    x[np.abs(x) < 1e-3] = 0.5  # keep relu's kink out of the finite differences
    r = rng.normal(size=x.shape)
    assert_gradient(backward(r, x), numerical_gradient(lambda: np.sum(activation(x) * r), x))


def test_gelu_derivative_at_known_points():
    # d/dx [x Phi(x)] is 1/2 at 0, and tends to 0 and 1 far to the left and right
    np.testing.assert_allclose(gelu_backward(np.ones(3), np.array([0.0, -30.0, 30.0])), [0.5, 0.0, 1.0], atol=1e-12)


@pytest.mark.parametrize("activation", [gelu, relu])
def test_ffn(rng, activation):
    x, c_fc, c_proj = rng.normal(size=(2, 3, 4)), dense(rng, 4, 16), dense(rng, 16, 4)
    r = rng.normal(size=(2, 3, 4))
    weights = {"c_fc": c_fc, "c_proj": c_proj}
    loss = lambda: np.sum(ffn(x, **weights, activation=activation) * r)  # noqa: E731
    dx, grads = ffn_backward(r, x, **weights, activation=activation)
    assert_gradient(dx, numerical_gradient(loss, x), "x")
    check_tree(loss, weights, grads)


def test_layer_norm(rng):
    x, r = rng.normal(size=(2, 3, 6)), rng.normal(size=(2, 3, 6))
    params = {"g": rng.normal(size=6), "b": rng.normal(size=6)}
    loss = lambda: np.sum(layer_norm(x, **params) * r)  # noqa: E731
    dx, grads = layer_norm_backward(r, x, **params)
    assert_gradient(dx, numerical_gradient(loss, x), "x")
    check_tree(loss, params, grads)
    np.testing.assert_allclose(dx.sum(axis=-1), 0, atol=1e-12)


def test_scaled_dot_product_attention(rng):
    q, k, v = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 5))
    mask, r = causal_mask(4), rng.normal(size=(2, 4, 5))
    loss = lambda: np.sum(attention(q, k, v, mask) * r)  # noqa: E731
    for name, array, grad in zip("qkv", (q, k, v), attention_backward(r, q, k, v, mask)):
        assert_gradient(grad, numerical_gradient(loss, array), name)


def test_attend_heads(rng):
    q, k, v = (rng.normal(size=(2, 4, 6)) for _ in range(3))
    mask, r = causal_mask(4), rng.normal(size=(2, 4, 6))
    loss = lambda: np.sum(attend_heads(q, k, v, 3, mask) * r)  # noqa: E731
    for name, array, grad in zip("qkv", (q, k, v), attend_heads_backward(r, q, k, v, 3, mask)):
        assert_gradient(grad, numerical_gradient(loss, array), name)


@pytest.mark.parametrize("n_head", [1, 2])
def test_causal_self_attention(rng, n_head):
    x, r = rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 4))
    weights = {"c_attn": dense(rng, 4, 12), "c_proj": dense(rng, 4, 4)}
    loss = lambda: np.sum(mha(x, **weights, n_head=n_head) * r)  # noqa: E731
    dx, grads = mha_backward(r, x, **weights, n_head=n_head)
    assert_gradient(dx, numerical_gradient(loss, x), "x")
    check_tree(loss, weights, grads)


def test_cross_attention(rng):
    x, memory, r = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 3, 4))
    weights = {name: dense(rng, 4, 4) for name in ("c_q", "c_k", "c_v", "c_proj")}
    mask = np.where(np.arange(5) >= 4, -1e10, 0.0)[None, None, :]  # the last key is padding
    loss = lambda: np.sum(multi_head_attention(x, memory, **weights, n_head=2, mask=mask) * r)  # noqa: E731
    dx, dmemory, grads = multi_head_attention_backward(r, x, memory, **weights, n_head=2, mask=mask)
    assert_gradient(dx, numerical_gradient(loss, x), "x")
    assert_gradient(dmemory, numerical_gradient(loss, memory), "memory")
    np.testing.assert_allclose(dmemory[:, 4], 0, atol=1e-12)  # a hidden key gets no gradient
    # the key bias adds q . b_k to every score of a query alike, which softmax ignores: its gradient is 0
    check_tree(loss, weights, grads, zero={"['c_k']['b']"})


def test_embedding_with_repeated_tokens(rng):
    wte, tokens, r = rng.normal(size=(3, 4)), np.array([[0, 2, 0, 0], [1, 0, 2, 2]]), rng.normal(size=(2, 4, 4))
    assert_gradient(embedding_backward(r, tokens, 3), numerical_gradient(lambda: np.sum(wte[tokens] * r), wte))


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy(rng, smoothing):
    logits, targets = rng.normal(size=(2, 3, 5)), rng.integers(0, 5, size=(2, 3))
    target_probs = smoothed_targets(targets, 5, smoothing)
    loss = lambda: soft_cross_entropy(logits, target_probs)  # noqa: E731
    assert_gradient(cross_entropy_backward(logits, target_probs), numerical_gradient(loss, logits))


def test_smoothed_targets_and_plain_cross_entropy(rng):
    logits, targets = rng.normal(size=(3, 4)), np.array([0, 3, 1])
    q = smoothed_targets(targets, 4, 0.1)
    np.testing.assert_allclose(q.sum(axis=-1), 1)
    np.testing.assert_allclose(q[np.arange(3), targets], 0.9 + 0.1 / 4)  # 1 - eps + eps / K
    assert soft_cross_entropy(logits, smoothed_targets(targets, 4, 0.0)) == pytest.approx(cross_entropy(logits, targets))


def gpt2_weights(rng, n_embd=4, n_vocab=3, n_ctx=5, mlp=True):
    """Random GPT-2-layout weights with layer norms, MLPs and a final norm (or the hand-made layout)."""
    norm = lambda: {"g": 1 + 0.1 * rng.normal(size=n_embd), "b": 0.1 * rng.normal(size=n_embd)}  # noqa: E731
    blocks = []
    for _ in range(2 if mlp else 1):
        b = {"attn": {"c_attn": dense(rng, n_embd, 3 * n_embd), "c_proj": dense(rng, n_embd, n_embd)}}
        if mlp:
            b |= {"ln_1": norm(), "ln_2": norm(), "mlp": {"c_fc": dense(rng, n_embd, 8), "c_proj": dense(rng, 8, n_embd)}}
        blocks.append(b)
    weights = {"wte": rng.normal(size=(n_vocab, n_embd)), "wpe": rng.normal(size=(n_ctx, n_embd)), "blocks": blocks}
    return weights | ({"ln_f": norm()} if mlp else {})


def forward_loss(weights, inputs, targets, n_head, smoothing):
    """The loss by the forward function alone, ``gpt``."""
    logits = gpt(inputs, **weights, n_head=n_head)
    return soft_cross_entropy(logits, smoothed_targets(targets, weights["wte"].shape[0], smoothing))


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_loss_and_grads_hand_made_layout(rng, smoothing):
    weights = gpt2_weights(rng, n_embd=8, n_vocab=2, mlp=False)  # exactly the hand-made model's shapes
    assert {p: a.shape for p, a in paths(weights)} == {p: a.shape for p, a in paths(MODEL)}
    inputs, targets = rng.integers(0, 2, size=(3, 5)), rng.integers(0, 2, size=(3, 5))
    loss, grads = loss_and_grads(weights, inputs, targets, label_smoothing=smoothing)
    assert loss == pytest.approx(forward_loss(weights, inputs, targets, 1, smoothing), rel=1e-12)
    check_tree(lambda: forward_loss(weights, inputs, targets, 1, smoothing), weights, grads)


def test_loss_and_grads_gpt2_layout_two_heads(rng):
    weights = gpt2_weights(rng)
    inputs, targets = rng.integers(0, 3, size=(2, 4)), rng.integers(0, 3, size=(2, 4))  # shorter than n_ctx
    loss, grads = loss_and_grads(weights, inputs, targets, n_head=2, label_smoothing=0.1)
    check_tree(lambda: forward_loss(weights, inputs, targets, 2, 0.1), weights, grads)
    np.testing.assert_array_equal(grads["wpe"][4], 0)  # the unused position gets no gradient


def test_block_without_mlp_is_the_hand_made_block(rng):
    """The hand-made model's block: one residual line around one head, nothing else runs or gets a gradient."""
    x = rng.normal(size=(2, 5, 8))
    weights = build_model(lg=3.0)["blocks"][0]
    np.testing.assert_allclose(transformer_block(x, **weights), x + mha(x, **weights["attn"]), atol=1e-12)
    dx, grads = transformer_block_backward(np.ones_like(x), x, **weights)
    assert set(grads) == {"attn"}


def test_hand_made_model_loss_on_the_pattern():
    text = np.array([0, 0, 1] * 4)  # aabaabaabaab
    inputs = np.array([text[i : i + 5] for i in (1, 2)])  # abaab, baaba: the lone first token is never a-before-a
    loss, grads = loss_and_grads(MODEL, inputs, np.array([text[i + 1 : i + 6] for i in (1, 2)]))
    assert loss == 0.0  # exp(-1023) underflows: p(right) is exactly 1
    assert all(np.all(g == 0) for g in leaves(grads))
    # the window aabaa: at position 0 a lone a is followed by a, the model says b with a gap of 1023
    loss, _ = loss_and_grads(MODEL, text[None, 0:5], text[None, 1:6])
    assert loss == pytest.approx(1023 / 5)

