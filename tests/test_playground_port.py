"""The port and the playground held to what Python does, where a change would otherwise go unseen.

Each test below fails when one behaviour changes: how a tie is broken, how a
number is written, the bounds of the inputs, how a typed number is read, how
text is escaped into HTML, what a link gives back, and what the playground
says when the edited model's numbers stop being finite. Expected values come
from numpy and the standard library (``float``, ``html.unescape``), or are
worked out by hand in the comments, never from the port's own output.
"""

import html
import math
import random
import re
import struct

import numpy as np
import pytest

import handtf
from browsing import Visit
from port_models import as_lists
from handtf.display import format_number
from handtf.model.evaluation import MAX_LEN
from handtf.model.inference import MAX_NEW_TOKENS

PLAYGROUND_JS = "import(new URL('../assets/javascripts/playground.js', location.href).href)"  # the page's own module


@pytest.fixture(scope="module")
def port(browser, base_url):
    visit = Visit(browser, base_url + "playground/")
    visit.page.wait_for_function("() => window.handtf !== undefined")
    yield visit.page
    visit.close()


def attempt(page, code):
    """``code`` run in the page: ``("ok", value)`` or ``("error", "Name: message")``."""
    return page.evaluate(
        "async (code) => { try { return ['ok', await eval(code)]; } catch (e) { return ['error', `${e.name}: ${e.message}`]; } }",
        code,
    )


# ------------------------------------------------------------ tie-breaks


def test_argmax_breaks_a_tie_as_numpy(port):
    rows = [[1.0, 1.0], [0.0, 0.0], [2.0, 1.0], [1.0, 2.0], [-0.0, 0.0], [3.0, 5.0, 5.0], [7.0, 7.0, 7.0]]
    assert port.evaluate("(rows) => rows.map(handtf.argmax)", rows) == [int(np.argmax(r)) for r in rows]


def test_argmax_takes_the_first_nan_as_numpy_and_refuses_what_is_not_a_row(port):
    rows = [[1.0, math.nan], [math.nan, 1.0], [0.0, math.nan, math.nan], [-math.inf, math.nan], [math.inf, 1.0]]
    assert port.evaluate("(rows) => rows.map(handtf.argmax)", rows) == [int(np.argmax(r)) for r in rows] == [1, 0, 1, 1, 0]
    assert attempt(port, "handtf.argmax([])") == ["error", "Error: row must be a non-empty array of numbers, got an array of length 0"]
    assert attempt(port, "handtf.argmax('ab')") == ["error", 'Error: row must be a non-empty array of numbers, got the string "ab"']
    assert attempt(port, "handtf.argmax([1, '2'])") == ["error", 'TypeError: row[1] must be a number, got the string "2"']


def tied_model():
    """Both token embeddings 0: every logit is 0, so every prediction is a tie."""
    model = handtf.build_model()
    model["wte"] = np.zeros_like(model["wte"])
    return model


def test_a_tied_model_predicts_completes_and_fails_verify_as_python(port):
    model = tied_model()
    got = port.evaluate(
        "(m) => [handtf.predict('ab', m), handtf.complete('b', 4, m), handtf.verify(8, m)]", as_lists(model)
    )
    want = handtf.verify(8, model)
    assert got[0] == handtf.predict("ab", model) == "a"  # the lower id among equals
    assert got[1] == handtf.complete("b", 4, model) == "baaaa"
    # a margin of 0 is not a right answer: every context fails
    assert (got[2]["checked"], got[2]["correct"], got[2]["minMargin"]) == (want.checked, want.correct, want.min_margin)
    assert want.correct == 0 and [tuple(f) for f in got[2]["failures"]] == list(want.failures)


# ------------------------------------------------------------ number formatting


def format_cases():
    rng = random.Random(0)
    exact_ties = [0.0625, -0.0625, 0.0005, 0.0015, 0.0025, -0.0025, 2.5, 1.0625, 0.5, 1.5, 123.4565]
    big_ties = [1065000.0, 1075000.0, -1065000.0, 1234567.5, 2.5e22]
    edges = [0.0, -0.0, 1e6, -1e6, 999999.9995, 999999.9996, 1e21, 1e-300, 5e-324, 1.7976931348623157e308, 0.0004, -0.0004]
    dyadic = [rng.choice([1, -1]) * rng.randint(0, 2**20) / 2 ** rng.randint(0, 14) for _ in range(600)]
    any_bits = [struct.unpack("d", struct.pack("Q", rng.getrandbits(63)))[0] for _ in range(300)]
    uniform = [rng.uniform(-1e7, 1e7) for _ in range(300)]
    return exact_ties + big_ties + edges + dyadic + any_bits + uniform


@pytest.mark.parametrize("digits", [0, 1, 3, 6])
def test_format_number_equals_python_ties_included(port, digits):
    values = format_cases()
    got = port.evaluate("([v, d]) => v.map((x) => handtf.formatNumber(x, d))", [values, digits])
    wrong = [(v, g, format_number(v, digits)) for v, g in zip(values, got) if g != format_number(v, digits)]
    assert wrong == []


def test_format_number_writes_non_finite_as_python_and_refuses_what_is_not_a_number(port):
    got = port.evaluate("() => [NaN, Infinity, -Infinity].map((x) => handtf.formatNumber(x))")
    assert got == [format_number(x) for x in (math.nan, math.inf, -math.inf)] == ["nan", "inf", "-inf"]
    for code in ("handtf.formatNumber('abc')", "handtf.formatNumber(undefined)", "handtf.formatNumber(null)",
                 "handtf.cellText({})", "handtf.formatNumber(10n)"):
        kind, message = attempt(port, code)
        assert kind == "error" and message.startswith("TypeError: value must be a number, got"), (code, message)
    assert attempt(port, "handtf.formatNumber(1.5, -1)") == ["error", "Error: digits must be an integer from 0 to 100, got number -1"]


# by hand: the fewest digits that read back (Python's repr gives the same digits), fixed unless the
# exponent form is 3 or more characters shorter, a true minus sign everywhere
EXACT_TEXT = [  # (value, text): a list, since -0.0 and 0.0 are one key of a dict
    (0.0002, "0.0002"), (1e-7, "1e\u22127"), (1e-320, "1e\u2212320"), (5e-324, "5e\u2212324"), (1000.0, "1000"),
    (1e5, "1e5"), (10000.0, "10000"), (1e21, "1e21"), (1024.0, "1024"), (-1024.0, "\u22121024"),
    (0.1 + 0.2, "0.30000000000000004"), (1.41421, "1.41421"), (-0.0, "\u22120"), (0.0, "0"),
    (1.7976931348623157e308, "1.7976931348623157e308"), (0.125, "0.125"), (-1.5e-5, "\u22120.000015"),
    (-1.5e-6, "\u22121.5e\u22126"), (123456789.123, "123456789.123"), (1e-4, "0.0001"), (1e-5, "1e\u22125"),
]


def test_exact_text_writes_the_fewest_digits_that_read_back(port):
    got = port.evaluate("(values) => values.map(handtf.exactText)", [value for value, _ in EXACT_TEXT])
    assert list(zip([value for value, _ in EXACT_TEXT], got)) == EXACT_TEXT
    assert port.evaluate("() => [NaN, Infinity, -Infinity].map(handtf.exactText)") == ["nan", "inf", "\u2212inf"]
    assert attempt(port, "handtf.exactText('1')") == ["error", 'TypeError: value must be a number, got the string "1"']


def any_floats(n, seed=0):
    """``n`` floats of every kind: random bits (subnormals and huge ones included), decimals, edges."""
    rng = random.Random(seed)
    bits = [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(n)]
    decimals = [round(rng.uniform(-100, 100), rng.randint(0, 8)) for _ in range(n)]
    edges = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1 + 0.2, 1e21, 1e-7, 999999.9999]
    return [x for x in bits + decimals + edges if math.isfinite(x)]


def test_exact_text_reads_back_as_the_same_float(port):
    values = any_floats(400)
    texts = port.evaluate("(values) => values.map(handtf.exactText)", values)
    back = [float(text.replace("\u2212", "-")) for text in texts]  # the standard library's reading
    wrong = [(v, t) for v, t, b in zip(values, texts, back) if b != v or math.copysign(1, b) != math.copysign(1, v)]
    assert wrong == []
    assert max(map(len, texts)) <= 24  # the digits of repr() at most, and a sign


def test_format_g_equals_pythons_g(port):
    values = [1e308, 8.98846567431158e307, 1024.0, 0.0002, 1e-5, 999999.5, 1234565.0, 1234575.0, -2.5, 123456.5, 0.5, 3.0,
              0.1015625, 13 / 128 / 1024, -123457.5, 0.00012345625]  # exact ties (13/128 = 0.1015625) go to even
    values += any_floats(300, seed=2)
    got = port.evaluate("(values) => values.map(handtf.formatG)", values)
    assert [(v, g) for v, g in zip(values, got) if g != f"{v:g}"] == []


def test_cell_text_writes_a_true_minus_and_e10(port):
    # by hand: format_number gives -1e+10 and -0.5; the cells write U+2212 and drop the "+"
    assert port.evaluate("() => [handtf.cellText(-1e10), handtf.cellText(-0.5), handtf.cellText(1e21)]") == [
        "\u22121e10", "\u22120.5", "1e21"]


# ------------------------------------------------------------ input limits, read from the package


def test_complete_and_verify_stop_at_pythons_bounds(port):
    grouped = f"{MAX_NEW_TOKENS:,}"
    assert attempt(port, f"handtf.complete('a', {MAX_NEW_TOKENS + 1})") == [
        "error", f"Error: maxNewTokens must be at most {grouped} (MAX_NEW_TOKENS, complete's upper bound), got {MAX_NEW_TOKENS + 1:,}"]
    assert attempt(port, f"handtf.verify({MAX_LEN + 1})") == [
        "error", f"Error: maxLen must be at most {MAX_LEN:,} (MAX_LEN, verify's upper bound), got {MAX_LEN + 1:,}"]
    assert port.evaluate("() => [handtf.MAX_NEW_TOKENS, handtf.MAX_LEN]") == [MAX_NEW_TOKENS, MAX_LEN]
    # at the bounds both run: (aab)* continued, and 3 phases of lengths 2..MAX_LEN, all right
    length, tail = port.evaluate(f"() => {{ const s = handtf.complete('a', {MAX_NEW_TOKENS}); return [s.length, s.slice(-9)]; }}")
    assert length == 1 + MAX_NEW_TOKENS and tail == handtf.complete("a", 30 + MAX_NEW_TOKENS % 3)[-9:]  # the same phase
    result = port.evaluate(f"() => handtf.verify({MAX_LEN})")
    assert (result["checked"], result["correct"], result["minMargin"]) == (3 * (MAX_LEN - 1), 3 * (MAX_LEN - 1), 1023.0)


def test_verify_and_complete_equal_python_at_lengths_that_cross_the_context(port):
    for max_len in (2, 3, 4, 5, 6, 7, 11, 40):
        for lg in (1.0, 1024.0):
            got = port.evaluate("([n, lg]) => handtf.verify(n, handtf.buildModel(lg))", [max_len, lg])
            want = handtf.verify(max_len, handtf.build_model(lg))
            assert (got["checked"], got["correct"], [tuple(f) for f in got["failures"]]) == (
                want.checked, want.correct, list(want.failures)), (max_len, lg)
    for context, n in (("b", 0), ("bbbbbbbb", 25), ("ab", 7)):
        assert port.evaluate("([c, n]) => handtf.complete(c, n)", [context, n]) == handtf.complete(context, n)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("handtf.gpt([0], m((m) => { m.wte[0][0] = NaN; }))", "model.wte[0] must not contain NaN or inf, got NaN at index 0"),
        ("handtf.verify(30, m((m) => { m.blocks[0].attn.c_proj.b[2] = -Infinity; }))",
         "model.blocks[0].attn.c_proj.b must not contain NaN or inf, got -Infinity at index 2"),
        ("handtf.gpt([0], m((m) => { m.wte[0] = new Array(8); }))", "model.wte[0][0] must be a number, got undefined (nothing there)"),  # holes
        ("handtf.gpt([[0, 1], [1]])", "a batch of token ids must be sequences of one length, got a ragged batch of lengths [2,1]"),
        ("handtf.divergingNorm('x')", 'matrix must be an array of rows of numbers (NaN allowed), got the string "x"'),
        ("handtf.cellColours('a', handtf.divergingNorm([[1]]))", 'value must be a number, got the string "a"'),
        ("handtf.cellColours(1, handtf.divergingNorm([[1]]), 'toString')", 'scheme must be "light" or "dark", got the string "toString"'),
    ],
)
def test_the_port_refuses_what_is_not_allowed(port, code, message):
    setup = "const m = (change) => { const c = JSON.parse(JSON.stringify(handtf.MODEL)); change(c); return c; }; "
    kind, got = attempt(port, f"(() => {{ {setup} return {code}; }})()")
    assert kind == "error" and got.endswith(message), got


# The same calls in both languages: (Python, JavaScript with `m` the model and `a` the arguments).
CALLS = {
    "gpt": (lambda m, tokens: handtf.gpt(np.array(tokens), **m).tolist(), "handtf.gpt(a[0], m)"),
    "predict": (lambda m, context: handtf.predict(context, m), "handtf.predict(a[0], m)"),
    "nextTokenProbs": (lambda m, context: handtf.next_token_probs(context, m), "handtf.nextTokenProbs(a[0], m)"),
    "complete": (lambda m, context, n: handtf.complete(context, n, m), "handtf.complete(a[0], a[1], m)"),
    "trace": (lambda m, context: handtf.trace(context, m).logits.tolist(), "handtf.trace(a[0], m).logits"),
    "verify": (lambda m, n: (lambda r: [r.checked, r.correct, [list(f) for f in r.failures]])(handtf.verify(n, m)),
               "(({checked, correct, failures}) => [checked, correct, failures])(handtf.verify(a[0], m))"),
    "buildModel": (lambda m, lg: float(handtf.build_model(lg)["blocks"][0]["attn"]["c_proj"]["w"][7, 6]),
                   "handtf.buildModel(a[0]).blocks[0].attn.c_proj.w[7][6]"),
}
# every call on a model: short and long windows, one and several new tokens, a batch
ON_A_MODEL = [
    ("gpt", [0, 0]), ("gpt", [1]), ("gpt", [0, 0, 1, 0]), ("gpt", [0, 0, 1, 0, 0]), ("gpt", [[0, 1], [1, 0]]),
    ("predict", "aa"), ("predict", "ab"), ("predict", "b"), ("predict", "aab"), ("predict", "aabaa"), ("predict", "baabaa"),
    ("nextTokenProbs", "a"), ("nextTokenProbs", "aabaa"),
    ("complete", "a", 0), ("complete", "a", 3), ("complete", "a", 4), ("complete", "aa", 2), ("complete", "b", 2),
    ("complete", "aabaa", 1), ("trace", "aa"), ("trace", "ab"), ("trace", "aabaa"), ("verify", 2), ("verify", 6),
]


def python_outcome(name, model, args):
    try:
        # verify's margin of the model at the largest Lg overflows (1.8e308 is inf): numpy warns, and both give inf
        with np.errstate(over="ignore"):
            return ["ok", CALLS[name][0](model, *args)]
    except (ValueError, TypeError) as error:
        message = str(error).replace(" or a wider dtype", "")  # the port has no dtypes to widen
        return ["error", re.sub(r"^inputs\b", "tokens", message)]  # Python's gpt names its argument inputs


def changed(edit):
    """The hand-set model with one weight set: ``(("wpe", 4, 5), value)``."""
    (name, *index), value = edit
    model = handtf.build_model()
    model[name][tuple(index)] = value
    return model


def boundary(accepts):
    """``(below, above)``: floats within 1e-9 of the largest ``x`` that ``accepts(x)`` (bisected on floats)."""
    low, high = 1.0, 1.7976931348623157e308
    while high - low > 1e-12 * high:
        middle = math.sqrt(low) * math.sqrt(high) if high > 4 * low else low / 2 + high / 2
        try:
            accepts(middle)
            low = middle
        except ValueError:
            high = middle
    return low * (1 - 1e-9), high * (1 + 1e-9)


def parity_cases():
    """(label, model, call, args) on both sides of each bound Python has."""
    cases = []
    # a weight at which the logits overflow: after a 'b' (its embedding), or at the fifth position only
    for where, probe in ((("wte", 1, 6), [1]), (("wpe", 4, 5), [0, 0, 0, 0, 0])):
        sides = boundary(lambda x: handtf.gpt(np.array(probe), **changed((where, x))))
        for side, value in zip(("below", "above"), sides):
            cases += [(f"{where} = {value!r} ({side})", changed((where, value)), call, args) for call, *args in ON_A_MODEL]
    # Lg at which build_model overflows
    below, above = boundary(handtf.build_model)
    cases += [("Lg below", None, "buildModel", [below]), ("Lg above", None, "buildModel", [above])]
    cases += [("Lg below", handtf.build_model(below), call, args) for call, *args in ON_A_MODEL]
    # the shapes each function accepts: vocabulary, positions, blocks
    model = handtf.build_model()
    shapes = {
        "3 tokens": {**model, "wte": np.vstack([model["wte"], 0.5 * model["wte"][:1]])},
        "4 positions": {**model, "wpe": model["wpe"][:4]},
        "6 positions": {**model, "wpe": np.vstack([model["wpe"], model["wpe"][-1:]])},
        "no block": {**model, "blocks": []},
        "2 blocks": {**model, "blocks": model["blocks"] * 2},
    }
    for label, shaped in shapes.items():
        cases += [(label, shaped, call, args) for call, *args in ON_A_MODEL + [("gpt", [2, 0]), ("gpt", [0] * 6), ("predict", "aabaab")]]
    return cases


def given(message):
    """A refusal without what was given: the value after ", got", and the context an overflow
    was found after (the port names its text, Python its token ids, and each may meet another
    overflowing window first)."""
    return re.sub(r" after .+? \(they overflow", " after … (they overflow", message.split(", got")[0])


def same_outcome(got, want):
    if got[0] != want[0]:
        return False
    if got[0] == "error":  # the same rule, in the same words up to what was given
        return given(got[1].split(": ", 1)[1]) == given(want[1])
    js, py = got[1], want[1]
    if isinstance(py, list) and py and isinstance(py[0], (list, float)) and not isinstance(py[0], str):
        return np.allclose(np.array(js, dtype=float), np.array(py, dtype=float), rtol=1e-9, atol=0)
    if isinstance(py, dict):
        return js.keys() == py.keys() and all(abs(js[k] - py[k]) <= 1e-12 for k in py)
    return js == py


def test_the_port_refuses_exactly_what_python_refuses(port):
    """Every entry point on models at both sides of each bound: the result where Python gives one, the same refusal where it refuses."""
    cases = parity_cases()
    got = port.evaluate(
        """(cases) => cases.map(([m, code, a]) => {
            if (m === null) m = undefined;
            try { return ['ok', eval(code)]; } catch (e) { return ['error', `${e.name}: ${e.message}`]; }
        })""",
        [[as_lists(m) if m is not None else None, CALLS[call][1], args] for _, m, call, args in cases],
    )
    wrong = []
    for (label, model, call, args), answer in zip(cases, got):
        want = python_outcome(call, model, args)
        if not same_outcome(answer, want):
            wrong.append(f"{label}: {call}{tuple(args)}: port {answer[0]} {str(answer[1])[:120]}, Python {want[0]} {str(want[1])[:120]}")
    assert wrong == [], "\n".join(wrong[:30])
    # both sides of every bound were reached: each of them accepts some calls and refuses others
    outcomes = {label: set() for label, *_ in cases}
    for (label, *_), answer in zip(cases, got):
        outcomes[label].add(answer[0])
    refusing = [label for label, kinds in outcomes.items() if kinds == {"ok", "error"}]
    assert len(refusing) >= 7, outcomes


def test_predict_answers_where_python_answers_on_a_model_that_overflows_elsewhere(port):
    # by hand: with wte[1][6] (b's own logit) at 1e300, every window with a 'b' overflows, 'a' alone does not
    model = changed((("wte", 1, 6), 1e300))
    got = port.evaluate(
        "(m) => [handtf.predict('aa', m), handtf.complete('a', 0, m), (() => { try { handtf.predict('ab', m); } catch (e) { return e.message; } })()]",
        as_lists(model),
    )
    assert got[:2] == [handtf.predict("aa", model), "a"] == ["b", "a"]
    assert got[2] == "the model's logits are not finite after tokens [0, 1] (they overflow float64); use smaller weights"


# ------------------------------------------------------------ parsing typed numbers, and links


PARSED = {  # text -> what float() reads (None: refused)
    "1": 1.0, " 2 ": 2.0, "-3.5": -3.5, "\u22121": -1.0, "+4": 4.0, "1e21": 1e21, "1E-7": 1e-7, ".5": 0.5, "5.": 5.0,
    "1e+21": 1e21, "2.5e-324": 5e-324, "0x10": None, "1_000": None, "inf": None, "Infinity": None, "nan": None,
    "": None, "1e400": None, "1,5": None, "--1": None, "1e": None, "e5": None, "1 2": None, ".": None,
}


def test_parse_number_reads_what_float_reads_and_refuses_the_rest(port):
    got = port.evaluate(f"async (texts) => {{ const P = await {PLAYGROUND_JS}; return texts.map(P.parseNumber); }}", list(PARSED))
    for (text, want), value in zip(PARSED.items(), got):
        if want is not None:  # the expected value is Python's float() of the same text
            assert want == float(text.replace("\u2212", "-")), text
        assert value == want, (text, value)


LINK_VALUES = [1e21, 3.5e300, -1e-7, 5e-324, 0.1 + 0.2, 2**-3, 0.0002, 123456789.123, 1.7976931348623157e308, -0.0]
LINK_VALUES += any_floats(60, seed=1)


def test_a_link_gives_back_every_value_it_writes(port):
    got = port.evaluate(
        f"""async (values) => {{
            const P = await {PLAYGROUND_JS};
            const t = {{badLink: (part) => `bad ${{part}}`, badLg: (x) => `badLg ${{x}}`, lgOverflow: (x) => `overflow ${{x}}`}};
            return values.map((v) => {{
                const edits = new Map([["c_proj.w.7.6", v], ["c_attn.b.23", -v]]);
                const query = P.stateToQuery({{context: "aab", lg: v > 0 && v < 1e300 ? v : 1024, maxLen: 30, edits}});
                const back = P.stateFromQuery(query, t);
                return [query, back.state.lg, [...back.state.edits], back.problems];
            }});
        }}""",
        LINK_VALUES,
    )
    for value, (query, lg, edits, problems) in zip(LINK_VALUES, got):
        assert problems == [] and "+" not in query, query
        assert float(lg) == (value if 0 < value < 1e300 else 1024), query  # Playwright reads 2.7e20 as an int
        assert [[key, float(x)] for key, x in edits] == [["c_proj.w.7.6", value], ["c_attn.b.23", -value]], query
        signs = [math.copysign(1, x) for _, x in edits]
        assert signs == [math.copysign(1, value), math.copysign(1, -value)], query  # -0 comes back as -0


def read_link(page, query):
    return page.evaluate(
        f"""async (query) => {{ const P = await {PLAYGROUND_JS};
            const t = {{badLink: (x) => `bad ${{x}}`, badLg: (x) => `badLg ${{x}}`, lgOverflow: (x) => `overflow ${{x}}`}};
            const r = P.stateFromQuery(query, t);
            return [r.state.lg, [...r.state.edits], r.problems]; }}""",
        query,
    )


@pytest.mark.parametrize(
    ("query", "lg", "edits", "problems"),
    [
        ("?edit=c_attn.w.0.0:1:2", 1024, [], ["bad c_attn.w.0.0:1:2"]),  # exactly CELL:VALUE
        ("?edit=c_attn.w.0.0", 1024, [], ["bad c_attn.w.0.0"]),
        ("?edit=c_attn.w.00.0:5,c_proj.b.07:2", 1024, [["c_attn.w.0.0", 5], ["c_proj.b.7", 2]], []),  # one name a cell
        ("?edit=c_attn.w.8.0:1,c_attn.b.24:1,c_proj.w.0.8:1", 1024, [], ["bad c_attn.w.8.0:1", "bad c_attn.b.24:1", "bad c_proj.w.0.8:1"]),
        ("?lg=1e400", 1024, [], ["bad lg=1e400 overflow 1e400"]),  # a number, too large: not "must be a positive number"
        ("?lg=1e+400", 1024, [], ["bad lg=1e 400 overflow 1e+400"]),
        ("?lg=-1e400", 1024, [], ["bad lg=-1e400 badLg -1e400"]),
        ("?lg=0", 1024, [], ["bad lg=0 badLg 0"]),
        ("?lg=1e-320", 1e-320, [], []),
    ],
)
def test_a_link_is_read_cell_by_cell(port, query, lg, edits, problems):
    assert read_link(port, query) == [lg, edits, problems]


def test_an_old_link_with_a_bare_plus_still_reads(port):
    # URLSearchParams turns "+" into a space: "1e+21" written unescaped arrives as "1e 21"
    got = port.evaluate(
        f"""async () => {{ const P = await {PLAYGROUND_JS};
            const s = P.stateFromQuery("?lg=1e+21&edit=c_attn.w.6.23:2e+25", {{badLink: (x) => x}}).state;
            return [s.lg, [...s.edits]]; }}"""
    )
    assert got == [1e21, [["c_attn.w.6.23", 2e25]]]


# ------------------------------------------------------------ escaping


ESCAPED = ["<script>alert(1)</script>", "a & b", '"quoted"', "it's", "&amp;", "<>&\"'", "plain", "", "\u2212<"]


def test_escape_gives_text_html_reads_back_exactly(port):
    got = port.evaluate(f"async (texts) => {{ const P = await {PLAYGROUND_JS}; return texts.map(P.escape); }}", ESCAPED)
    for text, escaped in zip(ESCAPED, got):
        assert html.unescape(escaped) == text  # the standard library's reading of the HTML
        assert not set("<>\"'") & set(escaped), escaped  # safe in text and in either kind of quoted attribute
        assert escaped.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "").replace("&quot;", "").replace("&#39;", "").count("&") == 0


def test_escaped_text_reaches_the_dom_unchanged(port):
    got = port.evaluate(
        f"""async (texts) => {{ const P = await {PLAYGROUND_JS};
            return texts.map((x) => {{
                const d = document.createElement('div');
                d.innerHTML = `<span title="${{P.escape(x)}}" data-x='${{P.escape(x)}}'>${{P.escape(x)}}</span>`;
                const s = d.firstChild;
                return [d.children.length, s.textContent, s.title, s.dataset.x];
            }}); }}""",
        ESCAPED,
    )
    assert got == [[1, text, text, text] for text in ESCAPED]


# ------------------------------------------------------------ the playground page


def open_playground(browser, base_url, query="", language="", width=1280):
    visit = Visit(browser, f"{base_url}{language}playground/{query}", viewport={"width": width, "height": 900})
    visit.page.wait_for_selector(".handtf-weights td[data-key]", state="attached")
    return visit


@pytest.mark.parametrize(("language", "words"), [("", "no longer finite"), ("zh/", "不再是有限数")])
def test_an_overflowing_model_is_said_so_and_shows_no_nan(browser, base_url, language, words):
    visit = open_playground(browser, base_url, "?edit=c_attn.w.0.0:1e200,c_attn.w.0.8:1e200", language)
    try:
        page = visit.page
        assert words in page.inner_text(".handtf-message")
        assert "nan" not in page.inner_text(".handtf-results")
        assert page.evaluate("() => document.querySelector('.handtf-results').hasAttribute('data-handtf-stale')")
    finally:
        visit.close()


def test_a_model_whose_intermediates_overflow_but_not_its_logits_is_said_so(browser, base_url):
    # by hand: q0 of 'a' is 1e200 (row a of q:P0), k0 of 'b' is -1e200 (row b of k:P0): their score is -inf,
    # masked out of row 0 and finite nowhere else that counts, so the logits stay finite (Python agrees below)
    edits = {(5, 0): 1e200, (6, 8): -1e200}
    model = handtf.build_model()
    for (row, col), value in edits.items():
        model["blocks"][0]["attn"]["c_attn"]["w"][row, col] = value
    with np.errstate(over="ignore"):
        want = handtf.trace("ab", model)
    assert np.isinf(want.scores).any() and np.isfinite(want.logits).all()
    query = "?context=ab&edit=" + ",".join(f"c_attn.w.{r}.{c}:{v:g}" for (r, c), v in edits.items())
    for language, words in (("", "intermediate numbers are no longer finite"), ("zh/", "中间结果不再是有限数")):
        visit = open_playground(browser, base_url, query, language)
        try:
            page = visit.page
            assert words in page.inner_text(".handtf-message")
            assert "nan" not in page.inner_text(".handtf-results") and page.inner_text(".handtf-prediction")
            assert "\u2212inf" in page.inner_text("figure[data-name=scores]")
            page.fill(".handtf-context", "aa")  # no 'b': every number finite again, and the note goes
            page.dispatch_event(".handtf-context", "input")
            assert page.inner_text(".handtf-message") == ""
        finally:
            visit.close()


def weight_cells(page):
    return page.eval_on_selector_all("td[data-key]", "cs => cs.map((c) => [c.dataset.key, c.textContent, c.getAttribute('aria-label')])")


def test_every_weight_cell_shows_the_float_the_model_uses(browser, base_url):
    lg, edits = 0.0002, {"c_attn.w.0.0": 1e-7, "c_attn.b.3": 0.1 + 0.2, "c_proj.w.2.2": -0.0, "c_proj.b.7": 1e-320,
                         "c_attn.w.7.23": 123456789.123, "c_proj.w.0.0": 1e21}
    model = handtf.build_model(lg)["blocks"][0]["attn"]
    for key, value in edits.items():
        param, part, *index = key.split(".")
        model[param][part][tuple(map(int, index))] = value
    query = f"?lg={lg}&edit=" + ",".join(f"{k}:{v!r}".replace("+", "%2B") for k, v in edits.items())
    visit = open_playground(browser, base_url, query)
    try:
        cells = weight_cells(visit.page)
        assert len(cells) == 9 * 24 + 9 * 8
        for key, text, label in cells:
            param, part, *index = key.split(".")
            want = float(model[param][part][tuple(map(int, index))])
            got = float(text.replace("\u2212", "-"))  # the standard library reads what the cell shows
            assert got == want and math.copysign(1, got) == math.copysign(1, want), (key, text, want)
            assert label.startswith(text + ","), (key, label)  # a screen reader hears the same number
        assert visit.page.input_value(".handtf-lg") == "0.0002"
    finally:
        visit.close()


def test_opening_a_cell_and_pressing_enter_changes_nothing(browser, base_url):
    visit = open_playground(browser, base_url, "?lg=1.41421")  # a value with more than 3 decimals
    try:
        page = visit.page
        page.click('td[data-key="c_proj.w.7.6"]')
        assert page.input_value(".handtf-cell-input") == "1.41421"  # the float itself, not 1.414
        page.keyboard.press("Enter")
        assert page.inner_text(".handtf-edits") == "" and page.inner_text('td[data-key="c_proj.w.7.6"]') == "1.41421"
    finally:
        visit.close()


def test_the_lg_field_shows_the_float_the_model_uses(browser, base_url):
    visit = open_playground(browser, base_url, "?lg=0.0002")
    try:
        page = visit.page
        assert float(page.input_value(".handtf-lg")) == 0.0002  # not "0", as 3 decimals would write it
        page.fill(".handtf-lg", "1e21")
        page.dispatch_event(".handtf-lg", "change")
        # the address bar writes 1e21 with its + escaped, so that it reads back as 1e+21, not "1e 21"
        page.wait_for_function("() => window.location.search.includes('lg=1e%2B21')")
        assert page.evaluate("() => new URLSearchParams(window.location.search).get('lg')") == "1e+21"
        page.fill(".handtf-lg", "1e308")
        page.dispatch_event(".handtf-lg", "change")
        assert "too large" in page.inner_text(".handtf-message")
        assert page.get_attribute(".handtf-lg", "aria-invalid") == "true"
        page.fill(".handtf-max-len", "301")
        page.dispatch_event(".handtf-max-len", "input")
        assert "from 2 to 300" in page.inner_text(".handtf-message")
    finally:
        visit.close()


def test_a_link_beyond_the_playgrounds_length_is_refused(browser, base_url):
    for query, accepted in (("?max_len=300", True), ("?max_len=301", False), ("?max_len=1", False)):
        visit = open_playground(browser, base_url, query)
        try:
            said = visit.page.inner_text(".handtf-message")
            assert ("not understood" not in said) == accepted, (query, said)
        finally:
            visit.close()


def inside_screen(page, key):
    return page.evaluate(
        """(key) => { const r = document.querySelector(`td[data-key="${key}"]`).getBoundingClientRect();
                      return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth; }""",
        key,
    )


@pytest.mark.parametrize("lg", ["", "&lg=0.177", "&lg=1220", "&lg=2.38"])  # the slider's Lg between powers of 2 (3 digits)
def test_on_a_phone_every_third_of_c_attn_fits_the_screen(browser, base_url, lg):
    visit = open_playground(browser, base_url, "?edit=c_attn.w.6.23:1" + lg, width=390)
    try:
        page = visit.page
        assert page.is_checked('.handtf-thirds input[value="v"]')  # the link's edit is in v: v shows
        assert inside_screen(page, "c_attn.w.6.23") and inside_screen(page, "c_attn.w.0.16")
        assert not inside_screen(page, "c_attn.w.0.0")
        for third, first in (("q", 0), ("k", 8), ("v", 16)):
            page.check(f'.handtf-thirds input[value="{third}"]')
            for col in range(first, first + handtf.N_EMBED):
                assert inside_screen(page, f"c_attn.w.0.{col}") and inside_screen(page, f"c_attn.b.{col}"), (third, col)
        # the keyboard stays inside the third that shows
        page.check('.handtf-thirds input[value="k"]')
        page.click('td[data-key="c_attn.w.0.15"]')
        page.keyboard.press("Escape")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => document.activeElement.dataset.key") == "c_attn.w.0.15"
        page.keyboard.press("Home")
        assert page.evaluate("() => document.activeElement.dataset.key") == "c_attn.w.0.8"
    finally:
        visit.close()
