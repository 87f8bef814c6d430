"""The widgets' model data: ``hooks/playground.py`` writes it for any model through the one interface.

Every kind of model (the hand-made one, a compiled pattern, an induction head,
the adder, the trained adder) gives a module whose weights, vocabulary, heads,
context length and column labels are the model's own fields, read back from the
JSON the browser loads. Expected values come from the models' fields, not from
the hook.
"""

import numpy as np
import pytest

import handtf
from port_models import load_hook, parse_module

HOOK = load_hook()
KINDS = {
    "hand-made": lambda: handtf.HAND_MADE,
    "compiled pattern": lambda: handtf.compile_pattern("abcab"),
    "induction head": lambda: handtf.induction_head(),
    "adder": lambda: handtf.adder(3),
    "trained adder": lambda: handtf.trained_adder(),
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_model_kind_becomes_a_widget_module(kind):
    model = KINDS[kind]()
    values = parse_module(HOOK.hand_set_module(kind, model, {}))
    assert values["CHARS"] == list(model.chars)
    assert values["N_HEAD"] == model.n_head and values["N_CTX"] == model.n_ctx
    assert len(values["EMBED_LABELS"]) == model.weights["wte"].shape[1]
    assert np.array_equal(np.array(values["MODEL"]["wte"]), model.weights["wte"])
    assert np.array_equal(np.array(values["MODEL"]["blocks"][0]["attn"]["c_attn"]["w"]),
                          model.weights["blocks"][0]["attn"]["c_attn"]["w"])


def test_the_hand_made_model_names_its_eight_columns_and_a_wider_one_counts_them():
    assert handtf.HAND_MADE.embed_labels == ("P0", "P1", "P2", "P3", "P4", "a", "b", "V")
    wide = {"wte": np.zeros((2, 4)), "wpe": np.zeros((5, 4)),
            "blocks": [{"attn": {"c_attn": {"w": np.zeros((4, 12)), "b": np.zeros(12)},
                                 "c_proj": {"w": np.zeros((4, 4)), "b": np.zeros(4)}}}]}
    assert handtf.model.interface.HandMade(wide).embed_labels == ("x0", "x1", "x2", "x3")
    with pytest.raises(ValueError, match="embed_labels must name the 4 columns"):
        handtf.model.interface.HandMade(wide, embed_labels=("a", "b"))
