"""Figures of part 2, the Transformer piece by piece."""

import functools
import inspect
import math

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

import handtf
from handtf import seq2seq

from .common import (
    MONO, C, Diagram, Normalize, bar_values, cell_text, colour_field, heatmap, label, on, plt, restack, tidy,
)
from .registry import figure


@figure("positional-encoding", phone=True)
def positional_encoding(phone=False):
    n_pos, d_model = 50, 64
    pe = handtf.positional_encoding(n_pos, d_model)  # [n_pos, d_model]
    norm = Normalize(-1, 1)
    width, height, cell = 8.4, 3.6, 3.5 / 72  # inches; whole-point cells keep the SVG's numbers short
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0.5 / width, 0.5 / height, d_model * cell / width, n_pos * cell / height))
    colour_field(ax, pe, norm)
    ax.set_xlabel("i", **MONO)
    ax.set_ylabel("pos", **MONO)
    ax.set_title(f"PE[pos, i]   d_model = {d_model}", fontsize=11, **MONO)
    scale = plt.cm.ScalarMappable(norm=norm, cmap=C.cmap)
    colourbar = fig.colorbar(scale, cax=fig.add_axes((3.75 / width, 0.5 / height, 0.15 / width, n_pos * cell / height)), boundaries=np.linspace(-1, 1, 33))
    colourbar.set_ticks([-1, -0.5, 0, 0.5, 1])  # the scale's numbers, so that a value is read without telling hues apart
    colourbar.ax.tick_params(labelsize=9)
    right = fig.add_axes((4.8 / width, 0.5 / height, 3.5 / width, n_pos * cell / height))  # clear of the scale's numbers
    # four series told apart by line style and marker as well as colour (WCAG 1.4.1)
    styles = (("-", "o"), ("--", "s"), ("-.", "^"), (":", "D"))
    for colour, (line, marker), i in zip(C.series, styles, (0, 8, 16, 32)):
        right.plot(range(n_pos), pe[:, i], linestyle=line, marker=marker, color=colour, markersize=3.5, linewidth=1.4,
                   markevery=(i // 8, 5), label=f"i = {i}")
    right.set_xlabel("pos", **MONO)
    right.set_ylim(-1.15, 1.45)
    right.set_title("PE[pos, i]", fontsize=11, **MONO)
    right.legend(loc="upper center", ncol=4, frameon=False, prop=MONO | {"size": 9}, handlelength=1.2, columnspacing=0.8)
    tidy(right)
    return restack(fig, groups=[[0, 1], [2]]) if phone else fig


@functools.cache
def qk_spread_data(n_samples=2000, n_keys=8):
    """The spread of random dot products and the softmax's largest weight, by d_k (once: every variant draws it)."""
    rng = np.random.default_rng(0)
    d_ks = 2 ** np.arange(2, 10)  # 4 .. 512
    raw_std, scaled_std, raw_max, scaled_max = [], [], [], []
    for d_k in d_ks:
        q = rng.standard_normal((n_samples, 1, d_k))  # [n_samples, 1, d_k]
        k = rng.standard_normal((n_samples, n_keys, d_k))  # [n_samples, n_keys, d_k]
        scores = (q @ k.swapaxes(-1, -2))[:, 0]  # [n_samples, n_keys]
        raw_std.append(scores.std())
        scaled_std.append((scores / math.sqrt(d_k)).std())
        raw_max.append(handtf.softmax(scores).max(axis=-1).mean())
        scaled_max.append(handtf.softmax(scores / math.sqrt(d_k)).max(axis=-1).mean())
    return d_ks, raw_std, scaled_std, raw_max, scaled_max


@figure("qk-spread", words={"en": {"title": "mean max weight, 8 keys"}, "zh": {"title": "最大权重的均值，8 个键"}}, phone=True)
def qk_spread(words, phone=False):
    n_keys = 8
    d_ks, raw_std, scaled_std, raw_max, scaled_max = qk_spread_data(n_keys=n_keys)
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.4, 3.6))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.86, wspace=0.3)
    left.plot(d_ks, np.sqrt(d_ks), color=C.muted, linestyle="--", label="√d_k")
    left.plot(d_ks, raw_std, "o-", color=C.red, label="std(q·k)")
    left.plot(d_ks, scaled_std, "s-", color=C.blue, label="std(q·k/√d_k)")
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_title("std", fontsize=11, **MONO)
    right.plot(d_ks, raw_max, "o-", color=C.red, label="softmax(q·K)")
    right.plot(d_ks, scaled_max, "s-", color=C.blue, label="softmax(q·K/√d_k)")
    right.axhline(1 / n_keys, color=C.muted, linestyle=":", label="1/8")
    right.set_xscale("log", base=2)
    right.set_ylim(0, 1.05)
    right.set_title(words["title"], fontsize=11, **MONO)
    for ax in (left, right):
        ax.set_xticks(d_ks, [str(d) for d in d_ks])
        ax.set_xlabel("d_k", **MONO)
        ax.legend(frameon=False, prop=MONO | {"size": 9})
        tidy(ax)
    left.set_yticks([1, 2, 4, 8, 16, 32], ["1", "2", "4", "8", "16", "32"])
    return restack(fig) if phone else fig


def cells(ax, matrix, x0, y0, colour_of_col):
    """A matrix as unit squares with its numbers, its top left corner at (x0, y0), on a colour per column."""
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            ax.add_patch(Rectangle((x0 + j, y0 - i - 1), 1, 1, facecolor=colour_of_col(j), edgecolor=C.bg, linewidth=1.5))
            label(ax, x0 + j + 0.5, y0 - i - 0.5, cell_text(value), colour_of_col(j), ha="center", va="center", fontsize=10)


def x_panel(x, colours, figsize, xmax, ymin, left, title_y):
    """head-split's canvas with x [4×8] drawn at the top left, its columns coloured by head."""
    fig = plt.figure(figsize=figsize)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, xmax)
    ax.set_ylim(ymin, 0.8)
    ax.axis("off")
    ax.set_aspect("equal")
    cells(ax, x, left, -1.2, lambda j: colours[j // 4])
    ax.text(left + 4, title_y, "x  [4×8]", ha="center", va="center", fontsize=12, **MONO)
    for h in range(2):
        ax.text(left + 2 + 4 * h, -0.95, f"h={h}", ha="center", va="center", fontsize=9, color=C.muted, **MONO)
    return fig, ax


@figure("head-split", phone=True)
def head_split(phone=False):
    x = np.arange(32.0).reshape(4, 8)  # [n_seq, n_embd]
    heads = handtf.split_heads(x, n_head=2)  # [n_head, n_seq, d_head]
    colours = (C.warm, C.cool)
    if phone:
        return head_split_phone(x, heads, colours)
    fig, ax = x_panel(x, colours, (8.4, 3.6 * 8.4 / 8.6), 17.2, -7.4, left=0.5, title_y=-0.5)
    ax.add_patch(FancyArrowPatch((9.0, -3.2), (11.3, -3.2), arrowstyle="-|>", mutation_scale=16, color=C.ink, linewidth=1.4))
    ax.text(10.15, -2.7, "split_heads", ha="center", va="bottom", fontsize=9.5, **MONO)
    ax.text(10.15, -3.7, "n_head=2", ha="center", va="top", fontsize=9.5, **MONO)
    ax.text(14.1, 0.3, "[2×4×4]", ha="center", va="center", fontsize=12, **MONO)
    for h in range(2):
        top = -0.3 - h * 3.6
        ax.text(11.7, top - 0.35, f"h={h}", ha="left", va="center", fontsize=9.5, color=C.muted, **MONO)
        # each head is drawn slightly smaller so both fit beside x
        sub = heads[h]
        for i, row in enumerate(sub):
            for j, value in enumerate(row):
                ax.add_patch(Rectangle((12.6 + j * 0.75, top - 0.75 * (i + 1)), 0.75, 0.75, facecolor=colours[h], edgecolor=C.bg, linewidth=1.5))
                label(ax, 12.6 + j * 0.75 + 0.375, top - 0.75 * i - 0.375, cell_text(value), colours[h], ha="center", va="center", fontsize=9)
    return fig


def head_split_phone(x, heads, colours):
    """head-split for a phone: x on top, the two heads under it side by side."""
    fig, ax = x_panel(x, colours, (4.6, 6.7), 9.2, -12.6, left=0.6, title_y=-0.3)
    ax.add_patch(FancyArrowPatch((4.6, -5.5), (4.6, -6.9), arrowstyle="-|>", mutation_scale=16, color=C.ink, linewidth=1.4))
    ax.text(4.4, -6.2, "split_heads", ha="right", va="center", fontsize=9.5, **MONO)
    ax.text(4.8, -6.2, "n_head=2", ha="left", va="center", fontsize=9.5, **MONO)
    ax.text(4.6, -7.4, "[2×4×4]", ha="center", va="center", fontsize=12, **MONO)
    for h in range(2):
        ax.text(2.1 + 5 * h, -7.95, f"h={h}", ha="center", va="center", fontsize=9.5, color=C.muted, **MONO)
        cells(ax, heads[h], 0.1 + 5 * h, -8.3, lambda j, h=h: colours[h])
    return fig


TOY_LOGITS = np.array([3.0, 2.2, 1.6, 1.0, 0.2, -0.5])  # six tokens, best first


@figure("temperature", phone=True)
def temperature(phone=False):
    temperatures = (0.5, 1.0, 2.0)
    fig, axes = plt.subplots(1, 3, figsize=(8.4, 3.0), sharey=True)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.12, top=0.84, wspace=0.15)
    ids = range(TOY_LOGITS.size)
    for ax, t in zip(axes, temperatures):
        p = handtf.sampling_distribution(TOY_LOGITS, temperature=t)
        ax.bar(ids, p, color=C.red, width=0.7)
        ax.set_ylim(0, 1.0)
        bar_values(ax, ids, p)
        ax.set_xticks(list(ids), [str(i) for i in ids])
        ax.set_title(f"T = {cell_text(t)}", fontsize=12, **MONO)
        tidy(ax)
    return restack(fig) if phone else fig


@figure("top-p", phone=True)
def top_p(phone=False):
    p = handtf.softmax(TOY_LOGITS)
    ids = np.arange(TOY_LOGITS.size)
    panels = [
        ("top_k = 3", handtf.top_k_filter(TOY_LOGITS, top_k=3), handtf.sampling_distribution(TOY_LOGITS, top_k=3)),
        ("top_p = 0.9", handtf.top_p_filter(TOY_LOGITS, top_p=0.9), handtf.sampling_distribution(TOY_LOGITS, top_p=0.9)),
    ]
    fig, axes = plt.subplots(2, 1, figsize=(5.0, 6.8) if phone else (8.4, 6.4), sharex=True)
    fig.subplots_adjust(left=0.1 if phone else 0.07, right=0.99, bottom=0.06, top=0.84 if phone else 0.88, hspace=0.32)
    for ax, (title, filtered, renormalised) in zip(axes, panels):
        kept = np.isfinite(filtered)
        ax.bar(ids - 0.2, p, width=0.38, color=[C.red if keep else C.faint for keep in kept])
        ax.bar(ids[kept] + 0.2, renormalised[kept], width=0.38, color=C.blue)
        ax.set_ylim(0, 1.15)
        for x, value in [*zip(ids - 0.2, p), *zip(ids[kept] + 0.2, renormalised[kept])]:
            ax.text(x, value + 0.02, cell_text(value), ha="center", va="bottom", fontsize=9)
        ax.set_xticks(ids, [str(i) for i in ids])
        ax.set_title(title, fontsize=12, **MONO)
        tidy(ax)
    axes[1].plot(ids, np.cumsum(p), "o-", color=C.muted, markersize=4)
    axes[1].axhline(0.9, color=C.muted, linestyle=":", linewidth=1)
    axes[1].text(-0.45, 0.92, "0.9", ha="left", va="bottom", fontsize=9, color=C.muted)
    handles = [
        Rectangle((0, 0), 1, 1, color=C.red), Rectangle((0, 0), 1, 1, color=C.faint),
        Rectangle((0, 0), 1, 1, color=C.blue), axes[1].lines[0],
    ]
    fig.legend(handles, ["softmax(z)", "−∞", "p'", "Σ softmax(z)"], loc="upper center", ncol=2 if phone else 4, frameon=False,
               prop=MONO | {"size": 9})
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


@figure("beam-search", phone=True)
def beam_search(phone=False):
    probability, kept = beam_tree()
    step = 1.9 if phone else 3.0  # the x distance between two steps
    ranking = [tuple(t) for t, _ in handtf.beam_search(beam_step, list(BEAM_START), BEAM_WIDTH, 5, eos=BEAM_EOS)]
    position = {BEAM_START: (0.0, 0.0)}  # hypothesis -> (x, y): one column per step, siblings stacked
    for depth, gap in ((1, 2.2), (2, 1.05)):
        level = [tokens for tokens in probability if len(tokens) == depth + 1]
        for i, tokens in enumerate(level):
            position[tokens] = (step * depth, -(i - (len(level) - 1) / 2) * gap)
    fig = plt.figure(figsize=(5.0, 5.25) if phone else (8.4, 5.2))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.6, 2 * step + 2.3) if phone else ax.set_xlim(-0.9, 8.5)
    ax.set_ylim(-3.6, 3.4)
    ax.axis("off")
    for tokens in list(probability)[1:]:  # the edges, labelled with the step's probability
        (x0, y0), (x1, y1) = position[tokens[:-1]], position[tokens]
        kept_edge = tokens in kept
        ax.plot([x0 + 0.45, x1 - 0.45], [y0, y1], color=C.ink if kept_edge else C.faint, linewidth=1.6 if kept_edge else 1,
                linestyle="-" if on else "--", zorder=1)
        step_probability = BEAM_PROBS[tokens[1:-1]][tokens[-1]]
        ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, cell_text(step_probability), ha="center", va="bottom",
                fontsize=9, color=C.blue if kept_edge else C.muted)
    for tokens, p in probability.items():  # the nodes: last token, and the hypothesis's probability
        x, y = position[tokens]
        kept_node, finished = tokens in kept or tokens == BEAM_START, tokens in ranking
        fill = C.warm if finished else (C.box if kept_node else C.bg)
        ax.add_patch(FancyBboxPatch(
            (x - 0.42, y - 0.3), 0.84, 0.6, boxstyle="round,pad=0.02,rounding_size=0.1",
            facecolor=fill,
            edgecolor=(C.red if finished else C.ink) if kept_node else C.faint, linewidth=2 if finished else 1.2,
            linestyle="-" if on else "--", zorder=2,
        ))
        colour = C.ink if kept_node else C.muted
        on(ax.text(x, y + 0.1, str(tokens[-1]), ha="center", va="center", fontsize=11, color=colour, zorder=3, **MONO), fill)
        on(ax.text(x, y - 0.14, cell_text(p), ha="center", va="center", fontsize=9, color=colour, zorder=3), fill)
        if finished:
            rank = f"#{ranking.index(tokens) + 1}  [" + ", ".join(map(str, tokens)) + "]"
            ax.text(x + 0.55, y, rank, ha="left", va="center", fontsize=9, color=C.red, **MONO)
    ax.text(step, 3.2, f"beam_width = {BEAM_WIDTH},  eos = {BEAM_EOS}", ha="center", va="center", fontsize=11, **MONO)
    for depth in (0, 1, 2):
        ax.text(step * depth, -3.4, f"t = {depth}", ha="center", va="center", fontsize=9, color=C.muted, **MONO)
    return fig


# ---------------------------------------------------------------- the big picture


SEQ2SEQ = handtf.Config(vocab_src=4, vocab_tgt=6, d_model=8, n_head=2, d_ff=32, n_layers=2)  # the encoder-decoder page's model (seed 0)
SRC_WORDS = ["<pad>", "je", "suis", "étudiant"]
TGT_WORDS = ["<bos>", "<eos>", "i", "am", "a", "student"]


def sublayers(block_function, block_params):
    """The parameter groups of a block in the order the block's function takes them (self_attn, ln_1, ...)."""
    return [name for name in inspect.signature(block_function).parameters if name in block_params]


TRANSFORMER_WORDS = {
    "en": {
        "self_attn": "self-attention", "heads, no mask": "{h} heads, no mask", "mlp": "feed-forward",
        "cross_attn": "cross-attention", "cross_sub": "q: decoder, k, v: memory", "masked": "masked self-attention",
        "heads, causal": "{h} heads, causal mask", "post": "add & norm", "pre": "norm, then add", "source": "source",
        "target": "target, shifted right", "encoder": "encoder block  × {n}", "decoder": "decoder block  × {n}",
        "memory": "memory", "linear": "linear {d} → {v}", "next": "next token  [n_tgt, {v}]",
    },
    "zh": {
        "self_attn": "自注意力", "heads, no mask": "{h} 个头，无掩码", "mlp": "前馈网络",
        "cross_attn": "交叉注意力", "cross_sub": "q：解码器；k、v：memory", "masked": "带掩码的自注意力",
        "heads, causal": "{h} 个头，因果掩码", "post": "残差相加，再层归一化", "pre": "先层归一化，再残差相加", "source": "源序列",
        "target": "目标序列，右移一位", "encoder": "编码器块  × {n}", "decoder": "解码器块  × {n}",
        "memory": "memory", "linear": "线性层 {d} → {v}", "next": "下一个词元  [n_tgt, {v}]",
    },
}


@figure("transformer", words=TRANSFORMER_WORDS, phone=True)
def transformer(words, phone=False):
    """The paper's Figure 1, drawn from the Config and the block functions of handtf.seq2seq.

    A phone: the same, with narrower boxes closer together."""
    # x of the encoder and decoder, box width, frame half width, x of the memory's path, figure width
    enc_x, dec_x, box, frame, path_x, fig_width = (1.5, 4.0, 2.0, 1.1, 2.75, 5.3) if phone else (2.2, 6.1, 2.9, 1.72, 3.75, 8.4)
    config = SEQ2SEQ
    params = handtf.init_params(config, seed=0)
    d, h, ff = config.d_model, config.n_head, config.d_ff
    describe = {
        "self_attn": (words["self_attn"], words["heads, no mask"].format(h=h)),
        "mlp": (words["mlp"], f"{d} → {ff} → {d}, ReLU"),
        "cross_attn": (words["cross_attn"], words["cross_sub"]),
    }
    masked = (words["masked"], words["heads, causal"].format(h=h))
    norm = words[config.norm]
    columns = [
        ("encoder", enc_x, sublayers(seq2seq.encoder_block, params["encoder"]["blocks"][0]), words["source"], "[n_src]"),
        ("decoder", dec_x, sublayers(seq2seq.decoder_block, params["decoder"]["blocks"][0]), words["target"], "[n_tgt]"),
    ]
    height = 8.3
    dg = Diagram(fig_width, height)
    step = 0.62
    tops = {}
    for name, x, groups, tokens, shape in columns:
        dg.box(f"{name}-tokens", x, 0.45, tokens, shape, width=box, fontsize=9.5 if phone else 10.5)
        dg.box(f"{name}-embed", x, 1.45, f"wte · √{d} + PE", f"[{shape[1:-1]}, {d}]", width=box)
        dg.arrow(dg.top(f"{name}-tokens"), dg.bottom(f"{name}-embed"))
        y = 2.55
        first = y
        previous = f"{name}-embed"
        for group in groups:
            if group.startswith("ln_"):
                dg.box(f"{name}-{group}", x, y, norm, width=box, height=0.42, fill=C.warm, fontsize=10, mono=False)
            else:
                title, sub = masked if (name, group) == ("decoder", "self_attn") else describe[group]
                dg.box(f"{name}-{group}", x, y, title, sub, width=box, fill=C.cool if group.endswith("attn") else C.box, mono=False)
            dg.arrow(dg.top(previous), dg.bottom(f"{name}-{group}"))
            previous = f"{name}-{group}"
            y += step
        tops[name] = (y - step, previous)
        frame_bottom, frame_top = first - 0.42, y - step + 0.38
        dg.ax.add_patch(FancyBboxPatch((x - frame, frame_bottom), 2 * frame, frame_top - frame_bottom,
                                       boxstyle="round,pad=0.02,rounding_size=0.15", facecolor="none", edgecolor=C.muted,
                                       linewidth=1.2, linestyle="--"))
        side = -1 if name == "encoder" else 1
        dg.ax.text(x + side * (frame + (0.1 if phone else 0.13)), (frame_bottom + frame_top) / 2, words[name].format(n=config.n_layers), rotation=90,
                   ha="center", va="center", fontsize=10.5, color=C.ink)
    # the memory: the encoder's last output, read by every decoder block's cross-attention
    enc_top, enc_last = tops["encoder"]
    dg.box("memory", enc_x, enc_top + 1.05, words["memory"], f"[n_src, {d}]", width=1.6 if phone else 2.0, fill=C.warm)
    dg.arrow(dg.top(enc_last), dg.bottom("memory"))
    cross = dg.boxes["decoder-cross_attn"]
    dg.path([dg.right("memory"), (path_x, enc_top + 1.05), (path_x, cross[1]), dg.left("decoder-cross_attn")], colour=C.red)
    if phone:  # no room beside the path: above it
        dg.ax.text(path_x - 0.05, enc_top + 1.12, "k, v", ha="right", va="bottom", fontsize=10, color=C.red, **MONO)
    else:
        dg.ax.text(3.85, (enc_top + 1.05 + cross[1]) / 2, "k, v", ha="left", va="center", fontsize=10, color=C.red, **MONO)
    dec_top, dec_last = tops["decoder"]
    dg.box("linear", dec_x, dec_top + 0.85, words["linear"].format(d=d, v=config.vocab_tgt), "x @ wteᵀ", width=box)
    dg.box("softmax", dec_x, dec_top + 1.65, "softmax", words["next"].format(v=config.vocab_tgt), width=box, mono=False)
    dg.arrow(dg.top(dec_last), dg.bottom("linear"))
    dg.arrow(dg.top("linear"), dg.bottom("softmax"))
    dg.ax.text(0.3, height - 0.3, f"Config(d_model={d}, n_head={h},\n       d_ff={ff}, n_layers={config.n_layers},\n"
               f"       norm={config.norm!r})", ha="left", va="top", fontsize=9.5, color=C.muted, linespacing=1.5, **MONO)
    return dg.fig


@figure("cross-attention", words={
    "en": {"head": "head {h}", "queries": "queries", "queries_sub": "decoder rows: 5", "keys": "keys, values",
           "keys_sub": "memory rows: 3", "weights": "weights", "title": "cross-attention: each target row's weights over the source"},
    "zh": {"head": "头 {h}", "queries": "查询", "queries_sub": "解码器的行：5", "keys": "键、值",
           "keys_sub": "memory 的行：3", "weights": "权重", "title": "交叉注意力：目标序列每一行在源序列上的权重"},
}, phone=True)
def cross_attention(words, phone=False):
    """The first decoder block's cross-attention weights for <bos> i am a student against je suis étudiant."""
    params = handtf.init_params(SEQ2SEQ, seed=0)
    src, tgt = np.array([1, 2, 3]), np.array([0, 2, 3, 4, 5])
    memory = handtf.encode(src, params, SEQ2SEQ)
    block = params["decoder"]["blocks"][0]
    x = seq2seq.embed(tgt, params["decoder"]["wte"])
    x = seq2seq.post_norm(x, lambda z: handtf.multi_head_attention(z, z, **block["self_attn"], n_head=2, mask=handtf.causal_mask(5)), block["ln_1"])
    q = handtf.linear(x, **block["cross_attn"]["c_q"])  # [n_tgt, d_model]
    k = handtf.linear(memory, **block["cross_attn"]["c_k"])  # [n_src, d_model]
    w = handtf.attention_weights(handtf.split_heads(q, 2), handtf.split_heads(k, 2))  # [n_head, n_tgt, n_src]
    rows, cols = [TGT_WORDS[i] for i in tgt], [SRC_WORDS[i] for i in src]
    fig = plt.figure(figsize=(8.4, 4.0))
    norm = Normalize(-1, 1)
    for head in range(2):
        ax = fig.add_axes((0.12 + head * 0.29, 0.06, 0.2, 0.62))
        heatmap(ax, w[head], rows if head == 0 else [""] * len(rows), cols, words["head"].format(h=head), norm=norm)
    d = fig.add_axes((0.68, 0.0, 0.32, 1.0))
    d.axis("off")
    d.set_xlim(0, 2.7)
    d.set_ylim(0, 4.0)
    for y, text, sub, fill in [(3.1, words["queries"], words["queries_sub"], C.cool), (1.9, words["keys"], words["keys_sub"], C.warm),
                               (0.7, words["weights"], "[n_head, 5, 3]", C.box)]:
        d.add_patch(FancyBboxPatch((0.25, y - 0.3), 2.2, 0.6, boxstyle="round,pad=0.02,rounding_size=0.08",
                                   facecolor=fill, edgecolor=C.ink, linewidth=1.2))
        on(d.text(1.35, y + 0.1, text, ha="center", va="center", fontsize=10.5, color=C.ink), fill)
        on(d.text(1.35, y - 0.14, sub, ha="center", va="center", fontsize=9, color=C.muted), fill)
    fig.text(0.36, 0.96, words["title"], ha="center", va="top", fontsize=11)
    return restack(fig, groups=[[0, 1], [2]]) if phone else fig


FRUITS = ["apple", "banana", "kiwi", "plum"]  # the lookup page's example
FRUIT_FEATURES = ["red", "yellow", "green", "purple", "sweet", "sour"]
FRUIT_KEYS = np.array([[1, 0, 0, 0, 0.8, 0.2], [0, 1, 0, 0, 1.0, 0.0], [0, 0, 1, 0, 0.5, 0.5], [0, 0, 0, 1, 0.2, 0.8]])
FRUIT_PRICES = np.array([3.0, 2.0, 4.0, 5.0])


@figure("lookup", words={
    "en": {"fruits": FRUITS, "features": FRUIT_FEATURES, "query": "query", "query_title": "4 · sour", "keys": "keys",
           "values": "values", "answer": "answer = Σ weight × value = {a}"},
    "zh": {"fruits": ["苹果", "香蕉", "猕猴桃", "李子"], "features": ["红", "黄", "绿", "紫", "甜", "酸"], "query": "查询",
           "query_title": "4 · 酸", "keys": "键", "values": "值", "answer": "答案 = Σ 权重 × 值 = {a}"},
}, phone=True)
def lookup(words, phone=False):
    """Attention as a soft lookup: a query scores every key, softmax makes weights, the answer averages the values."""
    query = 4 * np.array([0, 0, 0, 0, 0, 1.0])  # 4 * sour
    weights = handtf.attention_weights(query[None, :], FRUIT_KEYS)[0]  # [n_k]
    answer = float(handtf.attention(query[None, :], FRUIT_KEYS, FRUIT_PRICES[:, None])[0, 0])
    fig = plt.figure(figsize=(8.4, 3.9))
    cell = 0.42 / 3.9  # a row's height as a fraction of the figure
    bottom = 0.1
    top_row = bottom + 4 * cell
    norm = Normalize(-1, 1)
    keys_ax = fig.add_axes((0.1, bottom, 6 * 0.42 / 8.4, 4 * cell))
    heatmap(keys_ax, FRUIT_KEYS, words["fruits"], words["features"], None, norm=norm)
    query_ax = fig.add_axes((0.1, top_row + 1.25 * cell, 6 * 0.42 / 8.4, cell))
    heatmap(query_ax, query[None, :], [words["query"]], [""] * 6, None, norm=Normalize(-4, 4))
    query_ax.set_title(words["query_title"], fontsize=10, pad=4, **MONO)
    keys_ax.set_title(words["keys"], fontsize=10, pad=30, **MONO)
    bars = fig.add_axes((0.52, bottom, 0.2, 4 * cell))
    bars.barh(range(4), weights, color=C.red, height=0.6)
    bars.set_ylim(3.5, -0.5)
    bars.set_xlim(0, 0.75)
    bars.set_yticks([])
    bars.set_xticks([])
    for i, value in enumerate(weights):
        bars.text(value + 0.02, i, cell_text(value), va="center", ha="left", fontsize=9)
    bars.set_title("softmax(q·kᵀ/√6)", fontsize=10, **MONO)
    for side in ("top", "right", "bottom"):
        bars.spines[side].set_visible(False)
    values = fig.add_axes((0.8, bottom, 0.42 / 8.4 * 1.6, 4 * cell))
    heatmap(values, FRUIT_PRICES[:, None], [""] * 4, [""], None, norm=Normalize(-6, 6))
    values.set_title(words["values"], fontsize=10, pad=4, **MONO)
    fig.add_artist(FancyArrowPatch((0.43, top_row - 2 * cell), (0.5, top_row - 2 * cell), transform=fig.transFigure,
                                   arrowstyle="-|>", mutation_scale=14, color=C.muted))
    fig.text(0.5, 0.94, words["answer"].format(a=cell_text(answer)), ha="center", va="top", fontsize=11, **MONO)
    if phone:  # the weights and values under the keys: their rows named again
        bars.set_yticks(range(4), words["fruits"], fontsize=9)
        bars.tick_params(length=0)
        return restack(fig, groups=[[0, 1], [2, 3]])
    return fig


@figure("feed-forward", words={
    "en": {"note": "the same c_fc and c_proj for every position: no row sees another"},
    "zh": {"note": "每个位置用同一组 c_fc 和 c_proj：各行互不相见"},
}, phone=True)
def feed_forward(words, phone=False):
    """The position-wise feed-forward block of the feed-forward page: 8 -> 32 -> 8, the same weights for every row.

    A phone: narrower boxes, without the arrow out of c_proj, the note on two lines."""
    # x and width of the boxes x, c_fc, activation, c_proj
    (x_x, x_w), (fc_x, fc_w), (act_x, act_w), (proj_x, proj_w) = (
        ((0.5, 0.8), (1.73, 1.1), (3.16, 1.2), (4.59, 1.1)) if phone else ((0.8, 1.1), (2.75, 1.5), (4.55, 1.6), (6.3, 1.5)))
    dg = Diagram(5.25, 3.7) if phone else Diagram(8.4, 3.4)
    d_model, d_ff = 8, 32
    ys = [2.8, 2.05, 1.3, 0.55]  # x[0] at the top
    for row, y in enumerate(ys):
        dg.box(f"x{row}", x_x, y, f"x[{row}]", f"[{d_model}]", width=x_w, height=0.56, fill=C.warm)
        dg.box(f"fc{row}", fc_x, y, "c_fc", f"{d_model} → {d_ff}", width=fc_w, height=0.56, fill=C.cool)
        dg.box(f"act{row}", act_x, y, "ReLU / GELU", f"[{d_ff}]", width=act_w, height=0.56, mono=False)
        dg.box(f"proj{row}", proj_x, y, "c_proj", f"{d_ff} → {d_model}", width=proj_w, height=0.56, fill=C.cool)
        dg.arrow(dg.right(f"x{row}"), dg.left(f"fc{row}"))
        dg.arrow(dg.right(f"fc{row}"), dg.left(f"act{row}"))
        dg.arrow(dg.right(f"act{row}"), dg.left(f"proj{row}"))
        if not phone:
            dg.arrow(dg.right(f"proj{row}"), (7.95, y))
            dg.ax.text(8.0, y, f"[{d_model}]", ha="left", va="center", fontsize=9, color=C.muted)
    note = words["note"].replace(": ", ":\n").replace("：", "：\n") if phone else words["note"]
    dg.ax.text(2.62 if phone else 4.2, 3.35 if phone else 3.2, note, ha="center", va="center",
               fontsize=10, color=C.ink)
    return dg.fig


TEACHER = ["<bos>", "i", "am", "a", "student", "<eos>"]  # the encoder-decoder page's target


@figure("teacher-forcing", words={
    "en": {"input": "input", "decoder": "decoder", "label": "label", "note": "causal mask: position t sees inputs 0 … t only"},
    "zh": {"input": "输入", "decoder": "解码器", "label": "标签", "note": "因果掩码：位置 t 只看得到输入 0 … t"},
}, phone=True)
def teacher_forcing(words, phone=False):
    """Training input and labels: the target shifted right by one; position t sees tokens 0..t and must predict t + 1.

    A phone: one position a row, from input to label left to right."""
    inputs, labels = TEACHER[:-1], TEACHER[1:]
    if phone:
        dg = Diagram(5.1, 4.4)
        for column, (x, key) in enumerate([(0.85, "input"), (2.55, "decoder"), (4.25, "label")]):
            dg.ax.text(x, 4.1, words[key], ha="center", va="center", fontsize=10, color=C.ink)
        for t, (seen, wanted) in enumerate(zip(inputs, labels)):
            y = 3.55 - t * 0.62
            dg.box(f"in{t}", 0.85, y, seen, None, width=1.25, height=0.45, fill=C.warm)
            dg.box(f"dec{t}", 2.55, y, f"t = {t}", None, width=1.25, height=0.45, fill=C.box)
            dg.box(f"out{t}", 4.25, y, wanted, None, width=1.25, height=0.45, fill=C.cool)
            dg.arrow(dg.right(f"in{t}"), dg.left(f"dec{t}"))
            dg.arrow(dg.right(f"dec{t}"), dg.left(f"out{t}"))
        dg.ax.text(2.55, 0.3, words["note"], ha="center", va="center", fontsize=9.5, color=C.muted)
        return dg.fig
    dg = Diagram(8.4, 3.0)
    for t, (seen, wanted) in enumerate(zip(inputs, labels)):
        x = 1.55 + t * 1.5
        dg.box(f"in{t}", x, 0.55, seen, None, width=1.25, height=0.5, fill=C.warm)
        dg.box(f"dec{t}", x, 1.45, f"t = {t}", None, width=1.25, height=0.5, fill=C.box)
        dg.box(f"out{t}", x, 2.35, wanted, None, width=1.25, height=0.5, fill=C.cool)
        dg.arrow(dg.top(f"in{t}"), dg.bottom(f"dec{t}"))
        dg.arrow(dg.top(f"dec{t}"), dg.bottom(f"out{t}"))
    dg.ax.text(0.1, 0.55, words["input"], ha="left", va="center", fontsize=10, color=C.ink)
    dg.ax.text(0.1, 1.45, words["decoder"], ha="left", va="center", fontsize=10, color=C.ink)
    dg.ax.text(0.1, 2.35, words["label"], ha="left", va="center", fontsize=10, color=C.ink)
    dg.ax.text(4.55, 2.85, words["note"], ha="center", va="center", fontsize=9.5, color=C.muted)
    return dg.fig
