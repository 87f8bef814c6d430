"""``python -m handtf``: see :mod:`handtf.cli.main`."""

from .cli.main import main

if __name__ == "__main__":
    main()
