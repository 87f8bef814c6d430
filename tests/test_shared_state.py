"""No shared state to corrupt, no silent wrong answer, no input that grows without bound (issue 42).

- Every model and table a module of handtf holds is read-only: a test below
  writes to each and must be refused, and a refused write changes no answer.
- No function hands back a view of its arguments or keeps the caller's arrays.
- The cases the issue found give the right answer or a clear error (more rows
  in ``tests/bad_inputs.py``), and the functions whose cost grows faster than
  their input refuse a size above their documented limit before any work.
"""

import copy
import importlib
import os
import pkgutil
import subprocess
import sys
import time
from types import MappingProxyType

import numpy as np
import pytest

import handtf
from handtf.trees import ReadOnlyDict, ReadOnlyList, leaves, paths, read_only, tree_map


def modules():
    found = [handtf]
    for info in pkgutil.walk_packages(handtf.__path__, "handtf."):
        if info.name != "handtf.__main__":
            found.append(importlib.import_module(info.name))
    return found


def module_state():
    """``(module.NAME, value)`` for every module-level container of handtf (not functions, classes or modules)."""
    seen, state = set(), []
    for module in modules():
        for name, value in vars(module).items():
            if name.startswith("__") or id(value) in seen:
                continue
            if isinstance(value, (np.ndarray, dict, list, set, bytearray, MappingProxyType)):
                seen.add(id(value))
                state.append((f"{module.__name__}.{name}", value))
    return state


STATE = module_state()


def test_the_package_holds_its_models_and_tables():
    names = {name for name, _ in STATE}
    for wanted in ("handtf.MODEL", "handtf.GPT2_SMALL", "handtf.blocks.activations.ACTIVATION_BACKWARD", "handtf.model.tracing.STEPS"):
        assert wanted in names  # each object once, under the first name that holds it


@pytest.mark.parametrize("name, value", STATE, ids=[name for name, _ in STATE])
def test_every_module_level_model_and_table_refuses_a_write(name, value):
    for path, leaf in paths(value) if isinstance(value, (dict, list)) else [("", value)]:
        if isinstance(leaf, np.ndarray):
            with pytest.raises(ValueError, match="read-only"):
                leaf.flat[0] = 1
    for node in nodes(value):
        if isinstance(node, (dict, MappingProxyType)):
            with pytest.raises(TypeError):
                node["new key"] = 1
            if node:
                with pytest.raises(TypeError):
                    node[next(iter(node))] = 1
                with pytest.raises((TypeError, AttributeError)):
                    node.pop(next(iter(node)))
        elif isinstance(node, list):
            with pytest.raises(TypeError):
                node.append(1)
            if node:
                with pytest.raises(TypeError):
                    node[0] = 1
        else:
            assert not isinstance(node, (set, bytearray)), f"{name} is a mutable {type(node).__name__}"


def nodes(tree):
    """Every dict and list of a tree, the tree itself first."""
    if isinstance(tree, (dict, MappingProxyType)):
        return [tree] + [node for value in tree.values() for node in nodes(value)]
    if isinstance(tree, (list, tuple)):
        return [tree] + [node for value in tree for node in nodes(value)]
    return [tree] if isinstance(tree, (set, bytearray)) else []


def test_a_refused_write_changes_no_answer():
    before = handtf.evaluate().correct, handtf.verify(30).correct, handtf.compile_pattern("aaab").n_head
    for write in (
        lambda: handtf.MODEL["blocks"][0]["attn"]["c_proj"]["b"].__setitem__(5, 0.0),
        lambda: handtf.MODEL.__setitem__("wte", np.zeros((2, 8))),
        lambda: handtf.MODEL["blocks"].append({}),
        lambda: handtf.GPT2_SMALL.__setitem__("n_head", 1),  # a mappingproxy has no __setitem__ at all
    ):
        with pytest.raises((TypeError, ValueError, AttributeError)):
            write()
    assert (handtf.evaluate().correct, handtf.verify(30).correct, handtf.compile_pattern("aaab").n_head) == before == (27, 87, 3)


def test_writes_that_get_past_the_refusals_change_no_answer():
    """Issue 50: ``setflags(write=True)`` cannot turn a shared array writeable again, and what
    ``dict.__setitem__`` / ``list.__setitem__`` write into a read-only tree is never read."""
    for name, value in STATE:
        for _, leaf in paths(value) if isinstance(value, (dict, list)) else [("", value)]:
            if isinstance(leaf, np.ndarray):
                with pytest.raises(ValueError, match="WRITEABLE"):
                    leaf.setflags(write=True)
    tree = read_only({"w": np.ones(2), "blocks": [{"b": np.zeros(1)}]})
    dict.__setitem__(tree, "w", np.zeros(2))
    dict.__setitem__(tree, "new", 1)
    list.__setitem__(tree["blocks"], 0, {})
    assert tree["w"].tolist() == [1.0, 1.0] and "new" not in tree and sorted(tree) == ["blocks", "w"]
    assert dict(tree)["w"].tolist() == [1.0, 1.0] and (lambda **k: sorted(k))(**tree) == ["blocks", "w"]
    assert tree["blocks"][0]["b"].tolist() == [0.0] and [len(b) for b in tree["blocks"]] == [1]
    assert copy.deepcopy(tree)["w"].tolist() == [1.0, 1.0] and tree == {"w": tree["w"], "blocks": tree["blocks"]}
    before = handtf.complete("a"), handtf.verify(12).min_margin
    model = handtf.MODEL
    wte = model["wte"]
    try:
        dict.__setitem__(model, "wte", np.zeros((2, 8)))
        list.__setitem__(model["blocks"], 0, {"attn": {}})
        assert (handtf.complete("a"), handtf.verify(12).min_margin) == before == ("abaabaabaab", 1023.0)
        assert model["wte"] is wte and handtf.gpt([0, 1], **model).shape == (2, 2)
    finally:  # the storage nobody reads, put back as it was
        dict.__setitem__(model, "wte", wte)
        list.__setitem__(model["blocks"], 0, model["blocks"][0])


def test_a_copy_of_the_model_is_plain_and_writeable():
    model = copy.deepcopy(handtf.MODEL)
    assert type(model) is dict and type(model["blocks"]) is list and type(model["blocks"][0]["attn"]) is dict
    model["blocks"][0]["attn"]["c_proj"]["b"][5] = 0.0  # the projection page's exercise
    assert model["wte"].flags.writeable and not handtf.MODEL["wte"].flags.writeable
    assert type(dict(handtf.MODEL)) is dict and type(handtf.MODEL | {}) is dict


def test_one_walk_of_a_weight_tree():
    tree = {"wte": np.zeros((2, 3)), "blocks": [{"b": np.ones(2), "a": np.zeros(1)}]}
    assert [p for p, _ in paths(tree)] == ["['blocks'][0]['a']", "['blocks'][0]['b']", "['wte']"]
    assert [a.shape for a in leaves(tree)] == [(1,), (2,), (2, 3)]
    assert tree_map(lambda a, b: a.size + b.size, tree, tree) == {"wte": 12, "blocks": [{"b": 4, "a": 2}]}
    assert tree_map(lambda a: a.size, {"pair": (np.ones(1), np.ones(2))}) == {"pair": [1, 2]}  # a tuple is walked too
    frozen = read_only(tree)
    assert isinstance(frozen, ReadOnlyDict) and isinstance(frozen["blocks"], ReadOnlyList)
    assert leaves(frozen)[0] is not tree["blocks"][0]["a"]  # a copy: the caller's arrays stay writeable
    assert handtf.training.trainer.leaves is leaves


X = np.arange(8.0).reshape(2, 4)
VIEWS = [  # calls whose plain numpy answer is a view of (or is) an argument
    ("split_heads", lambda x: handtf.split_heads(x, 2), X),
    ("merge_heads", lambda x: handtf.merge_heads(x), X.reshape(2, 1, 4)),
    ("dropout at inference", lambda x: handtf.training.optimiser.dropout(x, 0.5, training=False), X),
    ("dropout of rate 0", lambda x: handtf.training.optimiser.dropout(x, 0.0), X),
    ("apply_temperature", lambda x: handtf.apply_temperature(x, 1.0), X[0]),
    ("attend_heads", lambda x: handtf.attend_heads(x, x, x, 1, np.zeros((2, 2))), X),
]


@pytest.mark.parametrize("label, call, argument", VIEWS, ids=[v[0] for v in VIEWS])
def test_no_function_hands_back_a_view_of_its_arguments(label, call, argument):
    given = argument.copy()
    result = call(given)
    results = result if isinstance(result, tuple) else (result,)
    assert not any(np.shares_memory(r, given) for r in results if isinstance(r, np.ndarray))
    for r in results:
        if isinstance(r, np.ndarray):
            r[...] = -1
    assert np.array_equal(given, argument)


def test_a_recorder_keeps_copies_and_follows_only_python_functions():
    def double(x):
        y = 2 * x
        return y

    x = np.ones(2)
    with handtf.Recorder(double) as record:
        double(x)
    x[0] = 5.0
    assert record.arrays["double"]["x"][0].tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match=r"^functions must be Python functions .*got <ufunc 'exp'>$"):
        handtf.Recorder(np.exp)


def test_a_step_function_gets_a_copy_of_the_tokens():
    def step(tokens):
        tokens.append(0)  # writes into what it was given
        return np.log([0.5, 0.5])

    assert handtf.greedy_search(step, [0], 3) == ([0, 0, 0, 0], 3 * np.log(0.5))
    assert handtf.beam_search(step, [1], 1, 2)[0][0] == [1, 0, 0]


def test_adam_updates_each_array_once():
    p = np.zeros(2)
    with pytest.raises(ValueError, match=r"^moments\[0\] and moments\[0\] must be separate arrays"):
        m = np.zeros(2)
        handtf.training.optimiser.adam_step([p], [np.ones(2)], [(m, m)], 1, 0.1)
    with pytest.raises(ValueError, match=r"^params\[0\] and params\[1\] must be separate arrays"):
        handtf.training.optimiser.adam_step([p, p], [np.ones(2)] * 2, handtf.training.optimiser.adam_moments([p, p]), 1, 0.1)
    with pytest.raises(TypeError, match=r"^moments\[0\] must be float arrays .*got int64 and int64$"):
        handtf.training.optimiser.adam_step([p], [np.ones(2)], [(np.zeros(2, int), np.zeros(2, int))], 1, 0.1)
    assert not p.any()


def test_verify_induction_counts_each_dtype_once():
    with pytest.raises(ValueError, match=r"^dtypes must name each dtype once .*got float64, float64$"):
        handtf.verify_induction(handtf.induction_head("ab", n_ctx=4), (np.float64, np.float64))


def test_the_scores_plus_a_huge_mask_are_refused_not_nan():
    with pytest.raises(ValueError, match=r"^the scores plus the mask overflow float64 \(the mask goes down to -1e\+308\)"):
        handtf.attention(np.array([[1e154]]), np.array([[-1e154], [-1e154]]), np.eye(2), np.full((1, 2), -1e308))
    assert handtf.attention(np.eye(2), np.eye(2), np.eye(2), np.array([[0.0, -1e300], [0.0, 0.0]]))[0].tolist() == [1.0, 0.0]


BOUNDED = [  # each refused at once (in well under a second), however large the argument
    ("context_needed, a period of 20,000", lambda: handtf.context_needed("a" * 19999 + "b"), r"^pattern repeats every 20,000 characters; .*MAX_PERIOD"),
    ("context_needed, 2 million characters", lambda: handtf.context_needed("ab" * 10**6), r"^pattern must have at most 1,000,000 characters \(MAX_TEXT\)"),
    ("phases, 10,000 characters and k = 100,000", lambda: handtf.phases("a" * 9999 + "b", 100000), r"^phases of 10,000 characters with k = 100,000 make 1,000,010,000 characters"),
    ("induction_head, 20,000 characters", lambda: handtf.induction_head("".join(map(chr, range(0x4E00, 0x4E00 + 20000)))), r"^alphabet must have at most 383 characters"),
    ("induction_head, 20,000 of one character", lambda: handtf.induction_head("a" * 20000), r"^alphabet must have at most 383 characters"),
    ("tokenize, 20,000 repeated chars", lambda: handtf.tokenize("a", "a" * 20000), r"^chars has 'a' more than once"),
]


@pytest.mark.parametrize("label, call, message", BOUNDED, ids=[b[0] for b in BOUNDED])
def test_work_that_grows_faster_than_its_input_is_bounded_first(label, call, message):
    start = time.process_time()
    with pytest.raises(ValueError, match=message):
        call()
    assert time.process_time() - start < 0.5


def test_context_needed_of_a_long_text_with_a_short_period_is_answered():
    assert handtf.context_needed("aab" * 300_000) == 2


def cli(*arguments, **kwargs):
    return subprocess.run([sys.executable, "-m", "handtf", *arguments], capture_output=True, text=True, timeout=300, **kwargs)


def test_complete_streams_its_output():
    """`handtf complete -n 1000000 | head -c1`: the first character comes out at once and the pipe's end stops it."""
    start = os.times()
    done = subprocess.run(f"'{sys.executable}' -m handtf complete a -n 1000000 | head -c1", shell=True, capture_output=True, text=True, timeout=60)
    end = os.times()
    assert done.stdout == "b" and not done.stderr
    assert end.children_user + end.children_system - start.children_user - start.children_system < 10  # seconds of CPU, not 150
    assert cli("complete", "ab", "-n", "100").stdout == handtf.complete("ab", 100)[2:] + "\n"


def test_train_refuses_options_that_do_not_apply_to_a_task():
    for arguments in (("--heads", "4"), ("abab",)):
        done = cli("train", "--task", "copy", "--steps", "1", *arguments)
        assert done.returncode == 2 and not done.stdout
        assert done.stderr.startswith("handtf: error: --task trains the encoder-decoder: leave out ")


def test_compile_prints_nothing_when_it_refuses():
    done = cli("compile", "aaab", "--max-len", "2")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "handtf: error: max_len must be at least 3 (the shortest valid context), got 2\n"


def test_one_character_decides():
    assert "k = 1: the last character decides the next" in cli("compile", "abc").stdout
    with pytest.raises(ValueError, match=r"^n_ctx must be 1 to 1024: the last character of \(ab\)\* decides the next"):
        handtf.compile_pattern("ab", n_ctx=0)


def test_the_command_line_takes_the_package_step_limit():
    done = cli("train", "--steps", "2000000")
    assert done.returncode == 2
    assert "steps must be at most 1,000,000 (MAX_STEPS" in done.stderr


# ---- one tree walk (issue 49): handtf.trees' paths and tree_map, which everything else is built on


def walkers(sources):
    """``module.function`` of every function of the package that calls itself: a walk of a nested tree."""
    import ast

    found = set()
    for module, text in sources.items():
        for function in ast.walk(ast.parse(text)):
            if isinstance(function, ast.FunctionDef) and any(
                    isinstance(n, ast.Call) and getattr(n.func, "id", None) == function.name for n in ast.walk(function)):
                found.add(f"{module}.{function.name}")
    return found


def test_at_most_two_functions_walk_a_tree():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "handtf"
    sources = {".".join(p.relative_to(root).with_suffix("").parts): p.read_text(encoding="utf-8") for p in root.rglob("*.py")}
    assert walkers(sources) == {"trees.paths", "trees.tree_map"}
    old_read_only = "def read_only(tree):\n    if isinstance(tree, dict):\n        return {k: read_only(v) for k, v in tree.items()}\n"
    assert walkers({"trees": old_read_only}) == {"trees.read_only"}  # not vacuous: 1.0's read_only was a walk of its own


def test_tree_map_refuses_trees_of_different_layouts():
    import pytest

    from handtf.trees import tree_map

    with pytest.raises(ValueError, match=r"a list of 3 items and one of 2 at the top"):
        tree_map(lambda x, y: x + y, [1, 2, 3], [10, 20])
    with pytest.raises(ValueError, match=r"keys \['a', 'b'\] and a dict with keys \['a'\] at \['w'\]"):
        tree_map(lambda x, y: x, {"w": {"a": 1, "b": 2}}, {"w": {"a": 1}})
    assert tree_map(lambda x, y: x + y, {"w": [1, 2]}, {"w": [10, 20]}) == {"w": [11, 22]}
