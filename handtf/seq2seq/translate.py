"""Translating with the encoder-decoder: greedy and beam-search decoding of one source sequence.

Both drive the generic searches of :mod:`handtf.model.decoding` with a step function
that runs the decoder (:mod:`handtf.seq2seq`) on the target prefix.
"""

import numpy as np

from ..blocks.activations import log_softmax
from ..checks import check_ids, check_steps, checked, read_array
from ..model.decoding import beam_search, check_beam_search, greedy_search
from . import Config, decode, encode, init_params  # Config, init_params: for the examples
from .model import check_params


@checked
# --8<-- [start:greedy_decode]
def greedy_decode(params, config, src, bos, eos, max_len):
    """Translate one source sequence by always taking the most likely next
    token.

    Returns the target tokens, starting with ``bos`` and ending with ``eos`` if
    it came within ``max_len`` new tokens. Each step re-runs the decoder on the
    whole prefix (no cache), which is slow but simple.

    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> params = init_params(config, seed=0)
    >>> src = np.array([1, 2, 3])
    >>> tokens = greedy_decode(params, config, src, bos=0, eos=1, max_len=4)
    >>> tokens[0], 2 <= len(tokens) <= 5
    (0, True)
    """
    step_fn = next_token_log_probs(params, config, src)
    tokens, _ = greedy_search(step_fn, [bos], max_len, eos)
    return tokens
# --8<-- [end:greedy_decode]


@checked
# --8<-- [start:beam_decode]
def beam_decode(params, config, src, bos, eos, max_len, beam_width,
                length_penalty=0.0):
    """Translate one source sequence with ``decoding.beam_search``; return the
    best target tokens.

    >>> config = Config(5, 6, d_model=8, n_head=2, d_ff=32, n_layers=1)
    >>> params, src = init_params(config, seed=0), np.array([1, 2, 3])
    >>> beam = beam_decode(params, config, src, 0, 1, 4, beam_width=1)
    >>> beam == greedy_decode(params, config, src, 0, 1, 4)
    True
    """
    step_fn = next_token_log_probs(params, config, src)
    hypotheses = beam_search(step_fn, [bos], beam_width, max_len, eos,
                             length_penalty)
    return hypotheses[0][0]
# --8<-- [end:beam_decode]


# the step function of greedy_search and beam_search: target prefix -> log-probs of the next token
def next_token_log_probs(params, config, src):
    memory = encode(src, params, config)  # [n_src, d_model]
    return lambda tokens: log_softmax(decode(np.array(tokens), memory, params, config)[-1])  # [vocab_tgt]


# The boundary (see handtf.checks): what each function above accepts.


def check_greedy_decode(params, config, src, bos, eos, max_len):
    params = check_params(params, config)
    if np.ndim(read_array("src", src, "token ids")) != 1:
        raise ValueError(f"src must be one sequence of shape [n_src], got shape {np.shape(src)}")
    src = check_ids("src", src, config.vocab_src, ndims=(1,))
    for name, token in (("bos", bos), ("eos", eos)):
        if isinstance(token, bool) or not isinstance(token, (int, np.integer)):
            raise TypeError(f"{name} must be an integer token id, got {token!r}")
        check_ids(name, token, config.vocab_tgt, ndims=(0,))
    return {"params": params, "src": src, "bos": bos, "eos": eos, "max_len": check_steps("max_len", max_len)}


def check_beam_decode(params, config, src, bos, eos, max_len, beam_width, length_penalty):
    checked_args = check_greedy_decode(params, config, src, bos, eos, max_len)
    searched = check_beam_search(lambda tokens: None, [bos], beam_width, max_len, None, length_penalty)
    return checked_args | {"beam_width": searched["beam_width"], "length_penalty": searched["length_penalty"]}
