"""Print the books of a built site and read each page back, for tests/test_pdf.py.

``python tests/pdf_books.py SITE OUT`` writes ``OUT/handtf-LANGUAGE.pdf`` (by
``scripts/build_pdf.py``) and ``OUT/handtf-LANGUAGE.json``: for each of its
pages, its text (``text``, without the running header, ``header``, and the page
number, ``folio``) and how many characters it draws as glyph 0 (``glyph_zero``);
``OUT/handtf-LANGUAGE.images.json``, the images drawn on paper, and
``OUT/handtf-LANGUAGE.fonts.json``, the fonts of bold words and of the text.
tests/test_pdf.py's session fixture ``pdfs`` runs it in a process of its own.
``python tests/pdf_books.py --sample OUT`` prints a sample page with only the book's
fonts and with every other font of the machine too (``print_sample``).
"""

import concurrent.futures
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEXT = re.compile(rb"/([^\s/<>\[\]()]+)\s+[-\d.]+\s+Tf|<([0-9A-Fa-f]*)>\s*Tj")  # a font chosen, or text shown


def page_texts(pdf):
    """Each page's text, in the order the page draws it: poppler's ``pdftotext -raw``, which
    reads a book in a second (pypdf took 20 s a book and gave the same text, but for
    white space and the zero-width spaces of KaTeX's layout)."""
    printed = subprocess.run(["pdftotext", "-q", "-raw", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True)
    return printed.stdout.decode("utf-8").split("\f")[:-1]  # each page ends with a form feed


def margins(text, number):
    r"""A page's text split into its running header, its printed page number and its body.
    Chromium draws the page's margin boxes first: pdftotext reads the header (the
    chapter's title) on the first line and the number on the next, or the number alone.

    >>> margins("5 The attention head\n61\nWith lg = 1 ...\n", 61)
    ('5 The attention head', 61, 'With lg = 1 ...\n')
    >>> margins("61\nWith lg = 1\n", 61)
    (None, 61, 'With lg = 1\n')
    >>> margins("handtf\nVersion 1.0.0\n", 1)
    (None, None, 'handtf\nVersion 1.0.0\n')
    """
    lines = text.split("\n")
    if len(lines) > 1 and lines[1].strip() == str(number):
        return lines[0].strip(), number, "\n".join(lines[2:])
    if lines and lines[0].strip() == str(number):
        return None, number, "\n".join(lines[1:])
    return None, None, text


def glyph_zero(content, two_byte):
    r"""How many characters a page's ``content`` stream draws as glyph 0, ``.notdef``: Chromium's
    drawing of a character no font has. Text extraction cannot tell: the page names the character
    it meant (an ``/ActualText``), and pdftotext prints that. Chromium draws such a character in
    one of the page's fonts with two-byte glyph ids (``two_byte``, their names; the others are
    Type3 fonts of its own, with a one-byte code for each shape they hold), and it shows text only
    with ``<hex> Tj``: a page that shows text any other way is an error here, not a page without
    missing glyphs.

    >>> glyph_zero(b"/F4 16 Tf\n<0052004E0003> Tj\n<0000> Tj\n<00000001> Tj\n/F9 16 Tf\n<0000> Tj", {"F4"})
    2
    >>> glyph_zero(b"/F4 16 Tf\n<00520000> Tj\n(ok) Tj", {"F4"})
    Traceback (most recent call last):
    ValueError: the page shows text other than by <hex> Tj (2 text operators, 1 <hex> Tj): glyph_zero cannot read it
    """
    font, shown, zeros = None, 0, 0
    for name, ids in TEXT.findall(content):
        if name:
            font = name.decode()
        else:
            shown += 1
            if font in two_byte:
                zeros += sum(ids[i : i + 4] == b"0000" for i in range(0, len(ids), 4))
    operators = len(re.findall(rb"\bTj\b|\bTJ\b|['\"]\s*$", content, re.MULTILINE))
    if shown != operators:
        raise ValueError(
            f"the page shows text other than by <hex> Tj ({operators} text operators, {shown} <hex> Tj): glyph_zero cannot read it"
        )
    return zeros


def page_glyph_zero(page, seen=None):
    """``glyph_zero`` of a pypdf page, with the forms it draws (a figure's text is in one).
    Every font Chromium embeds is a Type0 font with two-byte glyph ids (Identity-H) or a
    Type3 font; any other is an error here."""
    seen = set() if seen is None else seen
    resources = page["/Resources"].get_object() if "/Resources" in page else {}
    two_byte = set()
    for name, reference in resources.get("/Font", {}).items():
        font = reference.get_object()
        kind = (font.get("/Subtype"), font.get("/Encoding") if font.get("/Subtype") == "/Type0" else None)
        if kind not in (("/Type0", "/Identity-H"), ("/Type3", None)):
            raise ValueError(f"font {name} is {kind[0]} with encoding {font.get('/Encoding')}: glyph_zero cannot read it")
        if kind[0] == "/Type0":
            two_byte.add(name.lstrip("/"))
    content = page.get_contents() if hasattr(page, "get_contents") else page
    zeros = glyph_zero(content.get_data() if content is not None else b"", two_byte)
    for reference in resources.get("/XObject", {}).values():
        form = reference.get_object()
        if form.get("/Subtype") == "/Form" and reference.idnum not in seen:
            seen.add(reference.idnum)
            zeros += page_glyph_zero(form, seen)
    return zeros


def build_pdf():
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_pdf

    return build_pdf


def read_back(pdf, drawn, fonts):
    """Write the ``.json``, ``.images.json`` and ``.fonts.json`` of a printed book."""
    from pypdf import PdfReader

    with concurrent.futures.ThreadPoolExecutor(1) as reading:
        texts = reading.submit(page_texts, pdf)  # pdftotext reads the text while pypdf counts the glyphs
        zeros = [page_glyph_zero(page) for page in PdfReader(pdf).pages]
        texts = texts.result()
    pages = []
    for number, (text, zero) in enumerate(zip(texts, zeros, strict=True), start=1):
        header, folio, body = margins(text, number)
        pages.append({"text": body, "header": header, "folio": folio, "glyph_zero": zero})
    pdf.with_suffix(".json").write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
    pdf.with_suffix(".images.json").write_text(json.dumps(drawn), encoding="utf-8")
    pdf.with_suffix(".fonts.json").write_text(json.dumps(fonts), encoding="utf-8")


def print_language(site, out, language, facts):
    """Print the book of ``language`` and its student edition, from one reading of its pages, and read both back."""
    for pdf, drawn, fonts in build_pdf().print_language(Path(site), Path(out), language, (True, False), facts=facts):
        read_back(pdf, drawn, fonts)


def main(site, out):
    """Each language in a process of its own, both at once (``build_pdf.in_processes``)."""
    books = build_pdf()
    facts = books.edition()
    with books.in_processes(len(books.LANGUAGES)) as pool:
        for printing in [pool.submit(print_language, site, out, language, facts) for language in books.LANGUAGES]:
            printing.result()


SAMPLE = """<!doctype html><html lang="{language}"><head><meta charset="utf-8"><style>{css}</style></head>
<body lang="{language}"><div class="md-typeset"><h1>Attention 注意力</h1>
<p>The soft lookup, <strong>bold words</strong>, <em>emphasis</em>: 注意力权重，<strong>加粗</strong>。 → ↪ ✓ × ≈ ‖ “quoted” 「引」</p>
<pre><code>&gt;&gt;&gt; softmax(x).round(3).tolist()  # 每一行的和是 1
[0.155, 0.422, 0.422]</code></pre></div></body></html>"""


def print_sample(out):
    """``OUT/named-LANGUAGE.pdf``: ``SAMPLE`` printed with only the book's fonts; ``OUT/extra-LANGUAGE.pdf``:
    with every font of this machine present too (tests/test_pdf.py compares them)."""
    books = build_pdf()
    extra = [folder for folder in ("/usr/share/fonts", "/usr/local/share/fonts") if Path(folder).is_dir()]
    for name, folders in (("named", ()), ("extra", extra)):
        with books._chromium(extra_font_dirs=folders) as browser:
            page = browser.new_page()
            for language in books.LANGUAGES:
                page.set_content(SAMPLE.format(language=language, css=books.PRINT_CSS))
                page.pdf(path=str(Path(out) / f"{name}-{language}.pdf"))
            page.close()


if __name__ == "__main__":
    if sys.argv[1] == "--sample":
        print_sample(sys.argv[2])
    else:
        main(*sys.argv[1:])
