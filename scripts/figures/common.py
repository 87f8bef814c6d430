"""What every figure shares: the matplotlib settings, the colours, and the drawing helpers.

A figure module imports from here and registers each figure function with
``@figure("file-name")`` (see ``registry.py``).
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import Normalize, SymLogNorm  # noqa: E402
from matplotlib.patches import PathPatch  # noqa: E402
from matplotlib.path import Path as MplPath  # noqa: E402

import handtf  # noqa: E402
from handtf import format_number  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
FIGURE_DIR = ROOT / "docs" / "assets" / "figures"
CONTEXT = "aabaa"  # the running example of the hand-made model's pages

matplotlib.rcdefaults()  # ignore any matplotlibrc on this machine: the same code must draw the same bytes
plt.rcParams.update(
    {
        "svg.hashsalt": "handtf",  # fixed ids inside the SVG
        "svg.fonttype": "path",  # text as outlines: no font needed to view, same bytes everywhere
        "font.family": "DejaVu Sans",  # ships with matplotlib
        "font.size": 10,
        "axes.unicode_minus": True,
        "figure.facecolor": "white",  # the site shows figures on white in both colour schemes
        "axes.facecolor": "white",
        "savefig.facecolor": "white",
        "path.simplify": True,
    }
)

CMAP = plt.get_cmap("RdBu_r")  # diverging: blue below zero, white at zero, red above
MONO = {"family": "DejaVu Sans Mono"}
KEPT, DROPPED, INK, GREY = "#b2182b", "#bdbdbd", "#222222", "#777777"



# ---------------------------------------------------------------- helpers


def cell_text(value):
    """``format_number`` with a true minus sign and ``1e+10`` written ``1e10``."""
    return format_number(value).replace("-", "\u2212").replace("e+", "e")


def diverging_norm(matrix):
    """A colour scale centred on zero; logarithmic when 1 and 1024 must both show."""
    finite = np.abs(matrix[np.isfinite(matrix)])
    top = float(finite.max()) if finite.size else 1.0
    top = top or 1.0
    nonzero = finite[finite > 0]
    if nonzero.size and top / nonzero.min() > 50:
        return SymLogNorm(linthresh=float(nonzero.min()), linscale=2.0, vmin=-top, vmax=top, base=10)
    return Normalize(vmin=-top, vmax=top)


def text_colour(rgba):
    """Black on light cells, white on dark ones."""
    red, green, blue = rgba[:3]
    return INK if 0.299 * red + 0.587 * green + 0.114 * blue > 0.55 else "white"


def heatmap(ax, matrix, rows, cols, title=None, norm=None, fontsize=9, groups=None):
    """A labelled heatmap with the value printed in every cell.

    ``groups`` is ``[(label, first_col, n_cols), ...]``: a header over each
    group of columns, and a separating line between groups.
    """
    matrix = np.asarray(matrix, dtype=float)
    norm = norm or diverging_norm(matrix)
    n_rows, n_cols = matrix.shape
    edges_x, edges_y = np.arange(n_cols + 1) - 0.5, np.arange(n_rows + 1) - 0.5
    ax.pcolormesh(edges_x, edges_y, np.clip(matrix, norm.vmin, norm.vmax), cmap=CMAP, norm=norm)  # vector cells, no raster
    ax.set_xlim(edges_x[0], edges_x[-1])
    ax.set_ylim(edges_y[-1], edges_y[0])  # row 0 at the top
    for i in range(n_rows):
        for j in range(n_cols):
            colour = text_colour(CMAP(norm(np.clip(matrix[i, j], norm.vmin, norm.vmax))))
            ax.text(j, i, cell_text(matrix[i, j]), ha="center", va="center", fontsize=fontsize, color=colour)
    ax.set_xticks(range(n_cols), [str(c) for c in cols], fontsize=fontsize)
    ax.set_yticks(range(n_rows), [str(r) for r in rows], fontsize=fontsize)
    ax.xaxis.tick_top()
    ax.tick_params(length=0, pad=3)
    ax.set_xticks(np.arange(n_cols + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(n_rows + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    above = fontsize * 2.1 + 2  # points taken by the column labels
    if groups:
        for label, first, width in groups:
            ax.annotate(
                label, (first + (width - 1) / 2, 1.0), xycoords=("data", "axes fraction"), xytext=(0, above),
                textcoords="offset points", ha="center", va="bottom", fontsize=fontsize + 3, weight="bold",
            )
            if first:
                ax.axvline(first - 0.5, color=INK, linewidth=2)
        above += (fontsize + 3) * 1.5
    if title:
        ax.set_title(title, fontsize=fontsize + 3, pad=above + 2)
    return ax


def matrix_figure(matrix, rows, cols, title, cell=0.55, fontsize=9, groups=None, norm=None):
    """One heatmap in a figure whose size follows the matrix shape (in inches)."""
    n_rows, n_cols = np.shape(matrix)
    left, right, top, bottom = 0.75, 0.15, 0.62 + (0.28 if groups else 0), 0.12
    width, height = left + right + n_cols * cell, top + bottom + n_rows * cell
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((left / width, bottom / height, n_cols * cell / width, n_rows * cell / height))
    heatmap(ax, matrix, rows, cols, title, norm=norm, fontsize=fontsize, groups=groups)
    return fig


def shape_of(matrix):
    return "[" + "\u00d7".join(str(n) for n in np.shape(matrix)) + "]"


def the_trace():
    return handtf.trace(CONTEXT)


def seq_labels(context=CONTEXT):
    """Row labels ``0:a``, ``1:a``, ... for the positions of ``context``."""
    return [f"{i}:{char}" for i, char in enumerate(context)]


def trace_figure(name, title, cols, **kwargs):
    matrix = getattr(the_trace(), name)
    return matrix_figure(matrix, seq_labels(), cols, f"{title}  {shape_of(matrix)}", **kwargs)


def bar_values(ax, xs, heights, fontsize=8, offset=0.02):
    """Print each bar's value above (or below) it."""
    span = ax.get_ylim()[1] - ax.get_ylim()[0]
    for x, h in zip(xs, heights):
        y = h + offset * span if h >= 0 else h - offset * span
        ax.text(x, y, cell_text(h), ha="center", va="bottom" if h >= 0 else "top", fontsize=fontsize)


def tidy(ax):
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def colour_field(ax, matrix, norm, levels=32):
    """A heatmap without numbers, for big matrices, as a few vector paths.

    ``pcolormesh`` writes one SVG path per cell (3200 cells: 600 KB) and
    ``imshow`` embeds a raster; instead, each column's runs of cells that
    share one of ``levels`` colours become one rectangle, and all rectangles
    of a colour one path.
    """
    colours = CMAP.resampled(levels)(norm(matrix), bytes=True)[..., :3]  # [n_rows, n_cols, 3]
    rectangles = {}  # colour -> list of (col, first_row, n_rows)
    n_rows, n_cols = matrix.shape
    for j in range(n_cols):
        start = 0
        for i in range(1, n_rows + 1):
            if i == n_rows or tuple(colours[i, j]) != tuple(colours[start, j]):
                rectangles.setdefault(tuple(colours[start, j]), []).append((j, start, i - start))
                start = i
    for colour, cells in sorted(rectangles.items()):
        vertices = [
            corner for j, i, n in cells
            for corner in ((j - 0.5, i - 0.5), (j + 0.5, i - 0.5), (j + 0.5, i + n - 0.5), (j - 0.5, i + n - 0.5), (0, 0))
        ]
        codes = [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY] * len(cells)
        ax.add_patch(PathPatch(MplPath(vertices, codes), facecolor=np.array(colour) / 255, edgecolor="none", linewidth=0))
    ax.set_xlim(-0.5, n_cols - 0.5)
    ax.set_ylim(n_rows - 0.5, -0.5)  # row 0 at the top
