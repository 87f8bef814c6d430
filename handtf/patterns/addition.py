"""A GPT-2 that adds, set by hand: two heads find the digits, a feed-forward network writes the sum.

``adder(n_digits=10)`` builds a one-layer GPT-2 (two heads, a GELU
feed-forward network, no layer norm) that adds two numbers of up to
``n_digits`` digits by greedy decoding. Every number is written least
significant digit first, as AdderBoard allows (github.com/anadim/AdderBoard):

    123 + 456 at n_digits = 3:   prompt "321+654=",  answer "9750"  (579)

The answer's digit ``i`` is ``s_i = (a_i + b_i + c_i) mod 10``, where the
carry ``c_i`` is 1 exactly when ``a_{i-1} + b_{i-1} > s_{i-1}``: the model
reads the digit it just wrote and the column before it, never a carry chain.
Since ``a_{i-1} + b_{i-1} - s_{i-1} = 10 c_i - c_{i-1}``, the number

    T = 10 (a_i + b_i) + (a_{i-1} + b_{i-1} - s_{i-1})

is ``10 t`` or ``10 t - 1``, where ``t = a_i + b_i + c_i`` is the column's
total: the feed-forward network reads ``t`` off ``T`` with a staircase.

The residual stream has 16 columns:

- ``0 .. 9 + =``: the token, one-hot (``wte``); the tied unembedding
  ``x @ wte.T`` reads only these;
- ``cos sin``: the position on a circle of ``n_digits + 1`` steps (``wpe``),
  so ``a_i`` (position ``i``) and ``b_i`` (position ``n_digits + 1 + i``)
  sit at the same angle;
- ``a+b``: ``a_i + b_i``, written by head 0;
- ``a'+b'+s'``: ``a_{i-1} + b_{i-1} + s_{i-1}``, written by head 1.

**Head 0** at the position that writes ``s_i`` asks for the angle one step
ahead of its own, which is the angle of ``a_i`` and ``b_i``; it attends to the
two equally and writes twice their mean. **Head 1** asks for its own angle:
``a_{i-1}``, ``b_{i-1}`` and itself (``s_{i-1}``); it writes three times their
mean. Every other key scores at least ``LG = 1024`` less, so ``exp`` of the
gap is exactly 0 in float32 and float64.

**The feed-forward network** has 38 GELU units, two per step of the
staircase ``[T >= 10 j - 1]`` (``j = 1 .. 19``, that is ``t >= j``); every
pre-activation is at least 16 away from 0, where GPT-2's GELU is
exactly ``max(0, x)`` (beyond 10 its tanh is ±1 to the last bit). The steps write ``LG`` into the column of digit ``t mod 10``.
The right logit is ``LG`` (plus 1 if it is also the current token), every
other logit 0 or 1: the smallest margin is ``LG - 1 = 1023``.
"""

import math
import random
from dataclasses import dataclass

import numpy as np

from ..blocks.attend import attention_weights
from ..checks import check_decimal, check_float_dtype, check_ids, check_int_range, check_real, check_seed, checked
from ..model.decoding import gpt_step, greedy_search
from ..model.transformer import gpt, transformer_block
from ..model.interface import Model, read_model
from ..model.weights import as_dtype
from ..trees import ByValue
from .compiler import GPT2_SMALL, LG

CHARS = tuple("0123456789+=")  # token id = index: digit k is token k
PLUS, EQUALS = 10, 11  # the two separators' token ids
LABELS = (*CHARS, "cos", "sin", "a+b", "a'+b'+s'")  # what each residual column holds
COS, SIN, COLUMN, BEFORE = 12, 13, 14, 15  # where the position and the two heads' sums sit
N_EMBD, N_HEAD = len(LABELS), 2
RAMP = 16  # GELU(x) is exactly max(0, x) for |x| >= 10: each unit input is scaled by this (a power of 2: exact)
STEPS = 19  # t = a_i + b_i + c_i runs 0 .. 19
MAX_DIGITS = (GPT2_SMALL["n_ctx"] - 2) // 3  # 3 n + 2 positions within GPT-2 small's n_ctx = 1024
CHUNK = 8192  # additions per batch in the checks: memory stays small whatever the total


@dataclass(frozen=True, eq=False)
class Adder(Model):
    """A one-layer GPT-2 (two heads, a feed-forward network) that adds two ``n_digits``-digit numbers."""

    chars: tuple  # the vocabulary: the ten digits, "+" and "="
    n_digits: int  # the longest number it adds
    n_head: int  # two heads
    weights: dict  # GPT-2's layout: wte, wpe, blocks[0] with attn and mlp
    embed_labels: tuple  # what each residual column holds

    made_by = "from adder()"
    pattern = None  # it adds, it continues no pattern

    @property
    def n_ctx(self):
        return self.weights["wpe"].shape[0]

    def __post_init__(self):
        """The fields agree: ``3 n_digits + 2`` positions (``dataclasses.replace(adder(5), n_digits=3)`` is refused)."""
        super().__post_init__()
        n_digits = check_n_digits(self.n_digits)
        if self.n_ctx != 3 * n_digits + 2:
            raise ValueError(f"Adder.n_digits = {n_digits} needs 3 * {n_digits} + 2 = {3 * n_digits + 2} positions, "
                             f"got weights with {self.n_ctx} (wpe's rows); make the model with adder(n_digits)")

    def __repr__(self):
        return (f"Adder(n_digits={self.n_digits}: n_ctx={self.n_ctx}, n_embd={self.n_embd}, "
                f"1 layer of {self.n_head} heads, {self.weights['blocks'][0]['mlp']['c_fc']['b'].size} GELU units)")

    def prompt(self, a, b):
        """The text the model reads: ``a`` and ``b``, least significant digit first, each padded to ``n_digits``.

        >>> adder(3).prompt(123, 45)
        '321+540='
        """
        a, b = (digits_of("a" if i == 0 else "b", x, self.n_digits) for i, x in enumerate((a, b)))
        return "".join(map(str, a)) + "+" + "".join(map(str, b)) + "="

    def answer(self, total):
        """The ``n_digits + 1`` characters greedy decoding must write after the prompt.

        >>> adder(3).answer(579)
        '9750'
        """
        return "".join(map(str, digits_of("total", total, self.n_digits + 1)))

    def add(self, a, b):
        """``a + b``, as the model writes it: ``n_digits + 1`` steps of greedy decoding through the forward pass.

        >>> adder(10).add(9_999_999_999, 1)
        10000000000
        """
        ids = np.array([CHARS.index(c) for c in self.prompt(a, b)])
        return int(read_number(greedy_sums(self, ids[None, :])[0]))


def digits_of(name, value, n):
    """The ``n`` decimal digits of ``value``, least significant first (the boundary of ``prompt`` and ``add``).

    ``value`` is read by ``handtf.readers.check_decimal``, whose messages the adder widget shows too.
    """
    value = check_decimal(name, value, n, f"this model reads at most {n} (n_digits)")
    return [value // 10**i % 10 for i in range(n)]


def read_number(ids):
    """The number whose digits, least significant first, are the token ids ``ids``."""
    return sum(int(d) * 10**i for i, d in enumerate(ids))


@checked
def adder(n_digits=10, dtype=np.float64):
    """Hand-set GPT-2 weights that add two numbers of up to ``n_digits`` digits.

    >>> model = adder(10)
    >>> model
    Adder(n_digits=10: n_ctx=32, n_embd=16, 1 layer of 2 heads, 38 GELU units)
    >>> model.add(1_234_567_890, 9_876_543_210)
    11111111100
    >>> model.prompt(42, 7), model.answer(49)
    ('2400000000+7000000000=', '94000000000')
    """
    wte, wpe = embeddings(n_digits)
    weights = {"wte": wte, "wpe": wpe,
               "blocks": [{"attn": column_heads(n_digits), "mlp": digit_writer()}]}
    return Adder(chars=CHARS, n_digits=n_digits, n_head=N_HEAD,
                 weights=as_dtype(weights, dtype), embed_labels=LABELS)


@checked
# --8<-- [start:embeddings]
def embeddings(n_digits):
    """The tokens, one-hot, and the positions on a circle of n_digits + 1
    steps: a_i, b_i and the token s_i share an angle."""
    n_ctx, period = 3 * n_digits + 2, n_digits + 1
    wte = np.zeros((len(CHARS), N_EMBD))  # [n_vocab, n_embd]
    wte[:, : len(CHARS)] = np.eye(len(CHARS))  # token t -> column t
    angle = 2 * np.pi * (np.arange(n_ctx) % period) / period  # [n_ctx]
    wpe = np.zeros((n_ctx, N_EMBD))  # [n_ctx, n_embd]
    wpe[:, COS], wpe[:, SIN] = np.cos(angle), np.sin(angle)
    return wte, wpe
# --8<-- [end:embeddings]


def sharpness(n_digits):
    """The query length ``K``: the wanted keys score ``K``, the next best
    ``K cos(2 pi / (n_digits + 1))``, ``LG`` less."""
    return LG / (1 - math.cos(2 * math.pi / (n_digits + 1)))


@checked
# --8<-- [start:column_heads]
def column_heads(n_digits):
    """Head 0 finds a_i and b_i (one step ahead on the circle) and writes
    their sum; head 1 finds a_(i-1), b_(i-1), s_(i-1) (its own angle) and
    writes theirs."""
    d_head = N_EMBD // N_HEAD  # 8 columns of q, k and v per head
    step = 2 * math.pi / (n_digits + 1)  # one position on the circle
    big = sharpness(n_digits) * math.sqrt(d_head)  # undoes the 1/sqrt(d_head)
    # [n_embd, n_embd] each: queries, keys, values
    q, k, v = (np.zeros((N_EMBD, N_EMBD)) for _ in range(3))
    proj = np.zeros((N_EMBD, N_EMBD))  # [n_embd, n_embd]: heads -> residual
    for head, turn, out, count in ((0, step, COLUMN, 2), (1, 0.0, BEFORE, 3)):
        h = head * d_head  # this head's first column of q, k and v
        c, s = math.cos(turn), math.sin(turn)
        # the query: the position's own angle, turned by `turn`, length big
        q[COS, h], q[SIN, h] = big * c, -big * s
        q[COS, h + 1], q[SIN, h + 1] = big * s, big * c
        k[COS, h], k[SIN, h + 1] = 1, 1  # the key: the position's angle
        v[:10, h] = np.arange(10)  # the value: the digit (0 for + and =)
        proj[h, out] = count  # mean of `count` digits -> their sum
    return {"c_attn": {"w": np.concatenate([q, k, v], axis=1),
                       "b": np.zeros(3 * N_EMBD)},
            "c_proj": {"w": proj, "b": np.zeros(N_EMBD)}}
# --8<-- [end:column_heads]


@checked
# --8<-- [start:digit_writer]
def digit_writer():
    """T = 10 (a+b) + (a'+b'+s') - 2 s' is 10 t or 10 t - 1: a staircase
    of 19 steps [t >= j] finds t and writes LG into digit t mod 10."""
    reads_T = np.zeros(N_EMBD)  # [n_embd]: the row that computes T
    reads_T[COLUMN], reads_T[BEFORE] = 10, 1
    reads_T[:10] = -2 * np.arange(10)  # - 2 s': the current token
    fc_w, fc_b = np.zeros((N_EMBD, 2 * STEPS)), np.zeros(2 * STEPS)
    proj_w, proj_b = np.zeros((2 * STEPS, N_EMBD)), np.zeros(N_EMBD)
    proj_b[0] = LG  # t >= 0 always: digit 0 to start
    for j in range(1, STEPS + 1):
        # [t >= j] = relu(T - 10j + 3) - relu(T - 10j + 2): two units
        up, flat = 2 * j - 2, 2 * j - 1
        fc_w[:, up], fc_b[up] = RAMP * reads_T, RAMP * (3 - 10 * j)
        fc_w[:, flat], fc_b[flat] = RAMP * reads_T, RAMP * (2 - 10 * j)
        # step j moves LG from digit (j - 1) mod 10 to digit j mod 10
        move = np.zeros(N_EMBD)
        move[j % 10], move[(j - 1) % 10] = LG / RAMP, -LG / RAMP
        proj_w[up], proj_w[flat] = move, -move
    return {"c_fc": {"w": fc_w, "b": fc_b},
            "c_proj": {"w": proj_w, "b": proj_b}}
# --8<-- [end:digit_writer]


def forward(model, ids):
    """The logits ``[..., n_seq, n_vocab]`` of ``ids [..., n_seq]``:
    GPT-2's forward pass on whole sequences (decoding: ``gpt_step``)."""
    return gpt(ids, **model.weights, n_head=model.n_head)


@checked
def greedy_sums(model, prompts):
    """Greedy decoding (``greedy_search``) of prompts ``[batch, 2 n + 2]``: the written tokens ``[batch, n + 1]``."""
    n_prompt = prompts.shape[1]
    written = [greedy_search(gpt_step(model), prompt.tolist(), model.n_digits + 1)[0][n_prompt:] for prompt in prompts]
    return np.array(written, dtype=np.int64).reshape(len(prompts), model.n_digits + 1)


def encode(model, a, b):
    """Prompts and answers of arrays of numbers ``a``, ``b`` ``[batch]``: token ids ``[batch, 2 n + 2]``, ``[batch, n + 1]``."""
    n = model.n_digits
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    place = 10 ** np.arange(n + 1, dtype=np.int64)  # [n + 1]
    digits = lambda x, m: x[:, None] // place[:m] % 10  # noqa: E731  [batch, m], least significant first
    sep = lambda t: np.full((len(a), 1), t)  # noqa: E731
    prompts = np.concatenate([digits(a, n), sep(PLUS), digits(b, n), sep(EQUALS)], axis=1)
    return prompts, digits(a + b, n + 1)


@dataclass(frozen=True, eq=False)
class AdderStep(ByValue):
    """What the model computes while writing one digit of the sum (:func:`adder_steps`)."""

    position: int  # the position whose next token this is
    digit: int  # the digit greedy decoding writes
    column: float  # a_i + b_i, from head 0
    before: float  # a_(i-1) + b_(i-1) + s_(i-1), from head 1
    carry: int  # c_i = [a_(i-1) + b_(i-1) > s_(i-1)]
    attention: np.ndarray  # [n_head, n_seq]: where each head looks from this position
    logits: np.ndarray  # [n_vocab]


@checked
def adder_steps(model, a, b):
    """Each digit of ``a + b`` as the model writes it, with the attention and the sums behind it.

    >>> steps = adder_steps(adder(3), 58, 67)  # 125: 5, 2, 1, 0 least significant first
    >>> [(s.digit, s.column, s.carry) for s in steps]
    [(5, 15.0, 0), (2, 11.0, 1), (1, 0.0, 1), (0, 0.0, 0)]
    >>> steps[1].attention[0].nonzero()[0].tolist()  # head 0 reads a_1 and b_1
    [1, 5]
    """
    from ..model.recording import Recorder

    prompt = [CHARS.index(c) for c in model.prompt(a, b)]
    written = greedy_sums(model, np.array([prompt]))[0].tolist()  # the digits greedy decoding writes
    # teacher forcing: the digits are known, so one forward pass reads every step's position at once
    ids = np.array(prompt + written[:-1])  # [n_seq]: what the last step reads
    with Recorder(attention_weights, transformer_block) as record:  # the one forward pass, kept as it runs
        logits = forward(model, ids)  # [n_seq, n_vocab]
    pattern = record.arrays["attention_weights"]["weights"][-1]  # [n_head, n_seq, n_seq]
    after_attention = record.arrays["transformer_block"]["x"][1]  # [n_seq, n_embd]: x + causal_self_attention(x)
    steps = []
    for position in range(len(prompt) - 1, len(ids)):  # the position whose next token is each digit
        current = int(ids[position]) if ids[position] < 10 else 0
        column, before = float(after_attention[position, COLUMN]), float(after_attention[position, BEFORE])
        steps.append(AdderStep(position=position, digit=int(logits[position].argmax()), column=column, before=before,
                               carry=int(round(before - 2 * current) > 0), attention=pattern[:, position, : position + 1].copy(),
                               logits=logits[position]))
    return steps


# The boundary (see handtf.checks): what each function above accepts.


def check_n_digits(n_digits):
    return check_int_range("n_digits", n_digits, 1, MAX_DIGITS,
                           f" (MAX_DIGITS: 3 n_digits + 2 positions must fit GPT-2 small's n_ctx = {GPT2_SMALL['n_ctx']})")


def check_adder(n_digits, dtype):
    return {"n_digits": check_n_digits(n_digits), "dtype": check_float_dtype("dtype", dtype, least=4)}


def check_embeddings(n_digits):
    return {"n_digits": check_n_digits(n_digits)}


check_column_heads = check_embeddings


def check_model(model):
    read_model(model, kind=Adder)


def check_greedy_sums(model, prompts):
    check_model(model)
    prompts = check_ids("prompts", prompts, len(CHARS), ndims=(2,))
    if prompts.shape[1] != 2 * model.n_digits + 2:
        raise ValueError(f"prompts must have shape [batch, {2 * model.n_digits + 2}] (2 n_digits + 2 tokens: "
                         f"a, '+', b, '='), got {prompts.shape}")
    return {"prompts": prompts}


def check_adder_steps(model, a, b):
    check_model(model)
    model.prompt(a, b)  # the numbers' own errors
