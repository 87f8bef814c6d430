"""The adder page's live model (docs/assets/javascripts/adder.js) held to numpy, in Chromium.

For every addition the port must write the digits ``handtf.adder_steps`` writes, with the same
attention of both heads at each step, the same sums ``a+b`` and ``a'+b'+s'``, the same carry and
the same logits (within 1e-9 of the largest). It is compared on AdderBoard's 10 fixed cases and on
random pairs of every length, on the generated 10-digit model and on a 3-digit model whose weights
are perturbed (attention no longer one-hot), and it refuses the inputs Python refuses with the same
messages. Then the widget, as a reader uses it, in both languages.
"""

import copy
import random

import numpy as np
import pytest

import handtf
from browsing import Visit
from port_models import as_lists, load_hook, parse_module

RELATIVE = 1e-9
PORT = "() => window.handtfAdder !== undefined && document.querySelector('[data-handtf-adder] table') !== null"


def test_the_generated_module_holds_the_package_model():
    values = parse_module(load_hook().adder_module_source())
    model = handtf.adder()
    assert values["MODEL"] == as_lists(model.weights)
    assert (values["CHARS"], values["N_DIGITS"], values["N_HEAD"]) == (list("0123456789+="), 10, 2)
    assert values["EMBED_LABELS"] == list(model.embed_labels)


def test_the_built_site_serves_the_generated_module(built_site):
    served = (built_site / "assets" / "javascripts" / "adder-model.js").read_text(encoding="utf-8")
    assert served == load_hook().adder_module_source()


@pytest.fixture(scope="module")
def port(browser, base_url):
    visit = Visit(browser, base_url + "adder/", light_search=True)
    visit.page.wait_for_function(PORT)
    yield visit.page
    visit.close()


def pairs(n_digits, count, seed):
    rng = random.Random(seed)
    lengths = [rng.randint(1, n_digits) for _ in range(count)]
    return [(rng.randint(0, 10**k - 1), rng.randint(0, 10 ** rng.randint(1, n_digits) - 1)) for k in lengths]


def for_js(model):
    return {"chars": list(model.chars), "n_digits": model.n_digits, "n_head": model.n_head,
            "weights": as_lists(model.weights), "embed_labels": list(model.embed_labels)}


def perturbed():
    model = copy.deepcopy(handtf.adder(3))
    rng = np.random.default_rng(0)
    attn = model.weights["blocks"][0]["attn"]["c_attn"]["w"]
    attn[:, :32] = attn[:, :32] / 4000 + rng.normal(0, 0.3, attn[:, :32].shape)  # soft attention
    return model


def parity_problems(page, model, cases, given=None):
    got = page.evaluate("([cases, model]) => cases.map(([a, b]) => handtfAdder.adderSteps(a, b, model ?? undefined))",
                        [[[str(a), str(b)] for a, b in cases], given])
    problems = []
    for (a, b), js in zip(cases, got):
        for i, (step, want) in enumerate(zip(js, handtf.adder_steps(model, a, b))):
            if (step["digit"], step["carry"], step["position"]) != (want.digit, want.carry, want.position):
                problems.append(f"{a} + {b} step {i}: digit, carry {step['digit'], step['carry']} != {want.digit, want.carry}")
            for name, expected in (("attention", want.attention), ("logits", want.logits),
                                   ("column", want.column), ("before", want.before)):
                value, expected = np.asarray(step[name], dtype=float), np.asarray(expected, dtype=float)
                error = float(np.abs(value - expected).max()) if value.shape == expected.shape else np.inf
                if not error <= RELATIVE * max(float(np.abs(expected).max()), 1.0):
                    problems.append(f"{a} + {b} step {i} {name}: max difference {error:.3g}")
    return problems


def test_every_step_equals_numpy_on_adderboards_cases_and_random_pairs(port):
    cases = handtf.adderboard_pairs(count=0) + pairs(10, 60, 0)
    problems = parity_problems(port, handtf.adder(), cases)
    assert problems == [], "\n".join(problems[:20])
    sums = port.evaluate("(cases) => cases.map(([a, b]) => handtfAdder.add(a, b))", [[str(a), str(b)] for a, b in cases])
    assert sums == [str(a + b) for a, b in cases]


def test_every_step_equals_numpy_for_a_perturbed_model(port):
    model = perturbed()
    assert ((handtf.adder_steps(model, 58, 67)[1].attention > 0.01) & (handtf.adder_steps(model, 58, 67)[1].attention < 0.99)).any()
    problems = parity_problems(port, model, pairs(3, 40, 1), for_js(model))
    assert problems == [], "\n".join(problems[:20])


BAD_NUMBERS = [("12a", "3"), ("-5", "3"), ("12345678901", "1"), ("", "1"), ("1", "1.5"),
               ("-0", "1"), ("\uff11", "1"), ("1 2", "1"), ("1_0", "1"), ("9" * 5000, "1"),
               ("1", "2\t3"), ("'", "1"), ("\\", "1"), ("1\u200b", "1"), ("\U0001f600", "1")]


@pytest.mark.parametrize("a, b", BAD_NUMBERS, ids=[ascii(a)[:12] + "," + ascii(b)[:12] for a, b in BAD_NUMBERS])
def test_bad_numbers_are_refused_with_pythons_messages(port, a, b):
    js = port.evaluate("([a, b]) => handtfAdder.problemOf(a, b)", [a, b])
    with pytest.raises(ValueError) as python:
        handtf.adder().prompt(a, b)
    assert js == str(python.value)


@pytest.mark.parametrize("a, b", [("9999999999", "1"), ("0000000001", "09999999999"), ("0", "0")])
def test_numbers_at_the_bounds_are_read_as_python_reads_them(port, a, b):
    """Exactly n_digits digits (leading zeros not counted) are a number, in the widget as in Python."""
    assert port.evaluate("([a, b]) => [handtfAdder.problemOf(a, b), handtfAdder.add(a, b)]", [a, b]) == [
        None, str(handtf.adder().add(a, b))]


@pytest.mark.parametrize("language", ["", "zh/"])
def test_the_widget_adds_what_the_reader_types(browser, base_url, language):
    visit = Visit(browser, base_url + language + "adder/", light_search=True)
    try:
        page = visit.page
        page.wait_for_function(PORT)
        widget = page.locator("[data-handtf-adder]")
        inputs = widget.locator("input")
        inputs.nth(0).fill("958")
        inputs.nth(1).fill("67")
        assert "1025" in widget.locator(".handtf-prediction").inner_text()
        inputs.nth(1).fill("6x")
        said = widget.locator(".handtf-message").inner_text()
        # Python's words on the English page, the same facts in Chinese on the Chinese one (issue 52)
        assert ("b has 'x' at position 1" in said) if not language else ("位置 1" in said and "“x”" in said and "digits" not in said)
        assert "1025" in widget.locator(".handtf-prediction").inner_text()  # the last valid sum stays
    finally:
        visit.close()
