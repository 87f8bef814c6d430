"""The layout of issue 11: shown code is the math, checks live at the boundary, one forward pass."""

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import handtf
import handtf.blocks.attend
import handtf.model.transformer
from handtf import MODEL, gpt, trace

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r'--8<-- "(handtf/[\w/]+\.py):(\w+)"')
MODULES = [importlib.import_module(m.name) for m in pkgutil.walk_packages(handtf.__path__, "handtf.")]  # seq2seq/ too


def embedded_sections():
    """Every (file, section) a page in docs/ embeds, found by its --8<-- include."""
    found = set()
    for page in (ROOT / "docs").rglob("*.md"):
        found |= set(INCLUDE.findall(page.read_text(encoding="utf-8")))
    return sorted(found)


def section_text(path, name):
    text = (ROOT / path).read_text(encoding="utf-8")
    match = re.search(rf"# --8<-- \[start:{name}\]\n(.*?)# --8<-- \[end:{name}\]", text, re.S)
    assert match, f"{path} has no section {name}"
    return match.group(1)


def validation_lines(code):
    """The lines of ``code`` that check or raise: a raise, a check_* call, a @checked decorator, an assert."""
    return [line for line in code.splitlines() if re.search(r"\braise\b|\w*check\w*\(|@checked|\bassert\b", line)]


def test_the_pages_embed_sections():
    assert len(embedded_sections()) > 40


@pytest.mark.parametrize("path, name", embedded_sections())
def test_no_embedded_section_contains_a_check_or_a_raise(path, name):
    assert validation_lines(section_text(path, name)) == []


def test_the_section_test_would_catch_a_check_and_a_raise():
    """The rule above is not vacuous: the old gpt and causal_mask bodies fail it."""
    old_gpt = "    check_weights(wte, wpe, blocks)\n    x = wte[inputs] + wpe[: inputs.shape[-1]]\n"
    old_mask = '    _check_positive_int("n_seq", n_seq)\n'
    old_raise = '    if eps < 0:\n        raise ValueError("eps")\n'
    assert all(validation_lines(code) for code in (old_gpt, old_mask, old_raise))


SECTION_MARK = re.compile(r"# --8<-- \[(start|end):([\w-]+)\]")
LISTING_WIDTH = 79  # PEP 8; a code block of a 1280 px window shows 80 characters before it scrolls


def long_section_lines(path, text=None):
    """``file:line`` of every line inside a ``--8<--`` section of ``path`` longer than LISTING_WIDTH."""
    text = path.read_text(encoding="utf-8") if text is None else text
    open_sections, found = [], []
    for number, line in enumerate(text.splitlines(), 1):
        mark = SECTION_MARK.search(line)
        if mark:
            (open_sections.append if mark[1] == "start" else open_sections.remove)(mark[2])
        elif open_sections and len(line) > LISTING_WIDTH:
            found.append(f"{path.relative_to(ROOT)}:{number}: {len(line)} characters in [{open_sections[-1]}]")
    return found


def test_every_line_a_page_can_embed_fits_in_79_columns():
    """A longer line scrolls its code block sideways at a 1280 px window, under the copy button."""
    paths = sorted((ROOT / "handtf").rglob("*.py"))
    assert sum(len(SECTION_MARK.findall(p.read_text(encoding="utf-8"))) for p in paths) > 2 * 80
    problems = [problem for path in paths for problem in long_section_lines(path)]
    assert not problems, "wrap these lines at 79 characters:\n" + "\n".join(problems)


def test_the_width_test_would_catch_a_long_line():
    """The rule above is not vacuous: one long line inside a section fails it, the same line outside does not."""
    long = "    return x  # [..., n_seq, n_embd] -> [..., n_seq, n_embd], the same shape as the input\n"
    inside = "# --8<-- [start:f]\ndef f(x):\n" + long + "# --8<-- [end:f]\n"
    outside = "def f(x):\n" + long
    assert long_section_lines(ROOT / "handtf/f.py", inside) == ["handtf/f.py:3: 89 characters in [f]"]
    assert long_section_lines(ROOT / "handtf/f.py", outside) == []


def public_functions():
    for module in MODULES:
        for name in getattr(module, "__all__", None) or dir(module):
            value = getattr(module, name)
            if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_"):
                yield module, name, value


def test_every_shown_function_is_checked_at_the_boundary():
    """Each function a page embeds carries @checked."""
    shown = {(path, name) for path, name in embedded_sections()}
    for module, name, function in public_functions():
        path = Path(module.__file__).relative_to(ROOT).as_posix()
        if (path, name) in shown and inspect.signature(inspect.unwrap(function)).parameters:
            assert hasattr(function, "check"), f"{module.__name__}.{name} is shown but not @checked"


def arguments_read(module, function):
    """The arguments of a @checked function that its decorator reads: by a reader, as a forward function's, or by check_<name>."""
    relate = getattr(module, f"check_{function.__name__}", None)
    wanted = list(inspect.signature(inspect.unwrap(function)).parameters)
    if relate is not None:  # check_<name> takes every argument, by name
        taken = list(inspect.signature(relate).parameters)
        return set(wanted) if taken[: len(wanted)] == wanted or "kwargs" in taken else set()
    forward = set(inspect.signature(function.forward).parameters) | {"dout"} if function.forward else set()
    return (set(function.readers) | forward) & set(wanted)  # a forward's cache has no backward


def test_every_argument_of_a_checked_function_is_read():
    """Readers, forward= and check_<name> together cover every argument, so none reaches the math unread."""
    checked = [(m, f) for m, _, f in public_functions() if hasattr(f, "check")]
    assert len(checked) > 40
    for module, function in checked:
        wanted = set(inspect.signature(inspect.unwrap(function)).parameters)
        assert arguments_read(module, function) == wanted, f"{function.__name__}: read {arguments_read(module, function)}"


def test_the_reading_rule_would_catch_an_unread_argument():
    """The rule above is not vacuous: a function with a reader for one of its two arguments fails it."""
    from handtf.checks import check_array, checked

    @checked(x=check_array)
    def scale(x, factor):
        return x * factor

    assert arguments_read(handtf.checks, scale) == {"x"}


def test_no_module_imports_a_private_name_from_another():
    for path in (ROOT / "handtf").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from {node.module}"


def test_no_module_is_named_as_a_function_the_package_exports():
    """``handtf.trace`` is the function, never also the module (``import handtf.trace`` would be ambiguous)."""
    for module in MODULES:
        package, _, name = module.__name__.rpartition(".")
        value = getattr(importlib.import_module(package), name)
        assert value is module, f"{package}.{name} is {value!r}, not the module {module.__name__}: rename the module"


def test_the_name_rule_would_catch_a_shadowed_module(monkeypatch):
    """The rule above is not vacuous: a module shadowed by its own function fails it."""
    monkeypatch.setattr(handtf.model, "tracing", handtf.trace)
    with pytest.raises(AssertionError, match="rename the module"):
        test_no_module_is_named_as_a_function_the_package_exports()


def test_no_module_is_over_about_400_lines():
    """450: the code the pages show is wrapped at 79 columns, which made seq2seq.py 441 lines."""
    for path in (ROOT / "handtf").rglob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 450, path.name


def test_there_is_one_attention():
    """GPT-2's attention (every head of it), multi-head attention and the encoder-decoder all call handtf.blocks.attend.attention."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "handtf").rglob("*.py")}
    defining = [name for name, text in sources.items() if re.search(r"^def attention\(", text, re.M)]
    assert defining == ["attend.py"]
    softmax_of_scores = [name for name, text in sources.items() if "k.swapaxes(-1, -2)" in text]
    assert softmax_of_scores == ["attend.py"]
    assert handtf.blocks.attend.attention is handtf.attention
    assert handtf.model.transformer.attend_heads is handtf.blocks.attend.attend_heads  # which calls attention in every head


def test_trace_reports_what_the_forward_pass_computes(monkeypatch):
    """Change the forward pass (here: its softmax) and trace reports the changed matrices."""
    before = trace("aabaa")

    def uniform(x):
        return np.ones_like(x) / x.shape[-1]

    monkeypatch.setattr(handtf.blocks.attend, "softmax", uniform)
    after = trace("aabaa")
    np.testing.assert_array_equal(after.attention_weights, np.full((5, 5), 0.2))  # every key weighted 1/5, even masked
    assert not np.array_equal(before.attention_weights, after.attention_weights)
    np.testing.assert_array_equal(after.attention_output, after.attention_weights @ after.v)
    np.testing.assert_array_equal(after.logits, gpt(np.array([0, 0, 1, 0, 0]), **MODEL))  # the same, changed pass
    np.testing.assert_array_equal(after.scores, before.scores)  # steps before the softmax are unchanged


def test_trace_records_the_causal_mask_the_model_used(monkeypatch):
    monkeypatch.setattr(handtf.model.transformer, "causal_mask", lambda n, dtype, n_past=0: np.zeros((n, n_past + n), dtype))
    t = trace("ab")
    np.testing.assert_array_equal(t.mask, np.zeros((2, 2)))
    np.testing.assert_array_equal(t.masked_scores, t.scaled_scores)


def test_checks_run_once_at_the_boundary_and_again_inside_callbacks():
    """A step_fn handtf calls back is outside code: its own bad call into handtf is refused."""
    from handtf import greedy_search, softmax

    def step(tokens):
        return softmax([0.0, float("nan")])  # a bad call from user code inside greedy_search

    with pytest.raises(ValueError, match="NaN"):
        greedy_search(step, [0], max_len=2)


# Issue 28: numerically right at any finite scale. Each expected value is derived by hand in its comment.


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e200), (np.float32, 1e20), (np.float16, 6e4)])
def test_layer_norm_is_right_where_the_square_overflows(dtype, big):
    # [big, -big]: mean 0, variance big**2, so each entry over its standard deviation is +1 and -1
    x = np.array([[big, -big]], dtype)
    out = handtf.layer_norm(x, np.ones(2, dtype), np.zeros(2, dtype))
    np.testing.assert_allclose(out.astype(np.float64), [[1.0, -1.0]], rtol=1e-3)
    dx, _ = handtf.layer_norm_backward(np.array([[1.0, 0.0]]), [[1e200, -1e200]], np.ones(2), np.zeros(2))
    np.testing.assert_allclose(dx, [[0.0, 0.0]], atol=1e-150)  # dx is of order 1/std = 1e-200


def test_layer_norm_of_three_huge_entries():
    # [m, m, -m]: mean m/3, deviations (2m/3, 2m/3, -4m/3), variance 8m²/9, so (1/√2, 1/√2, -√2)
    out = handtf.layer_norm([[1e308, 1e308, -1e308]], np.ones(3), np.zeros(3))
    np.testing.assert_allclose(out, [[2**-0.5, 2**-0.5, -(2**0.5)]], rtol=1e-12)


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e200), (np.float32, 1e30), (np.float16, 300.0)])
def test_gelu_and_its_slope_are_right_at_large_x(dtype, big):
    # x Φ(x) is x for large positive x and 0 for large negative x; its slope is 1 and 0
    x = np.array([big, -big], dtype)
    np.testing.assert_allclose(handtf.gelu(x).astype(np.float64), [big, 0.0], rtol=1e-3)
    np.testing.assert_allclose(handtf.gelu_backward(np.ones(2, dtype), x).astype(np.float64), [1.0, 0.0], atol=1e-3)


def test_attention_is_right_with_scores_near_1e200():
    # q·k = ±1e200, scaled by 1/√2: the first key takes all the weight
    q, k = np.array([[1e100, 0.0]]), np.array([[1e100, 0.0], [-1e100, 0.0]])
    np.testing.assert_array_equal(handtf.attention_weights(q, k), [[1.0, 0.0]])
    np.testing.assert_array_equal(handtf.attention(q, k, np.array([[1.0], [2.0]])), [[1.0]])


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e308), (np.float32, 3e38), (np.float16, 6e4)])
def test_cross_entropy_of_logits_far_apart(dtype, big):
    logits = np.array([[big, -big]], dtype)
    assert handtf.cross_entropy(logits, [0]) == 0.0  # -log softmax = log(1 + e^(-2 big)) = 0 in any float
    assert handtf.soft_cross_entropy(logits, np.array([[1.0, 0.0]], dtype)) == 0.0  # not 0 * inf = NaN
    np.testing.assert_array_equal(handtf.cross_entropy_backward(logits, np.array([[0.0, 1.0]], dtype)), [[1.0, -1.0]])


def test_soft_cross_entropy_of_half_and_half_is_1e308():
    # log-sum-exp of [1e308, -1e308] is 1e308; minus the mean of the logits (0) it is 1e308, which float64 holds
    assert handtf.soft_cross_entropy([[1e308, -1e308]], [[0.5, 0.5]]) == 1e308


def test_every_forward_entry_point_refuses_logits_that_overflow():
    from tests.bad_inputs import overflowing_float16_model

    model = overflowing_float16_model()
    windows = (np.arange(32)[:, None] >> np.arange(5)) & 1  # every window of a and b
    for call in (lambda: handtf.gpt(windows, **model), lambda: handtf.gpt2(windows, **model, n_head=1),
                 lambda: handtf.loss_and_grads(model, windows, windows)):
        with pytest.raises(ValueError, match="not finite"):
            call()


def test_train_stops_when_the_weights_stop_being_finite():
    with pytest.raises(ValueError, match="not finite"):
        handtf.train("aab", steps=50, factor=1e300)


def test_adam_step_changes_nothing_when_it_fails():
    from handtf.training.optimiser import adam_step

    param, m, v = np.zeros(3), np.zeros(3), np.zeros(3)
    param.setflags(write=False)
    with pytest.raises(ValueError, match=r"params\[0\] must be a writeable array"):
        adam_step([param], [np.ones(3)], [(m, v)], 1, 0.1)
    assert not m.any() and not v.any()


def test_checks_keep_no_state():
    """No cache, no hashing: the checks are functions of their arguments."""
    sources = "".join(path.read_text(encoding="utf-8") for path in (ROOT / "handtf").rglob("*.py"))
    assert "hashlib" not in sources and "FINITE_MODELS" not in sources and "lru_cache" not in sources
