"""A proof that an adder adds every pair right, not a sample: interval bounds over every input.

``prove_adder(model)`` works for any model in the adder's layout (one block,
two heads, a GELU feed-forward network, no layer norm, the unembedding tied to
``wte``): :func:`handtf.adder`, :func:`handtf.trained_adder`, or the same
layout with other weights.

**What must be shown.** Greedy decoding writes ``s_0 .. s_n``. If, at every
step ``i``, the right digit ``s_i`` has the largest logit whenever the digits
written before it are the right ones, then greedy decoding writes the right
sum, by induction over the steps (the argument of :func:`handtf.verify_pairs`).
So the proof looks at each step ``i`` once, for every input at the same time.

**What is enumerated.** At step ``i`` the last position holds ``s_(i-1)``
(``=`` at step 0), and the logits depend on the tokens before it only through
the two heads' attention. A *window* of columns ``lo .. i`` is enumerated in
full: every digit ``a_j``, ``b_j`` of those columns and the carry into column
``lo`` (0 when ``lo`` is 0). They fix the written digits ``s_lo .. s_(i-1)``
(the query's token among them), the carry into column ``i`` and the right
answer ``s_i``. Every other digit position before the query (``a_j``, ``b_j``
outside the window, ``s_j`` before it) is *free*: it may hold any of the ten
digits, each chosen independently, which includes whatever the real sums put
there. Every input, at every step, matches one enumerated case with some
choice of the free digits, so a bound that holds for every case and every
choice holds for every input. The window starts at the column before ``i``
(``10^4 x 2`` cases a step); a case whose bound is too loose is split by
moving ``lo`` one column further back (of that column's ``200`` choices of two
digits and a carry in, the ``100`` whose carry out agrees; fewer at column 0),
a few times at most.

**The bound for one case.** The known positions' scores and values are exact.
Each free position's score lies between the smallest and the largest of its
ten tokens' scores, so the free positions carry a total attention weight ``W``
between ``Z_F^min / (Z_E + Z_F^min)`` and ``Z_F^max / (Z_E + Z_F^max)``
(``Z``: sums of ``exp(score)``, in log space), and their weighted mean value is
a point of the convex hull of the ten tokens' values at the free positions.
A head adds ``(1 - W) mean_E + W m`` to the residual: every linear function of
it (a GELU unit's input, a difference of two logits) lies between bounds taken
over that hull exactly. GELU's image of an interval is exact (it is not
monotone below about -0.75), and the logit differences add the units' bounds.
The case is proved when the right logit minus every other logit is above 0;
``margin`` is the smallest such lower bound.

**Arithmetic.** The statement is about the weights as stored (float32
weights are exact in float64), computed in exact (real) arithmetic. The
bounds are computed in float64 and each is widened by ``SLACK`` times the size
of the terms it adds (plus ``TINY``), far more than float64's rounding in the
few hundred operations behind it; an off-target weight below ``exp(-700)`` is
counted as ``exp(-700)``. The forward pass in float32 or float64 rounds as
well, and the proof does not bound that rounding: it shows that exact
arithmetic leaves every right logit ahead by ``margin``, so float32 decoding
can go wrong only where its rounding moves a logit difference by that much.
Sampling in float32 (:func:`handtf.verify_pairs`) is what checks float32.

**When it is not proved.** ``reason`` names the undecided case with the
lowest bound and how much weight off-target attention could carry in each
head there. The search for a ``counterexample`` (:func:`search_counterexample`)
starts from inputs realising the undecided cases and moves one digit at a time
towards a smaller real margin; it reports a pair only when greedy decoding
(``Adder.add``) really writes a wrong sum.
"""

import math
from dataclasses import dataclass

import numpy as np

from ..blocks.activations import gelu
from ..checks import checked
from ..trees import read_only
from .addition import CHARS, EQUALS, PLUS, check_model, encode, forward

SLACK = 2.0**-30  # relative widening of every bound (float64's own rounding in it is below 2**-40)
TINY = 1e-12  # absolute widening besides
REFINE = 3  # at most this many columns added to a failing case's window
MAX_SPLIT = 200_000  # at most this many sub-cases a step in the refinement
CHUNK = 4096  # cases per batch
DIGITS = read_only(np.arange(10))  # shared: read-only, and cannot be made writeable again


@dataclass(frozen=True)
class AdderProof:
    """What :func:`prove_adder` showed about every pair of numbers of up to ``n_digits`` digits."""

    n_digits: int
    inputs: int  # how many pairs the statement covers: 10 ** (2 n_digits)
    proved: bool  # every pair is added right by greedy decoding (exact arithmetic on the weights as stored)
    margin: float  # a lower bound on the smallest logit margin over every input (when proved), else nan
    counterexample: tuple  # (a, b) the model really adds wrong, or None
    written: int  # what greedy decoding writes for the counterexample, or None
    cases: int  # cases enumerated over all steps
    windows: tuple  # the widest window (columns) used at each step
    tried: int  # inputs run through the model in the search for a counterexample
    reason: str  # why not proved: the step, the case and the bound that was too loose

    def __repr__(self):
        head = f"AdderProof(n_digits={self.n_digits}): {self.inputs:.0e} pairs".replace("e+", "e")
        if self.proved:
            return (f"{head}, {self.cases:,} cases (windows of up to {max(self.windows)} columns)\n"
                    f"  proved: greedy decoding adds every pair right, smallest margin >= {self.margin:.6g}\n"
                    "  in exact arithmetic on the weights as stored; float32 and float64 rounding not bounded")
        lines = [f"{head}, {self.cases:,} cases (windows of up to {max(self.windows)} columns)",
                 f"  not proved: {self.reason}"]
        if self.counterexample:
            a, b = self.counterexample
            lines.append(f"  counterexample: {a} + {b} = {a + b}, the model writes {self.written}")
        else:
            lines.append(f"  no counterexample among {self.tried:,} inputs of the undecided cases: the bound was too loose")
        return "\n".join(lines)


def gelu_range(lo, hi):
    """The exact image of ``[lo, hi]`` under the package's GELU, widened a little: ``(min, max)``."""
    points = [lo, hi]
    candidates = []
    for x, keep in ((GELU_MIN_AT, (lo < GELU_MIN_AT) & (GELU_MIN_AT < hi)), (-10.0, (lo < -10.0) & (-10.0 < hi))):
        candidates.append(np.where(keep, x, lo))
    values = np.stack([gelu(v) for v in points + candidates])
    low, high = values.min(axis=0), values.max(axis=0)
    low = low - GRID * (candidates[0] != lo)  # GELU_MIN_AT is a grid point: the true minimum may be a little lower
    return low - TINY - SLACK * abs(low), high + TINY + SLACK * abs(high)


def _gelu_minimum():
    x = np.linspace(-1.0, -0.5, 200_001)  # steps of 2.5e-6: GELU'' < 1 there, so the grid's minimum is within 1e-11
    return float(x[np.argmin(gelu(x))])


GRID = 1e-10  # how far below GELU(GELU_MIN_AT) the true minimum may lie, with room to spare


GELU_MIN_AT = _gelu_minimum()  # GELU falls from -10 to about -0.75 and rises after it


class _Step:
    """One step's tables: every position's score for every token and query token, and its value's functionals."""

    def __init__(self, weights, n, i):
        block = weights["blocks"][0]
        wte, wpe = weights["wte"], weights["wpe"]
        n_embd = wte.shape[1]
        d = n_embd // 2
        self.n, self.i, self.p = n, i, 2 * n + 1 + i
        w_attn, b_attn = block["attn"]["c_attn"]["w"], block["attn"]["c_attn"]["b"]
        w_o, b_o = block["attn"]["c_proj"]["w"], block["attn"]["c_proj"]["b"]
        fc_w, fc_b = block["mlp"]["c_fc"]["w"], block["mlp"]["c_fc"]["b"]
        pw, pb = block["mlp"]["c_proj"]["w"], block["mlp"]["c_proj"]["b"]
        n_vocab, units = wte.shape[0], fc_w.shape[1]
        # the functionals of the residual that matter: each unit's input, each (right, wrong) logit difference
        pairs = [(r, w) for r in range(10) for w in range(n_vocab) if w != r]
        diffs = np.stack([wte[r] - wte[w] for r, w in pairs], axis=1)  # [n_embd, 10 (n_vocab - 1)]
        G = np.concatenate([fc_w, diffs], axis=1)  # [n_embd, units + pairs]
        self.units, self.n_wrong = units, n_vocab - 1
        # every (position, token)'s q, k, v: the input is linear in the token's row and the position's row
        qkv = (wpe[: self.p + 1] @ w_attn)[:, None, :] + (wte @ w_attn)[None, :, :] + b_attn  # [n_pos, n_vocab, 3 n_embd]
        q, k, v = qkv[..., :n_embd], qkv[..., n_embd : 2 * n_embd], qkv[..., 2 * n_embd :]
        self.scores, self.values = [], []
        for h in range(2):
            cols = slice(h * d, (h + 1) * d)
            query = q[self.p, :, cols]  # [n_vocab (query token), d]
            self.scores.append(np.einsum("qd,jtd->qjt", query, k[..., cols]) / math.sqrt(d))  # [q, j, t]
            self.values.append((v[..., cols] @ w_o[cols]) @ G)  # [j, t, f]
        self.largest = sum(abs(v).max(axis=(0, 1)) for v in self.values)  # [f]: no value of a head is larger
        self.fixed = (wpe[self.p] + b_o) @ G + wte @ G  # [query token, f]: the query's own input and c_proj's bias
        self.fc_b, self.pb_diff = fc_b, pb @ diffs  # [units], [pairs]
        self.coef = (pw @ diffs).T.reshape(10, n_vocab - 1, units)  # [right, wrong, units]
        self.pairs = np.array([[w for w in range(n_vocab) if w != r] for r in range(10)])  # [10, n_vocab - 1]

    def positions(self, lo):
        """The known positions for a window from column ``lo``, and the free ones."""
        n, i = self.n, self.i
        cols = range(lo, min(i, n - 1) + 1)
        known = [n, 2 * n + 1] + [c for c in cols] + [n + 1 + c for c in cols]
        known += [2 * n + 2 + j for j in range(lo, i)]  # s_lo .. s_(i-1); s_(i-1) is the query
        free = [j for j in range(self.p + 1) if j not in set(known)]
        return known, free

    def bound(self, lo, A, B, carry):
        """Lower bounds on the right logit minus the best other, for cases ``A, B [c, cols], carry [c]``."""
        n, i = self.n, self.i
        known, free = self.positions(lo)
        s, c = [], carry.copy()
        for col in range(A.shape[1]):  # the sums' digits in the window, and the carry into column i
            total = A[:, col] + B[:, col] + c
            s.append(total % 10)
            c = total // 10
        right = s[i - lo] if i < n else c  # [c]
        written = s[: i - lo]  # s_lo .. s_(i-1)
        cols = A.shape[1] if i < n else A.shape[1]
        tokens = [np.full(len(A), PLUS), np.full(len(A), EQUALS)] + [A[:, k] for k in range(cols)]
        tokens += [B[:, k] for k in range(cols)] + written
        query = written[-1] if i > 0 else np.full(len(A), EQUALS)
        tok = np.stack(tokens, axis=1)  # [c, known]
        lower = np.zeros(len(A))
        ranges, loose = self.fixed[query].copy(), []
        for h in range(2):
            sc = self.scores[h][query[:, None], np.array(known)[None, :], tok]  # [c, known]
            top = sc.max(axis=1, keepdims=True)
            e = np.exp(sc - top)
            log_ze = top[:, 0] + np.log(e.sum(axis=1))
            mean = np.einsum("ck,ckf->cf", e / e.sum(axis=1, keepdims=True),
                             self.values[h][np.array(known)[None, :], tok])  # [c, f]
            if free:
                fs = self.scores[h][:, free][:, :, :10]  # [q, free, 10 digits]
                zmax = np.logaddexp.reduce(fs.max(axis=2), axis=1)[query]  # [c]
                zmin = np.logaddexp.reduce(fs.min(axis=2), axis=1)[query]
                w_max = np.exp(np.maximum(zmax - np.logaddexp(log_ze, zmax), -700.0)) * (1 + SLACK)
                w_min = np.exp(zmin - np.logaddexp(log_ze, zmin)) * (1 - SLACK)
                fv = self.values[h][free][:, :10]  # [free, 10, f]
                fmin, fmax = fv.min(axis=(0, 1)), fv.max(axis=(0, 1))  # [f]: the hull's extent
                down, up = fmin[None] - mean, fmax[None] - mean
                lo_h = mean + np.minimum(w_max[:, None] * down, w_min[:, None] * down)
                hi_h = mean + np.maximum(w_max[:, None] * up, w_min[:, None] * up)
                loose.append(w_max)
            else:
                lo_h = hi_h = mean
                loose.append(np.zeros(len(A)))
            if h == 0:
                low, high = ranges + lo_h, ranges + hi_h
            else:
                low, high = low + lo_h, high + hi_h
        size = abs(self.fixed[query]) + self.largest  # [c, f]: the largest terms these sums add
        low, high = low - SLACK * size - TINY, high + SLACK * size + TINY
        u = self.units
        g_lo, g_hi = gelu_range(low[:, :u] + self.fc_b, high[:, :u] + self.fc_b)  # [c, units]
        coef = self.coef[right]  # [c, wrong, units]
        mlp = np.minimum(coef * g_lo[:, None], coef * g_hi[:, None])  # [c, wrong, units]
        scale = abs(coef) * np.maximum(abs(g_lo), abs(g_hi))[:, None]
        idx = u + right[:, None] * self.n_wrong + np.arange(self.n_wrong)[None]  # [c, wrong]
        direct = np.take_along_axis(low, idx, axis=1)
        lower = direct + mlp.sum(axis=2) + self.pb_diff[idx - u]
        lower -= SLACK * (abs(direct) + scale.sum(axis=2) + abs(self.pb_diff[idx - u])) + TINY
        return lower.min(axis=1), np.stack(loose, axis=1)  # [c], [c, 2]


def window_cases(lo, width, n, carry_in):
    """Every choice of the digits of ``width`` columns from ``lo`` and of the carry into ``lo``."""
    grids = np.meshgrid(*([DIGITS] * (2 * width)), indexing="ij")
    digits = np.stack([g.ravel() for g in grids], axis=1)  # [10^(2w), 2w]
    A, B = digits[:, :width], digits[:, width:]
    carries = [0, 1] if carry_in else [0]
    A = np.concatenate([A] * len(carries))
    B = np.concatenate([B] * len(carries))
    carry = np.repeat(carries, len(digits))
    return A, B, carry


def split_back(A, B, carry, lo):
    """Each case ``A, B, carry`` with column ``lo - 1`` added in front: the sub-cases whose carry into ``lo`` agrees."""
    a, b, c = np.meshgrid(DIGITS, DIGITS, [0, 1] if lo - 1 > 0 else [0], indexing="ij")
    a, b, c = a.ravel(), b.ravel(), c.ravel()
    out = (a + b + c) // 10  # the carry into lo this choice makes
    rows, cols = [], []
    for k in (0, 1):
        pick = np.nonzero(out == k)[0]
        which = np.nonzero(carry == k)[0]
        rows.append(np.repeat(which, len(pick)))
        cols.append(np.tile(pick, len(which)))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    return (np.concatenate([a[cols, None], A[rows]], axis=1), np.concatenate([b[cols, None], B[rows]], axis=1),
            c[cols], rows)


def _bound_all(step, lo, A, B, carry):
    lows, loose = [], []
    for start in range(0, len(A), CHUNK):
        part = slice(start, start + CHUNK)
        m, w = step.bound(lo, A[part], B[part], carry[part])
        lows.append(m)
        loose.append(w)
    return np.concatenate(lows), np.concatenate(loose)


def _case_text(i, lo, a, b, carry):
    cols = ", ".join(f"a_{lo + k}={x} b_{lo + k}={y}" for k, (x, y) in enumerate(zip(a, b)))
    return f"step {i} ({cols}, carry into column {lo} = {carry})"


@checked
def prove_adder(model):
    """Prove that ``model`` adds every pair of numbers of up to ``n_digits`` digits right, or find one it gets wrong.

    >>> from handtf import adder
    >>> proof = prove_adder(adder(3))
    >>> proof.proved, proof.inputs, proof.margin > 1000, proof.counterexample
    (True, 1000000, True, None)
    """
    n = model.n_digits
    weights = _float64(model.weights)
    margin, cases, windows, failing = math.inf, 0, [], []
    for i in range(n + 1):
        step = _Step(weights, n, i)
        lo = max(0, i - 1)
        A, B, carry = window_cases(lo, min(i, n - 1) - lo + 1, n, lo > 0)
        low, loose = _bound_all(step, lo, A, B, carry)
        cases += len(A)
        width = A.shape[1]
        bad = np.nonzero(low <= 0)[0]
        while len(bad) and lo > 0 and A.shape[1] - width < REFINE and 200 * len(bad) <= MAX_SPLIT:
            good = low[low > 0]
            margin = min(margin, float(good.min())) if len(good) else margin
            A, B, carry, _ = split_back(A[bad], B[bad], carry[bad], lo)
            lo -= 1
            low, loose = _bound_all(step, lo, A, B, carry)
            cases += len(A)
            bad = np.nonzero(low <= 0)[0]
        windows.append(A.shape[1])
        good = low[low > 0]
        margin = min(margin, float(good.min())) if len(good) else margin
        if len(bad):
            k = bad[np.argmin(low[bad])]
            failing.append((i, lo, A[bad], B[bad], carry[bad], float(low[k]), loose[k],
                            _case_text(i, lo, A[k], B[k], int(carry[k]))))
    if not failing:
        return AdderProof(n_digits=n, inputs=10 ** (2 * n), proved=True, margin=margin, counterexample=None,
                          written=None, cases=cases, windows=tuple(windows), tried=0, reason="")
    i, lo, A, B, carry, low, loose, text = failing[0]
    reason = (f"{text}: the right logit's lead could be as low as {low:.4g}; off-target attention "
              f"could carry weight up to {loose[0]:.3g} in head 0 and {loose[1]:.3g} in head 1"
              f" ({sum(len(f[2]) for f in failing):,} cases undecided)")
    found, written, tried = search_counterexample(model, failing)
    return AdderProof(n_digits=n, inputs=10 ** (2 * n), proved=False, margin=math.nan, counterexample=found,
                      written=written, cases=cases, windows=tuple(windows), tried=tried, reason=reason)


def _float64(weights):
    from ..model.weights import as_dtype

    return as_dtype(weights, np.float64)  # float32 weights are exact in float64


def search_counterexample(model, failing, per_step=16, restarts=24, sweeps=6, seed=0):
    """A pair ``(a, b)`` that greedy decoding really adds wrong, what it writes, and how many inputs were run.

    It starts from inputs realising the undecided cases (their free digits
    random), the ones with the smallest real margin first, and changes one
    digit at a time to the value that lowers the real margin most (the forward
    pass on the prompt and its right answer, every step), until a margin is
    below 0 or no digit lowers it. A pair is reported only when greedy decoding
    (``Adder.add``) really writes a wrong sum.
    """
    rng, n = np.random.default_rng(seed), model.n_digits
    starts = []
    for i, lo, A, B, carry, *_ in failing:
        for k in rng.choice(len(A), min(per_step, len(A)), replace=False):
            a, b = rng.integers(0, 10, (2, n))
            cols = list(range(lo, lo + A.shape[1]))
            a[cols], b[cols] = A[k], B[k]
            if lo > 0:  # the case's carry into column lo: column lo - 1 is 9 + 9 or 0 + 0
                a[lo - 1] = b[lo - 1] = 9 * int(carry[k])
            starts.append(np.stack([a, b]))
    starts = np.array(starts)  # [start, 2, n]
    place = 10 ** np.arange(n, dtype=np.int64)
    worst = pair_margins(model, starts[:, 0] @ place, starts[:, 1] @ place)
    tried = len(starts)
    for digits in starts[np.argsort(worst)[:restarts]]:
        current = math.inf
        for _ in range(sweeps):
            moved = False
            for where in rng.permutation(2 * n):
                row, col = divmod(where, n)
                trial = np.repeat(digits[None], 10, axis=0)  # [10, 2, n]: this digit set to 0 .. 9
                trial[:, row, col] = DIGITS
                margin = pair_margins(model, trial[:, 0] @ place, trial[:, 1] @ place)
                tried += 10
                if margin.min() < current:
                    current, digits, moved = float(margin.min()), trial[margin.argmin()], True
            if current < 0 or not moved:
                break
        if current < 0:
            a, b = int(digits[0] @ place), int(digits[1] @ place)
            written = model.add(a, b)  # greedy decoding, one token at a time
            if written != a + b:
                return (a, b), written, tried
    return None, None, tried


def pair_margins(model, a, b):
    """The smallest logit margin over every step of each addition ``a[k] + b[k]`` (the right digit's logit minus
    the largest other, with the right digits written before it), in the model's own dtype."""
    prompts, answers = encode(model, a, b)
    logits = forward(model, np.concatenate([prompts, answers[:, :-1]], axis=1))[:, -answers.shape[1]:]
    right = np.take_along_axis(logits, answers[..., None], axis=-1)[..., 0]  # [batch, n + 1]
    np.put_along_axis(logits, answers[..., None], -np.inf, axis=-1)
    return (right - logits.max(axis=-1)).min(axis=1)  # [batch]


# The boundary (see handtf.checks): what each function above accepts.


def check_prove_adder(model):
    check_model(model)
    weights = model.weights
    block = weights["blocks"][0]
    if model.n_head != 2 or len(weights["blocks"]) != 1 or set(block) != {"attn", "mlp"} or weights.get("ln_f"):
        raise ValueError("model must be in the adder's layout: one block of two heads and a feed-forward network, "
                         "no layer norm")
    if tuple(model.chars) != CHARS:
        raise ValueError(f"model must read the adder's vocabulary {''.join(CHARS)!r}, got {''.join(model.chars)!r}")
