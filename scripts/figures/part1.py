"""Figures of part 1, the hand-made model: its weights and every matrix of the running example."""

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

import handtf
from handtf import EMBED_LABELS, POSITION_LABELS, TOKEN_LABELS

from .common import (
    CMAP, CONTEXT, GREY, INK, KEPT, MONO, Normalize, bar_values, cell_text, heatmap, matrix_figure, plt,
    seq_labels, shape_of, the_trace, tidy, trace_figure,
)
from .registry import figure


@figure("data-flow")
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


@figure("wte")
def wte():
    return matrix_figure(handtf.MODEL["wte"], TOKEN_LABELS, EMBED_LABELS, "wte  [2×8]")


@figure("wpe")
def wpe():
    return matrix_figure(handtf.MODEL["wpe"], POSITION_LABELS, EMBED_LABELS, "wpe  [5×8]")


@figure("embedding")
def embedding():
    return trace_figure("embedding", "wte[tokens] + wpe", EMBED_LABELS)


QKV_GROUPS = [("q", 0, 8), ("k", 8, 8), ("v", 16, 8)]  # the three parts of c_attn's 24 columns


@figure("c-attn")
def c_attn():
    w = handtf.MODEL["blocks"][0]["attn"]["c_attn"]["w"]
    return matrix_figure(w, EMBED_LABELS, EMBED_LABELS * 3, "c_attn w  [8×24]", cell=0.42, fontsize=8, groups=QKV_GROUPS)


@figure("qkv")
def qkv():
    return trace_figure("qkv", "qkv = x @ w + b", EMBED_LABELS * 3, cell=0.42, fontsize=8, groups=QKV_GROUPS)


@figure("scores")
def scores():
    t = the_trace()
    fig = plt.figure(figsize=(9.0, 4.0))
    for i, (matrix, title) in enumerate([(t.scores, "q·kᵀ"), (t.scaled_scores, "q·kᵀ/√8")]):
        ax = fig.add_axes((0.08 + i * 0.5, 0.05, 0.4, 0.68))
        heatmap(ax, matrix, seq_labels(), seq_labels(), f"{title}  {shape_of(matrix)}", fontsize=9)
    return fig


@figure("causal-mask")
def causal_mask():
    mask = handtf.causal_mask(len(CONTEXT))
    return matrix_figure(mask, seq_labels(), seq_labels(), "mask  [5×5]", cell=0.62)


@figure("attention-weights")
def attention_weights():
    return trace_figure("attention_weights", "softmax(q·kᵀ/√8 + mask)", seq_labels(), cell=0.62)


@figure("v")
def v():
    return trace_figure("v", "v", EMBED_LABELS)


@figure("attention-output")
def attention_output():
    return trace_figure("attention_output", "softmax(·) @ v", EMBED_LABELS)


@figure("projection")
def projection():
    return trace_figure("projection", "c_proj", EMBED_LABELS)


@figure("residual")
def residual():
    return trace_figure("residual", "x + c_proj(·)", EMBED_LABELS)


@figure("logits")
def logits():
    return trace_figure("logits", "logits", TOKEN_LABELS, cell=0.7)


@figure("probs")
def probs():
    return trace_figure("probs", "softmax(logits)", TOKEN_LABELS, cell=0.7)


@figure("softmax-walkthrough")
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


@figure("small-lg")
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


@figure("layer-norm")
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
