"""Maths: TeX on the pages, typeset in the browser by the site's own KaTeX, as a textbook would.

- KaTeX is vendored at a pinned version with its license, and the pages load it
  from the site itself (test_site.py checks that nothing comes from another host).
- Fences around a fraction are written ``\\left( ... \\right)`` so that they grow.
- In the browser every formula is typeset, with MathML carrying the TeX for
  screen readers; a leading sign sits close to its operand, unlike a binary
  one; and fences around a fraction are taller than the fraction's line.
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


RENDERED = """() => [...document.querySelectorAll('.md-content .arithmatex')].map(e => ({
    tex: e.querySelector('annotation[encoding="application/x-tex"]')?.textContent ?? null,
    katex: !!e.querySelector('.katex'),
    error: e.querySelector('.katex-error')?.textContent ?? null,
    hidden_html: e.querySelector('.katex-html')?.getAttribute('aria-hidden') ?? null,
    mathml: !!e.querySelector('.katex-mathml math'),
}))"""


def test_every_formula_is_typeset_with_a_text_alternative(crawl):
    """KaTeX's HTML is hidden from screen readers, which read its MathML (with the TeX as annotation)."""
    problems, typeset = [], 0
    for url, (visit, facts) in crawl.items():
        for formula in visit.page.evaluate(RENDERED):
            typeset += formula["katex"]
            if not (formula["katex"] and formula["mathml"] and formula["tex"]):
                problems.append(f"{url}: a formula is not typeset with MathML: {formula}")
            elif formula["error"] is not None:
                problems.append(f"{url}: KaTeX cannot typeset {formula['tex']!r}: {formula['error']}")
            elif formula["hidden_html"] != "true":
                problems.append(f"{url}: {formula['tex']!r}: the visual HTML is not hidden from screen readers")
    assert not problems, "\n".join(problems)
    assert typeset > 100, f"only {typeset} formulas typeset: the check proves little"


RAW_TEX = re.compile(r"\\[(\[]|\\frac|\\sqrt|\$\$|\\mathrm|\\text\{")


def test_no_tex_shows_as_text(crawl):
    raw = [f"{url}: {m.group(0)!r}" for url, (_, facts) in crawl.items() for m in RAW_TEX.finditer(facts["text"])]
    assert not raw, "\n".join(raw)


GLYPHS = """tex => {
    const formula = [...document.querySelectorAll('.arithmatex')].find(
        e => e.querySelector('annotation')?.textContent.trim() === tex)
    if (!formula) return null
    const leaves = [...formula.querySelectorAll('.katex-html span')].filter(
        s => s.children.length === 0 && s.textContent.trim())
    return leaves.map(s => { const r = s.getBoundingClientRect()
        return {text: s.textContent, left: r.left, right: r.right, height: r.height} })
}"""


def glyphs(crawl, base_url, page, tex):
    visit, _ = crawl[base_url + page]
    found = visit.page.evaluate(GLYPHS, tex)
    assert found, f"{page} has no formula {tex!r}"
    return found


@pytest.mark.parametrize("language", ["", "zh/"])
def test_a_leading_minus_sits_close_like_a_sign_a_binary_one_is_spaced(crawl, base_url, language):
    # The TeXbook, appendix G, rule 5: a binary operator at the start of a formula
    # or after an opening fence is an ordinary symbol, with no space around it.
    signs = glyphs(crawl, base_url, language + "attention/", r"-\infty - (-\infty)")
    text = [g["text"] for g in signs]
    assert text == ["−", "∞", "−", "(", "−", "∞", ")"], text
    gap = lambda a, b: signs[b]["left"] - signs[a]["right"]  # noqa: E731
    binary = min(gap(1, 2), gap(2, 3))
    assert gap(0, 1) < binary / 2 and gap(4, 5) < binary / 2, signs


@pytest.mark.parametrize("language", ["", "zh/"])
def test_fences_around_a_fraction_are_taller_than_plain_ones(crawl, base_url, language):
    page = language + "concepts/feed-forward/"
    plain = glyphs(crawl, base_url, page, r"\mathrm{FFN}(x) = \max(0,\; x W_1 + b_1)\, W_2 + b_2")
    grown = glyphs(
        crawl,
        base_url,
        page,
        r"\mathrm{GELU}(x) = x\,\Phi(x) = \frac{x}{2}\left(1 + \mathrm{erf}\left(\frac{x}{\sqrt{2}}\right)\right)",
    )
    plain_height = max(g["height"] for g in plain if g["text"] == "(")
    tallest = max(g["height"] for g in grown if g["text"] == "(")
    assert tallest > 1.5 * plain_height, (tallest, plain_height)


PUNCTUATION_AWAY_FROM_ITS_FORMULA = """() => {
    // Every inline formula followed by a closing punctuation mark (or preceded by an
    // opening one): is that mark on another line than the formula?
    const closing = /^[,.;:!?%)\\]}\\u2019\\u201d\\u00bb\\uff0c\\u3002\\u3001\\uff1b\\uff1a\\uff01\\uff1f\\uff09\\u3011\\u300b\\u300d\\u300f\\u2026]/
    const opening = /[(\\[{\\u2018\\u201c\\u00ab\\uff08\\u3010\\u300a\\u300c\\u300e]$/
    const content = document.querySelector('.md-content')
    const textBeside = (math, forward) => {
        const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT)
        walker.currentNode = math
        let node
        while ((node = forward ? walker.nextNode() : walker.previousNode()))
            if (!math.contains(node) && node.data.length) return node
        return null
    }
    const rectOf = (node, start) => {
        const range = document.createRange()
        range.setStart(node, start)
        range.setEnd(node, start + 1)
        return range.getBoundingClientRect()
    }
    const found = {checked: 0, apart: []}
    for (const math of content.querySelectorAll('span.arithmatex')) {
        const box = math.getBoundingClientRect()
        if (!box.width) continue
        const next = textBeside(math, true), previous = textBeside(math, false)
        if (next && closing.test(next.data)) {
            found.checked++
            const mark = rectOf(next, 0)
            if (mark.top >= box.bottom - 1 || mark.bottom <= box.top + 1)
                found.apart.push(math.textContent.slice(0, 30) + ' | ' + next.data.slice(0, 8))
        }
        if (previous && opening.test(previous.data)) {
            found.checked++
            const mark = rectOf(previous, previous.data.length - 1)
            if (mark.top >= box.bottom - 1 || mark.bottom <= box.top + 1)
                found.apart.push(previous.data.slice(-8) + ' | ' + math.textContent.slice(0, 30))
        }
    }
    return found
}"""


@pytest.mark.parametrize("width", [390])
def test_punctuation_stays_on_the_line_of_its_inline_formula(crawl, width):
    """A comma or 。 after an inline formula never starts a line by itself (at 390 px it did on 23 lines
    of the Chinese pages, without the glue in maths.js); nor does an opening bracket end the line before one.
    Each crawled page is narrowed to the phone's width, then put back as the other tests expect it."""
    problems, checked = [], 0
    for url in sorted(url for url, (_, facts) in crawl.items() if facts["math"]):
        page = crawl[url][0].page
        desktop = page.viewport_size
        page.set_viewport_size({"width": width, "height": 844})
        try:
            found = page.evaluate(PUNCTUATION_AWAY_FROM_ITS_FORMULA)
            fits = page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth")
        finally:
            page.set_viewport_size(desktop)
        checked += found["checked"]
        problems += [f"{url}: {apart!r}" for apart in found["apart"]]
        if not fits:
            problems.append(f"{url}: the page scrolls sideways at {width} px")
    assert checked > 100, f"only {checked} formulas touch punctuation: the check proves little"
    assert not problems, "\n".join(problems)
