"""handtf: a GPT-2-style transformer with every weight set by hand.

>>> from handtf import complete, evaluate
>>> complete("a")
'abaabaabaab'
>>> evaluate("aab" * 10).accuracy
1.0

The hand-made model lives in ``weights``, ``model``, ``tokenizer``,
``inference``, ``evaluation`` (``evaluate``, ``verify``) and ``tracing``
(``trace``); a compiled pattern in ``compiler``, ``picogpt`` (GPT-2's whole
forward pass) and ``running``. A module is never named as a function it
exports, so ``handtf.trace`` is always the function. The general Transformer building
blocks, which the hand-made model shares, are one module per idea:
``activations``, ``layers``, ``attend`` (the package's one ``attention``),
``masks``, ``positions``, ``loss``, ``decoding`` and ``seq2seq`` (a folder:
``seq2seq.blocks``, the encoder-decoder's pieces, and ``seq2seq.model``, the model
built from them). Every public
function checks its arguments at the boundary (``checks``), so the functions
themselves are only the math; ``recording`` keeps what the forward pass
computes from outside it, by the names its code gives it. Each forward function that training needs has its
backward function right below it (``softmax_backward``, ``linear_backward``,
``attention_backward``, ...); ``gpt_grads``, ``training`` and
``seq2seq_training`` put them together, with the one optimiser of ``training``.
"""

from .cli_start import quiet_interrupt

quiet_interrupt()  # only when this import starts the command line: Ctrl-C while numpy imports exits 130, no traceback

from .compiler import (  # noqa: E402
    GPT2_SMALL,
    SWITCH,
    CompiledPattern,
    compile_pattern,
    context_needed,
    describe,
    phases,
    shortest_period,
)
from .decoding import (  # noqa: E402
    apply_temperature,
    beam_search,
    greedy,
    greedy_search,
    sample,
    sampling_distribution,
    top_k_filter,
    top_p_filter,
)
from .display import format_matrix, format_number, show  # noqa: E402
from .evaluation import Evaluation, Verification, evaluate, next_token_logits, valid_contexts, verify  # noqa: E402
from .addition import Adder, AdderCheck, adder, adder_steps, adderboard_pairs, verify_adder, verify_pairs  # noqa: E402
from .induction import (  # noqa: E402
    InductionCheck,
    InductionHead,
    induction_attention,
    induction_head,
    induction_rule,
    train_induction,
    verify_induction,
)
from .inference import complete, context_window, explain, explain_rows, next_token_probs, predict  # noqa: E402
from .activations import gelu, gelu_backward, log_softmax, relu, relu_backward, softmax, softmax_backward  # noqa: E402
from .attend import (  # noqa: E402
    attend_heads,
    attend_heads_backward,
    attention,
    attention_backward,
    attention_weights,
    merge_heads,
    mha,
    mha_backward,
    multi_head_attention,
    multi_head_attention_backward,
    split_heads,
)
from .layers import embedding_backward, ffn, ffn_backward, layer_norm, layer_norm_backward, linear, linear_backward  # noqa: E402
from .loss import cross_entropy, cross_entropy_backward, smoothed_targets, soft_cross_entropy  # noqa: E402
from .masks import causal_mask, padding_mask  # noqa: E402
from .picogpt import gpt2, gpt2_block  # noqa: E402
from .model import causal_self_attention, gpt, transformer_block  # noqa: E402
from .positions import position_shift_matrix, positional_encoding, rope  # noqa: E402
from .recording import Recorder  # noqa: E402
from .seq2seq import Config, decode, encode, forward, init_params  # noqa: E402
from .translate import beam_decode, greedy_decode  # noqa: E402
from .gpt_grads import loss_and_grads  # noqa: E402
from .training import train  # noqa: E402
from .seq2seq_training import train_seq2seq  # noqa: E402
from .tokenizer import CHARS, tokenize, untok  # noqa: E402
from .tracing import PatternTrace, Trace, trace  # noqa: E402
from .weights import (  # noqa: E402
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
