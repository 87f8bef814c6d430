"""handtf: a GPT-2-style transformer with every weight set by hand.

>>> from handtf import complete, evaluate
>>> complete("a")
'abaabaabaab'
>>> evaluate("aab" * 10).accuracy
1.0

The package's folders follow the site's outline, and each imports only from
the folders before it (``blocks``, ``model``, ``patterns``, ``training``,
``seq2seq``, ``cli``; ``tests/test_imports.py``):

- ``model``: the hand-made model and the GPT-2 forward pass it runs
  (``tokenizer``, ``task``, ``weights``, ``transformer`` with its key/value
  cache, ``decoding``: the one greedy loop and the other searches,
  ``interface`` (what every model has, read at the boundary in one place),
  ``inference``,
  ``evaluation``, ``tracing`` with ``recording``);
- ``patterns``: other models set by hand on the same forward pass
  (``compiler``, ``induction``, the adder: ``addition``, ``adderboard`` and
  ``proof``, which proves it adds every pair);
- ``training``: backpropagation (``backprop``), the optimiser every trainer
  shares (``optimiser``) and the trainers (``trainer``, ``induction``,
  ``adder``);
- ``blocks``: the general Transformer building blocks, one module per idea
  (``activations``, ``layers``, ``attend`` with the package's one
  ``attention``, ``masks``, ``positions``, ``loss``);
- ``seq2seq``: the encoder-decoder, its training and translation (decoding with ``model.decoding``'s searches);
- ``cli``: the command line.

``checks`` and ``layouts`` are the boundary: every public function checks its
arguments there, so the functions themselves are only the math. ``display``
prints arrays as the pages show them. A module is never named as a function
it exports, so ``handtf.trace`` is always the function. Each forward function
that training needs has its backward function right below it.
"""

from .cli.start import quiet_interrupt

quiet_interrupt()  # only when this import starts the command line: Ctrl-C while numpy imports exits 130, no traceback

from .patterns.compiler import (  # noqa: E402
    GPT2_SMALL,
    SWITCH,
    CompiledPattern,
    compile_pattern,
    context_needed,
    describe,
    phases,
    shortest_period,
)
from .model.decoding import (  # noqa: E402
    apply_temperature,
    beam_search,
    gpt_step,
    greedy,
    greedy_search,
    sample,
    sampling_distribution,
    top_k_filter,
    top_p_filter,
)
from .display import format_matrix, format_number, show  # noqa: E402
from .model.evaluation import Evaluation, Verification, evaluate, next_token_logits, valid_contexts, verify  # noqa: E402
from .patterns.addition import Adder, adder, adder_steps  # noqa: E402
from .patterns.adderboard import AdderCheck, adderboard_pairs, verify_adder, verify_pairs  # noqa: E402
from .patterns.proof import AdderProof, prove_adder  # noqa: E402
from .patterns.induction import (  # noqa: E402
    InductionCheck,
    InductionHead,
    induction_attention,
    induction_head,
    induction_rule,
    verify_induction,
)
from .training.induction import train_induction  # noqa: E402
from .model.interface import Model  # noqa: E402
from .model.inference import HAND_MADE, HandMade, complete, context_window, explain, explain_rows, next_token_probs, predict  # noqa: E402
from .blocks.activations import gelu, gelu_backward, log_softmax, relu, relu_backward, softmax, softmax_backward  # noqa: E402
from .blocks.attend import (  # noqa: E402
    attend_heads,
    attend_heads_backward,
    attention,
    attention_backward,
    attention_weights,
    merge_heads,
    multi_head_attention,
    multi_head_attention_backward,
    split_heads,
)
from .blocks.layers import embedding_backward, ffn, ffn_backward, layer_norm, layer_norm_backward, linear, linear_backward  # noqa: E402
from .blocks.loss import cross_entropy, cross_entropy_backward, smoothed_targets, soft_cross_entropy  # noqa: E402
from .blocks.masks import causal_mask, padding_mask  # noqa: E402
from .model.transformer import (  # noqa: E402
    KVCache,
    causal_self_attention,
    causal_self_attention_backward,
    gpt,
    gpt2,
    gpt2_block,
    mha,
    mha_backward,
    transformer_block,
    transformer_block_backward,
)
from .blocks.positions import position_shift_matrix, positional_encoding, rope  # noqa: E402
from .model.recording import Recorder  # noqa: E402
from .seq2seq import Config, decode, encode, forward, init_params  # noqa: E402
from .seq2seq.translate import beam_decode, greedy_decode  # noqa: E402
from .training.backprop import loss_and_grads  # noqa: E402
from .training.trainer import train  # noqa: E402
from .training.adder import trained_adder  # noqa: E402
from .seq2seq.training import train_seq2seq  # noqa: E402
from .model.tokenizer import CHARS, tokenize, untok  # noqa: E402
from .model.tracing import PatternTrace, Trace, trace  # noqa: E402
from .model.weights import (  # noqa: E402
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
