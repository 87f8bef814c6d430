"""MkDocs hooks: math as MathML, notebooks under i18n, nothing loaded from another host.

- Math written as ``$...$`` / ``$$...$$`` leaves pymdownx.arithmatex as TeX in
  ``<span class="arithmatex">`` / ``<div class="arithmatex">``; it is turned
  into MathML here, which the browser renders with no script and no font
  download.
- mkdocs-static-i18n re-creates files and drops mkdocs-jupyter's notebook
  wrapper unless ``.ipynb`` counts as a page (mkdocs-static-i18n issue #198).
- mkdocs-jupyter pages carry script tags that point at CDNs; they are removed.
"""

import html
import re

import mkdocs.utils
from latex2mathml.converter import convert

if ".ipynb" not in mkdocs.utils.markdown_extensions:
    mkdocs.utils.markdown_extensions = (*mkdocs.utils.markdown_extensions, ".ipynb")

_MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\(?P<open>[(\[])(?P<tex>.*?)\\[)\]]\s*</(?P=tag)>',
    re.DOTALL,
)
_REMOTE_SCRIPT = re.compile(
    r'<script[^>]*\bsrc="(?:https?:)?//[^"]*"[^>]*>\s*</script>'  # a script from another host
    r"|<script[^>]*>[^<]*(?:https?:)?//(?:cdn|unpkg)[^<]*</script>"  # an inline loader of one
    r'|<script type="text/x-mathjax-config">.*?</script>',  # mkdocs-jupyter's MathJax settings
    re.DOTALL,
)


def tex_to_mathml(match):
    tex = html.unescape(match["tex"]).strip()
    display = "block" if match["open"] == "[" else "inline"
    return f'<{match["tag"]} class="arithmatex">{convert(tex, display=display)}</{match["tag"]}>'


def on_page_content(content, page, config, files):
    return _MATH.sub(tex_to_mathml, content)


def on_post_page(output, page, config):
    return _REMOTE_SCRIPT.sub("", output)
