"""MkDocs hook: write the playground's weights from the handtf package at build time.

The JavaScript port (``docs/assets/javascripts/handtf.js``) imports the module
``assets/javascripts/handtf-model.js``, which exists only in the built site:
it is generated here, on every build and every ``mkdocs serve`` reload, from

- ``handtf.MODEL`` (the hand-set weights, in its own layout) and
  ``handtf.build_model`` (as two models, ``constant`` and ``per_lg``, with
  ``build_model(lg) == constant + lg * per_lg``; checked here for several
  ``lg``, so a change that breaks the form fails the build);
- the labels, the context length, the mask value, the pattern ``aab``, the
  names of ``handtf.trace``'s intermediates, and the bounds ``complete`` and
  ``verify`` accept (``MAX_NEW_TOKENS``, ``MAX_LEN``);
- the colours of the static figures in both colour schemes (their colour
  maps, ink and background), so a live heat map colours a cell as the figure
  of the same scheme does.

It also writes ``assets/javascripts/induction-model.js`` for the induction page's
widget (``docs/assets/javascripts/induction.js``): the weights of
``handtf.induction_head()``, its alphabet, ``n_ctx`` and column labels
(``induction_module_source``), and ``assets/javascripts/adder-model.js`` for
the adder page's widget (``docs/assets/javascripts/adder.js``): the weights of
``handtf.adder()`` (``adder_module_source``).

Nothing of it is copied by hand, and nothing generated is committed. No upstream
issue: this is the site's own content, added on MkDocs' documented on_files event.
"""

import functools
import importlib
import importlib.util
import inspect
import json
import math
from pathlib import Path

import mkdocs.plugins
import numpy as np
from mkdocs.structure.files import File

import handtf
from handtf.trees import leaves, tree_map  # the one walk of a weight tree

GENERATED = "assets/javascripts/handtf-model.js"
INDUCTION_GENERATED = "assets/javascripts/induction-model.js"  # the induction widget's weights
ADDER_GENERATED = "assets/javascripts/adder-model.js"  # the adder widget's weights
_LG_CHECKS = (1.0, 2.0, 0.3, 7.5, 1024.0, 1e6)  # lg values at which the linear form must be exact


def _tree(model):
    """The model as plain nested lists (as JSON would give it)."""
    return tree_map(lambda leaf: np.asarray(leaf, dtype=np.float64).tolist(), model)


def _leaves(tree):
    return [np.asarray(leaf, dtype=np.float64) for leaf in leaves(tree)]


def lg_parts():
    """``(constant, per_lg)`` with ``build_model(lg) == constant + lg * per_lg`` exactly.

    Raises ``ValueError`` if ``build_model`` is not of that form.
    """
    one, two = handtf.build_model(1.0), handtf.build_model(2.0)
    per_lg = tree_map(lambda a, b: b - a, one, two)
    constant = tree_map(lambda a, d: a - d, one, per_lg)
    for lg in _LG_CHECKS:
        built = tree_map(lambda c, d: c + lg * d, constant, per_lg)
        for got, want in zip(_leaves(built), _leaves(handtf.build_model(lg))):
            if not np.array_equal(got, want):
                raise ValueError(
                    f"handtf.build_model(lg) is not constant + lg * per_lg at lg = {lg}: "
                    "the playground's buildModel cannot follow it; update hooks/playground.py"
                )
    return constant, per_lg


def _figure_colours():
    """The colours of the static figures, per colour scheme, from the module they are drawn with.

    ``scripts/figures/palette.py`` is loaded alone: the figures package would
    import matplotlib, which a build does not need.
    """
    path = Path(__file__).resolve().parent.parent / "scripts" / "figures" / "palette.py"
    spec = importlib.util.spec_from_file_location("handtf_figure_palette", path)
    palette = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(palette)
    colours = {}
    for scheme, named in palette.SCHEMES.items():
        entries = palette.lookup_table(named["diverging"])  # the colour map, one RGB per entry
        colours[scheme] = {
            "lut": [_hex(rgb) for rgb in entries],
            "text": [palette.text_colour(rgb) for rgb in entries],  # black or white, whichever reads better
            "under": _hex(entries[0]),  # matplotlib's defaults: the ends of the map
            "over": _hex(entries[-1]),
            "bg": named["bg"],
            "ink": named["ink"],
            "muted": named["muted"],
            "grid": named["grid"],
        }
    return colours


def _hex(rgba):
    return "#" + "".join(f"{round(float(c) * 255):02x}" for c in rgba[:3])


@functools.cache  # once per build: mkdocs-static-i18n asks for it again for each language
def module_source():
    """The text of ``handtf-model.js``."""
    constant, per_lg = lg_parts()
    mask = float(handtf.causal_mask(2)[0, 1])
    values = {
        "MODEL": _tree(handtf.MODEL),
        "LG": float(handtf.LG),
        "LG_PARTS": {"constant": _tree(constant), "per_lg": _tree(per_lg)},
        "N_CTX": handtf.N_CTX,
        "N_VOCAB": handtf.N_VOCAB,
        "N_EMBED": handtf.N_EMBED,
        "CHARS": list(handtf.CHARS),
        "EMBED_LABELS": list(handtf.EMBED_LABELS),
        "TOKEN_LABELS": list(handtf.TOKEN_LABELS),
        "QKV_LABELS": list(handtf.QKV_LABELS),
        "TRACE_NAMES": list(handtf.Trace.names()),
        "MASK_VALUE": mask,
        "PATTERN": importlib.import_module("handtf.model.evaluation").PATTERN,
        "VERIFY_MAX_LEN": inspect.signature(handtf.verify).parameters["max_len"].default,
        "MAX_NEW_TOKENS": importlib.import_module("handtf.model.inference").MAX_NEW_TOKENS,  # complete's upper bound
        "MAX_LEN": importlib.import_module("handtf.model.evaluation").MAX_LEN,  # verify's upper bound
        "COLOURS": _figure_colours(),
    }
    if not all(math.isfinite(x) for leaf in _leaves(values["MODEL"]) for x in leaf.ravel()):
        raise ValueError("handtf.MODEL has a weight that is not finite; JSON cannot hold it")
    lines = [
        "// Generated by hooks/playground.py from the handtf package at build time. Do not edit:",
        "// it is not in the repository, and every build writes it again.",
    ]
    lines += [f"export const {name} = {json.dumps(value, separators=(',', ':'))};" for name, value in values.items()]
    return "\n".join(lines) + "\n"


def hand_set_module(origin, model, size):
    """The text of a widget's model module: any :class:`handtf.Model`'s weights, vocabulary, heads,
    context length and column labels, and ``size`` (``{"N_DIGITS": 10}``)."""
    values = {"MODEL": _tree(model.weights), "CHARS": list(model.chars), "N_CTX": model.n_ctx, **size,
              "N_HEAD": model.n_head, "EMBED_LABELS": list(model.embed_labels)}
    lines = [f"// Generated by hooks/playground.py from {origin} at build time. Do not edit."]
    lines += [f"export const {name} = {json.dumps(value, separators=(',', ':'))};" for name, value in values.items()]
    return "\n".join(lines) + "\n"


@functools.cache
def induction_module_source():
    """The text of ``induction-model.js``: ``handtf.induction_head()`` (default alphabet and n_ctx)."""
    model = handtf.induction_head()
    return hand_set_module("handtf.induction_head()", model, {})


@functools.cache
def adder_module_source():
    """The text of ``adder-model.js``: ``handtf.adder()`` (10 digits)."""
    model = handtf.adder()
    return hand_set_module("handtf.adder()", model, {"N_DIGITS": model.n_digits})


@mkdocs.plugins.event_priority(-150)  # after mkdocs-static-i18n (-100), which expects every file to exist on disk
def on_files(files, config):
    files.append(File.generated(config, GENERATED, content=module_source()))
    files.append(File.generated(config, INDUCTION_GENERATED, content=induction_module_source()))
    files.append(File.generated(config, ADDER_GENERATED, content=adder_module_source()))
    return files
