"""The hand-made model and the GPT-2 forward pass it runs ("The hand-made model" on the site).

Read in the order of the main line: ``tokenizer`` (the task), ``weights`` (every weight,
chosen by hand), ``transformer`` (the forward pass: ``gpt``, ``transformer_block``,
``causal_self_attention``), ``inference`` (``predict``, ``complete``), ``evaluation``
(``evaluate``, ``verify``) and ``tracing`` (``trace``, which keeps the forward pass's arrays
through ``recording``). Every name is importable from ``handtf``.
"""
