"""Turning next-token logits into tokens: greedy, sampling and beam search, and the step that runs a GPT.

Sampling reshapes the distribution in a fixed order: divide the logits by
``temperature``, keep the ``top_k`` best tokens, keep the nucleus of mass
``top_p``, then draw. Filtered tokens get the logit ``-inf``, whose
probability is exactly 0.

The searches are generic: they call ``step_fn(tokens) -> log-probs [n_vocab]``
for the next token after ``tokens`` (a list of ints), so the same code drives a
toy table in a test, every GPT model (``gpt_step``: ``complete``, the adder)
and the encoder-decoder in ``handtf.seq2seq``. ``greedy_search`` is handtf's
one greedy loop. They are deterministic; ties go to the lower token id.
Every length is bounded: ``max_len`` by ``MAX_STEPS`` (a million), ``beam_width``
by ``MAX_BEAM_WIDTH``, and a GPT's context by its ``n_ctx``.

``gpt_step`` keeps the keys and values of the positions it ran
(:class:`handtf.KVCache`), so each position of a decoded sequence is computed
once. Its logits equal the whole sequence's to the last bit when the weights'
products are exact (the hand-set models: the hand-made one, compiled patterns,
induction heads, the adder) and to about 1e-15 otherwise: numpy multiplies a
single row (a matrix-vector product) in another order of additions than many
rows, so the last bit of a sum can differ; the argmax is the same unless two
logits are that close.
"""

import math
import sys

import numpy as np

from ..blocks.activations import log_softmax, softmax
from ..checks import check_callable, check_ids, check_int_range, check_positive, check_real, check_rng, check_scores, check_steps, checked, read_array, shown
from .transformer import KVCache, gpt

MAX_BEAM_WIDTH = 10_000  # beam_search's widest beam; its length is at most MAX_STEPS, as greedy_search's


@checked
# --8<-- [start:greedy]
# [n_vocab] -> int
def greedy(logits):
    """The most likely token (the lowest id among equals).

    >>> greedy([1.0, 3.0, 3.0, 2.0])
    1
    """
    return int(np.argmax(logits))
# --8<-- [end:greedy]


@checked
# --8<-- [start:apply_temperature]
# [n_vocab] -> [n_vocab]
def apply_temperature(logits, temperature):
    """Divide the logits by ``temperature``: below 1 sharpens the distribution,
    above 1 flattens it.

    >>> apply_temperature([2.0, 1.0], temperature=0.5)
    array([4., 2.])
    """
    return logits / temperature  # [n_vocab]
# --8<-- [end:apply_temperature]


@checked
# --8<-- [start:top_k_filter]
# [n_vocab] -> [n_vocab]
def top_k_filter(logits, top_k):
    """Keep the ``top_k`` largest logits, set the rest to ``-inf``.

    Exactly ``top_k`` tokens stay; among equal logits the lower id stays.

    >>> top_k_filter([1.0, 3.0, 2.0, 3.0], top_k=2)
    array([-inf,   3., -inf,   3.])
    """
    # token ids from best to worst
    order = np.argsort(-logits, kind="stable")  # [n_vocab]
    filtered = np.full_like(logits, -np.inf)  # [n_vocab]
    filtered[order[:top_k]] = logits[order[:top_k]]
    return filtered
# --8<-- [end:top_k_filter]


@checked
# --8<-- [start:top_p_filter]
# [n_vocab] -> [n_vocab]
def top_p_filter(logits, top_p):
    """Keep the nucleus: the fewest most-likely tokens whose probabilities add
    up to at least ``top_p``.

    At least one token always stays, and ``top_p=1`` keeps them all; among
    equal logits the lower id comes first.

    >>> logits = np.log([0.5, 0.2, 0.3])
    >>> top_p_filter(logits, top_p=0.8).round(3)
    array([-0.693,   -inf, -1.204])
    """
    # token ids from best to worst
    order = np.argsort(-logits, kind="stable")  # [n_vocab]
    # mass of the best 1, 2, ... tokens
    cumulative = np.cumsum(softmax(logits)[order])  # [n_vocab]
    # the first prefix reaching top_p; 1 keeps all (a float sum can reach 1
    # before the last tiny probability)
    n_keep = (logits.size if top_p == 1
              else min(int(np.sum(cumulative < top_p)) + 1, logits.size))
    filtered = np.full_like(logits, -np.inf)  # [n_vocab]
    filtered[order[:n_keep]] = logits[order[:n_keep]]
    return filtered
# --8<-- [end:top_p_filter]


@checked
# --8<-- [start:sampling_distribution]
# [n_vocab] -> [n_vocab]
def sampling_distribution(logits, temperature=1.0, top_k=None, top_p=None):
    """The probabilities ``sample`` draws from: temperature, then top-k, then
    top-p, then softmax.

    >>> sampling_distribution([2.0, 1.0, 0.0], top_k=2).round(4)
    array([0.7311, 0.2689, 0.    ])
    """
    logits = apply_temperature(logits, temperature)  # [n_vocab]
    if top_k is not None:
        logits = top_k_filter(logits, top_k)  # [n_vocab]
    if top_p is not None:
        logits = top_p_filter(logits, top_p)  # [n_vocab]
    return softmax(logits)  # [n_vocab]
# --8<-- [end:sampling_distribution]


@checked
# --8<-- [start:sample]
# [n_vocab] -> int
def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    """Draw one token id from
    ``sampling_distribution(logits, temperature, top_k, top_p)``.

    ``rng`` is a ``np.random.Generator``; pass a seeded one
    (``np.random.default_rng(0)``) to make the draw reproducible. The default,
    a fresh ``np.random.default_rng()``, is seeded from the operating system,
    so every call may differ.

    >>> rng = np.random.default_rng(0)
    >>> [sample([0.0, 0.0, -1e9], rng=rng) for _ in range(6)]
    [1, 0, 0, 0, 1, 1]
    """
    rng = np.random.default_rng() if rng is None else rng
    # [n_vocab]
    probs = sampling_distribution(logits, temperature, top_k, top_p)
    return int(rng.choice(probs.size, p=probs))
# --8<-- [end:sample]


@checked
# --8<-- [start:greedy_search]
def greedy_search(step_fn, start_tokens, max_len, eos=None):
    """Append the most likely token until ``eos`` or ``max_len`` new tokens.

    Returns ``(tokens, score)``: ``start_tokens`` plus the new tokens, and the
    sum of the new tokens' log-probs.

    >>> probs = {(): [0.55, 0.4, 0.05], (0,): [0.3, 0.3, 0.4],
    ...          (1,): [0.05, 0.05, 0.9]}
    >>> # token 2 ends, and starts, a sequence
    >>> step = lambda tokens: np.log(probs[tuple(tokens[1:])])
    >>> tokens, score = greedy_search(step, [2], max_len=5, eos=2)
    >>> tokens, round(math.exp(score), 2)
    ([2, 0, 2], 0.22)
    """
    # a copy that grows by one token per step
    tokens, score = list(start_tokens), 0.0
    for _ in range(max_len):
        log_probs = step_fn(tokens)  # [n_vocab]
        token = int(np.argmax(log_probs))  # the lowest id among equals
        tokens.append(token)
        score += float(log_probs[token])
        if token == eos:
            break
    return tokens, score
# --8<-- [end:greedy_search]


@checked
# --8<-- [start:beam_search]
def beam_search(step_fn, start_tokens, beam_width, max_len, eos=None,
                length_penalty=0.0):
    """Keep the ``beam_width`` best partial sequences at every step; return all
    hypotheses, best first.

    A hypothesis's score is the sum of its new tokens' log-probs divided by
    ``n_new ** length_penalty`` (0, the default, ranks by the plain sum, which
    favours short sequences; 1 ranks by the mean). Each step extends every
    live hypothesis by every token and keeps the ``beam_width`` best sums; a
    kept hypothesis ending in ``eos`` is finished and leaves the beam. The
    search stops when the beam is empty or after ``max_len`` new tokens.

    Ties: candidates with equal sums are ordered by their parent's rank, then
    by token id (lower first); in the final ranking an earlier hypothesis
    (finished sooner, or better ranked) wins. Candidates with log-prob
    ``-inf`` are never kept. With ``beam_width=1`` this is ``greedy_search``.

    Returns a list of ``(tokens, score)``, tokens including ``start_tokens``.

    >>> probs = {(): [0.55, 0.4, 0.05], (0,): [0.3, 0.3, 0.4],
    ...          (1,): [0.05, 0.05, 0.9]}
    >>> # token 2 ends, and starts, a sequence
    >>> step = lambda tokens: np.log(probs[tuple(tokens[1:])])
    >>> hypotheses = beam_search(step, [2], 2, 5, eos=2)
    >>> [(tokens, round(math.exp(score), 2)) for tokens, score in hypotheses]
    [([2, 1, 2], 0.36), ([2, 0, 2], 0.22)]
    """
    # (tokens, sum of new log-probs), best first
    alive, finished = [(list(start_tokens), 0.0)], []
    for _ in range(max_len):
        # n_alive of [n_vocab]
        log_probs = [step_fn(tokens) for tokens, _ in alive]
        scores = np.array([score for _, score in alive])  # [n_alive]
        sums = scores[:, None] + np.stack(log_probs)  # [n_alive, n_vocab]
        # flat indices, best first
        best = np.argsort(-sums, axis=None, kind="stable")[:beam_width]
        kept = []
        for parent, token in zip(*np.unravel_index(best, sums.shape)):
            if sums[parent, token] > -np.inf:
                tokens = alive[parent][0] + [int(token)]
                hypothesis = (tokens, float(sums[parent, token]))
                (finished if token == eos else kept).append(hypothesis)
        alive = kept
        if not alive:
            break
    n_start = len(start_tokens)
    ranked = [(tokens, score / (len(tokens) - n_start) ** length_penalty)
              for tokens, score in finished + alive]
    return sorted(ranked, key=lambda hypothesis: -hypothesis[1])
# --8<-- [end:beam_search]


@checked
# --8<-- [start:gpt_step]
def gpt_step(model):
    """The step function of ``greedy_search`` and ``beam_search`` for a GPT
    model: tokens -> log-probs ``[n_vocab]`` of the next token.

    The model sees the last ``model.n_ctx`` tokens. A ``KVCache`` keeps the
    keys and values of the tokens it ran: a call runs only the tokens after
    the longest start it shares with them (with greedy decoding, one).

    >>> from handtf import HAND_MADE
    >>> step = gpt_step(HAND_MADE)
    >>> step([0, 0]).round(3).tolist()  # after "aa": b
    [-1023.0, 0.0]
    """
    # ran: the tokens the cache holds; a model with no block has no cache
    blocks = model.weights["blocks"]
    cache, ran = KVCache(model.weights) if blocks else None, []
    def step(tokens):
        window = tokens[-model.n_ctx :]  # the tokens the model sees
        # reuse the shared start, run the rest (the last token at least)
        shared = 0
        if cache:
            shared = shared_start(ran, window[:-1])
            cache.keep(shared)
        # [n_new, n_vocab], the positions after the shared ones
        logits = gpt(np.array(window[shared:]), **model.weights,
                     n_head=model.n_head, cache=cache)
        ran[:] = window
        return log_softmax(logits[-1])  # [n_vocab]
    return step
# --8<-- [end:gpt_step]


def shared_start(a, b):
    """How many tokens the lists ``a`` and ``b`` share from their start."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    return next(i for i in range(n) if a[i] != b[i])


# The boundary (see handtf.checks): what each function above accepts.


def check_gpt_step(model):
    for name in ("weights", "n_head", "n_ctx"):
        if not hasattr(model, name):
            raise TypeError(f"model must be a model of handtf (HAND_MADE, compile_pattern(...), induction_head(...), "
                            f"adder(...)), with weights, n_head and n_ctx; got {type(model).__name__}")


def check_logits(logits):
    """[n_vocab] logits as float64 (the one reader of logits, :func:`handtf.checks.check_scores`)."""
    return check_scores("logits", logits, ndim=1)


def check_greedy(logits):
    return {"logits": check_logits(logits)}


def check_apply_temperature(logits, temperature):
    logits = check_logits(logits)
    temperature = check_positive("temperature", temperature)
    with np.errstate(over="ignore"):
        overflows = np.isinf(logits[np.isfinite(logits)] / temperature).any()
    if overflows:
        raise ValueError(f"temperature {temperature} is too small for these logits: logits / temperature overflows")
    return {"logits": logits, "temperature": temperature}


def check_top_k_filter(logits, top_k):
    logits = check_logits(logits)
    top_k = check_int_range("top_k", top_k, 1)
    if top_k > logits.size:
        raise ValueError(f"top_k must be at most n_vocab = {logits.size}, got {top_k}")
    return {"logits": logits, "top_k": top_k}


def check_top_p_filter(logits, top_p):
    return {"logits": check_logits(logits), "top_p": check_positive("top_p", top_p, at_most=1)}


def check_sampling_distribution(logits, temperature, top_k, top_p):
    checked_args = check_apply_temperature(logits, temperature)
    if top_k is not None:
        checked_args |= check_top_k_filter(logits, top_k)
    if top_p is not None:
        checked_args |= check_top_p_filter(logits, top_p)
    return checked_args


def check_sample(logits, temperature, top_k, top_p, rng):
    return check_sampling_distribution(logits, temperature, top_k, top_p) | {"rng": None if rng is None else check_rng("rng", rng)}


def check_greedy_search(step_fn, start_tokens, max_len, eos):
    start_tokens = check_start_tokens(start_tokens)
    eos = None if eos is None else check_eos(eos)
    return {
        "step_fn": checked_step_fn(step_fn, start_tokens, eos),
        "start_tokens": start_tokens,
        "max_len": check_steps("max_len", max_len),
        "eos": eos,
    }


def check_beam_search(step_fn, start_tokens, beam_width, max_len, eos, length_penalty):
    checked_args = check_greedy_search(step_fn, start_tokens, max_len, eos)
    length_penalty = check_real("length_penalty", length_penalty, low=0)
    most = math.log(sys.float_info.max) / math.log(checked_args["max_len"]) if checked_args["max_len"] > 1 else math.inf
    if length_penalty > most:  # n_new ** length_penalty must stay a float
        raise ValueError(f"length_penalty must be at most {most:.4g} for max_len = {checked_args['max_len']:,} "
                         f"(n_new ** length_penalty overflows a float beyond it), got {length_penalty:g}")
    beam_width = check_int_range("beam_width", beam_width, 1, MAX_BEAM_WIDTH, " (MAX_BEAM_WIDTH: a step runs step_fn "
                                 "once per hypothesis kept)")
    return checked_args | {"beam_width": beam_width, "length_penalty": length_penalty}


def check_start_tokens(start_tokens):
    if start_tokens is None or isinstance(start_tokens, (str, bytes)):
        raise TypeError(f"start_tokens must be a non-empty list of token ids (e.g. [bos]), got {shown(start_tokens)}")
    if read_array("start_tokens", start_tokens, "a non-empty list of token ids (e.g. [bos])").size == 0:
        raise ValueError("start_tokens must be a non-empty list of token ids (e.g. [bos]), got an empty one")
    if np.ndim(start_tokens) != 1:
        raise ValueError(f"start_tokens must be a non-empty list of token ids (e.g. [bos]), got shape {np.shape(start_tokens)}")
    return check_ids("start_tokens", start_tokens, ndims=(1,)).tolist()


def check_eos(eos):
    if isinstance(eos, bool) or not isinstance(eos, (int, np.integer)):
        raise TypeError(f"eos must be None or an integer token id, got {shown(eos)}")
    if eos < 0:
        raise ValueError(f"eos must be a token id >= 0, got {eos}")
    return int(eos)


def checked_step_fn(step_fn, start_tokens, eos):
    """``step_fn``, each answer checked: float64 log-probs [n_vocab], the same n_vocab every step, holding every id in play."""
    step_fn = check_callable("step_fn", step_fn)
    largest, n_vocab = max(start_tokens + ([] if eos is None else [eos])), []

    def checked_step(tokens):
        try:
            log_probs = check_logits(step_fn(list(tokens)))  # a copy: step_fn cannot change the search's own list
        except (ValueError, TypeError) as error:
            raise type(error)(f"step_fn must return log-probs [n_vocab]: {error}") from None
        if n_vocab and log_probs.size != n_vocab[0]:
            raise ValueError(f"step_fn must return log-probs of shape ({n_vocab[0]},) at every step, got {log_probs.shape}")
        if largest >= log_probs.size:
            name = "eos" if largest == eos and largest not in start_tokens else "start_tokens"
            raise ValueError(f"{name} must hold token ids in 0..{log_probs.size - 1} (step_fn's n_vocab), got {largest}")
        n_vocab[:1] = [log_probs.size]
        return log_probs

    return checked_step
