"""Behaviour that is easy to change by accident, each checked against an independent derivation (issue 11, item 7).

The expected values come from hand computation, a formula, or a second
implementation written here with plain Python loops, never from handtf's
own output.
"""

import itertools
import math

import numpy as np
import pytest

import handtf.model.inference
import handtf.model.evaluation
from handtf import MODEL, Config, beam_search, complete, decode, encode, gpt, init_params, layer_norm, top_k_filter

# ---------------------------------------------------------------- top_k_filter ties


def reference_top_k(logits, k):
    """Rank by (larger logit first, then lower id), keep k, by plain sorting."""
    keep = sorted(range(len(logits)), key=lambda i: (-logits[i], i))[:k]
    return [logits[i] if i in keep else -math.inf for i in range(len(logits))]


def test_top_k_ties_by_hand():
    # logits 3 at ids 1, 3, 4: top_k = 2 keeps ids 1 and 3, the two lowest ids among the equal best
    assert top_k_filter([1.0, 3.0, 2.0, 3.0, 3.0], 2).tolist() == [-math.inf, 3.0, -math.inf, 3.0, -math.inf]
    # top_k = 4 keeps the three 3s and then the 2 at id 2
    assert top_k_filter([1.0, 3.0, 2.0, 3.0, 3.0], 4).tolist() == [-math.inf, 3.0, 2.0, 3.0, 3.0]


@pytest.mark.parametrize("seed", range(20))
def test_top_k_matches_a_sorting_reference_on_many_ties(seed):
    rng = np.random.default_rng(seed)
    logits = rng.integers(0, 3, size=8).astype(float).tolist()  # values in {0, 1, 2}: ties everywhere
    for k in range(1, 9):
        assert top_k_filter(logits, k).tolist() == reference_top_k(logits, k)


# ---------------------------------------------------------------- beam search ties


def reference_beam_search(step_fn, start, beam_width, max_len, eos):
    """The documented rule, written out: sort candidates by (sum desc, parent rank, token id); finished leave."""
    alive, finished = [(list(start), 0.0)], []
    for _ in range(max_len):
        candidates = []
        for rank, (tokens, total) in enumerate(alive):
            for token, lp in enumerate(step_fn(tokens)):
                candidates.append((-(total + lp), rank, token, tokens + [token], total + lp))
        candidates.sort(key=lambda c: c[:3])
        kept = []
        for _, _, token, tokens, total in candidates[:beam_width]:
            if total > -math.inf:
                (finished if token == eos else kept).append((tokens, total))
        alive = kept
        if not alive:
            break
    everything = finished + alive
    order = sorted(range(len(everything)), key=lambda i: (-everything[i][1], i))  # earlier wins a tie
    return [everything[i] for i in order]


def tied_table(seed, n_vocab=3):
    """A step function whose log-probs come from {1/2, 1/4, 1/4}: equal sums happen at every step."""
    rng = np.random.default_rng(seed)
    table = {}

    def step(tokens):
        key = tuple(tokens)
        if key not in table:
            table[key] = np.log(rng.permutation([0.5, 0.25, 0.25][:n_vocab]))
        return table[key]

    return step


def test_beam_search_ties_by_hand():
    # every step: token 0 has 1/2, tokens 1 and 2 have 1/4 each; width 2 keeps 0 and then the lower id, 1
    def step(tokens):
        return np.log([0.5, 0.25, 0.25])

    tokens = [t for t, _ in beam_search(step, [2], beam_width=2, max_len=1)]
    assert tokens == [[2, 0], [2, 1]]
    # two steps: sums 1/4 ([0,0]), then 1/8 four times: [0,1] (parent rank 0) beats [1,0] (parent rank 1)
    tokens = [t for t, _ in beam_search(step, [2], beam_width=2, max_len=2)]
    assert tokens == [[2, 0, 0], [2, 0, 1]]


@pytest.mark.parametrize("seed, eos", list(itertools.product(range(12), [None, 2])))
def test_beam_search_matches_the_written_out_rule_on_tied_tables(seed, eos):
    step = tied_table(seed)
    got = beam_search(step, [0], beam_width=3, max_len=4, eos=eos)
    want = reference_beam_search(step, [0], 3, 4, eos)
    assert [t for t, _ in got] == [t for t, _ in want]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in want])


# ---------------------------------------------------------------- the window complete feeds the model


def attended_windows(monkeypatch, seen):
    """Spy on decoding's gpt: each call attends to the positions its cache keeps followed by its inputs."""
    real_gpt, window = handtf.model.decoding.gpt, []  # complete decodes through gpt_step's gpt

    def spy(inputs, cache=None, **weights):
        window[:] = window[: cache.n_seq] + [int(t) for t in inputs]
        seen.append(list(window))
        return real_gpt(inputs, cache=cache, **weights)

    monkeypatch.setattr(handtf.model.decoding, "gpt", spy)


def test_complete_feeds_the_model_the_last_five_tokens(monkeypatch):
    windows = []
    attended_windows(monkeypatch, windows)
    text = complete("ab", 6)
    # by hand: (aab)* after "ab" goes a, a, b, a, a, b
    assert text == "abaabaab"
    # the model sees text[max(0, i - 5):i] before writing text[i], for i = 2 .. 7
    assert ["".join("ab"[t] for t in w) for w in windows] == ["ab", "aba", "abaa", "abaab", "baaba", "aabaa"]


def test_complete_on_a_long_context_sees_only_its_end(monkeypatch):
    seen = []
    attended_windows(monkeypatch, seen)
    complete("bbbbbbbbbbaab", 1)
    assert seen == [[1, 1, 0, 0, 1]]  # "bbaab", the last five characters


# ---------------------------------------------------------------- the pre-norm decoder's final layer norm


def layer_norm_by_hand(x, g, b, eps=1e-5):
    out = []
    for row in x:
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        out.append([gi * (v - mean) / math.sqrt(var + eps) + bi for v, gi, bi in zip(row, g, b)])
    return np.array(out)


def test_the_pre_norm_decoder_ends_with_its_own_ln_f():
    """decode(pre) = layer_norm(stack output, ln_f) @ wte.T, with ln_f's g and b taking effect."""
    from handtf.seq2seq import RESIDUALS, decoder_block, embed

    config = Config(5, 6, d_model=8, n_head=2, d_ff=16, n_layers=2, norm="pre")
    params = init_params(config, seed=3)
    rng = np.random.default_rng(0)
    params["decoder"]["ln_f"] = {"g": rng.uniform(0.5, 2, 8), "b": rng.normal(0, 1, 8)}
    src, tgt = np.array([1, 2, 3]), np.array([0, 4, 2])
    memory = encode(src, params, config)
    x = embed(tgt, params["decoder"]["wte"])
    for block in params["decoder"]["blocks"]:
        x = decoder_block(x, memory, **block, n_head=2, residual=RESIDUALS["pre"])
    ln_f = params["decoder"]["ln_f"]
    expected = layer_norm_by_hand(x, ln_f["g"], ln_f["b"]) @ params["decoder"]["wte"].T
    np.testing.assert_allclose(decode(tgt, memory, params, config), expected, rtol=1e-10, atol=1e-10)
    without = x @ params["decoder"]["wte"].T  # what a decoder that skipped ln_f would give
    assert not np.allclose(decode(tgt, memory, params, config), without)


def test_a_post_norm_decoder_has_no_ln_f():
    params = init_params(Config(5, 6, d_model=8, n_head=2, d_ff=16, n_layers=1), seed=3)
    assert "ln_f" not in params["decoder"]


# ---------------------------------------------------------------- position embeddings on short sequences


def gpt_by_loops(tokens, wte, wpe, blocks):
    """The forward pass with Python loops: position i adds wpe[i]; query i attends to keys 0..i."""
    n_embd = len(wte[0])
    x = [[wte[t][j] + wpe[i][j] for j in range(n_embd)] for i, t in enumerate(tokens)]
    for block in blocks:
        c_attn, c_proj = block["attn"]["c_attn"], block["attn"]["c_proj"]
        qkv = [[sum(row[a] * c_attn["w"][a][o] for a in range(n_embd)) + c_attn["b"][o] for o in range(3 * n_embd)] for row in x]
        q, k, v = ([r[s * n_embd : (s + 1) * n_embd] for r in qkv] for s in range(3))
        out = []
        for i in range(len(x)):
            scores = [sum(a * b for a, b in zip(q[i], k[j])) / math.sqrt(n_embd) for j in range(i + 1)]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            weights = [w / sum(weights) for w in weights]
            att = [sum(weights[j] * v[j][d] for j in range(i + 1)) for d in range(n_embd)]
            proj = [sum(att[a] * c_proj["w"][a][o] for a in range(n_embd)) + c_proj["b"][o] for o in range(n_embd)]
            out.append([x[i][d] + proj[d] for d in range(n_embd)])
        x = out
    return np.array([[sum(row[d] * wte[t][d] for d in range(n_embd)) for t in range(len(wte))] for row in x])


@pytest.mark.parametrize("n_seq", [1, 2, 3, 4, 5])
def test_short_sequences_use_the_first_position_embeddings_with_general_weights(n_seq):
    rng = np.random.default_rng(n_seq)
    n_vocab, n_ctx, n_embd = 3, 5, 4
    weights = {
        "wte": rng.normal(size=(n_vocab, n_embd)),
        "wpe": rng.normal(size=(n_ctx, n_embd)) * 3,  # large, distinct rows: a shifted alignment shows
        "blocks": [{"attn": {"c_attn": {"w": rng.normal(size=(n_embd, 3 * n_embd)), "b": rng.normal(size=3 * n_embd)},
                             "c_proj": {"w": rng.normal(size=(n_embd, n_embd)), "b": rng.normal(size=n_embd)}}}],
    }
    tokens = rng.integers(0, n_vocab, size=n_seq)
    np.testing.assert_allclose(gpt(tokens, **weights), gpt_by_loops(tokens.tolist(), **weights), rtol=1e-9, atol=1e-9)
    wrong = dict(weights, wpe=weights["wpe"][::-1].copy())  # positions counted from the end instead
    if n_seq < n_ctx:
        assert not np.allclose(gpt(tokens, **weights), gpt_by_loops(tokens.tolist(), **wrong))


# ---------------------------------------------------------------- float16 layer norm, verify on non-finite logits


def test_layer_norm_in_float16_by_hand():
    # [200, -200]: mean 0, variance 40000, so (x - 0) / 200 = [1, -1]; float16 squares overflow past 65504
    x = np.array([200.0, -200.0], dtype=np.float16)
    out = layer_norm(x, np.ones(2, np.float16), np.zeros(2, np.float16))
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(float), [1.0, -1.0], atol=1e-3)
    big = np.array([[30000.0, -30000.0, 0.0]], dtype=np.float16)  # std = 30000 * sqrt(2/3)
    np.testing.assert_allclose(
        layer_norm(big, np.ones(3, np.float16), np.zeros(3, np.float16)).astype(float),
        [[math.sqrt(1.5), -math.sqrt(1.5), 0.0]], atol=2e-3,
    )


def test_verify_counts_a_nan_margin_as_a_failure(monkeypatch):
    """If logits ever came out NaN past the boundary check, verify would not call them correct."""
    import sys

    from handtf import verify

    monkeypatch.setattr(sys.modules["handtf.model.evaluation"], "gpt", lambda inputs, **w: np.full(inputs.shape + (2,), np.nan))
    result = verify(5, MODEL)
    assert not result.passed and result.correct == 0 and result.checked == 12
