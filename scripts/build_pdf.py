"""Build the site as one PDF per language: ``python scripts/build_pdf.py --out DIR``.

Writes ``DIR/handtf-en.pdf`` and ``DIR/handtf-zh.pdf``. Each is the built site's
pages in the order of the navigation (read from the built home page, so a page
added to ``mkdocs.yml`` is in the PDF without a change here), after a cover
(title, version, how to cite, from ``CITATION.cff`` and ``handtf.__version__``)
and a table of contents with page numbers. Links between pages become links
inside the PDF; links to files (the notebooks) point at the published site.
Headless Chromium (Debian's, driven by Playwright, as the browser tests) prints
it: MathML, SVG figures and code as on the site, Chinese in the system's CJK font.

On paper every figure is printed once, in the light scheme, and every collapsed
block (hints, solutions, "going deeper" notes) is printed open. ``--no-solutions``
prints the student edition instead (``handtf-en-student.pdf``): each exercise
keeps its text and hint, its solution is left out and the cover says so.

The cover names where the book is read online: ``--site-url`` (the deploy
passes the published address), else ``$HANDTF_SITE_URL``, else the built site's
own address if it is not a local one. Built without a published address, the
cover says where the project lives instead (CITATION.cff's ``repository-code``
or ``url``), or that this copy comes from a local build; it never names a local
server.

``--site SITE`` prints an already built site instead of running ``mkdocs build``.
"""

import argparse
import contextlib
import html
import ipaddress
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hooks"))
from course import citation  # noqa: E402  (the same citation data as the site's pages)

LANGUAGES = {"en": "", "zh": "zh/"}  # language -> folder of its pages in the built site
WORDS = {
    "en": {
        "contents": "Contents",
        "version": "Version {version}, released {date}",
        "cite": "How to cite",
        "cite_text": "{authors} ({year}). <em>{title}</em>, version {version}. {url}",
        "licence": "Code: MIT licence. Text and figures: CC BY 4.0. Every example in this book is a "
        "doctest that the project's tests run; each chapter's examples are also a Jupyter notebook, "
        "linked at the end of the chapter.",
        "online": "Read online",
        "project": "The project",
        "local": "This copy was printed from a local build of the site, which is not published at an address yet.",
        "student": "Student edition: the exercises keep their hints; their solutions are left out.",
    },
    "zh": {
        "contents": "目录",
        "version": "版本 {version}，发布于 {date}",
        "cite": "如何引用",
        "cite_text": "{authors}（{year}）。《{title}》，版本 {version}。{url}",
        "licence": "代码：MIT 许可证。正文与插图：CC BY 4.0。书中每个示例都是项目测试会运行的 doctest；"
        "每章的示例也有一个 Jupyter 笔记本，链接在该章末尾。",
        "online": "在线阅读",
        "project": "项目主页",
        "local": "本书印自站点的本地构建，站点尚未发布到公开地址。",
        "student": "学生版：练习保留提示，不含解答。",
    },
}
PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm 20mm 16mm; }
html { font-size: 125%; }  /* Material sizes text in rem: 0.8rem -> 10pt on paper */
body { margin: 0; background: #fff; }
body[lang="zh"] { font-family: "WenQuanYi Micro Hei", "Noto Sans CJK SC", sans-serif; }
.md-typeset { font-size: 0.8rem; line-height: 1.6; }
.md-typeset h1 { font-size: 1.8em; margin: 0 0 0.8em; color: #111; font-weight: 400; }
.md-typeset .headerlink, .md-typeset .anchor-link, .md-typeset button { display: none; }  /* nothing to click on paper */
.md-typeset details > summary::after { display: none; }  /* every block is open on paper: no chevron to click */
.md-typeset pre > code { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }
.md-typeset pre, .md-typeset table, .md-typeset figure, .md-typeset .arithmatex { break-inside: avoid; }
.md-typeset .md-typeset__table, .md-typeset .md-typeset__scrollwrap { overflow: visible; }
.md-typeset table:not([class]) { font-size: 0.7rem; }
.md-typeset h2, .md-typeset h3 { break-after: avoid; }
.md-typeset img { max-width: 100%; }
.md-typeset div.arithmatex { overflow: visible; }
.handtf-chapter, .handtf-part, .handtf-toc { break-before: page; }
.handtf-part { padding-top: 30vh; text-align: center; }
.handtf-part h1 { font-size: 2.4em; }
.handtf-cover { text-align: left; padding-top: 18vh; }
.handtf-cover h1 { font-size: 2.6em; margin-bottom: 0.3em; }
.handtf-cover .subtitle { font-size: 1.2em; color: #444; }
.handtf-cover .version { margin: 2em 0; font-size: 1.1em; }
.handtf-cover pre { font-size: 0.85em; }
.md-typeset .handtf-toc ol { list-style: none; padding-left: 0; margin: 0; }
.md-typeset .handtf-toc ol ol { padding-left: 1.6em; }
.md-typeset .handtf-toc li { margin: 0.15em 0; list-style: none; }
.md-typeset .handtf-toc .part { margin-top: 0.8em; }
.handtf-toc .part > a { font-weight: 700; }
.handtf-toc a { display: flex; color: inherit; text-decoration: none; }
.handtf-toc a .title { flex: 0 1 auto; }
.handtf-toc a .dots { flex: 1 0 2em; border-bottom: 1px dotted #999; margin: 0 0.4em 0.35em; }
.handtf-toc a .page { min-width: 2em; text-align: right; }
.handtf-toc ol ol a { font-size: 0.92em; color: #333; }
"""
FOOTER = (
    '<div style="font-size:8px;width:100%;text-align:center;color:#666">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


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


def is_dark_variant(image):
    """A figure's dark-scheme image: ``NAME.dark.svg#only-dark`` (or a <source> for the dark scheme)."""
    if image.name == "source":
        return "prefers-color-scheme: dark" in image.get("media", "").replace("  ", " ")
    source = image.get("src", "")
    return source.endswith("#only-dark") or urlsplit(source).path.endswith(".dark.svg")


def for_paper(article, solutions=True):
    """What differs on paper: each figure once (light), every collapsed block open,
    and in the student edition no solutions. Returns the number of solutions left out."""
    for image in article.find_all(["img", "source"]):
        if is_dark_variant(image) or "handtf-phone" in image.get("class", []):  # the phone variant: the same figure, narrow
            parent = image.parent
            image.decompose()
            if parent.name == "a" and not parent.get_text(strip=True) and not parent.find(["img", "svg"]):
                parent.decompose()  # a link that only opened the dark figure full size
    left_out = 0
    for block in article.find_all("details"):
        summary = block.find("summary", recursive=False)
        if not solutions and "success" in block.get("class", []) and summary and summary.get_text(strip=True) in SOLUTION_TITLES:
            block.decompose()
            left_out += 1
        else:
            block["open"] = ""
    return left_out


def chapter(site, path, language, book_paths, published, solutions=True):
    """A page's article, its ids prefixed by its key and its links pointing inside the book
    (or, for files, to the published site; without one, a file's link is left as its text)."""
    key = key_of(path, language)
    soup = BeautifulSoup((site / path / "index.html").read_text(encoding="utf-8"), "html.parser")
    article = soup.select_one("article.md-content__inner")
    for element in article.select(".handtf-course, .md-source-file, a.headerlink, a.anchor-link, a.md-content__button"):
        element.decompose()
    for_paper(article, solutions)
    for element in article.find_all(id=True):
        element["id"] = f"{key}--{element['id']}"
    for element in article.find_all(attrs={"for": True}):  # tabbed blocks' labels
        element["for"] = f"{key}--{element['for']}"
    base = f"http://site/{path}"
    for link in article.find_all("a", href=True):
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
            link["href"] = f"{published}{target_path}" + (f"#{fragment}" if fragment else "")
            link.attrs.pop("download", None)
        else:
            link.unwrap()  # nowhere to point: a local server's address would be wrong on paper
    for image in article.find_all("img", src=True):
        if urlsplit(image["src"]).scheme:
            continue  # data: (a notebook's plot) or another host
        image["src"] = (site / urlsplit(urljoin(base, image["src"])).path.lstrip("/")).resolve().as_uri()
        image.attrs.pop("loading", None)
    section = soup.new_tag("section", attrs={"class": "handtf-chapter", "id": key})
    section.extend(list(article.contents))  # moved, not copied: the page's soup is dropped
    return section


def toc_entries(chapter_section):
    """The chapter's title and its second-level headings, as (id, text)."""
    headings = chapter_section.find_all(["h1", "h2"])
    title = headings[0] if headings and headings[0].name == "h1" else None
    entries = [(h["id"], h.get_text(" ", strip=True)) for h in headings[1:] if h.name == "h2" and h.get("id")]
    return (title.get_text(" ", strip=True) if title else chapter_section["id"]), entries


def is_local(url):
    """True for an address only this machine can open: a loopback or unspecified host, a file."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return True
    if parts.hostname == "localhost" or parts.hostname.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(parts.hostname)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified or address.is_private or address.is_link_local


def published_root(home, site_url=None):
    """Where the whole site is published (``https://host/handtf/``), or None if nowhere known.

    ``site_url`` (the ``--site-url`` option) or ``$HANDTF_SITE_URL`` (the deploy's),
    else the built site's canonical address, unless it is a local one."""
    for url in (site_url, os.environ.get("HANDTF_SITE_URL")):
        if url:
            if is_local(url):
                raise SystemExit(f"build_pdf.py: the site's address must be a public http(s) one, not {url!r}")
            return url.rstrip("/") + "/"
    canonical = home.find("link", rel="canonical")
    if canonical is None:
        return None
    root = canonical["href"]
    for folder in LANGUAGES.values():  # the home page of a translation lives in its folder
        if folder and root.endswith("/" + folder):
            root = root.removesuffix(folder)
    return None if is_local(root) else root


def project_home():
    """Where the project lives, from CITATION.cff (``repository-code`` or ``url``), or None."""
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    return cff.get("repository-code") or cff.get("url")


def book_html(site, language, site_url=None, solutions=True):
    """The whole book of one language as one HTML document (``solutions=False``: the student edition)."""
    words, data = WORDS[language], citation()
    home_html = (site / LANGUAGES[language] / "index.html").read_text(encoding="utf-8")
    home = BeautifulSoup(home_html, "html.parser")
    root = published_root(home, site_url)
    published = f"{root}{data['series']}/" if root else None
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
    number = '<span class="dots"></span><span class="page"></span>'  # filled in by print_pdf

    body, toc = [], []
    for index, (part, paths) in enumerate(parts):
        if part:
            part_id = f"part-{index}"
            body.append(f'<section class="handtf-part" id="{part_id}"><h1>{html.escape(part)}</h1></section>')
            toc.append(f'<li class="part"><a href="#{part_id}"><span class="title">{html.escape(part)}</span>'
                       f"{number}</a><ol>")
        for path in paths:
            section = chapter(site, path, language, book_paths, published, solutions)
            title, entries = toc_entries(section)
            body.append(str(section))
            subs = "".join(
                f'<li><a href="#{anchor}"><span class="title">{html.escape(text)}</span>{number}</a></li>'
                for anchor, text in entries
            )
            toc.append(f'<li><a href="#{section["id"]}"><span class="title">{html.escape(title)}</span>'
                       f'{number}</a><ol>{subs}</ol></li>')
        if part:
            toc.append("</ol></li>")

    title = home.select_one("nav.md-nav--primary > label.md-nav__title").get_text(" ", strip=True)
    if published:
        url = f"{published}{LANGUAGES[language]}"
        where = f'<p>{words["online"]}: <a href="{url}">{url}</a></p>'
    else:
        url = project_home() or ""
        where = f'<p>{words["project"]}: <a href="{url}">{url}</a></p>' if url else f"<p>{words['local']}</p>"
    cite = words["cite_text"].format(
        authors=html.escape(data["authors"]), year=data["year"], title=html.escape(title), version=data["version"],
        url=f'<a href="{url}">{url}</a>' if url else "",
    ).rstrip()
    bibtex = (
        f"@misc{{handtf-{data['series']}-{language},\n  author   = {{{{{data['authors']}}}}},\n"
        f"  title    = {{{title}}},\n  year     = {{{data['year']}}},\n  version  = {{{data['version']}}},\n"
        f"  language = {{{'chinese' if language == 'zh' else 'english'}}},\n" + (f"  url      = {{{url}}},\n" if url else "") + "}"
    )
    description = home.find("meta", attrs={"name": "description"})
    cover = f"""
<section class="handtf-cover" id="cover">
  <h1>{html.escape(title)}</h1>
  <p class="subtitle">{html.escape(description["content"]) if description and language == "en" else ""}</p>
  <p class="version">{words["version"].format(version=data["version"], date=data["released"])}</p>
  {where}
  {"" if solutions else f'<p class="edition"><strong>{words["student"]}</strong></p>'}
  <h2>{words["cite"]}</h2>
  <p>{cite}</p>
  <pre><code>{html.escape(bibtex)}</code></pre>
  <p>{words["licence"]}</p>
</section>"""
    contents = f'<section class="handtf-toc" id="contents"><h1>{words["contents"]}</h1><ol>{"".join(toc)}</ol></section>'
    return f"""<!doctype html>
<html lang="{language}" dir="ltr"><head><meta charset="utf-8"><title>{html.escape(title)}</title>{styles}
<style>{PRINT_CSS}</style></head>
<body lang="{language}" data-md-color-scheme="default" data-md-color-primary="indigo" data-md-color-accent="indigo">
<div class="md-typeset">{cover}{contents}{"".join(body)}</div>
<script>window.document$ = {{ subscribe(next) {{ next({{ body: document.body }}); return {{ unsubscribe() {{}} }}; }} }};</script>
{scripts}</body></html>"""


PRINT_TIMEOUT = 600_000  # ms: loading and printing a 2 MB book of 340 pages takes minutes on a loaded machine
PDF_OPTIONS = {
    "format": "A4",
    "print_background": True,
    "display_header_footer": True,
    "header_template": "<span></span>",
    "footer_template": FOOTER,
    "margin": {"top": "18mm", "bottom": "20mm", "left": "16mm", "right": "16mm"},
}
LAYOUT_OPTIONS = {key: value for key, value in PDF_OPTIONS.items()  # the first print: pages, no footer
                  if key not in ("display_header_footer", "header_template", "footer_template")}
FILL_PAGE_NUMBERS = """numbers => {
    for (const link of document.querySelectorAll('.handtf-toc a')) {
        const number = numbers[decodeURIComponent(link.hash.slice(1))];
        if (number) link.querySelector('.page').textContent = number;
    }
}"""


TEX_LEFT = r"""[...document.querySelectorAll('.arithmatex')]
    .map(e => e.innerText.trim()).filter(t => /^\\[([]/.test(t))"""


DRAWN_IMAGES = """() => [...document.images].filter(i => {
    const box = i.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(i).visibility !== 'hidden';
}).map(i => i.currentSrc || i.src)"""


def print_pdf(browser, html_path, pdf_path):
    """Print the book twice: the first PDF tells on which page each chapter and section starts,
    the second shows those numbers in the table of contents, with bookmarks and tags.
    Returns the addresses of the images drawn on paper (the print media's layout)."""
    page = browser.new_page()
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
        # The first print only tells where each anchor falls: the same page size and margins, so the
        # same pages, without the footer, which Chromium lays out anew for every page (a third of the time).
        page.pdf(path=str(pdf_path), **LAYOUT_OPTIONS)
        page.evaluate(FILL_PAGE_NUMBERS, anchor_pages(pdf_path))
        page.pdf(path=str(pdf_path), outline=True, tagged=True, **PDF_OPTIONS)
        return page.evaluate(DRAWN_IMAGES)
    finally:
        page.close()


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


def build(site, out, browser=None, languages=tuple(LANGUAGES), site_url=None, solutions=True, drawn=None):
    """Print ``handtf-LANGUAGE.pdf`` for each language into ``out`` (with ``browser``, a Playwright
    Chromium, or Debian's Chromium launched here); returns {language: path}.
    ``solutions=False`` prints the student edition, ``handtf-LANGUAGE-student.pdf``;
    a dict ``drawn`` gets {path: [address of each image drawn on paper]}."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if browser is None:
        with _chromium() as launched:
            return build(site, out, launched, languages, site_url, solutions, drawn)
    written = {}
    with tempfile.TemporaryDirectory() as scratch:
        for language in languages:
            name = f"handtf-{language}" + ("" if solutions else "-student")
            source, pdf = Path(scratch) / f"{name}.html", out / f"{name}.pdf"
            source.write_text(book_html(site, language, site_url, solutions), encoding="utf-8")
            images = print_pdf(browser, source, pdf)
            if drawn is not None:
                drawn[pdf] = images
            written[language] = pdf
    return written


@contextlib.contextmanager
def _chromium():
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if not executable:
        raise SystemExit("build_pdf.py: no Chromium found (apt-get install chromium fonts-wqy-microhei)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
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
                        "(default: $HANDTF_SITE_URL, else the built site's address unless it is a local one)")
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
