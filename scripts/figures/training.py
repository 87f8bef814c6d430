"""Figures of training: the hand-made architecture trained from random weights, and the paper's schedule."""

import functools
import math

import numpy as np

import handtf
from handtf.training.optimiser import learning_rate
from handtf.training.trainer import train

from .common import MONO, C, heatmap, plt, restack, seq_labels, tidy
from .registry import figure

WINDOWS = ("aabaa", "abaab", "baaba")  # the three windows of aab text


@functools.cache
def run(seed, n_head=1):
    return train("aab", steps=400, seed=seed, n_head=n_head)  # the runs the page trains


@figure("training-loss", words={
    "en": {"run": "seed {seed}, {n} head{s}", "floor": "floor 2·log 2 / 15", "step": "step", "loss": "loss",
           "title": "cross-entropy on the windows of aab"},
    "zh": {"run": "种子 {seed}，{n} 个头", "floor": "下限 2·log 2 / 15", "step": "步数", "loss": "损失",
           "title": "aab 各窗口上的交叉熵"},
}, phone=True)
def training_loss(words, phone=False):
    fig, ax = plt.subplots(figsize=(4.8, 3.8) if phone else (8.4, 3.4))
    fig.subplots_adjust(left=0.16 if phone else 0.09, right=0.97 if phone else 0.98, bottom=0.14 if phone else 0.16, top=0.9)
    steps = np.arange(1, 401)
    # the runs differ in line style and marker, not only in colour (WCAG 1.4.1: blue and red of
    # equal lightness look alike to a reader who cannot tell the hues apart)
    runs = (((0, 1), C.blue, "-", "o"), ((19, 1), C.red, "--", "s"), ((19, 2), C.series[2], "-.", "^"))
    for (seed, n_head), colour, style, marker in runs:
        # four significant digits: a long run's last bits depend on the CPU's vector
        # instructions (numpy's SIMD exp and log), and the drawing must not
        losses = [float(f"{loss:.4g}") for loss in run(seed, n_head).losses]
        ax.plot(steps, losses, style, color=colour, linewidth=1.6, marker=marker, markersize=5, markevery=(20 * (1 + seed % 3), 50),
                label=words["run"].format(seed=seed, n=n_head, s="s" * (n_head > 1)))
    floor = 2 * math.log(2) / 15
    ax.axhline(floor, color=C.muted, linestyle=":", linewidth=1.2, label=words["floor"])
    ax.set_yscale("log")
    ax.set_xlabel(words["step"], **MONO)
    ax.set_ylabel(words["loss"], **MONO)
    ax.set_title(words["title"], fontsize=11, **MONO)
    ax.legend(frameon=False, prop=MONO | {"size": 9})
    tidy(ax)
    return fig


def attention_grid(matrices_by_row, phone=False):
    """Rows of 5x5 heatmaps: one row per model, one column per window (a phone: one row per window)."""
    n_rows = len(matrices_by_row)
    fig, axes = plt.subplots(n_rows, 3, figsize=(8.4, 3.0 * n_rows), squeeze=False)
    fig.subplots_adjust(left=0.1, right=0.99, bottom=0.02, top=0.86 if n_rows == 1 else 0.92, wspace=0.35, hspace=0.45)
    for axes_row, (name, matrices) in zip(axes, matrices_by_row):
        for ax, window, matrix in zip(axes_row, WINDOWS, matrices):
            heatmap(ax, matrix, seq_labels(window), range(5), title=f"{name}: {window}", text=lambda v: f"{v:.2f}".rstrip("0").rstrip(".") if abs(v) >= 0.005 else "")
    if phone:  # the models side by side, one window a row
        return restack(fig, groups=[[row * 3 + window] for window in range(3) for row in range(n_rows)], columns=n_rows)
    return fig


HAND_LEARNED = {
    "en": {"hand": "hand-set", "learned": "learned", "learned_seed": "learned, seed 0", "window": "window aabaa"},
    "zh": {"hand": "手工设定", "learned": "训练所得", "learned_seed": "训练所得，种子 0", "window": "窗口 aabaa"},
}


@figure("learned-attention", words=HAND_LEARNED, phone=True)
def learned_attention(words, phone=False):
    hand = [handtf.trace(w).attention_weights for w in WINDOWS]
    learned = [handtf.trace(w, model=run(0).weights).attention_weights for w in WINDOWS]
    return attention_grid([(words["hand"], hand), (words["learned_seed"], learned)], phone)  # row: query, column: key


@figure("learned-scores-values", words=HAND_LEARNED, phone=True)
def learned_scores_values(words, phone=False):
    hand, learned = handtf.trace("aabaa"), handtf.trace("aabaa", model=run(0).weights)
    fig, axes = plt.subplots(2, 2, figsize=(8.4, 6.6), gridspec_kw={"width_ratios": [5, 8]})
    fig.subplots_adjust(left=0.08, right=0.99, bottom=0.02, top=0.88, wspace=0.3, hspace=0.5)
    rows = seq_labels("aabaa")
    for ax_row, (name, t) in zip(axes, ((words["hand"], hand), (words["learned"], learned))):
        scores = np.where(np.triu(np.ones((5, 5)), 1) > 0, np.nan, t.scaled_scores)  # hidden by the mask: left empty
        heatmap(ax_row[0], np.nan_to_num(scores), rows, range(5), title=f"{name}: q·kᵀ/√8",
                text=lambda v: "" if v == 0 else f"{v:.0f}" if abs(v) >= 10 else f"{v:.1f}")
        heatmap(ax_row[1], t.v, rows, handtf.EMBED_LABELS if t is hand else range(8), title=f"{name}: v",
                text=lambda v: "" if abs(v) < 0.05 else f"{v:.1f}")
    fig.suptitle(words["window"], fontsize=11, **MONO)
    return restack(fig) if phone else fig


@figure("warmup-schedule", words={
    "en": {"paper": "the paper: d_model 512, warmup 4000", "run": "d_model {d}, warmup {w}", "ours": "handtf's runs",
           "step": "step", "rate": "learning rate"},
    "zh": {"paper": "原论文：d_model 512，预热 4000 步", "run": "d_model {d}，预热 {w} 步", "ours": "handtf 的训练",
           "step": "步数", "rate": "学习率"},
}, phone=True)
def warmup_schedule(words, phone=False):
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.4, 3.3))
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.17, top=0.86, wspace=0.35)
    steps = np.arange(1, 20001)
    left.plot(steps, [learning_rate(s, 512, 4000) for s in steps], color=C.blue, linewidth=1.6)
    left.axvline(4000, color=C.muted, linestyle=":", linewidth=1.2)
    left.set_title(words["paper"], fontsize=10, **MONO)
    for (d_model, warmup, n), colour in (((8, 50, 400), C.red), ((32, 100, 1000), C.series[2])):
        s = np.arange(1, n + 1)
        right.plot(s, [learning_rate(i, d_model, warmup) for i in s], color=colour, linewidth=1.6, label=words["run"].format(d=d_model, w=warmup))
    right.set_title(words["ours"], fontsize=10, **MONO)
    right.legend(frameon=False, prop=MONO | {"size": 9})
    for ax in (left, right):
        ax.set_xlabel(words["step"], **MONO)
        tidy(ax)
    left.set_ylabel(words["rate"], **MONO)
    if phone:
        right.set_ylabel(words["rate"], **MONO)
        return restack(fig)
    return fig
