"""Greedy decoding, temperature, top-k, top-p, sampling, greedy search and beam search."""

import itertools
import math

import numpy as np
import pytest

from handtf import (
    apply_temperature,
    beam_search,
    greedy,
    greedy_search,
    sample,
    sampling_distribution,
    softmax,
    top_k_filter,
    top_p_filter,
)

Z = np.array([3.0, 2.2, 1.6, 1.0, 0.2, -0.5])  # the decoding page's six tokens


def kept(filtered):
    """The token ids a filter left finite."""
    return np.flatnonzero(np.isfinite(filtered)).tolist()


# ---------------------------------------------------------------- greedy


def test_greedy_takes_the_largest_logit_and_ties_go_to_the_lower_id():
    assert greedy([0.1, 2.0, -1.0]) == 1
    assert greedy([1.0, 3.0, 3.0, 2.0]) == 1
    assert greedy([5.0, 5.0]) == 0
    assert greedy([-np.inf, -3.0, -np.inf]) == 1
    assert greedy(np.array([2, 7, 1])) == 1  # integer logits are fine
    assert type(greedy(Z)) is int


# ---------------------------------------------------------------- temperature


def test_temperature_divides_the_logits():
    np.testing.assert_array_equal(apply_temperature([2.0, 1.0], 0.5), [4.0, 2.0])
    np.testing.assert_array_equal(apply_temperature(Z, 1.0), Z)
    np.testing.assert_array_equal(apply_temperature([2.0, -np.inf], 4), [0.5, -np.inf])


def test_sampling_distribution_with_temperature_matches_a_softmax_written_out():
    for t in (0.25, 0.5, 1.0, 2.0, 10.0):
        e = np.exp(Z / t)
        np.testing.assert_allclose(sampling_distribution(Z, temperature=t), e / e.sum())


def test_temperature_limits():
    # near 0: all the mass on the best token (greedy); ties share it equally
    np.testing.assert_allclose(sampling_distribution(Z, temperature=1e-3), np.eye(6)[0], atol=1e-12)
    np.testing.assert_allclose(sampling_distribution([1.0, 3.0, 3.0], temperature=1e-3), [0, 0.5, 0.5], atol=1e-12)
    # very high: uniform
    np.testing.assert_allclose(sampling_distribution(Z, temperature=1e6), np.full(6, 1 / 6), atol=1e-6)


@pytest.mark.parametrize("t", [0.1, 0.5, 1.0, 3.0, 100.0])
def test_temperature_keeps_the_order_of_the_tokens(t):
    assert np.argsort(-apply_temperature(Z, t), kind="stable").tolist() == [0, 1, 2, 3, 4, 5]
    assert greedy(apply_temperature(Z, t)) == greedy(Z)


def test_lower_temperature_sharpens_higher_flattens():
    best = [float(sampling_distribution(Z, temperature=t)[0]) for t in (0.25, 0.5, 1.0, 2.0, 4.0)]
    assert best == sorted(best, reverse=True)


def test_a_temperature_too_small_for_the_logits_is_refused_not_nan():
    with pytest.raises(ValueError, match="temperature 1e-308 is too small for these logits"):
        apply_temperature([1.0, 2.0], 1e-308)
    with pytest.raises(ValueError, match="too small"):
        sampling_distribution([1e300, 0.0], temperature=1e-10)
    # -inf logits are not an overflow
    np.testing.assert_array_equal(apply_temperature([1.0, -np.inf], 1e-3), [1000.0, -np.inf])


# ---------------------------------------------------------------- top-k


def test_top_k_keeps_exactly_k_tokens():
    np.testing.assert_array_equal(top_k_filter(Z, 3), [3.0, 2.2, 1.6, -np.inf, -np.inf, -np.inf])
    for k in range(1, 7):
        filtered = top_k_filter(Z, k)
        assert kept(filtered) == list(range(k))
        np.testing.assert_array_equal(filtered[:k], Z[:k])


def test_top_k_ties_keep_the_lower_id():
    assert kept(top_k_filter([1.0, 3.0, 2.0, 3.0], 2)) == [1, 3]
    assert kept(top_k_filter([1.0, 1.0, 1.0, 1.0], 2)) == [0, 1]
    assert kept(top_k_filter([0.0, 5.0, 0.0, 0.0], 3)) == [0, 1, 2]


def test_top_k_renormalises_the_survivors():
    p = softmax(Z)
    np.testing.assert_allclose(sampling_distribution(Z, top_k=3), np.r_[p[:3] / p[:3].sum(), 0, 0, 0])
    np.testing.assert_allclose(sampling_distribution(Z, top_k=6), p)
    np.testing.assert_array_equal(sampling_distribution(Z, top_k=1), np.eye(6)[0])


# ---------------------------------------------------------------- top-p


@pytest.mark.parametrize(
    "top_p, n_kept",
    [(0.01, 1), (0.49, 1), (0.51, 2), (0.79, 2), (0.81, 3), (0.99, 3), (1.0, 3)],
)
def test_top_p_keeps_the_smallest_nucleus_reaching_p(top_p, n_kept):
    logits = np.log([0.5, 0.3, 0.2])  # cumulative 0.5, 0.8, 1.0
    filtered = top_p_filter(logits, top_p)
    assert kept(filtered) == list(range(n_kept))
    np.testing.assert_allclose(filtered[:n_kept], logits[:n_kept])


def test_top_p_sorts_by_probability_not_by_id():
    logits = np.log([0.1, 0.6, 0.3])
    assert kept(top_p_filter(logits, 0.5)) == [1]
    assert kept(top_p_filter(logits, 0.7)) == [1, 2]
    assert kept(top_p_filter(logits, 0.95)) == [0, 1, 2]


def test_top_p_on_the_page_example():
    assert kept(top_p_filter(Z, 0.9)) == [0, 1, 2, 3]
    p = softmax(Z)
    np.testing.assert_allclose(sampling_distribution(Z, top_p=0.9), np.r_[p[:4] / p[:4].sum(), 0, 0])


def test_top_p_ties_keep_the_lower_id():
    assert kept(top_p_filter(np.zeros(4), 0.5)) == [0, 1]
    assert kept(top_p_filter(np.zeros(4), 0.51)) == [0, 1, 2]


def test_top_p_always_keeps_at_least_one_token():
    assert kept(top_p_filter(Z, 1e-9)) == [0]
    assert kept(top_p_filter([0.0, 0.0], 1e-9)) == [0]


def test_top_p_of_one_keeps_every_token_even_a_tiny_one():
    # the float sum of the probabilities reaches 1.0 at the first token here
    assert float(np.cumsum(softmax(np.array([0.0, -40.0])))[0]) == 1.0
    np.testing.assert_array_equal(top_p_filter([0.0, -40.0], 1.0), [0.0, -40.0])
    np.testing.assert_allclose(sampling_distribution([0.0, -40.0], top_p=1.0), softmax(np.array([0.0, -40.0])))
    np.testing.assert_array_equal(top_p_filter([0.0, -np.inf], 1.0), [0.0, -np.inf])


def test_top_p_depends_on_the_temperature_top_k_does_not():
    sizes = [len(kept(top_p_filter(apply_temperature(Z, t), 0.9))) for t in (0.5, 1.0, 2.0)]
    assert sizes == [2, 4, 5]
    assert all(kept(top_k_filter(apply_temperature(Z, t), 3)) == [0, 1, 2] for t in (0.5, 1.0, 2.0))


# ---------------------------------------------------------------- sampling_distribution


def test_sampling_distribution_defaults_to_softmax_and_sums_to_one():
    np.testing.assert_allclose(sampling_distribution(Z), softmax(Z))
    for kwargs in ({}, {"temperature": 0.3}, {"top_k": 2}, {"top_p": 0.7}, {"temperature": 2.0, "top_k": 4, "top_p": 0.8}):
        probs = sampling_distribution(Z, **kwargs)
        assert probs.shape == (6,)
        assert math.isclose(float(probs.sum()), 1.0)
        assert (probs >= 0).all()


def test_sampling_distribution_order_temperature_top_k_top_p():
    # by hand: T = 0.5 gives 0.778, 0.157, 0.047, ...; top-k 3 renormalises the first three;
    # their cumulative mass passes 0.9 at the second, so the nucleus is tokens 0 and 1.
    p = softmax(Z / 0.5)[:3]
    p = p / p.sum()
    assert p[0] < 0.9 <= p[0] + p[1]
    expected = np.r_[p[:2] / p[:2].sum(), 0, 0, 0, 0]
    np.testing.assert_allclose(sampling_distribution(Z, temperature=0.5, top_k=3, top_p=0.9), expected)
    np.testing.assert_allclose(expected[:2], [0.832, 0.168], atol=5e-4)


# ---------------------------------------------------------------- sample


def test_sample_is_reproducible_with_a_seeded_generator():
    first = [sample(Z, rng=np.random.default_rng(7)) for _ in range(3)]
    assert first[0] == first[1] == first[2]
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    assert [sample(Z, rng=rng_a) for _ in range(50)] == [sample(Z, rng=rng_b) for _ in range(50)]
    assert [sample(Z, rng=np.random.default_rng(0)) for _ in range(1)] == [1]  # the page's first draw
    assert type(sample(Z, rng=rng_a)) is int


def test_sample_without_rng_draws_a_valid_token():
    assert sample(Z) in range(6)
    assert sample([0.0, -np.inf, -np.inf]) == 0


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"temperature": 2.0}, {"top_k": 3}, {"temperature": 0.7, "top_k": 4, "top_p": 0.8}],
)
def test_sample_frequencies_match_the_distribution(kwargs):
    rng = np.random.default_rng(1234)
    n = 5000  # a frequency's standard deviation is at most 0.5 / sqrt(n) ~ 0.007
    counts = np.bincount([sample(Z, rng=rng, **kwargs) for _ in range(n)], minlength=6)
    probs = sampling_distribution(Z, **kwargs)
    np.testing.assert_allclose(counts / n, probs, atol=0.025)
    assert (counts[probs == 0] == 0).all()  # a filtered token is never drawn


def test_sample_takes_a_single_point_distribution():
    rng = np.random.default_rng(0)
    assert {sample([0.0, 50.0, 0.0], top_k=1, rng=rng) for _ in range(100)} == {1}


# ---------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    "logits, error, message",
    [
        ([], ValueError, r"logits must have shape \[n_vocab\] with no empty axis, got shape \(0,\)"),
        ([[1.0, 2.0]], ValueError, r"got shape \(1, 2\)"),
        (3.0, ValueError, r"logits must have shape \[n_vocab\], got a scalar"),
        ([1.0, np.nan], ValueError, r"logits must not contain NaN or \+inf, got nan at index \(1,\)"),
        ([np.inf, 1.0], ValueError, r"got inf at index \(0,\)"),
        ([-np.inf, -np.inf], ValueError, "at least one finite entry"),
        ([True, False], TypeError, "logits must be an array of real numbers, got bool values"),
        (["a", "b"], TypeError, "logits must be an array of real numbers"),
        ([1j, 2.0], TypeError, "logits must be an array of real numbers, got complex128 values"),
        ([None, 1.0], TypeError, "logits must be an array of real numbers, got object values"),
    ],
)
@pytest.mark.parametrize(
    "fn",
    [
        greedy,
        lambda z: apply_temperature(z, 1.0),
        lambda z: top_k_filter(z, 1),
        lambda z: top_p_filter(z, 0.5),
        sampling_distribution,
        lambda z: sample(z, rng=np.random.default_rng(0)),
    ],
    ids=["greedy", "apply_temperature", "top_k_filter", "top_p_filter", "sampling_distribution", "sample"],
)
def test_bad_logits_are_refused(fn, logits, error, message):
    with pytest.raises(error, match=message):
        fn(logits)


@pytest.mark.parametrize(
    "temperature, error, message",
    [
        (0, ValueError, "temperature must be a positive finite number, got 0"),
        (0.0, ValueError, "got 0.0"),
        (-1.0, ValueError, "got -1.0"),
        (math.inf, ValueError, "got inf"),
        (math.nan, ValueError, "got nan"),
        (True, TypeError, "temperature must be a real number, got True"),
        ("1", TypeError, "temperature must be a real number, got '1'"),
        (None, TypeError, "got None"),
    ],
)
def test_bad_temperature(temperature, error, message):
    with pytest.raises(error, match=message):
        apply_temperature(Z, temperature)
    with pytest.raises(error, match=message):
        sample(Z, temperature=temperature, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    "top_k, error, message",
    [
        (7, ValueError, "top_k must be at most n_vocab = 6, got 7"),
        (0, ValueError, "top_k must be at least 1, got 0"),
        (-2, ValueError, "top_k must be at least 1, got -2"),
        (2.0, TypeError, "top_k must be an integer, got 2.0"),
        (True, TypeError, "top_k must be an integer, got True"),
    ],
)
def test_bad_top_k(top_k, error, message):
    with pytest.raises(error, match=message):
        top_k_filter(Z, top_k)
    with pytest.raises(error, match=message):
        sampling_distribution(Z, top_k=top_k)


@pytest.mark.parametrize(
    "top_p, error, message",
    [
        (0, ValueError, "top_p must be a positive finite number at most 1, got 0"),
        (-0.1, ValueError, "got -0.1"),
        (1.0000001, ValueError, "got 1.0000001"),
        (2, ValueError, "got 2"),
        (math.nan, ValueError, "got nan"),
        (True, TypeError, "top_p must be a real number, got True"),
        ("0.9", TypeError, "top_p must be a real number, got '0.9'"),
    ],
)
def test_bad_top_p(top_p, error, message):
    with pytest.raises(error, match=message):
        top_p_filter(Z, top_p)
    with pytest.raises(error, match=message):
        sampling_distribution(Z, top_p=top_p)


@pytest.mark.parametrize("rng", [0, 42, np.random.RandomState(0), "seed", np.random.default_rng])
def test_bad_rng(rng):
    with pytest.raises(TypeError, match=r"rng must be a np.random.Generator \(e.g. np.random.default_rng\(0\)\)"):
        sample(Z, rng=rng)


# ---------------------------------------------------------------- greedy_search and beam_search

# The decoding page's toy model: token 2 ends, and starts, a sequence.
PROBS = {(): [0.55, 0.4, 0.05], (0,): [0.3, 0.3, 0.4], (1,): [0.05, 0.05, 0.9]}


def step(tokens):
    return np.log(PROBS[tuple(tokens[1:])])


# A second table where anything not listed ends with probability 0.9.
PROBS2 = {(): [0.5, 0.4, 0.1], (0,): [0.45, 0.35, 0.2], (1,): [0.05, 0.05, 0.9], (0, 0): [0.9, 0.05, 0.05]}


def step2(tokens):
    return np.log(PROBS2.get(tuple(tokens[1:]), [0.05, 0.05, 0.9]))


def random_step(seed, n_vocab):
    """A step function whose log-probs are a fixed random function of the prefix."""

    def step_fn(tokens):
        p = np.random.default_rng([seed, *tokens]).dirichlet(np.ones(n_vocab))
        return np.log(p)

    return step_fn


def all_sequences(step_fn, start, max_len, eos):
    """Every sequence a search could return, with its summed log-prob: by brute force."""
    n_vocab = step_fn(start).size
    found = []
    for n in range(1, max_len + 1):
        for new in itertools.product(range(n_vocab), repeat=n):
            if eos is not None and eos in new[:-1]:
                continue  # a sequence stops at its first eos
            if n < max_len and (eos is None or new[-1] != eos):
                continue  # unfinished and shorter than max_len: the search would have gone on
            tokens = list(start)
            score = 0.0
            for token in new:
                score += float(step_fn(tokens)[token])
                tokens.append(token)
            found.append((tokens, score))
    return found


def test_greedy_search_on_the_toy_table():
    tokens, score = greedy_search(step, [2], max_len=5, eos=2)
    assert tokens == [2, 0, 2]
    assert math.isclose(score, math.log(0.55) + math.log(0.4))


def test_greedy_search_without_eos_runs_to_max_len():
    tokens, score = greedy_search(step2, [2], max_len=4)
    assert tokens == [2, 0, 0, 0, 2]  # token 2 is just a token when eos is None
    tokens, score = greedy_search(lambda t: np.log([0.6, 0.4]), [1], max_len=3)
    assert tokens == [1, 0, 0, 0]
    assert math.isclose(score, 3 * math.log(0.6))


def test_greedy_search_keeps_several_start_tokens_and_follows_the_argmax():
    seen = []

    def spy(prefix):
        seen.append(list(prefix))
        return np.log([0.2, 0.7, 0.1])

    tokens, _ = greedy_search(spy, [2, 0, 2], max_len=2, eos=2)
    assert tokens == [2, 0, 2, 1, 1]
    assert seen == [[2, 0, 2], [2, 0, 2, 1]]


def test_beam_search_finds_the_better_sequence():
    hypotheses = beam_search(step, [2], beam_width=2, max_len=5, eos=2)
    assert [tokens for tokens, _ in hypotheses] == [[2, 1, 2], [2, 0, 2]]
    assert math.isclose(math.exp(hypotheses[0][1]), 0.36)
    greedy_tokens, greedy_score = greedy_search(step, [2], max_len=5, eos=2)
    assert hypotheses[0][1] > greedy_score


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("eos", [None, 0, 2])
def test_beam_width_one_is_greedy_search(seed, eos):
    step_fn = random_step(seed, n_vocab=3)
    assert beam_search(step_fn, [1], beam_width=1, max_len=5, eos=eos) == [greedy_search(step_fn, [1], 5, eos)]


def test_beam_width_one_is_greedy_on_the_pages_tables():
    for step_fn, max_len in ((step, 5), (step2, 6)):
        assert beam_search(step_fn, [2], 1, max_len, eos=2) == [greedy_search(step_fn, [2], max_len, eos=2)]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("eos", [None, 1])
def test_a_beam_as_wide_as_every_sequence_is_an_exhaustive_search(seed, eos):
    step_fn, max_len = random_step(seed, n_vocab=3), 3
    brute = all_sequences(step_fn, [0], max_len, eos)
    hypotheses = beam_search(step_fn, [0], beam_width=3**max_len, max_len=max_len, eos=eos)
    assert sorted(t for t, _ in hypotheses) == sorted(t for t, _ in brute)
    best = max(score for _, score in brute)
    assert math.isclose(hypotheses[0][1], best)
    assert hypotheses[0][1] >= greedy_search(step_fn, [0], max_len, eos)[1] - 1e-12


def test_beam_search_returns_hypotheses_best_first():
    hypotheses = beam_search(random_step(3, 4), [0], beam_width=3, max_len=4, eos=3)
    scores = [score for _, score in hypotheses]
    assert scores == sorted(scores, reverse=True)
    assert all(tokens[0] == 0 for tokens, _ in hypotheses)


def test_finished_hypotheses_leave_the_beam():
    # eos (2) is the best token at every step: each step's best candidate finishes at once
    calls = []

    def eager(tokens):
        calls.append(list(tokens))
        return np.log([0.3, 0.2, 0.5])

    hypotheses = beam_search(eager, [2], beam_width=2, max_len=3, eos=2)
    for tokens, _ in hypotheses:
        assert 2 not in tokens[1:-1]  # nothing continues past an eos
    assert all(prefix[-1] != 2 or len(prefix) == 1 for prefix in calls)  # no finished prefix is extended
    assert hypotheses[0][0] == [2, 2]


def test_the_search_stops_when_every_hypothesis_has_finished():
    calls = []

    def certain_end(tokens):
        calls.append(list(tokens))
        return np.log([0.001, 0.001, 0.998]) if len(tokens) > 1 else np.log([0.5, 0.4, 0.1])

    hypotheses = beam_search(certain_end, [2], beam_width=2, max_len=10, eos=2)
    assert [tokens for tokens, _ in hypotheses] == [[2, 0, 2], [2, 1, 2]]
    assert len(calls) == 1 + 2  # the start, then the two survivors once; the beam is empty after step 2


def test_minus_inf_candidates_are_never_kept():
    only_zero = lambda tokens: np.array([0.0, -np.inf, -np.inf])  # noqa: E731
    hypotheses = beam_search(only_zero, [0], beam_width=3, max_len=2)
    assert hypotheses == [([0, 0, 0], 0.0)]


def test_length_penalty_changes_the_ranking():
    plain = beam_search(step2, [2], beam_width=2, max_len=6, eos=2, length_penalty=0.0)
    mean = beam_search(step2, [2], beam_width=2, max_len=6, eos=2, length_penalty=1.0)
    assert plain[0][0] == [2, 1, 2] and mean[0][0] == [2, 0, 0, 0, 2]
    assert math.isclose(plain[0][1], math.log(0.4 * 0.9))
    assert math.isclose(mean[0][1], math.log(0.5 * 0.45 * 0.9 * 0.9) / 4)
    assert math.isclose(mean[1][1], math.log(0.36) / 2)
    half = beam_search(step2, [2], beam_width=2, max_len=6, eos=2, length_penalty=0.5)
    assert math.isclose(half[0][1], math.log(0.36) / math.sqrt(2))


def test_length_penalty_does_not_change_equal_length_rankings():
    plain = beam_search(step, [2], 2, 5, eos=2)
    for penalty in (0.5, 1.0, 2.0):
        ranked = beam_search(step, [2], 2, 5, eos=2, length_penalty=penalty)
        assert [t for t, _ in ranked] == [t for t, _ in plain]
        assert all(math.isclose(s, p / 2**penalty) for (_, s), (_, p) in zip(ranked, plain))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"beam_width": 0}, ValueError, "beam_width must be at least 1, got 0"),
        ({"beam_width": -1}, ValueError, "beam_width must be at least 1, got -1"),
        ({"beam_width": 2.0}, TypeError, "beam_width must be an integer, got 2.0"),
        ({"max_len": 0}, ValueError, "max_len must be at least 1, got 0"),
        ({"max_len": 1.5}, TypeError, "max_len must be an integer, got 1.5"),
        ({"length_penalty": -0.5}, ValueError, "length_penalty must be a finite number >= 0, got -0.5"),
        ({"length_penalty": math.inf}, ValueError, "got inf"),
        ({"length_penalty": math.nan}, ValueError, "got nan"),
        ({"length_penalty": "1"}, TypeError, "length_penalty must be a real number"),
        ({"eos": True}, TypeError, "eos must be None or an integer token id, got True"),
        ({"eos": 2.0}, TypeError, "eos must be None or an integer token id, got 2.0"),
        ({"eos": -1}, ValueError, "eos must be a token id >= 0, got -1"),
        ({"eos": 3}, ValueError, r"eos must hold token ids in 0..2 \(step_fn's n_vocab\), got 3"),
        ({"start_tokens": []}, ValueError, "start_tokens must be a non-empty list of token ids"),
        ({"start_tokens": [0.0]}, TypeError, "start_tokens must be integer token ids"),
        ({"start_tokens": [-1]}, ValueError, r"start_tokens must be token ids in 0\.\.9,223,372,036,854,775,807, got -1"),
        # uint64 ids above int64's largest would wrap to negative ids
        ({"start_tokens": np.array([2**64 - 1], dtype=np.uint64)}, ValueError,
         r"start_tokens must be token ids in 0\.\.9,223,372,036,854,775,807, got 18446744073709551615"),
        ({"start_tokens": np.array([2**63], dtype=np.uint64)}, ValueError, "got 9223372036854775808"),
        ({"start_tokens": [5]}, ValueError, r"start_tokens must hold token ids in 0..2 \(step_fn's n_vocab\), got 5"),
        ({"start_tokens": [[2]]}, ValueError, "start_tokens must be a non-empty list"),
    ],
)
def test_bad_search_arguments(kwargs, error, message):
    args = {"step_fn": step2, "start_tokens": [2], "beam_width": 2, "max_len": 4, "eos": 2} | kwargs
    with pytest.raises(error, match=message):
        beam_search(**args)
    if "beam_width" not in kwargs and "length_penalty" not in kwargs:
        del args["beam_width"]
        with pytest.raises(error, match=message):
            greedy_search(**args)


def test_a_step_function_that_changes_its_vocabulary_is_refused():
    def shrinking(tokens):
        return np.log([0.5, 0.5]) if len(tokens) == 1 else np.log([0.2, 0.3, 0.5])

    for search in (lambda: greedy_search(shrinking, [0], 3), lambda: beam_search(shrinking, [0], 2, 3)):
        with pytest.raises(ValueError, match=r"step_fn must return log-probs of shape \(2,\) at every step, got \(3,\)"):
            search()


@pytest.mark.parametrize(
    "answer, error, message",
    [
        (np.array([np.nan, 0.0]), ValueError, "logits must not contain NaN"),
        (np.array([-np.inf, -np.inf]), ValueError, "at least one finite entry"),
        (np.zeros((2, 2)), ValueError, "logits must have shape"),
        (None, TypeError, "logits must be an array of real numbers"),
    ],
)
def test_a_bad_step_function_answer_is_refused(answer, error, message):
    for search in (lambda: greedy_search(lambda t: answer, [0], 3), lambda: beam_search(lambda t: answer, [0], 2, 3)):
        with pytest.raises(error, match=message):
            search()
