"""handtf.prove_adder: a proof over every pair, checked against the exhaustive check and against sabotage."""

import copy
import dataclasses
import subprocess
import sys

import numpy as np
import pytest

import handtf as h
from handtf.patterns import proof as proof_module
from handtf.patterns.addition import encode, forward
from handtf.patterns.adderboard import every_pair, verify_pairs


def sabotaged(n_digits):
    """The staircase's first step moves LG from digit 0 to digit 2 instead of 1. By hand: a column of
    total t = 1 gets logits 0 for digit 0 (LG - LG), LG for digit 2, so it writes 2; t >= 2 is unchanged
    (step 2 moves LG from 1 to 2: digit 2 gets 2 LG, digit 1 -LG). So 0 + 1 comes out 2."""
    model = h.adder(n_digits)
    weights = copy.deepcopy(model.weights)
    proj = weights["blocks"][0]["mlp"]["c_proj"]["w"]  # rows 0 and 1: step j = 1's two units
    for row in (0, 1):
        proj[row, 2], proj[row, 1] = proj[row, 1], 0.0
    return dataclasses.replace(model, weights=weights)


@pytest.mark.parametrize("n_digits", [1, 2, 4, pytest.param(10, marks=pytest.mark.slow)])
def test_the_hand_set_adder_is_proved_at_several_sizes(n_digits):
    result = h.prove_adder(h.adder(n_digits))
    assert result.proved and result.counterexample is None and result.inputs == 10 ** (2 * n_digits)
    # every other logit is 0 or 1 and the right one LG (1024): the bound loses only its slack
    assert 1022.9 < result.margin <= 1023


def test_the_cases_enumerated_at_two_digits():
    """Step 0: column 0, 100 cases; step 1: columns 0 and 1, 10^4; step 2 (the last): column 1 and the
    carry into it, 200. No case needs a wider window."""
    result = h.prove_adder(h.adder(2))
    assert result.cases == 100 + 10_000 + 200 and result.windows == (1, 2, 1)


@pytest.mark.parametrize("n_digits", [1, 2])
def test_the_proof_agrees_with_every_pair(n_digits):
    model = h.adder(n_digits)
    proof = h.prove_adder(model)
    check = verify_pairs(model, *every_pair(n_digits), dtypes=(np.float64,))
    assert proof.proved and check.passed and proof.margin <= check.min_margin["float64"]


@pytest.mark.parametrize("n_digits", [1, 2])
def test_a_sabotaged_adder_is_not_proved_and_its_counterexample_is_wrong(n_digits):
    model = sabotaged(n_digits)
    assert model.add(0, 1) == 2  # the derivation in sabotaged()
    result = h.prove_adder(model)
    assert not result.proved and result.counterexample is not None
    a, b = result.counterexample
    assert model.add(a, b) == result.written != a + b
    assert "not proved" in repr(result) and "counterexample" in repr(result)


def test_each_cases_bound_is_below_the_true_margin_of_every_input_it_covers():
    """Soundness, case by case: at two digits with noisy weights, the last step's bound for each case
    (a_1, b_1, the carry into column 1; a_0, b_0 and s_0 free) is at most the true logit margin of
    every pair of that case, computed by the forward pass on the prompt and its right answer."""
    from handtf import trees

    model = h.adder(2)
    rng = np.random.default_rng(0)
    weights = copy.deepcopy(model.weights)
    for array in trees.leaves(weights):
        array += rng.normal(0, 0.05, array.shape)
    model = dataclasses.replace(model, weights=weights)
    a, b = every_pair(2)
    prompts, answers = encode(model, a, b)
    logits = forward(model, np.concatenate([prompts, answers[:, :-1]], axis=1))[:, -1]  # step 2
    right = answers[:, -1]
    want = logits[np.arange(len(a)), right]
    logits[np.arange(len(a)), right] = -np.inf
    true = want - logits.max(axis=1)  # [10^4]
    step = proof_module._Step(proof_module._float64(model.weights), 2, 2)
    A, B, carry = proof_module.window_cases(1, 1, 2, True)
    bound, _ = step.bound(1, A, B, carry)
    case_of = (a // 10) * 10 + b // 10 + 100 * ((a % 10 + b % 10) >= 10)  # the same order as window_cases
    worst = np.full(200, np.inf)
    np.minimum.at(worst, case_of, true)
    assert (bound <= worst).all() and (bound > worst - 50).all()  # sound, and not vacuous


@pytest.mark.slow
def test_the_trained_adder_is_not_proved_and_its_counterexample_escapes_the_samples():
    """docs/adder.md, "Right for every sum, not a sample": the trained adder's pair is really wrong, in both
    dtypes, and it is neither among AdderBoard's 10,010 pairs nor among the 100,000 of seed 2026."""
    import random

    model = h.trained_adder()
    result = h.prove_adder(model)
    assert not result.proved and result.counterexample is not None
    a, b = result.counterexample
    assert model.add(a, b) == result.written != a + b
    assert not verify_pairs(model, np.array([a]), np.array([b])).correct == {"float32": 1, "float64": 1}
    rng = random.Random(2026)
    sampled = set(h.adderboard_pairs()) | {(rng.randint(0, 10**10 - 1), rng.randint(0, 10**10 - 1))
                                            for _ in range(100_000)}
    assert (a, b) not in sampled


def test_the_command_line_proves_and_exits_0_only_when_proved():
    run = lambda *args: subprocess.run([sys.executable, "-m", "handtf", "adder", *args],  # noqa: E731
                                       capture_output=True, text=True)
    proved = run("--digits", "2", "--prove")
    assert proved.returncode == 0 and "proved: greedy decoding adds every pair right" in proved.stdout
    bad = run("--digits", "3", "--trained", "--prove")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--trained" in bad.stderr


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: h.prove_adder(h.MODEL), TypeError, r"^model must be an Adder \(from adder\(\)\), got "),
        (lambda: h.prove_adder(dataclasses.replace(h.adder(2), n_head=1)), ValueError,
         r"^model must be in the adder's layout: one block of two heads and a feed-forward network, no layer norm$"),
        (lambda: h.prove_adder(dataclasses.replace(h.adder(2), chars=tuple("0123456789-="))), ValueError,
         r"^model must read the adder's vocabulary '0123456789\+=', got '0123456789-='$"),
    ],
)
def test_bad_input_is_refused_with_its_reason(call, error, message):
    with pytest.raises(error, match=message):
        call()
