"""Figures of the page "A GPT-2 that adds, by hand": both heads' attention, the staircase of the feed-forward network."""

import numpy as np

import handtf
from handtf.patterns.addition import STEPS

from .common import C, Normalize, heatmap, plt, tidy
from .registry import figure

A, B = 958, 67  # the page's worked addition at 3 digits: 1025, a carry into every column


def position_labels(model):
    text = model.prompt(A, B) + model.answer(A + B)[:-1]
    return [f"{i}:{c}" for i, c in enumerate(text)]


@figure("adder-heads", words={
    "en": {"h0": "head 0: a_i and b_i", "h1": "head 1: a_i−1, b_i−1, s_i−1", "row": "writes"},
    "zh": {"h0": "头 0：a_i 与 b_i", "h1": "头 1：a_i−1、b_i−1、s_i−1", "row": "写出"},
})
def adder_heads(words):
    model = handtf.adder(3)
    steps = handtf.adder_steps(model, A, B)
    n_seq = len(position_labels(model))
    rows = [f"{words['row']} s{i}" for i in range(len(steps))]
    fig = plt.figure(figsize=(5.3, 4.8))
    axes = fig.subplots(2, 1)
    fig.subplots_adjust(left=0.2, right=0.98, bottom=0.02, top=0.86, hspace=0.75)
    blank = lambda value: "" if value == 0 else f"{value:.2f}".rstrip("0").rstrip(".")  # noqa: E731
    for head, ax, title in ((0, axes[0], words["h0"]), (1, axes[1], words["h1"])):
        pattern = np.zeros((len(steps), n_seq))
        for i, step in enumerate(steps):
            pattern[i, : step.position + 1] = step.attention[head]
        heatmap(ax, pattern, rows, position_labels(model), title=title, norm=Normalize(-1, 1), text=blank, fontsize=9)
    return fig


@figure("adder-staircase", words={
    "en": {"x": "T = 10 (a+b) + (a′+b′+s′) − 2 s′", "y": "digit written", "title": "the feed-forward network's staircase",
           "dots": "the values T takes"},
    "zh": {"x": "T = 10 (a+b) + (a′+b′+s′) − 2 s′", "y": "写出的数字", "title": "前馈网络的阶梯",
           "dots": "T 可能取的值"},
})
def adder_staircase(words):
    model = handtf.adder(1)
    mlp = model.weights["blocks"][0]["mlp"]
    reads = mlp["c_fc"]["w"][14] / 10  # one unit of T: the row of column a+b, over its weight 10
    grid = np.linspace(-5, 195, 4001)  # [n]
    hidden = handtf.gelu(grid[:, None] * reads + mlp["c_fc"]["b"])  # [n, 38]
    out = hidden @ mlp["c_proj"]["w"] + mlp["c_proj"]["b"]  # [n, n_embd]
    digit = out[:, :10].argmax(axis=1)  # the digit whose column gets LG
    ramp = out[:, :10].max(axis=1) < handtf.LG - 1e-6  # between steps: two columns share LG
    values = np.array([10 * t - c for t in range(STEPS + 1) for c in (1, 0) if 10 * t - c >= -1])
    fig, ax = plt.subplots(figsize=(5.0, 3.0))
    fig.subplots_adjust(left=0.13, right=0.97, bottom=0.2, top=0.88)
    shown = np.where(ramp, np.nan, digit.astype(float))
    ax.plot(grid, shown, color=C.blue, linewidth=1.4)
    ax.plot(values, np.ceil(values / 10) % 10, "o", color=C.red, markersize=3.2,
            label=words["dots"])
    ax.set_xlabel(words["x"], fontsize=9)
    ax.set_ylabel(words["y"], fontsize=9)
    ax.set_title(words["title"], fontsize=10)
    ax.set_yticks(range(10))
    ax.set_xticks(range(0, 200, 20))
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper left", frameon=False)
    tidy(ax)
    return fig


TRAINED_DIGITS, TRAINED_A, TRAINED_B = 10, 9876543210, 1234567899  # the live widget's first sum


def trained_model():
    """The weights scripts/train_adder.py saved, in the hand-set adder's layout (shipped with the package)."""
    return handtf.trained_adder()


def attention_maps(model, a=TRAINED_A, b=TRAINED_B):
    """Each head's attention at every step of ``a + b``, ``[n_head, n_steps, n_ctx]``, and the text it reads."""
    steps = handtf.adder_steps(model, a, b)
    maps = np.zeros((model.n_head, len(steps), model.n_ctx))
    for i, step in enumerate(steps):
        maps[:, i, : step.position + 1] = step.attention
    return maps, model.prompt(a, b) + "".join(str(s.digit) for s in steps[:-1])


def matching_heads(trained, hand):
    """For each hand-set head, the trained head whose attention overlaps it most (``[n_head, n_steps, n_ctx]`` each)."""
    return [int(np.argmax([(np.minimum(t, h)).sum() for t in trained])) for h in hand]


@figure("adder-learned", words={
    "en": {"title": "trained head {trained}; circles: hand-set head {hand} ({reads})", "row": "writes",
           "reads0": "a_i, b_i", "reads1": "a_i−1, b_i−1, s_i−1", "col": "the text it reads, position 0 to 31"},
    "zh": {"title": "训练得到的头 {trained}；圆圈：手工设定的头 {hand}（{reads}）", "row": "写出",
           "reads0": "a_i、b_i", "reads1": "a_i−1、b_i−1、s_i−1", "col": "它读到的文本，位置 0 到 31"},
})
def adder_learned(words):
    trained, text = attention_maps(trained_model())
    hand, _ = attention_maps(handtf.adder(TRAINED_DIGITS))
    fig = plt.figure(figsize=(5.3, 5.4))
    axes = fig.subplots(2, 1)
    fig.subplots_adjust(left=0.1, right=0.99, bottom=0.03, top=0.9, hspace=0.62)
    rows = [f"s{i}" for i in range(trained.shape[1])]
    for head, (ax, match) in enumerate(zip(axes, matching_heads(trained, hand))):
        title = words["title"].format(trained=match, hand=head, reads=words[f"reads{head}"])
        heatmap(ax, trained[match], rows, list(text), norm=Normalize(-1, 1), text=lambda value: "", fontsize=9)
        ax.set_title(title, fontsize=10, pad=9 * 2.1 + 4)
        ys, xs = np.nonzero(hand[head])
        ax.plot(xs, ys, "o", markersize=6.5, markerfacecolor="none", markeredgecolor=C.ink, markeredgewidth=1.1)
        ax.set_ylabel(words["row"], fontsize=9)
    axes[-1].set_xlabel(words["col"], fontsize=9)
    return fig
