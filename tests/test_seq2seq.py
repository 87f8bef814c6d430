"""The encoder-decoder Transformer: shapes, seeds, masks, norms, teacher forcing, decoding, errors."""

import itertools

import numpy as np
import pytest

from handtf.trees import leaves
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
CONFIG = Config(**SIZES)  # the encoder-decoder page's model
SRC = np.array([1, 2, 3])  # je suis étudiant, on the encoder-decoder page
TGT = np.array([0, 2, 3, 4, 5])  # <bos> i am a student


@pytest.fixture(scope="module", params=["post", "pre"])
def config(request):
    return Config(**SIZES, norm=request.param)


@pytest.fixture(scope="module")
def params(config):
    return init_params(config, seed=0)


# ---------------------------------------------------------------- shapes


def test_shapes_of_one_sequence(params, config):
    memory = encode(SRC, params, config)
    assert memory.shape == (3, 8)
    assert decode(TGT, memory, params, config).shape == (5, 6)
    assert forward(SRC, TGT, params, config).shape == (5, 6)
    assert forward(np.array([1]), np.array([0]), params, config).shape == (1, 6)


def test_shapes_of_a_batch(params, config):
    src = np.array([[1, 2, 3, 1], [3, 2, 1, 0]])  # [2, 4]
    tgt = np.array([[0, 2, 3], [0, 5, 1]])  # [2, 3]
    assert encode(src, params, config).shape == (2, 4, 8)
    assert forward(src, tgt, params, config).shape == (2, 3, 6)


def test_a_batch_row_equals_the_sequence_on_its_own(params, config):
    src = np.array([[1, 2, 3], [3, 3, 1]])
    tgt = np.array([[0, 2], [0, 4]])
    batch = forward(src, tgt, params, config)
    for i in range(2):
        np.testing.assert_allclose(batch[i], forward(src[i], tgt[i], params, config), atol=1e-12)


def test_init_params_returns_weights_only():
    """The sizes live in the Config; the weights are only arrays, under 'encoder' and 'decoder'."""
    params = init_params(CONFIG, seed=0)
    assert sorted(params) == ["decoder", "encoder"]
    assert all(isinstance(leaf, np.ndarray) for leaf in leaves(params))
    # every weight of the paper's layout, counted by hand: per attention 4 * (8*8 + 8), per mlp 8*32 + 32 + 32*8 + 8,
    # per layer norm 2 * 8; encoder block 1 attn + 1 mlp + 2 ln, decoder block 2 attn + 1 mlp + 3 ln; embeddings 4*8, 6*8
    attn, mlp, ln = 4 * (8 * 8 + 8), 8 * 32 + 32 + 32 * 8 + 8, 2 * 8
    expected = 4 * 8 + 6 * 8 + 2 * (attn + mlp + 2 * ln) + 2 * (2 * attn + mlp + 3 * ln)
    assert sum(leaf.size for leaf in leaves(params)) == expected


def test_parameter_shapes():
    params = init_params(CONFIG, seed=0)
    assert params["encoder"]["wte"].shape == (4, 8) and params["decoder"]["wte"].shape == (6, 8)
    assert len(params["encoder"]["blocks"]) == len(params["decoder"]["blocks"]) == 2
    block = params["decoder"]["blocks"][0]
    for name in ("self_attn", "cross_attn"):
        assert {k: v["w"].shape for k, v in block[name].items()} == {n: (8, 8) for n in ("c_q", "c_k", "c_v", "c_proj")}
    assert block["mlp"]["c_fc"]["w"].shape == (8, 32) and block["mlp"]["c_proj"]["w"].shape == (32, 8)
    assert "ln_f" not in params["encoder"] and "ln_f" not in params["decoder"]
    pre = init_params(Config(**SIZES, norm="pre"), seed=0)
    assert pre["encoder"]["ln_f"]["g"].shape == pre["decoder"]["ln_f"]["g"].shape == (8,)


# ---------------------------------------------------------------- seeds


def test_the_same_seed_gives_the_same_weights_and_outputs():
    a, b = init_params(CONFIG, seed=0), init_params(CONFIG, seed=0)
    for x, y in zip(leaves(a), leaves(b), strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(forward(SRC, TGT, a, CONFIG), forward(SRC, TGT, b, CONFIG))


def test_a_different_seed_gives_different_weights():
    a, c = init_params(CONFIG, seed=0), init_params(CONFIG, seed=1)
    assert not np.array_equal(a["encoder"]["wte"], c["encoder"]["wte"])
    assert not np.allclose(forward(SRC, TGT, a, CONFIG), forward(SRC, TGT, c, CONFIG))


def test_the_page_numbers_come_from_seed_0():
    params = init_params(CONFIG, seed=0)
    assert greedy_decode(params, CONFIG, SRC, bos=0, eos=1, max_len=6) == [0, 3, 3, 4, 4, 4, 4]
    assert beam_decode(params, CONFIG, SRC, bos=0, eos=1, max_len=6, beam_width=2) == [0, 3, 2, 4, 4, 4, 4]


# ---------------------------------------------------------------- causality and the whole source


@pytest.mark.parametrize("position", range(5))
def test_a_later_target_token_never_changes_earlier_logits(params, config, position):
    memory = encode(SRC, params, config)
    logits = decode(TGT, memory, params, config)
    changed = TGT.copy()
    changed[position] = (changed[position] + 1) % 6
    other = decode(changed, memory, params, config)
    np.testing.assert_array_equal(other[:position], logits[:position])
    assert not np.allclose(other[position], logits[position])


def test_causality_in_a_batch(params, config):
    src = np.array([[1, 2, 3], [2, 2, 1]])
    tgt = np.array([[0, 2, 3, 4], [0, 1, 1, 5]])
    logits = forward(src, tgt, params, config)
    changed = tgt.copy()
    changed[:, 3] = [1, 2]
    np.testing.assert_array_equal(forward(src, changed, params, config)[:, :3], logits[:, :3])


@pytest.mark.parametrize("position", range(3))
def test_every_encoder_row_depends_on_every_source_token(params, config, position):
    memory = encode(SRC, params, config)
    changed = SRC.copy()
    changed[position] = 0 if changed[position] != 0 else 1
    other = encode(changed, params, config)
    for row in range(3):
        assert not np.allclose(other[row], memory[row])
    assert not np.allclose(forward(changed, TGT, params, config)[0], forward(SRC, TGT, params, config)[0])


# ---------------------------------------------------------------- padding


@pytest.mark.parametrize("filler", [1, 2, 3])
def test_a_padded_source_token_cannot_change_the_output(params, config, filler):
    src = np.array([[1, 2, 3], [3, 2, 0]])
    mask = padding_mask(src == 0)  # [2, 1, 3]
    tgt = np.array([[0, 2, 3], [0, 2, 3]])
    out = forward(src, tgt, params, config, mask)
    refilled = src.copy()
    refilled[1, 2] = filler
    np.testing.assert_array_equal(forward(refilled, tgt, params, config, mask), out)
    assert not np.allclose(forward(refilled, tgt, params, config)[1], out[1])  # without the mask it leaks


def test_a_padded_sequence_matches_the_short_sequence(params, config):
    src = np.array([[3, 2, 0, 0]])
    out = forward(src, TGT[None, :], params, config, padding_mask(src == 0))
    np.testing.assert_allclose(out[0], forward(np.array([3, 2]), TGT, params, config), atol=1e-9)


def test_a_padding_mask_for_one_sequence(params, config):
    src = np.array([1, 3, 0])
    mask = padding_mask(src == 0)  # [1, n_src]
    a = forward(src, TGT, params, config, mask)
    b = forward(np.array([1, 3, 2]), TGT, params, config, mask)
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- post-norm and pre-norm


def test_post_and_pre_norm_both_run_and_differ():
    post_config, pre_config = Config(**SIZES, norm="post"), Config(**SIZES, norm="pre")
    post, pre = init_params(post_config, seed=0), init_params(pre_config, seed=0)
    a, b = forward(SRC, TGT, post, post_config), forward(SRC, TGT, pre, pre_config)
    assert a.shape == b.shape == (5, 6)
    assert np.isfinite(a).all() and np.isfinite(b).all()
    assert not np.allclose(a, b)


def test_post_norm_memory_rows_are_normalised_and_pre_norm_ends_with_ln_f():
    memory = encode(SRC, init_params(CONFIG, seed=0), CONFIG)  # the last sublayer of post-norm is a layer norm (g = 1, b = 0)
    np.testing.assert_allclose(memory.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(memory.var(axis=-1), 1, atol=1e-3)
    pre_config = Config(**SIZES, norm="pre")
    memory = encode(SRC, init_params(pre_config, seed=0), pre_config)  # pre-norm ends with ln_f, also g = 1, b = 0
    np.testing.assert_allclose(memory.mean(axis=-1), 0, atol=1e-12)


# ---------------------------------------------------------------- teacher forcing


def test_teacher_forcing_cross_entropy_is_the_mean_of_step_by_step_losses(params, config):
    labels = np.array([2, 3, 4, 5, 1])  # i am a student <eos>
    decoder_input = np.concatenate([[0], labels[:-1]])  # <bos> + labels[:-1]
    loss = cross_entropy(forward(SRC, decoder_input, params, config), labels)
    memory = encode(SRC, params, config)
    steps = [-log_softmax(decode(decoder_input[: i + 1], memory, params, config)[-1])[labels[i]] for i in range(5)]
    assert np.isclose(loss, np.mean(steps))


def test_teacher_forcing_on_the_page_gives_2_16():
    params = init_params(CONFIG, seed=0)
    labels = np.array([2, 3, 4, 5, 1])
    assert round(cross_entropy(forward(SRC, np.r_[0, labels[:-1]], params, CONFIG), labels), 3) == 2.16


def test_teacher_forcing_in_a_batch():
    params = init_params(CONFIG, seed=3)
    src = np.array([[1, 2, 3], [3, 1, 1]])
    labels = np.array([[2, 3, 1], [4, 5, 1]])
    decoder_input = np.concatenate([np.zeros((2, 1), dtype=int), labels[:, :-1]], axis=1)
    loss = cross_entropy(forward(src, decoder_input, params, CONFIG), labels)
    each = [cross_entropy(forward(src[i], decoder_input[i], params, CONFIG), labels[i]) for i in range(2)]
    assert np.isclose(loss, np.mean(each))


# ---------------------------------------------------------------- greedy and beam decoding


def score(params, config, src, tokens):
    """log p(tokens[1:] | src) by one forward pass."""
    log_probs = log_softmax(forward(src, np.array(tokens[:-1]), params, config))
    return float(log_probs[np.arange(len(tokens) - 1), tokens[1:]].sum())


@pytest.mark.parametrize("seed", range(6))
def test_greedy_decode_takes_the_argmax_of_decode_at_every_step(seed):
    params = init_params(CONFIG, seed=seed)
    tokens = greedy_decode(params, CONFIG, SRC, bos=0, eos=1, max_len=5)
    assert tokens[0] == 0
    assert len(tokens) == 6 or tokens[-1] == 1
    assert 1 not in tokens[1:-1]
    memory = encode(SRC, params, CONFIG)
    for i in range(1, len(tokens)):
        assert tokens[i] == int(np.argmax(decode(np.array(tokens[:i]), memory, params, CONFIG)[-1]))


@pytest.mark.parametrize("seed", range(6))
def test_beam_width_one_is_greedy_decoding(seed):
    params = init_params(CONFIG, seed=seed)
    assert beam_decode(params, CONFIG, SRC, 0, 1, 5, beam_width=1) == greedy_decode(params, CONFIG, SRC, 0, 1, 5)


def test_greedy_decode_stops_at_eos():
    params = init_params(CONFIG, seed=1)  # this seed says <eos> straight away
    assert greedy_decode(params, CONFIG, SRC, bos=0, eos=1, max_len=6) == [0, 1]


def test_a_wide_enough_beam_is_at_least_as_good_as_greedy():
    config = Config(**(SIZES | {"vocab_tgt": 3}))
    for seed in range(4):
        params = init_params(config, seed=seed)
        greedy_tokens = greedy_decode(params, config, SRC, 0, 1, 3)
        best = beam_decode(params, config, SRC, 0, 1, 3, beam_width=27)  # every sequence of 3 tokens fits
        assert score(params, config, SRC, best) >= score(params, config, SRC, greedy_tokens) - 1e-9
        brute = max(
            score(params, config, SRC, [0, *new])
            for n in (1, 2, 3)
            for new in itertools.product(range(3), repeat=n)
            if 1 not in new[:-1] and (new[-1] == 1 or n == 3)
        )
        assert np.isclose(score(params, config, SRC, best), brute)


def test_the_page_beam_of_two_scores_below_greedy():
    params = init_params(CONFIG, seed=0)
    greedy_tokens = greedy_decode(params, CONFIG, SRC, 0, 1, 6)
    wide = beam_decode(params, CONFIG, SRC, 0, 1, 6, beam_width=2)
    assert round(score(params, CONFIG, SRC, greedy_tokens), 3) == -4.725
    assert round(score(params, CONFIG, SRC, wide), 3) == -4.963


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


@pytest.mark.parametrize(
    "config, message",
    [
        (Config(**(SIZES | {"vocab_src": 5})), r"params\['encoder'\]\['wte'\] must have shape \(5, 8\) for config = Config\(vocab_src=5, .*\), got shape \(4, 8\)"),
        (Config(**(SIZES | {"d_ff": 16})), r"params\['encoder'\]\['blocks'\]\[0\]\['mlp'\]\['c_fc'\]\['w'\] must have shape \(8, 16\) for config = Config\(.*d_ff=16.*\), got shape \(8, 32\)"),
        (Config(**(SIZES | {"n_layers": 3})), r"params\['encoder'\]\['blocks'\] must be a list of 3 items for config = Config\(.*n_layers=3.*\), got 2 items"),
        (Config(**(SIZES | {"norm": "pre"})), r"params\['encoder'\] must be a dict with keys 'wte', 'blocks' and 'ln_f' for config = Config\(.*norm='pre'\), got one without 'ln_f'"),
        (Config(**(SIZES | {"d_model": 4})), r"params\['encoder'\]\['wte'\] must have shape \(4, 4\) for config = Config\(.*d_model=4.*\), got shape \(4, 8\)"),
    ],
)
def test_a_config_that_does_not_match_the_weights_is_refused(config, message):
    """Weights made for CONFIG run with another config: the error names the first weight that does not fit, and the config."""
    params = init_params(CONFIG, seed=0)
    for call in (
        lambda: encode(SRC, params, config),
        lambda: decode(TGT, np.zeros((3, config.d_model)), params, config),
        lambda: forward(SRC, TGT, params, config),
        lambda: greedy_decode(params, config, SRC, bos=0, eos=1, max_len=3),
        lambda: beam_decode(params, config, SRC, bos=0, eos=1, max_len=3, beam_width=2),
    ):
        with pytest.raises(ValueError, match=message):
            call()


@pytest.mark.parametrize(
    "config, error, message",
    [
        (None, TypeError, r"config must be a handtf.seq2seq.Config \(Config\(vocab_src, .*\)\), got NoneType"),
        (SIZES, TypeError, "config must be a handtf.seq2seq.Config .*, got dict"),
    ],
)
def test_init_params_and_the_forward_pass_want_a_config(config, error, message):
    with pytest.raises(error, match=message):
        init_params(config, seed=0)
    with pytest.raises(error, match=message):
        forward(SRC, TGT, init_params(CONFIG, seed=0), config)


def test_params_in_the_place_of_the_config_are_refused():
    params = init_params(CONFIG, seed=0)
    with pytest.raises(TypeError, match="config must be a handtf.seq2seq.Config .*, got dict"):
        forward(SRC, TGT, CONFIG, params)  # the two swapped
    with pytest.raises(TypeError, match="config must be a handtf.seq2seq.Config .*, got dict"):
        greedy_decode(params, params, SRC, 0, 1, 3)


def test_params_with_the_config_inside_as_before_are_refused():
    params = init_params(CONFIG, seed=0) | {"config": CONFIG}
    with pytest.raises(ValueError, match="params must be a dict with keys 'encoder' and 'decoder' .*got one with the unexpected key 'config'"):
        encode(SRC, params, CONFIG)


@pytest.mark.parametrize("seed, error, message", [(-1, ValueError, "seed must be at least 0, got -1"), (0.5, TypeError, "seed must be an integer, got 0.5")])
def test_a_bad_seed_is_refused(seed, error, message):
    with pytest.raises(error, match=message):
        init_params(CONFIG, seed)


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
def test_bad_token_arrays_are_refused(params, config, src, tgt, error, message):
    with pytest.raises(error, match=message):
        forward(src, tgt, params, config)


def test_memory_of_the_wrong_width_is_refused(params, config):
    with pytest.raises(ValueError, match=r"memory must have shape \[..., n_src, d_model=8\], got \(3, 4\)"):
        decode(TGT, np.zeros((3, 4)), params, config)


def test_a_src_mask_of_the_wrong_shape_is_refused(params, config):
    with pytest.raises(ValueError, match="does not broadcast"):
        forward(SRC, TGT, params, config, src_mask=np.zeros((1, 4)))


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
def test_bad_decoding_arguments_are_refused(params, config, kwargs, error, message):
    args = {"params": params, "config": config, "src": SRC, "bos": 0, "eos": 1, "max_len": 3} | kwargs
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
def test_bad_beam_arguments_are_refused(params, config, beam_width, length_penalty, error, message):
    with pytest.raises(error, match=message):
        beam_decode(params, config, SRC, 0, 1, 3, beam_width=beam_width, length_penalty=length_penalty)
