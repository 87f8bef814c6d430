"""Figures of the page "Any pattern, by hand": a compiled pattern's heads, its GELU switches and its lookup table."""

import numpy as np

import handtf

from .common import MONO, C, Normalize, cell_text, heatmap, plt, restack, tidy
from .registry import figure

PATTERN, CONTEXT = "abcab", "bca"  # the page's running example


def the_model():
    return handtf.compile_pattern(PATTERN)


@figure("pattern-heads", words={"en": {"title": "head {d}: {d} back"}, "zh": {"title": "头 {d}：回看 {d} 步"}}, phone=True)
def pattern_heads(words, phone=False):
    model = the_model()
    t = handtf.trace(CONTEXT, model=model)
    positions = [f"P{i}" for i in range(model.n_ctx)]
    rows = [f"{i}:{c}" for i, c in enumerate(t.context)]
    fig, axes = plt.subplots(1, model.n_head, figsize=(7.2, 2.6))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.04, top=0.7, wspace=0.45)
    for d, ax in enumerate(axes):
        heatmap(ax, t.attention_weights[d], rows, positions, title=words["title"].format(d=d), norm=Normalize(-1, 1))
    return restack(fig, columns=2) if phone else fig


@figure("gelu-switch", words={
    "en": {"x": "x: the unit's input", "title": "GELU is exact 0 below −8 and exact x above 8"},
    "zh": {"x": "x：单元的输入", "title": "GELU 在 −8 以下恰为 0，在 8 以上恰为 x"},
}, phone=True)
def gelu_switch(words, phone=False):
    x = np.linspace(-12, 12, 241)
    fig, ax = plt.subplots(figsize=(4.8, 3.4) if phone else (6.4, 3.2))
    fig.subplots_adjust(left=0.15 if phone else 0.11, right=0.96 if phone else 0.97, bottom=0.16, top=0.9)
    ax.axvspan(-handtf.SWITCH, handtf.SWITCH, color=C.box, zorder=0)
    ax.plot(x, handtf.gelu(x), color=C.blue, linewidth=2, label="gelu(x)")
    ax.plot(x, np.maximum(x, 0), color=C.muted, linewidth=1, linestyle="--", label="max(0, x)")
    for point in (-handtf.SWITCH, handtf.SWITCH):
        value = float(handtf.gelu(np.array([float(point)]))[0])
        ax.plot([point], [value], "o", color=C.red)
        ax.annotate(f"gelu({cell_text(point)}) = {cell_text(value)}", (point, value), xytext=(0, 12), textcoords="offset points",
                    ha="center", fontsize=10, color=C.red, **MONO)
    ax.set_xlabel(words["x"], fontsize=10)
    ax.set_title(words["title"], fontsize=11)
    ax.legend(loc="upper left", frameon=False, prop=MONO | {"size": 9})
    tidy(ax)
    return fig


@figure("pattern-lookup", words={"en": {"bias": "bias"}, "zh": {"bias": "偏置"}})
def pattern_lookup(words):
    model = the_model()
    c_fc = model.weights["blocks"][0]["mlp"]["c_fc"]
    first_slot = model.embed_labels.index(f"{model.chars[0]}@0")
    matrix = np.vstack([c_fc["w"][first_slot:], c_fc["b"]])  # [k*m + 1, n_hidden]
    rows = [*model.embed_labels[first_slot:], words["bias"]]
    cell = 0.55
    width, height = 1.0 + len(model.hidden_labels) * cell + 0.2, 0.9 + len(rows) * cell + 0.15
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((1.0 / width, 0.15 / height, len(model.hidden_labels) * cell / width, len(rows) * cell / height))
    heatmap(ax, matrix, rows, model.hidden_labels, title=f"c_fc of ({PATTERN})*", norm=Normalize(-40, 40),
            text=lambda value: "" if value == 0 else f"{value:g}".replace("-", "\u2212"))
    ax.axhline(len(rows) - 1.5, color=C.ink, linewidth=2)
    return fig
