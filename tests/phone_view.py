"""A phone's view, 390 px wide, of every crawled page in both languages: no figure wider
than the text column or with text under 8 px, in either scheme; every block that still
scrolls sideways shows that it does; no punctuation mark apart from its formula.

The crawl (tests/test_reader.py) narrows each page once (``phone_facts``), reads it,
switches it to the dark scheme if it has figures and reads it again, then puts it
back, light, at 1280 px: a narrowing lays the whole page out anew.

Each check fails when its defect is put back:

- figures: a figure over 5.3 in without its phone variant, which then is either wider
  than the column (extra.css's rules that pick the variant and shrink a figure to the
  column removed: 56 placements, e.g. ``c-attn.svg`` at 544 px in the 358 px column)
  or squeezed into it with text under 8 px (``handtf_site.figures`` removed from
  mkdocs.yml: ``c-attn.svg`` at 5.5 px);
- scrolling: the shadow layers removed from extra.css (every listing that scrolls at
  390 px lacks its cue).

The counts are printed (``pytest -s``). A notebook's plot (a matplotlib PNG shown at its
natural size) is held to the same rule: the playground notebook stacks its panels, 299 px wide.
"""

import sys

import pytest

from browsing import TOGGLE, has_figures
from pages import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from figures.common import MIN_FONT_PT  # noqa: E402  (the smallest text any figure may have)

MIN_TEXT_PX = {1280: 10, 390: 8}  # the smallest figure text a reader gets, in CSS px
PT = 4 / 3  # CSS px per point: an SVG drawn at 9 pt text shows it at 12 px at natural size
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 720}  # 1280 x 720: Playwright's default
BLOCKS = """.md-typeset pre > code, .md-typeset .md-typeset__scrollwrap, .md-typeset div.arithmatex,
    .md-typeset .handtf-scroll, .md-typeset .handtf-plot, .md-typeset p"""  # what may scroll sideways (p: a figure's)

PHONE_FACTS = """blocks => {
    const article = document.querySelector('.md-content article') || document.querySelector('.md-content');
    const style = getComputedStyle(article);
    const column = article.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const figures = [...article.querySelectorAll('img, svg, figure')]
        .filter(e => e.getBoundingClientRect().width > 0 && !e.closest('button, .md-clipboard, .headerlink, .twemoji'))
        .map(e => ({src: (e.getAttribute('src') || e.tagName).slice(-60), width: e.getBoundingClientRect().width,
                    natural: e.naturalWidth || 0}));
    const closed = [...article.querySelectorAll('details:not([open])')];
    closed.forEach(d => { d.open = true; });  // the collapsed blocks too
    const scrolling = [...article.querySelectorAll(blocks)]
        .filter(e => e.offsetParent && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
                     && e.scrollWidth > e.clientWidth + 1)  // a scroll container with more to show
        .map(e => {
            const s = getComputedStyle(e);
            return {what: e.tagName + '.' + (e.className || ''), first: e.textContent.trim().slice(0, 40),
                    cue: (s.backgroundImage.match(/radial-gradient/g) || []).length === 2
                         && /local/.test(s.backgroundAttachment) && /scroll/.test(s.backgroundAttachment)};
        });
    closed.forEach(d => { d.open = false; });
    return {column, figures, scrolling};
}"""


FIGURE_FACTS = """() => [...document.querySelectorAll('.md-content img[src*="assets/figures/"]')]
    .filter(img => img.getBoundingClientRect().width > 0)  // the variant of the current scheme
    .map(img => ({src: img.getAttribute('src'), shown: img.getBoundingClientRect().width,
                  natural: img.naturalWidth}))"""

PAGE_FITS = """() => document.scrollingElement.scrollWidth <= window.innerWidth"""


def small_figures(page, width):
    """The page's figures whose smallest text is under ``MIN_TEXT_PX[width]``, and whether the page scrolls sideways."""
    problems = []
    for figure in page.evaluate(FIGURE_FACTS):
        smallest = MIN_FONT_PT * PT * figure["shown"] / figure["natural"]
        if smallest < MIN_TEXT_PX[width] - 1e-6:
            problems.append(f"{figure['src']}: smallest text {smallest:.1f} px")
    if not page.evaluate(PAGE_FITS):
        problems.append("the page scrolls sideways")
    return problems


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


def figures_shown(page):
    return {"shown": page.evaluate(FIGURE_FACTS), "problems": small_figures(page, 390)}


def phone_facts(page, facts):
    """A crawled page narrowed to 390 px: its column, figures and scrolling blocks; with figures,
    ``schemes``: the figures each scheme shows and their problems (dark: switched with the header's
    palette button, as a reader would); with maths, ``punctuation``. Then put back at 1280 px in
    the light scheme, as the crawl's other reads expect it."""
    page.set_viewport_size(PHONE)
    try:
        found = page.evaluate(PHONE_FACTS, BLOCKS)
        found["fits"] = page.evaluate(PAGE_FITS)
        if facts["math"]:
            found["punctuation"] = page.evaluate(PUNCTUATION_AWAY_FROM_ITS_FORMULA)
        if has_figures(facts):
            found["schemes"] = {"light": figures_shown(page)}
            page.evaluate(TOGGLE, "__palette_1")
            try:
                found["schemes"]["dark"] = figures_shown(page)
            finally:
                page.evaluate(TOGGLE, "__palette_0")
        return found
    finally:
        page.set_viewport_size(DESKTOP)


@pytest.fixture(scope="module")
def phone_view(crawl):
    """``{url: phone_facts}`` of every crawled page, as the crawl read them."""
    return {url: facts["phone"] for url, (_, facts) in crawl.items()}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_figure_text_is_at_least_8_px_at_390(phone_view, scheme):
    """Each page with figures, at a phone's width: the figures of the scheme, none with text under 8 px."""
    pages = {url: facts["schemes"][scheme] for url, facts in sorted(phone_view.items()) if "schemes" in facts}
    assert len(pages) >= 20, sorted(pages)
    expected = ".dark.svg#only-dark" if scheme == "dark" else ".svg#only-light"
    problems = []
    for url, found in pages.items():
        if not found["shown"] or not all(f["src"].endswith(expected) for f in found["shown"]):
            problems.append(f"{url}: the {scheme} scheme shows {[f['src'] for f in found['shown']]}")
        problems += [f"{url}: {p}" for p in found["problems"]]
    assert not problems, "\n".join(problems)


def test_punctuation_stays_on_the_line_of_its_inline_formula(phone_view):
    """A comma or 。 after an inline formula never starts a line by itself at 390 px (it did on 23 lines
    of the Chinese pages, without the glue in maths.js); nor does an opening bracket end the line before one."""
    problems, checked = [], 0
    for url, facts in sorted(phone_view.items()):
        if "punctuation" not in facts:
            continue
        checked += facts["punctuation"]["checked"]
        problems += [f"{url}: {apart!r}" for apart in facts["punctuation"]["apart"]]
        if not facts["fits"]:
            problems.append(f"{url}: the page scrolls sideways at 390 px")
    assert checked > 100, f"only {checked} formulas touch punctuation: the check proves little"
    assert not problems, "\n".join(problems)


def test_no_figure_is_wider_than_the_column_at_390(phone_view, base_url):
    """Wider than the column, or squeezed into it so that its text is under 8 px: both hide it."""
    wide, shown = [], 0
    for url, facts in phone_view.items():
        for figure in facts["figures"]:
            shown += 1
            text = MIN_FONT_PT * PT * figure["width"] / figure["natural"] if "assets/figures/" in figure["src"] else None
            if figure["width"] > facts["column"] + 0.5:  # a notebook's plot too
                wide.append(f"{url}: {figure['src']} is {figure['width']:.0f} px in the {facts['column']:.0f} px column")
            elif text is not None and text < MIN_TEXT_PX[390] - 1e-6:
                wide.append(f"{url}: {figure['src']} is squeezed into the column: its smallest text is {text:.1f} px")
    languages = {url.startswith(base_url + "zh/") for url in phone_view}
    print(f"\n390 px: {shown} figures shown on {len(phone_view)} pages, {len(wide)} wider than the column or squeezed into it")
    assert languages == {True, False} and shown > 100, (languages, shown)
    assert not wide, "\n".join(wide)


def test_every_block_that_scrolls_sideways_at_390_shows_it(phone_view):
    scrolling = [(url, block) for url, facts in phone_view.items() for block in facts["scrolling"]]
    kinds = {}
    for _, block in scrolling:
        kind = block["what"].split(" ")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"\n390 px: {len(scrolling)} blocks scroll sideways (collapsed blocks opened): {kinds}")
    missing = [f"{url}: {block['what']} {block['first']!r}" for url, block in scrolling if not block["cue"]]
    assert len(scrolling) > 50, "at 390 px many listings scroll: is the page narrowed?"
    assert not missing, f"{len(missing)} blocks scroll without a cue:\n" + "\n".join(missing[:40])
