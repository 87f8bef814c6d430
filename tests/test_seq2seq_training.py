"""The encoder-decoder's backward pass (finite differences) and its training on copy/reverse."""

import numpy as np
import pytest

from handtf import Config, forward, init_params
from handtf import smoothed_targets, soft_cross_entropy
from handtf.seq2seq.training import BOS, EOS, exact_match, seq2seq_loss_and_grads, task_pairs, train_seq2seq
from handtf.trees import leaves

from test_backprop import assert_gradient, numerical_gradient


@pytest.mark.parametrize("norm, dropout", [("post", 0.3), ("pre", 0.0)])
def test_gradients_match_finite_differences(norm, dropout):
    config = Config(5, 5, d_model=4, n_head=2, d_ff=8, n_layers=1, norm=norm)
    params = init_params(config, seed=0)
    src, tgt_in, tgt_out = task_pairs("reverse", 2, 3, 3, np.random.default_rng(0))
    # a fresh generator with the same seed draws the same dropout masks at every call
    run = lambda: seq2seq_loss_and_grads(params, config, src, tgt_in, tgt_out, 0.1, dropout, np.random.default_rng(5))  # noqa: E731
    _, grads = run()
    weights = leaves(params)
    grads = leaves(grads)
    assert [g.shape for g in grads] == [w.shape for w in weights]
    for i, (w, g) in enumerate(zip(weights, grads)):
        numeric = numerical_gradient(lambda: run()[0], w)
        if max(np.abs(numeric).max(), np.abs(g).max()) < 1e-9:  # the key biases: softmax ignores them, gradient 0
            continue
        assert_gradient(g, numeric, f"array {i}")


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_without_dropout_the_loss_is_that_of_seq2seq_forward(norm):
    config = Config(6, 6, d_model=8, n_head=2, d_ff=16, n_layers=2, norm=norm)
    params = init_params(config, seed=1)
    src, tgt_in, tgt_out = task_pairs("copy", 3, 4, 4, np.random.default_rng(1))
    loss, _ = seq2seq_loss_and_grads(params, config, src, tgt_in, tgt_out, label_smoothing=0.1)
    expected = soft_cross_entropy(forward(src, tgt_in, params, config), smoothed_targets(tgt_out, 6, 0.1))
    assert loss == pytest.approx(expected, rel=1e-12)


def test_dropout_changes_the_training_loss_only():
    config = Config(6, 6, d_model=8, n_head=2, d_ff=16, n_layers=1)
    params = init_params(config, seed=1)
    src, tgt_in, tgt_out = task_pairs("copy", 3, 4, 4, np.random.default_rng(1))
    plain, _ = seq2seq_loss_and_grads(params, config, src, tgt_in, tgt_out)
    dropped, _ = seq2seq_loss_and_grads(params, config, src, tgt_in, tgt_out, dropout=0.5, rng=np.random.default_rng(0))
    assert dropped != plain


def test_task_pairs_teacher_forcing_and_held_out_sources():
    rng = np.random.default_rng(0)
    src, tgt_in, tgt_out = task_pairs("reverse", 50, 3, 3, rng)
    np.testing.assert_array_equal(tgt_out[:, :-1], src[:, ::-1])  # the labels: the source backwards, then <eos>
    assert (tgt_out[:, -1] == EOS).all() and (tgt_in[:, 0] == BOS).all()
    np.testing.assert_array_equal(tgt_in[:, 1:], tgt_out[:, :-1])  # the decoder's input is the labels shifted right
    src, _, tgt_out = task_pairs("copy", 50, 3, 3, rng, exclude={(2, 2, 2), (3, 3, 3)})
    np.testing.assert_array_equal(tgt_out[:, :-1], src)
    assert not {(2, 2, 2), (3, 3, 3)} & set(map(tuple, src.tolist()))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"task": "sort"}, ValueError, "task must be one of copy, reverse"),
        ({"steps": 0}, ValueError, "steps must be at least 1"),
        ({"length": 2, "n_symbols": 2, "n_test": 3}, ValueError, "n_test = 3 is too many"),
    ],
)
def test_train_seq2seq_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        train_seq2seq(**kwargs)


@pytest.fixture(scope="module")
def reverse():
    return train_seq2seq("reverse", seed=0)  # the defaults: 1000 steps, the recipe, 100 held-out sources


def test_reverse_reaches_99_percent_exact_match_greedy_and_beam(reverse):
    assert reverse.losses.shape == (1000,)
    # label smoothing keeps the loss above the entropy of the smoothed targets (0.50 for 10 tokens)
    q = smoothed_targets(np.array([0]), 10, 0.1)
    floor = -np.sum(q * np.log(q))
    assert floor < reverse.losses[-50:].mean() < floor + 0.1 < reverse.losses[0]
    assert exact_match(reverse) >= 0.99
    assert exact_match(reverse, beam_width=4) >= 0.99


def test_the_held_out_sources_are_the_seeds_first_draw(reverse):
    # drawn before any training batch, then excluded from every batch (task_pairs' exclude, tested above)
    np.testing.assert_array_equal(task_pairs("reverse", 100, 6, 8, np.random.default_rng(0))[0], reverse.test_src)
