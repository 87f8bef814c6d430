"""What axe cannot see: focus under the sticky header, colours in hover and focus, tab stops
with nothing to scroll, and text in the other language without ``lang`` (issue 40).

axe-core (tests/accessibility.py) reads one static state of each page. These checks put
each page in the states a keyboard and a screen reader meet, in the pages the crawl has
open (``read_page`` in tests/test_reader.py calls ``beyond_axe_facts``), and the tests at
the end of this module, collected in tests/test_reader.py, assert on what they found.
Each fails on a page where its defect is planted (``test_each_check_finds_what_is_planted``).

- **Focus under the header** (WCAG 2.4.11): every tab stop of every page, in the order
  Tab visits them and in reverse (Shift+Tab), at 1280 x 800 and at 320 x 640. Tabbing with
  the key costs a round trip to the browser a stop (about 300 s for the site), so ``WALK``
  focuses the stops from inside the page, in the order Chromium's Tab visits them, with
  ``focus()``, which scrolls as Tab does; ``test_the_walk_is_the_tab_keys_walk``
  (tests/test_keyboard.py) presses the keys on one page and finds the same stops in the same
  order, and the same ones hidden. A stop counts as hidden when the header is drawn over it
  and it would fit below the header (a taller one: when none of it shows below).
- **Hover and focus colours** (1.4.3, 1.4.11): every link and button of the ``STATE_PAGES``
  (the CSS is the same on every page; these have every kind of link and button the site has)
  in both schemes. ``STATES`` copies each rule of the page's own CSS that styles ``:hover``,
  ``:focus``, ``:focus-visible`` (or Material's ``.focus-visible``) right after itself, with
  the state written as an attribute, puts every link and button (and, for hover, their
  ancestors) in the state at once, with transitions off, and reads the computed colours:
  text 4.5:1 (3:1 large), an icon 3:1.
- **Tab stops with nothing to scroll** (2.4.3): a region the site made a tab stop
  (``tabindex``) or that Chromium makes one (a box that scrolls and holds no control) must
  hide at least ``SOMETHING`` px (KaTeX's glyphs overhang their box by 2 px).
- **Language of parts** (3.1.2): on an English page every run of Chinese text, on a Chinese
  page every run of English words (three or more, a cell of a column headed "English", an
  API docstring) and the language menu's entries carry the right ``lang``; proper names
  (``PROPER_NAMES``) and code are exempt.

Counted by these checks on the 60 built pages (30 a language), before issue 40's fixes and
after (November 2026; axe-core found nothing on any page before or after):

=====================================  ==========================================  =====
WCAG criterion                         before                                      after
=====================================  ==========================================  =====
2.4.11 focus not obscured              1,172 of 26,378 tab stops under the header      0
                                       (1280x800: 375 backward; 320x640: 787
                                       backward, 10 forward)
1.4.3 / 1.4.11 hover and focus         6,306 link and button states a scheme under     0
                                       their ratio (links 4.26:1 light, 3.78:1
                                       dark; the dark button 1.48:1)
2.4.3 tab stops with nothing to        172 inline formulas (86 a language)             0
scroll
3.1.2 language of parts                1,357 runs of text (docstrings, glossary        0
                                       columns, menu, footer) and the 404 page
=====================================  ==========================================  =====
"""

import pytest

from browsing import TOGGLE, drawn

WALK_SIZES = [{"width": 1280, "height": 800}, {"width": 320, "height": 640}]
SOMETHING = 4  # px a tab stop that only scrolls must hide: more than a glyph's overhang
STATE_PAGES = ["", "attention/", "playground/", "glossary/", "api/", "concepts/playground/", "concepts/positions/"]
# names, in any language (WCAG 3.1.2 exempts them): a product, and the titles of the works related.zh.md cites
PROPER_NAMES = ["Material for MkDocs", "The Transformer Cookbook", "Transactions on Machine Learning Research",
                "Tracr: Compiled Transformers as a Laboratory for Interpretability",
                "ALTA: Compiler-Based Analysis of Transformers", "The Transformer Architecture"]

# Whether the focused element ``el`` is under a fixed element, the header or the back-to-top button
# (Material's ``.md-top``, shown below the header while the reader scrolls up): one of them is drawn
# over part of it, and it would fit below that cover (a taller one: when none of it shows below).
# A hidden back-to-top button lets clicks through (``pointer-events: none``), so it covers nothing.
UNDER_HEADER = r"""(el) => {
  const header = document.querySelector(".md-header");
  const r = el.getBoundingClientRect(), h = header.getBoundingClientRect();
  for (const cover of document.querySelectorAll(".md-header, .md-top")) {
    const c = cover.getBoundingClientRect();
    if (cover.contains(el) || r.right <= Math.max(0, c.left) || r.left >= Math.min(innerWidth, c.right) || r.top >= c.bottom - 0.5 || r.bottom <= c.top) continue;
    // taller than the room below the cover: hidden only when none of it shows below
    if (r.height > innerHeight - Math.max(h.bottom, c.bottom) && r.bottom > c.bottom + 0.5) continue;
    const x = (Math.max(r.left, c.left, 0) + Math.min(r.right, c.right, innerWidth)) / 2;
    const y = (Math.max(r.top, c.top) + Math.min(r.bottom, c.bottom)) / 2;
    const top = document.elementFromPoint(Math.min(Math.max(x, 0), innerWidth - 1), y);
    if (top && cover.contains(top) && !el.contains(top)) return true;
  }
  return false;
}"""

WALK = r"""([reverse, order]) => {
  // the page's sequential focus order, as Chromium's Tab key walks it
  const underHeader = UNDER_HEADER;
  const TABBABLE = "a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]";
  const scrollable = (el) => {
    const s = getComputedStyle(el);
    return (/(auto|scroll)/.test(s.overflowX) && el.scrollWidth > el.clientWidth) ||
           (/(auto|scroll)/.test(s.overflowY) && el.scrollHeight > el.clientHeight);
  };
  const visible = (el) => el.checkVisibility({ visibilityProperty: true }) && !el.closest("[inert]");
  const own = [...document.querySelectorAll(TABBABLE)].filter(
    (el) => el.tabIndex >= 0 && !el.disabled && visible(el) && !(el.tagName === "SUMMARY" && el.parentElement.tagName !== "DETAILS"));
  const set = new Set(own);
  const scrollers = [...document.body.querySelectorAll("*")].filter(
    (el) => !set.has(el) && el.tabIndex < 0 && !el.hasAttribute("tabindex") && scrollable(el) && visible(el)
      && !own.some((o) => el.contains(o)));
  let all = [...own, ...scrollers];
  all.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  // one radio per group: the checked one, or the first (forward) / last (backward)
  all = all.filter((el) => {
    if (el.type !== "radio" || !el.name) return true;
    const group = [...document.getElementsByName(el.name)].filter((r) => all.includes(r));
    const pick = group.find((r) => r.checked) || (reverse ? group.at(-1) : group[0]);
    return el === pick;
  });
  if (reverse) all.reverse();
  // Material shows the back-to-top button while the last scroll went up and did not end at the top,
  // on the scroll event, after focus() returns: the walk sets it as Material will before reading
  const backToTop = document.querySelector(".md-top");
  const wasHidden = backToTop && backToTop.hidden;
  let lastY = scrollY;
  const settle = () => {
    if (!backToTop || scrollY === lastY) return;
    backToTop.hidden = !(scrollY < lastY && scrollY > 0);
    lastY = scrollY;
  };
  const header = document.querySelector(".md-header");
  const found = [];
  const visited = [];
  for (const el of all) {
    el.focus();
    settle();
    if (document.activeElement !== el) continue;
    visited.push(el);
    const r = el.getBoundingClientRect();
    const h = header.getBoundingClientRect();
    if (underHeader(el)) {
      const what = `${el.tagName.toLowerCase()}.${String(el.className).trim().split(/\s+/).join(".")} "${(el.textContent || "").trim().slice(0, 30)}"`;
      found.push({ what, top: Math.round(r.top), header: Math.round(h.bottom) });
    }
  }
  document.activeElement.blur();
  if (backToTop) backToTop.hidden = wasHidden;
  // order: each stop as its index among the document's elements (what the Tab key test compares)
  const everything = order ? [...document.querySelectorAll("*")] : [];
  return { stops: visited.length, found, order: order ? visited.map((el) => everything.indexOf(el)) : null };
}""".replace("UNDER_HEADER", UNDER_HEADER)

STATES = r"""() => {
  // contrast of links and buttons in their hover and focus states, with the page's own CSS:
  // each rule that styles :hover, :focus or :focus-visible is copied right after itself with the
  // state written as an attribute, so that every link and button can be put in a state at once
  const STATES = { hover: /:hover\b/g, focus: /:focus(-visible)?\b(?!-)|\.focus-visible\b/g };
  const added = [];
  const copy = (list, owner) => {
    for (let i = list.cssRules.length - 1; i >= 0; i--) {
      const rule = list.cssRules[i];
      if (rule.cssRules && !(rule instanceof CSSStyleRule)) { copy(rule, owner); continue; }
      if (!(rule instanceof CSSStyleRule) || !/:hover|:focus(?!-within)|\.focus-visible/.test(rule.selectorText)) continue;
      const selector = rule.selectorText.replace(STATES.hover, '[data-handtf-state~="hover"]')
        .replace(STATES.focus, '[data-handtf-state~="focus"]');
      try { list.insertRule(`${selector}{${rule.style.cssText}}`, i + 1); added.push([list, list.cssRules[i + 1]]); } catch (e) {}
    }
  };
  for (const sheet of document.styleSheets) { try { copy(sheet); } catch (e) {} }
  const still = document.createElement('style'); // a transition would show the colour before the state
  still.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
  document.head.append(still);
  const rgba = (text) => { const m = text.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (top, bottom) => top.slice(0, 3).map((c, i) => c * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let bg = [255, 255, 255, 1];
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= +getComputedStyle(e).opacity; return o; };
  const targets = [...document.querySelectorAll('a[href], button, summary, label.md-header__button, input[type=button]')]
    .filter((el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) && !el.closest('.md-search, [hidden], .md-select__inner:not(:focus-within)'));
  const found = [];
  for (const state of ['hover', 'focus']) {
    // a hovered element's ancestors are hovered too; a focused one's are not
    const holders = new Set(targets);
    if (state === 'hover') for (const el of targets) for (let e = el.parentElement; e; e = e.parentElement) holders.add(e);
    holders.forEach((el) => el.setAttribute('data-handtf-state', state));
    for (const el of targets) {
      const text = (el.innerText || '').trim();
      const style = getComputedStyle(el);
      const bg = background(el);
      const fg = over(rgba(style.color).slice(0, 3).concat([rgba(style.color)[3] * opacity(el)]), bg);
      const size = parseFloat(style.fontSize), bold = +style.fontWeight >= 700;
      const need = !text ? 3 : (size >= 24 || (bold && size >= 18.66)) ? 3 : 4.5;
      const r = ratio(fg, bg);
      if (r < need - 0.005) found.push({ state, what: el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).trim().split(/\s+/).join('.') : '') + ' ' + (text || el.getAttribute('aria-label') || el.title || '').slice(0, 30), ratio: Math.round(r * 100) / 100, need, color: style.color, background: `rgb(${bg.slice(0, 3).map(Math.round)})` });
    }
    holders.forEach((el) => el.removeAttribute('data-handtf-state'));
  }
  for (const [list, rule] of added.reverse()) { const i = [...list.cssRules].indexOf(rule); if (i >= 0) list.deleteRule(i); }
  still.remove();
  return found;
}
"""

REGIONS = r"""(something) => {
  // a tab stop that only scrolls: it must have something to scroll (more than a glyph's overhang)
  const SOMETHING = something; // px
  // the site's regions (a tabindex), and what Chromium makes a tab stop itself: a box that scrolls
  // and holds nothing focusable (its "keyboard-focusable scrollers")
  const CONTROLS = 'a[href], button, input, select, textarea, summary, iframe, [tabindex]';
  const scrolls = (el) => { const s = getComputedStyle(el);
    return (/(auto|scroll)/.test(s.overflowX) && el.scrollWidth > el.clientWidth) || (/(auto|scroll)/.test(s.overflowY) && el.scrollHeight > el.clientHeight); };
  const focusable = [...document.body.querySelectorAll('*')].filter((el) =>
    !el.matches('a[href], button, input, select, textarea, summary, [role=gridcell], [role=slider]') && el.checkVisibility()
    && (el.tabIndex >= 0 || (scrolls(el) && !el.querySelector(CONTROLS))));
  return focusable.filter((el) => Math.max(el.scrollWidth - el.clientWidth, 0) < SOMETHING && (el.scrollHeight - el.clientHeight) < SOMETHING)
    .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).trim().split(/\s+/).join('.')} "${(el.getAttribute('aria-label') || '').slice(0, 30)}" overflows by ${el.scrollWidth - el.clientWidth} px`);
}
"""

LANGUAGE = r"""([pageLang, properNames]) => {
  // every run of text in the other language carries lang (WCAG 3.1.2): Han text on an English page,
  // English text on a Chinese page (three or more English words, a table cell or link of English
  // words, an API docstring), the language menu's entries
  const HAN = /[\u3400-\u9fff\uf900-\ufaff]/;
  const WORDS = /[A-Za-z]{2,}(?:[\s,'’]+[A-Za-z]{2,}){2,}/;  // three words (a file name or a-b-c is not a phrase)
  const SKIP = 'code, pre, kbd, samp, script, style, svg, math, .katex, .arithmatex, [aria-hidden=true], .md-search, .headerlink, title';
  const langOf = (node) => { const el = node.nodeType === 1 ? node : node.parentElement; const holder = el.closest('[lang]'); return holder ? holder.getAttribute('lang').toLowerCase().split('-')[0] : ''; };
  const inEnglishColumn = (node) => {
    const cell = node.parentElement.closest('td, th');
    const head = cell && cell.closest('table').tHead;
    const title = head && head.rows[0] && head.rows[0].cells[cell.cellIndex];
    return Boolean(title) && title.textContent.trim() === 'English';
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const text = node.textContent.trim();
    if (!text || node.parentElement.closest(SKIP)) continue;
    let other = null;
    if (pageLang === 'en' && HAN.test(text) && !properNames.includes(text)) other = 'zh';
    if (pageLang === 'zh' && !HAN.test(text) && !properNames.includes(text)) {
      const english = WORDS.test(text) || inEnglishColumn(node) || node.parentElement.closest('.doc-contents, a[hreflang]');
      if (english) other = 'en';
    }
    if (other && langOf(node) !== other) found.push(`${node.parentElement.tagName.toLowerCase()}: ${text.slice(0, 40)}`);
  }
  for (const a of document.querySelectorAll('a[hreflang]')) if (langOf(a) !== a.getAttribute('hreflang')) found.push(`menu: ${a.textContent.trim()}`);
  return found;
}
"""


def walk_facts(page):
    """``{"1280x800 forward": [hidden stop, ...], ...}``: the page tabbed through both ways at each
    of ``WALK_SIZES``; the page is left at the last size (``phone_facts`` sets its own next)."""
    found = {}
    for size in WALK_SIZES:
        page.set_viewport_size(size)
        drawn(page)
        for reverse in (False, True):
            walk = page.evaluate(WALK, [reverse, False])
            name = f"{size['width']}x{size['height']} {'backward' if reverse else 'forward'}"
            found[name] = walk["found"]
            found[name + " stops"] = walk["stops"]
    return found


def states_in_both_schemes(page):
    """``{"light": [...], "dark": [...]}``: links and buttons whose hover or focus colours fall
    under their ratio; the page is left in the light scheme."""
    scheme = "scheme => document.body.getAttribute('data-md-color-scheme') === scheme"
    page.wait_for_function(scheme, arg="default")
    found = {"light": page.evaluate(STATES)}
    page.evaluate(TOGGLE, "__palette_1")
    try:
        page.wait_for_function(scheme, arg="slate")
        drawn(page)
        found["dark"] = page.evaluate(STATES)
    finally:
        page.evaluate(TOGGLE, "__palette_0")
    return found


def beyond_axe_facts(page, facts, path):
    """What the checks below need of a crawled page (``path``: its address under the language's
    root, e.g. ``attention/``), read at 1280 px before the walks change its size."""
    found = {"regions": page.evaluate(REGIONS, SOMETHING),
             "language": page.evaluate(LANGUAGE, [facts["lang"], PROPER_NAMES])}
    if path in STATE_PAGES:
        found["states"] = states_in_both_schemes(page)
    found["walks"] = walk_facts(page)
    return found


def problems(crawl, read):
    """[f"{url}: {problem}", ...] of every crawled page, from ``read(facts)``."""
    return [f"{url}: {p}" for url, (_, facts) in sorted(crawl.items()) if "beyond axe" in facts
            for p in read(facts["beyond axe"])]


def test_focus_is_never_under_the_header_tabbing_either_way(crawl):
    """WCAG 2.4.11, at 1280 x 800 and 320 x 640, Tab and Shift+Tab through every page."""
    stops = sum(n for _, facts in crawl.values() for name, n in facts.get("beyond axe", {"walks": {}})["walks"].items()
                if name.endswith("stops"))
    assert stops > 20_000, stops
    hidden = problems(crawl, lambda f: [f"{walk}: {stop}" for walk, found in f["walks"].items()
                                        if not walk.endswith("stops") for stop in found])
    assert not hidden, f"{len(hidden)} tab stops under the header:\n" + "\n".join(hidden[:40])


def test_links_and_buttons_keep_their_contrast_in_hover_and_focus(crawl, base_url):
    """WCAG 1.4.3 and 1.4.11 in the states axe never renders, both schemes, both languages."""
    checked = {url for url, (_, facts) in crawl.items() if "states" in facts.get("beyond axe", {})}
    assert len(checked) == 2 * len(STATE_PAGES), sorted(checked)
    low = problems(crawl, lambda f: [f"{scheme} {v['state']}: {v['what']} {v['ratio']}:1 (needs {v['need']}), "
                                     f"{v['color']} on {v['background']}"
                                     for scheme, found in f.get("states", {}).items() for v in found])
    assert not low, f"{len(low)} links and buttons under their contrast:\n" + "\n".join(low[:40])


def test_no_tab_stop_has_nothing_to_scroll(crawl):
    """WCAG 2.4.3: a region is a tab stop because it scrolls; KaTeX's 2 px overhang is not a reason."""
    idle = problems(crawl, lambda f: f["regions"])
    assert not idle, f"{len(idle)} tab stops with nothing to scroll:\n" + "\n".join(idle[:40])


def test_text_in_the_other_language_says_so(crawl):
    """WCAG 3.1.2: Chinese on the English pages, English on the Chinese ones, each with its lang."""
    unmarked = problems(crawl, lambda f: f["language"])
    assert not unmarked, f"{len(unmarked)} runs of text without their lang:\n" + "\n".join(unmarked[:40])


def test_the_404_page_says_each_thing_in_its_language(built_site):
    """The one 404.html of both languages (the last language built writes it): every run of text
    in the other language than its <html lang> carries its own lang."""
    import re
    html = (built_site / "404.html").read_text(encoding="utf-8")
    page_lang = re.search(r'<html lang="(\w+)"', html).group(1)
    article = html.split('<article class="md-content__inner md-typeset">', 1)[1].split("</article>", 1)[0]
    heading = re.search(r"<h1>(.*?)</h1>", article, re.S).group(1)
    assert 'lang="en"' in heading and 'lang="zh"' in heading, heading
    plain = re.sub(r'<(\w+) lang="\w+">.*?</\1>', "", article, flags=re.S)
    other = re.compile("[A-Za-z]{3,}" if page_lang == "zh" else "[\u4e00-\u9fff]")
    assert not other.search(re.sub(r"<[^>]+>", "", plain)), (page_lang, plain)


PLANTED = """<!doctype html><html lang="en"><head><title>planted</title><style>
  body { margin: 0; font: 16px sans-serif; }
  .md-header { position: sticky; top: 0; height: 48px; background: #4051b5; z-index: 2; }
  .md-typeset a { color: #222; }
  .md-typeset a:hover { color: #bbb; }
  .formula { display: inline-block; overflow-x: auto; width: 50px; }
  .formula > span { display: inline-block; width: 52px; }
  p { margin: 0 0 400px; }
</style></head><body><header class="md-header"></header><main class="md-typeset">
<p><a href="#a">A link whose hover colour is pale.</a></p>
<p>Some words and <span class="formula" tabindex="0"><span>x</span></span> a formula two pixels too wide.</p>
<p>An English page with 注意力 in it, unmarked, and <a href="#zh" hreflang="zh">简体中文</a>.</p>
<p><a href="#b">Another link.</a></p>
</main></body></html>"""


def test_each_check_finds_what_is_planted(browser):
    """Each check on a page with its defect: a sticky header with no scroll padding, a link pale on
    hover, a formula that scrolls by 2 px, Chinese without lang on an English page."""
    page = browser.new_page(viewport={"width": 800, "height": 300})
    try:
        page.set_content(PLANTED)
        # the first link 10 px from the top: in the window, so focusing it scrolls nothing, under the header
        page.evaluate("() => window.scrollTo(0, document.querySelector('a').getBoundingClientRect().top - 10)")
        walk = page.evaluate(WALK, [False, False])
        states = page.evaluate(STATES)
        regions = page.evaluate(REGIONS, SOMETHING)
        language = page.evaluate(LANGUAGE, ["en", PROPER_NAMES])
    finally:
        page.close()
    assert walk["stops"] == 4 and [stop["what"][:6] for stop in walk["found"]] == ['a. "A '], walk
    assert any(v["state"] == "hover" and "hover colour" in v["what"] for v in states), states
    assert len(regions) == 1 and "2 px" in regions[0], regions
    assert any("注意力" in p for p in language) and any(p.startswith("menu") for p in language), language


PLANTED_TOP = """<!doctype html><html lang="en"><head><title>planted</title><style>
  body { margin: 0; font: 16px sans-serif; }
  .md-header { position: sticky; top: 0; height: 48px; background: #4051b5; z-index: 2; }
  .md-top { position: fixed; top: 60px; left: 300px; width: 200px; height: 40px; z-index: 2; }
  p { margin: 0 0 20px; }
</style></head><body><header class="md-header"></header><main>
<p><a href="#a" style="margin-left: 350px">Under the back-to-top button.</a></p>
<p><a href="#b">Clear of it, on the left.</a></p>
</main><button class="md-top">Back to top</button></body></html>"""


def test_the_walk_finds_a_stop_under_the_back_to_top_button(browser):
    """A shown back-to-top button (Material's ``.md-top``) covers a link as the header does; a hidden
    one (``pointer-events: none``, as Material's ``[hidden]`` style) covers nothing."""
    page = browser.new_page(viewport={"width": 800, "height": 300})
    try:
        page.set_content(PLANTED_TOP)
        shown = page.evaluate(WALK, [False, False])
        page.evaluate("() => { const b = document.querySelector('.md-top'); b.hidden = true; b.style.pointerEvents = 'none'; }")
        hidden = page.evaluate(WALK, [False, False])
    finally:
        page.close()
    assert [stop["what"] for stop in shown["found"]] == ['a. "Under the back-to-top button."'], shown
    assert hidden["found"] == [], hidden
