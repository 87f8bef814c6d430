"""The JavaScript port and Python agree where a reader sees text (issue 42): numbers, escaped strings, links.

Run under node (``tests/node_port.py``), no browser: ``formatNumber`` against
``handtf.format_number`` for every ``digits`` Python takes, over random values
of every size; ``pyRepr`` against ``repr`` over random strings drawn from every
class of code point Python escapes (controls, format characters, spaces, the
bidi controls) and from printable ones, with both quotes; the induction
widget's checks in ``induction_attention``'s order; and the playground's
reading of a link (a key given twice, a key it does not know, thousands of bad
edits). Expected values come from Python, never from the port.
"""

import random
import shutil
import sys
import unicodedata

import pytest

import handtf
from handtf.display import format_number
from node_port import port_folder, run_node

SEED = 42


@pytest.fixture(scope="module")
def folder():
    path = port_folder()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def random_values(rng, n):
    """Floats of every size: around 1e6 (where %g starts), ties, integers, tiny and huge, both signs."""
    values = []
    for _ in range(n):
        kind = rng.randrange(6)
        if kind == 0:
            value = rng.uniform(1e6, 1e8)
        elif kind == 1:
            value = float(rng.randrange(10**6, 10**12))
        elif kind == 2:
            value = rng.randrange(-10**6, 10**6) / 2 ** rng.randrange(1, 12)  # ties at many places
        elif kind == 3:
            value = 10 ** rng.uniform(-12, 300)
        elif kind == 4:
            value = rng.uniform(-1e6, 1e6)
        else:
            value = float(rng.randrange(1, 10)) * 10 ** rng.randrange(0, 22)
        values.append(-value if rng.random() < 0.3 else value)
    return values


def test_format_number_agrees_with_python_for_every_digits(folder):
    rng = random.Random(SEED)
    fixed = [1234567.0, 1e6, 999999.5, 9999999.5, 1234567.5, 2.5e6, 1e21, 1.5e300, -0.0, 0.0625, -0.0004, -1e-9, -0.5]  # -0.0004 rounds to "-0", written 0
    values = random_values(rng, 300) + fixed
    cases = [(value, digits) for digits in range(0, 101) for value in rng.sample(values, 40)]
    cases += [(value, digits) for value in fixed for digits in range(0, 101)]
    got = run_node(folder, "return data.map(([v, d]) => H.formatNumber(v, d));", cases)
    wrong = [(v, d, js, format_number(v, d)) for (v, d), js in zip(cases, got) if js != format_number(v, d)]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:5]}"


def test_format_number_refuses_the_digits_python_refuses(folder):
    got = run_node(folder, "return [101, -1, 2.5].map((d) => { try { return H.formatNumber(1, d); } catch (e) { return e.message; } });")
    assert all(message.startswith("digits must be an integer from 0 to 100, got number") for message in got), got
    for digits in (101, -1):
        with pytest.raises(ValueError):
            format_number(1.0, digits)


def code_points(category_test, limit=0x30000):
    """Every assigned code point below ``limit`` whose Python category passes ``category_test`` (no surrogates)."""
    return [c for c in range(limit) if not 0xD800 <= c < 0xE000 and category_test(unicodedata.category(chr(c)))]


CLASSES = {
    "control": code_points(lambda cat: cat == "Cc"),
    "format": code_points(lambda cat: cat == "Cf"),
    "space": code_points(lambda cat: cat in ("Zs", "Zl", "Zp")),
    "bidi": [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)],
    "printable": code_points(lambda cat: cat[0] in "LNPS" and cat != "Co", limit=0x20000),
    "quotes and escapes": [ord(c) for c in "'\"\\\n\r\t "],
}


@pytest.mark.parametrize("kind", sorted(CLASSES))
def test_py_repr_agrees_with_python_for_every_class_of_code_point(folder, kind):
    rng = random.Random(f"{SEED}-{kind}")
    pool, others = CLASSES[kind], CLASSES["printable"] + CLASSES["quotes and escapes"]
    texts = ["".join(chr(rng.choice(pool if rng.random() < 0.5 else others)) for _ in range(rng.randrange(1, 8))) for _ in range(400)]
    texts += [chr(c) for c in pool[:2000]]  # each one on its own, as the widget shows a bad character
    got = run_node(folder, "return data.map(I.pyRepr);", texts)
    wrong = [(text, js, repr(text)) for text, js in zip(texts, got) if js != repr(text)]
    assert not wrong, f"{len(wrong)} of {len(texts)} differ, e.g. {wrong[:5]}"


def test_py_repr_picks_the_quote_python_picks(folder):
    texts = ["a", "'", '"', "'\"", "it's", 'say "hi"', "'a' \"b\"", "\\'"]
    assert run_node(folder, "return data.map(I.pyRepr);", texts) == [repr(t) for t in texts]


def test_a_typed_bidi_control_is_escaped_in_every_message(folder):
    """U+202E typed into either widget is shown as \\u202e: it cannot mirror the rest of the message."""
    got = run_node(folder, """
        const induction = I.problemOf("ab\\u202e", I.TEXT?.en);
        let python;
        try { I.tokenize("ab\\u202e"); } catch (e) { python = e.message; }
        return [induction, python];
    """)
    assert all("\u202e" not in message and "\\u202e" in message for message in got), got
    with pytest.raises(ValueError, match=r"'\\u202e'") as error:
        handtf.induction_attention(handtf.induction_head(), "ab\u202e")
    assert got[1] == str(error.value)


def test_the_induction_widget_checks_as_induction_attention_does(folder):
    """Too long and a bad character: Python names the length first, and so does the widget."""
    long_and_bad = "abcabcabx"  # 9 characters (n_ctx is 8), an x at position 8
    with pytest.raises(ValueError, match=r"^text must be a str of 1 to 8 characters"):
        handtf.induction_attention(handtf.induction_head(), long_and_bad)
    got = run_node(folder, "return [I.problemOf(data, I.TEXT?.en), I.problemOf('abx', I.TEXT?.en), I.problemOf('', I.TEXT?.en)];", long_and_bad)
    assert got[0].startswith("At most 8 letters") and "9" in got[0], got
    assert "position 2" in got[1] and "x" in got[1], got
    assert got[2].startswith("Type at least one letter"), got


LINK_TEXT = """{
    badLink: (part) => `bad ${part}`, moreLinkProblems: (n) => `${n} more`,
    lgOverflow: (text) => `overflow ${text}`, badLg: (text) => `badlg ${text}`,
}"""


def read_link(folder, query):
    body = f"const t = {LINK_TEXT}; const {{ state, problems }} = P.stateFromQuery(data, t);"
    body += " return { lg: state.lg, context: state.context, edits: [...state.edits], problems };"
    return run_node(folder, body, query)


def test_a_link_says_what_it_ignores(folder):
    two_edits = read_link(folder, "?edit=c_proj.b.5:0&edit=c_proj.b.6:1")  # both applied, not only the first
    assert two_edits["edits"] == [["c_proj.b.5", 0], ["c_proj.b.6", 1]] and two_edits["problems"] == []
    capital = read_link(folder, "?Lg=2")  # keys are lower case: said, not ignored in silence
    assert capital["lg"] == handtf.LG and capital["problems"] == ["bad Lg=2"]
    twice = read_link(folder, "?lg=2&lg=3&context=ab&context=ba")  # the first counts, the second is named
    assert twice["lg"] == 2 and twice["context"] == "ab"
    assert sorted(twice["problems"]) == ["bad context=ba", "bad lg=3"]


def test_thousands_of_bad_edits_make_a_short_message(folder):
    query = "?edit=" + ",".join(f"x{i}:1" for i in range(10_000))
    problems = read_link(folder, query)["problems"]
    assert problems == [f"bad x{i}:1" for i in range(5)] + ["9995 more"]
    long_part = read_link(folder, "?context=" + "c" * 100_000)["problems"]
    assert len(long_part) == 1 and len(long_part[0]) < 60


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
