"""The site's figures, one module per part of the site.

    common.py    matplotlib settings, colours, helpers (heatmap, matrix_figure, ...)
    registry.py  @figure("name"), FIGURES, render, check
    part1.py     the hand-made model (task ... whole model)
    pattern.py   any pattern, by hand (compiled models)
    concepts.py  the Transformer piece by piece

To add a figure: write a function returning a matplotlib figure in the
module of its part (or a new module listed in ``PARTS``), decorate it with
``@figure("file-name")`` (colours from ``common.C``, so that it draws
both schemes), run ``python scripts/render_figures.py --only
file-name`` and show ``assets/figures/file-name.svg`` on a page.
"""

import importlib

from .common import FIGURE_DIR
from .registry import FIGURES, SCHEMES, check, files, parse_names, render

PARTS = ("part1", "pattern", "concepts", "training", "induction", "adder")  # imported in this order: FIGURES lists their figures in it

for _part in PARTS:
    importlib.import_module(f"{__name__}.{_part}")

__all__ = ["FIGURE_DIR", "FIGURES", "PARTS", "SCHEMES", "check", "files", "parse_names", "render"]
