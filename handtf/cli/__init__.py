"""The command line, ``python -m handtf`` (``main``): one module per group of commands."""
