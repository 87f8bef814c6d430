"""Print the books of a built site and each page's text, for tests/test_pdf.py.

``python tests/pdf_books.py SITE OUT`` writes ``OUT/handtf-LANGUAGE.pdf`` (by
``scripts/build_pdf.py``) and ``OUT/handtf-LANGUAGE.json``, the text of each of
its pages. tests/conftest.py runs it in a process of its own as soon as the
session's site is built, so printing runs beside the other tests.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(site, out):
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_pdf
    from pypdf import PdfReader

    for language, pdf in build_pdf.build(Path(site), Path(out)).items():
        texts = [page.extract_text() or "" for page in PdfReader(pdf).pages]
        pdf.with_suffix(".json").write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
