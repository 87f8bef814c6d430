"""Hostile-user probes of the playground's JavaScript port and of its links: how many get a clear answer.

``python tests/probe_playground.py [--site DIR] [--js-from REV] [-v]`` serves a
built site (``--site``; without it the site is built into a temporary folder),
opens it in Chromium, and tries each probe below as a reader who means to break
it would: inputs of the wrong kind, sizes at and beyond the bounds, models that
overflow for some contexts only, links written by hand. ``--js-from REV`` first
replaces ``handtf.js`` and ``playground.js`` in a copy of the site with those of
git revision ``REV`` (``main``), so that the same probes measure the code before
a change. It prints each probe that did not get a clear answer and the counts.

A probe is *clear* when the port gives what Python gives: the same value (the
expected values come from the package, computed here, or from ``float``), or,
where Python refuses, a ``TypeError``/``Error`` whose message names what was
wrong and what is allowed (a pattern written here, not copied from the port).
A page probe is clear when the page shows what the model uses and says what it
refused. The probes are not tests: they are a measure, and nothing fails.
"""

import argparse
import copy
import functools
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import handtf  # noqa: E402
from browsing import PREFIX, SiteServer, SubPathHandler, Visit, chromium  # noqa: E402
from handtf.display import format_number  # noqa: E402
from handtf.trees import paths  # noqa: E402
from pages import ROOT  # noqa: E402
from port_models import as_lists  # noqa: E402

JS_FILES = ("docs/assets/javascripts/handtf.js", "docs/assets/javascripts/playground.js")
PLAYGROUND_JS = "await import(new URL('../assets/javascripts/playground.js', location.href).href)"
RELATIVE = 1e-9


# ------------------------------------------------------------ what a clear answer is


@dataclass
class Value:
    """The port must give this value (floats within RELATIVE of it; -0 and 0 told apart where ``exact``)."""

    want: object
    exact: bool = False

    def judge(self, kind, got):
        if kind != "ok":
            return f"refused: {got}"
        return None if same(got, self.want, self.exact) else f"gave {got!r}, Python gives {self.want!r}"


@dataclass
class Refused:
    """The port must throw a TypeError or an Error whose message matches ``pattern``."""

    pattern: str

    def judge(self, kind, got):
        if kind != "error":
            return f"accepted, gave {str(got)[:80]!r}"
        if not re.match(r"(Type|Range)?Error: ", got) or not re.search(self.pattern, got):
            return f"unclear error: {got[:160]}"
        return None


@dataclass
class Holds:
    """``check(value)`` is true (a page's facts)."""

    check: object
    what: str

    def judge(self, kind, got):
        if kind != "ok":
            return f"failed: {got}"
        return None if self.check(got) else f"{self.what}; got {got!r}"


def same(got, want, exact=False):
    """``got`` has ``want``'s layout (the same paths, as handtf.trees walks them) and the same value at each."""
    got, want = paths(got), paths(want)
    return [p for p, _ in got] == [p for p, _ in want] and all(same_value(g, w, exact) for (_, g), (_, w) in zip(got, want))


def same_value(got, want, exact):
    """Floats within RELATIVE (``exact``: equal, -0 and 0 told apart); anything else equal and of the same type."""
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if exact:
            return got == want and np.signbit(got) == np.signbit(want)
        return abs(got - want) <= RELATIVE * max(abs(want), 1e-300)
    return got == want and type(got) is type(want)


# ------------------------------------------------------------ the models the probes use, made in Python


def model(change=None, lg=handtf.LG):
    m = copy.deepcopy(handtf.build_model(lg))
    if change:
        change(m)
    return m


def overflow_after_b(m):
    m["wte"][1, :2] = 1e300  # a 'b' token's logits overflow (x . wte[1] ~ 1e600); an 'a' alone stays finite


def overflow_everywhere(m):
    m["wte"][:] = 1e300


def three_tokens(m):
    m["wte"] = np.vstack([m["wte"], 0.5 * m["wte"][:1]])


def six_positions(m):
    m["wpe"] = np.vstack([m["wpe"], m["wpe"][-1:]])


def four_positions(m):
    m["wpe"] = m["wpe"][:4]


def no_blocks(m):
    m["blocks"] = []


def two_blocks(m):
    m["blocks"] = m["blocks"] * 2


def tied(m):
    m["wte"] = np.zeros_like(m["wte"])



def overflow_bound():
    """Lg just below and just above the largest that build_model accepts (bisected on floats)."""
    low, high = 1.0, 1e308
    while high - low > 1e-12 * high:
        middle = low / 2 + high / 2  # (low + high) / 2 would overflow
        try:
            handtf.build_model(middle)
            low = middle
        except ValueError:
            high = middle
    return low * (1 - 1e-9), high * (1 + 1e-9)


# ------------------------------------------------------------ the probes of the port (window.handtf)

# Each JS probe is code that runs in the page with `m` = the probe's model (given as JSON) and
# `clone()` = a deep copy of the port's MODEL; its result is compared with the expectation.


def port_probes():
    ab = model(overflow_after_b)
    everywhere = model(overflow_everywhere)
    three, six, four = model(three_tokens), model(six_positions), model(four_positions)
    none, two, tie = model(no_blocks), model(two_blocks), model(tied)
    below, above = overflow_bound()
    logits = lambda tokens, mm=handtf.MODEL: handtf.gpt(np.array(tokens), **mm).tolist()  # noqa: E731
    verified = lambda n, mm: (lambda r: [r.checked, r.correct])(handtf.verify(n, mm))  # noqa: E731
    return [
        # token ids and batches
        ("gpt: a typed array of ids", "handtf.gpt(new Int32Array([0, 1]))", None, Refused(r"tokens must be an array")),
        ("gpt: booleans as ids", "handtf.gpt([true, false])", None, Refused(r"integers, got boolean")),
        ("gpt: a BigInt id", "handtf.gpt([0, 1n])", None, Refused(r"integers, got bigint")),
        ("gpt: a ragged batch", "handtf.gpt([[0, 1], [1]])", None, Refused(r"(ragged|same length|different length)")),
        ("gpt: a batch of one empty sequence", "handtf.gpt([[]])", None, Refused(r"1 to 5 tokens.*got 0")),
        ("gpt: a batch", "handtf.gpt([[0, 1], [1, 1]])", None, Value(logits([[0, 1], [1, 1]]))),
        ("gpt: null tokens", "handtf.gpt(null)", None, Refused(r"tokens must be an array")),
        ("gpt: a null model", "handtf.gpt([0], null)", None, Refused(r"model must be an object")),
        ("gpt: a model with an extra key", "handtf.gpt([0], {...clone(), ln_f: 1})", None, Refused(r"model must have exactly the keys")),
        ("gpt: a row with holes", "(() => { const c = clone(); c.wte[0] = new Array(8); return handtf.gpt([0], c); })()", None,
         Refused(r"model\.wte\[0\]\[0\] must be a number")),
        ("gpt: a weight written as a string", "(() => { const c = clone(); c.wte[0][3] = '1'; return handtf.gpt([0], c); })()", None,
         Refused(r"model\.wte\[0\]\[3\] must be a number")),
        ("gpt: a weight as a Number object", "(() => { const c = clone(); c.wte[0][3] = new Number(1); return handtf.gpt([0], c); })()",
         None, Refused(r"must be a number")),
        ("gpt: a model without blocks", "handtf.gpt([0, 1], m)", none, Value(logits([0, 1], none))),
        ("gpt: a model of two blocks", "handtf.gpt([0, 1, 0], m)", two, Value(logits([0, 1, 0], two))),
        ("gpt: a vocabulary of 3, token 2", "handtf.gpt([2, 0], m)", three, Value(logits([2, 0], three))),
        ("gpt: 6 positions, 6 tokens", "handtf.gpt([0, 0, 1, 0, 0, 1], m)", six, Value(logits([0, 0, 1, 0, 0, 1], six))),
        # overflow: refused where the run overflows, answered where it does not (as Python)
        ("gpt: 'a' on a model that overflows after 'b'", "handtf.gpt([0, 0], m)", ab, Value(logits([0, 0], ab))),
        ("gpt: 'b' on it", "handtf.gpt([1], m)", ab, Refused(r"not finite after (tokens \[1\]|'b')")),
        ("predict: 'aa' on it", "handtf.predict('aa', m)", ab, Value(handtf.predict("aa", ab))),
        ("predict: 'ab' on it", "handtf.predict('ab', m)", ab, Refused(r"logits are not finite after")),
        ("nextTokenProbs: 'a' on it", "handtf.nextTokenProbs('a', m)", ab, Value(handtf.next_token_probs("a", ab))),
        ("complete: 0 new tokens on a model that overflows everywhere", "handtf.complete('a', 0, m)", everywhere,
         Value(handtf.complete("a", 0, everywhere))),
        ("complete: 3 new tokens on the model that overflows after 'b'", "handtf.complete('a', 3, m)", ab,
         Refused(r"logits are not finite after")),
        ("verify: the model that overflows after 'b'", "handtf.verify(6, m)", ab, Refused(r"logits are not finite after 'a?b'")),
        ("trace: a vocabulary of 3", "handtf.trace('ab', m).logits", three, Value(handtf.trace("ab", three).logits.tolist())),
        ("trace: 4 positions, 2 tokens", "handtf.trace('ab', m).logits", four, Value(handtf.trace("ab", four).logits.tolist())),
        ("trace: 4 positions, 5 tokens", "handtf.trace('aabab', m)", four, Refused(r"1 to 4 tokens.*got 5")),
        ("trace: no blocks", "handtf.trace('ab', m)", none, Refused(r"exactly one block, got 0")),
        ("verify: no blocks", "(({checked, correct}) => [checked, correct])(handtf.verify(6, m))", none, Value(verified(6, none))),
        ("verify: a vocabulary of 3", "handtf.verify(6, m)", three, Refused(r"vocabulary of 2 tokens")),
        ("verify: a tied model", "(({checked, correct}) => [checked, correct])(handtf.verify(8, m))", tie, Value(verified(8, tie))),
        # Lg
        ("buildModel: the smallest float", "handtf.buildModel(5e-324).blocks[0].attn.c_proj.w[7][6]", None,
         Value(float(handtf.build_model(5e-324)["blocks"][0]["attn"]["c_proj"]["w"][7, 6]), exact=True)),
        ("buildModel: just below the overflow bound", f"handtf.buildModel({below!r}).blocks[0].attn.c_proj.w[7][6]", None,
         Value(below, exact=True)),
        ("buildModel: just above it", f"handtf.buildModel({above!r})", None, Refused(r"overflows float64")),
        ("buildModel: NaN", "handtf.buildModel(NaN)", None, Refused(r"lg must be a positive finite number")),
        ("buildModel: -0", "handtf.buildModel(-0)", None, Refused(r"positive finite number")),
        ("buildModel: true", "handtf.buildModel(true)", None, Refused(r"lg must be a number")),
        ("buildModel: a Number object", "handtf.buildModel(new Number(2))", None, Refused(r"lg must be a number")),
        # counts and bounds
        ("verify: 1e21", "handtf.verify(1e21)", None, Refused(r"maxLen must be at most 1,000,000")),
        ("verify: -Infinity", "handtf.verify(-Infinity)", None, Refused(r"maxLen must be an integer")),
        ("verify: '30'", "handtf.verify('30')", None, Refused(r"maxLen must be an integer")),
        ("verify: an empty model", "handtf.verify(30, {})", None, Refused(r"model must have exactly the keys")),
        ("complete: 1.5 new tokens", "handtf.complete('a', 1.5)", None, Refused(r"maxNewTokens must be an integer")),
        ("complete: NaN new tokens", "handtf.complete('a', NaN)", None, Refused(r"maxNewTokens must be an integer")),
        ("complete: an empty context", "handtf.complete('', 3)", None, Refused(r"context is empty")),
        ("complete: a 'c'", "handtf.complete('abc', 2)", None, Refused(r"'c' at position 2 is not a token")),
        ("complete: an emoji", "handtf.complete('a\\u{1F600}', 1)", None, Refused(r"at position 1 is not a token")),
        ("predict: a combining accent", "handtf.predict('a\\u0301')", None, Refused(r"at position 1 is not a token")),
        ("predict: a capital A", "handtf.predict('A')", None, Refused(r"'A' at position 0 is not a token")),
        ("tokenize: a number", "handtf.tokenize(123)", None, Refused(r"text must be a string")),
        ("contextWindow: 9 tokens", "handtf.contextWindow('aabaabaab')", None, Value(handtf.context_window("aabaabaab"))),
        ("nextTokenProbs: aabaa", "handtf.nextTokenProbs('aabaa')", None, Value(handtf.next_token_probs("aabaa"))),
        ("complete: out of the pattern", "handtf.complete('bbbbbbbbbb', 7)", None, Value(handtf.complete("bbbbbbbbbb", 7))),
        # numbers as the figures write them, and colours
        ("formatNumber: -0", "handtf.formatNumber(-0)", None, Value(format_number(-0.0))),
        ("formatNumber: 1e-7", "handtf.formatNumber(1e-7)", None, Value(format_number(1e-7))),
        ("formatNumber: a tie at 0 decimals", "handtf.formatNumber(0.5, 0)", None, Value(format_number(0.5, 0))),
        ("formatNumber: just under 1e6", "handtf.formatNumber(999999.9999)", None, Value(format_number(999999.9999))),
        ("formatNumber: 2.5 decimals", "handtf.formatNumber(1.5, 2.5)", None, Refused(r"digits must be an integer")),
        ("formatNumber: a Symbol", "handtf.formatNumber(Symbol('x'))", None, Refused(r"value must be a number")),
        ("cellText: NaN", "handtf.cellText(NaN)", None, Value("nan")),
        ("cellColours: an unknown scheme", "handtf.cellColours(1, handtf.divergingNorm([[1]]), 'blue')", None,
         Refused(r'scheme must be "light" or "dark"')),
        ("cellColours: a string value", "handtf.cellColours('a', handtf.divergingNorm([[1]]))", None, Refused(r"value must be a number")),
        ("divergingNorm: a string", "handtf.divergingNorm('x')", None, Refused(r"matrix must be")),
        ("divergingNorm: a string inside", "handtf.divergingNorm([[1, 'a']])", None, Refused(r"matrix")),
        ("argmax: NaN after a number", "handtf.argmax([1, NaN])", None, Value(int(np.argmax([1.0, np.nan])))),
        ("argmax: NaN first", "handtf.argmax([NaN, 1])", None, Value(int(np.argmax([np.nan, 1.0])))),
        ("argmax: an empty row", "handtf.argmax([])", None, Refused(r"row must be a non-empty array")),
        ("argmax: a string", "handtf.argmax('ab')", None, Refused(r"row must be")),
        ("MODEL: written over, then predict", "(() => { try { handtf.MODEL.wte[1][0] = 99; } catch {} return [handtf.MODEL.wte[1][0], handtf.predict('aabaa')]; })()",
         None, Value([float(handtf.MODEL["wte"][1, 0]), "b"])),
        ("checkModel: the hand-set model", "handtf.checkModel(handtf.MODEL)", None, Value([2, 5, 8])),
    ]


# ------------------------------------------------------------ the probes of the links (stateFromQuery, stateToQuery)

LINK_T = "{badLink: (x) => `bad ${x}`, badLg: (x) => `badLg ${x}`, lgOverflow: (x) => `overflow ${x}`}"


def read_link(query):
    """Code giving [lg, edits, maxLen, context, problems] for a link's query."""
    return f"(() => {{ const r = P.stateFromQuery({query!r}, {LINK_T}); const s = r.state; " \
           f"return [s.lg, [...s.edits], s.maxLen, s.context, r.problems]; }})()"


def round_trip(values):
    """Each value written by a link (as an edit and, if > 0, as Lg) and read back: [lg, edit] each."""
    return f"""({values!r}).map((v) => {{
        const edits = new Map([["c_attn.w.0.0", v]]);
        const q = P.stateToQuery({{context: "aab", lg: v > 0 && v < 1e300 ? v : 1024, maxLen: 30, edits}});
        const s = P.stateFromQuery(q, {LINK_T}).state;
        return [Object.is(s.lg, v > 0 && v < 1e300 ? v : 1024), Object.is(s.edits.get("c_attn.w.0.0"), v), q];
    }})"""


def refused_link(what):
    return Holds(lambda r: bool(r[4]), f"{what} is taken without a word")


ROUND_TRIP = [-0.0, 5e-324, 1e21, -1e-7, 0.1 + 0.2, 1.7976931348623157e308, 3 * 2.0**-1074, 123456789.12345679, 2.0**-1022]


def link_probes():
    return [
        ("link: lg=1e400 says it is too large", read_link("?lg=1e400"), Holds(lambda r: r[4] and re.search(r"overflow|too large", r[4][0]), "no word of its size")),
        ("link: lg=0 refused", read_link("?lg=0"), refused_link("lg=0")),
        ("link: lg=0x10 refused", read_link("?lg=0x10"), refused_link("lg=0x10")),
        ("link: lg=1e-320 kept exactly", read_link("?lg=1e-320"), Holds(lambda r: r[0] == 1e-320 and not r[4], "not read as 1e-320")),
        ("link: an edit with two colons", read_link("?edit=c_attn.w.0.0:1:2"), refused_link("c_attn.w.0.0:1:2")),
        ("link: a row written 00", read_link("?edit=c_attn.w.00.0:5"),
         Holds(lambda r: r[4] or r[1] == [["c_attn.w.0.0", 5]], "kept under a second name for the same cell")),
        ("link: row 8 of c_attn", read_link("?edit=c_attn.w.8.0:1"), refused_link("row 8")),
        ("link: bias 24 of c_attn", read_link("?edit=c_attn.b.24:1"), refused_link("bias 24")),
        ("link: an edit of nan", read_link("?edit=c_attn.w.0.0:nan"), refused_link("nan")),
        ("link: an edit of +1 escaped", read_link("?edit=c_attn.w.0.0:%2B1"), Holds(lambda r: r[1] == [["c_attn.w.0.0", 1]], "not read as 1")),
        ("link: max_len=301 refused", read_link("?max_len=301"), refused_link("max_len=301")),
        ("link: an empty context refused", read_link("?context="), refused_link("an empty context")),
        ("link: a context with markup refused", read_link("?context=%3Cscript%3E"), refused_link("<script>")),
        ("link: a long context kept", read_link("?context=" + "ab" * 500), Holds(lambda r: r[3] == "ab" * 500 and not r[4], "not kept")),
        ("link: empty items between commas", read_link("?edit=c_attn.w.0.0:1,,c_attn.w.0.1:2"),
         Holds(lambda r: r[1] == [["c_attn.w.0.0", 1], ["c_attn.w.0.1", 2]] and not r[4], "not both edits")),
        ("link: every value written comes back (-0 too)", round_trip(ROUND_TRIP),
         Holds(lambda r: all(a and b for a, b, _ in r), "a value comes back changed")),
        ("link: no bare + in a link", round_trip(ROUND_TRIP), Holds(lambda r: all("+" not in q for _, _, q in r), "a + in a query")),
    ]


# ------------------------------------------------------------ the probes of the page

CELL = """(key) => { const c = document.querySelector(`td[data-key="${key}"]`);
    return [c.textContent, c.getAttribute('aria-label'), document.querySelector('.handtf-message').textContent,
            document.querySelector('.handtf-edits').textContent]; }"""


def shows(value):
    """The cell's text reads back (as float(), a true minus allowed) as exactly ``value``."""
    def check(facts):
        try:
            got = float(facts[0].replace("\u2212", "-"))
        except ValueError:
            return False
        return got == value and np.signbit(got) == np.signbit(value)
    return check


def page_probes():
    lg_cell = "c_proj.w.7.6"  # = Lg in the hand-set model
    return [
        ("page: Lg 0.0002 in its weight cell", "?lg=0.0002", lg_cell, None, Holds(shows(0.0002), "the cell does not show 0.0002")),
        ("page: Lg 1e-320 in its weight cell", "?lg=1e-320", lg_cell, None, Holds(shows(1e-320), "the cell does not show 1e-320")),
        ("page: an edit of 1e-7 shown", "?edit=c_attn.w.0.0:1e-7", "c_attn.w.0.0", None, Holds(shows(1e-7), "not shown as 1e-7")),
        ("page: an edit of 0.1 + 0.2 shown", "?edit=c_attn.w.0.0:0.30000000000000004", "c_attn.w.0.0", None,
         Holds(shows(0.1 + 0.2), "not shown as the float the model uses")),
        ("page: an edit of -0 shown", "?edit=c_attn.w.0.0:-0", "c_attn.w.0.0", None, Holds(shows(-0.0), "not shown as -0")),
        ("page: a cell names its exact value", "?lg=0.0002", lg_cell, None,
         Holds(lambda f: f[1].startswith(("0.0002", "2e-4", "2e\u22124")), "the cell's name rounds the value")),
        ("page: opening a cell and pressing Enter changes nothing", "?lg=1.41421", lg_cell, "enter",
         Holds(lambda f: f[3] == "" and shows(1.41421)(f), "the model changed")),
        ("page: typing 1e-7 into a cell", "", "c_attn.w.0.0", "type:1e-7", Holds(shows(1e-7), "not shown as 1e-7")),
        ("page: typing 1e400 into a cell", "", "c_attn.w.0.0", "type:1e400", Holds(lambda f: "too large" in f[2], "no word of its size")),
        ("page: typing 1e400 as Lg", "", lg_cell, "lg:1e400", Holds(lambda f: "too large" in f[2], "no word of its size")),
        ("page: typing 0.0002 as Lg", "", lg_cell, "lg:0.0002", Holds(shows(0.0002), "the cell does not show 0.0002")),
        ("page: a link's Lg of 1e400", "?lg=1e400", lg_cell, None, Holds(lambda f: "too large" in f[2], "no word of its size")),
        ("page: an overflowing model is said so", "?edit=c_attn.w.0.0:1e200,c_attn.w.0.8:1e200", lg_cell, None,
         Holds(lambda f: "no longer finite" in f[2], "no word that the numbers overflow")),
        ("page: overflow said in Chinese", "zh:?edit=c_attn.w.0.0:1e200,c_attn.w.0.8:1e200", lg_cell, None,
         Holds(lambda f: "不再是有限数" in f[2], "no word that the numbers overflow")),
        ("page: markup in a link's context stays text", "?context=%3Cimg%20src%3Dx%20onerror%3Dwindow.__x%3D1%3E", lg_cell, "markup",
         Holds(lambda f: f[4] == [0, None] and "<img" in f[2], "the markup became an element")),
        ("page: a weight written 00 in a link is outlined", "?edit=c_attn.w.00.0:5", "c_attn.w.0.0", "outlined",
         Holds(lambda f: f[4] and shows(5)(f), "the edited cell is not outlined")),
    ]


def run_page_probe(browser, base_url, query, key, action):
    language = ""
    if query.startswith("zh:"):
        language, query = "zh/", query[3:]
    visit = Visit(browser, f"{base_url}{language}playground/{query}", viewport={"width": 1280, "height": 900})
    page = visit.page
    try:
        page.wait_for_selector(f'td[data-key="{key}"]', state="attached")
        extra = None
        if action == "enter":
            page.click(f'td[data-key="{key}"]')
            page.keyboard.press("Enter")
        elif action and action.startswith("type:"):
            page.click(f'td[data-key="{key}"]')
            page.keyboard.press("Control+A")
            page.keyboard.type(action[5:])
            page.keyboard.press("Enter")
        elif action and action.startswith("lg:"):
            page.fill(".handtf-lg", action[3:])
            page.dispatch_event(".handtf-lg", "change")
        elif action == "markup":
            extra = page.evaluate("() => [document.querySelectorAll('img[src=\"x\"]').length, window.__x ?? null]")
        elif action == "outlined":
            extra = page.evaluate("(k) => document.querySelector(`td[data-key=\"${k}\"]`).classList.contains('handtf-edited')", key)
        page.wait_for_timeout(50)
        return ["ok", page.evaluate(CELL, key) + [extra]]
    except Exception as error:  # noqa: BLE001  (a probe that breaks the page is an unclear answer, not a crash of the measure)
        return ["error", f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"]
    finally:
        visit.close()


# ------------------------------------------------------------ running them

PORT_RUN = """async ([probes, model]) => {
    const clone = () => JSON.parse(JSON.stringify(handtf.MODEL));
    const P = %s;
    const out = [];
    for (const [code, m] of probes) {
        try { out.push(['ok', await eval(code)]); } catch (e) { out.push(['error', `${e.name}: ${e.message}`]); }
    }
    return out;
}""" % PLAYGROUND_JS


def run(base_url, verbose):
    port, links, pages = port_probes(), link_probes(), page_probes()
    with chromium() as browser:
        visit = Visit(browser, base_url + "playground/")
        visit.page.wait_for_function("() => window.handtf !== undefined")
        answers = visit.page.evaluate(PORT_RUN, [[[code, as_lists(m) if m is not None else None] for _, code, m, _ in port]
                                                 + [[code, None] for _, code, _ in links], None])
        visit.close()
        page_answers = [run_page_probe(browser, base_url, q, key, action) for _, q, key, action, _ in pages]
    labels = [p[0] for p in port] + [p[0] for p in links] + [p[0] for p in pages]
    expects = [p[3] for p in port] + [p[2] for p in links] + [p[4] for p in pages]
    groups = ["port"] * len(port) + ["links"] * len(links) + ["page"] * len(pages)
    counts = {}
    for label, expect, group, (kind, got) in zip(labels, expects, groups, answers + page_answers):
        problem = expect.judge(kind, got)
        clear, total = counts.get(group, (0, 0))
        counts[group] = (clear + (problem is None), total + 1)
        if problem or verbose:
            print(f"{'clear  ' if problem is None else 'UNCLEAR'} {group}: {label}{': ' + problem if problem else ''}")
    for group, (clear, total) in counts.items():
        print(f"{group}: {clear} of {total} clear")
    clear, total = map(sum, zip(*counts.values()))
    print(f"all: {clear} of {total} clear")
    return clear, total


def serve(folder):
    handler = functools.partial(SubPathHandler, directory=str(folder))
    server = SiteServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}{PREFIX}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--js-from", metavar="REV", help="serve handtf.js and playground.js of this git revision")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every probe, not only the unclear ones")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        site = args.site
        if site is None:
            from conftest import build_site

            built = build_site(Path(scratch))
            if built["returncode"] != 0:
                sys.exit(f"the site did not build:\n{built['log'][-2000:]}")
            site = Path(scratch) / "site"
        if args.js_from:
            copied = Path(scratch) / "before"
            shutil.copytree(site, copied)
            for path in JS_FILES:
                source = subprocess.run(["git", "show", f"{args.js_from}:{path}"], cwd=ROOT, capture_output=True, check=True).stdout
                (copied / "assets" / "javascripts" / Path(path).name).write_bytes(source)
            site = copied
        server, base_url = serve(site)
        try:
            run(base_url, args.verbose)
        finally:
            server.shutdown()


if __name__ == "__main__":
    main()
