"""Compile any repeating pattern into the weights of a GPT-2, by hand.

``compile_pattern("abcab")`` builds a model that continues ``abcababcab…``.
Every number in it follows from one of three rules:

- **Embeddings** are one-hot: token ``c`` switches on column ``c``, position
  ``i`` column ``Pi``.
- **Attention** has one head per look-back offset ``d = 0 .. k-1``. Head ``d``
  at position ``i`` looks for position ``i - d`` with a score of ``LG`` after
  scaling, so it copies that token, exactly, into the slot columns ``c@d``.
  Head 0 also moves the current token out of the token columns, which are
  left free for the answer.
- **The feed-forward network** is a lookup table with one row (hidden unit)
  per phase of the pattern: a unit gets ``2 * SWITCH`` for each slot that
  matches its window, and a bias that leaves ``+SWITCH`` on a full match and
  at most ``-SWITCH`` otherwise. GPT-2's GELU turns those into exactly
  ``SWITCH`` and exactly 0, and the unit writes ``LG`` into the column of the
  character that comes next.

So the right logit is exactly ``LG`` and every other exactly 0, in float32 and
float64 alike. The model never outgrows GPT-2 small (``GPT2_SMALL``), which
sets the limits: at most 12 heads (so the last 12 characters must decide the
next), 768 embedding columns and 3072 feed-forward units (one per phase).
"""

import math
from dataclasses import dataclass

import numpy as np

from ..checks import MAX_TEXT, check_alphabet, check_count, check_float_dtype, check_int_range, checked
from ..model.task import MAX_PERIOD, check_text, context_needed, last_characters, shortest_period, verb  # noqa: F401 (the names the page had here)
from ..model.interface import Model, read_model
from ..model.weights import as_dtype
from ..trees import read_only

LG = 1024  # the score of the wanted key, and the logit of the right answer
SWITCH = 8  # gelu(8) == 8 and gelu(-8) == 0 exactly: GELU as an on/off switch
GPT2_SMALL = read_only({"n_head": 12, "n_embd": 768, "n_hidden": 3072, "n_ctx": 1024})  # read-only: its sizes bound the design
MAX_CHARS = (GPT2_SMALL["n_embd"] - 1) // 2  # 383: a token and a slot column each, plus one position


@dataclass(frozen=True, eq=False)
class CompiledPattern(Model):
    """A GPT-2 whose weights were compiled from ``pattern`` by :func:`compile_pattern`."""

    pattern: str  # the shortest period of the pattern asked for
    chars: tuple  # the alphabet, sorted: token id = index
    k: int  # the last k characters decide the next
    n_ctx: int  # the context window: the model sees the last n_ctx tokens
    n_head: int  # one head per look-back offset 0 .. k-1
    weights: dict  # GPT-2's layout: wte, wpe, blocks[0] with attn and mlp
    embed_labels: tuple  # what each of the n_embd columns holds
    hidden_labels: tuple  # each feed-forward unit's row of the table: "window→next"

    made_by = "what compile_pattern returns"

    @property
    def min_context(self):
        """The last ``k`` characters decide the next: a shorter context is refused."""
        return self.k

    @property
    def d_head(self):
        return self.n_embd // self.n_head

    @property
    def table(self):
        """The lookup table the feed-forward network holds: last ``k`` characters -> next.

        >>> compile_pattern("aab").table
        {'aa': 'b', 'ab': 'a', 'ba': 'a'}
        """
        return dict(sorted(label.split("→") for label in self.hidden_labels))

    def __repr__(self):
        return (
            f"CompiledPattern({_short(self.pattern)!r}: k={self.k}, "
            f"n_ctx={self.n_ctx}, n_head={self.n_head}, n_embd={self.n_embd}, n_hidden={len(self.hidden_labels)})"
        )


@checked
def compile_pattern(pattern, n_ctx=None, dtype=np.float64):
    """Hand-set GPT-2 weights that continue the repetition of ``pattern``.

    ``pattern`` is reduced to its shortest period (``"abab"`` is ``"ab"``).
    ``n_ctx`` defaults to ``k``, the fewest characters that decide the next;
    it may be set larger, up to GPT-2 small's 1024.

    >>> model = compile_pattern("abcab")
    >>> model
    CompiledPattern('abcab': k=3, n_ctx=3, n_head=3, n_embd=15, n_hidden=5)
    >>> sorted(model.weights["blocks"][0])
    ['attn', 'mlp']
    """
    pattern = shortest_period(pattern)  # "abab" -> "ab"
    chars, k = tuple(sorted(set(pattern))), context_needed(pattern)
    n_ctx = k if n_ctx is None else n_ctx
    layout = Layout(chars, k, n_ctx)
    weights = {
        "wte": layout.token_embeddings(),  # [n_vocab, n_embd]
        "wpe": layout.position_embeddings(),  # [n_ctx, n_embd]
        "blocks": [{"attn": layout.attention(), "mlp": layout.lookup_table(pattern)}],
    }
    return CompiledPattern(
        pattern=pattern,
        chars=chars,
        k=k,
        n_ctx=n_ctx,
        n_head=k,
        weights=as_dtype(weights, dtype),
        embed_labels=layout.labels,
        hidden_labels=tuple(f"{window}→{nxt}" for window, nxt in phases(pattern, k)),
    )


@checked
def phases(pattern, k):
    """Each phase of the repetition: its last ``k`` characters and the one
    that comes next.

    >>> phases("aab", 2)
    [('aa', 'b'), ('ab', 'a'), ('ba', 'a')]
    """
    text = pattern * (k // len(pattern) + 2)
    return [(text[s : s + k], text[s + k]) for s in range(len(pattern))]


class Layout:
    """Which column of the embedding does what, and the weights that follow from it.

    Columns: the tokens (one per character), the positions ``P0 ..``, then
    ``k`` slots of one column per character (``a@1``: "an ``a`` one step
    back"), then zeros to round the width up to ``n_head * d_head``.

    >>> Layout(("a", "b"), k=2, n_ctx=2).labels
    ('a', 'b', 'P0', 'P1', 'a@0', 'b@0', 'a@1', 'b@1')
    """

    def __init__(self, chars, k, n_ctx):
        self.chars, self.k, self.n_ctx = chars, k, n_ctx
        m = len(chars)
        used = m + n_ctx + k * m
        # a head needs n_ctx columns for positions and m for values; k heads must cover every column
        self.d_head = max(n_ctx, m, -(-used // k))
        self.n_embd = k * self.d_head
        slots = [f"{c}@{d}" for d in range(k) for c in chars]
        self.labels = (*chars, *(f"P{i}" for i in range(n_ctx)), *slots) + ("",) * (self.n_embd - used)
        self.token = {c: i for i, c in enumerate(chars)}  # char -> its token column
        self.position = m  # column of P0
        self.slot = {(d, c): m + n_ctx + d * m + i for d in range(k) for i, c in enumerate(chars)}

    # --8<-- [start:embeddings]
    def token_embeddings(self):
        wte = np.zeros((len(self.chars), self.n_embd))  # [n_vocab, n_embd]
        # token c -> column c
        wte[:, : len(self.chars)] = np.eye(len(self.chars))
        return wte

    def position_embeddings(self):
        wpe = np.zeros((self.n_ctx, self.n_embd))  # [n_ctx, n_embd]
        # position i -> column Pi
        wpe[:, self.position : self.position + self.n_ctx] = np.eye(self.n_ctx)
        return wpe
    # --8<-- [end:embeddings]

    # --8<-- [start:attention]
    def attention(self):
        """One head per offset ``d``: position ``i`` finds position ``i - d``
        and copies its token to slot ``d``."""
        n, h = self.n_embd, self.d_head
        # [n_embd, n_embd] each
        q, key, v = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
        # [n_embd, n_embd]: head outputs -> residual columns
        proj = np.zeros((n, n))
        # head d uses columns d*h .. d*h + h - 1 of q, k, v
        for d in range(self.k):
            # position i looks for position i - d ...
            for i in range(d, self.n_ctx):
                # ... with score LG after / sqrt(h)
                q[self.position + i, d * h + i - d] = LG * math.sqrt(h)
            for j in range(self.n_ctx):
                # position j offers itself
                key[self.position + j, d * h + j] = 1
            for c, t in self.token.items():
                v[t, d * h + t] = 1  # the value is the token, one-hot
                # head d writes it into slot d
                proj[d * h + t, self.slot[d, c]] = 1
                if d == 0:
                    # and head 0 clears the token column for the answer
                    proj[d * h + t, t] = -1
        w_qkv = np.concatenate([q, key, v], axis=1)  # [n_embd, 3*n_embd]
        return {
            "c_attn": {"w": w_qkv, "b": np.zeros(3 * n)},
            "c_proj": {"w": proj, "b": np.zeros(n)},  # [n_embd, n_embd]
        }
    # --8<-- [end:attention]

    # --8<-- [start:lookup_table]
    def lookup_table(self, pattern):
        """One feed-forward unit per phase: it fires on its window and votes
        LG for the next character."""
        rows = phases(pattern, self.k)  # [(window, next)] one per unit
        fc = np.zeros((self.n_embd, len(rows)))  # [n_embd, n_hidden]
        out = np.zeros((len(rows), self.n_embd))  # [n_hidden, n_embd]
        for u, (window, nxt) in enumerate(rows):
            for d in range(self.k):
                # +16 per slot that matches
                fc[self.slot[d, window[-1 - d]], u] = 2 * SWITCH
            # SWITCH * 128 = LG for the next character
            out[u, self.token[nxt]] = LG / SWITCH
        # all k match: +8; one wrong: -8
        bias = np.full(len(rows), SWITCH - 2 * SWITCH * self.k)
        return {
            "c_fc": {"w": fc, "b": bias},  # [n_embd, n_hidden], [n_hidden]
            # [n_hidden, n_embd], [n_embd]
            "c_proj": {"w": out, "b": np.zeros(self.n_embd)},
        }
    # --8<-- [end:lookup_table]


# The boundary (see handtf.checks): what each function above accepts.


def check_pattern(pattern):
    """The sorted alphabet and the shortest period of ``pattern``, or a clear error about what the design cannot take."""
    check_alphabet("pattern", check_text("pattern", pattern), distinct=False)
    pattern = shortest_period.__wrapped__(pattern)
    chars = tuple(sorted(set(pattern)))
    if len(chars) > MAX_CHARS:
        raise ValueError(
            f"pattern has {len(chars)} different characters; the design supports at most {MAX_CHARS} "
            f"(a token and a slot column each, plus a position, within GPT-2 small's n_embd = {GPT2_SMALL['n_embd']})"
        )
    if len(pattern) > GPT2_SMALL["n_hidden"]:
        raise ValueError(
            f"pattern repeats every {len(pattern)} characters; the design has one feed-forward unit per phase "
            f"and supports at most {GPT2_SMALL['n_hidden']} (GPT-2 small's)"
        )
    return chars, pattern


def _short(pattern):
    return pattern if len(pattern) <= 20 else pattern[:17] + "..."


def _check_fits(pattern, chars, k, n_ctx):
    name = _short(pattern)
    if k > GPT2_SMALL["n_head"]:
        raise ValueError(
            f"{last_characters(k)} of ({name})* {verb(k, 'are')} needed to decide the next, one attention head each; "
            f"the design supports at most {GPT2_SMALL['n_head']} (GPT-2 small's heads)"
        )
    if not k <= check_int_range("n_ctx", n_ctx) <= GPT2_SMALL["n_ctx"]:
        raise ValueError(
            f"n_ctx must be {k} to {GPT2_SMALL['n_ctx']}: {last_characters(k)} of ({name})* {verb(k, 'decide')} "
            f"the next, and GPT-2 small sees at most {GPT2_SMALL['n_ctx']}; got {n_ctx}"
        )
    layout = Layout(chars, k, n_ctx)
    if layout.n_embd > GPT2_SMALL["n_embd"]:
        raise ValueError(
            f"({name})* with n_ctx = {n_ctx} needs n_embd = {layout.n_embd} ({k} head{'s' if k != 1 else ''} of {layout.d_head} columns); "
            f"the design supports at most {GPT2_SMALL['n_embd']} (GPT-2 small's)"
        )


@checked
def describe(model, max_rows=20):
    """The design of a compiled pattern in a few lines, as ``python -m handtf compile`` prints it.

    >>> print(describe(compile_pattern("aab")))
    pattern (aab)*: period 3, characters 'ab'
    k = 2: the last 2 characters decide the next; one head per offset 0..1
    n_ctx = 2, n_embd = 8 (2 heads of 4 columns), 3 FFN units
    lookup table (last 2 characters -> next):
      aa -> b
      ab -> a
      ba -> a
    """
    lines = [
        f"pattern ({_short(model.pattern)})*: period {len(model.pattern)}, characters {_short(''.join(model.chars))!r}",
        f"k = {model.k}: {last_characters(model.k)} {verb(model.k, 'decide')} the next; one head per offset 0..{model.k - 1}",
        f"n_ctx = {model.n_ctx}, n_embd = {model.n_embd} ({model.n_head} head{'s' if model.n_head != 1 else ''} of {model.d_head} columns), "
        f"{len(model.hidden_labels)} FFN units",
        f"lookup table (last {model.k} characters -> next):",
    ]
    rows = sorted(model.table.items())
    lines += [f"  {window} -> {nxt}" for window, nxt in rows[:max_rows]]
    if len(rows) > max_rows:
        lines.append(f"  ... and {len(rows) - max_rows} more")
    return "\n".join(lines)


def check_describe(model, max_rows):
    read_model(model, kind=CompiledPattern)
    return {"max_rows": check_count("max_rows", max_rows)}


def check_phases(pattern, k):
    n = len(check_text("pattern", pattern))
    k = check_int_range("k", k, 1, 10 * n, " (ten periods)")
    if n * (k + 1) > MAX_TEXT:
        raise ValueError(f"phases of {n:,} characters with k = {k:,} make {n * (k + 1):,} characters; "
                         f"at most {MAX_TEXT:,} (MAX_TEXT): use a smaller k or a shorter pattern")
    return {"k": k}


def check_compile_pattern(pattern, n_ctx, dtype):
    chars, pattern = check_pattern(pattern)
    k = context_needed.__wrapped__(pattern)
    _check_fits(pattern, chars, k, k if n_ctx is None else n_ctx)
    return {"dtype": check_float_dtype("dtype", dtype, least=4)}
