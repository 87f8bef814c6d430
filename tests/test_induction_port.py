"""The induction page's live model (docs/assets/javascripts/induction.js) held to numpy, in Chromium.

The port must give what ``handtf.induction_attention`` gives, both heads'
attention weights and the logits (within 1e-9 of the largest entry of the
matrix), the same prediction at every position, the same rule
(``handtf.induction_rule``), and refuse the same inputs with the same
messages. It is compared on every sequence of length 1 to 5 over ``abc``, on
random sequences up to ``n_ctx``, on the hand-set model over other alphabets
and lengths, and on models whose attention is not one-hot (trained briefly,
and the hand-set one with noise). The expected values are numpy's, an
independent implementation of the same maths.

Then the widget, as a reader uses it, in both languages: ``abcab`` shows the
induction head on position 2 and the prediction ``c``; a character outside
the alphabet or a sequence longer than ``n_ctx`` is refused with a message
that counts positions from 0; the keyboard alone reaches and drives it; an
alphabet of HTML characters is shown as text. Last, the port is broken in
five ways (served with one change each) and each break is caught, as is one
changed weight in the generated module.
"""

import copy
import itertools
import json

import numpy as np
import pytest

import handtf
from handtf.trees import tree_map
from browsing import Visit
from pages import ROOT
from port_models import load_hook, parse_module

RELATIVE = 1e-9
SMALL = ["".join(s) for n in range(1, 6) for s in itertools.product("abc", repeat=n)]  # 363: every one


def random_sequences():
    """Seeded random sequences of 6, 7 and 8 tokens over abc (200 of each length, repeats dropped)."""
    rng = np.random.default_rng(0)
    return sorted({"".join(row) for n in (6, 7, 8) for row in rng.choice(list("abc"), size=(200, n))})


RANDOM = random_sequences()
PORT = "() => window.handtfInduction !== undefined && document.querySelector('[data-handtf-induction] table') !== null"
PHONE = {"width": 390, "height": 844}




def as_lists(tree):
    return tree_map(lambda leaf: np.asarray(leaf, dtype=np.float64).tolist(), tree)


def for_js(model):
    """An InductionHead as the port takes it (as induction-model.js describes the generated one)."""
    return {"chars": list(model.chars), "n_ctx": model.n_ctx, "n_head": model.n_head, "weights": as_lists(model.weights)}


def module_for(model):
    """The text of an induction-model.js holding ``model``."""
    values = {"MODEL": as_lists(model.weights), "CHARS": list(model.chars), "N_CTX": model.n_ctx,
              "N_HEAD": model.n_head, "EMBED_LABELS": list(model.embed_labels)}
    return "".join(f"export const {name} = {json.dumps(value)};\n" for name, value in values.items())


# ------------------------------------------------------------ the generated weights: one source


def test_the_generated_module_holds_the_package_model():
    values = parse_module(load_hook().induction_module_source())
    model = handtf.induction_head()
    assert values["MODEL"] == as_lists(model.weights)
    assert (values["CHARS"], values["N_CTX"], values["N_HEAD"]) == (["a", "b", "c"], 8, 1)
    assert values["EMBED_LABELS"] == list(model.embed_labels)


def test_the_built_site_serves_the_generated_module(built_site):
    served = (built_site / "assets" / "javascripts" / "induction-model.js").read_text(encoding="utf-8")
    assert served == load_hook().induction_module_source()


# ------------------------------------------------------------ parity with numpy


def open_port(browser, url, routes=()):
    visit = Visit(browser, url, light_search=True)
    if routes:
        for pattern, handler in routes:
            visit.page.route(pattern, handler)
        visit.page.goto(url)  # anew, with the routes
    visit.page.wait_for_function(PORT)
    return visit


@pytest.fixture(scope="module")
def port(browser, base_url):
    visit = open_port(browser, base_url + "induction/")
    yield visit.page
    visit.close()


JS_TRACES = """([models, texts]) => models.map((model, m) => texts[m].map((text) =>
    handtfInduction.inductionTrace(text, model === null ? handtfInduction.INDUCTION : model)))"""


def parity_problems(page, cases, stats=None):
    """``cases``: [(label, model or None for the port's own, InductionHead, texts)]. What differs from numpy."""
    traces = page.evaluate(JS_TRACES, [[given for _, given, _, _ in cases], [texts for *_, texts in cases]])
    problems = []
    for (label, _, model, texts), js_traces in zip(cases, traces):
        for text, js in zip(texts, js_traces):
            want = numpy_attention(model, text)
            for name, got, expected in zip(("layer 1", "layer 2", "logits"), (js["first"], js["second"], js["logits"]), want):
                got, expected = np.array(got, dtype=float), np.asarray(expected, dtype=float)
                scale = max(float(np.abs(expected).max()), 1.0)
                error = float(np.abs(got - expected).max()) if got.shape == expected.shape else np.inf
                if stats is not None:
                    stats[name] = max(stats.get(name, 0.0), error)
                if not error <= RELATIVE * scale:
                    problems.append(f"{label} {text!r} {name}: max difference {error:.3g}")
            predicted = [model.chars[i] for i in np.asarray(want[2]).argmax(axis=-1)]
            if js["predictions"] != predicted:
                problems.append(f"{label} {text!r}: predictions {js['predictions']} != {predicted}")
            looks = [np.asarray(p).argmax(axis=-1).tolist() for p in want[:2]]
            if js["looks"] != looks:
                problems.append(f"{label} {text!r}: where the heads look {js['looks']} != {looks}")
            if js["rule"] != handtf.induction_rule(text):
                problems.append(f"{label} {text!r}: rule {js['rule']} != {handtf.induction_rule(text)}")
            if stats is not None:
                stats["sequences"] = stats.get("sequences", 0) + 1
    return problems


EXPECTED = {}  # (model, text) -> numpy's answer: several tests compare the same sequences


def numpy_attention(model, text):
    key = (id(model), text)
    if key not in EXPECTED:
        EXPECTED[key] = (model, handtf.induction_attention(model, text))  # the model kept: its id stays its own
    return EXPECTED[key][1]


HAND_SET = handtf.induction_head()


def hand_set_cases(short=False):
    """The port's own model on every sequence up to length 5 and the random ones; ``short``: a few of them
    (enough to catch a broken port, which gets hundreds wrong, on a shared machine)."""
    texts = SMALL[:120] + RANDOM[::20] if short else SMALL + RANDOM
    return [("hand-set abc", None, HAND_SET, texts)]


def other_models():
    """Models the port must follow too: other alphabets and lengths, and attention that is not one-hot."""
    rng = np.random.default_rng(1)
    noisy = copy.deepcopy(handtf.induction_head())
    for block in noisy.weights["blocks"]:
        for part in ("c_attn", "c_proj"):
            block["attn"][part]["w"] = block["attn"][part]["w"] / 512 + rng.normal(0, 0.5, block["attn"][part]["w"].shape)
    trained = handtf.train_induction(steps=60, seed=0).model  # soft attention: the softmax's numbers matter
    models = [("ab n_ctx=6", handtf.induction_head("ab", n_ctx=6)), ("abcd n_ctx=5", handtf.induction_head("abcd", n_ctx=5)),
              ("xyz<é n_ctx=4", handtf.induction_head("xyz<é", n_ctx=4)), ("noisy", noisy), ("trained 60 steps", trained)]
    cases = []
    for label, model in models:
        every = ["".join(s) for n in range(1, model.n_ctx + 1) for s in itertools.product(model.chars, repeat=n)]
        texts = every if len(every) <= 400 else [every[i] for i in rng.choice(len(every), 400, replace=False)]
        cases.append((label, for_js(model), model, texts))
    return cases


def test_both_heads_and_the_logits_equal_numpy_on_every_short_sequence(port):
    stats = {}
    problems = parity_problems(port, hand_set_cases(), stats)
    assert problems == [], "\n".join(problems[:20])
    assert stats["sequences"] == 363 + len(RANDOM) and len(RANDOM) > 400
    print(f"hand-set abc: {stats['sequences']} sequences; max |difference|: "
          + ", ".join(f"{name} {stats[name]:.3g}" for name in ("layer 1", "layer 2", "logits")))


def test_both_heads_and_the_logits_equal_numpy_for_other_models(port):
    stats = {}
    problems = parity_problems(port, other_models(), stats)
    assert problems == [], "\n".join(problems[:20])
    print(f"other models: {stats['sequences']} sequences; max |difference|: "
          + ", ".join(f"{name} {stats[name]:.3g}" for name in ("layer 1", "layer 2", "logits")))
    # the soft models are there to exercise the softmax: their attention is not all zeros and ones
    soft = handtf.induction_attention(other_models()[-1][2], "abcab")[1]
    assert ((soft > 0.01) & (soft < 0.99)).any()


def test_the_rule_equals_python_on_any_text(port):
    texts = ["", "a", "aa", "abcab", "acbab", "abcabcab", "hello world", "中文中", "a\u00e9a\u00e9", "\U0001f600x\U0001f600y"]
    assert port.evaluate("(ts) => ts.map(handtfInduction.inductionRule)", texts) == [handtf.induction_rule(t) for t in texts]


BAD_TEXTS = ["", "abcabcabc", "abd", "dab", "zyx", "ab'", 'a"b', "a'\"", "a\\b", "a\nb", "aé", "中", "abcabcab\U0001f600"]


def test_bad_input_is_refused_with_python_s_message(port):
    model = handtf.induction_head()
    got = port.evaluate(
        "(ts) => ts.map((t) => { try { handtfInduction.inductionAttention(t); return 'no error'; } catch (e) { return e.message; } })",
        BAD_TEXTS,
    )
    for text, message in zip(BAD_TEXTS, got):
        with pytest.raises(ValueError) as python:
            handtf.induction_attention(model, text)
        assert message == str(python.value), text
    for code, part in {"handtfInduction.inductionAttention(5)": "text must be a str of 1 to 8 characters (n_ctx), got number",
                       "handtfInduction.inductionTrace('ab', {chars: ['a'], n_ctx: 8})": "model must be",
                       "handtfInduction.inductionRule(null)": "text must be a str, got null"}.items():
        answer = port.evaluate(f"() => {{ try {{ {code}; return 'no error'; }} catch (e) {{ return e.message; }} }}")
        assert part in answer, (code, answer)


# ------------------------------------------------------------ the widget, as a reader uses it

WIDGET = "[data-handtf-induction]"
CELL = WIDGET + " figure[data-name={name}] tbody tr:nth-child({row}) td:nth-of-type({col})"


def table(page, name):
    """A figure's table as text: [[header...], [row...], ...]."""
    return page.evaluate(
        """(s) => [...document.querySelectorAll(s + ' tr')].map((r) => [...r.children].map((c) => c.textContent))""",
        f"{WIDGET} figure[data-name={name}]",
    )


def widget_problems(page, zh):
    """What is wrong with the widget as a reader sees it; [] if nothing."""
    problems = []
    field = page.locator(f"{WIDGET} input")
    field.fill("abcab")
    second = table(page, "second")
    positions = {row[0]: row[1:] for row in table(page, "positions")}
    if second[5][1:] != ["0", "0", "1", "0", "0"]:
        problems.append(f"layer 2, row 4:b: {second[5]} (the induction head should look at position 2)")
    if table(page, "first")[5][1:] != ["0", "0", "0", "1", "0"]:
        problems.append("layer 1, row 4:b should look at position 3")
    prediction, rule = ("预测", "规则") if zh else ("prediction", "the rule")
    if positions.get(prediction, [None])[-1] != "c" or positions.get(rule) != ["—", "—", "—", "b", "c"]:
        problems.append(f"positions table: {positions}")
    summary = page.locator(f"{WIDGET} .handtf-prediction").text_content()
    if summary != ("在“abcab”之后，模型预测 c；规则说是 c。" if zh else "After “abcab” the model predicts c; the rule says c."):
        problems.append(f"summary: {summary}")
    message = page.locator(f"{WIDGET} .handtf-message")
    field.fill("abxab")
    said = message.text_content()
    want = "位置 2（从 0 数起）上的“x”不在字母表中" if zh else "“x” at position 2 (counting from 0) is not in the alphabet: use only a, b and c."
    if want not in said or field.get_attribute("aria-invalid") != "true":
        problems.append(f"bad character: {said!r}")
    if table(page, "second")[5][1:] != ["0", "0", "1", "0", "0"]:
        problems.append("a refused sequence changed the results")
    if page.locator(f"{WIDGET} .handtf-induction-stale").count() != 2:
        problems.append("the results of the last valid sequence are not framed as stale")
    field.fill("abcabcabc")
    said = message.text_content()
    if ("最多 8 个字母" if zh else "At most 8 letters (n_ctx, positions 0 to 7): this has 9.") not in said:
        problems.append(f"too long: {said!r}")
    field.fill("abcabcab")
    if message.text_content() or field.get_attribute("aria-invalid") is not None or page.locator(".handtf-induction-stale").count():
        problems.append("a valid sequence after a refused one still shows the message")
    if [row[0] for row in table(page, "second")[1:]] != [f"{i}:{c}" for i, c in enumerate("abcabcab")]:
        problems.append("eight positions expected in layer 2's map")
    return problems


@pytest.mark.parametrize("language", ["", "zh/"])
def test_the_widget_shows_both_heads_and_the_prediction(browser, base_url, language):
    visit = Visit(browser, base_url + language + "induction/", viewport=PHONE, light_search=True)
    try:
        visit.page.wait_for_function(PORT)
        assert widget_problems(visit.page, zh=bool(language)) == []
        overflow = visit.page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways by {overflow} px at 390 px with eight positions"
        assert visit.console_errors == []
    finally:
        visit.close()


def test_the_widget_with_the_keyboard_alone(browser, base_url):
    visit = Visit(browser, base_url + "induction/", light_search=True)
    page = visit.page
    try:
        page.wait_for_function(PORT)
        page.evaluate("(s) => { const el = document.querySelector(s); el.tabIndex = -1; el.focus(); }", WIDGET)
        page.keyboard.press("Tab")
        focused = page.evaluate("""() => { const el = document.activeElement, s = getComputedStyle(el);
            return {cls: el.className, ring: (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none',
                    label: el.labels && el.labels[0] && el.labels[0].textContent}; }""")
        assert "handtf-induction-text" in focused["cls"] and focused["ring"] and focused["label"] == "Sequence", focused
        page.keyboard.press("End")
        page.keyboard.press("Backspace")  # abca: the last a occurred at 0, followed by b
        assert table(page, "positions")[-1] == ["the rule", "—", "—", "—", "b"]
        assert page.locator(f"{WIDGET} .handtf-prediction").text_content() == "After “abca” the model predicts b; the rule says b."
        page.keyboard.type("c")  # abcac: c occurred at 2, followed by a
        assert page.locator(f"{WIDGET} .handtf-prediction").text_content() == "After “abcac” the model predicts a; the rule says a."
        page.keyboard.press("Control+A")
        page.keyboard.type("ab")  # b is new: the model repeats it, the rule claims nothing
        assert page.locator(f"{WIDGET} .handtf-prediction").text_content() == (
            "After “ab” the model predicts b; the rule claims nothing there (the last letter is new).")
    finally:
        visit.close()


HTML_ALPHABET = '<&"'
HTML_SEQUENCE = '<&"<&'


def html_routes():
    """Serve a model over ``<&"`` (a valid alphabet) and the page's widget starting on ``<&"<&``."""
    model = handtf.induction_head(HTML_ALPHABET, n_ctx=5)

    def other_model(route):
        route.fulfill(body=module_for(model), content_type="text/javascript")

    def other_start(route):
        page = route.fetch().text()
        assert page.count('data-handtf-induction="abcab"') == 1
        page = page.replace('data-handtf-induction="abcab"', 'data-handtf-induction="&lt;&amp;&quot;&lt;&amp;"')
        route.fulfill(body=page, content_type="text/html")

    return model, [("**/induction-model.js", other_model), ("**/induction/", other_start)]


def escaping_problems(page, model):
    """The characters of the alphabet, in the field, the tables and the port, as text."""
    problems = []
    field = page.locator(f"{WIDGET} input")
    if field.input_value() != HTML_SEQUENCE:
        problems.append(f"the field holds {field.input_value()!r}")
    if page.locator(f"{WIDGET} .handtf-message").text_content():
        problems.append(f"message: {page.locator(f'{WIDGET} .handtf-message').text_content()!r}")
    if table(page, "positions")[1][1:] != list(HTML_SEQUENCE):
        problems.append(f"tokens: {table(page, 'positions')[1]}")
    if [row[0] for row in table(page, "first")[1:]] != [f"{i}:{c}" for i, c in enumerate(HTML_SEQUENCE)]:
        problems.append(f"row labels: {table(page, 'first')}")
    field.fill('&&"<')
    if table(page, "positions")[1][1:] != list('&&"<'):
        problems.append(f"tokens after typing: {table(page, 'positions')[1]}")
    problems += parity_problems(page, [(HTML_ALPHABET, None, model, ["<", HTML_SEQUENCE, '&&"<<', '"'])])
    return problems


def test_an_alphabet_of_html_characters_is_shown_as_text(browser, base_url):
    model, routes = html_routes()
    visit = open_port(browser, base_url + "induction/", routes)
    try:
        assert escaping_problems(visit.page, model) == []
        assert visit.console_errors == []
    finally:
        visit.close()


# ------------------------------------------------------------ five ways to break the port, each caught

MUTANTS = {
    # the rule: the first earlier occurrence instead of the most recent one
    "the first match wins": ("chars.lastIndexOf(c, i - 1)", "chars.slice(0, i).indexOf(c)", "parity"),
    # the forward pass reads every position one place late (wpe shifted by one row)
    "positions one off": ("H.forward(tokens, model.weights)",
                          "H.forward(tokens, {...model.weights, wpe: [model.weights.wpe[0], ...model.weights.wpe]})", "parity"),
    # token ids counted from the other end of the alphabet
    "alphabet reversed": ("return chars.map((c) => model.chars.indexOf(c));",
                          "return chars.map((c) => model.chars.length - 1 - model.chars.indexOf(c));", "parity"),
    # the starting sequence written into the field's HTML as it is
    "value not escaped": ('value="${escape(initial)}"', 'value="${initial}"', "escaping"),
    # the message counts positions from 1
    "positions from 1": ("t.badChar(shownChar(chars[position]), position, model.chars)",
                         "t.badChar(shownChar(chars[position]), position + 1, model.chars)", "widget"),
}


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_a_broken_port_is_caught(browser, base_url, mutant):
    old, new, check = MUTANTS[mutant]
    model, html = html_routes()

    def broken(route):
        source = route.fetch().text()
        assert source.count(old) == 1, f"the mutant's target is not in induction.js once: {old}"
        route.fulfill(body=source.replace(old, new), content_type="text/javascript")

    routes = [("**/induction.js", broken)]
    if check == "escaping":
        routes += html
    visit = open_port(browser, base_url + "induction/", routes)
    try:
        if check == "parity":
            found = parity_problems(visit.page, hand_set_cases(short=True))
        elif check == "escaping":
            found = escaping_problems(visit.page, model)
        else:
            found = widget_problems(visit.page, zh=False)
        assert found, f"the mutant {mutant!r} went unnoticed"
        print(f"{mutant}: caught ({len(found)} problems), first: {found[0]}")
    finally:
        visit.close()


def test_a_changed_weight_is_caught(browser, base_url):
    """Served induction-model.js with one weight of the induction head changed, the parity check sees it."""

    def changed(route):
        source = route.fetch().text()
        values = parse_module(source)
        values["MODEL"]["blocks"][1]["attn"]["c_proj"]["w"][0][0] *= 1.001  # layer 2 writes a 1025.024 strong, not 1024
        route.fulfill(body="".join(f"export const {k} = {json.dumps(v)};\n" for k, v in values.items()),
                      content_type="text/javascript")

    visit = open_port(browser, base_url + "induction/", [("**/induction-model.js", changed)])
    try:
        found = parity_problems(visit.page, hand_set_cases(short=True))
        assert found, "a changed weight went unnoticed"
        print(f"a changed weight: caught ({len(found)} problems), first: {found[0]}")
    finally:
        visit.close()
