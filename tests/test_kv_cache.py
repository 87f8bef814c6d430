"""The key/value cache of the one forward pass: cached decoding computes what the whole sequence computes.

The reference is always ``gpt`` run on the whole sequence without a cache, and
the uncached decoding loop written here with plain full passes: an independent
second way to the same numbers. The hand-set models compute with exact
products, so there the two agree to the last bit; a random GPT-2-shaped model
agrees to about 1e-15 (numpy sums a one-row product in another order).
"""

from types import SimpleNamespace

import numpy as np
import pytest

import handtf
from handtf import HAND_MADE, KVCache, MODEL, adder, compile_pattern, complete, gpt, gpt_step, greedy_search, induction_head
from handtf.patterns import addition


def random_gpt2(seed=0, n_vocab=7, n_embd=8, n_ctx=12, n_layer=2):
    """A GPT-2-shaped model with layer norms, MLPs and two heads, random weights."""
    rng = np.random.default_rng(seed)
    norm = lambda: {"g": 1 + 0.1 * rng.normal(size=n_embd), "b": 0.1 * rng.normal(size=n_embd)}  # noqa: E731
    dense = lambda n_in, n_out: {"w": rng.normal(0, 0.5, (n_in, n_out)), "b": 0.1 * rng.normal(size=n_out)}  # noqa: E731
    blocks = [{"attn": {"c_attn": dense(n_embd, 3 * n_embd), "c_proj": dense(n_embd, n_embd)}, "ln_1": norm(),
               "ln_2": norm(), "mlp": {"c_fc": dense(n_embd, 16), "c_proj": dense(16, n_embd)}} for _ in range(n_layer)]
    return {"wte": rng.normal(size=(n_vocab, n_embd)), "wpe": rng.normal(size=(n_ctx, n_embd)), "blocks": blocks,
            "ln_f": norm()}


PATTERN = compile_pattern("abcab")
INDUCTION = induction_head("abc", n_ctx=8)
ADDER = adder(3)
# name: (weights, n_head, a token sequence of n_ctx tokens, bit for bit?)
MODELS = {
    "hand-made": (MODEL, 1, [0, 0, 1, 0, 0], True),
    "compiled pattern": (PATTERN.weights, PATTERN.n_head, [0, 1, 2, 0, 1, 0, 1, 2][: PATTERN.n_ctx], True),
    "induction head": (INDUCTION.weights, INDUCTION.n_head, [0, 1, 2, 0, 1, 2, 2, 0], True),
    "adder": (ADDER.weights, ADDER.n_head, [8, 5, 0, 10, 7, 6, 0, 11, 5, 2, 1], True),
    "random GPT-2": (random_gpt2(), 2, [3, 1, 4, 1, 5, 2, 6, 5, 3, 5, 0, 2], False),
}


def same(got, want, exact):
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert (got.argmax(axis=-1) == want.argmax(axis=-1)).all()


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("chunks", [(1,), (3, 1), (2, 3)], ids=["one at a time", "prompt then one", "chunks"])
def test_cached_logits_are_the_whole_sequences_rows(name, chunks):
    weights, n_head, tokens, exact = MODELS[name]
    assert len(tokens) == weights["wpe"].shape[0]  # up to n_ctx itself
    whole = gpt(np.array(tokens), **weights, n_head=n_head)
    cache, rows, start, i = KVCache(weights), [], 0, 0
    while start < len(tokens):
        size = chunks[min(i, len(chunks) - 1)]
        rows.append(gpt(np.array(tokens[start : start + size]), **weights, n_head=n_head, cache=cache))
        assert cache.n_seq == min(start + size, len(tokens))
        start, i = start + size, i + 1
    same(np.concatenate(rows), whole, exact)


def test_a_batch_is_cached_row_by_row():
    weights = random_gpt2(1)
    tokens = np.random.default_rng(2).integers(0, 7, (3, 9))
    cache = KVCache(weights)
    rows = [gpt(tokens[:, :4], **weights, n_head=2, cache=cache)]
    rows += [gpt(tokens[:, i : i + 1], **weights, n_head=2, cache=cache) for i in range(4, 9)]
    same(np.concatenate(rows, axis=1), gpt(tokens, **weights, n_head=2), exact=False)


def test_keep_forgets_the_later_positions():
    weights = random_gpt2(3)
    cache = KVCache(weights)
    gpt(np.array([1, 2, 3, 4]), **weights, n_head=2, cache=cache)
    cache.keep(2)  # [1, 2] stay; the sequence goes on differently
    got = gpt(np.array([6, 0]), **weights, n_head=2, cache=cache)
    same(got, gpt(np.array([1, 2, 6, 0]), **weights, n_head=2)[2:], exact=False)
    cache.keep(0)
    assert cache.n_seq == 0


def plain_greedy(weights, n_head, n_ctx, tokens, n_new):
    """The uncached loop: a full forward pass of the last n_ctx tokens for every new token."""
    tokens = list(tokens)
    for _ in range(n_new):
        tokens.append(int(gpt(np.array(tokens[-n_ctx:]), **weights, n_head=n_head)[-1].argmax()))
    return tokens


@pytest.mark.parametrize("model, prompt, n_new", [(HAND_MADE, "bb", 12), (PATTERN, "abc", 15), (INDUCTION, "abcab", 9)],
                         ids=["hand-made (its window slides)", "compiled pattern", "induction head"])
def test_greedy_decoding_writes_what_the_uncached_loop_writes(model, prompt, n_new):
    ids = [model.chars.index(c) for c in prompt]
    want = plain_greedy(model.weights, model.n_head, model.n_ctx, ids, n_new)
    assert greedy_search(gpt_step(model), ids, n_new)[0] == want
    if model is not INDUCTION:  # complete runs the hand-made model and compiled patterns
        assert complete(prompt, n_new, model=model) == "".join(model.chars[t] for t in want)


def test_the_adder_decodes_with_the_one_loop_as_the_uncached_loop_does():
    model = adder(6)
    a, b = np.array([999_999, 123_456, 0, 500_000]), np.array([1, 654_321, 0, 500_000])
    prompts, answers = addition.encode(model, a, b)
    want = [plain_greedy(model.weights, 2, model.n_ctx, p.tolist(), 7)[-7:] for p in prompts]
    written = addition.greedy_sums(model, prompts)
    assert written.tolist() == want == answers.tolist()
    assert [model.add(int(x), int(y)) for x, y in zip(a, b)] == (a + b).tolist()


def test_adder_steps_reads_each_step_from_one_teacher_forced_pass():
    """Each step's logits, attention and sums are the whole sequence's rows at that step's position."""
    model = adder(4)
    steps = handtf.adder_steps(model, 4_321, 9_876)  # 14,197
    ids = [model.chars.index(c) for c in model.prompt(4_321, 9_876) + model.answer(14_197)]
    logits = gpt(np.array(ids[:-1]), **model.weights, n_head=2)
    for k, step in enumerate(steps):
        assert step.position == 2 * 4 + 1 + k and step.digit == ids[step.position + 1]
        np.testing.assert_array_equal(step.logits, logits[step.position])
        assert step.attention.shape == (2, step.position + 1)
        np.testing.assert_allclose(step.attention.sum(axis=1), 1)


def test_greedy_and_beam_search_with_gpt_step_equal_an_uncached_step():
    """A beam switches between hypotheses: the step keeps the shared start and recomputes the rest."""
    weights = random_gpt2(4, n_ctx=10)
    model = SimpleNamespace(weights=weights, n_head=2, n_ctx=10)  # what gpt_step reads of a model

    def uncached(tokens):
        return handtf.log_softmax(gpt(np.array(tokens[-10:]), **weights, n_head=2)[-1])

    for search in (lambda step: greedy_search(step, [1, 2], max_len=12),
                   lambda step: handtf.beam_search(step, [1, 2], beam_width=3, max_len=6)):
        got, want = search(gpt_step(model)), search(uncached)
        assert [tokens for tokens, _ in (got if isinstance(got, list) else [got])] == \
               [tokens for tokens, _ in (want if isinstance(want, list) else [want])]
        scores = np.array([s for _, s in (got if isinstance(got, list) else [got])])
        np.testing.assert_allclose(scores, [s for _, s in (want if isinstance(want, list) else [want])], rtol=1e-12)


def test_gpt_step_runs_one_position_a_step():
    """The point of the cache: greedy decoding computes each position once."""
    model = adder(5)
    step, computed = gpt_step(model), []
    real = handtf.model.decoding.gpt

    def counting(inputs, *args, **kwargs):
        computed.append(len(inputs))
        return real(inputs, *args, **kwargs)

    handtf.model.decoding.gpt = counting
    try:
        greedy_search(step, [3] * 12, max_len=6)
    finally:
        handtf.model.decoding.gpt = real
    assert computed == [12, 1, 1, 1, 1, 1]


# ---- the boundary


def test_a_cache_of_other_weights_is_refused():
    cache = KVCache(MODEL)
    gpt(np.array([0, 0]), **MODEL, cache=cache)
    other = random_gpt2(n_vocab=2, n_embd=8, n_ctx=5, n_layer=1)
    with pytest.raises(ValueError, match=r"^cache holds the keys and values of other weights; make a KVCache\(weights\)"):
        gpt(np.array([1]), **other, cache=cache)
    changed = handtf.build_model(lg=512)  # the same layout, other numbers
    with pytest.raises(ValueError, match="other weights"):
        gpt(np.array([1]), **changed, cache=cache)


def test_a_cache_beyond_n_ctx_is_refused():
    cache = KVCache(MODEL)
    gpt(np.array([0, 0, 1, 0]), **MODEL, cache=cache)
    with pytest.raises(ValueError, match=r"^the cache holds 4 positions and inputs 2 more: 6 is beyond n_ctx = 5"):
        gpt(np.array([0, 1]), **MODEL, cache=cache)
    assert cache.n_seq == 4  # refused before anything ran


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: gpt(np.array([0]), **MODEL, cache={"k": []}), TypeError, r"^cache must be a handtf\.KVCache"),
        (lambda: KVCache([1, 2]), TypeError, r"^weights must be a dict in GPT-2's layout"),
        (lambda: KVCache({"wte": np.eye(2), "wpe": np.eye(5, 2), "blocks": []}), ValueError, "at least one block"),
        (lambda: gpt(np.array([[0, 1]]), **MODEL, cache=filled(MODEL, [0, 0])), ValueError,
         r"^inputs must have the batch shape of the cache's sequences, \(\), got \(1,\)"),
        (lambda: gpt(np.array([0]), **MODEL, cache=tampered()), ValueError,
         r"^cache's block 0 must hold keys and values \[\.\.\., 2, 8\]"),
        (lambda: handtf.transformer_block(np.zeros((1, 8)), **MODEL["blocks"][0], cache="kv"), TypeError,
         r"^cache must be one block's keys and values"),
        (lambda: handtf.causal_mask(2, n_past=-1), ValueError, r"^n_past must be at least 0, got -1"),
        (lambda: handtf.induction_rule("a" * (10**6 + 1)), ValueError, r"^text must hold at most MAX_TEXT = 1,000,000"),
        (lambda: handtf.verify_adder(adder(4), count=10**6 + 1), ValueError, r"^count must be at most 1,000,000 \(MAX_COUNT\)"),
        (lambda: handtf.adderboard_pairs(count=10**7), ValueError, r"^count must be at most 1,000,000 \(MAX_COUNT\)"),
        (lambda: addition.greedy_sums(adder(2), np.zeros((1, 5), dtype=int)), ValueError, r"^prompts must have shape \[batch, 6\]"),
    ],
)
def test_bad_cache_and_bounds(call, error, message):
    with pytest.raises(error, match=message):
        call()


def filled(weights, tokens):
    cache = KVCache(weights)
    gpt(np.array(tokens), **weights, cache=cache)
    return cache


def tampered():
    cache = filled(MODEL, [0, 0])
    cache.blocks[0].v = cache.blocks[0].v[:1]
    return cache


def test_uint64_ids_do_not_wrap_to_negative_ids():
    step = lambda tokens: np.log([0.5, 0.5])  # noqa: E731
    for search in (lambda start: greedy_search(step, start, max_len=2),
                   lambda start: handtf.beam_search(step, start, beam_width=2, max_len=2)):
        with pytest.raises(ValueError, match="got 18446744073709551615"):
            search(np.array([2**64 - 1], dtype=np.uint64))
    assert greedy_search(step, np.array([1], dtype=np.uint64), max_len=1)[0] == [1, 0]


def test_induction_rule_is_the_quadratic_rule():
    """The one-pass rule against the definition, written as a search backwards."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        text = "".join(rng.choice(list("abcd"), size=int(rng.integers(1, 30))))
        want = [next((text[j + 1] for j in range(i - 1, -1, -1) if text[j] == c), None) for i, c in enumerate(text)]
        assert handtf.induction_rule(text) == want
