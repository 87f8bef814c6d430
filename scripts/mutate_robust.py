"""A mutation run over what issue 42 changed: does a test fail when the code is made subtly wrong?

Each mutant replaces one piece of text in one file of the port or the package;
the run applies it, runs the tests named for it (single process), and puts the
file back. A mutant is *caught* when a test fails. The first three are the
mutants the issue found surviving; the rest are new.

    python scripts/mutate_robust.py          # every mutant
    python scripts/mutate_robust.py 0 4      # some of them, by number
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JS = "docs/assets/javascripts/"
PARITY = ["tests/test_port_parity.py"]
STATE = ["tests/test_shared_state.py", "tests/test_bad_inputs.py"]
ADDER = ["tests/test_adder.py", "tests/test_bad_inputs.py", "-m", "not slow", "-k", "adder or verify or dtype or number"]
CLI = ["tests/test_cli.py", "tests/test_adder.py", "tests/test_cli_train.py", "-k", "command_line or bad"]
WIDGET = ["tests/test_adder_port.py", "-k", "bad_numbers or bounds or widget"]

MUTANTS = [
    # the three that survived before issue 42
    ("pyRepr: always single quotes", JS + "induction.js",
     """const quote = text.includes("'") && !text.includes('"') ? '"' : "'";""", """const quote = "'";""", PARITY),
    ("induction widget: characters before the length", JS + "induction.js",
     """  if (chars.length > model.n_ctx) return t.tooLong(model.n_ctx, chars.length);
  const position = chars.findIndex((c) => !model.chars.includes(c));
  if (position >= 0) return t.badChar(shownChar(chars[position]), position, model.chars);""",
     """  const position = chars.findIndex((c) => !model.chars.includes(c));
  if (position >= 0) return t.badChar(shownChar(chars[position]), position, model.chars);
  if (chars.length > model.n_ctx) return t.tooLong(model.n_ctx, chars.length);""", PARITY),
    ("formatNumber: one digit less above 1e6", JS + "handtf.js",
     "const precision = Math.max(digits, 1);", "const precision = Math.max(digits - 1, 1);", PARITY),
    # new mutants: the port
    ("formatNumber: always the exponent above 1e6", JS + "handtf.js", "if (e < precision) {", "if (false) {", PARITY),
    ("printable: U+00A0 printed", JS + "handtf.js", r"\p{Zl}\p{Zp}\p{Zs}]/u", r"\p{Zl}\p{Zp}]/u", PARITY),
    ("escapedChar: \\u for every code point", JS + "handtf.js", "return code <= 0xff ? `\\\\x${hex(2)}` :", "return false ? `\\\\x${hex(2)}` :", PARITY),
    ("link: only the first edit=", JS + "playground.js", 'params.getAll("edit").join(",")', '(params.get("edit") || "")', PARITY),
    ("link: unknown keys ignored", JS + "playground.js", "if (!LINK_KEYS.includes(key)) values", "if (false) values", PARITY),
    ("link: no cap on problems", JS + "playground.js", "const shown = problems.slice(0, MAX_LINK_PROBLEMS);", "const shown = problems.slice();", PARITY),
    # new mutants: the package
    ("MODEL writeable", "handtf/model/weights.py", "MODEL = read_only(build_model(LG))", "MODEL = build_model(LG)", STATE),
    ("results may share memory", "handtf/checks.py", "return value.copy() if any(", "return value if any(", STATE),
    ("step_fn gets the search's own list", "handtf/model/decoding.py", "step_fn(list(tokens))", "step_fn(tokens)", STATE),
    ("adam: aliasing allowed", "handtf/training/optimiser.py", "if np.may_share_memory(a, b)), None)", "if False), None)", STATE),
    ("alphabet: size checked after the characters", "handtf/readers.py",
     "    if at_most is not None and len(chars) > at_most:", "    if at_most is not None and len(chars) > at_most and chars.isascii():", STATE),
    ("context_needed: no period limit", "handtf/patterns/compiler.py", "    if period > MAX_PERIOD:", "    if period > 10**9:", STATE),
    ("attention: mask not re-checked", "handtf/blocks/attend.py", "for with_mask in (False, True):", "for with_mask in (False,):", STATE),
    ("Recorder keeps the caller's array", "handtf/model/recording.py", "value.copy() if isinstance(value, np.ndarray) else value", "value", STATE),
    # new mutants written after the tests, without looking at which test would catch them
    ("formatNumber: -0 written as -0", JS + "handtf.js", 'return text === "-0" ? "0" : text;', "return text;", PARITY),
    ("formatNumber: a tie rounded away from zero", JS + "handtf.js", "if (Number(digits[kept - 1]) % 2 !== 0) return rounded;", "return rounded;", PARITY),
    ("printable: the space escaped", JS + "handtf.js", 'return c === " " || !NOT_PRINTABLE.test(c);', "return !NOT_PRINTABLE.test(c);", PARITY),
    ("softmax_backward: any probs", "handtf/blocks/activations.py", "if (probs < 0).any() or (probs > 1).any() or", "if False and", STATE),
    ("dropout: any training flag", "handtf/training/optimiser.py", "if not isinstance(training, (bool, np.bool_)):", "if False:", STATE),
    ("cross_entropy: a -inf target allowed", "handtf/blocks/loss.py", "    if hidden.any():", "    if False:", STATE),
    ("ffn: activation's shape unchecked", "handtf/blocks/layers.py", "        if y.shape != x.shape:", "        if False:", STATE),
    ("verify_induction: a dtype twice", "handtf/readers.py", "    if len(set(names)) != len(names):", "    if False:", STATE),
    ("beam_search: no bound on length_penalty", "handtf/model/decoding.py", "    if length_penalty > most:", "    if False:", STATE),
    ("phases: no bound on the output", "handtf/patterns/compiler.py", "    if n * (k + 1) > MAX_TEXT:", "    if False:", STATE),
    ("tokenize's chars: spaces allowed", "handtf/readers.py", "if not char.isprintable() or char.isspace():", "if not char.isprintable():", STATE),
    ("forward: batches not compared", "handtf/seq2seq/model.py", '    batch_of("tgt", checked_args["tgt"], "src", checked_args["src"].shape, 1)\n', "", STATE),
    # issue 50: the adder, its checks, its command line, trees, readers and the adder widget
    ("check_decimal: -1 read as a number", "handtf/readers.py", "    if value < 0:\n        raise ValueError(f\"{name} is negative", "    if value < -1:\n        raise ValueError(f\"{name} is negative", ADDER),
    ("check_decimal: n digits refused (str)", "handtf/readers.py", "        if count > most:", "        if count >= most:", ADDER),
    ("check_decimal: n digits refused (int)", "handtf/readers.py", "    if decimal_digits(value) > most:", "    if decimal_digits(value) >= most:", ADDER),
    ("check_decimal: leading zeros counted", "handtf/readers.py", 'count = max(len(value.lstrip("0")), 1)', "count = len(value)", ADDER),
    ("check_decimal: any Unicode digit", "handtf/readers.py", 'if char not in "0123456789"), None)', "if not char.isdigit()), None)", ADDER),
    ("check_decimal: no empty check", "handtf/readers.py", "        if not value:\n            raise ValueError(f\"{name} is empty", "        if False:\n            raise ValueError(f\"{name} is empty", ADDER),
    ("decimal_digits: one short", "handtf/readers.py", "    return count + (value >= 10**count)", "    return count", ADDER),
    ("check_seed: -1 allowed", "handtf/readers.py", "    if check_int_range(name, value) < 0:", "    if check_int_range(name, value) < -1:", STATE),
    ("check_int_range: the low bound refused", "handtf/readers.py", "    if low is not None and value < low:", "    if low is not None and value <= low:", STATE),
    ("verify_pairs: 19 digits allowed", "handtf/patterns/adderboard.py", "    if model.n_digits > INT64_DIGITS:", "    if model.n_digits > INT64_DIGITS + 1:", ADDER),
    ("verify_pairs: 18 digits refused", "handtf/patterns/adderboard.py", "    if model.n_digits > INT64_DIGITS:", "    if model.n_digits >= INT64_DIGITS:", ADDER),
    ("verify_adder: the seed not read", "handtf/patterns/adderboard.py", '"seed": check_seed("seed", seed),\n            "dtypes"', '"seed": seed,\n            "dtypes"', ADDER),
    ("verify_pairs: a tie counted right", "handtf/patterns/adderboard.py", "right = (margin > 0).all(axis=1)", "right = (margin >= 0).all(axis=1)", ADDER),
    ("edge_cases: the last one off by one", "handtf/patterns/adderboard.py", "(top, top), (1, top)]", "(top, top), (1, top - 1)]", ADDER),
    ("train_adder: on_step unchecked", "handtf/training/adder.py", '"on_step": None if on_step is None else check_callable("on_step", on_step)}', '"on_step": on_step}', ADDER),
    ("cli adder: always exit 0", "handtf/cli/adder.py", "return 0 if result.passed else 1", "return 0", ADDER),
    ("cli whole_number: the sign dropped", "handtf/cli/__init__.py", 'sign = -1 if text[:1] == "-" and text[1:2] != "-" else 1', "sign = 1", CLI),
    ("cli whole_number: int() again", "handtf/cli/__init__.py", '        return sign * check_decimal(', '        return int(text) if text.strip() else sign * check_decimal(', CLI),
    ("trees: arrays own their memory", "handtf/trees.py", "    return np.frombuffer(array.tobytes(), dtype=array.dtype).reshape(array.shape)", "    array = array.copy()\n    array.setflags(write=False)\n    return array", STATE),
    ("trees: a read-only dict reads its storage", "handtf/trees.py", "    def __getitem__(self, key):\n        return self._items[key]", "    def __getitem__(self, key):\n        return dict.__getitem__(self, key)", STATE),
    ("trees: a read-only list reads its storage", "handtf/trees.py", "return list(self._items[index]) if isinstance(index, slice) else self._items[index]", "return list.__getitem__(self, index)", STATE),
    ("trees: keys unsorted", "handtf/trees.py", "for key in sorted(tree, key=str) for item", "for key in tree for item", STATE),
    ("trees: tree_map drops tuples", "handtf/trees.py", "    if isinstance(tree, (list, tuple)):\n        return [tree_map(", "    if isinstance(tree, list):\n        return [tree_map(", STATE),
    # the adder widget (browser tests: a built site)
    ("adder.js: no empty check", JS + "adder.js", 'if (value === "") throw', 'if (false) throw', WIDGET),
    ("adder.js: n digits refused", JS + "adder.js", "if (digits.length > n) throw", "if (digits.length >= n) throw", WIDGET),
    ("adder.js: a quote in double quotes too", JS + "adder.js", "return c === \"'\" ? `\"'\"` : `'${body}'`;", "return `'${body}'`;", WIDGET),
    ("adder.js: positions in UTF-16 units", JS + "adder.js", "const chars = [...value];", "const chars = value.split(\"\");", WIDGET),
    ("adder.js: the handler throws on a bad number", JS + "adder.js", "    if (problem) return;\n    [a, b]", "    if (problem) throw new Error(problem);\n    [a, b]", WIDGET),
]


def run(mutant):
    label, name, old, new, tests = mutant
    path = ROOT / name
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        return "not applied", f"the text to replace occurs {text.count(old)} times"
    path.write_text(text.replace(old, new), encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-q", "-x", "-p", "no:cacheprovider", *tests],
                              cwd=ROOT, capture_output=True, text=True, timeout=1200)
    finally:
        path.write_text(text, encoding="utf-8")
    if done.returncode == 5:
        return "not run", "the tests named for it select none"
    failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    lines = done.stdout.strip().splitlines() or ["(no output)"]
    return ("caught", (failed or lines[-1:])[0][:140]) if done.returncode else ("survived", "every test passed")


def main(chosen):
    results = []
    for i in chosen:  # each said as it is done: a run of every mutant takes a while
        results.append((i, MUTANTS[i][0], *run(MUTANTS[i])))
        print(f"{i:2} {results[-1][2]:11} {results[-1][1]}: {results[-1][3]}", flush=True)
    caught = sum(kind == "caught" for *_, kind, _ in results)
    print(f"{caught} of {len(results)} mutants caught")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or range(len(MUTANTS)))
