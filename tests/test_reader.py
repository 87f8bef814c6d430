"""What a reader sees in a browser: legible figures, listings that neither scroll nor
wrap their output, a copy button that copies runnable code, and light pages; and
every check of every crawled page (no console error, nothing from another host,
links, anchors, images, the language switcher, typeset maths).

All the tests that read the ``crawl`` are collected in this file, so that the
site is crawled once a session (tests/conftest.py says why): the phone view
(``tests/phone_view.py``) and the accessibility check (``tests/accessibility.py``)
are written in modules of their own and imported here.

Every check runs on the built site (the shared ``crawl`` at Playwright's default
1280 px window, the same pages narrowed to 390 px), in both languages. Each one fails when
its defect is put back:

- figures: a figure scaled below 10 CSS px text at 1280 px (e.g. the old 24-column
  ``c_attn`` at 8 pt in an 8.8 in figure) or below 8 px at 390 px (without its
  phone variant, ``c-attn.phone.svg``, ``c_attn`` shrunk to the column shows
  5.5 px text; tests/phone_view.py checks that no figure is wider than the column);
- listings: a 24-column ``show`` printed whole (an output line never wraps, so
  the block scrolls), or the ``white-space: pre-wrap`` rule removed (17 blocks
  of the attention page scroll sideways);
- code blocks of any language: the package code as it was before it was wrapped
  at 79 columns (177 python blocks of the two languages scroll), a one-line shell
  command over 80 characters, or the BibTeX without its ``pre-wrap`` rule;
- copy: ``assets/reader/copy-pycon.js`` removed from ``extra_javascript`` (the prompts
  and outputs are copied);
- the notebook's plot: the ``filter`` rule for the slate scheme removed from
  extra.css (the plot shows 0.86 light on the dark page, 0.2 with it), or inverted
  without turning the hue back (its blues turn orange);
- notebook: its page heavier than 300 KB (with mkdocs-jupyter's inline JupyterLab
  stylesheet it was 703 KB), its heading unlike its nav title, nbconvert's
  English placeholder as the plot's alt text, or cells without the site's copy
  button (all as mkdocs-jupyter rendered it).
"""

import doctest
import re
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import numpy as np
import pytest
from PIL import Image

from accessibility import axe_both_schemes
from beyond_axe import beyond_axe_facts
from browsing import PREFIX, TOGGLE, Visit, chromium, crawl_site, drawn, has_figures, is_page, language_of
from pages import DOCS, nav_files, pages
from phone_view import FIGURE_FACTS, PHONE, phone_facts, small_figures

PAGE_LIMIT = 300_000  # bytes of HTML per page


def source_of(url, base_url):
    """The Markdown file a built page comes from: .../zh/concepts/lookup/ -> docs/concepts/lookup.zh.md."""
    path = urlparse(url).path[len(urlparse(base_url).path):].strip("/")
    language = "en"
    if path == "zh" or path.startswith("zh/"):
        language, path = "zh", path[3:]
    stem = DOCS / (path or "index")
    suffix = ".zh.md" if language == "zh" else ".md"
    return stem.with_name(stem.name + suffix) if path else DOCS / ("index" + suffix)


# The pages the tests below read in the browser themselves, kept open after the crawl (in both languages).
LIVE_PAGES = ["attention/", "concepts/feed-forward/", "concepts/playground/"]


def read_page(visit, facts):
    """Everything the checks of every page need, read while the crawl has the page open:
    at 1280 px its listings, code blocks, formulas and figures, axe's report in both
    schemes (``accessibility.axe_both_schemes``, once per built page), what axe cannot see
    (``beyond_axe.beyond_axe_facts``: tab walks at 1280 x 800 and 320 x 640, hover and focus
    colours, idle tab stops, language of parts), then the phone's view (``phone_view.phone_facts``)."""
    page = visit.page
    found = {"listings": page.evaluate(LISTING_FACTS), "code": page.evaluate(CODE_FACTS),
             "formulas": page.evaluate(RENDERED)}
    if has_figures(facts):
        found["small figures"] = small_figures(page, 1280)
    if not urlparse(visit.url).query:  # the playground's states (?context=...) are one built page
        found["axe"] = axe_both_schemes(page)
        path = urlparse(visit.url).path[len(PREFIX):].removeprefix("zh/")  # attention/, "" for a home page
        found["beyond axe"] = beyond_axe_facts(page, facts, path)
    found["phone"] = phone_facts(page, facts)
    return found


def crawl_in_a_browser_of_its_own(base_url, language):
    """``crawl_site`` of one language's pages, in a Chromium of its own (``browsing.chromium``: this
    runs in a thread of its own); every page is closed once read."""
    with chromium() as browser:
        return crawl_site(browser.new_context(), base_url, read=read_page, keep=set(), languages=(language,))


@pytest.fixture(scope="module")
def crawl(browser, base_url):
    """Every page reachable from the two home pages, loaded once and read once (``read_page``):
    ``{url: (visit, facts)}`` (see ``browsing.FACTS``). The two languages are crawled at once,
    the Chinese pages in a Chromium of their own in another thread, so that the crawl, the
    longest part of this file, keeps both cores busy when the rest of the suite leaves one free.
    Only the ``LIVE_PAGES`` stay open (the Chinese ones opened again here once their crawl is
    done); the others are closed as soon as they are read, so that a handful of pages are open
    at a time: 74 open pages kept as many renderer processes busy with Chromium's own upkeep, a
    fifth of a core. A language's pages share one browser context, as a reader's tabs do: its
    cache, so each script and style is fetched and compiled once (a fifth less of Chromium's
    time). All the tests that read the crawl are in this file (a fixture of its own), so the
    site is crawled once a session."""
    context = browser.new_context()
    live = {base_url + language + page for language in ("", "zh/") for page in LIVE_PAGES}
    with ThreadPoolExecutor(max_workers=1) as pool:
        chinese = pool.submit(crawl_in_a_browser_of_its_own, base_url, "zh/")
        found = crawl_site(context, base_url, read=read_page, keep=live, languages=("",))
        found.update(chinese.result())
    for url in sorted(url for url in live if language_of(url, base_url) == "zh/"):
        crawled, facts = found[url]
        again = Visit(context, url, light_search=True)
        for record in ("console_errors", "remote_requests", "failed"):  # what both loads logged and requested
            getattr(again, record)[:0] = getattr(crawled, record)
        found[url] = (again, facts)
    yield found
    context.close()


def test_figure_text_is_at_least_10_px_at_1280(crawl):
    pages = {url: facts["small figures"] for url, (_, facts) in sorted(crawl.items()) if has_figures(facts)}
    assert len(pages) >= 20, pages
    problems = [f"{url}: {p}" for url, found in pages.items() for p in found]
    assert not problems, "\n".join(problems)


def test_a_dark_system_shows_the_dark_figures(browser, base_url):
    """Without the button: a reader whose system is dark gets the dark variants at first sight."""
    visit = Visit(browser, base_url + "attention/", viewport=PHONE, color_scheme="dark", light_search=True)
    try:
        shown = visit.page.evaluate(FIGURE_FACTS)
    finally:
        visit.close()
    assert len(shown) >= 2 and all(f["src"].endswith(".dark.svg#only-dark") for f in shown), shown


LISTING_FACTS = """() => [...document.querySelectorAll('.md-content .language-pycon pre')].map(pre => {
    const code = pre.querySelector('code');
    const line = parseFloat(getComputedStyle(code).lineHeight);
    return {
        scrolls: pre.scrollWidth > pre.clientWidth + 1 || code.scrollWidth > code.clientWidth + 1,
        wrapped: [...code.querySelectorAll(':scope > span')]
            .filter(span => span.querySelector('.go') && span.getBoundingClientRect().height > 1.5 * line)
            .map(span => span.textContent.slice(0, 40)),
        first: code.textContent.slice(0, 50),
    };
})"""


def test_no_example_scrolls_sideways_or_wraps_its_output_at_1280(crawl):
    problems = []
    blocks = 0
    for url, (_, facts) in crawl.items():
        for block in facts["listings"]:
            blocks += 1
            if block["scrolls"]:
                problems.append(f"{url}: scrolls sideways: {block['first']!r}")
            problems += [f"{url}: output line wraps: {line!r}" for line in block["wrapped"]]
    assert blocks > 500, blocks
    assert not problems, "\n".join(problems)


CODE_FACTS = """() => {
    const closed = [...document.querySelectorAll('.md-content details:not([open])')];
    closed.forEach(d => { d.open = true; });  // exercises' answers too; closed again below
    const blocks = [...document.querySelectorAll('.md-content pre')].filter(pre => pre.offsetParent).map(pre => {
        const code = pre.querySelector(':scope > code') || pre;
        const holder = pre.closest('[class*="language-"]');
        const language = (holder && holder.className.match(/language-([\\w-]+)/) || [])[1]
            || code.className || 'plain';
        return {
            language,
            scrolls: pre.scrollWidth > pre.clientWidth + 1 || code.scrollWidth > code.clientWidth + 1,
            widest: Math.max(...code.textContent.split('\\n').map(line => line.length)),
            first: code.textContent.trim().slice(0, 50),
        };
    });
    closed.forEach(d => { d.open = false; });
    return blocks;
}"""


def test_no_code_block_of_any_language_scrolls_sideways_at_1280(crawl):
    """The package code the pages embed, shell commands, notebook cells, BibTeX: at 1280 px a
    block shows 80 characters, and nothing a page shows is wider (tests/test_boundary.py keeps
    the embedded code at 79)."""
    problems, languages = [], {}
    for url, (_, facts) in crawl.items():
        for block in facts["code"]:
            languages[block["language"]] = languages.get(block["language"], 0) + 1
            if block["scrolls"]:
                problems.append(f"{url}: a {block['language']} block scrolls sideways "
                                f"(its widest line has {block['widest']} characters): {block['first']!r}")
    assert languages.get("python", 0) > 200 and languages.get("pycon", 0) > 500, languages
    assert not problems, "\n".join(problems)


PLOT = ".handtf-plot"  # the plot as shown: its part scrolled out of view is not


def plot_colours(page):
    """Mean lightness of the notebook's plot as shown (0 black, 1 white), and its coloured pixels' mean (r, g, b)."""
    drawn(page)
    shown = Image.open(BytesIO(page.locator(PLOT).first.screenshot())).convert("RGB")
    pixels = np.asarray(shown, dtype=float).reshape(-1, 3) / 255  # [n_pixels, 3]
    coloured = pixels[pixels.max(axis=1) - pixels.min(axis=1) > 0.25]
    return float((pixels @ [0.2126, 0.7152, 0.0722]).mean()), (255 * coloured.mean(axis=0)).tolist()


@pytest.mark.parametrize("language", ["", "zh/"])
def test_the_notebook_plot_is_dark_in_the_dark_scheme_and_keeps_its_blues(crawl, base_url, language):
    """matplotlib draws the plot on white; in the dark scheme extra.css inverts it, hue kept, so it is
    no glaring panel; the light scheme shows it as drawn. Without the rule it shows 0.86 light."""
    page = crawl[base_url + language + "concepts/playground/"][0].page
    light, light_rgb = plot_colours(page)
    page.evaluate(TOGGLE, "__palette_1")
    try:
        dark, dark_rgb = plot_colours(page)
    finally:
        page.evaluate(TOGGLE, "__palette_0")
    assert light > 0.6 and dark < 0.4, (light, dark)
    for r, g, b in (light_rgb, dark_rgb):  # the Blues colour map is blue in both schemes
        assert b > r + 40, (light_rgb, dark_rgb)


def test_output_is_drawn_unlike_prompts_and_comments(crawl, base_url):
    """In both schemes; the crawled page is put back in the light scheme, as the other tests expect it."""
    page = crawl[base_url + "attention/"][0].page
    try:
        for scheme in ("default", "slate"):
            colours = page.evaluate(
                """scheme => {
                    document.body.setAttribute('data-md-color-scheme', scheme);
                    const pre = document.querySelector('.md-content .language-pycon pre');
                    const colour = selector => getComputedStyle(pre.querySelector(selector)).color;
                    return {output: colour('.go'), prompt: colour('.gp'), comment: colour('.c1')};
                }""",
                scheme,
            )
            assert colours["output"] not in (colours["prompt"], colours["comment"]), (scheme, colours)
    finally:
        page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'default')")


COPY_PAGES = ["concepts/lookup/", "attention/", "concepts/encoder-decoder/"]  # tracebacks, loops, long lines


def copied_texts(page):
    """Click every copy button of the page's >>> examples; what each put on the clipboard."""
    page.evaluate("() => document.querySelectorAll('.md-content details').forEach(d => { d.open = true; })")
    page.evaluate("""() => { window.copied = [];
        document.addEventListener('copy', e => window.copied.push(
            e.target && e.target.value !== undefined ? e.target.value : String(document.getSelection())), true); }""")
    buttons = page.locator('.md-content .language-pycon button[data-md-type="copy"]')
    for i in range(buttons.count()):
        buttons.nth(i).click()
    return page.evaluate("window.copied")


@pytest.mark.parametrize("language", ["", "zh/"])
@pytest.mark.parametrize("name", COPY_PAGES)
def test_the_copy_button_copies_the_code_without_prompts_or_output(browser, base_url, name, language):
    url = base_url + language + name
    markdown = source_of(url, base_url).read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in markdown.split("```pycon")[1:]]
    expected = [[line for e in doctest.DocTestParser().get_examples(b) for line in e.source.rstrip("\n").split("\n")]
                for b in blocks]
    # light_search: the search worker's index (what a reader's search finds is tests/test_browser.py's)
    # costs more CPU than the rest of the page; the buttons do not need it.
    visit = Visit(browser, url, light_search=True)
    try:
        copied = copied_texts(visit.page)
    finally:
        visit.close()
    assert len(copied) == len(expected) > 3
    for text, lines in zip(copied, expected):
        assert [line for line in text.split("\n") if line.strip()] == lines
        assert ">>>" not in text


def test_the_notebook_pages_weigh_at_most_300_kb(built_site):
    notebooks = {
        str(p.relative_to(built_site)): p.stat().st_size
        for p in Path(built_site).rglob("*.html")
        if 'class="handtf-plot"' in p.read_text(encoding="utf-8")
    }
    assert len(notebooks) >= 2, "both languages have a notebook page"
    heavy = {name: size for name, size in notebooks.items() if size > PAGE_LIMIT}
    assert not heavy, heavy


def test_the_notebook_page_looks_like_the_site(crawl, base_url):
    """Its heading is its nav title, its plot is described in its language, its cells have the site's copy button."""
    for language, title, script in [("", "Playground notebook", "Latin"), ("zh/", "动手实验笔记本", "Han")]:
        visit = crawl[base_url + language + "concepts/playground/"][0]
        facts = visit.page.evaluate("""() => ({
            h1: document.querySelector('.md-content h1').textContent.replace('¶', '').trim(),
            nav: document.querySelector('.md-nav__link--active').textContent.trim(),
            alts: [...document.querySelectorAll('.md-content .handtf-plot img')].map(i => i.alt),
            cells: document.querySelectorAll('.md-content .language-python.highlight pre > code').length,
            buttons: document.querySelectorAll('.md-content .language-python.highlight button[data-md-type="copy"]').length,
            outputs: document.querySelectorAll('.md-content .handtf-output pre > code').length,
        })""")
        assert facts["h1"] == facts["nav"] == title, facts
        assert facts["alts"], facts
        assert all("No description" not in alt for alt in facts["alts"]), facts["alts"]
        chinese = [bool(re.search("[\u4e00-\u9fff]", alt)) for alt in facts["alts"]]
        assert all(chinese) if script == "Han" else not any(chinese), facts["alts"]
        assert facts["cells"] >= 5 and facts["buttons"] == facts["cells"] and facts["outputs"] >= 5, facts


LINK = re.compile(r"\]\(([^)\s#]+\.(?:md|ipynb))(?:#[^)]*)?\)")


def linked_pages(page):
    """The pages a Markdown page links to in its text, as paths relative to docs/."""
    return {
        (page.parent / target).resolve().relative_to(DOCS.resolve()).as_posix()
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if "://" not in target
    }


def english_name(path):
    return path.replace(".zh.md", ".md").replace(".zh.ipynb", ".ipynb")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_page_is_linked_from_another_page(language):
    """Not only from the navigation: a reader of the text can reach every page."""
    everything = [p for p in pages(language) if p.name not in ("index.md", "index.zh.md")]
    linked = set()
    for page in pages(language):
        if page.suffix == ".md":
            linked |= {english_name(name) for name in linked_pages(page) if english_name(name) != english_name(
                page.relative_to(DOCS).as_posix())}
    orphans = sorted(english_name(p.relative_to(DOCS).as_posix()) for p in everything
                     if english_name(p.relative_to(DOCS).as_posix()) not in linked)
    assert not orphans, f"{language}: no page links to {orphans}"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_home_page_lists_every_page(language):
    home = DOCS / ("index.md" if language == "en" else "index.zh.md")
    listed = {english_name(name) for name in linked_pages(home)}
    missing = sorted(name for name in nav_files() if name != "index.md" and name not in listed)
    assert not missing, f"{home.name} does not link to {missing}"


def test_part_1_points_to_the_lookup_page_before_c_attn():
    for name in ("attention.md", "attention.zh.md"):
        text = (DOCS / name).read_text(encoding="utf-8")
        lookup, c_attn = text.find("concepts/lookup.md"), text.find("c_attn_weights")
        assert 0 <= lookup < c_attn, f"{name}: the lookup page must be pointed to before c_attn is shown"


# ------------------------------------------------------------ every crawled page
#
# The tests that read the crawl are all in this file: pytest-xdist runs a file in
# one worker (--dist loadfile), so the site is crawled once a session.

def test_both_languages_are_crawled(crawl, base_url):
    zh = [url for url in crawl if url.startswith(base_url + "zh/")]
    assert len(zh) >= 5 and len(crawl) - len(zh) >= 5, sorted(crawl)
    assert len(crawl) == 2 * len(zh), "every English page has a Chinese twin and vice versa"


def test_no_console_errors_and_no_failed_requests(crawl):
    problems = [f"{url}: {e}" for url, (visit, _) in crawl.items() for e in visit.console_errors + visit.failed]
    assert not problems, "\n".join(problems)


def test_nothing_is_requested_from_another_host(crawl):
    remote = [f"{url}: {r}" for url, (visit, _) in crawl.items() for r in visit.remote_requests]
    assert not remote, "\n".join(remote)


def test_every_image_loads_and_has_alt_text(crawl):
    problems = [
        f"{url}: {image['src']} " + ("did not load" if not image["loaded"] else "has no alt text")
        for url, (_, facts) in crawl.items()
        for image in facts["images"]
        if not image["loaded"] or not image["alt"].strip()
    ]
    assert not problems, "\n".join(problems)


def test_every_internal_link_and_anchor_resolves(crawl, base_url):
    ids = {url: set(facts["ids"]) for url, (_, facts) in crawl.items()}
    problems = []
    for url, (_, facts) in crawl.items():
        for link in facts["links"]:
            target, fragment = urldefrag(link)
            if not target.startswith(base_url) or not is_page(target, base_url):
                continue
            if target not in ids:
                problems.append(f"{url}: {link} leads to no page")
            elif fragment and unquote(fragment) not in ids[target]:
                problems.append(f"{url}: {link} has no anchor #{fragment}")
    assert not problems, "\n".join(problems)


def test_code_blocks_have_a_copy_button(crawl):
    missing = [
        f"{url}: {facts['copy_buttons']} buttons for {facts['code_blocks']} code blocks"
        for url, (_, facts) in crawl.items()
        if facts["copy_buttons"] < facts["code_blocks"]
    ]
    assert not missing, "\n".join(missing)
    assert sum(facts["code_blocks"] for _, facts in crawl.values()) > 0


def test_each_language_switcher_link_leads_to_the_twin_page(crawl, base_url):
    problems = []
    for url, (_, facts) in crawl.items():
        english = url.replace(base_url + "zh/", base_url)
        chinese = english.replace(base_url, base_url + "zh/", 1)
        expected = {"en": english, "zh": chinese}
        switcher = dict(facts["switcher"])
        if switcher != expected:
            problems.append(f"{url}: switcher {switcher}, expected {expected}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------ maths in the browser (see test_maths.py)

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
    for url, (_, facts) in crawl.items():
        for formula in facts["formulas"]:
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


# The checks of the same crawled pages that live in modules of their own (their facts
# are read by ``read_page``), collected here.
# (named one by one: a star would also bring their constants over this module's own)
from phone_view import (  # noqa: E402, F401  (every page at 390 px: figures, scrolling blocks, punctuation)
    phone_view, test_every_block_that_scrolls_sideways_at_390_shows_it, test_figure_text_is_at_least_8_px_at_390,
    test_no_figure_is_wider_than_the_column_at_390, test_punctuation_stays_on_the_line_of_its_inline_formula)
from accessibility import (  # noqa: E402, F401  (axe-core's WCAG 2.2 A and AA rules)
    axe_report, test_axe_catches_planted_violations, test_axe_is_the_pinned_version_with_its_license,
    test_each_allowed_entry_names_its_upstream_issue_and_is_still_needed, test_each_figure_says_what_it_shows,
    test_each_page_declares_its_language, test_every_page_in_both_languages_and_schemes_was_checked,
    test_no_page_violates_wcag_a_or_aa_outside_the_allowed_list, test_the_allowed_list_allows_its_rule_on_its_elements_only)
from beyond_axe import (  # noqa: E402, F401  (what axe cannot see: focus, states, idle tab stops, language)
    test_focus_is_never_under_the_header_tabbing_either_way, test_links_and_buttons_keep_their_contrast_in_hover_and_focus,
    test_each_check_finds_what_is_planted, test_no_tab_stop_has_nothing_to_scroll, test_text_in_the_other_language_says_so,
    test_the_404_page_says_each_thing_in_its_language)
