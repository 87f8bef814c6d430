"""The hand-set adder (handtf.adder): every pair up to 3 digits, AdderBoard's cases, the format, bad input."""

import re
from pathlib import Path
import subprocess
import sys

import numpy as np
import pytest

import handtf as h
from handtf.patterns import addition as adder_module
from handtf.training.adder import train_adder


@pytest.mark.parametrize("n_digits", [1, 2])
def test_every_pair_of_small_numbers_adds_up_in_both_dtypes(n_digits):
    result = h.verify_adder(h.adder(n_digits))
    assert result.pairs == 10 ** (2 * n_digits) and result.passed
    assert result.min_margin["float64"] == pytest.approx(1023, abs=1e-9)
    assert result.min_margin["float32"] == pytest.approx(1023, abs=1e-9)


@pytest.mark.slow
def test_every_pair_of_three_digit_numbers_adds_up_in_both_dtypes():
    result = h.verify_adder(h.adder(3))
    assert result.pairs == 10**6 and result.passed, result
    assert min(result.min_margin.values()) > 1022.9


@pytest.mark.slow
def test_adderboards_protocol_at_ten_digits():
    result = h.verify_adder()
    assert result.pairs == 10_010 and result.passed, result


def test_adderboards_edge_cases_by_greedy_decoding():
    model = h.adder(10)
    pairs = h.adderboard_pairs(count=0)
    assert pairs[4] == (9_999_999_999, 9_999_999_999) and pairs[7] == (1_234_567_890, 9_876_543_210)
    assert [model.add(a, b) for a, b in pairs] == [a + b for a, b in pairs]


def test_adderboards_random_pairs_are_its_own():
    """verify.py draws a then b from random.Random(2025), each randint(0, 9_999_999_999)."""
    import random

    rng = random.Random(2025)
    first = (rng.randint(0, 9_999_999_999), rng.randint(0, 9_999_999_999))
    assert h.adderboard_pairs()[10] == first and len(h.adderboard_pairs()) == 10_010


def test_the_batched_check_agrees_with_greedy_decoding_one_by_one():
    model = h.adder(4)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 10**4, 50), rng.integers(0, 10**4, 50)
    prompts, answers = adder_module.encode(model, a, b)
    assert (adder_module.greedy_sums(model, prompts) == answers).all()
    assert [model.add(int(x), int(y)) for x, y in zip(a[:5], b[:5])] == list(a[:5] + b[:5])


def test_a_numpy_seed_and_numbers_are_read_as_python_ones():
    """Issue 50: np.int64(5) is the seed 5 (random.Random refuses numpy integers), np.uint64 a number to add."""
    model = h.adder(4)
    assert h.verify_adder(model, count=3, seed=np.int64(5)) == h.verify_adder(model, count=3, seed=5)
    assert model.add(np.uint64(9999), np.int8(1)) == 10000 and model.add("0009", "0001") == 10


def test_adderboards_ten_edge_cases_are_its_list():
    """verify.py's fixed cases at 10 digits, copied from AdderBoard (github.com/anadim/AdderBoard)."""
    assert h.adderboard_pairs(count=0) == [
        (0, 0), (0, 1), (9_999_999_999, 0), (9_999_999_999, 1), (9_999_999_999, 9_999_999_999),
        (5_000_000_000, 5_000_000_000), (1_111_111_111, 8_888_888_889), (1_234_567_890, 9_876_543_210),
        (9_999_999_999, 9_999_999_999), (1, 9_999_999_999)]


def test_the_bounds_of_a_number_are_where_the_words_say():
    """Exactly n_digits digits are read, as an int or a str (leading zeros do not count); one more, or -1, is refused."""
    from handtf.readers import decimal_digits

    model = h.adder(3)
    assert model.add(999, 1) == model.add("999", "001") == model.add("0999", "1") == 1000 and model.add(0, 0) == 0
    for bad in (-1, "1000", 1000, "-1"):
        with pytest.raises(ValueError):
            model.add(bad, 1)
    numbers = [0, 1, 9, 10, 99, 100] + [10**k + d for k in (17, 18, 19, 63, 64, 300, 4000) for d in (-1, 0)]
    assert [decimal_digits(n) for n in numbers] == [len(str(n)) for n in numbers]
    assert decimal_digits(10**5000 - 1) == 5000 and decimal_digits(10**5000) == 5001  # past str's limit


def test_verify_pairs_reads_18_digits_and_no_more():
    from handtf.patterns.adderboard import verify_pairs

    top = 10**18 - 1
    assert verify_pairs(h.adder(18), [top, 1], [top, 2], dtypes=(np.float64,)).correct == {"float64": 2}
    with pytest.raises(ValueError, match="up to 18 digits"):
        verify_pairs(h.adder(19), [1], [2])


def test_the_command_line_exits_1_when_the_model_adds_wrong(monkeypatch, capsys):
    """``handtf adder`` on weights that add wrong: the failures printed, exit code 1 (a script can tell)."""
    from handtf.cli import adder as cli_adder, main as cli
    from handtf.trees import tree_map

    def broken(n_digits):
        model = h.adder(n_digits)  # every logit 0: greedy decoding writes 0s
        return adder_module.Adder(**(vars(model) | {"weights": tree_map(np.zeros_like, model.weights)}))

    monkeypatch.setattr(cli_adder, "adder", broken)
    assert cli.run(cli.build_parser().parse_args(["adder", "--digits", "1"])) == 1
    out = capsys.readouterr().out
    assert "  float64: 0 of 100 right" in out and "wrong (float32): 0 + 1 = 1, the model wrote 0" in out


def test_format_least_significant_digit_first():
    model = h.adder(3)
    assert model.prompt(123, 456) == "321+654=" and model.answer(579) == "9750"
    assert model.prompt("7", 0) == "700+000=" and model.answer(1998) == "8991"
    assert model.chars == tuple("0123456789+=") and model.n_head == 2 and model.n_ctx == 11


def test_the_weights_are_gpt2s_layout_and_run_in_its_forward():
    model = h.adder(10)
    ids = np.array([model.chars.index(c) for c in model.prompt(58, 67) + "5"])
    assert np.array_equal(h.gpt(ids, **model.weights, n_head=2), adder_module.forward(model, ids))
    assert set(model.weights) == {"wte", "wpe", "blocks"} and set(model.weights["blocks"][0]) == {"attn", "mlp"}
    source = Path(adder_module.__file__).read_text()
    assert len(re.findall(r"\bgpt\(", source)) == 1  # one call site: the one forward the main line shows


def test_steps_show_the_carry_and_the_heads():
    model = h.adder(3)
    steps = h.adder_steps(model, 58, 67)  # 125
    assert [s.digit for s in steps] == [5, 2, 1, 0] and [s.carry for s in steps] == [0, 1, 1, 0]
    first = steps[0].attention  # at "=": head 0 reads a_0 and b_0, head 1 the separators
    assert first[0].nonzero()[0].tolist() == [0, 4] and first[1].nonzero()[0].tolist() == [3, 7]
    assert steps[2].attention[1].nonzero()[0].tolist() == [1, 5, 9]  # a_1, b_1 and s_1
    assert all(s.attention.sum(axis=1).tolist() == [1.0, 1.0] for s in steps)


def test_the_margin_is_lg_minus_one():
    model = h.adder(2)
    logits = h.adder_steps(model, 99, 99)[0].logits  # 8 after "=": logit LG, "=" 1
    assert logits[8] == 1024 and sorted(logits)[-2] == 1


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: h.adder(0), ValueError, r"^n_digits must be at least 1, got 0$"),
        (lambda: h.adder(341), ValueError, r"^n_digits must be at most 340 \(MAX_DIGITS: 3 n_digits \+ 2 positions must fit GPT-2 small's n_ctx = 1024\), got 341$"),
        (lambda: h.adder(2.5), TypeError, r"^n_digits must be an integer"),
        (lambda: h.adder(3).add(1000, 1), ValueError, r"^a has 4 digits; this model reads at most 3 \(n_digits\)$"),
        (lambda: h.adder(3).add(1, -2), ValueError, r"^b is negative \(-2\); the adder takes numbers of 0 or more$"),
        (lambda: h.adder(3).add("12x", 1), ValueError, r"^a has 'x' at position 2; write it with the digits 0-9 only$"),
        (lambda: h.adder(3).add(1.5, 1), TypeError, r"^a must be a whole number \(an int, or a str of the digits 0-9\), got float$"),
        (lambda: h.adder(3).add(True, 1), TypeError, r"^a must be a whole number"),
        (lambda: h.adder(3).answer(10_000), ValueError, r"^total has 5 digits; this model reads at most 4 \(n_digits\)$"),
        (lambda: h.verify_adder(h.MODEL), TypeError, r"^model must be an Adder \(from adder\(\)\), got "),
        (lambda: h.adder_steps(h.adder(2), 123, 1), ValueError, r"^a has 3 digits"),
        (lambda: train_adder(lr=0), ValueError, r"^lr must be a positive finite number at most 1, got 0$"),
        (lambda: train_adder(warmup=0), ValueError, r"^warmup must be at least 1, got 0$"),
        (lambda: train_adder(mixed="yes"), TypeError, r"^mixed must be True or False, got 'yes'$"),
        (lambda: train_adder(n_digits=19), ValueError, r"^n_digits must be at most 18 \(the additions are drawn in int64\), got 19$"),
    ],
)
def test_bad_input_is_refused_with_its_reason(call, error, message):
    with pytest.raises(error, match=message):
        call()


def run(*args):
    return subprocess.run([sys.executable, "-m", "handtf", *args], capture_output=True, text=True, timeout=120)


def test_the_command_line_adds_and_checks():
    assert (run("add", "123", "456").stdout, run("add", "9999999999", "1").stdout) == ("579\n", "10000000000\n")
    result = run("adder", "--digits", "1")
    assert result.returncode == 0 and result.stdout.splitlines()[1:] == [
        "  float32: 100 of 100 right, smallest margin 1023",
        "  float64: 100 of 100 right, smallest margin 1023",
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["add", "12a", "3"], "a has 'a' at position 2; write it with the digits 0-9 only"),
        (["add", "-5", "3"], "a starts with a minus sign; the adder takes numbers of 0 or more"),
        (["add", "123", "456", "--digits", "2"], "a has 3 digits; this model reads at most 2 (n_digits)"),
        (["adder", "--digits", "341"], "n_digits must be at most 340"),
        (["add", "1"], "the following arguments are required: b"),
    ],
)
def test_bad_command_line_input_is_one_line_and_exit_2(args, message):
    result = run(*args)
    assert (result.returncode, result.stdout) == (2, "")
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr, result.stderr


def trained():
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from scripts.figures import adder as figures

    return figures


def test_the_trained_weights_the_page_describes():
    """docs/adder.md, "Trained beside hand-set": the weights scripts/train_adder.py saved at its last step
    (--steps 24000 --cooldown 8000), checked on AdderBoard's protocol as the hand-set model is."""
    figures = trained()
    from handtf.training import adder as trainer

    with np.load(Path(trainer.__file__).parent / trainer.TRAINED) as saved:
        assert int(saved["step"]) == 24_000
    result = h.verify_adder(figures.trained_model())
    assert result.pairs == 10_010 and result.correct == {"float32": 10_010, "float64": 10_010}, result
    for margin in result.min_margin.values():  # "about 1.4"; the page's log: 1.42617 and 1.42614
        assert margin == pytest.approx(1.4261, abs=5e-4)


def test_the_trained_heads_split_the_work_as_the_page_says():
    """The figure adder-learned and its alt text: trained head 1 reads a_i and b_i (hand-set head 0's
    positions), trained head 0 reads a_(i-1) and b_(i-1) but not s_(i-1); at the last step head 1 reads
    a_9 and b_9 and head 0 the "+"."""
    figures = trained()
    maps, text = figures.attention_maps(figures.trained_model())  # [2, 11, 32]
    hand, _ = figures.attention_maps(h.adder(10))
    assert figures.matching_heads(maps, hand) == [1, 0]
    n = 10
    for i in range(n):  # steps s0 .. s9
        assert maps[1, i, [i, n + 1 + i]].sum() > 0.9 and min(maps[1, i, [i, n + 1 + i]]) > 0.4
    for i in range(1, n):
        assert maps[0, i, [i - 1, n + i]].sum() > 0.8 and maps[0, i, 2 * n + i] < 0.02  # not s_(i-1)
    assert maps[1, n, [n - 1, 2 * n]].sum() > 0.85 and text[n] == "+" and maps[0, n, n] > 0.9


@pytest.mark.slow
def test_the_trained_weights_add_100000_more_random_pairs():
    import random

    from handtf.patterns.adderboard import verify_pairs

    rng = random.Random(2026)
    a, b = np.array([(rng.randint(0, 10**10 - 1), rng.randint(0, 10**10 - 1)) for _ in range(100_000)]).T
    result = verify_pairs(trained().trained_model(), a, b)
    assert result.passed and min(result.min_margin.values()) > 0.9, result
