"""MkDocs hooks: math as MathML, notebooks under i18n, nothing loaded from another host.

- Math written as ``$...$`` / ``$$...$$`` leaves pymdownx.arithmatex as TeX in
  ``<span class="arithmatex">`` / ``<div class="arithmatex">``; it is turned
  into MathML here, which the browser renders with no script and no font
  download.
- mkdocs-static-i18n re-creates files and drops mkdocs-jupyter's notebook
  wrapper unless ``.ipynb`` counts as a page (mkdocs-static-i18n issue #198).
- mkdocs-jupyter pages carry script tags that point at CDNs and an inlined
  JupyterLab stylesheet; both are removed, their plots get the paragraph before
  them as alternative text, and their heading ids are made to match their
  table of contents.
- A line break between two Chinese characters would show as a space; it is
  dropped.
- mkdocs-static-i18n merges both languages into one search index, so a search
  would answer in both. The index is split per language, and each
  translation's pages are told to search their own.
- The ``<link rel="alternate">`` tags are removed: Material takes each for a
  language's home page and asks for a sitemap.xml below it that does not exist.
"""

import html
import json
import re
import shutil
from pathlib import Path

import mkdocs.plugins
import mkdocs.utils
from latex2mathml.converter import convert
from pymdownx.slugs import slugify

if ".ipynb" not in mkdocs.utils.markdown_extensions:
    mkdocs.utils.markdown_extensions = (*mkdocs.utils.markdown_extensions, ".ipynb")

_MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\(?P<open>[(\[])(?P<tex>.*?)\\[)\]]\s*</(?P=tag)>',
    re.DOTALL,
)
_SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.DOTALL)
_REMOTE_URL = re.compile(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/""", re.IGNORECASE)


def without_remote_scripts(html_text):
    """Drop every script that loads from another host, has an empty src, or is MathJax's config."""

    def keep(match):
        attrs, body = match["attrs"], match["body"]
        src = re.search(r'\bsrc="([^"]*)"', attrs)
        remote = (src and (not src[1] or _REMOTE_URL.match(src[1]))) or _REMOTE_URL.search(body)
        mathjax = "text/x-mathjax-config" in attrs
        return "" if remote or mathjax else match[0]

    return _SCRIPT.sub(keep, html_text)


_JUPYTER_STYLE = re.compile(r"<style[^>]*>(?:(?!</style>).)*?(?:--jp-|\.jp-|highlight-ipynb)(?:(?!</style>).)*</style>", re.DOTALL)


def without_jupyter_styles(html_text):
    """Drop the JupyterLab stylesheet that mkdocs-jupyter inlines into a notebook page (about 570 KB).

    The site's own stylesheet (extra.css) draws the cells like every other page's code.
    """
    return _JUPYTER_STYLE.sub("", html_text)


_NO_ALT = 'alt="No description has been provided for this image"'  # nbconvert's English placeholder
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.DOTALL)


def describe_notebook_images(html_text):
    """Give each plot of a notebook the text of the paragraph before it as its alternative text.

    nbconvert writes an English placeholder on every plot; the paragraph that
    introduces the plot says what it shows, in the page's language.
    """
    parts = html_text.split(_NO_ALT)
    for i in range(1, len(parts)):
        paragraphs = _PARAGRAPH.findall(parts[i - 1])
        text = re.sub(r"<[^>]+>", "", paragraphs[-1]) if paragraphs else ""
        text = " ".join(html.unescape(text).replace("¶", "").split())
        parts[i - 1] += f'alt="{html.escape(text)}"'
    return "".join(parts)


def tex_to_mathml(match):
    tex = html.unescape(match["tex"]).strip()
    display = "block" if match["open"] == "[" else "inline"
    return f'<{match["tag"]} class="arithmatex">{convert(tex, display=display)}</{match["tag"]}>'


_SLUGIFY = slugify(case="lower")  # as the toc extension in mkdocs.yml
_HEADING_ID = re.compile(r'(<h[1-6][^>]*\bid=")([^"]*)("[^>]*>)(.*?)(</h[1-6]>)', re.DOTALL)


def notebook_headings(content, toc):
    """Give a notebook's headings readable ids, the same (with the same titles) in its table of contents.

    mkdocs-jupyter makes heading ids with an ASCII-only slugify and its table of
    contents with Markdown's, so Chinese headings (and headings with code) get
    links that lead nowhere. Both are redone here with the site's slugify; the
    headings come in the same order in the page and in the table of contents.
    """
    entries = iter(_flatten(toc))

    def renumber(match):
        entry = next(entries, None)
        if entry is None:
            return match[0]
        text = html.unescape(re.sub(r"<[^>]+>", "", match[4])).replace("¶", "").strip()
        entry.id, entry.title = _SLUGIFY(text, "-"), html.escape(text)
        inner = re.sub(r'(class="anchor-link" href="#)[^"]*', rf"\g<1>{entry.id}", match[4])
        return f"{match[1]}{entry.id}{match[3]}{inner}{match[5]}"

    return _HEADING_ID.sub(renumber, content)


def _flatten(toc):
    for item in toc:
        yield item
        yield from _flatten(item.children)


_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # CJK punctuation, ideographs, full-width forms
_CJK_LINE_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t]*\n[ \t]*(?=[{_CJK}])")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.DOTALL)


def join_cjk_lines(content):
    """Drop the line breaks between two Chinese characters outside ``<pre>``.

    A browser shows a line break in the source as a space, which is right
    between English words and wrong between Chinese characters.
    """
    parts = _PRE.split(content)  # odd indices are <pre> blocks
    return "".join(part if i % 2 else _CJK_LINE_BREAK.sub("", part) for i, part in enumerate(parts))


def on_page_content(content, page, config, files):
    if page.file.src_uri.endswith(".ipynb"):
        content = notebook_headings(content, page.toc)
    return join_cjk_lines(_MATH.sub(tex_to_mathml, content))


def on_post_page(output, page, config):
    if page.file.src_uri.endswith(".ipynb"):
        output = without_remote_scripts(output)  # only mkdocs-jupyter's: the tests catch any other
        output = describe_notebook_images(without_jupyter_styles(output))
    # Material fetches sitemap.xml below every <link rel="alternate"> as if it were a
    # language's home page; mkdocs-static-i18n points them at the translated page
    # itself, so each page load asked for files that do not exist. The language
    # switcher in the header already links every page to its twin.
    output = re.sub(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">', "", output)
    locale = page.url.split("/", 1)[0]
    if locale in _translations(config):
        # Material's "base" is the site root; a translation's root is one folder below it.
        output = re.sub(r'("base": ")([^"]*)(")', rf"\g<1>\g<2>/{locale}/\g<3>", output, count=1)
    return output


def _translations(config):
    """The locales other than the default one, each built into a folder of that name."""
    return [language.locale for language in config["plugins"]["i18n"].config.languages if not language.default]


@mkdocs.plugins.event_priority(-200)  # after mkdocs-static-i18n has built every language
def on_post_build(config):
    root = Path(config["site_dir"])
    if not (root / "sitemap.xml").exists():
        root = root.parent
    for locale in _translations(config):
        home = root / locale
        if (home / "index.html").exists():
            # Material's scripts fetch sitemap.xml next to each language's home page;
            # mkdocs-static-i18n writes one only for the default language.
            shutil.copy2(root / "sitemap.xml", home / "sitemap.xml")
            _split_search_index(root / "search" / "search_index.json", home, locale)


def _split_search_index(merged_path, home, locale):
    """Move the entries under ``home`` from the merged index into an index of their own."""
    merged = json.loads(merged_path.read_text(encoding="utf-8"))
    prefix = f"{locale}/"
    own = [entry for entry in merged["docs"] if entry["location"].startswith(prefix)]
    if not own:
        return  # already split by an earlier call
    merged["docs"] = [entry for entry in merged["docs"] if not entry["location"].startswith(prefix)]
    translated = {**merged, "docs": [{**e, "location": e["location"][len(prefix) :]} for e in own]}
    (home / "search").mkdir(exist_ok=True)
    (home / "search" / "search_index.json").write_text(json.dumps(translated, ensure_ascii=False), encoding="utf-8")
    merged_path.write_text(json.dumps(merged, ensure_ascii=False), encoding="utf-8")
