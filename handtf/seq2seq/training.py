"""Training the encoder-decoder of ``handtf.seq2seq`` with the paper's recipe, on a copy or reverse task.

The forward pass runs ``seq2seq``'s own ``embed``, ``encoder_block`` and
``decoder_block`` (with their ``post_norm`` or ``pre_norm``), with dropout
where the paper puts it (section 5.4): on the sum of the embeddings and the
positional encoding, and on every sublayer's output before the residual sum
(the blocks' ``keep`` masks). With ``dropout = 0`` it computes exactly
``seq2seq.forward``'s logits (a test checks it). The backward pass runs the
same steps in reverse, through the backward function below each of those
forward functions (``handtf.seq2seq.blocks``); the dropout masks are drawn
once per step and used by both. Adam, the schedule and the dropout masks are
:mod:`handtf.training.optimiser`'s, the optimiser every trainer shares.

The task: the source is a sequence of ``length`` symbols; the target is the
same symbols (``copy``) or the same symbols backwards (``reverse``), then
``<eos>``. Token 0 is ``<bos>``, token 1 ``<eos>``, tokens 2 and up are the
symbols, in both vocabularies.
"""

from dataclasses import dataclass

import numpy as np

from ..checks import check_callable, check_count, check_finite_result, check_ids, check_int_range, check_positive
from ..checks import check_fraction, check_rng, check_seed, check_steps, check_size, checked, optional
from ..blocks.layers import layer_norm, layer_norm_backward
from ..blocks.loss import cross_entropy_backward, smoothed_targets, soft_cross_entropy
from .blocks import RESIDUALS, decoder_block, decoder_block_backward, embed, embed_backward, encoder_block
from .blocks import encoder_block_backward
from .model import Config, check_params, init_params
from ..training.optimiser import adam_moments, adam_step, dropout_mask, learning_rate
from ..trees import leaves
from .translate import beam_decode, greedy_decode

BOS, EOS, FIRST_SYMBOL = 0, 1, 2
TASKS = ("copy", "reverse")


@checked
# --8<-- [start:task_pairs]
def task_pairs(task, n_pairs, length, n_symbols, rng, exclude=frozenset()):
    """``n_pairs`` random sources of ``length`` symbols and their targets:
    the decoder's input and its labels.

    Teacher forcing: the decoder is given ``<bos>`` + the target, and must
    predict the target + ``<eos>``, the same sequence shifted by one.
    Sources in ``exclude`` (tuples) are never drawn: that keeps a test set
    held out.

    >>> rng = np.random.default_rng(0)
    >>> src, tgt_in, tgt_out = task_pairs("reverse", 1, 4, 6, rng)
    >>> src.tolist(), tgt_in.tolist(), tgt_out.tolist()
    ([[7, 5, 5, 3]], [[0, 3, 5, 5, 7]], [[3, 5, 5, 7, 1]])
    """
    sources = []
    while len(sources) < n_pairs:
        src = tuple(int(s) for s in rng.integers(
            FIRST_SYMBOL, FIRST_SYMBOL + n_symbols, size=length))
        if src not in exclude:
            sources.append(src)
    src = np.array(sources)  # [n_pairs, length]
    tgt = src if task == "copy" else src[:, ::-1]  # [n_pairs, length]
    column = lambda token: np.full((n_pairs, 1), token)  # noqa: E731
    # tgt_in and tgt_out: [n_pairs, length + 1]
    return src, np.hstack([column(BOS), tgt]), np.hstack([tgt, column(EOS)])
# --8<-- [end:task_pairs]


def _final_norm(x, stack):
    return layer_norm(x, **stack["ln_f"]) if "ln_f" in stack else x


def _final_norm_backward(dout, x, stack, grads):
    if "ln_f" not in stack:
        return dout
    dx, grads["ln_f"] = layer_norm_backward(dout, x, **stack["ln_f"])
    return dx


@checked(result=lambda value, args: check_finite_result(value, args, "loss or gradient"))
def seq2seq_loss_and_grads(params, config, src, tgt_in, tgt_out,
                           label_smoothing=0.0, dropout=0.0, rng=None):
    """The loss of ``forward(src, tgt_in, params, config)`` against
    ``tgt_out``, with dropout, and the gradient of every weight.

    The forward pass runs ``seq2seq``'s ``embed``, ``encoder_block`` and
    ``decoder_block``, keeping each block's input; the gradients come back in
    the layout of ``params``.
    """
    enc, dec = params["encoder"], params["decoder"]
    n_head, residual = config.n_head, RESIDUALS[config.norm]

    def masks(x, n):  # n dropout masks shaped like x (1.0: no dropout)
        return [dropout_mask(x.shape, dropout, rng) if dropout > 0 else 1.0
                for _ in range(n)]

    # forward: the encoder, then the decoder; xs[i] is the input of block i
    x = embed(src, enc["wte"])  # [n_batch, n_src, d_model]
    (keep_src,) = masks(x, 1)
    xs, enc_keeps = [x * keep_src], []
    for block in enc["blocks"]:
        enc_keeps.append(masks(x, 2))
        xs.append(encoder_block(xs[-1], **block, n_head=n_head,
                                residual=residual, keep=enc_keeps[-1]))
    memory = _final_norm(xs[-1], enc)  # [n_batch, n_src, d_model]
    y = embed(tgt_in, dec["wte"])  # [n_batch, n_tgt, d_model]
    (keep_tgt,) = masks(y, 1)
    ys, dec_keeps = [y * keep_tgt], []
    for block in dec["blocks"]:
        dec_keeps.append(masks(y, 3))
        ys.append(decoder_block(ys[-1], memory, **block, n_head=n_head,
                                residual=residual, keep=dec_keeps[-1]))
    h = _final_norm(ys[-1], dec)  # [n_batch, n_tgt, d_model]
    logits = h @ dec["wte"].T  # [n_batch, n_tgt, vocab_tgt]
    target_probs = smoothed_targets(tgt_out, config.vocab_tgt, label_smoothing)
    # backward: the same steps in reverse
    # [n_batch, n_tgt, vocab_tgt]
    dlogits = cross_entropy_backward(logits, target_probs)
    g_dec, g_enc = {}, {}
    # the tied output layer
    g_dec["wte"] = (dlogits.reshape(-1, config.vocab_tgt).T
                    @ h.reshape(-1, config.d_model))
    dy = _final_norm_backward(dlogits @ dec["wte"], ys[-1], dec, g_dec)
    g_dec["blocks"], dmemory = [None] * (len(ys) - 1), 0.0
    for i in reversed(range(len(ys) - 1)):
        dy, dmem, g_dec["blocks"][i] = decoder_block_backward(
            dy, ys[i], memory, **dec["blocks"][i], n_head=n_head,
            residual=residual, keep=dec_keeps[i])
        dmemory = dmemory + dmem
    g_dec["wte"] = g_dec["wte"] + embed_backward(dy * keep_tgt, tgt_in,
                                                 dec["wte"])
    dx = _final_norm_backward(dmemory, xs[-1], enc, g_enc)
    g_enc["blocks"] = [None] * (len(xs) - 1)
    for i in reversed(range(len(xs) - 1)):
        dx, g_enc["blocks"][i] = encoder_block_backward(
            dx, xs[i], **enc["blocks"][i], n_head=n_head, residual=residual,
            keep=enc_keeps[i])
    g_enc["wte"] = embed_backward(dx * keep_src, src, enc["wte"])
    loss = soft_cross_entropy(logits, target_probs)
    return loss, {"encoder": g_enc, "decoder": g_dec}


@dataclass(frozen=True)
class Seq2SeqTraining:
    """What ``train_seq2seq`` returns."""

    params: dict  # as seq2seq.init_params(config) makes them: seq2seq.forward, greedy_decode and beam_decode run them
    config: Config  # the sizes of the model: pass them next to params
    losses: np.ndarray  # [steps] the training loss (with label smoothing and dropout) of each step
    test_src: np.ndarray  # [n_test, length] held-out sources: never in a training batch
    task: str


@checked(steps=check_steps, seed=check_seed, warmup=check_count, factor=check_positive, label_smoothing=check_fraction,
         dropout=check_fraction, progress=optional(check_callable))
# --8<-- [start:train_seq2seq]
def train_seq2seq(task="reverse", steps=1000, seed=0, length=6, n_symbols=8,
                  batch_size=32, d_model=32, n_head=4, d_ff=64, n_layers=1,
                  warmup=100, factor=1.0, label_smoothing=0.1, dropout=0.1,
                  n_test=100, progress=None):
    """Train the encoder-decoder on ``task`` with the paper's recipe; a fresh
    random batch at every step.

    Adam (0.9, 0.98, 1e-9), the warm-up schedule, label smoothing and dropout.
    ``progress(step, loss)`` is called after every step, if given.
    """
    rng = np.random.default_rng(seed)
    n_vocab = n_symbols + 2  # the symbols, <bos> and <eos>
    config = Config(n_vocab, n_vocab, d_model, n_head, d_ff, n_layers)
    params = init_params(config, seed=seed)
    test_src = task_pairs(task, n_test, length, n_symbols, rng)[0]
    held_out = frozenset(map(tuple, test_src.tolist()))
    weights = leaves(params)
    moments = adam_moments(weights)
    losses = []
    for step in range(1, steps + 1):
        src, tgt_in, tgt_out = task_pairs(task, batch_size, length, n_symbols,
                                          rng, exclude=held_out)
        loss, grads = seq2seq_loss_and_grads(
            params, config, src, tgt_in, tgt_out,
            label_smoothing=label_smoothing, dropout=dropout, rng=rng)
        rate = learning_rate(step, d_model, warmup, factor)
        adam_step(weights, leaves(grads), moments, step, rate)
        losses.append(loss)
        if progress is not None:
            progress(step, loss)
    return Seq2SeqTraining(params, config, np.array(losses), test_src, task)
# --8<-- [end:train_seq2seq]


@checked
def exact_match(result, beam_width=1):
    """The share of held-out sources whose decoded target is exactly right,
    ``<eos>`` included.

    ``beam_width = 1`` is greedy decoding; more is beam search.
    """
    params, config = result.params, result.config
    right = 0
    for src in result.test_src:
        expected = [BOS, *(src if result.task == "copy" else src[::-1]), EOS]
        max_len = len(src) + 1
        if beam_width == 1:
            tokens = greedy_decode(params, config, src, BOS, EOS, max_len)
        else:
            tokens = beam_decode(params, config, src, BOS, EOS, max_len,
                                 beam_width=beam_width)
        right += list(tokens) == expected
    return right / len(result.test_src)


# The boundary (see handtf.checks): what each function above accepts.


def check_task(task):
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    return task


def check_task_pairs(task, n_pairs, length, n_symbols, rng, exclude):
    check_rng("rng", rng)
    n_symbols, length = check_count("n_symbols", n_symbols), check_int_range("length", length, 1, 50)
    if len(exclude) > n_symbols**length // 2:
        raise ValueError(f"exclude holds {len(exclude)} sources: at most half of the {n_symbols**length} possible ones")
    n_pairs = check_size("n_pairs", n_pairs, per_item=length)
    return {"task": check_task(task), "n_pairs": n_pairs, "length": length, "n_symbols": n_symbols}


def check_seq2seq_loss_and_grads(params, config, src, tgt_in, tgt_out, label_smoothing, dropout, rng):
    params = check_params(params, config)
    src = check_ids("src", src, config.vocab_src, ndims=(2,))
    tgt_in, tgt_out = (check_ids(name, t, config.vocab_tgt, ndims=(2,)) for name, t in (("tgt_in", tgt_in), ("tgt_out", tgt_out)))
    if tgt_in.shape != tgt_out.shape or len(src) != len(tgt_in):
        raise ValueError(
            "src must be [n_batch, n_src] and tgt_in and tgt_out [n_batch, n_tgt] with the same n_batch, "
            f"got {src.shape}, {tgt_in.shape} and {tgt_out.shape}"
        )
    dropout = check_fraction("dropout", dropout)
    if dropout > 0:
        check_rng("rng (needed with dropout)", rng)
    return {"params": params, "src": src, "tgt_in": tgt_in, "tgt_out": tgt_out, "label_smoothing": check_fraction("label_smoothing", label_smoothing), "dropout": dropout}


def check_train_seq2seq(task, steps, seed, length, n_symbols, batch_size, d_model, n_head, d_ff, n_layers, warmup, factor,
                        label_smoothing, dropout, n_test, progress):
    check_task(task)
    length, n_symbols = check_int_range("length", length, 1, 50), check_int_range("n_symbols", n_symbols, 1, 1000)
    n_test = check_count("n_test", n_test)
    if n_test > n_symbols**length // 2:
        raise ValueError(f"n_test = {n_test} is too many: hold out at most half of the {n_symbols**length} possible sources")
    return {"batch_size": check_size("batch_size", batch_size, per_item=length)}  # d_model, ...: Config checks them


def check_exact_match(result, beam_width):
    if not isinstance(result, Seq2SeqTraining):
        raise TypeError(f"result must be what train_seq2seq returns, got {type(result).__name__}")
    return {"beam_width": check_count("beam_width", beam_width)}
