"""Figures of part 1, the hand-made model: its weights and every matrix of the running example."""

import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

import handtf
from handtf import EMBED_LABELS, POSITION_LABELS, TOKEN_LABELS

from .common import (
    CONTEXT, MONO, C, Diagram, Normalize, bar_values, cell_text, diverging_norm, heatmap, label, matrix_figure, plt, restack,
    seq_labels,
    shape_of, the_trace, tidy, trace_figure,
)
from .registry import figure


@figure("data-flow", words={"en": {"tokens": "tokens"}, "zh": {"tokens": "词元"}}, phone=True)
def data_flow(words, phone=False):
    t = the_trace()
    lift = 1.0 if phone else 0.0  # a phone: the logits under the residual, not beside it
    d = Diagram(5.2 if phone else 7.6, 8.4 + lift)
    d.ax.set_ylim(-lift, 8.4)
    main = 2.75 if phone else 3.45  # x of the main column
    d.box("tokens", main, 7.95, f'"{t.context}"', words["tokens"] + " " + str(t.tokens.tolist()), width=2.3)
    d.box("wte", main - 1.25, 6.95, "wte[tokens]", shape_of(t.token_embedding), width=2.0)
    d.box("wpe", main + 1.25, 6.95, "wpe[:5]", shape_of(t.position_embedding), width=2.0)
    d.box("x", main, 5.95, "x = wte[·] + wpe[·]", shape_of(t.embedding), width=2.6, fill=C.warm)
    d.box("qkv", main, 4.95, "qkv = x @ w + b", shape_of(t.qkv), width=2.3)
    d.box("q", main - 1.5, 3.95, "q", shape_of(t.q), width=1.1)
    d.box("k", main, 3.95, "k", shape_of(t.k), width=1.1)
    d.box("v", main + 1.5, 3.95, "v", shape_of(t.v), width=1.1)
    d.box("w", main - 0.75, 2.95, "softmax(q·kᵀ/√8 + mask)", shape_of(t.attention_weights), width=2.7 if phone else 3.4)
    d.box("a", main, 1.95, "· v", shape_of(t.attention_output), width=1.5)
    d.box("res", main, 0.95, "x + c_proj(·)", shape_of(t.residual), width=2.3, fill=C.warm)
    if phone:
        d.box("logits", main, -0.05, "· @ wteᵀ", "logits " + shape_of(t.logits), width=1.9, fill=C.cool)
    else:
        d.box("logits", main + 2.9, 0.95, "· @ wteᵀ", "logits " + shape_of(t.logits), width=1.9, fill=C.cool)

    d.arrow((main - 0.5, 7.68), d.top("wte"))
    d.arrow((main + 0.5, 7.68), d.top("wpe"))
    d.arrow(d.bottom("wte"), (main - 0.5, 6.22))
    d.arrow(d.bottom("wpe"), (main + 0.5, 6.22))
    d.arrow(d.bottom("x"), d.top("qkv"), "c_attn  w [8×24]")
    d.arrow((main - 0.5, 4.68), d.top("q"))
    d.arrow(d.bottom("qkv"), d.top("k"))
    d.arrow((main + 0.5, 4.68), d.top("v"))
    d.arrow((main - 1.5, 3.68), (main - 1.5, 3.22))
    d.arrow((main, 3.68), (main, 3.22))
    d.arrow((main - 0.75, 2.68), (main - 0.3, 2.22))
    d.arrow((main + 1.5, 3.68), (main + 0.55, 2.22))
    d.arrow(d.bottom("a"), d.top("res"), "c_proj  w [8×8]")
    # the residual connection: x goes around the attention and is added back
    edge = 0.3 if phone else 0.45  # x of the residual connection
    d.path([(main - 1.3, 5.95), (edge, 5.95), (edge, 0.95), (main - 1.15, 0.95)], colour=C.red)
    d.ax.text(edge + 0.1, 3.45, "+ x", ha="left", va="center", fontsize=10.5, color=C.red, **MONO)
    if phone:
        d.arrow(d.bottom("res"), d.top("logits"))
    else:
        d.arrow((main + 1.17, 0.95), (main + 1.93, 0.95))
    return d.fig


WINDOW_WORDS = {
    "en": {"value": "value v: a = +1, b = −1", "average": "average", "next": "next"},
    "zh": {"value": "值 v：a 记 +1，b 记 −1", "average": "平均", "next": "下一个"},
}


@figure("window-average", words=WINDOW_WORDS)
def window_average(words):
    """The idea of the attention page, before any matrix: each row averages ±1 over its window.

    Row i (a query) lights up the keys its attention weight reaches (the window: i - 1 and i),
    with their value in column V; then the average the head writes, and the token it means.
    """
    t = the_trace()
    n = len(t.context)
    window = t.attention_weights >= 0.25  # the keys that carry the weight: half each, or all of it in row 0
    values, averages = t.v[:, -1], t.attention_output[:, -1]
    cell, left, top = 0.48, 0.65, 0.95  # inches: a cell, the row labels, the headers
    width = left + n * cell + 0.2 + 1.0 + 0.85 + 0.1
    d = Diagram(width, top + n * cell + 0.1)
    y_of = lambda i: d.fig.get_size_inches()[1] - top - (i + 0.5) * cell  # noqa: E731
    x_of = lambda j: left + (j + 0.5) * cell  # noqa: E731
    norm = Normalize(-1, 1)
    d.ax.text(left + n * cell / 2, y_of(-1) + 0.42, words["value"], ha="center", va="center", fontsize=10, color=C.ink)
    for j, token in enumerate(t.context):
        d.ax.text(x_of(j), y_of(-1), f"{j}:{token}", ha="center", va="center", fontsize=10, color=C.ink, **MONO)
    average_x, next_x = left + n * cell + 0.2 + 0.5, left + n * cell + 0.2 + 1.0 + 0.42
    d.ax.text(average_x, y_of(-1), words["average"], ha="center", va="center", fontsize=10, color=C.ink)
    d.ax.text(next_x, y_of(-1), words["next"], ha="center", va="center", fontsize=10, color=C.ink)
    for i in range(n):
        d.ax.text(left - 0.1, y_of(i), f"{i}:{t.context[i]}", ha="right", va="center", fontsize=10, color=C.ink, **MONO)
        for j in range(n):
            x0, y0 = x_of(j) - cell / 2, y_of(i) - cell / 2
            if window[i, j]:
                fill = C.cmap(norm(values[j]))
                d.ax.add_patch(Rectangle((x0, y0), cell, cell, facecolor=fill, edgecolor=C.ink, linewidth=1.2))
                label(d.ax, x_of(j), y_of(i), f"{values[j]:+.0f}".replace("-", "\u2212"), fill, ha="center", va="center", fontsize=10)
            else:
                d.ax.add_patch(Rectangle((x0, y0), cell, cell, facecolor=C.box, edgecolor=C.bg, linewidth=1.2))
        fill = C.cmap(norm(averages[i]))
        d.ax.add_patch(Rectangle((average_x - 0.35, y_of(i) - cell / 2), 0.7, cell, facecolor=fill, edgecolor=C.ink, linewidth=1.2))
        label(d.ax, average_x, y_of(i), cell_text(averages[i]), fill, ha="center", va="center", fontsize=10)
        d.ax.text(next_x, y_of(i), t.predictions[i], ha="center", va="center", fontsize=11, weight="bold", color=C.ink, **MONO)
    return d.fig


@figure("wte")
def wte():
    return matrix_figure(handtf.MODEL["wte"], TOKEN_LABELS, EMBED_LABELS, "wte  [2×8]")


@figure("wpe")
def wpe():
    return matrix_figure(handtf.MODEL["wpe"], POSITION_LABELS, EMBED_LABELS, "wpe  [5×8]")


@figure("embedding")
def embedding():
    return trace_figure("embedding", "wte[tokens] + wpe[:5]", EMBED_LABELS)


QKV_GROUPS = [("q", 0, 8), ("k", 8, 8), ("v", 16, 8)]  # the three parts of c_attn's 24 columns


def lg_text(value):
    """A cell of c_attn or qkv: Lg for 1024, empty for 0, so that 24 columns fit at a readable size."""
    return "Lg" if value == handtf.LG else ("" if value == 0 else cell_text(value))


LG_KEY = {"en": {"empty": "empty = 0"}, "zh": {"empty": "空白 = 0"}}  # the key under c_attn and qkv


def thirds_figure(matrix, rows, title):
    """For a phone: the q, k and v thirds of a [n, 24] matrix one under another, on one colour scale."""
    norm = diverging_norm(matrix)
    fig = plt.figure(figsize=(4.0, 4.0))
    for name, first, width in QKV_GROUPS:
        ax = fig.add_axes((0.2, 0.1, 8 * 0.4 / 4.0, len(rows) * 0.4 / 4.0))
        heatmap(ax, matrix[:, first:first + width], rows, EMBED_LABELS, norm=norm, text=lg_text)
        ax.set_title(name, fontsize=12, weight="bold", pad=22)
    fig.text(0.5, 0.99, title, ha="center", va="top", fontsize=12)
    return restack(fig, gap=0.2)


@figure("c-attn", words=LG_KEY, phone=True)
def c_attn(words, phone=False):
    w = handtf.MODEL["blocks"][0]["attn"]["c_attn"]["w"]
    if phone:
        return thirds_figure(w, EMBED_LABELS, f"c_attn.w  [8×24]\nLg = {handtf.LG}, {words['empty']}")
    title = f"c_attn.w  [8×24]    Lg = {handtf.LG}, {words['empty']}"
    return matrix_figure(w, EMBED_LABELS, EMBED_LABELS * 3, title, cell=0.3, groups=QKV_GROUPS, text=lg_text)


@figure("qkv", words=LG_KEY, phone=True)
def qkv(words, phone=False):
    t = the_trace()
    if phone:
        return thirds_figure(t.qkv, seq_labels(), f"qkv = x @ c_attn.w + c_attn.b  {shape_of(t.qkv)}\nLg = {handtf.LG}, {words['empty']}")
    title = f"qkv = x @ c_attn.w + c_attn.b  {shape_of(t.qkv)}    Lg = {handtf.LG}, {words['empty']}"
    return matrix_figure(t.qkv, seq_labels(), EMBED_LABELS * 3, title, cell=0.3, groups=QKV_GROUPS, text=lg_text)


@figure("scores", phone=True)
def scores(phone=False):
    t = the_trace()
    fig = plt.figure(figsize=(8.4, 4.0))
    for i, (matrix, title) in enumerate([(t.scores, "q·kᵀ"), (t.scaled_scores, "q·kᵀ/√8")]):
        ax = fig.add_axes((0.09 + i * 0.5, 0.05, 0.4, 0.68))
        heatmap(ax, matrix, seq_labels(), seq_labels(), f"{title}  {shape_of(matrix)}", fontsize=9)
    return restack(fig) if phone else fig


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
    return trace_figure("attention_output", "weights @ v", EMBED_LABELS)


@figure("projection")
def projection():
    return trace_figure("projection", "c_proj(weights @ v)", EMBED_LABELS)


@figure("residual")
def residual():
    return trace_figure("residual", "x + c_proj(weights @ v)", EMBED_LABELS)


@figure("logits")
def logits():
    return trace_figure("logits", "logits", TOKEN_LABELS, cell=0.9)


@figure("probs")
def probs():
    return trace_figure("probs", "softmax(logits)", TOKEN_LABELS, cell=0.9)


@figure("softmax-walkthrough", phone=True)
def softmax_walkthrough(phone=False):
    x = np.array([2.0, 1.0, 0.1])
    shifted = x - x.max()
    exps = np.exp(shifted)
    result = exps / exps.sum()
    assert np.allclose(result, handtf.softmax(x))
    steps = [(x, "x"), (shifted, "x − max(x)"), (exps, "exp(·)"), (result, "· / Σ")]
    fig, axes = plt.subplots(1, 4, figsize=(8.4, 2.9), sharey=True)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.1, top=0.8, wspace=0.35)
    for ax, (values, title) in zip(axes, steps):
        colours = [C.red if value >= 0 else C.blue for value in values]
        ax.bar(range(3), values, color=colours, width=0.65)
        ax.set_ylim(-2.5, 2.6)
        ax.axhline(0, color=C.ink, linewidth=0.8)
        bar_values(ax, range(3), values, fontsize=9)
        ax.set_xticks(range(3), ["0", "1", "2"])
        ax.set_title(title, fontsize=12, pad=8, **MONO)
        tidy(ax)
    axes[2].text(1, -1.2, f"Σ = {cell_text(exps.sum())}", ha="center", va="center", fontsize=10, **MONO)
    for ax_left, ax_right in zip(axes[:-1], axes[1:]):
        fig.add_artist(FancyArrowPatch(
            (ax_left.get_position().x1 + 0.005, 0.5), (ax_right.get_position().x0 - 0.02, 0.5),
            transform=fig.transFigure, arrowstyle="-|>", mutation_scale=14, color=C.muted,
        ))
    return restack(fig, columns=2) if phone else fig


@figure("small-lg", phone=True)
def small_lg(phone=False):
    lgs = (1, 2, 1024)
    traces = [handtf.trace(CONTEXT, handtf.build_model(lg)) for lg in lgs]
    fig = plt.figure(figsize=(8.4, 6.4))
    weight_norm = Normalize(-1, 1)
    for i, (lg, t) in enumerate(zip(lgs, traces)):
        ax = fig.add_axes((0.075 + i * 0.33, 0.43, 0.27, 0.42))
        heatmap(ax, t.attention_weights, seq_labels(), seq_labels(), f"Lg = {lg}", norm=weight_norm, fontsize=9)
        ax = fig.add_axes((0.13 + i * 0.33, 0.03, 0.12, 0.3) if not phone else (0.4 + i * 0.33, 0.43, 0.12, 0.3))
        heatmap(ax, t.probs, seq_labels(), TOKEN_LABELS, "probs", norm=weight_norm, fontsize=9)
        ax.set_title("probs", fontsize=10, pad=18)
    fig.text(0.5, 0.97, "softmax(q·kᵀ/√8 + mask)", ha="center", va="top", fontsize=12, **MONO)
    return restack(fig, groups=[[0, 1], [2, 3], [4, 5]]) if phone else fig


@figure("layer-norm", phone=True)
def layer_norm(phone=False):
    x = np.array([0.0, 1.0, 0.0, 0.0])
    y = handtf.layer_norm(x, g=np.ones(4), b=np.zeros(4))
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 3.0), sharey=True)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.1, top=0.82, wspace=0.25)
    for ax, values, title in zip(axes, (x, y), ("x", "layer_norm(x)")):
        colours = [C.red if value >= 0 else C.blue for value in values]
        ax.bar(range(4), values, color=colours, width=0.6)
        ax.set_ylim(-1.0, 2.2)
        ax.axhline(0, color=C.ink, linewidth=0.8)
        ax.axhline(float(values.mean()), color=C.muted, linewidth=1, linestyle="--")
        bar_values(ax, range(4), values, fontsize=9)
        ax.set_xticks(range(4), ["0", "1", "2", "3"])
        ax.set_title(f"{title}\nμ = {cell_text(values.mean())}   σ = {cell_text(values.std())}", fontsize=11, **MONO)
        tidy(ax)
    return restack(fig) if phone else fig
