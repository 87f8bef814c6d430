"""Probes of issue 42: shared state, silent wrong answers, unbounded work, the command line.

Each probe expects either the right answer (``right(predicate)``) or a clear
refusal (``clear(regex)``: a ``ValueError`` or ``TypeError`` whose message
matches). What it does is put in one of five classes:

- **right**: it returned what the predicate (an independent derivation) wants;
- **clear**: it raised ``ValueError``/``TypeError`` with the expected message;
- **obscure**: it raised ``ValueError``/``TypeError``, but the message does not
  say what is wrong (or a right answer was expected);
- **silent**: it returned a wrong answer, or returned where it had to refuse,
  or left shared state changed;
- **crash**: any other exception, or no answer within its time budget.

The probes are new with issue 42 (none is in ``scripts/probe_boundary.py`` or
``tests/bad_inputs.py`` before it). Run it against any checkout:

    python scripts/probe_state.py                 # the handtf on sys.path
    PYTHONPATH=/tmp/old python scripts/probe_state.py
    python scripts/probe_state.py -v              # and every probe that is not right or clear
"""

import copy
import os
import re
import resource
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter

import numpy as np

import handtf as h

NAN, INF = float("nan"), float("inf")
X = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
EYE = {"w": np.eye(2), "b": np.zeros(2)}


def right(predicate):
    return ("right", predicate)


def clear(pattern):
    return ("clear", pattern)


def unchanged_after(write, check):
    """Try ``write`` (a write into shared state); the probe is right if it was refused or changed nothing ``check`` sees."""

    def probe():
        before = check()
        try:
            write()
        except (TypeError, ValueError, AttributeError):
            pass
        return check() == before

    return probe


def model_accuracy():
    return h.evaluate().correct, h.verify(30).correct


def bias_write():
    h.MODEL["blocks"][0]["attn"]["c_proj"]["b"][5] = 0.0


def key_write():
    h.MODEL["wte"] = np.zeros((2, 8))


def gpt2_small_write():
    h.GPT2_SMALL["n_head"] = 1


def split_heads_view():
    x = np.arange(8.0).reshape(2, 4)
    out = h.split_heads(x, 2)
    out[...] = -1
    return bool((x == np.arange(8.0).reshape(2, 4)).all())


def merge_heads_view():
    x = np.arange(8.0).reshape(2, 1, 4)
    out = h.merge_heads(x)
    out[...] = -1
    return bool((x == np.arange(8.0).reshape(2, 1, 4)).all())


def dropout_identity():
    x = np.ones(3)
    out = h.training.optimiser.dropout(x, 0.5, training=False)
    out[0] = 7.0
    return x[0] == 1.0


def recorder_keeps():
    def double(x):
        y = x * 2
        return y

    x = np.ones(2)
    with h.Recorder(double) as record:
        double(x)
    x[0] = 5.0
    return record.arrays["double"]["x"][0][0] == 1.0


def greedy_step_appends():
    seen = []

    def step(tokens):
        seen.append(len(tokens))
        tokens.append(0)  # a step_fn that writes into what it was given
        return np.log([0.5, 0.5])

    tokens, _ = h.greedy_search(step, [0], 3)
    return tokens == [0, 0, 0, 0]


def adam_same_moment():
    p, m = np.zeros(2), np.zeros(2)
    h.training.optimiser.adam_step([p], [np.ones(2)], [(m, m)], 1, 0.1)
    return p


def adam_int_moments():
    p = np.zeros(2)
    h.training.optimiser.adam_step([p], [np.ones(2)], [(np.zeros(2, int), np.zeros(2, int))], 1, 0.1)
    return p


def attention_huge_mask():
    """Scores of -1e308 plus a mask of -1e308: -inf in every entry, a row of NaN."""
    return h.attention(np.array([[1e154]]), np.array([[-1e154], [-1e154]]), np.eye(2), np.full((1, 2), -1e308))


def timed(call, budget):
    def probe():
        start = time.perf_counter()
        try:
            call()
        finally:
            spent = time.perf_counter() - start
            if spent > budget:
                raise TimeoutError(f"{spent:.1f} s, more than {budget} s")

    return probe


PROBES = [
    # shared state: a write is refused, or changes nothing the package computes
    ("MODEL: write a bias", unchanged_after(bias_write, model_accuracy), right(bool)),
    ("MODEL: replace wte", unchanged_after(key_write, model_accuracy), right(bool)),
    ("MODEL: append a block", unchanged_after(lambda: h.MODEL["blocks"].append({}), lambda: len(h.MODEL["blocks"])), right(bool)),
    ("GPT2_SMALL: n_head = 1", unchanged_after(gpt2_small_write, lambda: h.compile_pattern("aaab").n_head), right(bool)),
    ("ACTIVATION_BACKWARD: add np.tanh", unchanged_after(lambda: h.blocks.activations.ACTIVATION_BACKWARD.__setitem__(np.tanh, h.relu_backward), lambda: len(h.blocks.activations.ACTIVATION_BACKWARD)), right(bool)),
    ("tracing.STEPS: delete 'embedding'", unchanged_after(lambda: h.model.tracing.STEPS.pop("embedding"), lambda: sorted(h.model.tracing.STEPS)), right(bool)),
    ("seq2seq RESIDUALS: add a norm", unchanged_after(lambda: h.seq2seq.RESIDUALS.__setitem__("mid", None), lambda: sorted(h.seq2seq.RESIDUALS)), right(bool)),
    ("MODEL: deepcopy is writeable", lambda: copy.deepcopy(h.MODEL)["wte"].flags.writeable, right(bool)),
    ("split_heads: a view of x", split_heads_view, right(bool)),
    ("merge_heads: a view of x", merge_heads_view, right(bool)),
    ("dropout at inference: x itself", dropout_identity, right(bool)),
    ("Recorder keeps the caller's array", recorder_keeps, right(bool)),
    ("greedy_search: step_fn appends to its tokens", greedy_step_appends, right(bool)),
    # silent wrong results
    ("verify_induction: float64 twice", lambda: h.verify_induction(h.induction_head("ab", n_ctx=4), (np.float64, np.float64)), clear(r"dtypes")),
    ("adam_step: m and v one array", adam_same_moment, clear(r"moments\[0\]")),
    ("adam_step: integer moments", adam_int_moments, clear(r"moments\[0\]")),
    ("attention: a huge finite mask", attention_huge_mask, clear(r"mask")),
    ("ffn: activation giving NaN", lambda: h.ffn(X, EYE, EYE, activation=lambda x: x * NAN), clear(r"activation")),
    ("ffn: activation changing the shape", lambda: h.ffn(X, EYE, EYE, activation=lambda x: x[..., :1]), clear(r"activation")),
    ("softmax_backward: negative probs", lambda: h.softmax_backward(np.ones(2), np.array([-0.5, 1.5])), clear(r"probs")),
    ("dropout: training='no'", lambda: h.training.optimiser.dropout(np.ones(4), 0.5, np.random.default_rng(0), training="no"), clear(r"training")),
    ("beam_search: length_penalty 1e6", lambda: h.beam_search(lambda t: np.log([0.5, 0.5]), [0], 2, 3, length_penalty=1e6), clear(r"length_penalty")),
    ("gpt2: batches of 2 and 3", lambda: h.attention(np.ones((2, 3, 2)), np.ones((3, 3, 2)), np.ones((3, 3, 2))), clear(r"batch")),
    # messages that mislead
    ("cross_entropy: a target of probability 0", lambda: h.cross_entropy([[0.0, -INF]], [1]), clear(r"^(?!.*wider dtype).*-inf")),
    ("tokenize: chars a set", lambda: h.tokenize("ab", {"a", "b"}), clear(r"chars .*got a set")),
    ("Recorder(np.exp)", lambda: h.Recorder(np.exp), clear(r"functions")),
    # unbounded work: refused or answered at once
    ("context_needed of 20,000 characters", timed(lambda: h.context_needed("a" * 19999 + "b"), 2), clear(r"pattern")),
    ("phases of 10,000 characters, k = 100,000", timed(lambda: h.phases("a" * 9999 + "b", 100000), 2), clear(r"k|pattern")),
    ("induction_head of 20,000 characters", timed(lambda: h.induction_head("".join(map(chr, range(0x4E00, 0x4E00 + 20000)))), 1), clear(r"alphabet")),
    ("induction_head: 20,000 characters, one repeated", timed(lambda: h.induction_head("a" * 20000), 1), clear(r"alphabet")),
    ("context_needed of 'ab' * 50,000 (period 2)", timed(lambda: h.context_needed("ab" * 50000), 2), right(lambda r: True)),
    # the readers agree
    ("greedy: logits of NaN", lambda: h.greedy([NAN, 0.0]), clear(r"^logits must not contain NaN or \+inf")),
    ("greedy: 2-d logits", lambda: h.greedy([[0.0, 1.0]]), clear(r"^logits must have shape")),
    ("tokenize: chars with a space", lambda: h.tokenize("a ", ("a", " ")), clear(r"' ' .*cannot be a token")),
    ("compile_pattern and induction_head refuse one character alike", lambda: h.induction_head("ab\u200b"), clear(r"'\\u200b' at position 2")),
    ("format_number digits = 7 above 1e6", lambda: h.format_number(1234567.0, 7), right(lambda r: r == "1234567")),
]

CLI = [
    # (label, shell command, check(returncode, stdout, stderr, seconds) -> class)
    ("complete -n 1000000 | head -c1", "{py} -m handtf complete a -n 1000000 | head -c1",
     lambda code, out, err, spent: "right" if out == "b" and spent < 5 else "crash"),
    ("train --task copy --heads 4", "{py} -m handtf train --task copy --heads 4 --steps 1",
     lambda code, out, err, spent: "clear" if code == 2 and "--heads" in err else "silent"),
    ("train abab --task copy", "{py} -m handtf train abab --task copy --steps 1",
     lambda code, out, err, spent: "clear" if code == 2 and "pattern" in err else "silent"),
    ("compile aaab --max-len 2", "{py} -m handtf compile aaab --max-len 2",
     lambda code, out, err, spent: "clear" if code == 2 and not out else "obscure" if code == 2 else "silent"),
    ("compile abc: 'character decides'", "{py} -m handtf compile abc",
     lambda code, out, err, spent: "right" if "character decides" in out else "obscure"),
    ("induction --alphabet of 40,000 characters", "{py} -m handtf induction --alphabet \"$({py} -c 'print(\"\".join(map(chr, range(0x4E00, 0x4E00 + 20000))) * 2)')\"",
     lambda code, out, err, spent: "clear" if code == 2 and spent < 3 and err.count("\n") <= 1 else "crash"),
    ("train --steps 2000000", "{py} -m handtf train --steps 2000000",
     lambda code, out, err, spent: "clear" if code == 2 and "1,000,000" in err else "obscure"),
]


JS = [
    # (label, node body, check(result) -> class); H is the port, I the induction widget, P the playground
    ("formatNumber = format_number, digits 0-20, 3,000 random values", "FORMAT",
     lambda got: "right" if got == "same" else "silent"),
    ("pyRepr of U+00A0", "return I.pyRepr('a\\u00a0');", lambda got: "right" if got == repr("a\u00a0") else "silent"),
    ("pyRepr of U+200B", "return I.pyRepr('a\\u200b');", lambda got: "right" if got == repr("a\u200b") else "silent"),
    ("pyRepr of U+202E", "return I.pyRepr('a\\u202e');", lambda got: "right" if got == repr("a\u202e") else "silent"),
    ("pyRepr of U+2066 (a bidi isolate)", "return I.pyRepr('\\u2066');", lambda got: "right" if got == repr("\u2066") else "silent"),
    ("pyRepr of U+3000 (a wide space)", "return I.pyRepr('\\u3000');", lambda got: "right" if got == repr("\u3000") else "silent"),
    ("induction widget: typed U+202E", "return I.problemOf('ab\\u202e');",
     lambda got: "clear" if "\u202e" not in got else "obscure"),
    ("induction widget: too long and a bad character", "return I.problemOf('abcabcabx');",
     lambda got: "clear" if got.startswith("At most 8") else "obscure"),
    ("link: two edit= keys", "return [...P.stateFromQuery('?edit=c_proj.b.5:0&edit=c_proj.b.6:1', T).state.edits.keys()];",
     lambda got: "right" if got == ["c_proj.b.5", "c_proj.b.6"] else "silent"),
    ("link: ?Lg=2", "return P.stateFromQuery('?Lg=2', T).problems;", lambda got: "clear" if got else "silent"),
    ("link: lg= twice", "return P.stateFromQuery('?lg=2&lg=3', T).problems;", lambda got: "clear" if got else "silent"),
    ("link: 10,000 bad edits", "return P.stateFromQuery('?edit=' + Array.from({length: 10000}, (_, i) => `x${i}:1`).join(','), T).problems.join(' ').length;",
     lambda got: "clear" if got < 1000 else "obscure"),
    ("formatNumber(1234567, 7)", "return H.formatNumber(1234567, 7);", lambda got: "right" if got == "1234567" else "silent"),
    ("formatNumber(1, 50) (Python takes digits to 100)", "try { return H.formatNumber(1, 50); } catch (e) { return e.message; }",
     lambda got: "right" if got == "1" else "obscure"),
]

T = """{ badLink: (p) => `bad ${p}`, moreLinkProblems: (n) => `${n} more`, lgOverflow: (x) => x, badLg: (x) => x }"""


def run_js():
    """``(label, class, what)`` of every JavaScript probe, run in node (tests/node_port.py)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    from node_port import port_folder, run_node  # noqa: E402

    rng = np.random.default_rng(0)
    values = [float(v) for v in np.concatenate([rng.uniform(-1e8, 1e8, 1500), 10 ** rng.uniform(-3, 12, 1500)])]
    cases = [(v, int(d)) for v, d in zip(values, rng.integers(0, 21, len(values)))]
    want = [h.format_number(v, d) for v, d in cases]
    folder, results = port_folder(), []
    for label, body, judge in JS:
        try:
            if body == "FORMAT":
                got = run_node(folder, "return data.map(([v, d]) => H.formatNumber(v, d));", cases)
                got = "same" if got == want else f"{sum(g != w for g, w in zip(got, want))} of {len(cases)} differ"
            else:
                got = run_node(folder, f"const T = {T};\n{body}")
            results.append((label, judge(got), f"returned {str(got)[:100]}"))
        except Exception as error:  # noqa: BLE001
            results.append((label, "crash", f"{type(error).__name__}: {str(error)[:150]}"))
    return results


class TooSlow(Exception):
    pass


def alarm(signum, frame):
    raise TooSlow(f"no answer in {LIMIT} s")


LIMIT = 20


def run(call, expect):
    """``(class, what happened)``"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(LIMIT)
        try:
            result = call()
        except (ValueError, TypeError) as error:
            message = f"{type(error).__name__}: {error}"
            if expect[0] == "clear" and re.search(expect[1], str(error)):
                return "clear", message
            return "obscure", message
        except BaseException as error:  # noqa: BLE001 (anything else is what the probe looks for)
            return "crash", f"{type(error).__name__}: {str(error)[:150]}"
        finally:
            signal.alarm(0)
    if expect[0] == "clear":
        return "silent", f"returned {str(result)[:80]}"
    try:
        ok = bool(expect[1](result))
    except Exception as error:  # noqa: BLE001
        ok, result = False, f"{result!r:.60} ({type(error).__name__} when checking)"
    if caught and ok:
        return "obscure", f"warning: {caught[0].message}"
    return ("right" if ok else "silent"), f"returned {str(result)[:80]}"


def run_cli(command, judge):
    """Run ``command``; ``judge`` sees the CPU seconds its processes took (not the wall clock of a busy machine)."""
    shell = command.format(py=sys.executable)
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, errors="replace", timeout=60)
    except subprocess.TimeoutExpired:
        return "crash", "no answer in 60 s"
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime
    return judge(done.returncode, done.stdout, done.stderr, spent), f"exit {done.returncode} in {spent:.1f} CPU s, stderr {done.stderr.strip()[:120]!r}"


def main(verbose=False):
    results = []
    for label, call, expect in PROBES:
        results.append((label, *run(call, expect)))
    for label, command, judge in CLI:
        results.append((label, *run_cli(command, judge)))
    results += run_js()
    counts = Counter(kind for _, kind, _ in results)
    print(f"{len(results)} probes: " + ", ".join(f"{counts[k]} {k}" for k in ("right", "clear", "obscure", "silent", "crash")))
    if verbose:
        for label, kind, what in results:
            if kind not in ("right", "clear"):
                print(f"  {kind.upper():8} {label}: {what}")
    return results


if __name__ == "__main__":
    main(verbose="-v" in sys.argv)
