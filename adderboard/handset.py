"""AdderBoard entry: handtf's hand-set GPT-2 adder (github.com/anadim/AdderBoard).

Run AdderBoard's own check on it:  python verify.py handset.py  (needs numpy and handtf).

A one-layer GPT-2 (two heads, a GELU feed-forward network of 38 units, 16
residual columns, no layer norm, tied unembedding) whose every weight is set
by hand (``handtf.adder``, explained on the handtf site's page "A GPT-2 that
adds, by hand"). Numbers are written least significant digit
first, padded to 10 digits: ``a + b`` is read as ``"a0..a9+b0..b9="`` and the
model writes the 11 digits of the sum. ``add`` is generic greedy decoding:
``handtf.gpt`` (GPT-2's forward pass) once per token, the argmax appended.
``handtf.prove_adder`` proves it adds all 10**20 pairs right (exact arithmetic).
"""

import numpy as np

import handtf
from handtf.trees import leaves


def build_model():
    model = handtf.adder(10)
    arrays = leaves(model.weights)
    fixed = model.weights["wpe"].size  # the positions: a fixed circle, not counted (AdderBoard's rule)
    metadata = {
        "name": "handtf hand-set GPT-2 adder",
        "author": "handtf",
        "params": sum(a.size for a in arrays) - fixed,  # GPT-2's dense layout, nothing tied but the unembedding
        "architecture": "1L GPT-2, d=16, 2h (hd=8), ff=38 GELU, no layer norm, tied embed, fixed circle positions",
        "tricks": ["hand-set weights", "LSB-first digits", "positions on a circle of 11 steps",
                   "carry read from the digit just written", "GELU staircase", "proved for all 10^20 pairs"],
    }
    return model, metadata


def add(model, a: int, b: int) -> int:
    n = model.n_digits
    text = "".join(str(a // 10**i % 10) for i in range(n)) + "+" + "".join(str(b // 10**i % 10) for i in range(n)) + "="
    ids = [model.chars.index(c) for c in text]
    for _ in range(n + 1):  # greedy decoding: the forward pass, then the most likely token, appended
        logits = handtf.gpt(np.array(ids), **model.weights, n_head=model.n_head)
        ids.append(int(logits[-1].argmax()))
    written = "".join(model.chars[t] for t in ids[len(text):])
    return int(written[::-1])  # least significant digit first, read back
