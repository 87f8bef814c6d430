"""adderboard/: the two AdderBoard entries, run through build_model() and add() only, as its verify.py runs them."""

import importlib.util
import random
from pathlib import Path

import pytest

ENTRIES = Path(__file__).parents[1] / "adderboard"
# AdderBoard's verify.py (github.com/anadim/AdderBoard), its fixed edge cases, word for word
EDGE_CASES = [(0, 0), (0, 1), (9_999_999_999, 0), (9_999_999_999, 1), (9_999_999_999, 9_999_999_999),
              (5_000_000_000, 5_000_000_000), (1_111_111_111, 8_888_888_889), (1_234_567_890, 9_876_543_210),
              (9_999_999_999, 9_999_999_999), (1, 9_999_999_999)]


def load(name):
    """The entry as verify.py loads it: by path, a module of its own."""
    spec = importlib.util.spec_from_file_location("submission", ENTRIES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def protocol(module, count, seed=2025):
    """verify.py's run_test: the edge cases, then ``count`` pairs from random.Random(seed); the wrong ones."""
    model, metadata = module.build_model()
    rng = random.Random(seed)
    cases = EDGE_CASES + [(rng.randint(0, 9_999_999_999), rng.randint(0, 9_999_999_999)) for _ in range(count)]
    return metadata, [(a, b) for a, b in cases if module.add(model, a, b) != a + b]


# the dense layout's count (tests/test_claims-style, by hand): wte 12x16, c_attn 16x48 + 48, c_proj 16x16 + 16,
# c_fc 16x38 + 38, c_proj 38x16 + 16; wpe 32x16 = 512 is a fixed circle in the hand-set model, learned in the trained
DENSE = 12 * 16 + (16 * 48 + 48) + (16 * 16 + 16) + (16 * 38 + 38) + (38 * 16 + 16)


@pytest.mark.parametrize("name, params", [("handset.py", DENSE), ("trained.py", DENSE + 32 * 16)])
def test_each_entry_passes_the_edge_cases_with_adderboards_metadata(name, params):
    metadata, wrong = protocol(load(name), count=20)
    assert wrong == []
    assert set(metadata) == {"name", "author", "params", "architecture", "tricks"}
    assert metadata["params"] == params and isinstance(metadata["tricks"], list)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["handset.py", "trained.py"])
def test_each_entry_passes_adderboards_protocol(name):
    """All of verify.py's test: 10 edge cases and 10,000 pairs of seed 2025 (about 45 CPU-s an entry)."""
    _, wrong = protocol(load(name), count=10_000)
    assert wrong == []


def test_the_entries_need_only_numpy_and_handtf():
    for path in ENTRIES.glob("*.py"):
        imports = {line.split()[1].split(".")[0] for line in path.read_text().splitlines()
                   if line.startswith(("import ", "from "))}
        assert imports <= {"numpy", "handtf"}, (path.name, imports)
