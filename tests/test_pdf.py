"""The PDFs of scripts/build_pdf.py, printed once per test session from the session's built site
(by tests/pdf_books.py, in a process of its own).

The chapters expected are the pages in docs/ (all of them in the nav,
tests/test_site.py checks), so a page added later must be in the PDF too.
"""

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest

import handtf
from pages import DOCS, LANGUAGES, ROOT, pages
from pdf_books import page_glyph_zero, page_texts

MAX_BYTES = 8 * 2**20  # the figures are vectors, the fonts subsets and the objects compressed (issue 39)
CJK = re.compile(r"[\u4e00-\u9fff]")


def print_books(site, folder):
    """Print the PDFs of ``site`` into ``folder``, with each page's text beside each."""
    printed = subprocess.run([sys.executable, str(ROOT / "tests" / "pdf_books.py"), str(site), str(folder)], cwd=ROOT,
                             capture_output=True, text=True)
    assert printed.returncode == 0, f"tests/pdf_books.py failed:\n{printed.stdout}{printed.stderr}"
    return folder


def need_pdftotext():
    """Poppler's pdftotext reads the books; skip without it, except under CI, where its absence is a failure."""
    if not shutil.which("pdftotext"):
        if os.environ.get("CI"):
            pytest.fail("CI is set but pdftotext was not found: .ci/run installs poppler-utils with apt-get", pytrace=False)
        pytest.skip("no pdftotext on this machine (apt-get install poppler-utils); the PDF tests read the books with it")


@pytest.fixture(scope="session")
def pdfs(built_site, tmp_path_factory):
    from pypdf import PdfReader

    need_pdftotext()
    # HANDTF_PDF_DIR=DIR: read the books that `python tests/pdf_books.py SITE DIR` printed there, from the same site
    folder = Path(os.environ["HANDTF_PDF_DIR"]) if os.environ.get("HANDTF_PDF_DIR") else print_books(built_site, tmp_path_factory.mktemp("pdfs"))
    assert sorted(p.name for p in folder.glob("*.pdf")) == sorted(f"handtf-{language}{edition}.pdf" for language in LANGUAGES for edition in ("", "-student"))
    return {language: (path, PdfReader(path)) for language in LANGUAGES for path in [folder / f"handtf-{language}.pdf"]}


@pytest.fixture(scope="session")
def student_read_back(pdfs):
    """The student edition's pages as tests/pdf_books.py read them, in each language."""
    folder = next(iter(pdfs.values()))[0].parent
    return {language: json.loads((folder / f"handtf-{language}-student.json").read_text(encoding="utf-8")) for language in LANGUAGES}


@pytest.fixture(scope="session")
def student_texts(student_read_back):
    """The student edition's text, page by page, in each language."""
    return {language: [page["text"] for page in pages] for language, pages in student_read_back.items()}


CONTENTS = {"en": "Contents", "zh": "目录"}  # the running header of the contents and the list of figures


def body_text(pages, language):
    """A book's text from its first chapter on: without the contents and the list of figures."""
    return "\n".join(page["text"] for page in pages if page["header"] != CONTENTS[language] and not page["text"].lstrip().startswith(CONTENTS[language]))


@pytest.fixture(scope="session")
def read_back(pdfs):
    """Each PDF's pages as tests/pdf_books.py read them when it printed them: ``{"text", "glyph_zero"}``."""
    return {language: json.loads(path.with_suffix(".json").read_text(encoding="utf-8")) for language, (path, _) in pdfs.items()}


@pytest.fixture(scope="session")
def texts(read_back):
    """Each PDF's text, page by page."""
    return {language: [page["text"] for page in pages] for language, pages in read_back.items()}


def squeeze(text):
    """Text without any white space: extraction puts spaces and breaks where the layout had them."""
    return re.sub(r"\s+", "", text)


def chapter_titles(built_site, language):
    """The first heading of every page of a language, read from the built site."""
    from test_course import built_html  # the same page-to-file rule as the citation tests

    titles = {}
    for page in pages(language):
        html_text = built_html(built_site, page).read_text(encoding="utf-8")
        article = html_text[html_text.index('<article class="md-content__inner') :]
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", article, re.DOTALL)[1]
        heading = re.sub(r'<a class="(?:headerlink|anchor-link)".*?</a>', "", heading)
        titles[page] = unescape(re.sub(r"<[^>]+>", "", heading)).strip()
    return titles


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_chapter_is_in_its_languages_pdf(pdfs, texts, built_site, language):
    whole = squeeze("".join(texts[language]))
    for page, title in chapter_titles(built_site, language).items():
        assert squeeze(title) in whole, f"{page.relative_to(DOCS)}: {title!r} is not in handtf-{language}.pdf"
    cjk_share = len(CJK.findall(whole)) / len(whole)
    assert (cjk_share > 0.1) if language == "zh" else (cjk_share < 0.02), cjk_share  # code is ASCII in both


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_chapter_starts_a_page_and_is_a_bookmark(pdfs, texts, built_site, language):
    _, reader = pdfs[language]
    titles = chapter_titles(built_site, language)
    # a cover, a table of contents, then every chapter on a page of its own
    assert len(reader.pages) >= len(titles) + 2
    assert len(reader.pages) <= 40 * len(titles), "far more pages than the site holds"

    def flatten(outline):
        for item in outline:
            yield from flatten(item) if isinstance(item, list) else [item.title]

    bookmarks = {squeeze(title) for title in flatten(reader.outline)}  # "5 The attention head": its number first
    missing = [title for title in titles.values() if not any(re.match(rf"\d+{re.escape(squeeze(title))}", b) for b in bookmarks)]
    assert not missing, f"no bookmark for {missing}"


def test_both_languages_have_about_as_many_pages(pdfs):
    en, zh = (len(pdfs[language][1].pages) for language in LANGUAGES)
    assert 0.75 < zh / en < 1.33, (en, zh)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cover_has_title_version_and_citation(pdfs, texts, language):
    cover = texts[language][0]
    assert handtf.__version__ in cover
    assert {"en": "How to cite", "zh": "如何引用"}[language] in cover
    assert "@misc{handtf-" in squeeze(cover) and f"version={{{handtf.__version__}}}" in squeeze(cover)
    assert "handtf" in cover and "Transformer" in cover.title()


def chapter_key(page):
    """``concepts/qkv.zh.md`` -> ``concepts-qkv``: the id the book gives a chapter."""
    relative = str(page.relative_to(DOCS))
    for suffix in (".zh.md", ".zh.ipynb", ".md", ".ipynb"):
        relative = relative.removesuffix(suffix)
    return "home" if relative == "index" else relative.removesuffix("/index").replace("/", "-")


@pytest.mark.parametrize("language", LANGUAGES)
def test_links_lead_to_their_chapter_and_the_contents_give_its_page(pdfs, texts, built_site, language):
    _, reader = pdfs[language]
    number_of = {page.indirect_reference.idnum: n for n, page in enumerate(reader.pages, start=1)}
    destinations = {name.lstrip("/"): number_of[dest.page.idnum] for name, dest in reader.named_destinations.items()}
    links = [
        annotation.get_object()["/Dest"]
        for page in reader.pages
        for annotation in page.get("/Annots", [])
        if annotation.get_object().get("/Subtype") == "/Link" and "/Dest" in annotation.get_object()
    ]
    assert len(links) > 100, len(links)
    assert not [d for d in links if d.lstrip("/") not in destinations], "links to no destination"
    first_chapter = min(destinations[chapter_key(page)] for page in pages(language))
    contents = squeeze("".join(texts[language][1 : first_chapter - 1]))
    for page, title in chapter_titles(built_site, language).items():
        number = destinations[chapter_key(page)]
        assert squeeze(title) in squeeze(texts[language][number - 1]), f"{title!r} is not on page {number}"
        assert re.search(rf"{re.escape(squeeze(title))}(（英文）)?{number}", contents), f"the contents do not give page {number} for {title!r}"


def noto_cjk_installed():
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    return "Noto Serif CJK SC" in listed


def fonts_of(reader):
    """{font name: embedded?} over every page."""
    fonts = {}
    for page in reader.pages:
        for reference in page["/Resources"].get_object().get("/Font", {}).values():
            font = reference.get_object()
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant.get("/FontDescriptor")
            embedded = font.get("/Subtype") == "/Type3" or (
                descriptor is not None and bool({"/FontFile", "/FontFile2", "/FontFile3"} & set(descriptor.get_object()))
            )
            name = "Type3" if font.get("/Subtype") == "/Type3" else str(font.get("/BaseFont", font.get("/Name"))).split("+")[-1]
            fonts[name if name != "Type3" else f"Type3-{reference.idnum}"] = embedded
    return fonts


def test_a_missing_glyph_is_counted_as_glyph_zero(browser, tmp_path):
    """What the next test relies on: Chromium draws a character no font has as glyph 0, and
    ``page_glyph_zero`` counts each, in the page's text and in a figure's. (Adlam letters: in
    none of the fonts CI installs.)"""
    from pypdf import PdfReader

    need_pdftotext()
    figure = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text y="30">ok \U0001E902\U0001E903\U0001E904</text></svg>'
    page = browser.new_page()
    try:
        page.set_content(f'<p>ok 注意力 \U0001E900\U0001E901</p><img src="data:image/svg+xml,{quote(figure)}">')
        page.pdf(path=str(tmp_path / "missing.pdf"))
        page.set_content("<p>ok 注意力</p>")
        page.pdf(path=str(tmp_path / "drawn.pdf"))
    finally:
        page.close()
    counts = [page_glyph_zero(PdfReader(tmp_path / name).pages[0]) for name in ("missing.pdf", "drawn.pdf")]
    assert counts == [5, 0], counts
    assert "注意力" in page_texts(tmp_path / "drawn.pdf")[0]


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_missing_glyphs_and_every_font_embedded(pdfs, read_back, language):
    bad = [n for n, page in enumerate(read_back[language], start=1) if page["glyph_zero"] or "\ufffd" in page["text"]]
    assert not bad, f"pages with a character no font could draw: {bad}"
    fonts = fonts_of(pdfs[language][1])
    assert all(fonts.values()), f"fonts not embedded: {[name for name, ok in fonts.items() if not ok]}"
    if language == "zh" and not noto_cjk_installed():
        if os.environ.get("CI"):
            pytest.fail("CI is set but Noto CJK was not found: .ci/run installs fonts-noto-cjk with apt-get", pytrace=False)
        pytest.skip("Noto CJK is not installed (apt-get install fonts-noto-cjk): the Chinese book falls back to a font without bold")
    # Bold words are drawn in bold faces: Chromium draws a bold the font lacks by thickening its regular face.
    # (Skia embeds Noto CJK, a CFF font, as Type 3 fonts, whose names the PDF does not keep: asked of the browser.)
    used = json.loads(pdfs[language][0].with_suffix(".fonts.json").read_text(encoding="utf-8"))
    assert used["bold"] and used["text"], used
    faked = {name: glyphs for name, glyphs in used["bold"].items() if not re.search(r"Bold|Black|Heavy", name)}
    assert not faked, f"bold words drawn in a regular face (synthesized bold): {faked}"
    if language == "zh":
        assert any("WenKai" in name and "Bold" in name for name in used["bold"]), used["bold"]
        assert any("WenKai" in name for name in used["text"]), used["text"]
    else:
        assert any("LiberationSerif" in name for name in used["text"]), used["text"]


# The PostScript names of the faces the books may use: build_pdf.PRINT_FONTS and the site's KaTeX fonts.
NAMED_FACES = re.compile(r"(LiberationSerif|LiberationSans|DejaVuSansMono|DejaVuSans|LXGWWenKai|LXGWWenKaiMono|KaTeX_[A-Za-z0-9]+)(-[A-Za-z]+)?")


def pdf_fonts(path):
    """{font name without its subset tag: how many} of a PDF, read by poppler's pdffonts."""
    listed = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout.splitlines()[2:]
    names = {}
    for line in listed:
        name = "Type3" if " Type 3 " in line else line.split()[0].split("+")[-1]
        names[name] = names.get(name, 0) + 1
    return names


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_type3_fonts_and_only_the_named_faces(pdfs, language):
    """Chromium turns a CFF font (Noto CJK) into Type 3 fonts, which print shops flag: every face
    is a named TrueType one (build_pdf.PRINT_FONTS, KaTeX's), in both editions, whatever else the machine has."""
    path = pdfs[language][0]
    for book in (path, path.with_name(f"handtf-{language}-student.pdf")):
        fonts = pdf_fonts(book)
        assert "Type3" not in fonts, f"{book.name}: {fonts['Type3']} Type 3 fonts"
        assert all(NAMED_FACES.fullmatch(name) for name in fonts), f"{book.name}: faces not named for print: {sorted(fonts)}"
        assert book.stat().st_size < MAX_BYTES, (book.name, book.stat().st_size)


def test_the_same_book_prints_with_other_fonts_present(tmp_path):
    """What the machine's other fonts cannot change: a page set with every kind of text the books
    hold (tests/pdf_books.py's ``SAMPLE``), printed by Chromium given only the book's fonts and
    given also every font of this machine (Noto CJK, WenQuanYi, DejaVu's extra faces, ...), prints
    the same text in the same faces, in both languages. (In a process of its own: Playwright's
    synchronous API runs one browser driver a process, and the session's browser has it.)"""
    need_pdftotext()
    printed = subprocess.run([sys.executable, str(ROOT / "tests" / "pdf_books.py"), "--sample", str(tmp_path)], cwd=ROOT,
                             capture_output=True, text=True)
    assert printed.returncode == 0, printed.stdout + printed.stderr
    books = {}
    for name in ("named", "extra"):
        books[name] = {language: (pdf_fonts(tmp_path / f"{name}-{language}.pdf"), page_texts(tmp_path / f"{name}-{language}.pdf"))
                       for language in LANGUAGES}
    assert books["named"] == books["extra"], books
    for fonts, text in books["named"].values():
        assert "Type3" not in fonts and all(NAMED_FACES.fullmatch(name) for name in fonts), fonts
        assert "注意力" in text[0] and "softmax" in text[0]


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_empty_brackets_where_a_reading_time_was(texts, student_texts, language):
    """A reading time is not printed, nor the brackets that held it: "the soft lookup ()" or "(+)"."""
    empty = re.compile(r"(?:(?<=\s)|^|(?<=[\u4e00-\u9fff]))[(（]\+?[)）](?!\))", re.MULTILINE)
    for edition in (texts, student_texts):
        found = [(n, page[max(0, m.start() - 30) : m.end()]) for n, page in enumerate(edition[language], start=1) for m in empty.finditer(page)]
        assert not found, found[:5]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pdf_is_of_a_sensible_size(pdfs, language):
    path, _ = pdfs[language]
    assert 200 * 1024 < path.stat().st_size < MAX_BYTES, path.stat().st_size


def test_maths_and_code_are_text_not_tex(texts):
    whole = "".join(texts["en"])
    assert "softmax" in whole and ">>> " in whole
    assert not re.search(r"\\(frac|sqrt|mathrm)\b|\$\$", whole), "raw TeX in the PDF"


# --- What paper must show: each figure once, every block open, the solutions (or not) ---

FOOTER = re.compile(r"^\s*\d+\s*/\s*\d+\s*$", re.MULTILINE)  # "N / M" footers of older books (pages now print their number alone, read apart by pdf_books.margins)
SOLUTION = {"en": "Solution", "zh": "解答"}
HINT = {"en": "Hint", "zh": "提示"}


def flat(text):
    """Text with no white space, soft hyphen, zero-width space or code continuation mark, and
    with "this page" read as the book prints it: how it is compared across layouts and media."""
    text = re.sub(r"\[\d\]", "", text.replace("本页", "本章"))  # a citation's number: only in the book
    return re.sub(r"[\s\u200b\u00ad↪]+", "", re.sub(r"\b([Tt]his) page\b", r"\1 chapter", text))


def book_text(page_texts):
    """A book's text for comparing with the site's: without page numbers and cross-references' labels."""
    text = FOOTER.sub("", "\n".join(page_texts))
    return flat(re.sub("|".join(XREF.values()), "", text))


@functools.cache
def articles(built_site, language):
    """Each page's article in the built site, parsed, maths left out (the book shows it typeset).
    Parsed once a session and read by several tests: none may change it."""
    from test_course import built_html

    build_pdf, found = build_pdf_module(), {}
    left_out = ("arithmatex", "headerlink", "anchor-link", "handtf-course", "md-source-file")
    for page in pages(language):
        _, article = build_pdf.page_article(built_html(built_site, page).read_text(encoding="utf-8"))
        for element in build_pdf.tags(article, lambda tag: build_pdf.has_class(tag, left_out)):
            element.decompose()
        found[page] = article
    return found


def blocks(article, kind, title):
    return [d for d in article.find_all("details", class_=kind) if d.find("summary") and d.find("summary").get_text(strip=True) == title]


def solution_only_lines(built_site, language):
    """The lines of the exercises' solutions that nothing else on the site says (12 characters or more)."""
    solutions, rest = [], []
    for article in articles(built_site, language).values():
        text = article.get_text("\n")
        for block in blocks(article, "success", SOLUTION[language]):
            whole, title = block.get_text("\n"), block.find("summary").get_text("\n")
            solutions += [flat(line) for line in whole.replace(title, "", 1).splitlines() if len(flat(line)) >= 12]
            text = text.replace(whole, "\n", 1)  # a block's text is a run of its article's, joined alike
        rest.append(flat(text))
    rest = "".join(rest)
    return sorted({line for line in solutions if line not in rest})


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_solution_is_printed_open_and_none_in_the_student_edition(texts, student_texts, built_site, language):
    lines = solution_only_lines(built_site, language)
    assert len(lines) > 50, f"only {len(lines)} lines found in the solutions: is the Solution block still {SOLUTION[language]!r}?"
    book, student = book_text(texts[language]), book_text(student_texts[language])
    missing = [line for line in lines if line not in book]
    assert not missing, f"{len(missing)} of {len(lines)} solution lines are not in handtf-{language}.pdf, e.g. {missing[:3]}"
    printed = [line for line in lines if line in student]
    assert not printed, f"the student edition prints {len(printed)} solution lines, e.g. {printed[:3]}"


SOLUTIONS_ASSUMED = {"en": r"\b(?:each|every) solution\b|\bthe solutions? (?:below|above)\b|\bsee (?:the|its) solution\b",
                     "zh": r"每个解答|解答都|下面的解答|见解答"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_student_edition_assumes_no_printed_solutions(student_texts, language):
    """The student edition has no solutions: no sentence of it points at one ("each solution runs
    the same experiment"), and no chapter links to its notebook, whose cells hold them."""
    whole = re.sub(r"\s+", " ", "\n".join(student_texts[language]))
    found = [whole[max(0, m.start() - 60) : m.end() + 30] for m in re.finditer(SOLUTIONS_ASSUMED[language], whole)]
    assert not found, found[:5]
    assert NOTEBOOK[language] not in whole


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_hint_is_printed_in_both_editions(texts, student_texts, built_site, language):
    hints = [flat(block.get_text("\n")).removeprefix(flat(HINT[language]))  # the body: the title is printed apart
             for article in articles(built_site, language).values() for block in blocks(article, "tip", HINT[language])]
    hints = [hint for hint in hints if len(hint) >= 12]
    assert len(hints) > 30, len(hints)
    for edition in (texts, student_texts):
        whole = book_text(edition[language])
        missing = [hint for hint in hints if hint not in whole]
        assert not missing, f"{len(missing)} of {len(hints)} hints are not printed, e.g. {missing[:2]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_figure_is_printed_once_in_the_light_scheme(pdfs, built_site, language):
    path = pdfs[language][0]
    drawn = [src for src in json.loads(path.with_suffix(".images.json").read_text(encoding="utf-8")) if "/assets/figures/" in src]
    assert not [src for src in drawn if ".dark." in src], "a dark-scheme figure is drawn on paper"
    on_the_site = [img["src"].split("#")[0].rsplit("/", 1)[-1]
                   for article in articles(built_site, language).values() for img in article.find_all("img", src=True)
                   if "assets/figures/" in img["src"] and ".dark." not in img["src"] and ".phone." not in img["src"]]
    assert sorted(src.rsplit("/", 1)[-1] for src in drawn) == sorted(on_the_site)


LOCAL_BUILD = {"en": "Printed from a local build", "zh": "本书印自网站的本地构建"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cover_names_no_local_address(texts, student_texts, language):
    """The session's site is built without a published address (a clone's CITATION.cff has no
    ``url``; the deploy writes it): the books say they come from a local build and name no
    address, neither a local server's nor a placeholder, anywhere."""
    assert "url" not in build_pdf_module().cff(), "CITATION.cff names an address: the deploy writes it"
    for edition in (texts, student_texts):
        cover, whole = edition[language][0], "\n".join(edition[language])
        assert not re.search(r"127\.0\.0\.1|localhost|file:/", cover), cover
        assert flat(LOCAL_BUILD[language]) in flat(cover), cover
        assert "OWNER" not in whole and "github.io" not in whole, "a placeholder address is printed"
    assert flat({"en": "Student edition", "zh": "学生版"}[language]) in flat(student_texts[language][0])
    assert flat({"en": "Student edition", "zh": "学生版"}[language]) not in flat(texts[language][0])


def test_the_cover_names_the_published_address(built_site):
    build_pdf = build_pdf_module()
    cover = build_pdf.cover(built_site, "zh", site_url="https://example.org/handtf/")  # the book's cover, without its chapters
    assert f'href="https://example.org/handtf/{handtf.__version__.rsplit(".", 1)[0]}/zh/"' in cover
    assert "127.0.0.1" not in cover and "localhost" not in cover  # (the home page may name `mkdocs serve`'s address)
    for local in ("http://127.0.0.1:8000/handtf/", "http://localhost/handtf/", "file:///tmp/site/", "http://[::1]/", "http://10.0.0.2/"):
        assert build_pdf.is_local(local), local
        with pytest.raises(SystemExit, match="public"):
            build_pdf.book_html(built_site, "en", site_url=local)
    assert not build_pdf.is_local("https://handtf.example.org/")


# --- A book, not web pages on paper (issue 39) ---

def build_pdf_module():
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_pdf

    return build_pdf


# What only the screen can do. Each phrase is what a page said on the site when the books
# printed it unchanged; none may print, in either edition.
SCREEN_ONLY = {
    "en": ["click", "collapsed", "Using the keyboard", "Open in the playground", "Live:", "Drag it", "this page", "This page",
           "opens its step", "(this page included)", "each link opens", "Type a context", "runs in this page",
           "--8<--"],
    "zh": ["点击", "点数字", "折叠", "用键盘操作", "在实验场中打开", "实时演示：", "往小拖", "本页",
           "每个链接都会以对应的状态打开", "就在这个页面里运行", "--8<--"],
}


# Words that speak of a screen, which no sentence of a book may use: the pages write a print
# form of each sentence that does (CONTRIBUTING, "Words for the screen and for paper").
SCREEN_WORDS = {
    "en": r"\b(?:click\w*|tap|taps|drag\w*|scroll\w*|hover\w*|watch\w*|browser|phone|this site|top of the page|home page"
          r"|on (?:a|the) screen|slider|type (?:a|an|any|another|two)\b)",
    "zh": r"点击|点一下|拖动|往小拖|滚动|浏览器|手机|本站|页面顶部|首页|屏幕|一屏|滑块|输入任意|输入两个",
}
# What may print all the same, and why.
SCREEN_WORDS_ALLOWED = {
    "en": [
        r"browser's console has it too",  # the playground chapter is about the model's JavaScript port, which runs in a browser
        r"fits a phone's column",  # a comment in the playground notebook's code, which is printed as it is
        # related work: other projects that are browser tools, described as they are
        r"runs a GPT-2 model in the browser: type a text and watch", r"explain them live in the browser",
    ],
    "zh": [
        r"浏览器的控制台里也能调用它",  # as above
        r"手机屏幕上也放得下",
        r"在浏览器里运行一个GPT-2模型", r"在浏览器里实时讲解权重",  # related work, as above
    ],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_sentence_speaks_of_the_screen(texts, student_texts, language):
    for edition in (texts, student_texts):
        whole = re.sub(r"\s+", "" if language == "zh" else " ", "\n".join(edition[language]))  # a line break is no space in Chinese
        for allowed in SCREEN_WORDS_ALLOWED[language]:
            whole = re.sub(allowed, "", whole)
        found = [whole[max(0, m.start() - 50) : m.end() + 30] for m in re.finditer(SCREEN_WORDS[language], whole)]
        assert not found, f"handtf-{language}: {len(found)} screen words on paper: {found[:8]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_screen_only_words_are_printed(texts, student_texts, language):
    for edition in (texts, student_texts):
        whole = "\n".join(edition[language])
        printed = {phrase: whole.count(phrase) for phrase in SCREEN_ONLY[language] if phrase in whole}
        assert not printed, f"handtf-{language}: screen-only words on paper: {printed}"
        minutes = re.findall(r"·\s*\d+\s*(?:min|分钟)", whole)
        assert not minutes, f"handtf-{language}: a collapsed note's reading time on paper: {minutes[:3]}"


def chapter_starts(pdfs, language):
    """[(page where a chapter starts, its key)] in the book's order: chapter N is the N-th."""
    _, reader = pdfs[language]
    number_of = {page.indirect_reference.idnum: n for n, page in enumerate(reader.pages, start=1)}
    destinations = {name.lstrip("/"): number_of[dest.page.idnum] for name, dest in reader.named_destinations.items()}
    return sorted((destinations[chapter_key(page)], chapter_key(page)) for page in pages(language))


@pytest.mark.parametrize("language", LANGUAGES)
def test_chapters_have_numbers_running_headers_and_page_numbers(pdfs, read_back, built_site, language):
    titles = {chapter_key(page): title for page, title in chapter_titles(built_site, language).items()}
    starts = chapter_starts(pdfs, language)
    pages_read = read_back[language]
    for number, (start, key) in enumerate(starts, start=1):
        end = starts[number][0] if number < len(starts) else len(pages_read) + 1
        assert squeeze(f"{number} {titles[key]}") in squeeze(pages_read[start - 1]["text"]), (number, titles[key])
        for page in range(start, end):
            if pages_read[page - 1]["folio"] is None:
                continue  # the title page of the next part: no header, no number
            header = pages_read[page - 1]["header"] or ""
            if squeeze(header) in {squeeze({"en": "References", "zh": "参考文献"}[language]), squeeze({"en": "Index", "zh": "索引"}[language])}:
                break  # the references and the index follow the last chapter
            assert squeeze(header).removesuffix("（英文）") == squeeze(f"{number} {titles[key]}"), f"page {page}: header {header!r}"
    numbered = [n for n, page in enumerate(pages_read, start=1) if page["folio"] == n]
    assert len(numbered) >= len(pages_read) - 12, "every page but the cover and the parts' title pages shows its number"


FIGURE = {"en": r"Figure (\d+)\.(\d+)", "zh": r"图 ?(\d+)\.(\d+)"}
EXERCISE = {"en": r"Exercise (\d+)\.(\d+)", "zh": r"练习 ?(\d+)\.(\d+)"}


def numbered(pattern, text):
    """{chapter: [numbers]} of every label ``pattern`` finds at the start of a line."""
    found = {}
    for chapter_number, number in re.findall(rf"^\s*{pattern}", text, re.MULTILINE):
        found.setdefault(int(chapter_number), []).append(int(number))
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_figures_and_exercises_are_numbered_per_chapter(read_back, student_read_back, built_site, language):
    exercises_on_site = 0
    for article in articles(built_site, language).values():
        in_exercises = False
        for element in article.find_all(["h2", "p"]):
            if element.name == "h2":
                in_exercises = element.get_text(strip=True) in {"Exercises", "练习"}
            elif in_exercises and element.find_parent("details") is None and element.contents \
                    and element.contents[0].name == "strong" and re.match(r"\s*\d+\.", element.contents[0].get_text()):
                exercises_on_site += 1
    figures_on_site = sum(1 for article in articles(built_site, language).values() for img in article.find_all("img", src=True)
                          if "assets/figures/" in img["src"] and ".dark." not in img["src"] and ".phone." not in img["src"]
                          or img.find_parent(class_="handtf-plot") is not None)  # a notebook's plot is a figure too
    for edition in (read_back, student_read_back):
        whole = body_text(edition[language], language)
        figures, exercises = numbered(FIGURE[language], whole), numbered(EXERCISE[language], whole)
        assert sum(len(v) for v in figures.values()) == figures_on_site, "each figure has a numbered caption"
        assert sum(len(v) for v in exercises.values()) == exercises_on_site > 50, "each exercise is numbered in its chapter"
        for kind in (figures, exercises):
            for chapter_number, numbers in kind.items():
                assert sorted(set(numbers)) == list(range(1, max(numbers) + 1)), (chapter_number, numbers)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_figure_is_captioned_in_its_own_words_cited_and_listed(read_back, language):
    """A caption is the figure's own words, never cut at a colon ("Left."); every figure is named
    by its number in the text besides its caption, and listed, with its page, after the contents."""
    pages = read_back[language]
    whole = body_text(pages, language)
    front = "\n".join(page["text"] for page in pages if page["header"] == CONTENTS[language] or page["text"].lstrip().startswith(CONTENTS[language]))
    heading = {"en": "List of figures", "zh": "插图目录"}[language]
    assert heading in front, "no list of figures after the contents"
    captions = re.findall(rf"^\s*{FIGURE[language]}\s*(.{{0,12}})", whole, re.MULTILINE)
    assert len(captions) > 50, len(captions)
    cut = [caption for caption in captions if re.fullmatch(r"(Left|Right|左|右)[.。]?\s*", caption[2])]
    assert not cut, f"captions cut at a colon: {cut}"
    flat_whole = squeeze(whole)
    for chapter_number, number, _ in captions:
        label = squeeze({"en": "Figure {}.{}", "zh": "图{}.{}"}[language].format(chapter_number, number))
        assert re.search(rf"[(（](?:见下方)?{re.escape(label)}(?!\d)", flat_whole), f"{label} is not cited in the text"
        word = {"en": "Figure", "zh": "图"}[language]
        assert re.search(rf"{word}\s*{chapter_number}\.{number}(?![\d])", front), f"{label} is not in the list of figures"


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_index_of_the_glossarys_terms_ends_the_book(read_back, built_site, language):
    """The book ends with an index: each glossary term found in the chapters, with its pages."""
    heading = {"en": "Index", "zh": "索引"}[language]
    index = "\n".join(page["text"] for page in read_back[language] if page["header"] == heading or page["text"].lstrip().startswith(heading))
    entries = re.findall(r"^(\S.*?)\s+(\d+(?:,\s*\d+)*)\s*$", index, re.MULTILINE)
    glossary = articles(built_site, language)[next(key for key in articles(built_site, language) if "glossary" in str(key))]
    terms = len(glossary.select("table tbody tr"))
    assert len(entries) > terms / 2, (len(entries), terms, index[:500])
    last_page = len(read_back[language])
    assert all(0 < int(number) <= last_page for _, numbers in entries for number in re.findall(r"\d+", numbers))


def test_the_chinese_books_english_chapters_are_marked_in_its_contents(read_back):
    """The API reference is its docstrings, in English: the Chinese contents say so."""
    contents = "\n".join(page["text"] for page in read_back["zh"] if page["header"] == CONTENTS["zh"] or page["text"].lstrip().startswith(CONTENTS["zh"]))
    assert contents.count("（英文）") >= 1, contents[-800:]
    english = "\n".join(page["text"] for page in read_back["en"] if page["header"] == CONTENTS["en"])
    assert "英文" not in english


XREF = {"en": r"\((Chapter\s+\d+|§\d+\.\d+|Figure\s+\d+\.\d+|Exercise\s+\d+\.\d+),\s+p\.\s(\d+|\?)\)",
        "zh": r"（(第\s*\d+\s*章|§\d+\.\d+|图\s*\d+\.\d+|练习\s*\d+\.\d+)，第\s*(\d+|\?)\s*页）"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_cross_references_give_the_targets_number_and_page(read_back, language):
    """Each link inside the book is followed by its target's label and page: the page is
    in the target's chapter (its running header), after the heading of the target's section,
    and shows the figure's or exercise's label (or the next page does, for a caption below its figure)."""
    printed = read_back[language]
    pages_text = [page["text"] for page in printed]
    found = [(label, page) for text in pages_text for label, page in re.findall(XREF[language], text.replace("\n", " "))]
    assert len(found) > 150, len(found)
    assert not [f for f in found if f[1] == "?"], "a cross-reference to no page"
    wrong = []
    for label, page in found:
        page = int(page)
        number = re.search(r"\d+(\.\d+)?", label)[0]
        chapter = number.split(".")[0]
        if not re.match(rf"{chapter}(?!\d)", squeeze(printed[page - 1]["header"] or "")):
            wrong.append((label, page, printed[page - 1]["header"]))
        elif label.startswith("§") and not any(re.search(rf"^\s*{re.escape(number)}\s", text, re.MULTILINE) for text in pages_text[:page]):
            wrong.append((label, page, "before its section"))
        elif not label.startswith(("§", "Chapter", "第")) and squeeze(label) not in squeeze("".join(pages_text[page - 1 : page + 1])):
            wrong.append((label, page, "not on the page"))
    assert not wrong, f"{len(wrong)} of {len(found)} cross-references name a page without their target, e.g. {wrong[:5]}"
    assert not re.search(r"p\.\s000\b|第\s000\s页", "".join(pages_text)), "a page number left as its placeholder"


@pytest.mark.parametrize("language", LANGUAGES)
def test_contents_have_two_levels_and_bookmarks_nest(pdfs, texts, built_site, language):
    _, reader = pdfs[language]
    first_chapter = chapter_starts(pdfs, language)[0][0]
    figures = {"en": "List of figures", "zh": "插图目录"}[language]  # the list of figures follows the contents
    last = next((n for n, text in enumerate(texts[language][1:first_chapter], start=1) if text.lstrip().startswith(figures)), first_chapter - 1)
    contents = "\n".join(texts[language][1:last])
    summary, exercises = {"en": ("Summary", "Exercises"), "zh": ("小结", "练习")}[language]
    assert not re.search(rf"\d\.\d+\s*({summary}|{exercises})", contents), "every chapter's Summary and Exercises in the contents"
    assert re.search(r"(^|\s)5\.1\s", contents), "the sections, numbered"
    assert last - 1 <= 5, f"the contents take {last - 1} pages"

    def depth_of(outline, depth=0):
        for item in outline:
            yield from depth_of(item, depth + 1) if isinstance(item, list) else [(item.title, depth)]

    depths = {squeeze(title): depth for title, depth in depth_of(reader.outline)}
    titles = chapter_titles(built_site, language)
    nested = [title for title in titles.values() if any(depth == 1 for t, depth in depths.items() if re.match(rf"\d+{re.escape(squeeze(title))}", t))]
    assert len(nested) >= len(titles) - 2, "the chapters of a part are bookmarks under its own"


ONLINE = {"en": "This chapter online:", "zh": "本章在线版："}
NOTEBOOK = {"en": "as a notebook:", "zh": "的笔记本："}


def test_a_published_chapter_ends_with_its_addresses_and_the_student_edition_without_its_notebook(built_site):
    """With a published address (the deploy's), a chapter ends with its page's address and its
    notebook's; the student edition leaves the notebook out (its exercise cells hold the solutions)."""
    from bs4 import BeautifulSoup

    build_pdf = build_pdf_module()
    data = build_pdf.edition()
    home, published = build_pdf.home_and_address(built_site, "en", "https://example.org/handtf/", data)
    assert published == f"https://example.org/handtf/{data['series']}/"
    for solutions in (True, False):
        section = build_pdf.chapter(built_site, "attention/", "en", {"attention/"}, published)
        book = build_pdf.edition_html("en", solutions, data, home, published, "", "", [(0, None, section)])
        closing = BeautifulSoup(book, "html.parser").select_one(".handtf-online").get_text(" ", strip=True)
        assert f"{ONLINE['en']} {published}attention/" in closing, closing
        assert (f"{NOTEBOOK['en']} {published}attention/attention.ipynb" in closing) is solutions, closing


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_chapter_ends_with_its_addresses_and_the_papers_are_listed(texts, student_texts, built_site, language):
    for edition in (texts, student_texts):  # a local build: no address to give
        whole = "\n".join(edition[language])
        assert ONLINE[language] not in whole and NOTEBOOK[language] not in whole
    references = {"en": "References", "zh": "参考文献"}[language]
    listed = "\n".join(text for text in texts[language] if text.lstrip().startswith(references))
    assert squeeze(references) in squeeze(listed) and "AttentionIsAllYouNeed" in squeeze(listed) and "arxiv.org" in listed
    assert re.search(r"\[\d\]", whole), "no citation points at the list"


@pytest.mark.parametrize("language", LANGUAGES)
def test_long_code_lines_are_broken_with_a_continuation_mark(texts, built_site, language):
    """A code line wider than the column (over 90 characters: the column holds about 85) is
    printed in pieces, each after the first opened by the mark ↪; none wraps on its own."""
    book = re.sub(r"[\s\u200b\u00ad]+", "", "\n".join(texts[language]))  # as flat, but keeping the marks
    unmarked = book.replace("↪", "")
    long_lines = {re.sub(r"\s+", "", line) for article in articles(built_site, language).values() for pre in article.find_all("pre")
                  for line in pre.get_text().splitlines() if len(line) > 90 and line.isascii() and "--8<--" not in line}
    assert len(long_lines) > 20, len(long_lines)
    broken = [line for line in long_lines if line in unmarked and line not in book]
    assert len(broken) == len([line for line in long_lines if line in unmarked]), "a long line printed without a mark"
    assert len(broken) > 20


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_covers_and_metadata_tell_the_editions_apart(pdfs, texts, student_texts, language):
    from pypdf import PdfReader

    path, reader = pdfs[language]
    student = PdfReader(path.with_name(f"handtf-{language}-student.pdf"))
    label = {"en": "Student edition", "zh": "学生版"}[language]
    for cover, info, is_student in ((texts[language][0], reader.metadata, False), (student_texts[language][0], student.metadata, True)):
        assert handtf.__version__ in cover
        assert re.search(r"\d{4}-\d{2}-\d{2}", cover[cover.index(handtf.__version__):]), "the day it was printed"
        assert re.search(r"(?<![0-9a-f])[0-9a-f]{12}(?![0-9a-f])", cover), "the commit it was printed from"
        assert flat(LOCAL_BUILD[language]) in flat(cover) and not re.search(r"https?://|localhost|file:/", cover.split("@misc")[0])
        assert (label in info.title) is is_student and (label in cover) is is_student, (info.title, is_student)
        assert handtf.__version__ in info["/Keywords"] and re.search(r"[0-9a-f]{12}", info["/Keywords"])
        assert ("student" in info["/Keywords"]) is is_student
    if language == "zh":
        assert CJK.search(texts["zh"][0].split("\n", 3)[-1]), "the Chinese cover has its Chinese subtitle"
