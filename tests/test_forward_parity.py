"""One forward pass in the browser (issue 49): handtf.js's ``forward`` runs every widget's model, held to numpy.

Under node (``tests/node_port.py``), no browser: for each model a widget runs (the hand-made
model of the playground, the induction head, the adder) and a compiled pattern, perturbed
copies whose attention is no longer one-hot, the logits of ``H.forward`` and every block's
attention weights and feed-forward activations equal what ``handtf.gpt`` and ``handtf.trace``
compute, within 1e-9 of the largest value. The JavaScript defines the forward pass's maths
once: no other script defines a matrix product, a linear layer, a softmax or a GELU. The
adder's widget says what is wrong with a number in both languages, quotes it as Python's
``repr`` does and refuses weights whose logits are not finite.
"""

import copy
import re
import shutil

import numpy as np
import pytest

import handtf
from node_port import SCRIPTS, port_folder, run_node
from port_models import as_lists

RELATIVE = 1e-9


@pytest.fixture(scope="module")
def folder():
    path = port_folder()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def perturbed(model, seed, scale=0.3):
    """``model`` with its attention softened: the query weights shrunk and noise added (the scores are no longer 1024 apart)."""
    model = copy.deepcopy(model)
    rng = np.random.default_rng(seed)
    for block in model.weights["blocks"]:
        w = block["attn"]["c_attn"]["w"]
        n = w.shape[0]
        w[:, :n] = w[:, :n] / 4000 + rng.normal(0, scale, (w.shape[0], n))
    return model


MODELS = {
    "the hand-made model": lambda: handtf.HAND_MADE,
    "the hand-made model, perturbed": lambda: perturbed(handtf.HAND_MADE, 0),
    "the induction head": lambda: handtf.induction_head(),
    "the induction head, perturbed": lambda: perturbed(handtf.induction_head("abc", n_ctx=6), 1),
    "the adder": lambda: handtf.adder(3),
    "the adder, perturbed": lambda: perturbed(handtf.adder(3), 2),
    "a compiled pattern": lambda: handtf.compile_pattern("abcab", n_ctx=5),
}


def sequences(model, count, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, len(model.chars), rng.integers(1, model.n_ctx + 1)).tolist() for _ in range(count)]


def close(js, want):
    js, want = np.asarray(js, dtype=float), np.asarray(want, dtype=float)
    return js.shape == want.shape and float(np.abs(js - want).max()) <= RELATIVE * max(float(np.abs(want).max()), 1.0)


@pytest.mark.parametrize("name", MODELS)
def test_handtf_js_forward_equals_numpy(folder, name):
    model = MODELS[name]()
    cases = sequences(model, 25, seed=len(name))
    got = run_node(folder, """
        return data.cases.map((tokens) => {
          const { logits, layers } = H.forward(tokens, data.weights, data.n_head);
          return { logits, layers: layers.map((l) => ({ attention: l.attention_weights, hidden: l.hidden, residual: l.residual })) };
        });""", {"cases": cases, "weights": as_lists(model.weights), "n_head": model.n_head})
    problems = []
    for tokens, js in zip(cases, got):
        text = "".join(model.chars[t] for t in tokens)
        want = handtf.trace(text, model=model) if len(tokens) >= model.min_context else None
        if not close(js["logits"], handtf.gpt(np.array(tokens), **model.weights, n_head=model.n_head)):
            problems.append(f"{text}: logits")
        if want is None:
            continue
        n_layer = len(model.weights["blocks"])
        for field, key in (("attention_weights", "attention"), ("hidden", "hidden"), ("residual", "residual")):
            expected = getattr(want, field)
            layers = [layer[key] for layer in js["layers"]]
            value = layers[0] if n_layer == 1 else layers
            if (expected is None) != (layers[0] is None) or (expected is not None and not close(value, expected)):
                problems.append(f"{text}: {field}")
    assert problems == [], problems[:10]


def test_the_perturbed_models_really_attend_softly():
    """Not vacuous: in each perturbed model some attention weight is strictly between 0.01 and 0.99."""
    for name in (n for n in MODELS if "perturbed" in n):
        model = MODELS[name]()
        text = "".join(model.chars[i % len(model.chars)] for i in range(model.n_ctx))
        weights = handtf.trace(text, model=model).attention_weights
        assert ((weights > 0.01) & (weights < 0.99)).any(), name


MATHS = re.compile(r"^\s*(?:export\s+)?function\s+(matmul|linear|gelu|softmax|mha|attention\w*|transpose|forward)\b", re.M)


def test_the_forward_pass_is_defined_once_in_the_javascript():
    defined = {script.name: MATHS.findall(script.read_text(encoding="utf-8")) for script in sorted(SCRIPTS.glob("*.js"))}
    elsewhere = {name: found for name, found in defined.items() if name != "handtf.js" and set(found) - {"forward"}}
    assert elsewhere == {}, elsewhere
    assert {"matmul", "linear", "gelu", "softmax", "forward"} <= set(defined["handtf.js"])
    # adder.js's forward is the interface over handtf.js's: it calls H.forward and computes nothing itself
    adder = (SCRIPTS / "adder.js").read_text(encoding="utf-8")
    assert "H.forward(" in adder and "Math.exp" not in adder and "Math.tanh" not in adder


@pytest.mark.parametrize("a, b", [("12a", "3"), ("-5", "3"), ("12345678901", "1"), ("", "1"), ("1", "1.5"),
                                  ("1\n2", "3"), ("4\u202e", "1"), (" 7", "x"), ("'", "1")])
def test_the_adders_messages_are_pythons_in_pythons_quotes(folder, a, b):
    got = run_node(folder, "return A.problemOf(data[0], data[1]);", [a, b])
    with pytest.raises(ValueError) as python:
        handtf.adder().prompt(a.strip(), b.strip())
    assert got == str(python.value)


def test_the_adder_widget_says_what_is_wrong_in_words_in_both_languages(folder):
    """English: Python's words (check_decimal); Chinese: the same facts in Chinese, no English word left."""
    cases = [("", "1"), ("-5", "3"), ("6x", "1"), ("12345678901", "1"), ("1", "4\u202e")]
    got = run_node(folder, "return ['en', 'zh'].map((l) => data.map(([a, b]) => A.problemOf(a, b, A.ADDER, A.TEXT[l])));", cases)
    en, zh = got
    for (a, b), message in zip(cases, en):
        with pytest.raises(ValueError) as python:
            handtf.adder().prompt(a, b)
        assert message == str(python.value)
    assert zh[0].startswith("a 是空的") and "负号" in zh[1] and "位置 1" in zh[2] and "“x”" in zh[2]
    assert "11 位" in zh[3] and "最多读 10 位" in zh[3]
    assert "\u202e" not in zh[4] and "\\u202e" in zh[4]
    assert all("got ''" not in message for message in en + zh)
    assert not any(re.search(r"[a-z]{4,}", message.replace("n_digits", "")) for message in zh), zh


def test_the_adder_refuses_a_nan_weight_as_python_does(folder):
    model = copy.deepcopy(handtf.adder(3))
    model.weights["blocks"][0]["mlp"]["c_proj"]["b"][0] = np.nan
    with pytest.raises(ValueError, match="not finite|NaN"):
        handtf.adder_steps(model, 1, 2)
    weights = as_lists(model.weights)
    weights["blocks"][0]["mlp"]["c_proj"]["b"][0] = "NaN"  # JSON has no NaN: the script puts it back
    got = run_node(folder, """
        data.weights.blocks[0].mlp.c_proj.b[0] = NaN;
        const model = { ...A.ADDER, n_digits: 3, weights: data.weights };
        try { return A.adderSteps("1", "2", model).map((s) => s.digit); } catch (e) { return e.message; }""",
                   {"weights": weights})
    assert isinstance(got, str) and "NaN" in got, got
