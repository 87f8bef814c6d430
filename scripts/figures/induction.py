"""Figures of the page "Induction heads, by hand": both heads' attention, the induction head's scores, training."""

import functools

import numpy as np

import handtf
from handtf.patterns.induction import induction_attention

from .common import C, Normalize, heatmap, plt, tidy
from .registry import figure

TEXT = "abcab"  # the page's worked sequence: the last b is followed by c
SEED_SHOWN = 9  # the training run the page shows
STEPS = 1000


def the_model():
    return handtf.induction_head("abc", n_ctx=8)


def labels(text=TEXT):
    return [f"{i}:{c}" for i, c in enumerate(text)]


def attention_pair(fig, p1, p2, titles):
    """Two attention patterns, one above the other (narrow enough for a phone)."""
    axes = fig.subplots(2, 1)
    fig.subplots_adjust(left=0.17, right=0.97, bottom=0.02, top=0.86, hspace=0.62)
    blank = lambda value: "" if value == 0 else f"{value:.2f}".rstrip("0").rstrip(".")  # noqa: E731
    for ax, pattern, title in zip(axes, (p1, p2), titles):
        heatmap(ax, pattern, labels(), labels(), title=title, norm=Normalize(-1, 1), text=blank)
    return fig


@figure("induction-heads", words={
    "en": {"l1": "layer 1: the token before", "l2": "layer 2: after the last match"},
    "zh": {"l1": "第 1 层：前一个词元", "l2": "第 2 层：上次匹配之后"},
})
def induction_heads(words):
    p1, p2, _ = induction_attention(the_model(), TEXT)
    return attention_pair(plt.figure(figsize=(3.6, 6.4)), p1, p2, (words["l1"], words["l2"]))


@figure("induction-scores", words={
    "en": {"title": "layer 2 scores ÷ 1024"},
    "zh": {"title": "第 2 层的分数 ÷ 1024"},
})
def induction_scores(words):
    model = the_model()
    w, ids = model.weights, [model.chars.index(c) for c in TEXT]
    x = w["wte"][ids] + w["wpe"][: len(ids)]  # [n_seq, n_embd]
    x = handtf.transformer_block(x, **w["blocks"][0])  # what layer 2 reads
    q, k, _ = np.split(handtf.linear(x, **w["blocks"][1]["attn"]["c_attn"]), 3, axis=-1)
    scores = q @ k.T / np.sqrt(model.n_embd) / handtf.LG  # [n_seq, n_seq]
    scores[np.triu_indices(len(ids), 1)] = np.nan  # a key after the query is masked
    fig = plt.figure(figsize=(3.6, 3.4))
    ax = fig.add_axes((0.17, 0.03, 0.8, 0.66))
    heatmap(ax, scores, labels(), labels(), title=words["title"], norm=Normalize(-12, 12),
            text=lambda value: "" if np.isnan(value) else f"{value:.0f}")
    return fig


@functools.lru_cache(maxsize=1)
def trained():
    return handtf.train_induction(steps=STEPS, seed=SEED_SHOWN)


@figure("induction-training", words={
    "en": {"x": "step", "y": "loss (log scale)", "title": "training from random weights, seed 9"},
    "zh": {"x": "步数", "y": "损失（对数刻度）", "title": "从随机权重开始训练，种子 9"},
})
def induction_training(words):
    # Three significant digits: what every computer agrees on. Machines that differ in the last bit
    # of exp (with and without AVX-512) keep seed 9's losses within 1e-7 of each other, enough to
    # change the SVG's sixth decimal, not its picture (tests/test_induction.py runs both).
    losses = np.array([float(f"{loss:.3g}") for loss in trained().losses])
    fig, ax = plt.subplots(figsize=(3.8, 2.9))
    fig.subplots_adjust(left=0.2, right=0.96, bottom=0.18, top=0.88)
    ax.semilogy(np.arange(1, len(losses) + 1), losses, color=C.blue, linewidth=1.2)
    ax.set_xlabel(words["x"], fontsize=10)
    ax.set_ylabel(words["y"], fontsize=10)
    ax.set_title(words["title"], fontsize=10)
    ax.tick_params(labelsize=9)
    tidy(ax)
    return fig


@figure("induction-learned", words={
    "en": {"l1": "learned layer 1", "l2": "learned layer 2"},
    "zh": {"l1": "学到的第 1 层", "l2": "学到的第 2 层"},
})
def induction_learned(words):
    p1, p2, _ = induction_attention(trained().model, TEXT)
    return attention_pair(plt.figure(figsize=(3.6, 6.4)), p1, p2, (words["l1"], words["l2"]))
