"""Maths: TeX on the pages, typeset in the browser by the site's own KaTeX, as a textbook would.

- KaTeX is vendored at a pinned version with its license, and the pages load it
  from the site itself (test_site.py checks that nothing comes from another host).
- Fences around a fraction are written ``\\left( ... \\right)`` so that they grow.
- In the browser (on the crawled pages: tests/test_reader.py) every formula is
  typeset, with MathML carrying the TeX for screen readers; a leading sign sits
  close to its operand, unlike a binary one; and fences around a fraction are
  taller than the fraction's line.
"""

import re

import pytest

from pages import DOCS, pages

KATEX = DOCS / "assets" / "vendor" / "katex"
KATEX_VERSION = "0.19.1"  # the npm package vendored in docs/assets/vendor/katex

FENCED_BLOCK = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"`[^`\n]*`")
MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.DOTALL)
TEX_TOKEN = re.compile(r"\\left\s*\\?[(\[{|]|\\right\s*\\?[)\]}|]|\\(?:d?frac|sum|prod|int)\b|[()\[\]]")


def formulas(path):
    """The TeX of every ``$...$`` and ``$$...$$`` on a Markdown page, outside code."""
    text = INLINE_CODE.sub("", FENCED_BLOCK.sub("", path.read_text(encoding="utf-8")))
    return [(display or inline).strip() for display, inline in MATH.findall(text)]


def fixed_fences_around_tall_things(tex):
    """The ``\\frac``, ``\\sum``, ... whose innermost enclosing fence is a plain ``(`` or ``[``.

    >>> fixed_fences_around_tall_things(r"0.5 \\cdot (\\frac{1}{2}) + \\left(\\frac{x}{2}\\right)")
    ['\\\\frac']
    >>> fixed_fences_around_tall_things(r"\\frac{\\exp(z_i)}{\\sum_j \\exp(z_j)} + \\max(0, x)")
    []
    """
    open_fences, found = [], []
    for token in TEX_TOKEN.findall(tex):
        if token.startswith("\\left") or token in "([":
            open_fences.append("grows" if token.startswith("\\left") else "fixed")
        elif token.startswith("\\right") or token in ")]":
            if open_fences:
                open_fences.pop()
        elif open_fences and open_fences[-1] == "fixed":
            found.append(token)
    return found


def test_katex_is_vendored_at_the_pinned_version_with_its_license():
    assert f'version:"{KATEX_VERSION}"' in (KATEX / "katex.min.js").read_text(encoding="utf-8")
    license_text = (KATEX / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in license_text and "Khan Academy" in license_text
    css = (KATEX / "katex.min.css").read_text(encoding="utf-8")
    woff2 = re.findall(r"url\((fonts/[^)]+\.woff2)\)", css)
    assert woff2, "katex.min.css names no woff2 font"
    missing = [font for font in woff2 if not (KATEX / font).exists()]
    assert not missing, f"fonts the stylesheet asks for first are not vendored: {missing}"


@pytest.mark.parametrize("page", [p for p in pages() if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_fences_around_a_fraction_grow(page):
    fixed = [tex for tex in formulas(page) if fixed_fences_around_tall_things(tex)]
    assert not fixed, f"write \\left( ... \\right) around a fraction or a sum: {fixed}"


def test_the_pages_have_formulas():
    assert sum(len(formulas(page)) for page in pages("en") if page.suffix == ".md") > 50
