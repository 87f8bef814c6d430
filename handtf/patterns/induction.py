"""An induction head, set by hand: attention that reads *content*, checked on every input.

``induction_head("abc", n_ctx=8)`` builds a two-layer, attention-only GPT-2
that implements **the induction rule**: at every position whose token
occurred earlier, the next token is the one that followed that token's most
recent earlier occurrence (``abcab`` -> ``c``). Positions whose token is new
are not claimed. References: Elhage et al., 2021, "A mathematical framework
for transformer circuits"; Olsson et al., 2022, "In-context learning and
induction heads".

The residual stream has ``2 V + n_ctx`` columns (``V`` = alphabet size):

- ``a b c``: the token, one-hot (``wte``); the tied unembedding
  ``x @ wte.T`` reads only these columns;
- ``a@1 b@1 c@1``: the token one step back, written by layer 1;
- ``P0 .. P7``: the position, one-hot (``wpe``).

**Layer 1, the previous-token head.** Position ``i`` asks for position
``i - 1`` (a score of ``LG``, every other key 0), takes its token and
writes it into the ``@1`` columns. Position 0 has only itself and writes its
own token.

**Layer 2, the induction head.** The query is the current token (times
``match = LG * n_ctx``) plus a constant 1; the key of position ``j`` is what
layer 1 wrote there (the token before ``j``) plus ``LG * j``. So key ``j``
scores ``match`` when the token before it is the current token, and the
later keys score more. A match beats every non-match, the most recent match
beats every other match by ``LG`` at least, and the value (the token at the
matched position, the one that *followed* the earlier occurrence) is written
``LG`` strong into the token columns.

Every gap between the winning score and the others is ``LG = 1024`` or more,
so ``exp`` of it is exactly 0 in float32 and float64: both heads attend to
one position exactly, and the logits are exactly ``LG`` (plus 1 for the
current token) and 0. The smallest margin is ``LG - 1 = 1023``.
"""

import math
from dataclasses import dataclass

import numpy as np

from ..blocks.attend import attention_weights
from ..checks import MAX_TEXT, check_alphabet, check_dtypes, check_float_dtype, check_int_range, checked
from .compiler import GPT2_SMALL, LG
from ..model.interface import Model, read_model
from ..model.transformer import gpt
from ..trees import ByValue
from ..model.weights import as_dtype

MAX_SEQUENCES = 1_000_000  # the exhaustive check runs at most this many sequences (every length together)
CHUNK = 8192  # sequences per batch in the check: memory stays small whatever the total


@dataclass(frozen=True, eq=False)
class InductionHead(Model):
    """A two-layer, attention-only GPT-2 (one head per layer) that copies by content."""

    chars: tuple  # the alphabet: token id = index
    n_ctx: int  # the longest sequence it reads
    n_head: int  # one head per layer
    weights: dict  # GPT-2's layout: wte, wpe, blocks[0] and blocks[1] with attn only
    embed_labels: tuple  # what each residual column holds: "a", "a@1", "P0", ...

    made_by = "from induction_head()"
    pattern = None  # it copies, it continues no pattern

    def __repr__(self):
        return (f"InductionHead({''.join(self.chars)!r}: n_ctx={self.n_ctx}, n_embd={self.n_embd}, "
                f"2 layers of {self.n_head} head, no MLP)")


@checked
def induction_head(alphabet="abc", n_ctx=8, dtype=np.float64):
    """Hand-set GPT-2 weights for the induction rule over ``alphabet``.

    >>> model = induction_head("abc", n_ctx=8)
    >>> model
    InductionHead('abc': n_ctx=8, n_embd=14, 2 layers of 1 head, no MLP)
    >>> " ".join(model.embed_labels)
    'a b c a@1 b@1 c@1 P0 P1 P2 P3 P4 P5 P6 P7'
    """
    chars, v = tuple(alphabet), len(alphabet)
    d = 2 * v + n_ctx  # [tok | prev | pos]
    tok, prev, pos = 0, v, 2 * v  # where each group of columns starts
    wte = np.zeros((v, d))  # [n_vocab, n_embd]
    wte[:, tok : tok + v] = np.eye(v)  # token t -> column t
    wpe = np.zeros((n_ctx, d))  # [n_ctx, n_embd]
    wpe[:, pos:] = np.eye(n_ctx)  # position i -> column Pi
    weights = {
        "wte": wte,
        "wpe": wpe,
        "blocks": [{"attn": previous_token_head(v, n_ctx)}, {"attn": induction_layer(v, n_ctx)}],
    }
    labels = (*chars, *(f"{c}@1" for c in chars), *(f"P{i}" for i in range(n_ctx)))
    return InductionHead(chars=chars, n_ctx=n_ctx, n_head=1, weights=as_dtype(weights, dtype), embed_labels=labels)


@checked
# --8<-- [start:previous_token_head]
def previous_token_head(v, n_ctx):
    """Layer 1: position i finds position i - 1 and copies its token
    into the @1 columns."""
    d = 2 * v + n_ctx  # n_embd = d_head: one head
    prev, pos = v, 2 * v  # first @1 column, first position column
    # [n_embd, n_embd] each: queries, keys, values
    q, k, val = np.zeros((d, d)), np.zeros((d, d)), np.zeros((d, d))
    proj = np.zeros((d, d))  # [n_embd, n_embd]: head output -> residual
    for i in range(1, n_ctx):
        # position i asks for i - 1, score LG after / sqrt(d)
        q[pos + i, i - 1] = LG * math.sqrt(d)
    for j in range(n_ctx):
        k[pos + j, j] = 1  # position j offers itself
    for t in range(v):
        val[t, t] = 1  # the value is the token, one-hot
        proj[t, prev + t] = 1  # written into column t@1
    return {"c_attn": {"w": np.concatenate([q, k, val], axis=1),
                       "b": np.zeros(3 * d)},
            "c_proj": {"w": proj, "b": np.zeros(d)}}
# --8<-- [end:previous_token_head]


@checked
# --8<-- [start:induction_layer]
def induction_layer(v, n_ctx):
    """Layer 2: the current token looks for itself in the @1 columns;
    the most recent match wins and its token is copied LG strong."""
    d = 2 * v + n_ctx
    prev, pos = v, 2 * v
    match = LG * n_ctx  # beats LG * j of any later non-match
    q, k, val = np.zeros((d, d)), np.zeros((d, d)), np.zeros((d, d))
    q_bias = np.zeros(d)
    proj = np.zeros((d, d))
    for t in range(v):
        q[t, t] = match * math.sqrt(d)  # query: the current token ...
        k[prev + t, t] = 1  # ... against the token before each key
        val[t, t] = 1  # the value is the key's own token
        proj[t, t] = LG  # written LG strong into the token columns
    q_bias[v] = math.sqrt(d)  # a constant 1 in query column v ...
    for j in range(n_ctx):
        k[pos + j, v] = LG * j  # ... meets LG * j: the later, the higher
    return {"c_attn": {"w": np.concatenate([q, k, val], axis=1),
                       "b": np.concatenate([q_bias, np.zeros(2 * d)])},
            "c_proj": {"w": proj, "b": np.zeros(d)}}
# --8<-- [end:induction_layer]


@checked
def induction_rule(text):
    """The rule, in plain Python: for each position, the character that
    followed the most recent earlier occurrence of its character, or
    ``None`` where the character is new.

    >>> induction_rule("abcab")
    [None, None, None, 'b', 'c']
    """
    last, rule = {}, []  # each character's most recent position so far
    for i, c in enumerate(text):
        rule.append(text[last[c] + 1] if c in last else None)
        last[c] = i
    return rule


@checked
def induction_attention(model, text):
    """Both heads' attention patterns and the logits on ``text``, from the model's own blocks.

    Returns ``(pattern_1, pattern_2, logits)``: ``pattern_l[i, j]`` is how much
    position ``i`` attends to position ``j`` in layer ``l``; ``logits`` is
    ``[n_seq, n_vocab]``.

    >>> model = induction_head("abc", n_ctx=8)
    >>> p1, p2, logits = induction_attention(model, "abcab")
    >>> p2[4].tolist()  # the last b finds the position after the earlier b
    [0.0, 0.0, 1.0, 0.0, 0.0]
    >>> logits[4].tolist()  # a, b, c
    [0.0, 1.0, 1024.0]
    """
    from ..model.recording import Recorder

    ids = np.array([model.chars.index(c) for c in text])  # [n_seq]
    with Recorder(attention_weights) as record:  # the one forward pass, its attention kept as it runs
        logits = gpt(ids, **model.weights, n_head=model.n_head)  # [n_seq, n_vocab]
    first, second = record.arrays["attention_weights"]["weights"][-2:]  # each [n_head, n_seq, n_seq]
    return first.reshape(-1, len(ids), len(ids))[0], second.reshape(-1, len(ids), len(ids))[0], logits


@dataclass(frozen=True, eq=False)
class InductionCheck(ByValue):
    """Every sequence over the alphabet of length 1 to ``n_ctx``, every position the rule covers."""

    chars: tuple
    n_ctx: int
    sequences: int  # how many sequences were run (every length 1 .. n_ctx)
    positions: int  # all their positions
    covered: int  # the positions whose token occurred earlier: the rule's claims
    correct: dict  # dtype name -> covered positions predicted right
    min_margin: dict  # dtype name -> smallest logit(rule's token) - largest other logit
    failures: tuple  # up to 10 (sequence, position, expected, dtype name) the model got wrong

    @property
    def passed(self):
        return all(n == self.covered for n in self.correct.values())

    def __repr__(self):
        lines = [f"InductionCheck({''.join(self.chars)!r}, n_ctx={self.n_ctx}):",
                 f"  {self.sequences:,} sequences, {self.positions:,} positions, {self.covered:,} covered by the rule"]
        for name in self.correct:
            lines.append(f"  {name}: {self.correct[name]:,} of {self.covered:,} right, "
                         f"smallest margin {self.min_margin[name]:g}")
        return "\n".join(lines)


def rule_targets(ids):
    """The rule on a batch of token ids ``[n_seq_batch, n]``: the expected next id, or -1 where not covered."""
    expected = np.full(ids.shape, -1)  # [batch, n]
    for i in range(ids.shape[1]):
        for p in range(i):  # a later p overwrites: the most recent occurrence wins
            expected[:, i] = np.where(ids[:, p] == ids[:, i], ids[:, p + 1], expected[:, i])
    return expected


def all_sequences(v, length, start, stop):
    """Sequences ``start .. stop - 1`` of all ``v ** length``, in counting order: ``[stop - start, length]``."""
    numbers = np.arange(start, stop)[:, None]  # [batch, 1]
    return numbers // v ** np.arange(length - 1, -1, -1) % v  # base-v digits, first token most significant


@checked
def verify_induction(model=None, dtypes=(np.float32, np.float64)):
    """Run ``model`` (the hand-set ``induction_head()`` by default) on every
    sequence over its alphabet of every length 1 to ``n_ctx``, in each dtype,
    and compare its prediction at every covered position with the rule.

    >>> verify_induction(induction_head("abc", n_ctx=8))
    InductionCheck('abc', n_ctx=8):
      9,840 sequences, 73,812 positions, 45,822 covered by the rule
      float32: 45,822 of 45,822 right, smallest margin 1023
      float64: 45,822 of 45,822 right, smallest margin 1023
    """
    model = induction_head() if model is None else model
    v, n_ctx = len(model.chars), model.n_ctx
    names = [np.dtype(t).name for t in dtypes]
    cast = {name: as_dtype(model.weights, name) for name in names}
    sequences = positions = covered = 0
    correct, margins, failures = dict.fromkeys(names, 0), dict.fromkeys(names, math.inf), []
    for length in range(1, n_ctx + 1):
        total = v**length
        for start in range(0, total, CHUNK):
            ids = all_sequences(v, length, start, min(start + CHUNK, total))  # [batch, length]
            expected = rule_targets(ids)  # [batch, length]
            claimed = expected >= 0
            sequences, positions, covered = sequences + len(ids), positions + ids.size, covered + int(claimed.sum())
            if not claimed.any():
                continue
            for name in names:
                logits = gpt(ids, **cast[name], n_head=model.n_head)[claimed]  # [n_claimed, n_vocab]
                want = expected[claimed]  # [n_claimed]
                rows = np.arange(len(want))
                others = logits.copy()
                others[rows, want] = -np.inf
                margin = logits[rows, want] - others.max(axis=-1)  # [n_claimed]
                right = margin > 0  # a NaN margin is wrong too
                correct[name] += int(right.sum())
                margins[name] = min(margins[name], float(np.nanmin(margin, initial=math.inf)))
                if not right.all():
                    margins[name] = -math.inf if np.isnan(margin).any() else margins[name]
                    seq, pos = np.nonzero(claimed)
                    for s, p in list(zip(seq[~right], pos[~right]))[: 10 - len(failures)]:
                        text = "".join(model.chars[t] for t in ids[s])
                        failures.append((text, int(p), model.chars[expected[s, p]], name))
    return InductionCheck(chars=model.chars, n_ctx=n_ctx, sequences=sequences, positions=positions,
                          covered=covered, correct=correct, min_margin=margins, failures=tuple(failures))


def sequence_count(v, n_ctx):
    """How many sequences the exhaustive check runs: ``v + v**2 + ... + v**n_ctx``."""
    return sum(v**length for length in range(1, n_ctx + 1))


# The boundary (see handtf.checks): what each function above accepts.


def check_induction_head(alphabet, n_ctx, dtype):
    check_alphabet("alphabet", alphabet, at_least=2, at_most=(GPT2_SMALL["n_embd"] - 2) // 2,
                   why=f" (2 columns each, plus 2 positions, within GPT-2 small's n_embd = {GPT2_SMALL['n_embd']})",
                   low_why=" (a margin needs a wrong token)")
    most = GPT2_SMALL["n_embd"] - 2 * len(alphabet)
    n_ctx = check_int_range("n_ctx", n_ctx, 2, most,
                            f" (2 * {len(alphabet)} token columns + n_ctx position columns "
                            f"must fit GPT-2 small's n_embd = {GPT2_SMALL['n_embd']})",
                            low_why=" (a repeat needs two positions)")
    return {"n_ctx": n_ctx, "dtype": check_float_dtype("dtype", dtype, least=4)}


def check_previous_token_head(v, n_ctx):
    """The alphabet size and n_ctx of a model that fits GPT-2 small (the layer functions' arguments)."""
    v = check_int_range("v", v, 2, low_why=" (the alphabet size: a margin needs a wrong token)")
    n_ctx = check_int_range("n_ctx", n_ctx, 2, GPT2_SMALL["n_embd"] - 2 * v,
                            f" (2 * v + n_ctx columns must fit GPT-2 small's n_embd = {GPT2_SMALL['n_embd']})")
    return {"v": v, "n_ctx": n_ctx}


check_induction_layer = check_previous_token_head


def check_induction_rule(text):
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ValueError(f"text must hold at most MAX_TEXT = {MAX_TEXT:,} characters, got {len(text):,}")


def check_induction_attention(model, text):
    read_model(model, kind=InductionHead)
    if not isinstance(text, str) or not 1 <= len(text) <= model.n_ctx:
        got = repr(text) if isinstance(text, str) else type(text).__name__
        raise ValueError(f"text must be a str of 1 to {model.n_ctx} characters (n_ctx), got {got}")
    unknown = sorted(set(text) - set(model.chars))
    if unknown:
        raise ValueError(f"text has characters outside the alphabet {''.join(model.chars)!r}: "
                         f"{', '.join(map(repr, unknown))}")


def check_verify_induction(model, dtypes):
    if model is not None:
        read_model(model, kind=InductionHead)
    v, n_ctx = (3, 8) if model is None else (len(model.chars), model.n_ctx)
    count = sequence_count(v, n_ctx)
    if count > MAX_SEQUENCES:
        raise ValueError(f"{v} characters and n_ctx = {n_ctx} make {count:,} sequences to check; "
                         f"the exhaustive check runs at most {MAX_SEQUENCES:,} (MAX_SEQUENCES): "
                         "use fewer characters or a shorter n_ctx")
    check_dtypes("dtypes", dtypes)
