"""MkDocs hooks that only save work: the site they build is the same, byte for byte.

Each job names the upstream issue it works around; when a pinned version does the
job itself, the job goes. tests/test_build_speed.py checks that each gives the
same result as the work it saves.
"""

import copy
import functools
import inspect
import re

from material.plugins.search.plugin import SearchIndex
from pygments.formatters.html import HtmlFormatter
from pymdownx.highlight import Highlight

# 1. pymdown-extensions #2121 (closed, not merged): nothing keeps highlighted code, so
# each block is highlighted again for each language (four in ten blocks are the same
# in both) and, under `mkdocs serve`, on every save. A block is kept by everything
# its highlighting reads: its source, the call's arguments and the highlighter's
# settings. Inline code comes back as a tree element, which the page then owns: each
# call gets its own copy. An HTML title is left alone (it goes into the page's stash).
_HIGHLIGHT_SIGNATURE = inspect.signature(Highlight.highlight)
_HIGHLIGHTED = {}
_MAX_KEPT = 20_000  # blocks; a long `mkdocs serve` session starts over past this


def highlight_once(highlight):
    @functools.wraps(highlight)
    def once(self, *args, **kwargs):
        call = _HIGHLIGHT_SIGNATURE.bind(self, *args, **kwargs)
        call.apply_defaults()
        arguments = dict(call.arguments)
        del arguments["self"]
        if arguments["title"] and self.title_mode == "html":
            return highlight(self, *args, **kwargs)
        settings = sorted((name, value) for name, value in vars(self).items() if name != "md")
        key = repr((type(self).__qualname__, settings, sorted(arguments.items())))
        if key not in _HIGHLIGHTED:
            if len(_HIGHLIGHTED) >= _MAX_KEPT:
                _HIGHLIGHTED.clear()
            _HIGHLIGHTED[key] = highlight(self, *args, **kwargs)
        kept = _HIGHLIGHTED[key]
        return copy.deepcopy(kept) if arguments["inline"] else kept

    once.handtf_once = True
    return once


# 2. No upstream issue: Material for MkDocs takes only fixes until its end of life
# (2027-05-05), and its search plugin reads each page with html.parser, tag by tag.
# Eight in ten tags on these pages are the <span>s Pygments puts around each token of
# code, and the index keeps a code block's text, never its spans. The indexer reads
# each page without them, and under `mkdocs serve` a page that did not change keeps
# its entries.
_PRE = re.compile(r"<pre\b[^>]*>.*?</pre>", re.DOTALL)
_SPAN = re.compile(r"</?span\b[^>]*>")
_INDEXED = {}


def without_code_spans(html_text):
    """``html_text`` without the ``<span>`` tags inside its ``<pre>`` blocks.

    >>> without_code_spans('<p><span>a</span></p><pre><code><span class="n">x</span></code></pre>')
    '<p><span>a</span></p><pre><code>x</code></pre>'
    """
    return _PRE.sub(lambda block: _SPAN.sub("", block[0]), html_text)


def _toc_key(toc):
    return tuple((item.id, item.url, _toc_key(item.children)) for item in toc)


def index_once(add_entry_from_context):
    @functools.wraps(add_entry_from_context)
    def once(self, page):
        meta = {name: page.meta.get(name) for name in ("title", "tags", "search")}
        key = repr((page.url, page.title, meta, _toc_key(page.toc), page.content))
        if key not in _INDEXED:
            if len(_INDEXED) >= _MAX_KEPT:
                _INDEXED.clear()
            content, entries, self.entries = page.content, self.entries, []
            page.content = without_code_spans(content)
            try:
                add_entry_from_context(self, page)
                _INDEXED[key] = self.entries
            finally:
                page.content, self.entries = content, entries
        self.entries.extend(dict(entry) for entry in _INDEXED[key])

    once.handtf_once = True
    return once


# 3. No upstream issue: for each block pymdownx looks its lexer up by name, and Pygments'
# HTML formatter builds its table of token classes from the style again: a third of
# the time highlighting takes. A lexer found by name is kept by its name and options
# (a Pygments lexer keeps nothing between texts; a guessed one reads the source, so
# it is not kept), and the tables by the style and the class prefix they are made of.
_LEXERS, _STYLESHEETS = {}, {}


def lexer_once(get_lexer):
    @functools.wraps(get_lexer)
    def once(self, src, language, inline, stripnl):
        if self.guess_lang:
            return get_lexer(self, src, language, inline, stripnl)
        key = repr((language, inline, stripnl, self.default_lang, sorted(self.extend_pygments_lang.items())))
        if key not in _LEXERS:
            _LEXERS[key] = get_lexer(self, src, language, inline, stripnl)
        return _LEXERS[key]

    once.handtf_once = True
    return once


def stylesheet_once(create_stylesheet):
    @functools.wraps(create_stylesheet)
    def once(self):
        key = (self.style, self.classprefix)
        if key not in _STYLESHEETS:
            create_stylesheet(self)
            _STYLESHEETS[key] = self.ttype2class, self.class2style  # only read from then on
        self.ttype2class, self.class2style = _STYLESHEETS[key]

    once.handtf_once = True
    return once


# Once per process: mkdocs imports each hook once, and so may the tests.
if not getattr(Highlight.highlight, "handtf_once", False):
    Highlight.highlight = highlight_once(Highlight.highlight)
if not getattr(SearchIndex.add_entry_from_context, "handtf_once", False):
    SearchIndex.add_entry_from_context = index_once(SearchIndex.add_entry_from_context)
if not getattr(Highlight.get_lexer, "handtf_once", False):
    Highlight.get_lexer = lexer_once(Highlight.get_lexer)
if not getattr(HtmlFormatter._create_stylesheet, "handtf_once", False):
    HtmlFormatter._create_stylesheet = stylesheet_once(HtmlFormatter._create_stylesheet)
