"""handtf: a GPT-2-style transformer with every weight set by hand.

>>> from handtf import complete, evaluate
>>> complete("a")
'abaabaabaab'
>>> evaluate("aab" * 10).accuracy
1.0

The hand-made model lives in ``weights``, ``model``, ``tokenizer``,
``inference``, ``evaluate`` and ``trace``; the general Transformer building
blocks of the concepts part in ``nn``, ``decoding`` and ``seq2seq``.
"""

from .compiler import CompiledPattern, compile_pattern
from .decoding import (
    apply_temperature,
    beam_search,
    greedy,
    greedy_search,
    sample,
    sampling_distribution,
    top_k_filter,
    top_p_filter,
)
from .display import format_matrix, format_number, show
from .evaluate import Evaluation, Verification, evaluate, next_token_logits, valid_contexts, verify
from .inference import complete, context_window, explain, explain_rows, next_token_probs, predict
from .model import attention, causal_self_attention, gpt, transformer_block
from .nn import (
    attend_heads,
    attention_weights,
    causal_mask,
    cross_entropy,
    ffn,
    gelu,
    layer_norm,
    linear,
    log_softmax,
    merge_heads,
    mha,
    multi_head_attention,
    padding_mask,
    position_shift_matrix,
    positional_encoding,
    relu,
    rope,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from .seq2seq import Config, beam_decode, decode, encode, forward, greedy_decode, init_params
from .tokenizer import CHARS, tokenize, untok
from .trace import Trace, trace
from .weights import (
    EMBED_LABELS,
    LG,
    MODEL,
    N_CTX,
    N_EMBED,
    N_VOCAB,
    POSITION_LABELS,
    QKV_LABELS,
    TOKEN_LABELS,
    build_model,
    c_attn_weights,
    c_proj_weights,
    position_embeddings,
    token_embeddings,
)

__version__ = "1.0.0"
