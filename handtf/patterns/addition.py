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
from ..checks import check_float_dtype, check_int_range, check_real, check_seed, checked
from ..model.transformer import gpt, transformer_block
from ..model.weights import as_dtype
from .compiler import GPT2_SMALL, LG
from ..training.backprop import loss_and_grads
from ..training.trainer import adam_moments, adam_step
from ..trees import leaves

CHARS = tuple("0123456789+=")  # token id = index: digit k is token k
PLUS, EQUALS = 10, 11  # the two separators' token ids
LABELS = (*CHARS, "cos", "sin", "a+b", "a'+b'+s'")  # what each residual column holds
COS, SIN, COLUMN, BEFORE = 12, 13, 14, 15  # where the position and the two heads' sums sit
N_EMBD, N_HEAD = len(LABELS), 2
RAMP = 16  # GELU(x) is exactly max(0, x) for |x| >= 10: each unit input is scaled by this (a power of 2: exact)
STEPS = 19  # t = a_i + b_i + c_i runs 0 .. 19
MAX_DIGITS = (GPT2_SMALL["n_ctx"] - 2) // 3  # 3 n + 2 positions within GPT-2 small's n_ctx = 1024
CHUNK = 8192  # additions per batch in the checks: memory stays small whatever the total


@dataclass(frozen=True)
class Adder:
    """A one-layer GPT-2 (two heads, a feed-forward network) that adds two ``n_digits``-digit numbers."""

    chars: tuple  # the vocabulary: the ten digits, "+" and "="
    n_digits: int  # the longest number it adds
    n_head: int  # two heads
    weights: dict  # GPT-2's layout: wte, wpe, blocks[0] with attn and mlp
    embed_labels: tuple  # what each residual column holds

    @property
    def n_ctx(self):
        return self.weights["wpe"].shape[0]

    @property
    def n_embd(self):
        return self.weights["wte"].shape[1]

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
    """The ``n`` decimal digits of ``value``, least significant first (the boundary of ``prompt`` and ``add``)."""
    if isinstance(value, str):
        if value[:1] == "-" and value[1:].isascii() and value[1:].isdigit():
            raise ValueError(f"{name} must be 0 or more (the model adds non-negative numbers), got {value}")
        if not value.isascii() or not value.isdigit():
            raise ValueError(f"{name} must be written with the digits 0-9 only, got {value!r}")
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number (int or a str of digits), got {type(value).__name__}")
    value = int(value)
    if value < 0:
        raise ValueError(f"{name} must be 0 or more (the model adds non-negative numbers), got {value}")
    if value >= 10**n:
        raise ValueError(f"{name} has {len(str(value))} digits; this model reads at most {n} (n_digits)")
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
    steps: a_i, b_i and s_(i-1) share an angle."""
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
        move = np.zeros(N_EMBD)  # step j moves LG from digit j - 1 to digit j
        move[j % 10], move[(j - 1) % 10] = LG / RAMP, -LG / RAMP
        proj_w[up], proj_w[flat] = move, -move
    return {"c_fc": {"w": fc_w, "b": fc_b},
            "c_proj": {"w": proj_w, "b": proj_b}}
# --8<-- [end:digit_writer]


# --8<-- [start:forward]
def forward(model, ids):
    """The logits ``[..., n_seq, n_vocab]`` of ``ids [..., n_seq]``:
    GPT-2's forward pass, the one place it is called."""
    return gpt(ids, **model.weights, n_head=model.n_head)
# --8<-- [end:forward]


def greedy_sums(model, prompts):
    """Greedy decoding of a batch of prompts ``[batch, 2 n + 2]``: the ``n + 1`` written tokens ``[batch, n + 1]``."""
    ids = prompts
    for _ in range(model.n_digits + 1):
        following = forward(model, ids)[:, -1].argmax(axis=-1)  # [batch], the lowest id among equals
        ids = np.concatenate([ids, following[:, None]], axis=1)
    return ids[:, prompts.shape[1]:]


def encode(model, a, b):
    """Prompts and answers of arrays of numbers ``a``, ``b`` ``[batch]``: token ids ``[batch, 2 n + 2]``, ``[batch, n + 1]``."""
    n = model.n_digits
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    place = 10 ** np.arange(n + 1, dtype=np.int64)  # [n + 1]
    digits = lambda x, m: x[:, None] // place[:m] % 10  # noqa: E731  [batch, m], least significant first
    sep = lambda t: np.full((len(a), 1), t)  # noqa: E731
    prompts = np.concatenate([digits(a, n), sep(PLUS), digits(b, n), sep(EQUALS)], axis=1)
    return prompts, digits(a + b, n + 1)


@dataclass(frozen=True)
class AdderStep:
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

    ids = [CHARS.index(c) for c in model.prompt(a, b)]
    steps = []
    for _ in range(model.n_digits + 1):
        with Recorder(attention_weights, transformer_block) as record:  # the one forward pass, kept as it runs
            logits = forward(model, np.array(ids))  # [n_seq, n_vocab]
        pattern = record.arrays["attention_weights"]["weights"][-1]  # [n_head, n_seq, n_seq]
        after_attention = record.arrays["transformer_block"]["x"][1]  # [n_seq, n_embd]: x + causal_self_attention(x)
        digit, current = int(logits[-1].argmax()), ids[-1] if ids[-1] < 10 else 0
        column, before = float(after_attention[-1, COLUMN]), float(after_attention[-1, BEFORE])
        steps.append(AdderStep(position=len(ids) - 1, digit=digit, column=column, before=before,
                               carry=int(round(before - 2 * current) > 0), attention=pattern[:, -1],
                               logits=logits[-1]))
        ids.append(digit)
    return steps


@dataclass(frozen=True)
class AdderCheck:
    """Additions run through the model, each digit's logit margin kept (:func:`verify_pairs`)."""

    n_digits: int
    pairs: int  # how many additions were checked
    what: str  # which additions: "every pair" or "AdderBoard's protocol ..."
    correct: dict  # dtype name -> additions greedy decoding got right
    min_margin: dict  # dtype name -> smallest logit(right digit) - largest other logit, over every step
    failures: tuple  # up to 10 (a, b, the model's sum, dtype name)

    @property
    def passed(self):
        return all(n == self.pairs for n in self.correct.values())

    def __repr__(self):
        lines = [f"AdderCheck(n_digits={self.n_digits}): {self.pairs:,} additions, {self.what}"]
        for name in self.correct:
            lines.append(f"  {name}: {self.correct[name]:,} of {self.pairs:,} right, "
                         f"smallest margin {self.min_margin[name]:.6g}")
        return "\n".join(lines)


def edge_cases(n_digits):
    """AdderBoard's 10 fixed cases, written for ``n_digits`` (at 10 digits, exactly its list)."""
    top, half = 10**n_digits - 1, 5 * 10 ** (n_digits - 1)
    ones = int("1" * n_digits)
    return [(0, 0), (0, 1), (top, 0), (top, 1), (top, top), (half, half), (ones, top + 1 - ones),
            (int("1234567890"[:n_digits]), int("9876543210"[:n_digits])), (top, top), (1, top)]


@checked
def adderboard_pairs(n_digits=10, count=10_000, seed=2025):
    """AdderBoard's test: its 10 edge cases, then ``count`` pairs from Python's
    ``random.Random(seed)``, drawn as its ``verify.py`` draws them.

    >>> pairs = adderboard_pairs()
    >>> len(pairs), pairs[:2]
    (10010, [(0, 0), (0, 1)])
    """
    rng, top = random.Random(seed), 10**n_digits - 1
    return edge_cases(n_digits) + [(rng.randint(0, top), rng.randint(0, top)) for _ in range(count)]


def every_pair(n_digits):
    """All ``10 ** (2 n_digits)`` pairs, as two arrays."""
    a, b = np.divmod(np.arange(10 ** (2 * n_digits), dtype=np.int64), 10**n_digits)
    return a, b


@checked
def verify_pairs(model, a, b, what="", dtypes=(np.float32, np.float64)):
    """Run ``a[k] + b[k]`` through ``model`` in each dtype and keep the margin of every digit it writes.

    One forward pass reads each prompt followed by its right answer: the logits at the
    position of step ``i`` are the ones greedy decoding sees there once steps ``0 .. i-1``
    wrote the right digits. So if every step's right digit wins (margin > 0), greedy
    decoding writes the right sum, by induction over the steps; where one does not win,
    the sum greedy decoding really writes is reported.

    >>> verify_pairs(adder(2), *every_pair(2), what="every pair")
    AdderCheck(n_digits=2): 10,000 additions, every pair
      float32: 10,000 of 10,000 right, smallest margin 1023
      float64: 10,000 of 10,000 right, smallest margin 1023
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    names = [np.dtype(t).name for t in dtypes]
    correct, margins, failures = dict.fromkeys(names, 0), dict.fromkeys(names, math.inf), []
    for name in names:
        cast = Adder(**(vars(model) | {"weights": as_dtype(model.weights, name)}))
        for start in range(0, len(a), CHUNK):
            prompts, answers = encode(model, a[start : start + CHUNK], b[start : start + CHUNK])
            teacher = np.concatenate([prompts, answers[:, :-1]], axis=1)  # [batch, n_ctx]
            logits = forward(cast, teacher)[:, -answers.shape[1]:]  # [batch, n + 1, n_vocab]
            want = np.take_along_axis(logits, answers[..., None], axis=-1)[..., 0]  # [batch, n + 1]
            np.put_along_axis(logits, answers[..., None], -np.inf, axis=-1)
            margin = want - logits.max(axis=-1)  # [batch, n + 1], NaN counts as wrong
            right = (margin > 0).all(axis=1)  # [batch]
            correct[name] += int(right.sum())
            margins[name] = min(margins[name], float(margin.min()) if not np.isnan(margin).any() else -math.inf)
            wrong = np.nonzero(~right)[0][: 10 - len(failures)]
            if len(wrong):
                written = greedy_sums(cast, prompts[wrong])  # [n_wrong, n + 1], what greedy decoding writes
                for k, sums in zip(wrong, written):
                    failures.append((int(a[start + k]), int(b[start + k]), int(read_number(sums)), name))
    return AdderCheck(n_digits=model.n_digits, pairs=len(a), what=what, correct=correct,
                      min_margin=margins, failures=tuple(failures))


@checked
def verify_adder(model=None, count=10_000, seed=2025, dtypes=(np.float32, np.float64)):
    """Check ``model`` (the hand-set ``adder()`` by default) the way the field does: every pair
    up to 3 digits, else AdderBoard's protocol (10 edge cases, ``count`` random pairs from ``seed``).

    >>> verify_adder(adder(1))
    AdderCheck(n_digits=1): 100 additions, every pair
      float32: 100 of 100 right, smallest margin 1023
      float64: 100 of 100 right, smallest margin 1023
    """
    model = adder() if model is None else model
    if model.n_digits <= 3:
        return verify_pairs(model, *every_pair(model.n_digits), what="every pair", dtypes=dtypes)
    a, b = np.array(adderboard_pairs(model.n_digits, count, seed)).T
    return verify_pairs(model, a, b, dtypes=dtypes,
                       what=f"AdderBoard's protocol: 10 edge cases + {count:,} random pairs, seed {seed}")


@dataclass(frozen=True)
class AdderTraining:
    """A model of the hand-set adder's shape, trained from random weights (:func:`train_adder`)."""

    model: Adder  # the trained weights, in the hand-set model's layout
    losses: np.ndarray  # [steps] the batch loss before each step


@checked
# --8<-- [start:train_adder]
def train_adder(n_digits=10, steps=1000, seed=0, batch=64, lr=0.003, std=0.2,
                on_step=None):
    """Train a GPT-2 of the hand-set adder's shape (one layer, two heads,
    38 GELU units, 16 columns) from random weights, with the package's
    backprop and Adam, on fresh random additions at every step;
    ``on_step(step, model)``, if given, runs after each step.

    >>> result = train_adder(n_digits=2, steps=5, seed=0)
    >>> result.losses.shape, result.model.n_embd
    ((5,), 16)
    """
    shapes = adder(n_digits).weights  # the hand-set model: only its shapes
    rng = np.random.default_rng(seed)
    weights = as_dtype(shapes, np.float64)
    for array in leaves(weights):  # every weight random, every bias 0
        array[...] = rng.normal(0, std, array.shape) if array.ndim == 2 else 0
    model = Adder(chars=CHARS, n_digits=n_digits, n_head=N_HEAD,
                  weights=weights, embed_labels=LABELS)
    params = leaves(weights)
    moments = adam_moments(params)
    losses = []
    for step in range(1, steps + 1):
        a, b = rng.integers(0, 10**n_digits, (2, batch))  # [batch] each
        prompts, answers = encode(model, a, b)
        text = np.concatenate([prompts, answers], axis=1)  # [batch, n_ctx + 1]
        loss, grads = loss_and_grads(weights, text[:, :-1], text[:, 1:],
                                     n_head=N_HEAD)
        losses.append(loss)
        adam_step(params, leaves(grads), moments, step, lr)
        if on_step:
            on_step(step, model)
    return AdderTraining(model=model, losses=np.array(losses))
# --8<-- [end:train_adder]


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
    if not isinstance(model, Adder):
        raise TypeError(f"model must be an Adder (from adder()), got {type(model).__name__}")


def check_adder_steps(model, a, b):
    check_model(model)
    model.prompt(a, b)  # the numbers' own errors


def check_adderboard_pairs(n_digits, count, seed):
    return {"n_digits": check_int_range("n_digits", n_digits, 1, 18, " (two 18-digit numbers still add in int64)"),
            "count": check_int_range("count", count, 0, 10**7), "seed": check_seed("seed", seed)}


def check_dtypes(dtypes):
    if isinstance(dtypes, (str, type, np.dtype)) or not isinstance(dtypes, (tuple, list)) or not dtypes:
        raise TypeError(f"dtypes must be a non-empty tuple of float dtypes, e.g. (np.float32, np.float64), got {dtypes!r}")
    for dtype in dtypes:
        check_float_dtype("dtypes", dtype, least=4)


def check_verify_pairs(model, a, b, what, dtypes):
    check_model(model)
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 1 or a.shape != b.shape or not np.issubdtype(a.dtype, np.integer) or not np.issubdtype(b.dtype, np.integer):
        raise ValueError(f"a and b must be 1-D arrays of whole numbers of the same length, got shapes {a.shape} and {b.shape}")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= 10**model.n_digits):
        raise ValueError(f"a and b must be from 0 to {10**model.n_digits - 1:,} (n_digits = {model.n_digits})")
    check_dtypes(dtypes)


def check_verify_adder(model, count, seed, dtypes):
    if model is not None:
        check_model(model)
        if model.n_digits > 18:
            raise ValueError(f"the check adds in int64, up to 18 digits; this model has n_digits = {model.n_digits}")
    check_int_range("count", count, 0, 10**7)
    check_seed("seed", seed)
    check_dtypes(dtypes)


def check_train_adder(n_digits, steps, seed, batch, lr, std, on_step):
    check_int_range("n_digits", n_digits, 1, 18, " (the additions are drawn in int64)")
    check_int_range("steps", steps, 1, 1_000_000, " (a bound that keeps a typo from running for days)")
    check_seed("seed", seed)
    check_int_range("batch", batch, 1, 4096)
    check_real("lr", lr, 0, 1, low_open=True)
    check_real("std", std, 0, 10, low_open=True)
