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
import struct

import numpy as np
import pytest

import handtf
from browsing import Visit
from handtf.display import format_number
from handtf.evaluation import MAX_LEN
from handtf.inference import MAX_NEW_TOKENS

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


def as_lists(model):
    if isinstance(model, dict):
        return {key: as_lists(value) for key, value in model.items()}
    if isinstance(model, list):
        return [as_lists(value) for value in model]
    return np.asarray(model, dtype=np.float64).tolist()


# ------------------------------------------------------------ tie-breaks


def test_argmax_breaks_a_tie_as_numpy(port):
    rows = [[1.0, 1.0], [0.0, 0.0], [2.0, 1.0], [1.0, 2.0], [-0.0, 0.0], [3.0, 5.0, 5.0], [7.0, 7.0, 7.0]]
    assert port.evaluate("(rows) => rows.map(handtf.argmax)", rows) == [int(np.argmax(r)) for r in rows]


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
    assert attempt(port, "handtf.formatNumber(1.5, -1)") == ["error", "Error: digits must be an integer from 0 to 20, got number -1"]


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
        ("handtf.predict('ab', m((m) => { m.wte.push(m.wte[0].slice()); }))",
         "model must have a vocabulary of 2 tokens and at least 5 positions, got wte of 3 rows and wpe of 5 rows"),
        ("handtf.trace('ab', m((m) => { m.wpe.pop(); }))",
         "model must have a vocabulary of 2 tokens and at least 5 positions, got wte of 2 rows and wpe of 4 rows"),
        ("handtf.buildModel(1e308)", "lg = 1e+308 overflows float64: the model's logits are not finite after 'b'"),
        ("handtf.gpt([0], m((m) => { m.blocks[0].attn.c_attn.w[0][0] = 1e200; m.blocks[0].attn.c_attn.w[0][8] = 1e200; }))",
         "the model's logits are not finite after 'a' (they overflow float64)"),
    ],
)
def test_the_port_refuses_what_python_refuses(port, code, message):
    setup = "const m = (change) => { const c = JSON.parse(JSON.stringify(handtf.MODEL)); change(c); return c; }; "
    kind, got = attempt(port, f"(() => {{ {setup} return {code}; }})()")
    assert kind == "error" and message in got, got


def test_python_refuses_the_same_models():
    model = handtf.build_model()
    model["blocks"][0]["attn"]["c_attn"]["w"][0, [0, 8]] = 1e200
    with pytest.raises(ValueError, match="logits are not finite after"):
        handtf.predict("ab", model)
    with pytest.raises(ValueError, match="lg = 1e\\+308 overflows float64: the model's logits are not finite after 'b'"):
        handtf.build_model(1e308)
    assert handtf.build_model(1e200)["blocks"][0]["attn"]["c_proj"]["b"][5] == 1e200  # finite logits: allowed


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


LINK_VALUES = [1e21, 3.5e300, -1e-7, 5e-324, 0.1 + 0.2, 2**-3, 0.0002, 123456789.123, 1.7976931348623157e308]


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
        assert lg == (value if 0 < value < 1e300 else 1024), query
        assert edits == [["c_proj.w.7.6", value], ["c_attn.b.23", -value]], query


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
        assert page.evaluate("() => document.querySelector('.handtf-results').style.opacity") == "0.5"
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


def test_on_a_phone_every_third_of_c_attn_fits_the_screen(browser, base_url):
    visit = open_playground(browser, base_url, "?edit=c_attn.w.6.23:1", width=390)
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
