"""AdderBoard entry: handtf's adder layout trained from random weights (github.com/anadim/AdderBoard).

Run AdderBoard's own check on it:  python verify.py trained.py  (needs numpy and handtf).

The hand-set adder's one-layer GPT-2 (two heads, a GELU feed-forward network
of 38 units, 16 residual columns, no layer norm, tied unembedding), every
weight drawn at random and trained with handtf's backprop and Adam
(``handtf.training.adder.train_adder``; the weights ship as ``handtf.trained_adder()``,
described on the handtf site's page "A GPT-2 that adds, by hand"). Numbers are written least significant digit
first, padded to 10 digits: ``a + b`` is read as ``"a0..a9+b0..b9="`` and the
model writes the 11 digits of the sum. ``add`` is generic greedy decoding:
``handtf.gpt`` (GPT-2's forward pass) once per token, the argmax appended.
Its positions are learned, so they count. It passes AdderBoard's test (all
10,010 right), but it is not right for every pair: ``handtf.prove_adder``
finds 5760000854 + 6050200146, which it writes as 10810201000.
"""

import numpy as np

import handtf
from handtf.trees import leaves


def build_model():
    model = handtf.trained_adder()
    arrays = leaves(model.weights)
    metadata = {
        "name": "handtf trained GPT-2 adder",
        "author": "handtf",
        "params": sum(a.size for a in arrays),  # GPT-2's dense layout, learned positions included
        "architecture": "1L GPT-2, d=16, 2h (hd=8), ff=38 GELU, no layer norm, tied embed, learned positions",
        "tricks": ["LSB-first digits", "numbers of mixed lengths (1 to 10 digits) in training",
                   "learning-rate cool-down", "Adam, 24,000 steps of 64 additions"],
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
