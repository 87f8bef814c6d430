"""A Python-Markdown extension: no line break between two Chinese characters.

Browsers other than Firefox show a line break inside a paragraph as a space,
also between Chinese characters (w3c/csswg-drafts #5086), and Python-Markdown
keeps the break (Python-Markdown #992; its maintainers suggest a
treeprocessor). This one joins such lines in the Markdown tree, after inline
markup, so code and maths are never touched. It is listed in mkdocs.yml's
``markdown_extensions``, so any host of Python-Markdown extensions runs it:
MkDocs, Zensical, or ``markdown.markdown(text, extensions=["handtf_site.cjk_lines"])``.
"""

import re

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # CJK punctuation, ideographs, full-width forms
_LINE_BREAK = re.compile(rf"(?<=[{CJK}])[ \t]*\n[ \t]*(?=[{CJK}])")


def join_cjk_lines(text):
    """``text`` without the line breaks between two Chinese characters.

    >>> join_cjk_lines("注意力\\n权重，\\nand English\\nstays")
    '注意力权重，\\nand English\\nstays'
    """
    return _LINE_BREAK.sub("", text)


class _JoinCjkLines(Treeprocessor):
    def run(self, element):
        if element.tag in ("pre", "code") or "arithmatex" in element.get("class", ""):
            return
        element.text = element.text and join_cjk_lines(element.text)
        for child in element:
            self.run(child)
            child.tail = child.tail and join_cjk_lines(child.tail)


class JoinCjkLines(Extension):
    """Join the lines of a paragraph where both sides of the break are Chinese.

    >>> import markdown
    >>> markdown.markdown("注意力\\n权重\\n\\n    代码\\n    不变", extensions=[JoinCjkLines()])
    '<p>注意力权重</p>\\n<pre><code>代码\\n不变\\n</code></pre>'
    """

    def extendMarkdown(self, md):
        md.treeprocessors.register(_JoinCjkLines(md), "join_cjk_lines", 1)  # after inline markup


def makeExtension(**kwargs):
    return JoinCjkLines(**kwargs)
