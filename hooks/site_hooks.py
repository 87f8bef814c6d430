"""MkDocs hooks: what no maintained plugin or option does for this site, one job each.

Each job names the upstream issue it works around; when that is fixed, the job goes.

1. Notebooks under i18n: ``.ipynb`` must count as a page (mkdocs-static-i18n #198).
2. Chinese line breaks: a line break between two Chinese characters must not
   show as a space (Python-Markdown #992; browsers do not apply CSS Text's
   segment break rules, w3c/csswg-drafts #5086). A Markdown treeprocessor,
   so code is never touched.
3. Notebook pages: no scripts from another host (mkdocs-jupyter #199, #241:
   nbconvert's MathJax and Mermaid tags), and heading ids that match the table
   of contents (mkdocs-jupyter #140).
4. One search index and one sitemap per language (mkdocs-static-i18n #271:
   Material reads one index at the site root, so every search answered in both
   languages).

Maths is not here: pymdownx.arithmatex marks it and KaTeX, served by the site,
typesets it (see mkdocs.yml).
"""

import html
import json
import re
import shutil
from pathlib import Path
from xml.etree.ElementTree import Element

import mkdocs.plugins
import mkdocs.utils
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from pymdownx.slugs import slugify

# 1. mkdocs-static-i18n #198: i18n re-creates each file and keeps mkdocs-jupyter's
# notebook wrapper only when the extension counts as Markdown; otherwise the page
# silently becomes the raw .ipynb JSON (tests/test_site.py checks that it is HTML).
if ".ipynb" not in mkdocs.utils.markdown_extensions:
    mkdocs.utils.markdown_extensions = (*mkdocs.utils.markdown_extensions, ".ipynb")


# 2. Python-Markdown #992 (its maintainers suggest a treeprocessor) and
# w3c/csswg-drafts #5086: a source line break between Chinese characters
# becomes a space in every browser but Firefox.
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # CJK punctuation, ideographs, full-width forms
_CJK_LINE_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t]*\n[ \t]*(?=[{_CJK}])")
_VERBATIM = {"pre", "code", "script", "style"}


def join_cjk_lines(text):
    """``text`` without the line breaks that stand between two Chinese characters.

    >>> join_cjk_lines("注意力\\n权重，\\nand English\\nstays")
    '注意力权重，\\nand English\\nstays'
    """
    return _CJK_LINE_BREAK.sub("", text)


class _JoinCjkLines(Treeprocessor):
    def run(self, root):
        self._join(root)

    def _join(self, element: Element):
        if element.tag in _VERBATIM or "arithmatex" in element.get("class", ""):
            return
        if element.text:
            element.text = join_cjk_lines(element.text)
        for child in element:
            self._join(child)
            if child.tail:
                child.tail = join_cjk_lines(child.tail)


class JoinCjkLines(Extension):
    def extendMarkdown(self, md):
        md.treeprocessors.register(_JoinCjkLines(md), "join_cjk_lines", 1)  # after inline markup


def on_config(config):
    if not any(isinstance(extension, JoinCjkLines) for extension in config.markdown_extensions):
        config.markdown_extensions.append(JoinCjkLines())  # once, though i18n runs this per language


# 3. Notebook pages (mkdocs-jupyter renders them with nbconvert, not Markdown).
_SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.DOTALL)
_REMOTE_URL = re.compile(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/""", re.IGNORECASE)


def without_remote_scripts(html_text):
    """Drop every script that loads from another host, has an empty src, or is MathJax's config.

    mkdocs-jupyter #199 made MathJax's URL configurable but always writes the tag,
    and nbconvert's template imports Mermaid from a CDN (mkdocs-jupyter #241).
    """

    def keep(match):
        attrs, body = match["attrs"], match["body"]
        src = re.search(r'\bsrc="([^"]*)"', attrs)
        remote = (src and (not src[1] or _REMOTE_URL.match(src[1]))) or _REMOTE_URL.search(body)
        mathjax = "text/x-mathjax-config" in attrs
        return "" if remote or mathjax else match[0]

    return _SCRIPT.sub(keep, html_text)


_SLUGIFY = slugify(case="lower")  # as the toc extension in mkdocs.yml
_HEADING_ID = re.compile(r'(<h[1-6][^>]*\bid=")([^"]*)("[^>]*>)(.*?)(</h[1-6]>)', re.DOTALL)


def notebook_headings(content, toc):
    """Give a notebook's headings readable ids, the same (with the same titles) in its table of contents.

    mkdocs-jupyter #140: it makes heading ids with an ASCII-only slugify and its
    table of contents with Markdown's, so Chinese headings (and headings with
    code) get links that lead nowhere. Both are redone here with the site's
    slugify; the headings come in the same order in the page and in the table
    of contents.
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


def on_page_content(content, page, config, files):
    if page.file.src_uri.endswith(".ipynb"):
        return notebook_headings(content, page.toc)
    return content


def on_post_page(output, page, config):
    if page.file.src_uri.endswith(".ipynb"):
        output = without_remote_scripts(output)  # only mkdocs-jupyter's: the tests catch any other
    # 4. mkdocs-static-i18n #271. Material fetches sitemap.xml below every
    # <link rel="alternate"> as if it were a language's home page; i18n points them
    # at the translated page itself, so each page load asked for files that do not
    # exist. The language switcher in the header already links every page to its twin.
    output = re.sub(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">', "", output)
    locale = page.url.split("/", 1)[0]
    if locale in _translations(config):
        # Material's "base" (where it reads the search index) is the site root;
        # a translation's root, with its own index, is one folder below it.
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
