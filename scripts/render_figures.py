"""Draw every figure of the site from handtf into docs/assets/figures/NAME.svg.

Each figure is one small function that computes its numbers with handtf and
returns a matplotlib figure; ``FIGURES`` maps the file name to the function.
The SVGs are deterministic (fixed sizes, seeded RNGs, text as paths, no date),
so ``--check`` can tell a stale figure from a fresh one byte for byte.

    python scripts/render_figures.py                 # draw all
    python scripts/render_figures.py --only wte,wpe  # draw some
    python scripts/render_figures.py --check         # fail on a stale, missing or extra figure
"""

import argparse
import io
import math
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import Normalize, SymLogNorm  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, PathPatch, Rectangle  # noqa: E402
from matplotlib.path import Path as MplPath  # noqa: E402

import handtf  # noqa: E402
from handtf import EMBED_LABELS, POSITION_LABELS, TOKEN_LABELS, format_number  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
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


# ---------------------------------------------------------------- the hand-made model


def data_flow():
    t = the_trace()
    fig = plt.figure(figsize=(7.6, 8.4))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 7.6)
    ax.set_ylim(0, 8.4)
    ax.axis("off")
    boxes = {}

    def box(key, x, y, label, shape, width=1.9, colour="#f4f4f4"):
        patch = FancyBboxPatch(
            (x - width / 2, y - 0.26), width, 0.52, boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=colour, edgecolor=INK, linewidth=1.2,
        )
        ax.add_patch(patch)
        ax.text(x, y + 0.07, label, ha="center", va="center", fontsize=10.5, **MONO)
        ax.text(x, y - 0.15, shape, ha="center", va="center", fontsize=8.5, color=GREY)
        boxes[key] = (x, y, width)

    def arrow(a, b, label=None, side="right", start=None, end=None):
        xa, ya, _ = boxes[a]
        xb, yb, _ = boxes[b]
        start = start or (xa, ya - 0.27)
        end = end or (xb, yb + 0.27)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color=INK, linewidth=1.2))
        if label:
            xm, ym = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
            dx = 0.12 if side == "right" else -0.12
            ax.text(xm + dx, ym, label, ha="left" if side == "right" else "right", va="center", fontsize=9.5, color="#1f4e9c", **MONO)

    main = 3.45  # x of the main column
    box("tokens", main, 7.95, f'"{t.context}"', "tokens " + str(t.tokens.tolist()), width=2.3)
    box("wte", main - 1.25, 6.95, "wte[tokens]", shape_of(t.token_embedding), width=2.0)
    box("wpe", main + 1.25, 6.95, "wpe[:5]", shape_of(t.position_embedding), width=2.0)
    box("x", main, 5.95, "x = wte[·] + wpe[·]", shape_of(t.embedding), width=2.6, colour="#fde0d2")
    box("qkv", main, 4.95, "qkv = x @ w + b", shape_of(t.qkv), width=2.3)
    box("q", main - 1.5, 3.95, "q", shape_of(t.q), width=1.1)
    box("k", main, 3.95, "k", shape_of(t.k), width=1.1)
    box("v", main + 1.5, 3.95, "v", shape_of(t.v), width=1.1)
    box("w", main - 0.75, 2.95, "softmax(q·kᵀ/√8 + mask)", shape_of(t.attention_weights), width=3.4)
    box("a", main, 1.95, "· v", shape_of(t.attention_output), width=1.5)
    box("res", main, 0.95, "x + c_proj(·)", shape_of(t.residual), width=2.3, colour="#fde0d2")
    box("logits", main + 2.9, 0.95, "· @ wteᵀ", "logits " + shape_of(t.logits), width=1.9, colour="#d1e5f0")

    arrow("tokens", "wte", start=(main - 0.5, 7.68))
    arrow("tokens", "wpe", start=(main + 0.5, 7.68))
    arrow("wte", "x", end=(main - 0.5, 6.22))
    arrow("wpe", "x", end=(main + 0.5, 6.22))
    arrow("x", "qkv", "c_attn  w [8×24]")
    arrow("qkv", "q", start=(main - 0.5, 4.68))
    arrow("qkv", "k")
    arrow("qkv", "v", start=(main + 0.5, 4.68))
    arrow("q", "w", start=(main - 1.5, 3.68), end=(main - 1.5, 3.22))
    arrow("k", "w", start=(main, 3.68), end=(main, 3.22))
    arrow("w", "a", start=(main - 0.75, 2.68), end=(main - 0.3, 2.22))
    arrow("v", "a", start=(main + 1.5, 3.68), end=(main + 0.55, 2.22))
    arrow("a", "res", "c_proj  w [8×8]")
    # the residual connection: x goes around the attention and is added back
    skip = dict(color=KEPT, linewidth=1.4)
    ax.plot([main - 1.3, 0.45, 0.45], [5.95, 5.95, 0.95], **skip)
    ax.add_patch(FancyArrowPatch((0.45, 0.95), (main - 1.15, 0.95), arrowstyle="-|>", mutation_scale=12, **skip))
    ax.text(0.55, 3.45, "+ x", ha="left", va="center", fontsize=10.5, color=KEPT, **MONO)
    arrow("res", "logits", start=(main + 1.17, 0.95), end=(main + 1.93, 0.95))
    return fig


def wte():
    return matrix_figure(handtf.MODEL["wte"], TOKEN_LABELS, EMBED_LABELS, "wte  [2×8]")


def wpe():
    return matrix_figure(handtf.MODEL["wpe"], POSITION_LABELS, EMBED_LABELS, "wpe  [5×8]")


def embedding():
    return trace_figure("embedding", "wte[tokens] + wpe", EMBED_LABELS)


QKV_GROUPS = [("q", 0, 8), ("k", 8, 8), ("v", 16, 8)]  # the three parts of c_attn's 24 columns


def c_attn():
    w = handtf.MODEL["blocks"][0]["attn"]["c_attn"]["w"]
    return matrix_figure(w, EMBED_LABELS, EMBED_LABELS * 3, "c_attn w  [8×24]", cell=0.42, fontsize=8, groups=QKV_GROUPS)


def qkv():
    return trace_figure("qkv", "qkv = x @ w + b", EMBED_LABELS * 3, cell=0.42, fontsize=8, groups=QKV_GROUPS)


def scores():
    t = the_trace()
    fig = plt.figure(figsize=(9.0, 4.0))
    for i, (matrix, title) in enumerate([(t.scores, "q·kᵀ"), (t.scaled_scores, "q·kᵀ/√8")]):
        ax = fig.add_axes((0.08 + i * 0.5, 0.05, 0.4, 0.68))
        heatmap(ax, matrix, seq_labels(), seq_labels(), f"{title}  {shape_of(matrix)}", fontsize=9)
    return fig


def causal_mask():
    mask = handtf.causal_mask(len(CONTEXT))
    return matrix_figure(mask, seq_labels(), seq_labels(), "mask  [5×5]", cell=0.62)


def attention_weights():
    return trace_figure("attention_weights", "softmax(q·kᵀ/√8 + mask)", seq_labels(), cell=0.62)


def v():
    return trace_figure("v", "v", EMBED_LABELS)


def attention_output():
    return trace_figure("attention_output", "softmax(·) @ v", EMBED_LABELS)


def projection():
    return trace_figure("projection", "c_proj", EMBED_LABELS)


def residual():
    return trace_figure("residual", "x + c_proj(·)", EMBED_LABELS)


def logits():
    return trace_figure("logits", "logits", TOKEN_LABELS, cell=0.7)


def probs():
    return trace_figure("probs", "softmax(logits)", TOKEN_LABELS, cell=0.7)


def softmax_walkthrough():
    x = np.array([2.0, 1.0, 0.1])
    shifted = x - x.max()
    exps = np.exp(shifted)
    result = exps / exps.sum()
    assert np.allclose(result, handtf.softmax(x))
    steps = [(x, "x"), (shifted, "x − max(x)"), (exps, "exp(·)"), (result, "· / Σ")]
    fig, axes = plt.subplots(1, 4, figsize=(9.0, 2.9), sharey=True)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.1, top=0.8, wspace=0.35)
    for ax, (values, title) in zip(axes, steps):
        colours = [CMAP(0.82) if value >= 0 else CMAP(0.18) for value in values]
        ax.bar(range(3), values, color=colours, width=0.65)
        ax.set_ylim(-2.5, 2.6)
        ax.axhline(0, color=INK, linewidth=0.8)
        bar_values(ax, range(3), values, fontsize=9)
        ax.set_xticks(range(3), ["0", "1", "2"])
        ax.set_title(title, fontsize=12, pad=8, **MONO)
        tidy(ax)
    axes[2].text(1, -1.2, f"Σ = {cell_text(exps.sum())}", ha="center", va="center", fontsize=10, **MONO)
    for ax_left, ax_right in zip(axes[:-1], axes[1:]):
        fig.add_artist(FancyArrowPatch(
            (ax_left.get_position().x1 + 0.005, 0.5), (ax_right.get_position().x0 - 0.02, 0.5),
            transform=fig.transFigure, arrowstyle="-|>", mutation_scale=14, color=GREY,
        ))
    return fig


def small_lg():
    lgs = (1, 2, 1024)
    traces = [handtf.trace(CONTEXT, handtf.build_model(lg)) for lg in lgs]
    fig = plt.figure(figsize=(9.6, 6.4))
    weight_norm = Normalize(-1, 1)
    for i, (lg, t) in enumerate(zip(lgs, traces)):
        ax = fig.add_axes((0.06 + i * 0.33, 0.43, 0.27, 0.42))
        heatmap(ax, t.attention_weights, seq_labels(), seq_labels(), f"Lg = {lg}", norm=weight_norm, fontsize=8)
        ax = fig.add_axes((0.12 + i * 0.33, 0.03, 0.11, 0.3))
        heatmap(ax, t.probs, seq_labels(), TOKEN_LABELS, "probs", norm=weight_norm, fontsize=8)
        ax.set_title("probs", fontsize=10, pad=18)
    fig.text(0.5, 0.97, "softmax(q·kᵀ/√8 + mask)", ha="center", va="top", fontsize=12, **MONO)
    return fig


def layer_norm():
    x = np.array([0.0, 1.0, 0.0, 0.0])
    y = handtf.layer_norm(x, g=np.ones(4), b=np.zeros(4))
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 3.0), sharey=True)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.1, top=0.82, wspace=0.25)
    for ax, values, title in zip(axes, (x, y), ("x", "layer_norm(x)")):
        colours = [CMAP(0.82) if value >= 0 else CMAP(0.18) for value in values]
        ax.bar(range(4), values, color=colours, width=0.6)
        ax.set_ylim(-1.0, 2.2)
        ax.axhline(0, color=INK, linewidth=0.8)
        ax.axhline(float(values.mean()), color=GREY, linewidth=1, linestyle="--")
        bar_values(ax, range(4), values, fontsize=9)
        ax.set_xticks(range(4), ["0", "1", "2", "3"])
        ax.set_title(f"{title}\nμ = {cell_text(values.mean())}   σ = {cell_text(values.std())}", fontsize=11, **MONO)
        tidy(ax)
    return fig


# ---------------------------------------------------------------- concepts


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


def positional_encoding():
    n_pos, d_model = 50, 64
    pe = handtf.positional_encoding(n_pos, d_model)  # [n_pos, d_model]
    norm = Normalize(-1, 1)
    width, height, cell = 9.6, 4.25, 4.5 / 72  # inches; whole-point cells keep the SVG's numbers short
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0.5 / width, 0.5 / height, d_model * cell / width, n_pos * cell / height))
    colour_field(ax, pe, norm)
    ax.set_xlabel("i", **MONO)
    ax.set_ylabel("pos", **MONO)
    ax.set_title(f"PE[pos, i]   d_model = {d_model}", fontsize=11, **MONO)
    scale = plt.cm.ScalarMappable(norm=norm, cmap=CMAP)
    colourbar = fig.colorbar(scale, cax=fig.add_axes((4.65 / width, 0.5 / height, 0.15 / width, n_pos * cell / height)), boundaries=np.linspace(-1, 1, 33))
    colourbar.set_ticks([-1, 0, 1])
    right = fig.add_axes((5.5 / width, 0.5 / height, 3.9 / width, n_pos * cell / height))
    colours = plt.get_cmap("viridis")(np.linspace(0, 0.85, 4))
    for colour, i in zip(colours, (0, 8, 16, 32)):
        right.plot(range(n_pos), pe[:, i], "o-", color=colour, markersize=2.5, linewidth=1.2, label=f"i = {i}")
    right.set_xlabel("pos", **MONO)
    right.set_ylim(-1.15, 1.45)
    right.set_title("PE[pos, i]", fontsize=11, **MONO)
    right.legend(loc="upper center", ncol=4, frameon=False, prop=MONO | {"size": 8.5}, handlelength=1.5, columnspacing=1)
    tidy(right)
    return fig


def qk_spread():
    rng = np.random.default_rng(0)
    d_ks = 2 ** np.arange(2, 10)  # 4 .. 512
    n_samples, n_keys = 2000, 8
    raw_std, scaled_std, raw_max, scaled_max = [], [], [], []
    for d_k in d_ks:
        q = rng.standard_normal((n_samples, 1, d_k))  # [n_samples, 1, d_k]
        k = rng.standard_normal((n_samples, n_keys, d_k))  # [n_samples, n_keys, d_k]
        scores = (q @ k.swapaxes(-1, -2))[:, 0]  # [n_samples, n_keys]
        raw_std.append(scores.std())
        scaled_std.append((scores / math.sqrt(d_k)).std())
        raw_max.append(handtf.softmax(scores).max(axis=-1).mean())
        scaled_max.append(handtf.softmax(scores / math.sqrt(d_k)).max(axis=-1).mean())
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.86, wspace=0.3)
    left.plot(d_ks, np.sqrt(d_ks), color=GREY, linestyle="--", label="√d_k")
    left.plot(d_ks, raw_std, "o-", color=KEPT, label="std(q·k)")
    left.plot(d_ks, scaled_std, "s-", color="#2166ac", label="std(q·k/√d_k)")
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_title("std", fontsize=11, **MONO)
    right.plot(d_ks, raw_max, "o-", color=KEPT, label="softmax(q·K)")
    right.plot(d_ks, scaled_max, "s-", color="#2166ac", label="softmax(q·K/√d_k)")
    right.axhline(1 / n_keys, color=GREY, linestyle=":", label="1/8")
    right.set_xscale("log", base=2)
    right.set_ylim(0, 1.05)
    right.set_title("mean max weight, 8 keys", fontsize=11, **MONO)
    for ax in (left, right):
        ax.set_xticks(d_ks, [str(d) for d in d_ks])
        ax.set_xlabel("d_k", **MONO)
        ax.legend(fontsize=8.5, frameon=False, prop=MONO | {"size": 8.5})
        tidy(ax)
    left.set_yticks([1, 2, 4, 8, 16, 32], ["1", "2", "4", "8", "16", "32"])
    return fig


def head_split():
    x = np.arange(32.0).reshape(4, 8)  # [n_seq, n_embd]
    heads = handtf.split_heads(x, n_head=2)  # [n_head, n_seq, d_head]
    colours = ("#f4a582", "#92c5de")
    fig = plt.figure(figsize=(8.6, 3.6))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 17.2)
    ax.set_ylim(-7.4, 0.8)
    ax.axis("off")
    ax.set_aspect("equal")

    def block(matrix, x0, y0, colour_of_col):
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                ax.add_patch(Rectangle((x0 + j, y0 - i - 1), 1, 1, facecolor=colour_of_col(j), edgecolor="white", linewidth=1.5))
                ax.text(x0 + j + 0.5, y0 - i - 0.5, cell_text(value), ha="center", va="center", fontsize=10)

    block(x, 0.5, -1.2, lambda j: colours[j // 4])
    ax.text(4.5, -0.5, "x  [4×8]", ha="center", va="center", fontsize=12, **MONO)
    for h in range(2):
        ax.text(2.5 + 4 * h, -0.95, f"h={h}", ha="center", va="center", fontsize=9, color=GREY, **MONO)
    ax.add_patch(FancyArrowPatch((9.0, -3.2), (11.3, -3.2), arrowstyle="-|>", mutation_scale=16, color=INK, linewidth=1.4))
    ax.text(10.15, -2.7, "split_heads", ha="center", va="bottom", fontsize=9.5, **MONO)
    ax.text(10.15, -3.7, "n_head=2", ha="center", va="top", fontsize=9.5, **MONO)
    ax.text(14.1, 0.3, "[2×4×4]", ha="center", va="center", fontsize=12, **MONO)
    for h in range(2):
        top = -0.3 - h * 3.6
        ax.text(11.7, top - 0.35, f"h={h}", ha="left", va="center", fontsize=9.5, color=GREY, **MONO)
        # each head is drawn slightly smaller so both fit beside x
        sub = heads[h]
        for i, row in enumerate(sub):
            for j, value in enumerate(row):
                ax.add_patch(Rectangle((12.6 + j * 0.75, top - 0.75 * (i + 1)), 0.75, 0.75, facecolor=colours[h], edgecolor="white", linewidth=1.5))
                ax.text(12.6 + j * 0.75 + 0.375, top - 0.75 * i - 0.375, cell_text(value), ha="center", va="center", fontsize=8.5)
    return fig


TOY_LOGITS = np.array([3.0, 2.2, 1.6, 1.0, 0.2, -0.5])  # six tokens, best first


def temperature():
    temperatures = (0.5, 1.0, 2.0)
    fig, axes = plt.subplots(1, 3, figsize=(9.0, 3.0), sharey=True)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.12, top=0.84, wspace=0.15)
    ids = range(TOY_LOGITS.size)
    for ax, t in zip(axes, temperatures):
        p = handtf.sampling_distribution(TOY_LOGITS, temperature=t)
        ax.bar(ids, p, color=CMAP(0.8), width=0.65)
        ax.set_ylim(0, 1.0)
        bar_values(ax, ids, p, fontsize=7.5)
        ax.set_xticks(list(ids), [str(i) for i in ids])
        ax.set_title(f"T = {cell_text(t)}", fontsize=12, **MONO)
        tidy(ax)
    return fig


def top_p():
    p = handtf.softmax(TOY_LOGITS)
    ids = np.arange(TOY_LOGITS.size)
    panels = [
        ("top_k = 3", handtf.top_k_filter(TOY_LOGITS, top_k=3), handtf.sampling_distribution(TOY_LOGITS, top_k=3)),
        ("top_p = 0.9", handtf.top_p_filter(TOY_LOGITS, top_p=0.9), handtf.sampling_distribution(TOY_LOGITS, top_p=0.9)),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.9), sharey=True)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.1, top=0.8, wspace=0.1)
    for ax, (title, filtered, renormalised) in zip(axes, panels):
        kept = np.isfinite(filtered)
        ax.bar(ids - 0.19, p, width=0.36, color=[KEPT if keep else DROPPED for keep in kept])
        ax.bar(ids[kept] + 0.19, renormalised[kept], width=0.36, color="#2166ac")
        ax.set_ylim(0, 1.1)
        for x, value in [*zip(ids - 0.19, p), *zip(ids[kept] + 0.19, renormalised[kept])]:
            ax.text(x, value + 0.02, cell_text(value), ha="center", va="bottom", fontsize=7.5, rotation=90)
        ax.set_xticks(ids, [str(i) for i in ids])
        ax.set_title(title, fontsize=12, **MONO)
        tidy(ax)
    axes[1].plot(ids, np.cumsum(p), "o-", color=GREY, markersize=4)
    axes[1].axhline(0.9, color=GREY, linestyle=":", linewidth=1)
    axes[1].text(ids[-1] + 0.4, 0.88, "0.9", ha="right", va="top", fontsize=8, color=GREY)
    handles = [
        Rectangle((0, 0), 1, 1, color=KEPT), Rectangle((0, 0), 1, 1, color=DROPPED),
        Rectangle((0, 0), 1, 1, color="#2166ac"), axes[1].lines[0],
    ]
    fig.legend(handles, ["softmax(z)", "−∞", "p'", "Σ softmax(z)"], loc="upper center", ncol=4, frameon=False, prop=MONO | {"size": 9})
    return fig


BEAM_PROBS = {(): [0.55, 0.4, 0.05], (0,): [0.3, 0.3, 0.4], (1,): [0.05, 0.05, 0.9]}  # the beam_search doctest's toy model
BEAM_START, BEAM_WIDTH, BEAM_EOS = (2,), 2, 2  # token 2 starts and ends a sequence


def beam_step(tokens):
    return np.log(BEAM_PROBS[tuple(tokens[1:])])  # [n_vocab] log-probs of the next token


def beam_tree():
    """Every hypothesis the search scored, with its probability, and the ones it kept.

    ``beam_search`` stopped after ``depth`` steps returns what the beam held then.
    """
    kept = {
        tuple(tokens)
        for depth in (1, 2)
        for tokens, _ in handtf.beam_search(beam_step, list(BEAM_START), BEAM_WIDTH, depth, eos=BEAM_EOS)
    }
    probability = {BEAM_START: 1.0}
    frontier = [BEAM_START]
    while frontier:
        children = [parent + (token,) for parent in frontier for token in range(3)]
        for child in children:
            probability[child] = probability[child[:-1]] * BEAM_PROBS[child[1:-1]][child[-1]]
        frontier = [child for child in children if child in kept and child[-1] != BEAM_EOS]
    return probability, kept


def beam_search():
    probability, kept = beam_tree()
    ranking = [tuple(t) for t, _ in handtf.beam_search(beam_step, list(BEAM_START), BEAM_WIDTH, 5, eos=BEAM_EOS)]
    position = {BEAM_START: (0.0, 0.0)}  # hypothesis -> (x, y): one column per step, siblings stacked
    for depth, gap in ((1, 2.2), (2, 1.05)):
        level = [tokens for tokens in probability if len(tokens) == depth + 1]
        for i, tokens in enumerate(level):
            position[tokens] = (3.0 * depth, -(i - (len(level) - 1) / 2) * gap)
    fig = plt.figure(figsize=(8.6, 5.2))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.9, 8.5)
    ax.set_ylim(-3.6, 3.4)
    ax.axis("off")
    for tokens in list(probability)[1:]:  # the edges, labelled with the step's probability
        (x0, y0), (x1, y1) = position[tokens[:-1]], position[tokens]
        on = tokens in kept
        ax.plot([x0 + 0.45, x1 - 0.45], [y0, y1], color=INK if on else DROPPED, linewidth=1.6 if on else 1,
                linestyle="-" if on else "--", zorder=1)
        step_probability = BEAM_PROBS[tokens[1:-1]][tokens[-1]]
        ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, cell_text(step_probability), ha="center", va="bottom",
                fontsize=8, color="#1f4e9c" if on else GREY)
    for tokens, p in probability.items():  # the nodes: last token, and the hypothesis's probability
        x, y = position[tokens]
        on, finished = tokens in kept or tokens == BEAM_START, tokens in ranking
        ax.add_patch(FancyBboxPatch(
            (x - 0.42, y - 0.3), 0.84, 0.6, boxstyle="round,pad=0.02,rounding_size=0.1",
            facecolor="#fde0d2" if finished else ("#f4f4f4" if on else "white"),
            edgecolor=(KEPT if finished else INK) if on else DROPPED, linewidth=2 if finished else 1.2,
            linestyle="-" if on else "--", zorder=2,
        ))
        colour = INK if on else GREY
        ax.text(x, y + 0.09, str(tokens[-1]), ha="center", va="center", fontsize=11, color=colour, zorder=3, **MONO)
        ax.text(x, y - 0.15, cell_text(p), ha="center", va="center", fontsize=7.5, color=colour, zorder=3)
        if finished:
            label = f"#{ranking.index(tokens) + 1}  [" + ", ".join(map(str, tokens)) + "]"
            ax.text(x + 0.55, y, label, ha="left", va="center", fontsize=9, color=KEPT, **MONO)
    ax.text(3.0, 3.2, f"beam_width = {BEAM_WIDTH},  eos = {BEAM_EOS}", ha="center", va="center", fontsize=11, **MONO)
    for depth in (0, 1, 2):
        ax.text(3.0 * depth, -3.4, f"t = {depth}", ha="center", va="center", fontsize=9, color=GREY, **MONO)
    return fig


# ---------------------------------------------------------------- registry and command line

FIGURES = {
    "data-flow": data_flow,
    "wte": wte,
    "wpe": wpe,
    "embedding": embedding,
    "c-attn": c_attn,
    "qkv": qkv,
    "scores": scores,
    "causal-mask": causal_mask,
    "attention-weights": attention_weights,
    "v": v,
    "attention-output": attention_output,
    "projection": projection,
    "residual": residual,
    "logits": logits,
    "probs": probs,
    "softmax-walkthrough": softmax_walkthrough,
    "small-lg": small_lg,
    "layer-norm": layer_norm,
    "positional-encoding": positional_encoding,
    "qk-spread": qk_spread,
    "head-split": head_split,
    "temperature": temperature,
    "top-p": top_p,
    "beam-search": beam_search,
}


def render(name, fmt="svg"):
    """The bytes of one figure, drawn afresh."""
    fig = FIGURES[name]()
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else None
    fig.savefig(buffer, format=fmt, metadata=metadata, dpi=110 if fmt == "png" else None)
    plt.close(fig)
    return buffer.getvalue()


def parse_names(values):
    names = [name.strip() for value in values or [] for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        raise KeyError(unknown)
    return names or list(FIGURES)


def check(names, folder):
    """Names of the figures whose file is stale or missing, and files no function draws."""
    problems = []
    for name in names:
        path = folder / f"{name}.svg"
        if not path.exists():
            problems.append(f"{name}: missing ({path})")
        elif path.read_bytes() != render(name):
            problems.append(f"{name}: differs from what the code draws")
    extra = sorted(p.name for p in folder.glob("*") if p.suffix != ".svg" or p.stem not in FIGURES)
    problems += [f"{name}: no function draws it" for name in extra]
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="draw only these figures (repeat, or a comma list)")
    parser.add_argument("--check", action="store_true", help="draw into memory and fail if a committed figure is stale, missing or extra")
    parser.add_argument("--out", type=Path, default=FIGURE_DIR, help="the folder of the SVGs (default docs/assets/figures)")
    args = parser.parse_args(argv)
    try:
        names = parse_names(args.only)
    except KeyError as error:
        print(f"render_figures.py: unknown figure {', '.join(error.args[0])}; known: {', '.join(FIGURES)}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if args.check:
        problems = check(names, args.out)
        for problem in problems:
            print(problem)
        if problems:
            print(f"{len(problems)} figure problem(s); redraw with: python scripts/render_figures.py "
                  f"(matplotlib {matplotlib.__version__}; constraints.txt pins the one that drew them)")
            return 1
        print(f"{len(names)} figures up to date ({time.perf_counter() - start:.1f} s)")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in names:
        data = render(name)
        (args.out / f"{name}.svg").write_bytes(data)
        print(f"{name}.svg  {len(data) // 1024} KiB")
    print(f"{len(names)} figures in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
