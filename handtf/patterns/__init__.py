"""Models built by hand for other tasks, on the same forward pass ("Any pattern" and "Induction heads").

- ``compiler``: ``compile_pattern`` writes the weights that continue any repeating pattern;
- ``induction``: ``induction_head``, two attention layers that copy what followed the last
  time the current token appeared.

Every name is importable from ``handtf``.
"""
