"""Figures of training: the hand-made architecture trained from random weights, and the paper's schedule."""

import functools
import math

import numpy as np

import handtf
from handtf.training import learning_rate, train

from .common import MONO, C, heatmap, plt, seq_labels, tidy
from .registry import figure

WINDOWS = ("aabaa", "abaab", "baaba")  # the three windows of aab text


@functools.cache
def run(seed, n_head=1):
    return train("aab", steps=400, seed=seed, n_head=n_head)  # the runs the page trains


@figure("training-loss")
def training_loss():
    fig, ax = plt.subplots(figsize=(8.4, 3.4))
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.16, top=0.9)
    steps = np.arange(1, 401)
    for (seed, n_head), colour, style in (((0, 1), C.blue, "-"), ((19, 1), C.red, "-"), ((19, 2), C.series[2], "--")):
        ax.plot(steps, run(seed, n_head).losses, style, color=colour, linewidth=1.6, label=f"seed {seed}, {n_head} head{'s' * (n_head > 1)}")
    floor = 2 * math.log(2) / 15
    ax.axhline(floor, color=C.muted, linestyle=":", linewidth=1.2, label="floor 2·log 2 / 15")
    ax.set_yscale("log")
    ax.set_xlabel("step", **MONO)
    ax.set_ylabel("loss", **MONO)
    ax.set_title("cross-entropy on the windows of aab", fontsize=11, **MONO)
    ax.legend(frameon=False, prop=MONO | {"size": 9})
    tidy(ax)
    return fig


def attention_grid(matrices_by_row):
    """Rows of 5x5 heatmaps: one row per model, one column per window."""
    n_rows = len(matrices_by_row)
    fig, axes = plt.subplots(n_rows, 3, figsize=(8.4, 3.0 * n_rows), squeeze=False)
    fig.subplots_adjust(left=0.1, right=0.99, bottom=0.02, top=0.86 if n_rows == 1 else 0.92, wspace=0.35, hspace=0.45)
    for axes_row, (name, matrices) in zip(axes, matrices_by_row):
        for ax, window, matrix in zip(axes_row, WINDOWS, matrices):
            heatmap(ax, matrix, seq_labels(window), range(5), title=f"{name}: {window}", text=lambda v: f"{v:.2f}".rstrip("0").rstrip(".") if abs(v) >= 0.005 else "")
    return fig


@figure("learned-attention")
def learned_attention():
    hand = [handtf.trace(w).attention_weights for w in WINDOWS]
    learned = [handtf.trace(w, model=run(0).weights).attention_weights for w in WINDOWS]
    return attention_grid([("hand-set", hand), ("learned, seed 0", learned)])  # row: query, column: key


@figure("learned-scores-values")
def learned_scores_values():
    hand, learned = handtf.trace("aabaa"), handtf.trace("aabaa", model=run(0).weights)
    fig, axes = plt.subplots(2, 2, figsize=(8.4, 6.6), gridspec_kw={"width_ratios": [5, 8]})
    fig.subplots_adjust(left=0.08, right=0.99, bottom=0.02, top=0.88, wspace=0.3, hspace=0.5)
    rows = seq_labels("aabaa")
    for ax_row, (name, t) in zip(axes, (("hand-set", hand), ("learned", learned))):
        scores = np.where(np.triu(np.ones((5, 5)), 1) > 0, np.nan, t.scaled_scores)  # hidden by the mask: left empty
        heatmap(ax_row[0], np.nan_to_num(scores), rows, range(5), title=f"{name}: q·kᵀ/√8",
                text=lambda v: "" if v == 0 else f"{v:.0f}" if abs(v) >= 10 else f"{v:.1f}")
        heatmap(ax_row[1], t.v, rows, handtf.EMBED_LABELS if name == "hand-set" else range(8), title=f"{name}: v",
                text=lambda v: "" if abs(v) < 0.05 else f"{v:.1f}")
    fig.suptitle("window aabaa", fontsize=11, **MONO)
    return fig


@figure("warmup-schedule")
def warmup_schedule():
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.4, 3.3))
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.17, top=0.86, wspace=0.35)
    steps = np.arange(1, 20001)
    left.plot(steps, [learning_rate(s, 512, 4000) for s in steps], color=C.blue, linewidth=1.6)
    left.axvline(4000, color=C.muted, linestyle=":", linewidth=1.2)
    left.set_title("the paper: d_model 512, warmup 4000", fontsize=10, **MONO)
    for (d_model, warmup, n), colour in (((8, 50, 400), C.red), ((32, 100, 1000), C.series[2])):
        s = np.arange(1, n + 1)
        right.plot(s, [learning_rate(i, d_model, warmup) for i in s], color=colour, linewidth=1.6, label=f"d_model {d_model}, warmup {warmup}")
    right.set_title("handtf's runs", fontsize=10, **MONO)
    right.legend(frameon=False, prop=MONO | {"size": 9})
    for ax in (left, right):
        ax.set_xlabel("step", **MONO)
        tidy(ax)
    left.set_ylabel("learning rate", **MONO)
    return fig
