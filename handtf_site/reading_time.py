"""How long a page takes to read: the rules, and the count of a page's HTML as built.

The main line (the pages a newcomer reads, in ``mkdocs.yml``'s ``extra.mainline``)
is measured by these rules, in both languages:

- prose: English words at 200 a minute; Chinese characters at 300 a minute
  (plus the Latin words among them at 200);
- code: every visible, non-blank line of a ``pre`` block costs 5 seconds, and
  its text is not counted again as prose;
- only what a reader sees without expanding anything: every ``<details>``
  closed (its summary line counts), only the first tab of a tabbed block.

``scripts/reading_time.py`` measures the built pages by these rules in Chromium
(what is really visible inside ``article.md-content__inner``); the build
(``hooks/mainline.py``) counts each page's HTML with :func:`count_html` and
shows the result at the top of the page. ``tests/test_reading_time.py`` holds
the two within a minute of each other.
"""

import functools
import math
import re
from html import unescape

WORDS_PER_MINUTE = 200
CJK_PER_MINUTE = 300
SECONDS_PER_CODE_LINE = 5

CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (no punctuation)
LATIN_CLASS = "A-Za-z0-9\u00c0-\u024f"
# A word: letters and digits, joined by an apostrophe, hyphen, dot or underscore ("don't", "wte.T", "1e-10").
WORD = rf"[{LATIN_CLASS}]+(?:['’_.\-][{LATIN_CLASS}]+)*"
CJK = rf"[{CJK_CLASS}]"

_WORD = re.compile(WORD)
_CJK = re.compile(CJK)


def count_text(text):
    """(Latin words, CJK characters) in ``text``.

    >>> count_text("Two words")
    (2, 0)
    >>> count_text("注意力是 soft lookup。")
    (2, 4)
    """
    return len(_WORD.findall(text)), len(_CJK.findall(text))


def code_lines(text):
    """The non-blank lines of a code block's text.

    >>> code_lines(">>> 1 + 1\\n2\\n\\n")
    2
    """
    return sum(1 for line in text.split("\n") if line.strip())


def minutes(words, cjk, lines):
    """Reading time in minutes of ``words`` Latin words, ``cjk`` Chinese characters and ``lines`` code lines.

    >>> minutes(200, 300, 12)
    3.0
    """
    return words / WORDS_PER_MINUTE + cjk / CJK_PER_MINUTE + lines * SECONDS_PER_CODE_LINE / 60


def shown_minutes(value):
    """The whole minutes a page shows: rounded, at least 1.

    >>> shown_minutes(0.2), shown_minutes(3.5), shown_minutes(3.49)
    (1, 4, 3)
    """
    return max(1, math.floor(value + 0.5))


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_HIDDEN_TAGS = {"script", "style", "template", "noscript"}
# The HTML a page's Markdown becomes, read as html.parser reads it, but faster (a build
# reads every page's HTML, and html.parser took a tenth of the build): comments and
# declarations (skipped), end tags, script and style elements whole (their content is
# text up to their end tag, not markup), start tags (a quoted attribute value may hold
# ">"), and the text between them.
_MARKUP = re.compile(
    r"""<(?:!--.*?-->|[!?][^>]*>"""
    r"""|/([a-z][^\s/>]*)[^>]*>"""
    r"""|(script|style)(?=[\s/>])((?:[^>"']|"[^"]*"|'[^']*')*)>.*?</\2\s*>"""
    r"""|([a-z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)>)""",
    re.S | re.I,
)
_ATTRIBUTE = re.compile(r"""([^\s/>=][^\s/=>]*)(\s*=+\s*('[^']*'|"[^"]*"|[^>\s]*))?""")


def _attributes(text):
    """A start tag's attributes, ``[(name, value)]`` as html.parser gives them (None: no value).

    >>> _attributes(''' class="md-typeset note" hidden data-x=1 title='a &gt; b' ''')
    [('class', 'md-typeset note'), ('hidden', None), ('data-x', '1'), ('title', 'a > b')]
    """
    found = []
    for name, assigned, value in _ATTRIBUTE.findall(text):
        if value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) > 1:
            value = value[1:-1]
        found.append((name.lower(), unescape(value) if assigned else None))
    return found


@functools.lru_cache(maxsize=4096)  # a page repeats a few attribute texts (Pygments' class="n") thousands of times
def _classes_and_hidden(text):
    """(the class names, whether there is a ``hidden`` attribute) of a start tag's attribute text.

    >>> _classes_and_hidden(' class="tabbed-block x" hidden')
    (('tabbed-block', 'x'), True)
    """
    attributes = dict(_attributes(text))
    return tuple((attributes.get("class") or "").split()), "hidden" in attributes


class _Counter:
    """Walks a page's HTML, counting what a reader sees without expanding anything."""

    def __init__(self):
        self.words = self.cjk = self.lines = 0
        self.stack = []  # (tag, hidden, is_pre, is_tabbed_content)
        self.tab_blocks = []  # per open .tabbed-content: blocks seen so far
        self.pre_text = None

    def _hidden(self):
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attributes):
        if tag in _VOID:
            return
        classes, hidden_attribute = _classes_and_hidden(attributes)
        hidden = self._hidden() or tag in _HIDDEN_TAGS or hidden_attribute
        if self.stack and self.stack[-1][0] == "details" and tag != "summary":
            hidden = True  # a closed <details> shows its summary only
        if "tabbed-block" in classes and self.tab_blocks:
            self.tab_blocks[-1] += 1
            hidden = hidden or self.tab_blocks[-1] > 1  # only the first tab is shown
        if "katex-mathml" in classes:
            hidden = True
        is_tabbed = "tabbed-content" in classes
        if is_tabbed:
            self.tab_blocks.append(0)
        is_pre = tag == "pre" and not hidden
        if is_pre and self.pre_text is None:
            self.pre_text = []
        self.stack.append((tag, hidden, is_pre, is_tabbed))

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        while self.stack:
            open_tag, _, is_pre, is_tabbed = self.stack.pop()
            if is_tabbed:
                self.tab_blocks.pop()
            if is_pre:
                self.lines += code_lines("".join(self.pre_text))
                self.pre_text = None
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self._hidden():
            return
        if "&" in data:
            data = unescape(data)
        if self.pre_text is not None:
            self.pre_text.append(data)
            return
        words, cjk = count_text(data)
        self.words += words
        self.cjk += cjk

    def feed(self, html):
        position = 0
        for markup in _MARKUP.finditer(html):
            if markup.start() > position:
                self.handle_data(html[position : markup.start()])
            position = markup.end()
            closing, raw, raw_attributes, tag, attributes = markup.groups()
            if closing:
                self.handle_endtag(closing.lower())
            elif raw:  # its text is hidden, as script and style are
                self.handle_starttag(raw.lower(), raw_attributes)
                self.handle_endtag(raw.lower())
            elif tag:
                tag = tag.lower()
                self.handle_starttag(tag, attributes)
                if attributes.endswith("/"):
                    self.handle_endtag(tag)  # <tag/>
        if position < len(html):
            self.handle_data(html[position:])


def count_html(html):
    """{"words", "cjk", "code_lines", "minutes"} of an HTML fragment, by the rules above.

    >>> count_html("<p>One two <code>three</code></p><pre><code>a = 1\\nb = 2\\n</code></pre>")["code_lines"]
    2
    >>> count_html('<details><summary>Going deeper</summary><p>unseen words</p></details>')["words"]
    2
    """
    counter = _Counter()
    counter.feed(html)
    return {
        "words": counter.words,
        "cjk": counter.cjk,
        "code_lines": counter.lines,
        "minutes": minutes(counter.words, counter.cjk, counter.lines),
    }


# A collapsed block a reader may open: a "Going deeper" note (and the home page's
# other notes and its list of every page), not an exercise's hint or solution.
_COLLAPSED = re.compile(r'<details class="(?:note|abstract)">\s*<summary>(.*?)</summary>', re.DOTALL)
_DETAILS_TAG = re.compile(r"<(/?)details\b")
MINUTES_CLASS = "handtf-minutes"


def _closing(html, start):
    """The index of the ``</details>`` that closes the ``<details>`` opened before ``start``."""
    depth = 1
    for tag in _DETAILS_TAG.finditer(html, start):
        depth += -1 if tag[1] else 1
        if depth == 0:
            return tag.start()
    raise ValueError("a <details> is never closed")


def collapsed_minutes(html):
    """[(summary text, minutes its content adds)] of each collapsed note of ``html``, in order:
    what opening it shows (its own blocks nested inside stay closed).

    >>> collapsed_minutes('<details class="note"><summary>Going deeper</summary><p>' + "word " * 300 + '</p></details>')
    [('Going deeper', 1.5)]
    """
    return [(re.sub(r"<[^>]+>", "", m[1]).strip(), count_html(html[m.end() : _closing(html, m.end())])["minutes"])
            for m in _COLLAPSED.finditer(html)]


def label_collapsed(html, unit):
    """``html`` with each collapsed note's summary ending in the minutes its content adds,
    ``<span class="handtf-minutes" data-minutes="2">· 2 min</span>`` (``unit`` is "{} min" or "{} 分钟").

    >>> label_collapsed('<details class="note"><summary>Going deeper</summary><p>' + "word " * 300 + '</p></details>', "{} min")[:97]
    '<details class="note"><summary>Going deeper <span class="handtf-minutes" data-minutes="2">· 2 min'
    """
    out, last = [], 0
    for m in _COLLAPSED.finditer(html):
        shown = shown_minutes(count_html(html[m.end() : _closing(html, m.end())])["minutes"])
        label = f' <span class="{MINUTES_CLASS}" data-minutes="{shown}">· {unit.format(shown)}</span>'
        out += [html[last : m.end(1)], label]
        last = m.end(1)
    return "".join(out + [html[last:]])
