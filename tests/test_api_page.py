"""The API reference as built: light enough to load on a phone, and no docstring markup shown as text.

Each check fails when its defect is put back:

- weight: the whole reference on one page (478 KB before it was split into
  three and the modules' ``check_NAME`` boundary functions were left out;
  398 KB without them); the hand-made model's page with the patterns, the
  induction head and the adder (277 KB before they got a page of their own);
- markup: a reST literal marker (``written as a label::`` in
  ``handtf/model/weights.py``), a Sphinx role (``:func:`gpt```) that the Griffe
  extension did not turn into a link, a field list (``:param x:``) or a
  directive (``.. note::``) that the Sphinx parser did not read, or a stray
  backtick of a code span that did not close.
"""

import html
import re

import pytest

from pages import DOCS, ROOT

API_PAGES = sorted(p.stem for p in DOCS.glob("api*.md") if not p.name.endswith(".zh.md"))
PAGE_LIMIT = 300_000  # bytes of HTML per page: the site's page-weight standard
MARGIN = 0.8  # the API pages grow with the package: keep them well under the limit

LEAKS = {
    "a reST literal marker '::'": re.compile(r"\w::(\s|$)"),
    "a Sphinx role": re.compile(r":(?:py:)?(?:func|mod|class|meth|attr|data|obj|exc|ref|term|math):"),
    "a Sphinx field": re.compile(r"(?m)^\s*:(?:param|type|returns?|rtype|raises?)\b"),
    "a reST directive": re.compile(r"(?m)^\s*\.\. \w+::"),
    "a stray backtick": re.compile(r"`"),
}


def prose_of(page_html):
    """The text of the article outside code: what the reader sees as prose."""
    article = page_html[page_html.index("<article") : page_html.index("</article>")]
    article = re.sub(r"<pre\b.*?</pre>", "\n", article, flags=re.S)
    article = re.sub(r"<code\b.*?</code>", " CODE ", article, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", article))


def test_the_api_reference_has_pages():
    assert API_PAGES == ["api", "api-blocks", "api-patterns", "api-training"], API_PAGES


@pytest.mark.parametrize("language", ["", "zh/"])
@pytest.mark.parametrize("name", API_PAGES)
def test_an_api_page_weighs_well_under_300_kb(built_site, name, language):
    size = (built_site / language / name / "index.html").stat().st_size
    assert size <= MARGIN * PAGE_LIMIT, f"{language}{name}/: {size} bytes, over {MARGIN:.0%} of {PAGE_LIMIT}"


@pytest.mark.parametrize("language", ["", "zh/"])
@pytest.mark.parametrize("name", API_PAGES)
def test_no_docstring_markup_shows_on_an_api_page(built_site, name, language):
    page = (built_site / language / name / "index.html").read_text(encoding="utf-8")
    assert 'class="doc doc-object' in page, "the page has documented objects"
    prose = prose_of(page)
    leaks = [
        f"{what}: ...{prose[max(0, m.start() - 50) : m.end() + 30]!r}..."
        for what, pattern in LEAKS.items()
        for m in pattern.finditer(prose)
    ]
    assert not leaks, "\n".join(leaks)


def test_the_leak_patterns_find_what_they_look_for():
    """Each pattern finds its defect in the HTML mkdocstrings made of it, and nothing in clean prose."""
    leaked = {
        "a reST literal marker '::'": "<article><p>written as a label::</p></article>",
        "a Sphinx role": "<article><p>see :func:<code>gpt</code></p></article>",
        "a Sphinx field": "<article><p>\n:param x: the input</p></article>",
        "a reST directive": "<article><p>\n.. note:: careful</p></article>",
        "a stray backtick": "<article><p>the `x</p></article>",
    }
    for what, page in leaked.items():
        assert LEAKS[what].search(prose_of(page)), what
    clean = prose_of("<article><p>Ratio 3:1, time 10:05, <code>a::b</code> and <code>`x`</code>.</p></article>")
    assert not any(pattern.search(clean) for pattern in LEAKS.values()), clean


# Anchors of the 1.0 API pages, written out from that release's module layout (not from the hook's table).
OLD_ANCHORS = {
    "api": ["handtf.model.gpt", "handtf.weights.build_model", "handtf.inference.complete", "handtf.tracing.trace",
            "handtf.evaluation.verify"],
    # 1.0's handtf.compiler and handtf.induction, now handtf.patterns.compiler and .induction on a page of their own
    "api-patterns": ["handtf.compiler.compile_pattern", "handtf.induction.induction_head"],
    "api-blocks": ["handtf.attend.attention", "handtf.layers.layer_norm", "handtf.masks.causal_mask",
                   "handtf.activations.softmax", "handtf.positions.rope", "handtf.loss.cross_entropy",
                   "handtf.decoding.beam_search", "handtf.translate.greedy_decode"],
    "api-training": ["handtf.gpt_grads.loss_and_grads", "handtf.seq2seq_training.train_seq2seq", "handtf.recording.Recorder",
                     # 1.0's handtf.training, since split into handtf.training.optimiser and handtf.training.trainer
                     "handtf.training.adam_step", "handtf.training.learning_rate", "handtf.training.dropout_mask",
                     "handtf.training.train", "handtf.training.init_weights", "handtf.training.leaves"],
}


@pytest.mark.parametrize("language", ["", "zh/"])
@pytest.mark.parametrize("name", sorted(OLD_ANCHORS))
def test_an_old_api_anchor_still_lands_on_its_object(built_site, name, language):
    """A link from before the modules moved into folders reaches the same object's heading."""
    page = (built_site / language / name / "index.html").read_text(encoding="utf-8")
    for anchor in OLD_ANCHORS[name]:
        found = re.search(rf'<span id="{re.escape(anchor)}"></span><(h[1-6]|div)\b[^>]*\bid="([^"]+)"', page)
        assert found, f"{language}{name}/#{anchor} no longer exists"
        assert found[2].endswith("." + anchor.rpartition(".")[2]), f"#{anchor} lands on #{found[2]}"
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), f"ids given twice: {sorted({i for i in ids if ids.count(i) > 1})}"


# ---- "Shown on": each function's pages, found from the pages' listings at build time (issue 49)


def site_hooks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("site_hooks_for_test", ROOT / "hooks" / "site_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_section_of_the_package_is_shown_on_a_page():
    """A ``--8<--`` section no page embeds is dead weight: it is shown or removed."""
    shown = {(path, name) for page in (ROOT / "docs").rglob("*.md")
             for path, name in re.findall(r'--8<-- "(handtf/[\w/]+\.py):(\w+)"', page.read_text(encoding="utf-8"))}
    defined = {(path.relative_to(ROOT).as_posix(), name) for path in (ROOT / "handtf").rglob("*.py")
               for name in re.findall(r"# --8<-- \[start:(\w+)\]", path.read_text(encoding="utf-8"))}
    assert sorted(defined - shown) == []


def test_the_shown_on_lists_come_from_the_pages():
    hooks = site_hooks()
    english, chinese = hooks.shown_on(ROOT / "docs"), hooks.shown_on(ROOT / "docs", zh=True)
    # complete's listing is embedded by the completing page and the whole model (both twins)
    assert [page for page, _ in english["handtf.model.inference.complete"]] == ["completing.md", "whole-model.md"]
    assert [page for page, _ in chinese["handtf.model.inference.complete"]] == ["completing.zh.md", "whole-model.zh.md"]
    heading = '<h2 id="handtf.model.inference.complete" class="doc doc-heading">complete</h2>'
    added = hooks._shown_on(heading, english, zh=False)
    assert added == heading + ('<p class="handtf-shown-on">Shown on: <a href="../completing/">Completing and measuring</a>, '
                               '<a href="../whole-model/">The whole model</a></p>')
    assert "出现在：" in hooks._shown_on(heading, chinese, zh=True)
    # the home page embeds gpt's listing: it is served at the site's root, not at index/
    home = hooks._shown_on('<h2 id="handtf.model.transformer.gpt">gpt</h2>', english, zh=False)
    assert '<a href="../">' in home and "index/" not in home, home
    assert hooks._shown_on('<h2 id="handtf.model.inference.explain">explain</h2>', english, zh=False).count("<p") == 0


@pytest.mark.parametrize("language", ["", "zh/"])
def test_the_built_api_page_says_where_each_function_is_shown(built_site, language):
    page = (built_site / language / "api" / "index.html").read_text(encoding="utf-8")
    found = re.search(r'id="handtf\.model\.inference\.complete".*?</h\d>(<p class="handtf-shown-on">.*?</p>)', page, re.S)
    assert found and 'href="../completing/"' in found[1] and 'href="../whole-model/"' in found[1], language
