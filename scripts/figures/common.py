"""What every figure shares: the matplotlib settings, the colours, and the drawing helpers.

A figure module imports from here and registers each figure function with
``@figure("file-name")`` (see ``registry.py``).
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize, SymLogNorm, to_rgb  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, PathPatch  # noqa: E402
from matplotlib.axis import Axis  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
from matplotlib.path import Path as MplPath  # noqa: E402

import handtf  # noqa: E402
from handtf import format_number  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
FIGURE_DIR = ROOT / "docs" / "assets" / "figures"
CONTEXT = "aabaa"  # the running example of the hand-made model's pages

MIN_FONT_PT = 9  # the smallest text of any figure: 12 CSS px at natural size
MAX_WIDTH_IN = 8.4  # at most 806 CSS px wide: in the 688 px column at 1280 px, 9 pt text stays >= 10 px
PHONE_MAX_WIDTH_IN = 5.3  # a phone variant: at most 509 CSS px, so in the 358 px column at 390 px 9 pt text stays >= 8 px
MIN_CONTRAST = 4.5  # every text against what is behind it (WCAG AA)
EDGE_SLACK_IN = 0.01  # how far a text may reach past the figure's edge: anti-aliasing (a pixel at 100 dpi)

matplotlib.rcdefaults()  # ignore any matplotlibrc on this machine: the same code must draw the same bytes
plt.rcParams.update(
    {
        "svg.hashsalt": "handtf",  # fixed ids inside the SVG
        "svg.fonttype": "path",  # text as outlines: no font needed to view, same bytes everywhere
        "font.family": "DejaVu Sans",  # ships with matplotlib
        "font.size": 10,
        "axes.unicode_minus": True,
        "path.simplify": True,
    }
)

MONO = {"family": "DejaVu Sans Mono"}  # code in figures; use_language adds a CJK fallback for Chinese

# Chinese figures: Latin letters and digits in the same DejaVu fonts as the English
# ones, every other glyph from WenQuanYi Micro Hei (Debian's fonts-wqy-microhei,
# installed by .ci/run). Text is saved as outlines, so a reader needs no font.
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
FONTS = {  # language -> (sans-serif families, monospace families), first font first
    "en": (["DejaVu Sans"], ["DejaVu Sans Mono"]),
    "zh": (["DejaVu Sans", "WenQuanYi Micro Hei"], ["DejaVu Sans Mono", "WenQuanYi Micro Hei Mono"]),
}

from .palette import SCHEMES  # noqa: E402, F401  (the colours, by scheme)
from . import palette  # noqa: E402


class Colours:
    """The colours of the scheme being drawn: ``C.ink``, ``C.red``, ``C.cmap`` ...

    Figure functions read them when they run, so one function draws both
    variants; ``use_scheme`` switches them (and matplotlib's defaults).
    """

    def __init__(self, scheme):
        self.use(scheme)

    def use(self, scheme):
        self.scheme = scheme
        for key, value in SCHEMES[scheme].items():
            setattr(self, key, value)
        self.cmap = LinearSegmentedColormap.from_list(f"handtf-{scheme}", self.diverging)


C = Colours("light")


def use_scheme(scheme):
    """Draw from now on in ``scheme`` ("light" or "dark")."""
    C.use(scheme)
    plt.rcParams.update(
        {
            "figure.facecolor": C.bg,
            "axes.facecolor": C.bg,
            "savefig.facecolor": C.bg,
            "text.color": C.ink,
            "axes.labelcolor": C.ink,
            "axes.edgecolor": C.ink,
            "xtick.color": C.ink,
            "ytick.color": C.ink,
            "legend.labelcolor": C.ink,
        }
    )


use_scheme("light")


def use_language(language):
    """Draw from now on with the fonts of ``language`` ("en" or "zh")."""
    if language == "zh" and "WenQuanYi Micro Hei" not in {font.name for font in font_manager.fontManager.ttflist}:
        if not CJK_FONT.exists():
            raise ValueError(f"the Chinese figures need the font {CJK_FONT}: apt-get install fonts-wqy-microhei")
        font_manager.fontManager.addfont(str(CJK_FONT))  # a .ttc, which matplotlib's own font search skips
    sans, mono = FONTS[language]
    plt.rcParams["font.family"] = sans
    MONO["family"] = mono


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


def luminance(colour):
    """WCAG relative luminance of a matplotlib colour."""
    return palette.luminance(to_rgb(colour))


def contrast(one, other):
    """WCAG contrast ratio of two matplotlib colours, 1 to 21."""
    return palette.contrast(to_rgb(one), to_rgb(other))


def text_colour(background):
    """Black or white, whichever reads better on ``background`` (always at least 4.5:1)."""
    return palette.text_colour(to_rgb(background))


def on(text, background):
    """Note that ``text`` is drawn on ``background`` (default: the figure's), for the contrast check."""
    text.handtf_background = background
    return text


def label(ax, x, y, text, background, **kwargs):
    """``ax.text`` on a coloured patch, in the ink that reads best on it."""
    kwargs.setdefault("color", text_colour(background))
    return on(ax.text(x, y, text, **kwargs), background)


def heatmap(ax, matrix, rows, cols, title=None, norm=None, fontsize=9, groups=None, text=None):
    """A labelled heatmap with the value printed in every cell.

    ``groups`` is ``[(label, first_col, n_cols), ...]``: a header over each
    group of columns, and a separating line between groups. ``text(value)``
    is what a cell shows (default: the number; "" leaves it empty).
    """
    matrix = np.asarray(matrix, dtype=float)
    norm = norm or diverging_norm(matrix)
    text = text or cell_text
    n_rows, n_cols = matrix.shape
    edges_x, edges_y = np.arange(n_cols + 1) - 0.5, np.arange(n_rows + 1) - 0.5
    ax.pcolormesh(edges_x, edges_y, np.clip(matrix, norm.vmin, norm.vmax), cmap=C.cmap, norm=norm)  # vector cells, no raster
    ax.set_xlim(edges_x[0], edges_x[-1])
    ax.set_ylim(edges_y[-1], edges_y[0])  # row 0 at the top
    backgrounds = C.cmap(norm(np.clip(matrix, norm.vmin, norm.vmax)))  # [n_rows, n_cols, RGBA]: each cell's colour
    for (i, j), value in np.ndenumerate(matrix):
        words = text(value)
        if words:  # an empty cell gets no Text at all: it would draw nothing
            label(ax, j, i, words, tuple(backgrounds[i, j].tolist()), ha="center", va="center", fontsize=fontsize)
    # the ticks' style first, so that the ticks made next are made in it (not made, then restyled one by one)
    ax.xaxis.tick_top()
    ax.tick_params(length=0, pad=3)
    ax.grid(which="minor", color=C.grid, linewidth=1)
    ax.tick_params(which="minor", length=0)
    ax.set_xticks(range(n_cols), [str(c) for c in cols], fontsize=fontsize)
    ax.set_yticks(range(n_rows), [str(r) for r in rows], fontsize=fontsize)
    ax.set_xticks(np.arange(n_cols + 1) - 0.5, minor=True)  # the grid between the cells
    ax.set_yticks(np.arange(n_rows + 1) - 0.5, minor=True)
    for spine in ax.spines.values():
        spine.set_visible(False)
    above = fontsize * 2.1 + 2  # points taken by the column labels
    if groups:
        for name, first, width in groups:
            ax.annotate(
                name, (first + (width - 1) / 2, 1.0), xycoords=("data", "axes fraction"), xytext=(0, above),
                textcoords="offset points", ha="center", va="bottom", fontsize=fontsize + 3, weight="bold",
            )
            if first:
                ax.axvline(first - 0.5, color=C.ink, linewidth=2)
        above += (fontsize + 3) * 1.5
    if title:
        ax.set_title(title, fontsize=fontsize + 3, pad=above + 2)
    return ax


def matrix_figure(matrix, rows, cols, title, cell=0.55, fontsize=9, groups=None, norm=None, text=None):
    """One heatmap in a figure whose size follows the matrix shape (in inches)."""
    n_rows, n_cols = np.shape(matrix)
    left, right, top, bottom = 0.75, 0.15, 0.62 + (0.28 if groups else 0), 0.12
    width, height = left + right + n_cols * cell, top + bottom + n_rows * cell
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((left / width, bottom / height, n_cols * cell / width, n_rows * cell / height))
    heatmap(ax, matrix, rows, cols, title, norm=norm, fontsize=fontsize, groups=groups, text=text)
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


def bar_values(ax, xs, heights, fontsize=MIN_FONT_PT, offset=0.02):
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
    colours = C.cmap.resampled(levels)(norm(matrix), bytes=True)[..., :3]  # [n_rows, n_cols, 3]
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


def smallest_text(fig):
    """The size in points of the smallest visible text of a drawn figure."""
    return min(text.get_fontsize() for text in visible_texts(fig))


def visible_texts(fig):
    """The texts a drawing of ``fig`` shows: not empty, not transparent, and neither they nor an artist above them hidden."""
    return [t for t in shown_artists(fig) if isinstance(t, Text) and t.get_text().strip() and t.get_alpha() != 0]


def shown_artists(artist):
    """``artist`` and the artists under it that a drawing shows: a hidden artist draws nothing under it,
    and an axes switched off (``ax.axis("off")``, a diagram) draws neither of its axes, nor their tick labels."""
    if artist.get_visible():
        yield artist
        for child in artist.get_children():
            if not (isinstance(child, Axis) and not child.axes.axison):  # (asking an axis for its ticks makes them)
                yield from shown_artists(child)


def written_texts(fig):
    """The texts a figure's code wrote: titles, notes and labels (not tick labels, which
    matplotlib also keeps, unseen, for ticks outside the axes' range)."""
    texts = [*fig.texts, *(t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title, *ax.texts))]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def cut_off(fig, renderer=None):
    """The texts of a drawn figure that reach past its edge, where the saved picture cuts them, as
    ``renderer`` lays them out (the one that drew the figure; default: the screen's)."""
    renderer = renderer or fig.canvas.get_renderer()
    inside = fig.bbox.padded(EDGE_SLACK_IN * fig.dpi)
    boxes = ((t.get_text(), t.get_window_extent(renderer)) for t in written_texts(fig))  # each text laid out once
    return [text for text, box in boxes if not inside.contains(*box.p0) or not inside.contains(*box.p1)]


def quality_problems(fig, max_width=None, renderer=None):
    """What makes a drawn figure hard to read: wider than ``max_width`` inches (default
    ``MAX_WIDTH_IN``), text too small, too faint on its background, or cut off at its edge
    (as ``renderer`` lays the text out, see ``cut_off``)."""
    problems = [f"text {text!r} is cut off at the figure's edge" for text in cut_off(fig, renderer)]
    max_width = max_width or MAX_WIDTH_IN
    width = fig.get_size_inches()[0]
    if width > max_width + 1e-9:
        problems.append(f"{width:.2f} in wide, more than {max_width} in")
    for text in visible_texts(fig):
        if text.get_fontsize() < MIN_FONT_PT:
            problems.append(f"text {text.get_text()!r} is {text.get_fontsize()} pt, less than {MIN_FONT_PT} pt")
        background = getattr(text, "handtf_background", C.bg)
        ratio = contrast(text.get_color(), background)
        if ratio < MIN_CONTRAST:
            problems.append(f"text {text.get_text()!r} has contrast {ratio:.2f} on {background}, less than {MIN_CONTRAST}")
    return problems


class Diagram:
    """Boxes and arrows on a figure measured in inches: ``(x, y)`` from the bottom left corner."""

    def __init__(self, width, height):
        self.fig = plt.figure(figsize=(width, height))
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set_xlim(0, width)
        self.ax.set_ylim(0, height)
        self.ax.axis("off")
        self.boxes = {}  # key -> (x, y, width, height)

    def box(self, key, x, y, text, sub=None, width=1.9, height=0.52, fill=None, fontsize=10.5, mono=True, edge=None):
        """A rounded box centred on ``(x, y)``: ``text``, and under it ``sub`` in smaller, muted type."""
        fill = fill or C.box
        self.ax.add_patch(FancyBboxPatch(
            (x - width / 2, y - height / 2), width, height, boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=fill, edgecolor=edge or C.ink, linewidth=1.2,
        ))
        font = MONO if mono else {}
        if sub:
            on(self.ax.text(x, y + 0.08, text, ha="center", va="center", fontsize=fontsize, color=C.ink, **font), fill)
            on(self.ax.text(x, y - 0.14, sub, ha="center", va="center", fontsize=MIN_FONT_PT, color=C.muted), fill)
        else:
            on(self.ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, color=C.ink, **font), fill)
        self.boxes[key] = (x, y, width, height)

    def top(self, key, dx=0.0):
        x, y, _, height = self.boxes[key]
        return (x + dx, y + height / 2 + 0.01)

    def bottom(self, key, dx=0.0):
        x, y, _, height = self.boxes[key]
        return (x + dx, y - height / 2 - 0.01)

    def left(self, key, dy=0.0):
        x, y, width, _ = self.boxes[key]
        return (x - width / 2 - 0.01, y + dy)

    def right(self, key, dy=0.0):
        x, y, width, _ = self.boxes[key]
        return (x + width / 2 + 0.01, y + dy)

    def arrow(self, start, end, text=None, side="right", colour=None, fontsize=9.5):
        """An arrow from ``start`` to ``end``, with ``text`` beside its middle."""
        colour = colour or C.ink
        self.ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color=colour, linewidth=1.2))
        if text:
            xm, ym = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
            dx = 0.12 if side == "right" else -0.12
            self.ax.text(xm + dx, ym, text, ha="left" if side == "right" else "right", va="center",
                         fontsize=fontsize, color=C.blue, **MONO)

    def path(self, points, colour=None, linewidth=1.4):
        """Straight segments through ``points``, with an arrow head at the last one."""
        colour = colour or C.ink
        xs, ys = zip(*points[:-1])
        self.ax.plot(xs, ys, color=colour, linewidth=linewidth)
        self.ax.add_patch(FancyArrowPatch(points[-2], points[-1], arrowstyle="-|>", mutation_scale=12,
                                          color=colour, linewidth=linewidth))


# ---------------------------------------------------------------- phone variants

PHONE_GAP_IN = 0.3  # between two panels stacked for a phone


def _inches(bbox, fig):
    return bbox.transformed(fig.dpi_scale_trans.inverted())


def restack(fig, groups=None, columns=1, gap=PHONE_GAP_IN, margin=0.08):
    """The panels of ``fig`` laid out again for a phone: one under another (``columns=2``: two a row).

    A panel is a group of axes that keep their places to each other
    (``groups``: lists of indices into ``fig.axes``; default: each axes alone),
    at the size it had in inches, so that no text gets smaller. Figure-level
    texts (a title, a legend) go on top, centred; arrows drawn on the figure
    between panels are removed. Axes that shared their y axis get their tick
    labels back. Returns the figure, resized.
    """
    axes = fig.axes
    groups = [[axes[i] for i in group] for group in groups] if groups else [[ax] for ax in axes]
    for ax in axes:
        if len(ax.get_shared_y_axes().get_siblings(ax)) > 1:
            ax.tick_params(labelleft=True)
    for artist in [*fig.patches, *fig.artists]:
        artist.remove()
    headers = [a for a in fig.get_children() if isinstance(a, Legend) or isinstance(a, Text) and a.get_text().strip()]
    renderer = fig.canvas.get_renderer()  # measuring lays out what it measures (ticks, titles): no drawing needed
    boxes = [_inches(Bbox.union([ax.get_tightbbox(renderer) for ax in group]), fig) for group in groups]
    places = [[_inches(ax.get_position().transformed(fig.transFigure), fig) for ax in group] for group in groups]
    header_boxes = [_inches(h.get_window_extent(renderer), fig) for h in headers]
    header_height = sum(b.height + 0.1 for b in header_boxes)
    rows = [list(range(i, min(i + columns, len(groups)))) for i in range(0, len(groups), columns)]
    row_widths = [sum(boxes[i].width for i in row) + gap * (len(row) - 1) for row in rows]
    row_heights = [max(boxes[i].height for i in row) for row in rows]
    width = max([*row_widths, *(b.width for b in header_boxes)]) + 2 * margin
    height = header_height + sum(row_heights) + gap * (len(rows) - 1) + 2 * margin
    fig.set_size_inches(width, height)
    top = height - margin
    for header, box in zip(headers, header_boxes):
        centre_y = (top - box.height / 2) / height
        if isinstance(header, Legend):
            header.set_bbox_to_anchor((0.5, centre_y), transform=fig.transFigure)
            header.set_loc("center")
        else:
            header.set_transform(fig.transFigure)
            header.set_position((0.5, centre_y))
            header.set_horizontalalignment("center")
            header.set_verticalalignment("center")
        top -= box.height + 0.1
    for row, row_width, row_height in zip(rows, row_widths, row_heights):
        left = (width - row_width) / 2
        for i in row:
            box = boxes[i]
            dx, dy = left - box.x0, top - row_height + (row_height - box.height) / 2 - box.y0
            for ax, place in zip(groups[i], places[i]):
                ax.set_position(((place.x0 + dx) / width, (place.y0 + dy) / height, place.width / width, place.height / height))
            left += box.width + gap
        top -= row_height + gap
    return fig
