"""hooks/build_speed.py saves work without changing the site: each shortcut gives what the
work it saves gives."""

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import markdown
import pytest
from material.plugins.search.plugin import SearchIndex
from pymdownx.highlight import Highlight

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("build_speed", ROOT / "hooks" / "build_speed.py")
build_speed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_speed)

# What Material and pymdownx do without the hook: the functions it wraps.
index_page = SearchIndex.add_entry_from_context.__wrapped__
highlight = Highlight.highlight.__wrapped__


def page(content, url="attention/", title="The attention head", toc=()):
    return SimpleNamespace(content=content, url=url, title=title, meta={}, toc=list(toc))


def material_entries(content):
    index = SearchIndex()
    index_page(index, page(content))
    return index.entries


def test_both_shortcuts_are_in_place():
    assert SearchIndex.add_entry_from_context.handtf_once
    assert Highlight.highlight.handtf_once
    assert Highlight.get_lexer.handtf_once
    from pygments.formatters.html import HtmlFormatter

    assert HtmlFormatter._create_stylesheet.handtf_once


def test_a_page_is_indexed_as_material_indexes_it_with_its_code_spans(built_site):
    """Every built page: Material's index of the page without the spans inside <pre>
    is the index of the page as it is, entry for entry, character for character."""
    pages = sorted(built_site.rglob("*.html"))
    with_code = 0
    for path in pages:
        html = path.read_text(encoding="utf-8")
        article = re.search(r"<article\b.*</article>", html, re.DOTALL)
        content = article[0] if article else html
        with_code += "<pre" in content
        assert material_entries(build_speed.without_code_spans(content)) == material_entries(content), path
    assert with_code >= 40, f"only {with_code} of {len(pages)} pages have a code block: is this the built site?"


def test_the_span_stripping_fails_this_test_when_it_drops_text():
    """The comparison above can fail: dropping a token's text changes the entries."""
    content = '<h2 id="x">X</h2><pre><code><span class="nf">softmax</span>(<span class="n">x</span>)</code></pre>'
    broken = re.sub(r"<span[^>]*>[^<]*</span>", "", content)
    assert material_entries(broken) != material_entries(content)
    assert material_entries(build_speed.without_code_spans(content)) == material_entries(content)


def test_an_indexed_page_keeps_its_entries_until_it_changes():
    first, again, changed = SearchIndex(), SearchIndex(), SearchIndex()
    content = '<h1 id="a">A</h1><p>The query meets every key.</p><pre><code><span>q @ k.T</span></code></pre>'
    first.add_entry_from_context(page(content))
    again.add_entry_from_context(page(content))
    changed.add_entry_from_context(page(content.replace("every key", "each key")))
    assert first.entries == again.entries == material_entries(content)
    assert first.entries[0] is not again.entries[0]  # each index owns its entries
    assert "each key" in changed.entries[0]["text"] and "every key" not in changed.entries[0]["text"]


def test_an_index_with_entries_gets_the_page_added_after_them():
    index = SearchIndex()
    index.entries.append({"location": "", "title": "earlier", "text": ""})
    index.add_entry_from_context(page("<h1 id=\"a\">A</h1><p>text</p>", url="a/", title="A"))
    assert [entry["title"] for entry in index.entries] == ["earlier", "A"]


@pytest.fixture
def highlighter():
    return Highlight(markdown.Markdown(), line_spans="__span", pygments_lang_class=True)


SOURCE = "def softmax(x):\n    return np.exp(x) / np.exp(x).sum()\n"


def test_a_highlighted_block_is_what_pymdownx_gives(highlighter):
    expected = highlight(highlighter, SOURCE, "python", code_block_count=3)
    assert highlighter.highlight(SOURCE, "python", code_block_count=3) == expected
    assert highlighter.highlight(SOURCE, "python", code_block_count=3) == expected  # kept
    assert 'id="__span-3-1"' in expected and 'class="nf">softmax<' in expected


def test_a_change_of_any_input_highlights_again(highlighter):
    kept = highlighter.highlight(SOURCE, "python", code_block_count=3)
    assert highlighter.highlight(SOURCE, "python", code_block_count=4) != kept  # the call's arguments
    assert highlighter.highlight(SOURCE, "pycon", code_block_count=3) != kept
    assert highlighter.highlight(SOURCE.replace("x", "z"), "python", code_block_count=3) != kept  # the source
    highlighter.line_spans = "__api"  # as mkdocstrings does for each object: the highlighter's settings
    assert highlighter.highlight(SOURCE, "python", code_block_count=3) == highlight(
        highlighter, SOURCE, "python", code_block_count=3
    )
    assert 'id="__api-3-1"' in highlighter.highlight(SOURCE, "python", code_block_count=3)


def test_inline_code_is_a_new_element_each_time(highlighter):
    first = highlighter.highlight("np.exp(x)", "python", inline=True)
    second = highlighter.highlight("np.exp(x)", "python", inline=True)
    assert first is not second
    assert (first.tag, first.attrib, first.text) == (second.tag, second.attrib, second.text)
    expected = highlight(highlighter, "np.exp(x)", "python", inline=True)
    assert (first.tag, first.attrib, first.text) == (expected.tag, expected.attrib, expected.text)


def test_a_lexer_is_looked_up_once_per_name_and_options(highlighter):
    lexer, name = highlighter.get_lexer("x = 1", "pycon", False, False)
    assert highlighter.get_lexer("y = 2", "pycon", False, False) == (lexer, name)  # kept
    fresh, fresh_name = Highlight.get_lexer.__wrapped__(highlighter, "x = 1", "pycon", False, False)
    assert (type(fresh), fresh.options, fresh_name) == (type(lexer), lexer.options, name)
    assert highlighter.get_lexer("x = 1", "pycon", False, True)[0].options["stripnl"] is True  # options count
    assert highlighter.get_lexer("x = 1", "python", False, False)[1] == "python"


def test_a_guessed_lexer_is_not_kept(highlighter):
    highlighter.guess_lang = True
    assert highlighter.get_lexer("#!/bin/bash\necho hi\n", "no-such-language", False, False)[1] == "bash"
    assert highlighter.get_lexer("<p>a</p>", "no-such-language", False, False)[1] == "xml"  # read from each source


def test_a_formatters_token_classes_are_what_pygments_builds():
    from pygments.formatters.html import HtmlFormatter
    from pygments.token import Keyword

    kept = HtmlFormatter(style="default")
    built = HtmlFormatter.__new__(HtmlFormatter)
    built.style, built.classprefix = kept.style, kept.classprefix
    HtmlFormatter._create_stylesheet.__wrapped__(built)
    assert (kept.ttype2class, kept.class2style) == (built.ttype2class, built.class2style)
    assert kept.ttype2class[Keyword] == "k"
    prefixed = HtmlFormatter(style="default", classprefix="x-")
    assert prefixed.ttype2class[Keyword] == "x-k"  # the prefix counts
    assert HtmlFormatter(style="monokai").class2style != kept.class2style  # and the style
