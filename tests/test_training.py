"""The paper's recipe (Adam, warm-up, label smoothing, dropout) and training the hand-made architecture."""

import math
import statistics

import numpy as np
import pytest

from handtf import gpt, verify
from handtf import cross_entropy_backward, smoothed_targets, soft_cross_entropy
from handtf.training.optimiser import adam_step, dropout, dropout_mask, learning_rate
from handtf.training.trainer import determined, init_weights, margins, pattern_windows, train
from handtf.trees import leaves
from handtf.model.weights import MODEL

# ---------------------------------------------------------------- Adam


def test_adam_matches_the_formulas_of_the_paper_step_by_step():
    # a second implementation, one scalar at a time, straight from Kingma & Ba's Algorithm 1
    grads = [0.5, -2.0, 0.25]
    p, m, v, expected = 1.0, 0.0, 0.0, []
    for t, g in enumerate(grads, start=1):
        m = 0.9 * m + 0.1 * g
        v = 0.98 * v + 0.02 * g * g
        p = p - 0.1 * (m / (1 - 0.9**t)) / (math.sqrt(v / (1 - 0.98**t)) + 1e-9)
        expected.append(p)
    param, moments = np.array([1.0]), [(np.zeros(1), np.zeros(1))]
    for t, g in enumerate(grads, start=1):
        adam_step([param], [np.array([g])], moments, t, lr=0.1)
        assert param[0] == pytest.approx(expected[t - 1], rel=1e-12)


def test_adams_first_step_moves_every_weight_by_the_learning_rate():
    # step 1: m_hat = g and v_hat = g**2, so the update is lr * g / |g|, whatever the gradient's size
    params = [np.array([1.0, 1.0, 1.0])]
    adam_step(params, [np.array([1e-3, -5.0, 300.0])], [(np.zeros(3), np.zeros(3))], step=1, lr=0.01)
    np.testing.assert_allclose(params[0], [0.99, 1.01, 0.99], rtol=1e-6)


def test_adam_uses_the_papers_betas_and_epsilon_by_default():
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(adam_step).parameters.items()}
    assert (defaults["beta1"], defaults["beta2"], defaults["eps"]) == (0.9, 0.98, 1e-9)


def test_adam_minimises_a_quadratic():
    x, moments = [np.array([3.0, -4.0])], [(np.zeros(2), np.zeros(2))]
    for step in range(1, 2001):
        adam_step(x, [2 * x[0]], moments, step, lr=0.01)  # gradient of |x|^2
    np.testing.assert_allclose(x[0], 0, atol=1e-2)


# ---------------------------------------------------------------- the warm-up schedule


def test_learning_rate_rises_linearly_then_decays_as_one_over_sqrt_step():
    peak = 512**-0.5 * 4000**-0.5
    assert learning_rate(4000, 512, 4000) == pytest.approx(peak)
    assert learning_rate(1000, 512, 4000) == pytest.approx(peak / 4)  # linear: a quarter of the way up
    assert learning_rate(16000, 512, 4000) == pytest.approx(peak / 2)  # 4x the steps, 1/sqrt(4) the rate
    rates = [learning_rate(s, 512, 4000) for s in range(1, 20000)]
    assert int(np.argmax(rates)) + 1 == 4000
    assert learning_rate(10, 8, 5, factor=3) == pytest.approx(3 * learning_rate(10, 8, 5))


# ---------------------------------------------------------------- dropout


def test_dropout_zeroes_about_rate_and_keeps_the_mean():
    mask = dropout_mask((200_000,), rate=0.1, rng=np.random.default_rng(1))
    np.testing.assert_allclose(np.unique(mask), [0.0, 1 / 0.9])  # dropped, or scaled up by 1/(1 - rate)
    # a binomial share: its standard deviation is sqrt(0.1 * 0.9 / 200000) = 0.00067
    assert abs(np.mean(mask == 0) - 0.1) < 0.004
    assert abs(np.mean(mask) - 1) < 0.004  # inverted scaling: the expectation is unchanged


def test_dropout_is_the_identity_at_inference_and_for_rate_zero():
    x = np.arange(6.0)
    for y in (dropout(x, 0.5, training=False), dropout(x, 0.0, np.random.default_rng(0))):
        np.testing.assert_array_equal(y, x)
        assert not np.shares_memory(y, x)  # the caller's array is never handed back (test_shared_state)
    y = dropout(x, 0.5, np.random.default_rng(0))
    assert set(y[y != 0] / x[y != 0]) == {2.0}


# ---------------------------------------------------------------- label smoothing


def test_label_smoothing_moves_the_best_logits_off_infinity():
    q = smoothed_targets(np.array([2]), n_vocab=4, smoothing=0.1)  # [[0.025, 0.025, 0.925, 0.025]]
    best = np.log(q)  # softmax(log q) = q: the gradient p - q is 0 there
    np.testing.assert_allclose(cross_entropy_backward(best, q), 0, atol=1e-15)
    entropy = -np.sum(q * np.log(q))
    assert soft_cross_entropy(best, q) == pytest.approx(entropy)  # the smallest loss is q's entropy, not 0
    sure = np.array([[0.0, 0.0, 30.0, 0.0]])  # confident and right: no loss without smoothing, a large one with it
    assert soft_cross_entropy(sure, smoothed_targets(np.array([2]), 4, 0.0)) < 1e-12
    assert soft_cross_entropy(sure, q) == pytest.approx(0.075 * 30, rel=1e-3)  # 3 x 0.025 x the gap of 30


# ---------------------------------------------------------------- the data


def test_pattern_windows_are_shifted_by_one():
    inputs, targets = pattern_windows("aab")
    assert inputs.shape == targets.shape == (3, 5)
    np.testing.assert_array_equal(inputs[:, 1:], targets[:, :-1])  # teacher forcing: the labels are the input moved on
    # only a lone a is ambiguous: aab, aba: followed by a, then b
    np.testing.assert_array_equal(determined(inputs, targets), [[0, 1, 1, 1, 1], [0, 1, 1, 1, 1], [1, 1, 1, 1, 1]])
    inputs, targets = pattern_windows("ab")
    assert determined(inputs, targets).all()  # after a always b, after b always a


def test_init_weights_have_exactly_the_hand_made_shapes():
    shapes = lambda tree: [a.shape for a in leaves(tree)]  # noqa: E731
    assert shapes(init_weights(seed=3)) == shapes(MODEL)
    assert not np.array_equal(init_weights(0)["wte"], init_weights(1)["wte"])


# ---------------------------------------------------------------- training the hand-made architecture


SEEDS = range(20)


@pytest.fixture(scope="module")
def runs():
    """400 steps from each of 20 seeds, with one head (the hand-made shape) and with two."""
    return {n_head: [train("aab", steps=400, seed=s, n_head=n_head) for s in SEEDS] for n_head in (1, 2)}


@pytest.fixture(scope="module")
def seed0(runs):
    return runs[1][0]


def test_train_is_deterministic_for_a_seed(seed0):
    again = train("aab", steps=400, seed=0)
    np.testing.assert_array_equal(again.losses, seed0.losses)
    for a, b in zip(leaves(again.weights), leaves(seed0.weights)):
        np.testing.assert_array_equal(a, b)


def test_train_reaches_100_percent_checked_by_verify(seed0):
    result = verify(max_len=30, model=seed0.weights)  # gpt runs the trained weights as it runs MODEL
    assert result.passed and result.checked == 87
    assert seed0.solved and seed0.solved_at <= 100
    assert result.min_margin == pytest.approx(seed0.min_margin, rel=1e-9)  # two implementations agree
    # the loss ends near its floor: 2 of the 15 positions are a lone a, where a and b are equally right
    assert seed0.losses[-1] == pytest.approx(2 * math.log(2) / 15, rel=0.01)
    assert seed0.losses[0] > 0.5


def test_a_trained_model_is_a_model(seed0):
    logits = gpt(np.array([0, 0, 1, 0, 0]), **seed0.weights)  # aabaa
    assert "".join("ab"[i] for i in logits.argmax(-1))[1:] == "baab"


def test_one_head_fails_on_seed_19_and_two_heads_fix_it(runs):
    one, two = runs[1][19], runs[2][19]
    assert not one.solved and not verify(30, model=one.weights).passed
    inputs, targets = pattern_windows("aab")
    m = margins(one.weights, inputs, targets)
    # aa and ba at position 1: the head attends to the current token only, so the two contexts look the same
    assert m[0, 1] < 0 < m[2, 1] or m[2, 1] < 0 < m[0, 1]
    assert two.solved and two.weights["blocks"][0]["attn"]["c_attn"]["w"].shape == (8, 24)  # the same weights


def test_success_over_20_seeds(runs):
    one, two = runs[1], runs[2]
    assert [s for s, r in enumerate(one) if not r.solved] == [19]
    assert all(r.solved for r in two)
    solved = sorted(r.solved_at for r in one if r.solved)
    assert statistics.median(solved) == 34 and sum(s <= 100 for s in solved) == 18  # as the page says
    assert max(r.solved_at for r in two) <= 60


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"pattern": "abc"}, ValueError, "'c'"),
        ({"pattern": "a"}, ValueError, "at least 2 characters"),
        ({"steps": 0}, ValueError, "steps must be at least 1"),
        ({"seed": 1.5}, TypeError, "seed must be an integer"),
        ({"n_head": 3}, ValueError, "n_head = 3 must divide n_embd = 8"),
        ({"label_smoothing": 1.0}, ValueError, r"label_smoothing must be a finite number in \[0, 1\)"),
        ({"factor": -1.0}, ValueError, "factor must be a positive"),
    ],
)
def test_train_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        train(**kwargs)
