"""Build the site as one PDF per language: ``python scripts/build_pdf.py --out DIR``.

Writes ``DIR/handtf-en.pdf`` and ``DIR/handtf-zh.pdf``. Each is the built site's
pages in the order of the navigation (read from the built home page, so a page
added to ``mkdocs.yml`` is in the PDF without a change here), as a textbook:

- a cover naming the version, whether it was released or has changes since,
  the day it was printed, the commit, where it is read online and how to cite
  it; the same facts in the PDF's metadata (``--no-solutions``: the student
  edition, named so in its title, on its cover and in its metadata);
- a two-level table of contents with page numbers (parts, numbered chapters,
  their numbered sections but for "Summary" and "Exercises"), and a list of figures;
- numbered chapters and sections, numbered figures captioned with the first
  sentence of their alt text, exercises numbered per chapter (3.1, 3.2, ...),
  and every link inside the book followed by its target's number and page;
- each chapter's title as the running header of its pages, the page number
  in the footer (CSS margin boxes and named pages, which Chromium prints),
  nested bookmarks (parts, chapters, sections);
- each chapter closing with its page's and notebook's addresses online (the
  student edition: no notebook, whose cells hold the solutions), and a
  references list of the papers the pages cite, after the last chapter;
- code for paper: a line too long for the column is broken by the script below
  with a continuation mark ``↪`` and a hanging indent, so its second half cannot
  be read as output; snippet markers (``# --8<--``) and line numbers are not printed.

Text written for the screen is not printed: an element of class ``handtf-screen``
(the keyboard help, a screen-only phrase) or ``handtf-minutes`` (a collapsed note's reading time) is left out and one of class
``handtf-print`` (hidden on the site by print.css) is printed in its place; a live
widget is left out and the "Live:" paragraph before it names the page where it
runs. Every figure is printed once, in the light scheme, every collapsed block
(hints, solutions, "going deeper" notes) open, and in the student edition the
solutions are left out.

Headless Chromium (Debian's, driven by Playwright, as the browser tests) prints
it, twice or three times: the first print, laid out but not drawn, tells on
which page each anchor falls, the next shows those pages in the contents and
the cross-references, until no anchor moves. The two languages print at once,
each in a process with a Chromium of its own; a language's pages are read once
for all its editions. Chromium is given only the book's fonts (``PRINT_FONTS``:
Liberation Serif and Sans, DejaVu Sans Mono, LXGW WenKai with its bold, all
TrueType, through a fontconfig file of their own), so a commit prints the same
book on any machine whatever other fonts it has, with no Type 3 font and no
synthesized style; a face Chromium embeds whole is cut to the glyphs drawn.

The published address is ``--site-url`` (the deploy passes it), else
``$HANDTF_SITE_URL``, else the built site's own address if it is not a local
one, else CITATION.cff's ``url`` (which the deploy writes); never a local
server's. Without one the cover says the book comes from a local build, and
the chapters end with no address.

``--site SITE`` prints an already built site instead of running ``mkdocs build``.
"""

import argparse
import contextlib
import copy
import datetime
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from bs4 import BeautifulSoup, NavigableString, Tag

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hooks"))
from course import citation, is_local  # noqa: E402  (the same citation data and rule as the site's pages)

LANGUAGES = {"en": "", "zh": "zh/"}  # language -> folder of its pages in the built site
WORDS = {
    "en": {
        "contents": "Contents",
        "figures": "List of figures",
        "index": "Index",
        "in_english": "",
        "subtitle": "A GPT-2-style transformer with every weight set by hand, explained step by step with code that runs.",
        "version": "Version {version}, released {date}",
        "unreleased": "Version {version} (released {date}) with changes not yet released",
        "printed": "Printed {date} from commit {commit}",
        "cite": "How to cite",
        "cite_text": "{authors} ({year}). <em>{title}</em>, version {version}. {url}",
        "licence": "Code: MIT licence. Text and figures: CC BY 4.0. Every example in this book is a "
        "doctest that the project's tests run.",
        "notebooks": "Each chapter's examples are also a Jupyter notebook, whose address is at the end of the chapter.",
        "online": "Read online",
        "local": "Printed from a local build of the site, which names no published address: "
        "this copy does not say where it is read online.",
        "student_title": "Student edition",
        "student": "Student edition: the exercises keep their hints; their solutions are left out.",
        "chapter": "Chapter {n}",
        "figure": "Figure {n}",
        "figure_ref": " ({label})",  # after the paragraph that leads to a figure
        "figure_alone": "({label} below.)",
        "exercise": "Exercise {n}",
        "xref": "({label}, p.\u00a0{page})",
        "section": "§{n}",
        "page_online": "This chapter online: {url}",
        "notebook": "Its examples as a notebook: {url}",
        "live": "On the chapter's page online",  # the strong words of the "Live:" paragraph, then the page's address and a colon
        "live_line": "This runs live on the chapter's page online: {url}",
        "references": "References",
        "cited_in": "Cited in chapter {chapters}.",
        "cited_in_many": "Cited in chapters {chapters}.",
        "skip_toc": {"Summary", "Exercises"},
        "subject_full": "Full edition, with the solutions of the exercises",
        "subject_student": "Student edition: exercises and hints, no solutions",
    },
    "zh": {
        "contents": "目录",
        "figures": "插图目录",
        "index": "索引",
        "in_english": "（英文）",
        "subtitle": "一个每个权重都由人亲手设定的 GPT-2 式 Transformer，一步一步讲解，每段代码都能运行。",
        "version": "版本 {version}，发布于 {date}",
        "unreleased": "版本 {version}（发布于 {date}），含尚未发布的改动",
        "printed": "印于 {date}，提交 {commit}",
        "cite": "如何引用",
        "cite_text": "{authors}（{year}）。《{title}》，版本 {version}。{url}",
        "licence": "代码：MIT 许可证。正文与插图：CC BY 4.0。书中每个示例都是项目测试会运行的 doctest。",
        "notebooks": "每章的示例也有一个 Jupyter 笔记本，地址在该章末尾。",
        "online": "在线阅读",
        "local": "本书印自网站的本地构建，没有给出发布地址，因此不注明在线阅读的网址。",
        "student_title": "学生版",
        "student": "学生版：练习保留提示，不含解答。",
        "chapter": "第 {n} 章",
        "figure": "图 {n}",
        "figure_ref": "（{label}）",
        "figure_alone": "（见下方{label}。）",
        "exercise": "练习 {n}",
        "xref": "（{label}，第\u00a0{page}\u00a0页）",
        "section": "§{n}",
        "page_online": "本章在线版：{url}",
        "notebook": "本章示例的笔记本：{url}",
        "live": "在本章的在线页面上",
        "live_line": "它在本章的在线页面上实时运行：{url}",
        "references": "参考文献",
        "cited_in": "引用于第 {chapters} 章。",
        "cited_in_many": "引用于第 {chapters} 章。",
        "skip_toc": {"小结", "练习"},
        "subject_full": "完整版，含练习解答",
        "subject_student": "学生版：练习与提示，不含解答",
    },
}
# A page of the site is a chapter of the book: "This page builds ..." prints "This chapter builds ...".
PAGE_WORDS = {"en": (re.compile(r"\b([Tt]his)(\s+)page\b"), r"\1\2chapter"), "zh": (re.compile("本页"), "本章")}
# Words about collapsed blocks, which print open: the block is named by its title instead.
PRINT_WORDS = {
    "en": [(re.compile(r"one\s+click\s+away,\s+in\s+a\s+collapsed\s+block"), "in a “Going deeper” block"),
           (re.compile(r"in\s+(a|its)\s+collapsed\s+block"), r"in \1 “Going deeper” block")],
    "zh": [(re.compile("折叠在下面，点一下就能展开"), "在下面的“深入一步”块里"), (re.compile("折叠块"), "“深入一步”块")],
}


def language_of(words):
    return next(language for language, table in WORDS.items() if table is words)


LIVE = re.compile(r"^\s*(Live|实时演示)\s*[:：]?\s*$")  # the strong words opening the paragraph before a widget

# The papers the pages cite: each is listed under "References" when a chapter names it
# (``cue``, a pattern of the text outside code), and its first mention in a chapter gets
# the reference's number.
REFERENCES = [
    {"key": "vaswani2017", "cue": r"Attention Is All You Need",
     "text": "Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, Aidan N. Gomez, "
     "Łukasz Kaiser and Illia Polosukhin (2017). Attention Is All You Need. "
     "Advances in Neural Information Processing Systems 30.", "url": "https://arxiv.org/abs/1706.03762"},
    {"key": "radford2019", "cue": r"GPT-2",
     "text": "Alec Radford, Jeffrey Wu, Rewon Child, David Luan, Dario Amodei and Ilya Sutskever (2019). "
     "Language Models are Unsupervised Multitask Learners. OpenAI.",
     "url": "https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf"},
    {"key": "elhage2021", "cue": r"Elhage",
     "text": "Nelson Elhage, Neel Nanda, Catherine Olsson, Tom Henighan, Nicholas Joseph, Ben Mann, et al. (2021). "
     "A Mathematical Framework for Transformer Circuits. Transformer Circuits Thread.",
     "url": "https://transformer-circuits.pub/2021/framework/index.html"},
    {"key": "olsson2022", "cue": r"Olsson",
     "text": "Catherine Olsson, Nelson Elhage, Neel Nanda, Nicholas Joseph, Nova DasSarma, Tom Henighan, et al. (2022). "
     "In-context Learning and Induction Heads. Transformer Circuits Thread.",
     "url": "https://transformer-circuits.pub/2022/in-context-learning-and-induction-heads/index.html"},
    {"key": "su2021", "cue": r"\bSu (?:et al|等)",
     "text": "Jianlin Su, Yu Lu, Shengfeng Pan, Ahmed Murtadha, Bo Wen and Yunfeng Liu (2021). "
     "RoFormer: Enhanced Transformer with Rotary Position Embedding. arXiv:2104.09864.",
     "url": "https://arxiv.org/abs/2104.09864"},
    {"key": "mody2023", "cue": r"picoGPT",
     "text": "Jay Mody (2023). picoGPT: an unnecessarily tiny implementation of GPT-2 in NumPy.",
     "url": "https://github.com/jaymody/picoGPT"},
]

# Every face the book is set in, by its file in Debian's packages (.ci/run and README install
# them). Chromium prints with only these (``font_config``), so the same commit prints the same
# book whatever other fonts a machine has. All have TrueType outlines, which Chromium embeds as
# real fonts (a CFF font, such as Noto CJK, becomes hundreds of Type 3 fonts). The maths is set
# in KaTeX's own fonts, which the site serves.
PRINT_FONTS = {
    "fonts-liberation": [  # the English text (a Times-metric serif) and headings (an Arial-metric sans)
        "LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf", "LiberationSerif-Italic.ttf", "LiberationSerif-BoldItalic.ttf",
        "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSans-Italic.ttf", "LiberationSans-BoldItalic.ttf"],
    "fonts-dejavu-core": [  # code, and the symbols the faces above lack (arrows, box drawing)
        "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Oblique.ttf", "DejaVuSansMono-BoldOblique.ttf",
        "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"],
    "fonts-lxgw-wenkai": [  # Chinese: LXGW WenKai, with a real bold, and its monospaced face for code
        "LXGWWenKai-Regular.ttf", "LXGWWenKai-Bold.ttf", "LXGWWenKaiMono-Regular.ttf", "LXGWWenKaiMono-Bold.ttf"],
}
FACES = {  # CSS font-family lists, of PRINT_FONTS' families only
    "en": '"Liberation Serif", "LXGW WenKai", "DejaVu Sans"',
    "zh": '"LXGW WenKai", "Liberation Serif", "DejaVu Sans"',
    "heading-en": '"Liberation Sans", "LXGW WenKai", "DejaVu Sans"',
    "heading-zh": '"LXGW WenKai", "Liberation Sans", "DejaVu Sans"',
    "code": '"DejaVu Sans Mono", "LXGW WenKai Mono", "DejaVu Sans"',
}
GENERIC = {"serif": "Liberation Serif", "sans-serif": "Liberation Sans", "monospace": "DejaVu Sans Mono"}


def font_files():
    """{file name: its path on this machine} of every PRINT_FONTS file (fontconfig's list, read
    with fc-list); SystemExit naming the package of any missing."""
    listed = subprocess.run(["fc-list", "--format", "%{file}\\n"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    found = {Path(line).name: line for line in sorted(listed.splitlines()) if line}
    missing = {package: [name for name in names if name not in found] for package, names in PRINT_FONTS.items()}
    missing = {package: names for package, names in missing.items() if names}
    if missing:
        raise SystemExit(f"build_pdf.py: the book's fonts are missing: {missing} (apt-get install {' '.join(missing)})")
    return {name: found[name] for names in PRINT_FONTS.values() for name in names}


def font_config(folder, extra_dirs=()):
    """A fontconfig file in ``folder`` that gives Chromium only the PRINT_FONTS (links to them in
    ``folder/fonts``) and maps the generic families to them; ``extra_dirs``, folders of other
    fonts added too (tests/test_pdf.py: a book printed with other fonts present is the same book).
    Returns its path, for $FONTCONFIG_FILE (fontconfig's documented way to read another file)."""
    folder = Path(folder)
    fonts = folder / "fonts"
    fonts.mkdir(parents=True, exist_ok=True)
    for name, path in font_files().items():
        (fonts / name).symlink_to(path)
    aliases = "".join(f"<alias binding=\"same\"><family>{generic}</family><prefer><family>{family}</family></prefer></alias>"
                      for generic, family in GENERIC.items())
    dirs = "".join(f"<dir>{html.escape(str(Path(d).resolve()))}</dir>" for d in (fonts, *extra_dirs))
    config = folder / "fonts.conf"
    config.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
                      f"<fontconfig>{dirs}<cachedir>{html.escape(str((folder / 'cache').resolve()))}</cachedir>{aliases}</fontconfig>\n",
                      encoding="utf-8")
    return config


PRINT_CSS = """
@page { size: A4; margin: 20mm 17mm 20mm 17mm;
  @bottom-center { content: counter(page); font: 10pt/1 "Liberation Sans"; color: #333; } }
@page cover { @bottom-center { content: none; } }
@page part { @bottom-center { content: none; } }
/* The site's scroll shadows (extra.css): gradients that nothing scrolls on paper, and the
   largest part of the file (a shading for each code block, formula and figure). */
.md-typeset *:not(img) { background-image: none !important; }
html { font-size: 125%; }  /* Material sizes text in rem: 0.8rem -> 10pt on paper */
body { margin: 0; background: #fff; font-synthesis: none; }  /* a style no font has is not faked */
/* Every face named (PRINT_FONTS, FACES): the text in a serif, headings in a sans; Chinese in
   LXGW WenKai, bold words in its bold. */
body, body .md-typeset { font-family: @en; }
body[lang="zh"], body[lang="zh"] .md-typeset { font-family: @zh; }
.md-typeset :is(h1, h2, h3, h4, h5, h6, .admonition-title, summary, th) { font-family: @heading-en; }
body[lang="zh"] .md-typeset :is(h1, h2, h3, h4, h5, h6, .admonition-title, summary, th) { font-family: @heading-zh; }
.md-typeset :is(code, pre, kbd, samp) { font-family: @code; }
.md-typeset { font-size: 0.8rem; line-height: 1.6; orphans: 3; widows: 3; }
.md-typeset h1 { font-size: 1.8em; margin: 0 0 0.8em; color: #111; font-weight: 400; }
.md-typeset .headerlink, .md-typeset .anchor-link, .md-typeset button { display: none; }  /* nothing to click on paper */
.md-typeset details > summary::after { display: none; }  /* every block is open on paper: no chevron to click */
/* Code: each long line is broken by WRAP_CODE with a mark and a hanging indent; the
   browser's own wrapping is only the last resort. Blocks break between lines. */
.md-typeset pre > code { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }
.md-typeset .language-pycon pre > code, .md-typeset pre > code { color: #222; }
.md-typeset pre > code .handtf-wrap { color: #777; }
.md-typeset table.highlighttable td.linenos { display: none; }
.md-typeset figure, .md-typeset .arithmatex, .md-typeset tr { break-inside: avoid; }
.md-typeset .md-typeset__table, .md-typeset .md-typeset__scrollwrap { overflow: visible; }
.md-typeset table:not([class]) { font-size: 0.7rem; }
.md-typeset :is(h1, h2, h3, h4) { break-after: avoid; }
.md-typeset img { max-width: 100%; }
.md-typeset div.arithmatex { overflow: visible; }
.md-typeset figure.handtf-figure { margin: 1em auto; text-align: center; }
.md-typeset figure.handtf-figure p { margin: 0; }
.md-typeset figure.handtf-figure figcaption { font-size: 0.9em; color: #333; max-width: 100%; margin: 0.4em auto 0;
  text-align: left; font-style: normal; }
.md-typeset p.handtf-exercise { break-after: avoid; }  /* an exercise's statement stays with its hint */
.md-typeset .handtf-label { font-weight: 700; margin-right: 0.25em; }
.md-typeset .handtf-num { margin-right: 0.35em; color: #444; }
.md-typeset h1 .handtf-num { font-weight: 700; }
.md-typeset .handtf-xref { white-space: nowrap; color: #444; font-size: 0.92em; }
.md-typeset .handtf-url { overflow-wrap: anywhere; font-size: 0.9em; }
.md-typeset .handtf-online { margin-top: 2.2em; padding-top: 0.6em; border-top: 1px solid #bbb; font-size: 0.85em; color: #333; }
.md-typeset .handtf-online p { margin: 0.2em 0; overflow-wrap: anywhere; }
.md-typeset .handtf-print { display: revert; }
.md-typeset .handtf-journey a.handtf-journey__spot { display: block !important; }  /* the step numbers print */
.md-typeset .handtf-journey figure > p:has(> img) { position: relative; width: fit-content; max-width: 100%;
  margin-inline: auto; font-size: 0; line-height: 0; }  /* as mainline.css lays out the picture, now in its figure */
.handtf-chapter, .handtf-part, .handtf-toc { break-before: page; }
.handtf-part { page: part; padding-top: 30vh; text-align: center; }
.handtf-part h1 { font-size: 2.4em; }
.handtf-cover { page: cover; text-align: left; padding-top: 12vh; }
.handtf-cover h1 { font-size: 2.6em; margin-bottom: 0.3em; }
.handtf-cover .subtitle { font-size: 1.2em; color: #444; }
.handtf-cover .edition-title { font-size: 1.5em; margin: 0.2em 0 0.6em; }
.handtf-cover .version { margin: 1.6em 0 0.2em; font-size: 1.1em; }
.handtf-cover pre { font-size: 0.85em; }
.md-typeset .handtf-toc ol { list-style: none; padding-left: 0; margin: 0; }
.md-typeset .handtf-toc li { margin: 0.12em 0; list-style: none; }
.md-typeset .handtf-toc .part { margin-top: 0.9em; }
.handtf-toc .part > a { font-weight: 700; }
.md-typeset .handtf-toc a { display: flex; color: inherit; text-decoration: none !important; break-inside: avoid; }
.handtf-toc a .title { flex: 0 1 auto; }
.handtf-toc a .dots { flex: 1 0 2em; border-bottom: 1px dotted #999; margin: 0 0.4em 0.35em; }
.handtf-toc a .page { min-width: 2em; text-align: right; }
/* a chapter's sections run on in a paragraph under it: "5.1 The input 42 · 5.2 c_attn 43 · ..." */
.md-typeset .handtf-toc ol.sections { padding-left: 2.2em; margin: 0 0 0.3em; font-size: 0.85em; line-height: 1.45; color: #333; }
.md-typeset .handtf-toc ol.sections li { display: inline; margin: 0; }
.md-typeset .handtf-toc ol.sections li + li::before { content: " · "; color: #888; }
.md-typeset .handtf-toc ol.sections a { display: inline; color: #333; }
.handtf-toc ol.sections a .dots { display: none; }
.handtf-toc ol.sections a .page { margin-left: 0.3em; color: #555; }
.md-typeset .handtf-references li { margin-bottom: 0.5em; }
.md-typeset .handtf-figures li { font-size: 0.9em; }
/* A box that fits on a page is not split; a chapter's closing lines do not stand alone on a page. */
.md-typeset :is(.admonition, details) { break-inside: avoid; }
.md-typeset .handtf-online { break-inside: avoid; break-before: avoid; }
.md-typeset .handtf-index ul { columns: 2; column-gap: 2em; padding-left: 0; font-size: 0.9em; }
.md-typeset .handtf-index li { list-style: none; margin: 0 0 0.2em; padding-left: 1em; text-indent: -1em; break-inside: avoid; }
.md-typeset .handtf-index a { color: inherit !important; text-decoration: none !important; }
.handtf-figures a .title { flex: 0 1 auto; max-width: 85%; }
"""
PRINT_CSS = re.sub(r"@([a-z-]+);", lambda m: FACES[m[1]] + ";" if m[1] in FACES else m[0], PRINT_CSS)
# The layout width of the page's column in CSS px (A4 less the margins above): code is broken to it.
COLUMN_PX = round((210 - 2 * 17) / 25.4 * 96)


def nav(site, language):
    """The language's navigation as [(part title or None, [page path below the site root, ...]), ...]."""
    home = LANGUAGES[language]
    soup = BeautifulSoup((site / home / "index.html").read_text(encoding="utf-8"), "html.parser")
    top = soup.select_one("nav.md-nav--primary > ul.md-nav__list")
    parts = []

    def page_of(item):
        link = item.find("a", class_="md-nav__link", recursive=False)
        return urlsplit(urljoin(f"http://site/{home}", link["href"])).path.lstrip("/") if link else None

    def pages_below(item):
        found = []
        for child in item.select_one("nav > ul.md-nav__list").find_all("li", recursive=False):
            if "md-nav__item--nested" in child.get("class", []):
                found += pages_below(child)
            elif page_of(child) is not None:
                found.append(page_of(child))
        return found

    for item in top.find_all("li", recursive=False):
        if "md-nav__item--nested" in item.get("class", []):
            label = item.find("label", class_="md-nav__link", recursive=False)
            parts.append((label.get_text(" ", strip=True), pages_below(item)))
        elif page_of(item) is not None:
            parts.append((None, [page_of(item)]))
    return parts


def key_of(path, language):
    """``zh/concepts/qkv/`` -> ``concepts-qkv``: the id of a chapter in the book."""
    path = path.removeprefix(LANGUAGES[language]).strip("/")
    return path.replace("/", "-") or "home"


SOLUTION_TITLES = {"Solution", "解答"}  # an exercise's ??? success block (tests/test_exercises.py)
EXERCISES_TITLES = {"Exercises", "练习"}
SNIPPET_MARKER = re.compile(r"--8<--")
FIGURE_SOURCE = "/assets/figures/"


def is_widget(tag):
    """A live widget of the site (its script draws it): nothing of it prints."""
    return (any(name in tag.attrs for name in ("data-handtf-widget", "data-handtf-induction", "data-handtf-adder"))
            or bool({"handtf-playground", "handtf-induction", "handtf-adder"} & set(tag.get("class", []))))


def is_dark_variant(image):
    """A figure's dark-scheme image: ``NAME.dark.svg#only-dark`` (or a <source> for the dark scheme)."""
    if image.name == "source":
        return "prefers-color-scheme: dark" in image.get("media", "").replace("  ", " ")
    source = image.get("src", "")
    return source.endswith("#only-dark") or urlsplit(source).path.endswith(".dark.svg")


def tags(root, test=None):
    """``root.find_all(test)``, ``test`` a function of a tag (None: every tag), in a tenth of the
    time: bs4's own matching of names and attributes costs ten times the walk over the tree."""
    return [element for element in root.descendants if isinstance(element, Tag) and (test is None or test(element))]


def strings(root, pattern):
    """``root.find_all(string=pattern)``, as ``tags``: the texts below ``root`` that ``pattern`` finds."""
    return [text for text in root.descendants if isinstance(text, NavigableString) and pattern.search(text)]


def has_class(tag, names):
    """bs4's ``class_=names``: one of the tag's classes, or all of them joined by spaces, is in ``names``."""
    classes = tag.get("class")
    if classes is None:
        return False
    classes = classes if isinstance(classes, list) else [classes]
    return any(name in names for name in classes) or (len(classes) != 1 and " ".join(classes) in names)


def decomposed(element):
    """``element.decomposed``, without its cost: bs4 reads the property's attribute of a tag
    not decomposed through ``Tag.__getattr__``, that is ``element.find("_decomposed")``, a
    search of the whole subtree."""
    return vars(element).get("_decomposed", False)


def for_paper(article, solutions=True, words=None, live_url=None):
    """What differs on paper: each figure once (light), every collapsed block open, no
    screen-only text, no widget (the "Live:" paragraph before it names ``live_url``
    instead), no snippet marker, and in the student edition no solutions.
    Returns the number of solutions left out."""
    words = words or WORDS["en"]
    for image in tags(article, lambda tag: tag.name in ("img", "source")):
        if is_dark_variant(image) or "handtf-phone" in image.get("class", []):  # the phone variant: the same figure, narrow
            parent = image.parent
            image.decompose()
            if parent.name == "a" and not parent.get_text(strip=True) and not parent.find(["img", "svg"]):
                parent.decompose()  # a link that only opened the dark figure full size
    every = tags(article)
    for element in [*(tag for tag in every if has_class(tag, ("handtf-screen", "handtf-minutes", "handtf-where"))),
                    *(tag for tag in every if tag.name == "noscript"),
                    *(tag for tag in every if tag.get("data-reading-time") is not None)]:
        if not decomposed(element):
            without_its_brackets(element)
            element.decompose()
    for element in tags(article, lambda tag: has_class(tag, ("handtf-print",))):
        element["class"] = [c for c in element["class"] if c != "handtf-print"]
    for text in strings(article, PAGE_WORDS[language_of(words)][0]):
        comment = text.parent is not None and bool({"c", "c1", "ch", "cm"} & set(text.parent.get("class", [])))
        if comment or not text.find_parent(["pre", "code", "script", "style"]):
            text.replace_with(PAGE_WORDS[language_of(words)][0].sub(PAGE_WORDS[language_of(words)][1], text))
    for pattern, replacement in PRINT_WORDS[language_of(words)]:
        for text in strings(article, pattern):
            if not text.find_parent(["pre", "code", "script", "style"]):
                text.replace_with(pattern.sub(replacement, text))
    for widget in tags(article, is_widget):
        if decomposed(widget):
            continue
        before = widget.find_previous_sibling()
        strong = before.find("strong") if before is not None and before.name == "p" else None
        address = f'<a href="{live_url}">{html.escape(live_url)}</a>' if live_url else ""
        if strong is not None and LIVE.match(strong.get_text()) and before.contents and before.contents[0] is strong:
            strong.string = words["live"]
            colon = "：" if words is WORDS["zh"] else ":"
            strong.insert_after(BeautifulSoup(f'<span class="handtf-url">{"（" if colon == "：" else " ("}{address}{"）" if colon == "：" else ")"}</span>{colon} '
                                              if address else colon, "html.parser"))
            widget.decompose()
        else:
            line = BeautifulSoup(f'<p class="handtf-live">{words["live_line"].format(url=address)}</p>' if address else "",
                                 "html.parser")
            widget.replace_with(line)
    for code in (pre.code for pre in tags(article, lambda tag: tag.name == "pre") if pre.code is not None):
        for line in tags(code, lambda tag: tag.name == "span" and "__span-" in (tag.get("id") or "")):
            if SNIPPET_MARKER.search(line.get_text()):
                line.decompose()
        # Colour only what tells code from output: prompts, comments, output. Each token's
        # own span would be an element of the PDF's structure tree (tens of thousands).
        for token in tags(code, lambda tag: tag.name == "span" and tag.get("class") is not None):
            if not set(token["class"]) & {"gp", "go", "gt", "gr", "c", "c1", "cm", "ch", "cs", "sd", "handtf-wrap"}:
                token.unwrap()
    return open_blocks(article, solutions)


OPENING = re.compile(r"\s*[(（]\+?\s*$")  # what is left before a reading time: "lookup (", "(+"
CLOSING = re.compile(r"^\s*[)）]")


def without_its_brackets(element):
    """Before ``element`` (a reading time) is left out: the brackets that held only it go too,
    so that "the soft lookup (4 min)" prints "the soft lookup", not "the soft lookup ()"."""
    before, after = element.previous_sibling, element.next_sibling
    if isinstance(before, NavigableString) and isinstance(after, NavigableString) \
            and OPENING.search(before) and CLOSING.match(after):
        before.replace_with(OPENING.sub("", before))
        after.replace_with(CLOSING.sub("", after, count=1))


def open_blocks(article, solutions=True):
    """Open every collapsed block; without ``solutions``, leave the exercises' solutions out.
    Returns the number left out."""
    left_out = 0
    for block in tags(article, lambda tag: tag.name == "details"):
        summary = block.find("summary", recursive=False)
        if not solutions and "success" in block.get("class", []) and summary and summary.get_text(strip=True) in SOLUTION_TITLES:
            block.decompose()
            left_out += 1
        else:
            block["open"] = ""
    return left_out


ARTICLE = '<article class="md-content__inner'


def page_article(page_html):
    """A built page's article (``article.md-content__inner``), parsed alone: ``(soup, article)``.
    The rest of the page, its navigation most, is a third of its bytes and is not read."""
    start, end = page_html.find(ARTICLE), page_html.rfind("</article>")
    if start < 0 or end < start:
        soup = BeautifulSoup(page_html, "html.parser")
        return soup, soup.select_one("article.md-content__inner")
    soup = BeautifulSoup(page_html[start : end + len("</article>")], "html.parser")
    return soup, soup.find("article", class_="md-content__inner")


def is_screen_furniture(tag):
    """What only the site's frame shows: the course's links, the page's source file, the
    headings' anchor links and the edit button."""
    classes = set(tag.get("class") or ())
    return bool(classes & {"handtf-course", "md-source-file"}) or (
        tag.name == "a" and bool(classes & {"headerlink", "anchor-link", "md-content__button"}))


def chapter(site, path, language, book_paths, published, solutions=True):
    """A page's article, its ids prefixed by its key and its links pointing inside the book
    (or, for files and playground states, to the published site, the address printed after them)."""
    key = key_of(path, language)
    soup, article = page_article((site / path / "index.html").read_text(encoding="utf-8"))
    for element in article.find_all(is_screen_furniture):
        element.decompose()
    page_url = f"{published}{path}" if published else None
    for_paper(article, solutions, WORDS[language], page_url)
    for element in tags(article, lambda tag: tag.get("id") is not None):
        element["id"] = f"{key}--{element['id']}"
    for element in tags(article, lambda tag: tag.get("for") is not None):  # tabbed blocks' labels
        element["for"] = f"{key}--{element['for']}"
    base = f"http://site/{path}"
    for link in tags(article, lambda tag: tag.name == "a" and tag.get("href") is not None):
        href = link["href"]
        if href.startswith("#"):
            link["href"] = f"#{key}--{href[1:]}"
            continue
        target = urljoin(base, href)
        if not target.startswith("http://site/"):
            continue  # another host: left as it is
        target_path, fragment = urldefrag(target.removeprefix("http://site/"))
        target_path = target_path.removesuffix("index.html")
        if target_path in book_paths:
            target_key = key_of(target_path, language)
            link["href"] = f"#{target_key}--{fragment}" if fragment else f"#{target_key}"
        elif published:
            address = f"{published}{target_path}" + (f"#{fragment}" if fragment else "")
            link["href"] = address
            link.attrs.pop("download", None)
            if link.get_text(strip=True) != address:
                link.insert_after(BeautifulSoup(f' <span class="handtf-url">({html.escape(address)})</span>', "html.parser"))
        else:
            link.unwrap()  # nowhere to point: a local server's address would be wrong on paper
    for image in tags(article, lambda tag: tag.name == "img" and tag.get("src") is not None):
        if urlsplit(image["src"]).scheme:
            continue  # data: (a notebook's plot) or another host
        image["src"] = (site / urlsplit(urljoin(base, image["src"])).path.lstrip("/")).resolve().as_uri()
        image.attrs.pop("loading", None)
    section = soup.new_tag("section", attrs={"class": "handtf-chapter", "id": key})
    section.extend(list(article.contents))  # moved, not copied: the page's soup is dropped
    if page_url:
        words = WORDS[language]
        notebooks = sorted((site / path).glob("*.ipynb"))
        lines = [words["page_online"].format(url=f'<a href="{page_url}">{page_url}</a>')]
        if notebooks:
            address = f"{page_url}{notebooks[0].name}"
            lines.append(words["notebook"].format(url=f'<a href="{address}">{address}</a>'))
        section.append(BeautifulSoup(  # the notebook's line (its second) holds the solutions: not in the student edition
            '<div class="handtf-online">' + "".join(f'<p class="{("handtf-page-line", "handtf-notebook")[n]}">{line}</p>'
                                                    for n, line in enumerate(lines)) + "</div>", "html.parser"))
    return section


SIDES = re.compile(r"^(Left|左)\s*[:：]")  # "Left: ... Right: ...": a figure of two panels


def first_sentence(text):
    """A figure's caption from its alt text (which stays the image's): its first sentence, cut
    only where a sentence ends, never at a colon ("Left: the spread ..." is not "Left."), and
    both sentences of a two-panel figure's "Left: ... Right: ...".

    >>> first_sentence("Left: the spread grows. Right: the weight nears 1")
    'Left: the spread grows. Right: the weight nears 1.'
    >>> first_sentence("The data flow of aabaa: each step. More detail here.")
    'The data flow of aabaa: each step.'
    >>> first_sentence("左：标准差增长。右：权重趋近 1")
    '左：标准差增长。右：权重趋近 1。'
    """
    text = " ".join(text.split())
    ends = [match.end() for match in re.finditer(r"(?<=\.)\s+(?=[A-Z(])|(?<=。)", text)]
    cut = (ends[1] if len(ends) > 1 else len(text)) if SIDES.match(text) else ends[0] if ends else len(text)
    sentence = text[:cut].strip()
    return sentence if sentence.endswith((".", "。")) else sentence + ("。" if re.search(r"[\u4e00-\u9fff]", sentence) else ".")


def number_chapter(section, number, language, in_part, labels):
    """Number a chapter's title, sections, figures and exercises (``labels`` gets
    {id: the label a cross-reference prints}); demote its headings one level when it
    sits in a part, so that the bookmarks nest (Chromium's outline follows aria-level)."""
    words = WORDS[language]
    soup = BeautifulSoup("", "html.parser")
    labels[section["id"]] = words["chapter"].format(n=number)
    current = labels[section["id"]]
    sections = figures = exercises = 0
    in_exercises = False
    for element in section.find_all(True):
        if decomposed(element):
            continue
        if element.name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            level = int(element.name[1])
            if in_part:
                element["aria-level"] = str(min(level + 1, 6))
                element["role"] = "heading"
            if level == 1:
                tag = soup.new_tag("span", attrs={"class": "handtf-num"})
                tag.string = str(number)
                element.insert(0, tag)
                tag.insert_after(" ")
                if element.get("id"):
                    labels[element["id"]] = labels[section["id"]]
            elif level == 2:
                sections += 1
                text = element.get_text(" ", strip=True)
                in_exercises = text in EXERCISES_TITLES
                tag = soup.new_tag("span", attrs={"class": "handtf-num"})
                tag.string = f"{number}.{sections}"
                element.insert(0, tag)
                tag.insert_after(" ")
                current = words["section"].format(n=f"{number}.{sections}")
            if element.get("id") and element["id"] not in labels:
                labels[element["id"]] = current
            continue
        if (element.name == "p" and element.find("img", src=re.compile(re.escape(FIGURE_SOURCE)), recursive=True)
                and not "".join(t for t in element.find_all(string=True) if not t.find_parent(class_="handtf-journey__spot")).strip()
                or element.name == "div" and "handtf-plot" in element.get("class", []) and element.find("img") is not None) \
                and element.find_parent("figure") is None:  # a figure, or a notebook's plot
            image = element.find("img")
            figures += 1
            figure = soup.new_tag("figure", attrs={"class": "handtf-figure", "id": f"{section['id']}--figure-{figures}"})
            element.wrap(figure)
            caption = soup.new_tag("figcaption")
            label = soup.new_tag("span", attrs={"class": "handtf-label"})
            label.string = words["figure"].format(n=f"{number}.{figures}")
            caption.append(label)
            caption.append(" ")
            pattern, replacement = PAGE_WORDS[language]
            caption.append(pattern.sub(replacement, first_sentence(image.get("alt", ""))))
            figure.append(caption)
            labels[figure["id"]] = words["figure"].format(n=f"{number}.{figures}")
            cite_figure(figure, labels[figure["id"]], words)
            continue
        if in_exercises and element.name == "p" and element.parent is not None and element.find_parent("details") is None:
            strong = element.find("strong")
            if strong is not None and element.contents and element.contents[0] is strong:
                match = re.match(r"\s*(\d+)\.\s*", strong.get_text())
                if match:
                    exercises += 1
                    text = strong.get_text()[match.end():]
                    strong.clear()
                    label = soup.new_tag("span", attrs={"class": "handtf-label"})
                    label.string = words["exercise"].format(n=f"{number}.{exercises}")
                    strong.append(label)
                    strong.append(" " + text)
                    element["id"] = element.get("id") or f"{section['id']}--exercise-{exercises}"
                    element["class"] = [*element.get("class", []), "handtf-exercise"]
                    labels[element["id"]] = words["exercise"].format(n=f"{number}.{exercises}")
                    continue
        if element.get("id") and element["id"] not in labels:
            labels[element["id"]] = current


def glossary_terms(glossary, language):
    """The glossary's terms, [(the term as the index prints it, [the words searched for]), ...]:
    its tables' first column ("source / target sequence": both; "(``<bos>``)": left out), the
    Chinese book's with their English after them."""
    terms = []
    for row in glossary.select("table tbody tr"):
        cells = row.find_all("td")
        if len(cells) < 2:
            continue
        first, second = (re.sub(r"\s*[(（].*?[)）]", "", cell.get_text(" ", strip=True)).strip() for cell in cells[:2])
        names = [name.strip() for name in re.split(r"\s*/\s*", first) if len(name.strip()) > 1]
        if names:
            terms.append((f"{first}（{second}）" if language == "zh" and second != first else first, names, second if language == "zh" else first))
    return terms


def glossary_index(sections, language, most=6):
    """The index of the glossary's terms: [(term, [anchor of its first mention in each chapter,
    at most ``most``]), ...], sorted by the English term; each anchor is put into the text."""
    glossary = next((section for section in sections if section["id"] == "glossary"), None)
    if glossary is None:
        return []
    soup = BeautifulSoup("", "html.parser")
    texts = {section["id"]: [text for text in section.descendants if isinstance(text, NavigableString) and text.strip()
                             and not text.find_parent(["pre", "code", "h1", "h2", "h3", "h4", "a", "figcaption", "script", "style", "table"])
                             and not text.find_parent(class_=("handtf-online", "arithmatex", "handtf-xref", "handtf-figref"))]
             for section in sections if section is not glossary}
    import bisect

    joined = {}  # each chapter's texts joined, and where each starts: a term is searched once a chapter
    for chapter_id, nodes in texts.items():
        starts, position = [], 0
        for text in nodes:
            starts.append(position)
            position += len(text) + 1
        joined[chapter_id] = ("\n".join(str(text) for text in nodes), starts)
    entries = []
    for number, (term, names, key) in enumerate(glossary_terms(glossary, language)):
        pattern = re.compile("|".join(re.escape(name) if language == "zh" else rf"\b{re.escape(name)}\b" for name in names),
                             0 if language == "zh" else re.IGNORECASE)
        anchors = []
        for chapter_id, nodes in texts.items():
            whole, starts = joined[chapter_id]
            match = pattern.search(whole)
            if match is None:
                continue
            position = bisect.bisect_right(starts, match.start()) - 1
            text, offset = nodes[position], match.start() - starts[position]
            if text.parent is None or offset >= len(text):
                continue
            anchor = f"index-{number}-{len(anchors)}"
            mark = soup.new_tag("span", attrs={"class": "handtf-index-mark", "id": anchor})
            head, tail = NavigableString(text[:offset]), NavigableString(text[offset:])
            text.replace_with(head)
            head.insert_after(tail)
            head.insert_after(mark)
            nodes[position] = tail  # the joined text is unchanged: the tail starts where the match does
            starts[position] += offset
            nodes.insert(position, head)
            starts.insert(position, starts[position] - offset)
            anchors.append(anchor)
            if len(anchors) >= most:
                break
        if anchors:
            entries.append((key.lower(), term, anchors))
    return [(term, anchors) for _, term, anchors in sorted(entries)]


def cite_figure(figure, label, words):
    """Name a figure by its number in the text: after the paragraph that leads to it ("... reads
    columns a and b (Figure 9.1):"), the nearest one before it past at most two code blocks or
    lists; a line of its own if there is none. The label does not break ("Figure\u00a09.1"): a
    citation never ends one line, or one page, and starts the next."""
    soup = BeautifulSoup("", "html.parser")
    label = label.replace(" ", "\u00a0")
    before = figure.find_previous_sibling()
    for _ in range(2):
        if before is None or before.name == "p" or before.name in ("h1", "h2", "h3", "h4", "figure"):
            break
        before = before.find_previous_sibling()
    if before is None or before.name != "p" or before.find("img") is not None:
        line = soup.new_tag("p", attrs={"class": "handtf-figref"})
        line.string = words["figure_alone"].format(label=label)
        figure.insert_before(line)
        return
    mark = soup.new_tag("span", attrs={"class": "handtf-figref"})
    mark.string = words["figure_ref"].format(label=label)
    last = before.contents[-1] if before.contents else None
    if isinstance(last, NavigableString) and last.rstrip().endswith((":", "：")):
        text = last.rstrip()
        last.replace_with(text[:-1])
        before.append(mark)
        before.append(text[-1])
    else:
        before.append(mark)


def add_cross_references(section, labels, language):
    """After each link inside the book, its target's number and page (a placeholder
    that ``FILL_PAGE_NUMBERS`` fills once the pages are known)."""
    words = WORDS[language]
    soup = BeautifulSoup("", "html.parser")
    for link in tags(section, lambda tag: tag.name == "a" and (tag.get("href") or "").startswith("#")):
        target = link["href"][1:]
        if target not in labels or link.find_parent(["pre", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption"]) \
                or link.find_parent(class_=("handtf-journey", "doc-signature", "handtf-online")) \
                or link.find_parent("code") or link.find("img"):
            continue
        page = f'<span class="handtf-page" data-target="{html.escape(target)}">000</span>'
        text = words["xref"].format(label=labels[target], page=page)
        link.insert_after(BeautifulSoup(f'<span class="handtf-xref">{"" if language == "zh" else " "}{text}</span>', "html.parser"))


def cite_references(sections, language):
    """The references the chapters cite, in order of first citation, as (reference, [chapter numbers]);
    each chapter's first mention of a reference is followed by its number in brackets."""
    cited = {}
    for number, section in sections:
        for reference in REFERENCES:
            cue = re.compile(reference["cue"])
            for text in strings(section, cue):
                if text.find_parent(["pre", "code", "h1", "h2", "h3", "h4", "a", "figcaption", "script", "style"]) \
                        or text.find_parent(class_=("handtf-online", "arithmatex")):
                    continue
                cited.setdefault(reference["key"], (reference, []))[1].append(number)
                index = list(cited).index(reference["key"]) + 1
                match = cue.search(text)
                end = match.end()
                while end < len(text) and (text[end] in "\"”」》）)" or (text[end].isascii() and text[end].isalnum()) or text[end] in "-–"):
                    end += 1  # the mark goes after the word ("GPT-2-style") or the closing quote
                mark = BeautifulSoup(f'<a class="handtf-cite" href="#ref-{reference["key"]}">[{index}]</a>', "html.parser")
                head, tail = NavigableString(text[:end]), NavigableString(text[end:])
                text.replace_with(head)
                head.insert_after(tail)
                head.insert_after(mark)
                break
    return list(cited.values())


def in_english(section):
    """True for a chapter of the Chinese book whose text is mostly English (the API reference's docstrings)."""
    text = re.sub(r"\s+", "", section.get_text())
    return bool(text) and len(re.findall(r"[\u4e00-\u9fff]", text)) / len(text) < 0.05


def toc_entries(chapter_section, language):
    """The chapter's title and its numbered second-level headings, as (id, text), but
    "Summary" and "Exercises", which every chapter has."""
    headings = chapter_section.find_all(["h1", "h2"])
    title = headings[0] if headings and headings[0].name == "h1" else None
    skip = WORDS[language]["skip_toc"]

    def text_of(heading):
        number = heading.find(class_="handtf-num")
        words = heading.get_text(" ", strip=True)
        return words.removeprefix(number.get_text()).strip() if number else words

    entries = [(h["id"], h.find(class_="handtf-num").get_text() if h.find(class_="handtf-num") else "", text_of(h))
               for h in headings[1:] if h.name == "h2" and h.get("id") and text_of(h) not in skip]
    return (text_of(title) if title else chapter_section["id"]), entries


def cff():
    import yaml

    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def published_root(home, site_url=None):
    """Where the whole site is published (``https://host/handtf/``).

    ``site_url`` (the ``--site-url`` option) or ``$HANDTF_SITE_URL`` (the deploy's),
    else the built site's canonical address, unless it is a local one, else
    CITATION.cff's ``url`` (None if it has none, or a local one)."""
    for url in (site_url, os.environ.get("HANDTF_SITE_URL")):
        if url:
            if is_local(url):
                raise SystemExit(f"build_pdf.py: the site's address must be a public http(s) one, not {url!r}")
            return url.rstrip("/") + "/"
    canonical = home.find("link", rel="canonical")
    if canonical is not None:
        root = canonical["href"]
        for folder in LANGUAGES.values():  # the home page of a translation lives in its folder
            if folder and root.endswith("/" + folder):
                root = root.removesuffix(folder)
        if not is_local(root):
            return root
    url = cff().get("url")
    return url.rstrip("/") + "/" if url and not is_local(url) else None


def edition():
    """What tells one printing from another: the version, its release date and whether the
    changelog has changes since, the day printed and the commit printed from."""
    data = citation()
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    unreleased = re.search(r"^## Unreleased\s*\n(.*?)(?=^## |\Z)", changelog, re.MULTILINE | re.DOTALL)
    stamp = os.environ.get("SOURCE_DATE_EPOCH")
    printed = (datetime.datetime.fromtimestamp(int(stamp), datetime.timezone.utc).date() if stamp
               else datetime.date.today()).isoformat()
    commit = os.environ.get("HANDTF_COMMIT") or os.environ.get("GITHUB_SHA", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                   capture_output=True, text=True, check=True).stdout.strip()
            commit += "+changes" if dirty else ""
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
    return {**data, "unreleased": bool(unreleased and re.search(r"^\s*- ", unreleased[1], re.MULTILINE)),
            "printed": printed, "commit": commit[:12] + commit[40:] if len(commit) >= 40 else commit}


def css_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def book_html(site, language, site_url=None, solutions=True, facts=None):
    """The whole book of one language as one HTML document (``solutions=False``: the student edition)."""
    return next(book_sources(site, language, site_url, (solutions,), facts))[1]


def book_sources(site, language, site_url=None, editions=(True, False), facts=None):
    """``(solutions, book_html(site, language, site_url, solutions, facts))`` for each edition
    of ``editions``, one after the other. The pages are read and made ready for paper once for
    all of them: the student edition's chapters are the full edition's less their solutions."""
    data = facts or edition()
    home, published = home_and_address(site, language, site_url, data)
    parts = nav(site, language)
    book_paths = {path for _, paths in parts for path in paths}
    # The site's own scripts but Material's (maths typesetting, say), told the page is loaded as
    # Material would tell them (document$), so the book shows what the site shows.
    scripts = "".join(
        f'<script src="{(site / LANGUAGES[language] / script["src"]).resolve().as_uri()}"></script>'
        for script in home.find_all("script", src=True)
        if not urlsplit(script["src"]).scheme and "assets/javascripts/bundle." not in script["src"]
    )
    styles = "".join(
        f'<link rel="stylesheet" href="{(site / LANGUAGES[language] / link["href"]).resolve().as_uri()}">'
        for link in home.find_all("link", rel="stylesheet")
        if not urlsplit(link["href"]).scheme
    )
    ready = [(index, part, chapter(site, path, language, book_paths, published))  # with their solutions
             for index, (part, paths) in enumerate(parts) for path in paths]
    for position, solutions in enumerate(editions):
        last = position == len(editions) - 1  # the last edition takes the chapters, the others a copy
        yield solutions, edition_html(language, solutions, data, home, published, styles, scripts,
                                      [(index, part, section if last else copy.copy(section)) for index, part, section in ready])


def home_and_address(site, language, site_url, data):
    """The language's home page, parsed, and the address where this version of the site is
    published (``https://host/handtf/1.0/``; None if nowhere: ``published_root``)."""
    home = BeautifulSoup((site / LANGUAGES[language] / "index.html").read_text(encoding="utf-8"), "html.parser")
    root = published_root(home, site_url)
    return home, f"{root}{data['series']}/" if root else None


def site_title_of(home):
    return home.select_one("nav.md-nav--primary > label.md-nav__title").get_text(" ", strip=True)


def cover(site, language, site_url=None, solutions=True, facts=None):
    """The cover of ``book_html(site, language, site_url, solutions, facts)``, without the chapters."""
    data = facts or edition()
    home, published = home_and_address(site, language, site_url, data)
    return cover_html(language, solutions, data, site_title_of(home), published)


def cover_html(language, solutions, data, site_title, published):
    """The book's first page: its title and edition, the version, the day and commit it was
    printed from, where it is read online and how to cite it."""
    words = WORDS[language]
    url = f"{published}{LANGUAGES[language]}" if published else ""
    colon = "：" if language == "zh" else ": "
    where = f'<p>{words["online"]}{colon}<a href="{url}">{url}</a></p>' if url else f'<p class="handtf-local">{words["local"]}</p>'
    licence = words["licence"] + (("" if language == "zh" else " ") + words["notebooks"] if url and solutions else "")
    cite = words["cite_text"].format(
        authors=html.escape(data["authors"]), year=data["year"], title=html.escape(site_title), version=data["version"],
        url=f'<a href="{url}">{url}</a>' if url else "",
    ).rstrip()
    bibtex = (
        f"@misc{{handtf-{data['series']}-{language},\n  author   = {{{{{data['authors']}}}}},\n"
        f"  title    = {{{site_title}}},\n  year     = {{{data['year']}}},\n  version  = {{{data['version']}}},\n"
        f"  language = {{{'chinese' if language == 'zh' else 'english'}}},\n" + (f"  url      = {{{url}}},\n" if url else "") + "}"
    )
    version = words["unreleased" if data["unreleased"] else "version"].format(version=data["version"], date=data["released"])
    return f"""
<section class="handtf-cover" id="cover">
  <h1 role="none">{html.escape(site_title)}</h1>
  {"" if solutions else f'<p class="edition-title"><strong>{words["student_title"]}</strong></p>'}
  <p class="subtitle">{html.escape(words["subtitle"])}</p>
  <p class="version">{version}</p>
  <p class="printed">{words["printed"].format(date=data["printed"], commit=html.escape(data["commit"]))}</p>
  {where}
  {"" if solutions else f'<p class="edition">{words["student"]}</p>'}
  <h2 role="none">{words["cite"]}</h2>
  <p>{cite}</p>
  <pre><code>{html.escape(bibtex)}</code></pre>
  <p>{licence}</p>
</section>"""


def edition_html(language, solutions, data, home, published, styles, scripts, ready):
    """One edition of ``book_sources``, of its ``ready`` chapters: [(part index, part title, chapter), ...]."""
    words = WORDS[language]

    def page_number(anchor):
        return f'<span class="dots"></span><span class="page handtf-page" data-target="{anchor}">000</span>'

    chapters, labels = [], {}  # (part index, part title, number, section)
    for number, (index, part, section) in enumerate(ready, start=1):
        if not solutions:
            open_blocks(section, solutions)
            for line in section.select(".handtf-online > p.handtf-notebook"):
                line.decompose()  # its "Exercises" cells hold the solutions
        number_chapter(section, number, language, bool(part), labels)
        chapters.append((index, part, number, section))
    for *_, section in chapters:
        add_cross_references(section, labels, language)
    cited = cite_references([(n, section) for _, _, n, section in chapters], language)
    index_entries = glossary_index([section for *_, section in chapters], language)  # before the chapters are written out

    body, toc, pages_css, open_part = [], [], [], None
    for index, part, number, section in chapters:
        if part != open_part:
            if open_part:
                toc.append("</ol></li>")
            if part:
                part_id = f"part-{index}"
                body.append(f'<section class="handtf-part" id="{part_id}"><h1>{html.escape(part)}</h1></section>')
                toc.append(f'<li class="part"><a href="#{part_id}"><span class="title">{html.escape(part)}</span>'
                           f"{page_number(part_id)}</a><ol>")
            open_part = part
        title, entries = toc_entries(section, language)
        if language == "zh" and in_english(section):
            title += words["in_english"]  # the API reference: its docstrings are English
        section["style"] = f"page: chapter-{number}"
        pages_css.append(f"@page chapter-{number} {{ @top-left {{ content: {css_string(f'{number}   {title}')}; "
                         "font: 9pt/1 \"Liberation Sans\", \"LXGW WenKai\"; color: #555; } }")
        body.append(str(section))
        subs = "".join(
            f'<li><a href="#{anchor}"><span class="title"><span class="handtf-num">{num}</span> {html.escape(text)}</span>'
            f"{page_number(anchor)}</a></li>"
            for anchor, num, text in entries
        )
        toc.append(f'<li><a href="#{section["id"]}"><span class="title"><span class="handtf-num">{number}</span> '
                   f'{html.escape(title)}</span>{page_number(section["id"])}</a><ol class="sections">{subs}</ol></li>')
    if open_part:
        toc.append("</ol></li>")
    if cited:
        items = "".join(
            f'<li id="ref-{reference["key"]}">{html.escape(reference["text"])} '
            f'<a class="handtf-url" href="{reference["url"]}">{html.escape(reference["url"])}</a>. '
            f'{words["cited_in" if len(set(numbers)) == 1 else "cited_in_many"].format(chapters=", ".join(str(n) for n in sorted(set(numbers))))}</li>'
            for reference, numbers in cited
        )
        body.append(f'<section class="handtf-chapter handtf-references" id="references" style="page: references">'
                    f'<h1>{words["references"]}</h1><ol>{items}</ol></section>')
        pages_css.append(f"@page references {{ @top-left {{ content: {css_string(words['references'])}; "
                         "font: 9pt/1 \"Liberation Sans\", \"LXGW WenKai\"; color: #555; } }")
        toc.append(f'<li class="part"><a href="#references"><span class="title">{words["references"]}</span>'
                   f'{page_number("references")}</a></li>')
    if index_entries:
        items = "".join(
            f'<li><span class="term">{html.escape(term)}</span> '
            + ", ".join(f'<a href="#{anchor}"><span class="handtf-page" data-target="{anchor}">000</span></a>' for anchor in anchors)
            + "</li>" for term, anchors in index_entries)
        body.append(f'<section class="handtf-chapter handtf-index" id="index" style="page: index">'
                    f'<h1>{words["index"]}</h1><ul>{items}</ul></section>')
        pages_css.append(f"@page index {{ @top-left {{ content: {css_string(words['index'])}; "
                         "font: 9pt/1 \"Liberation Sans\", \"LXGW WenKai\"; color: #555; } }")
        toc.append(f'<li class="part"><a href="#index"><span class="title">{words["index"]}</span>'
                   f'{page_number("index")}</a></li>')

    site_title = site_title_of(home)
    title = site_title if solutions else f"{site_title} — {words['student_title']}"
    contents = (f'<section class="handtf-toc" id="contents" style="page: contents"><h1>{words["contents"]}</h1>'
                f'<ol>{"".join(toc)}</ol></section>')
    figures = [(figure["id"], figure.figcaption.find(class_="handtf-label").get_text(),
                figure.figcaption.get_text(" ", strip=True).removeprefix(figure.figcaption.find(class_="handtf-label").get_text()).strip())
               for *_, section in chapters for figure in section.select("figure.handtf-figure[id]") if figure.figcaption]
    if figures:  # after the contents, on the contents' pages (their running header)
        contents += (f'<section class="handtf-toc handtf-figures" id="figures" style="page: contents"><h1>{words["figures"]}</h1><ol>'
                     + "".join(f'<li><a href="#{anchor}"><span class="title"><span class="handtf-num">{html.escape(label)}</span> '
                               f'{html.escape(caption)}</span>{page_number(anchor)}</a></li>' for anchor, label, caption in figures)
                     + "</ol></section>")
    pages_css.append(f"@page contents {{ @top-left {{ content: {css_string(words['contents'])}; font: 9pt/1 \"Liberation Sans\", \"LXGW WenKai\"; color: #555; }} }}")
    return f"""<!doctype html>
<html lang="{language}" dir="ltr"><head><meta charset="utf-8"><title>{html.escape(title)}</title>{styles}
<style>{PRINT_CSS}{"".join(pages_css)}</style></head>
<body lang="{language}" data-md-color-scheme="default" data-md-color-primary="indigo" data-md-color-accent="indigo">
<div class="md-typeset">{cover_html(language, solutions, data, site_title, published)}{contents}{"".join(body)}</div>
<script>window.document$ = {{ subscribe(next) {{ next({{ body: document.body }}); return {{ unsubscribe() {{}} }}; }} }};</script>
{scripts}</body></html>"""


PRINT_TIMEOUT = 600_000  # ms: loading and printing a 2 MB book of 340 pages takes minutes on a loaded machine
PDF_OPTIONS = {"print_background": True, "prefer_css_page_size": True}  # size, margins, header, footer: PRINT_CSS
FILL_PAGE_NUMBERS = """numbers => {
    for (const place of document.querySelectorAll('.handtf-page[data-target]')) {
        place.textContent = numbers[place.dataset.target] ?? '?';
    }
}"""
# Each code line longer than its block's column is broken before it would wrap, with "↪" and
# a hanging indent: past the prompt and the line's own indentation. A wide (CJK) character
# counts as two columns. Run with the print media's layout, on a viewport as wide as the page's column.
WRAP_CODE = r"""() => {
    const wide = c => /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(c) ? 2 : 1;
    let marks = 0;
    for (const code of document.querySelectorAll('.md-typeset pre > code')) {
        const probe = document.createElement('span');
        probe.textContent = '0'.repeat(80);
        code.appendChild(probe);
        const charWidth = probe.getBoundingClientRect().width / 80;
        probe.remove();
        const style = getComputedStyle(code);
        const width = code.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        if (!(charWidth > 0) || !(width > 0)) continue;
        const columns = Math.floor(width / charWidth) - 3;  // a margin: the print may lay the block out a little narrower
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        const nodes = [];
        let text = '';
        while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
        const breaks = [];
        let start = 0;
        for (const line of text.split('\n')) {
            const widths = [...line].map(wide);
            const total = widths.reduce((a, b) => a + b, 0);
            if (total > columns) {
                const prompt = /^(>>> |\.\.\. )/.test(line) ? 4 : 0;
                const base = Math.min(prompt + line.slice(prompt).match(/^ */)[0].length, Math.floor(columns / 2));
                let pos = 0, avail = columns;
                const chars = [...line];
                let offset = 0;  // in UTF-16 units, as the DOM counts
                const units = chars.map(c => c.length);
                while (true) {
                    let used = 0, end = pos;
                    while (end < chars.length && used + widths[end] <= avail) { used += widths[end]; end++; }
                    if (end >= chars.length) break;
                    let cut = end;
                    for (let i = end; i > pos + Math.floor((end - pos) / 2); i--) {
                        if (' ,([{'.includes(chars[i - 1])) { cut = i; break; }
                    }
                    if (cut <= pos) cut = pos + 1;
                    const at = units.slice(0, cut).reduce((a, b) => a + b, 0);
                    breaks.push([start + at, base]);
                    pos = cut;
                    avail = columns - base - 2;
                }
            }
            start += line.length + 1;
        }
        for (const [offset, base] of breaks.reverse()) {
            let i = nodes.length - 1;
            while (i > 0 && nodes[i][1] > offset) i--;
            const [node, begin] = nodes[i];
            const after = node.splitText(offset - begin);
            const mark = document.createElement('span');
            mark.className = 'handtf-wrap';
            mark.setAttribute('aria-hidden', 'true');
            mark.textContent = '\n' + ' '.repeat(base) + '\u21aa ';
            after.parentNode.insertBefore(mark, after);
        }
        marks += breaks.length;
    }
    return marks;
}"""


TEX_LEFT = r"""[...document.querySelectorAll('.arithmatex')]
    .map(e => e.innerText.trim()).filter(t => /^\\[([]/.test(t))"""


DRAWN_IMAGES = """() => [...document.images].filter(i => {
    const box = i.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(i).visibility !== 'hidden';
}).map(i => i.currentSrc || i.src)"""


# Nothing painted, the same layout (visibility takes no room): a print that only tells on which
# page each anchor falls, in a third of the time of one that draws the text, figures and fonts.
LAYOUT_ONLY = """hide => {
    if (hide) {
        const style = document.createElement('style');
        style.id = 'handtf-layout-only';
        style.textContent = 'html, html * { visibility: hidden !important; }';
        document.head.append(style);
    } else {
        document.getElementById('handtf-layout-only').remove();
    }
}"""


def fonts_drawing(page, selector, limit=40):
    """{PostScript name of a font: glyphs} that Chromium draws the text of the first ``limit``
    elements matching ``selector`` with (DevTools' CSS.getPlatformFontsForNode): a bold face
    for bold words, or the regular face drawn bold by Chromium itself."""
    session = page.context.new_cdp_session(page)
    try:
        session.send("DOM.enable")
        session.send("CSS.enable")
        root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        fonts = {}
        for node in session.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"][:limit]:
            for font in session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
                name = font.get("postScriptName") or font["familyName"]
                fonts[name] = fonts.get(name, 0) + font["glyphCount"]
        return fonts
    finally:
        session.detach()


def print_pdf(browser, html_path, pdf_path, metadata=None, fonts=None):
    """Print the book until its page numbers hold: the first PDF, with nothing drawn
    (``LAYOUT_ONLY``), tells on which page each anchor falls, the next shows those pages in
    the contents and the cross-references (a number a digit shorter can move an anchor: then
    once more). The last is printed with bookmarks and tags, and gets ``metadata``. Returns
    the addresses of the images drawn on paper (the print media's layout)."""
    page = browser.new_page(viewport={"width": COLUMN_PX, "height": 1000})
    page.set_default_timeout(PRINT_TIMEOUT)
    try:
        page.goto(html_path.resolve().as_uri(), wait_until="load")
        missing = page.evaluate("[...document.images].filter(i => !i.complete || !i.naturalWidth).map(i => i.src)")
        if missing:
            raise SystemExit(f"build_pdf.py: images that did not load: {missing}")
        tex = page.evaluate(TEX_LEFT)
        if tex:
            raise SystemExit(f"build_pdf.py: maths left as TeX (did its script not run?): {tex[:5]}")
        page.emulate_media(media="print")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.evaluate(WRAP_CODE)
        drawn = page.evaluate(DRAWN_IMAGES)  # now: after printing, Chromium lays the page out for the screen again
        if fonts is not None:  # the faces of bold words and of the text, as printed
            fonts.update(bold=fonts_drawing(page, ".handtf-chapter p strong"), text=fonts_drawing(page, ".handtf-chapter > p"))
        page.evaluate(LAYOUT_ONLY, True)
        page.pdf(path=str(pdf_path), **PDF_OPTIONS)
        page.evaluate(LAYOUT_ONLY, False)
        numbers = anchor_pages(pdf_path)
        for _ in range(2):
            page.evaluate(FILL_PAGE_NUMBERS, numbers)
            page.pdf(path=str(pdf_path), outline=True, tagged=True, **PDF_OPTIONS)
            printed = anchor_pages(pdf_path)
            if printed == numbers:
                break
            numbers = printed
        else:
            raise SystemExit(f"build_pdf.py: {pdf_path.name}: the page numbers do not settle")
        if metadata:
            set_metadata(pdf_path, metadata)
        return drawn
    finally:
        page.close()


def set_metadata(pdf_path, metadata):
    """Write ``metadata`` ({"/Title": ..., ...}) into the PDF's information dictionary, and
    save it with its objects in compressed object streams (Chromium writes each of the tens
    of thousands of the structure tree's elements as plain text: half the file)."""
    import pikepdf

    pikepdf.settings.set_flate_compression_level(9)
    with pikepdf.open(pdf_path, allow_overwriting_input=True) as pdf:
        for key, value in metadata.items():
            pdf.docinfo[key] = value
        subset_whole_fonts(pdf)
        pdf.save(pdf_path, object_stream_mode=pikepdf.ObjectStreamMode.generate, compress_streams=True, recompress_flate=True)


SHOWN = re.compile(rb"/([^\s/<>\[\]()]+)\s+[-\d.]+\s+Tf|<([0-9A-Fa-f]*)>\s*Tj")  # a font chosen, or glyphs shown


def glyphs_shown(pdf):
    """{(object, generation) of a font: the glyph ids the pages and their forms draw with it}.
    Chromium shows text only as ``<hex> Tj`` in two-byte glyph ids (tests/pdf_books.py checks)."""
    shown, seen = {}, set()

    def read(resources, content):
        fonts = {str(name).lstrip("/"): font for name, font in resources.get("/Font", {}).items()}
        font = None
        for name, ids in SHOWN.findall(content):
            if name:
                font = fonts.get(name.decode())
            elif font is not None:
                shown.setdefault(font.objgen, set()).update(int(ids[i : i + 4], 16) for i in range(0, len(ids), 4))
        for form in resources.get("/XObject", {}).values():
            if form.get("/Subtype") == "/Form" and form.objgen not in seen:
                seen.add(form.objgen)
                read(form.get("/Resources", {}), form.read_bytes())

    for page in pdf.pages:
        read(page.obj.get("/Resources", {}), b"\n".join(c.read_bytes() for c in page.obj.Contents.wrap_in_array()) if "/Contents" in page.obj else b"")
    return shown


def subset_whole_fonts(pdf):
    """Keep only the glyphs drawn of a font Chromium embedded whole. Its subsetter (HarfBuzz's)
    gives up on the face most of the Chinese book is set in, and the 15 MB file would go in whole.
    The glyphs keep their ids (fontTools' ``retain_gids``), so the text and its widths are unchanged."""
    import io

    import pikepdf
    from fontTools import subset
    from fontTools.ttLib import TTFont

    shown = None
    for font in pdf.objects:
        if not isinstance(font, pikepdf.Dictionary) or font.get("/Subtype") != "/Type0" or font.get("/Encoding") != "/Identity-H":
            continue
        descendant = font.DescendantFonts[0]
        file = descendant.get("/FontDescriptor", {}).get("/FontFile2")
        if file is None or descendant.get("/CIDToGIDMap") != "/Identity" or len(file.read_raw_bytes()) < 2**20:
            continue
        face = TTFont(io.BytesIO(file.read_bytes()))
        shown = glyphs_shown(pdf) if shown is None else shown
        gids = shown.get(font.objgen, set())
        if len(gids) * 2 > face["maxp"].numGlyphs:
            continue  # most of it is drawn: nothing to gain
        options = subset.Options(retain_gids=True, notdef_outline=True, layout_features=[], name_IDs=["*"],
                                 drop_tables=["BASE", "GSUB", "GPOS", "GDEF", "vhea", "vmtx", "DSIG"])
        subsetter = subset.Subsetter(options)
        subsetter.populate(gids=sorted(gids | {0}))
        subsetter.subset(face)
        out = io.BytesIO()
        face.save(out)
        file.write(out.getvalue())
        file.Length1 = len(out.getvalue())  # the font's own length, which a TrueType font file states


def anchor_pages(pdf_path):
    """{named destination: 1-based page} of a PDF that Chromium printed."""
    from pypdf import PdfReader

    reader = PdfReader(pdf_path)
    pages = {page.indirect_reference.idnum: number for number, page in enumerate(reader.pages, start=1)}
    found = {}
    for name, destination in reader.named_destinations.items():
        page = destination.page
        idnum = page.idnum if hasattr(page, "idnum") else page.indirect_reference.idnum
        found[unquote(name.lstrip("/"))] = pages.get(idnum)
    return found


def metadata_of(site, language, solutions, facts):
    """The PDF's title, author, subject and keywords: the edition, version, print date and commit."""
    site_title = site_title_of(BeautifulSoup((site / LANGUAGES[language] / "index.html").read_text(encoding="utf-8"), "html.parser"))
    words = WORDS[language]
    return {
        "/Title": site_title if solutions else f"{site_title} — {words['student_title']}",
        "/Author": facts["authors"],
        "/Subject": words["subject_full" if solutions else "subject_student"],
        "/Keywords": f"handtf; version {facts['version']}" + (" with unreleased changes" if facts["unreleased"] else "")
        + f"; printed {facts['printed']}; commit {facts['commit']}; {'full' if solutions else 'student'} edition; {language}",
    }


def print_language(site, out, language, editions=(True,), site_url=None, facts=None, browser=None):
    """Print the ``editions`` of one language's book into ``out`` (True: the full edition,
    ``handtf-LANGUAGE.pdf``; False: the student edition, ``handtf-LANGUAGE-student.pdf``), from
    one reading of its pages (``book_sources``), with ``browser`` or a Chromium launched here.
    Returns [(path, [address of each image drawn on paper], {"bold": {font: glyphs}, "text":
    {...}} (``fonts_drawing``)), ...], in the order of ``editions``."""
    if browser is None:
        with _chromium() as launched:
            return print_language(site, out, language, editions, site_url, facts, launched)
    out, facts, printed = Path(out), facts or edition(), []
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for solutions, book in book_sources(site, language, site_url, editions, facts):
            name = f"handtf-{language}" + ("" if solutions else "-student")
            source, pdf = Path(scratch) / f"{name}.html", out / f"{name}.pdf"
            source.write_text(book, encoding="utf-8")
            used = {}
            images = print_pdf(browser, source, pdf, metadata_of(site, language, solutions, facts), used)
            printed.append((pdf, images, used))
    return printed


def build(site, out, browser=None, languages=tuple(LANGUAGES), site_url=None, solutions=True, drawn=None, fonts=None):
    """Print ``handtf-LANGUAGE.pdf`` for each language into ``out`` (with ``browser``, a Playwright
    Chromium, one language after the other; else each language in a process of its own, with a
    Chromium of its own, as many at once as there are cores); returns {language: path}.
    ``solutions=False`` prints the student edition, ``handtf-LANGUAGE-student.pdf``;
    a dict ``drawn`` gets {path: [address of each image drawn on paper]}, a dict ``fonts``
    {path: {"bold": {font: glyphs}, "text": {...}}} (``fonts_drawing``)."""
    facts = edition()
    if browser is not None or len(languages) < 2:
        printed = [print_language(site, out, language, (solutions,), site_url, facts, browser) for language in languages]
    else:
        with in_processes(len(languages)) as pool:
            printed = list(pool.map(print_language, *zip(*[(site, out, language, (solutions,), site_url, facts) for language in languages])))
    written = {}
    for language, [(pdf, images, used)] in zip(languages, printed, strict=True):
        if fonts is not None:
            fonts[pdf] = used
        if drawn is not None:
            drawn[pdf] = images
        written[language] = pdf
    return written


def in_processes(jobs):
    """A pool of ``jobs`` processes, at most one a core: printing a book keeps about one core
    busy (Python waits while Chromium lays it out), so on two cores two print in little more
    than the time of one."""
    import concurrent.futures
    import multiprocessing

    return concurrent.futures.ProcessPoolExecutor(min(jobs, os.cpu_count() or 1), mp_context=multiprocessing.get_context("spawn"))


@contextlib.contextmanager
def _chromium(extra_font_dirs=()):
    """Debian's Chromium, with only the book's fonts (``font_config``; and ``extra_font_dirs``)."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if not executable:
        raise SystemExit("build_pdf.py: no Chromium found (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="handtf-fonts-") as fonts, sync_playwright() as playwright:
        env = {**os.environ, "FONTCONFIG_FILE": str(font_config(fonts, extra_font_dirs))}
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"], env=env)
        try:
            yield browser
        finally:
            browser.close()


def build_site(folder):
    """``mkdocs build --strict`` into ``folder``."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT, capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"build_pdf.py: mkdocs build --strict failed:\n{result.stdout}{result.stderr}")
    return Path(folder)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="folder for handtf-en.pdf and handtf-zh.pdf")
    parser.add_argument("--site", type=Path, help="an already built site (default: build it now)")
    parser.add_argument("--site-url", help="where the site is published, named on the cover "
                        "(default: $HANDTF_SITE_URL, else the built site's address unless it is a local one, "
                        "else CITATION.cff's url)")
    parser.add_argument("--no-solutions", action="store_true",
                        help="the student edition, handtf-LANGUAGE-student.pdf: exercises and hints, no solutions")
    args = parser.parse_args(argv)
    if args.site_url and is_local(args.site_url):
        parser.error(f"--site-url must be a public http(s) address, not {args.site_url!r}")
    with tempfile.TemporaryDirectory() as scratch:
        site = args.site or build_site(Path(scratch) / "site")
        for language, pdf in build(site, args.out, site_url=args.site_url, solutions=not args.no_solutions).items():
            print(f"{language}: {pdf} ({pdf.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
