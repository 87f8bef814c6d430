"""``python -m handtf``: see :mod:`handtf.cli`."""

from .cli import main

if __name__ == "__main__":
    main()
