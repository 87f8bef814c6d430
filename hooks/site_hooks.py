"""MkDocs hooks: only what no maintained plugin or option does. Each job names the upstream
issue it works around; when that issue is fixed in a pinned version, the job goes.

Maths is not here: pymdownx.arithmatex keeps the TeX and the site's own KaTeX typesets it.
"""

import html
import json
import re
import shutil
from pathlib import Path

import jinja2
import mkdocs.plugins
import mkdocs.utils
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from pymdownx.slugs import slugify

# 1. mkdocs-static-i18n #198: i18n re-creates each file and keeps mkdocs-jupyter's
# notebook wrapper only if .ipynb counts as Markdown; otherwise the page silently
# becomes the raw JSON (tests/test_site.py checks that it is HTML).
if ".ipynb" not in mkdocs.utils.markdown_extensions:
    mkdocs.utils.markdown_extensions = (*mkdocs.utils.markdown_extensions, ".ipynb")

# 2. Python-Markdown #992 (its maintainers suggest a treeprocessor), w3c/csswg-drafts
# #5086: browsers other than Firefox show a line break between Chinese characters as
# a space. Joined in the Markdown tree, so code is never touched.
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # CJK punctuation, ideographs, full-width forms
_CJK_LINE_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t]*\n[ \t]*(?=[{_CJK}])")


def join_cjk_lines(text):
    """``text`` without the line breaks between two Chinese characters.

    >>> join_cjk_lines("注意力\\n权重，\\nand English\\nstays")
    '注意力权重，\\nand English\\nstays'
    """
    return _CJK_LINE_BREAK.sub("", text)


class _JoinCjkLines(Treeprocessor):
    def run(self, element):
        if element.tag in ("pre", "code") or "arithmatex" in element.get("class", ""):
            return
        element.text = element.text and join_cjk_lines(element.text)
        for child in element:
            self.run(child)
            child.tail = child.tail and join_cjk_lines(child.tail)


class JoinCjkLines(Extension):
    def extendMarkdown(self, md):
        md.treeprocessors.register(_JoinCjkLines(md), "join_cjk_lines", 1)  # after inline markup


def on_config(config):
    if not any(isinstance(extension, JoinCjkLines) for extension in config.markdown_extensions):
        config.markdown_extensions.append(JoinCjkLines())  # once, though i18n runs this per language


# 3. Notebook pages. mkdocs-jupyter #199 made MathJax's URL configurable but always
# writes the tag, and nbconvert's template imports Mermaid from a CDN (#241): drop
# every script that loads from another host, has an empty src, or configures MathJax.
_SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.DOTALL)
_REMOTE_URL = re.compile(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/""", re.IGNORECASE)


def without_remote_scripts(html_text):
    def keep(match):
        src = re.search(r'\bsrc="([^"]*)"', match["attrs"])
        remote = (src and (not src[1] or _REMOTE_URL.match(src[1]))) or _REMOTE_URL.search(match["body"])
        return "" if remote or "text/x-mathjax-config" in match["attrs"] else match[0]

    return _SCRIPT.sub(keep, html_text)


# mkdocs-jupyter inlines JupyterLab's whole stylesheet (about 570 KB) into every
# notebook page, and nbconvert gives every plot an English placeholder as its alt
# text: the stylesheet goes (extra.css draws the cells like the site's code), and
# each plot is described by the paragraph that introduces it, in the page's language.
_JUPYTER_STYLE = re.compile(r"<style[^>]*>(?:(?!</style>).)*?(?:--jp-|\.jp-|highlight-ipynb)(?:(?!</style>).)*</style>", re.DOTALL)
_NO_ALT = 'alt="No description has been provided for this image"'
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.DOTALL)


def without_jupyter_styles(html_text):
    return _JUPYTER_STYLE.sub("", html_text)


def describe_notebook_images(html_text):
    parts = html_text.split(_NO_ALT)
    for i in range(1, len(parts)):
        paragraphs = _PARAGRAPH.findall(parts[i - 1])
        text = re.sub(r"<[^>]+>", "", paragraphs[-1]) if paragraphs else ""
        text = " ".join(html.unescape(text).replace("¶", "").split())
        parts[i - 1] += f'alt="{html.escape(text)}"'
    return "".join(parts)


# mkdocs-jupyter #140: heading ids come from an ASCII-only slugify and the table of
# contents from Markdown's, so Chinese headings (and headings with code) got links
# that lead nowhere. Both are redone with the site's slugify; the headings come in
# the same order in the page and in the table of contents.
_SLUGIFY = slugify(case="lower")  # as the toc extension in mkdocs.yml
_HEADING_ID = re.compile(r'(<h[1-6][^>]*\bid=")([^"]*)("[^>]*>)(.*?)(</h[1-6]>)', re.DOTALL)


def notebook_headings(content, toc):
    def flatten(items):
        for item in items:
            yield item
            yield from flatten(item.children)

    entries = flatten(toc)

    def renumber(match):
        entry = next(entries, None)
        if entry is None:
            return match[0]
        text = html.unescape(re.sub(r"<[^>]+>", "", match[4])).replace("¶", "").strip()
        entry.id, entry.title = _SLUGIFY(text, "-"), html.escape(text)
        inner = re.sub(r'(class="anchor-link" href="#)[^"]*', rf"\g<1>{entry.id}", match[4])
        return f"{match[1]}{entry.id}{match[3]}{inner}{match[5]}"

    return _HEADING_ID.sub(renumber, content)


def on_page_content(content, page, config, files):
    return notebook_headings(content, page.toc) if page.file.src_uri.endswith(".ipynb") else content


# 4. mkdocs-static-i18n #271: Material reads one search index, at the site root, so
# every search answered in both languages; and it fetches sitemap.xml below each
# <link rel="alternate">, which i18n points at the translated page itself, so every
# page load asked for files that do not exist (the header's language switcher
# already links each page to its twin). Each language gets its own index and sitemap.
def on_post_page(output, page, config):
    if page.file.src_uri.endswith(".ipynb"):
        output = without_remote_scripts(output)  # only mkdocs-jupyter's: the tests catch any other
        output = describe_notebook_images(without_jupyter_styles(output))
    output = re.sub(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">', "", output)
    locale = page.url.split("/", 1)[0]
    if locale in _translations(config):  # Material's "base" is where it reads the index
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
            shutil.copy2(root / "sitemap.xml", home / "sitemap.xml")  # i18n writes only the default's
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


# 5. mkdocs #3202 (closed, not merged): MkDocs makes a new Jinja environment for every
# build, every language and every reload of `mkdocs serve`, and each compiled Material's
# templates again (about a tenth of the build); mkdocstrings too makes a new one for
# each build and language (its handlers are torn down after each). Jinja's own
# bytecode cache keeps the compiled templates in the system's temporary folder,
# checked against each template's source.
_BYTECODE = jinja2.FileSystemBytecodeCache()


def on_env(env, config, files):
    env.bytecode_cache = _BYTECODE
    return env


def on_pre_build(config):
    if "mkdocstrings" in config.plugins:
        config.plugins["mkdocstrings"].get_handler("python").env.bytecode_cache = _BYTECODE
