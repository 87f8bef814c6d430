"""The building blocks of a Transformer, one module per idea ("Going deeper" on the site).

- ``activations``: softmax, ReLU, GELU and their backward functions;
- ``layers``: ``linear``, ``layer_norm``, the feed-forward network ``ffn``;
- ``attend``: the package's one ``attention`` and multi-head attention built on it;
- ``masks``: causal and padding masks;
- ``positions``: sinusoidal positional encoding and RoPE;
- ``loss``: cross-entropy and label smoothing.

Each forward function has its backward function right below it. Every name is
importable from ``handtf``.
"""
