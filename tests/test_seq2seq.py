"""The encoder-decoder Transformer: shapes, seeds, masks, norms, teacher forcing, decoding, errors."""

import itertools

import numpy as np
import pytest

from handtf import (
    Config,
    beam_decode,
    cross_entropy,
    decode,
    encode,
    forward,
    greedy_decode,
    init_params,
    log_softmax,
    padding_mask,
)

SIZES = {"vocab_src": 4, "vocab_tgt": 6, "d_model": 8, "n_head": 2, "d_ff": 32, "n_layers": 2}
SRC = np.array([1, 2, 3])  # je suis étudiant, on the encoder-decoder page
TGT = np.array([0, 2, 3, 4, 5])  # <bos> i am a student


@pytest.fixture(scope="module", params=["post", "pre"])
def params(request):
    return init_params(**SIZES, seed=0, norm=request.param)


def flatten(tree):
    """Every array of a parameter tree, in a fixed order."""
    if isinstance(tree, dict):
        return [a for key in sorted(tree) if key != "config" for a in flatten(tree[key])]
    if isinstance(tree, list):
        return [a for item in tree for a in flatten(item)]
    return [tree]


# ---------------------------------------------------------------- shapes


def test_shapes_of_one_sequence(params):
    memory = encode(SRC, params)
    assert memory.shape == (3, 8)
    assert decode(TGT, memory, params).shape == (5, 6)
    assert forward(SRC, TGT, params).shape == (5, 6)
    assert forward(np.array([1]), np.array([0]), params).shape == (1, 6)


def test_shapes_of_a_batch(params):
    src = np.array([[1, 2, 3, 1], [3, 2, 1, 0]])  # [2, 4]
    tgt = np.array([[0, 2, 3], [0, 5, 1]])  # [2, 3]
    assert encode(src, params).shape == (2, 4, 8)
    assert forward(src, tgt, params).shape == (2, 3, 6)


def test_a_batch_row_equals_the_sequence_on_its_own(params):
    src = np.array([[1, 2, 3], [3, 3, 1]])
    tgt = np.array([[0, 2], [0, 4]])
    batch = forward(src, tgt, params)
    for i in range(2):
        np.testing.assert_allclose(batch[i], forward(src[i], tgt[i], params), atol=1e-12)


def test_parameter_shapes():
    params = init_params(**SIZES, seed=0)
    assert params["config"] == Config(**SIZES)
    assert params["encoder"]["wte"].shape == (4, 8) and params["decoder"]["wte"].shape == (6, 8)
    assert len(params["encoder"]["blocks"]) == len(params["decoder"]["blocks"]) == 2
    block = params["decoder"]["blocks"][0]
    for name in ("self_attn", "cross_attn"):
        assert {k: v["w"].shape for k, v in block[name].items()} == {n: (8, 8) for n in ("c_q", "c_k", "c_v", "c_proj")}
    assert block["mlp"]["c_fc"]["w"].shape == (8, 32) and block["mlp"]["c_proj"]["w"].shape == (32, 8)
    assert "ln_f" not in params["encoder"] and "ln_f" not in params["decoder"]
    pre = init_params(**SIZES, seed=0, norm="pre")
    assert pre["encoder"]["ln_f"]["g"].shape == pre["decoder"]["ln_f"]["g"].shape == (8,)


# ---------------------------------------------------------------- seeds


def test_the_same_seed_gives_the_same_weights_and_outputs():
    a, b = init_params(**SIZES, seed=0), init_params(**SIZES, seed=0)
    for x, y in zip(flatten(a), flatten(b), strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(forward(SRC, TGT, a), forward(SRC, TGT, b))


def test_a_different_seed_gives_different_weights():
    a, c = init_params(**SIZES, seed=0), init_params(**SIZES, seed=1)
    assert not np.array_equal(a["encoder"]["wte"], c["encoder"]["wte"])
    assert not np.allclose(forward(SRC, TGT, a), forward(SRC, TGT, c))


def test_the_page_numbers_come_from_seed_0():
    params = init_params(**SIZES, seed=0)
    assert greedy_decode(params, SRC, bos=0, eos=1, max_len=6) == [0, 3, 3, 4, 4, 4, 4]
    assert beam_decode(params, SRC, bos=0, eos=1, max_len=6, beam_width=2) == [0, 3, 2, 4, 4, 4, 4]


# ---------------------------------------------------------------- causality and the whole source


@pytest.mark.parametrize("position", range(5))
def test_a_later_target_token_never_changes_earlier_logits(params, position):
    memory = encode(SRC, params)
    logits = decode(TGT, memory, params)
    changed = TGT.copy()
    changed[position] = (changed[position] + 1) % 6
    other = decode(changed, memory, params)
    np.testing.assert_array_equal(other[:position], logits[:position])
    assert not np.allclose(other[position], logits[position])


def test_causality_in_a_batch(params):
    src = np.array([[1, 2, 3], [2, 2, 1]])
    tgt = np.array([[0, 2, 3, 4], [0, 1, 1, 5]])
    logits = forward(src, tgt, params)
    changed = tgt.copy()
    changed[:, 3] = [1, 2]
    np.testing.assert_array_equal(forward(src, changed, params)[:, :3], logits[:, :3])


@pytest.mark.parametrize("position", range(3))
def test_every_encoder_row_depends_on_every_source_token(params, position):
    memory = encode(SRC, params)
    changed = SRC.copy()
    changed[position] = 0 if changed[position] != 0 else 1
    other = encode(changed, params)
    for row in range(3):
        assert not np.allclose(other[row], memory[row])
    assert not np.allclose(forward(changed, TGT, params)[0], forward(SRC, TGT, params)[0])


# ---------------------------------------------------------------- padding


@pytest.mark.parametrize("filler", [1, 2, 3])
def test_a_padded_source_token_cannot_change_the_output(params, filler):
    src = np.array([[1, 2, 3], [3, 2, 0]])
    mask = padding_mask(src == 0)  # [2, 1, 3]
    tgt = np.array([[0, 2, 3], [0, 2, 3]])
    out = forward(src, tgt, params, mask)
    refilled = src.copy()
    refilled[1, 2] = filler
    np.testing.assert_array_equal(forward(refilled, tgt, params, mask), out)
    assert not np.allclose(forward(refilled, tgt, params)[1], out[1])  # without the mask it leaks


def test_a_padded_sequence_matches_the_short_sequence(params):
    src = np.array([[3, 2, 0, 0]])
    out = forward(src, TGT[None, :], params, padding_mask(src == 0))
    np.testing.assert_allclose(out[0], forward(np.array([3, 2]), TGT, params), atol=1e-9)


def test_a_padding_mask_for_one_sequence(params):
    src = np.array([1, 3, 0])
    mask = padding_mask(src == 0)  # [1, n_src]
    a = forward(src, TGT, params, mask)
    b = forward(np.array([1, 3, 2]), TGT, params, mask)
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- post-norm and pre-norm


def test_post_and_pre_norm_both_run_and_differ():
    post = init_params(**SIZES, seed=0, norm="post")
    pre = init_params(**SIZES, seed=0, norm="pre")
    a, b = forward(SRC, TGT, post), forward(SRC, TGT, pre)
    assert a.shape == b.shape == (5, 6)
    assert np.isfinite(a).all() and np.isfinite(b).all()
    assert not np.allclose(a, b)


def test_post_norm_memory_rows_are_normalised_and_pre_norm_ends_with_ln_f():
    post = init_params(**SIZES, seed=0, norm="post")
    memory = encode(SRC, post)  # the last sublayer of post-norm is a layer norm (g = 1, b = 0)
    np.testing.assert_allclose(memory.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(memory.var(axis=-1), 1, atol=1e-3)
    pre = init_params(**SIZES, seed=0, norm="pre")
    memory = encode(SRC, pre)  # pre-norm ends with ln_f, also g = 1, b = 0
    np.testing.assert_allclose(memory.mean(axis=-1), 0, atol=1e-12)


# ---------------------------------------------------------------- teacher forcing


def test_teacher_forcing_cross_entropy_is_the_mean_of_step_by_step_losses(params):
    labels = np.array([2, 3, 4, 5, 1])  # i am a student <eos>
    decoder_input = np.concatenate([[0], labels[:-1]])  # <bos> + labels[:-1]
    loss = cross_entropy(forward(SRC, decoder_input, params), labels)
    memory = encode(SRC, params)
    steps = [-log_softmax(decode(decoder_input[: i + 1], memory, params)[-1])[labels[i]] for i in range(5)]
    assert np.isclose(loss, np.mean(steps))


def test_teacher_forcing_on_the_page_gives_2_16():
    params = init_params(**SIZES, seed=0)
    labels = np.array([2, 3, 4, 5, 1])
    assert round(cross_entropy(forward(SRC, np.r_[0, labels[:-1]], params), labels), 3) == 2.16


def test_teacher_forcing_in_a_batch():
    params = init_params(**SIZES, seed=3)
    src = np.array([[1, 2, 3], [3, 1, 1]])
    labels = np.array([[2, 3, 1], [4, 5, 1]])
    decoder_input = np.concatenate([np.zeros((2, 1), dtype=int), labels[:, :-1]], axis=1)
    loss = cross_entropy(forward(src, decoder_input, params), labels)
    each = [cross_entropy(forward(src[i], decoder_input[i], params), labels[i]) for i in range(2)]
    assert np.isclose(loss, np.mean(each))


# ---------------------------------------------------------------- greedy and beam decoding


def score(params, src, tokens):
    """log p(tokens[1:] | src) by one forward pass."""
    log_probs = log_softmax(forward(src, np.array(tokens[:-1]), params))
    return float(log_probs[np.arange(len(tokens) - 1), tokens[1:]].sum())


@pytest.mark.parametrize("seed", range(6))
def test_greedy_decode_takes_the_argmax_of_decode_at_every_step(seed):
    params = init_params(**SIZES, seed=seed)
    tokens = greedy_decode(params, SRC, bos=0, eos=1, max_len=5)
    assert tokens[0] == 0
    assert len(tokens) == 6 or tokens[-1] == 1
    assert 1 not in tokens[1:-1]
    memory = encode(SRC, params)
    for i in range(1, len(tokens)):
        assert tokens[i] == int(np.argmax(decode(np.array(tokens[:i]), memory, params)[-1]))


@pytest.mark.parametrize("seed", range(6))
def test_beam_width_one_is_greedy_decoding(seed):
    params = init_params(**SIZES, seed=seed)
    assert beam_decode(params, SRC, 0, 1, 5, beam_width=1) == greedy_decode(params, SRC, 0, 1, 5)


def test_greedy_decode_stops_at_eos():
    params = init_params(**SIZES, seed=1)  # this seed says <eos> straight away
    assert greedy_decode(params, SRC, bos=0, eos=1, max_len=6) == [0, 1]


def test_a_wide_enough_beam_is_at_least_as_good_as_greedy():
    sizes = SIZES | {"vocab_tgt": 3}
    for seed in range(4):
        params = init_params(**sizes, seed=seed)
        greedy_tokens = greedy_decode(params, SRC, 0, 1, 3)
        best = beam_decode(params, SRC, 0, 1, 3, beam_width=27)  # every sequence of 3 tokens fits
        assert score(params, SRC, best) >= score(params, SRC, greedy_tokens) - 1e-9
        brute = max(
            score(params, SRC, [0, *new])
            for n in (1, 2, 3)
            for new in itertools.product(range(3), repeat=n)
            if 1 not in new[:-1] and (new[-1] == 1 or n == 3)
        )
        assert np.isclose(score(params, SRC, best), brute)


def test_the_page_beam_of_two_scores_below_greedy():
    params = init_params(**SIZES, seed=0)
    greedy_tokens = greedy_decode(params, SRC, 0, 1, 6)
    wide = beam_decode(params, SRC, 0, 1, 6, beam_width=2)
    assert round(score(params, SRC, greedy_tokens), 3) == -4.725
    assert round(score(params, SRC, wide), 3) == -4.963


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "changes, error, message",
    [
        ({"d_model": 6, "n_head": 4}, ValueError, "n_head = 4 must divide d_model = 6"),
        ({"d_model": 9, "n_head": 3}, ValueError, r"d_model must be even \(the positional encoding pairs sin and cos\), got 9"),
        ({"norm": "mid"}, ValueError, r"norm must be 'post' \(the paper\) or 'pre' \(GPT-2\), got 'mid'"),
        ({"norm": None}, ValueError, "got None"),
        ({"n_layers": 0}, ValueError, "n_layers must be at least 1, got 0"),
        ({"vocab_src": -1}, ValueError, "vocab_src must be at least 1, got -1"),
        ({"d_model": 8.0}, TypeError, "d_model must be an integer, got 8.0"),
        ({"n_head": True}, TypeError, "n_head must be an integer, got True"),
        ({"d_ff": "32"}, TypeError, "d_ff must be an integer, got '32'"),
    ],
)
def test_bad_configs_are_refused(changes, error, message):
    with pytest.raises(error, match=message):
        Config(**(SIZES | changes))
    with pytest.raises(error, match=message):
        init_params(**(SIZES | changes), seed=0)


@pytest.mark.parametrize(
    "src, tgt, error, message",
    [
        (np.array([1, 4]), TGT, ValueError, r"src must be token ids in 0..3 \(a vocabulary of 4\), got 4"),
        (np.array([-1, 2]), TGT, ValueError, "src must be token ids in 0..3"),
        (SRC, np.array([0, 6]), ValueError, r"tgt must be token ids in 0..5 \(a vocabulary of 6\), got 6"),
        (np.array([1.0, 2.0]), TGT, TypeError, "src must be integer token ids, got float64 values"),
        (SRC, np.array([True, False]), TypeError, "tgt must be integer token ids, got bool values"),
        (np.zeros(0, dtype=int), TGT, ValueError, r"src must have shape \[n_seq\] or \[n_batch, n_seq\] with n_seq >= 1, got \(0,\)"),
        (np.zeros((1, 1, 2), dtype=int), TGT, ValueError, r"src must have shape .* got \(1, 1, 2\)"),
        (SRC, np.zeros((2, 0), dtype=int), ValueError, r"tgt must have shape .* got \(2, 0\)"),
    ],
)
def test_bad_token_arrays_are_refused(params, src, tgt, error, message):
    with pytest.raises(error, match=message):
        forward(src, tgt, params)


def test_memory_of_the_wrong_width_is_refused(params):
    with pytest.raises(ValueError, match=r"memory must have shape \[..., n_src, d_model=8\], got \(3, 4\)"):
        decode(TGT, np.zeros((3, 4)), params)


def test_a_src_mask_of_the_wrong_shape_is_refused(params):
    with pytest.raises(ValueError, match="does not broadcast"):
        forward(SRC, TGT, params, src_mask=np.zeros((1, 4)))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"src": np.array([[1, 2]])}, ValueError, r"src must be one sequence of shape \[n_src\], got shape \(1, 2\)"),
        ({"bos": 0.0}, TypeError, "bos must be an integer token id, got 0.0"),
        ({"eos": True}, TypeError, "eos must be an integer token id, got True"),
        ({"eos": 6}, ValueError, r"eos must be token ids in 0..5 \(a vocabulary of 6\), got 6"),
        ({"bos": -1}, ValueError, "bos must be token ids in 0..5"),
        ({"max_len": 0}, ValueError, "max_len must be at least 1, got 0"),
        ({"src": np.array([1, 9])}, ValueError, "src must be token ids in 0..3"),
    ],
)
def test_bad_decoding_arguments_are_refused(params, kwargs, error, message):
    args = {"params": params, "src": SRC, "bos": 0, "eos": 1, "max_len": 3} | kwargs
    with pytest.raises(error, match=message):
        greedy_decode(**args)
    with pytest.raises(error, match=message):
        beam_decode(**args, beam_width=2)


@pytest.mark.parametrize(
    "beam_width, length_penalty, error, message",
    [
        (0, 0.0, ValueError, "beam_width must be at least 1, got 0"),
        (1.0, 0.0, TypeError, "beam_width must be an integer, got 1.0"),
        (2, -1.0, ValueError, "length_penalty must be a finite number >= 0, got -1.0"),
    ],
)
def test_bad_beam_arguments_are_refused(params, beam_width, length_penalty, error, message):
    with pytest.raises(error, match=message):
        beam_decode(params, SRC, 0, 1, 3, beam_width=beam_width, length_penalty=length_penalty)
