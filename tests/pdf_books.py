"""Print the books of a built site and read each page back, for tests/test_pdf.py.

``python tests/pdf_books.py SITE OUT`` writes ``OUT/handtf-LANGUAGE.pdf`` (by
``scripts/build_pdf.py``) and ``OUT/handtf-LANGUAGE.json``: for each of its
pages, its text and how many characters it draws as glyph 0 (``glyph_zero``).
tests/conftest.py runs it in a process of its own as soon as the session's site
is built, so printing runs beside the other tests.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOWN_TEXT = re.compile(rb"<([0-9A-Fa-f]*)>\s*Tj")  # Chromium's only way of showing text (checked below)


def page_texts(pdf):
    """Each page's text, in the order the page draws it: poppler's ``pdftotext -raw``, which
    reads a book in a second (pypdf took 20 s a book and gave the same text, but for
    white space and the zero-width spaces of KaTeX's layout)."""
    printed = subprocess.run(["pdftotext", "-q", "-raw", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True)
    return printed.stdout.decode("utf-8").split("\f")[:-1]  # each page ends with a form feed


def glyph_zero(content):
    r"""How many characters a page's ``content`` stream draws as glyph 0, ``.notdef``: Chromium's
    drawing of a character no font has. Text extraction cannot tell: the page names the character
    it meant (an ``/ActualText``), and pdftotext prints that. Chromium embeds every font as a Type0
    font with two-byte glyph ids and shows text only with ``<hex> Tj``; a page that shows text any
    other way is an error here, not a page without missing glyphs.

    >>> glyph_zero(b"<0052004E0003> Tj\n<0000> Tj\n<00000001> Tj")
    2
    >>> glyph_zero(b"<00520000> Tj\n(ok) Tj")
    Traceback (most recent call last):
    ValueError: the page shows text other than by <hex> Tj (2 text operators, 1 <hex> Tj): glyph_zero cannot read it
    """
    shown = SHOWN_TEXT.findall(content)
    operators = len(re.findall(rb"\bTj\b|\bTJ\b|['\"]\s*$", content, re.MULTILINE))
    if len(shown) != operators:
        raise ValueError(
            f"the page shows text other than by <hex> Tj ({operators} text operators, {len(shown)} <hex> Tj): glyph_zero cannot read it"
        )
    return sum(ids[i : i + 4] == b"0000" for ids in shown for i in range(0, len(ids), 4))


def content_of(page):
    """A pypdf page's content stream, decoded."""
    content = page.get_contents()
    return content.get_data() if content is not None else b""


def main(site, out):
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_pdf
    from pypdf import PdfReader

    for language, pdf in build_pdf.build(Path(site), Path(out)).items():
        pages = [{"text": text, "glyph_zero": glyph_zero(content_of(page))} for text, page in zip(page_texts(pdf), PdfReader(pdf).pages, strict=True)]
        pdf.with_suffix(".json").write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
