"""A phone's view, 390 px wide, of every crawled page in both languages: no figure wider
than the text column, and every block that still scrolls sideways shows that it does.

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

from pages import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from figures.common import MIN_FONT_PT  # noqa: E402  (the smallest text any figure may have)

MIN_TEXT_PX = 8  # a figure's smallest text at 390 px, as tests/test_reader.py asks
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 720}
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


@pytest.fixture(scope="module")
def phone_view(crawl):
    """``{url: facts}`` of every crawled page narrowed to 390 px (then put back at 1280 px)."""
    view = {}
    for url, (visit, _) in crawl.items():
        visit.page.set_viewport_size(PHONE)
        try:
            view[url] = visit.page.evaluate(PHONE_FACTS, BLOCKS)
        finally:
            visit.page.set_viewport_size(DESKTOP)
    return view


def test_no_figure_is_wider_than_the_column_at_390(phone_view, base_url):
    """Wider than the column, or squeezed into it so that its text is under 8 px: both hide it."""
    wide, shown = [], 0
    for url, facts in phone_view.items():
        for figure in facts["figures"]:
            shown += 1
            text = MIN_FONT_PT * 4 / 3 * figure["width"] / figure["natural"] if "assets/figures/" in figure["src"] else None
            if figure["width"] > facts["column"] + 0.5:  # a notebook's plot too
                wide.append(f"{url}: {figure['src']} is {figure['width']:.0f} px in the {facts['column']:.0f} px column")
            elif text is not None and text < MIN_TEXT_PX - 1e-6:
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
