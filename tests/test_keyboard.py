"""The playground and the chapters' widgets work with the keyboard alone, and show where the focus is.

Each test opens its page (the widgets change as they are used, so not the crawl's
pages), moves the focus into the widget as a reader would reach it with Tab,
and from there uses only the keyboard: Tab and Shift+Tab between the controls,
typing, the arrow keys, Home and End, Enter and Escape. After each step it
checks what the reader would see change, and that the focused element draws a
focus ring (an outline or a box shadow).

The tests after them (issue 40) check what axe cannot see in the widgets and the header:
that the crawl's tab walk (tests/beyond_axe.py) is the Tab key's, what the playground's
live region says after an edit, an edit that changes nothing and Reset, the grid's focus
ring against every cell colour, stale results marked at full contrast, the edited weight
in forced colours (a screenshot), the palette button and the language menu.
"""

import os
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from beyond_axe import UNDER_HEADER, WALK, WALK_SIZES
from browsing import Visit, drawn

PHONE = {"width": 390, "height": 844}

ENTER = """root => { const el = document.querySelector(root); el.tabIndex = -1; el.focus(); }"""

ACTIVE = """() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    return {
        tag: el.tagName, cls: el.className, key: el.dataset.key || null, label: el.getAttribute('aria-label'),
        text: el.textContent, value: el.value === undefined ? null : el.value,
        ring: (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none',
    };
}"""


def active(page):
    """The focused element; fails if it shows no focus ring."""
    focused = page.evaluate(ACTIVE)
    assert focused["ring"], f"the focus on {focused['tag']}.{focused['cls']} is not visible"
    return focused


def text(page, selector):
    return page.locator(selector).first.text_content()


@pytest.fixture
def opened(browser, base_url):
    visits = []

    def open_page(path, **options):
        visit = Visit(browser, base_url + path, light_search=True, **options)
        visits.append(visit)
        return visit.page

    yield open_page
    for visit in visits:
        visit.close()


def tab_into(page, widget):
    """The focus on the widget's first control, as Tab from what comes before the widget puts it."""
    page.evaluate(ENTER, widget)
    page.keyboard.press("Tab")
    return active(page)


def test_the_playground_with_the_keyboard_alone(opened):
    page = opened("playground/")
    root = "[data-handtf-widget=playground]"
    key = page.keyboard
    assert "handtf-context" in tab_into(page, root)["cls"]

    # the context: typing redraws the prediction; a wrong letter explains itself
    key.press("End")
    key.press("Backspace")
    assert "“aaba”" in text(page, ".handtf-prediction")
    key.type("c")
    assert "“c”" in text(page, ".handtf-message")
    assert page.get_attribute(".handtf-context", "aria-invalid") == "true"
    key.press("Backspace")
    assert text(page, ".handtf-message") == ""
    assert "“aaba”" in text(page, ".handtf-prediction")

    # Lg: the slider moves with the arrow keys, Home and End; the field follows
    key.press("Tab")
    assert "handtf-lg-slider" in active(page)["cls"]
    assert page.input_value(".handtf-lg") == "1024"
    key.press("ArrowRight")
    assert float(page.input_value(".handtf-lg")) == float(f"{2 ** 10.25:.3g}") == 1220  # one step of 0.25 in log2 Lg, 3 digits
    key.press("Home")
    assert page.input_value(".handtf-lg") == "0.125"
    assert page.locator(".handtf-check .handtf-bad").count() == 1  # the model fails at Lg = 1/8
    key.press("Tab")
    assert "handtf-lg" in active(page)["cls"]
    key.press("Tab")
    assert "handtf-max-len" in active(page)["cls"]
    key.press("Tab")
    assert "handtf-reset" in active(page)["cls"]
    key.press("Enter")  # the reset button: the hand-set model again
    assert page.input_value(".handtf-lg") == "1024"
    assert page.locator(".handtf-check .handtf-ok").count() == 1

    # the weights: one tab stop per grid, arrows and Home/End inside it
    key.press("Tab")
    assert active(page)["key"] == "c_attn.w.0.0"
    key.press("ArrowRight")
    key.press("ArrowDown")
    assert active(page)["key"] == "c_attn.w.1.1"
    key.press("End")
    assert active(page)["key"] == "c_attn.w.1.23"
    key.press("Home")
    cell = active(page)
    assert cell["key"] == "c_attn.w.1.0"
    assert cell["label"].startswith(cell["text"] + ", c_attn, row "), cell  # named by what it shows

    # Enter edits, Enter keeps, Escape drops
    key.press("Enter")
    assert "handtf-cell-input" in active(page)["cls"]
    key.type("7")
    key.press("Enter")
    cell = active(page)
    assert (cell["key"], cell["text"]) == ("c_attn.w.1.0", "7")
    assert cell["label"].startswith("7, c_attn, row ")
    assert text(page, ".handtf-edits") == "1 weight edited"
    key.press("Enter")
    key.type("9")
    key.press("Escape")
    cell = active(page)
    assert (cell["key"], cell["text"]) == ("c_attn.w.1.0", "7")
    assert text(page, ".handtf-edits") == "1 weight edited"

    # the next grid is the next tab stop; Shift+Tab back to the reset button, which drops the edit
    key.press("Tab")
    assert active(page)["key"] == "c_proj.w.0.0"
    key.press("Shift+Tab")
    key.press("Shift+Tab")
    assert "handtf-reset" in active(page)["cls"]
    key.press("Enter")
    assert text(page, ".handtf-edits") == ""
    assert text(page, "td[data-key='c_attn.w.1.0']") != "7"


def test_the_attention_widget_with_the_keyboard_alone(opened):
    page = opened("attention/")
    widget = "[data-handtf-widget=attention]"
    assert "handtf-context" in tab_into(page, widget)["cls"]
    rows = f"{widget} figure[data-name=attention_weights] tbody tr:not([hidden])"
    assert page.locator(rows).count() == 5
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    assert page.locator(rows).count() == 3
    assert "“aab”" in text(page, f"{widget} .handtf-prediction")
    page.keyboard.press("Tab")  # past the field: the link to the playground, which carries the context
    focused = active(page)
    assert focused["tag"] == "A" and page.evaluate("document.activeElement.href").endswith("?context=aab")


def test_the_projection_widget_with_the_keyboard_alone(opened):
    page = opened("projection/")
    widget = "[data-handtf-widget=projection]"
    assert "handtf-lg-slider" in tab_into(page, widget)["cls"]
    page.keyboard.press("Home")
    assert page.input_value(f"{widget} .handtf-lg") == "0.125"
    assert page.locator(f"{widget} .handtf-check .handtf-bad").count() == 1
    page.keyboard.press("End")
    assert abs(float(page.input_value(f"{widget} .handtf-lg")) / 2 ** 20 - 1) < 1e-5  # 2 ** 20, as the model uses it
    assert page.locator(f"{widget} .handtf-check .handtf-ok").count() == 1


def test_the_completing_widget_with_the_keyboard_alone(opened):
    page = opened("completing/")
    widget = "[data-handtf-widget=completing]"
    assert "handtf-context" in tab_into(page, widget)["cls"]
    page.keyboard.press("Control+A")
    page.keyboard.type("ba")
    assert text(page, f"{widget} .handtf-completion") == "ba" + "abaabaabaa"[:10]
    assert text(page, f"{widget} .handtf-completion mark") == "abaabaabaa"


def test_the_adder_widget_with_the_keyboard_alone(opened):
    """Tab into the first number, type both numbers, hear the sum (a polite live region) and a refused
    number (an alert); then, on a phone, Tab reaches the table of steps and the arrow keys walk it
    from the units to the last digit written; both heads' maps follow, each a named tab stop."""
    page = opened("adder/", viewport=PHONE)
    widget = "[data-handtf-adder]"
    page.wait_for_selector(f"{widget} figure[data-name=steps]")
    focused = tab_into(page, widget)
    assert "handtf-adder-number" in focused["cls"] and page.evaluate("document.activeElement.labels[0].textContent") == "a"
    summary, message = f"{widget} .handtf-prediction", f"{widget} .handtf-message"
    assert page.get_attribute(summary, "aria-live") == "polite" and page.get_attribute(message, "role") == "alert"
    page.keyboard.press("Control+A")
    page.keyboard.type("958")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.labels[0].textContent") == "b" and active(page)["value"] == page.input_value(f"{widget} input >> nth=1")
    page.keyboard.press("Control+A")
    page.keyboard.type("67")
    assert text(page, summary) == "958 + 67: the model writes 1025, which is right."
    page.keyboard.type("x")
    assert text(page, message) == "b has 'x' at position 2; write it with the digits 0-9 only. The results below are still those of the last valid numbers."
    assert page.get_attribute(f"{widget} input >> nth=1", "aria-invalid") is not None
    assert text(page, summary) == "958 + 67: the model writes 1025, which is right."  # the last valid sum stays
    page.keyboard.press("Backspace")
    page.keyboard.type("5")  # 958 + 675 = 1633: a carry into every column but the last
    assert text(page, message) == "" and text(page, summary) == "958 + 675: the model writes 1633, which is right."
    steps = f"{widget} figure[data-name=steps]"
    written = page.evaluate("(s) => [...document.querySelectorAll(s + ' tbody tr:first-child td')].map(td => td.textContent)", steps)
    assert written == ["3", "3", "6", "1"] + ["0"] * 7  # least significant first, 11 steps at 10 digits
    # the table of steps, wider than a phone: a tab stop named by its caption; the arrows walk the steps
    page.keyboard.press("Tab")
    region = active(page)
    assert region["label"] == text(page, f"{steps} figcaption") and page.evaluate("document.activeElement.closest('figure').dataset.name") == "steps"
    at_end = "(el => el.scrollLeft + el.clientWidth >= el.scrollWidth - 1)(document.activeElement)"
    for _ in range(100):
        if page.evaluate(at_end):
            break
        page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.scrollLeft") > 0 and page.evaluate(at_end)
    for name in ("head0", "head1"):  # then each head's map, as wide: named tab stops too
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('figure').dataset.name") == name and active(page)["label"]


def test_a_block_that_scrolls_sideways_is_a_tab_stop_the_arrows_scroll(opened):
    """On a phone a wide figure or formula scrolls inside its box: Tab reaches it, the arrow keys scroll it,
    and it is named by the figure's alt text."""
    page = opened("concepts/qkv/", viewport=PHONE)
    page.wait_for_selector("[data-handtf-scroll]", state="attached")
    # images load late: wait until a region has something to scroll
    page.wait_for_function("""() => [...document.querySelectorAll('[data-handtf-scroll]')]
        .some(el => el.scrollWidth > el.clientWidth + 8)""")
    # the region with the most to scroll (a display formula may overflow by a pixel or two)
    page.evaluate("""() => { const all = [...document.querySelectorAll('[data-handtf-scroll]')];
        all.sort((a, b) => (b.scrollWidth - b.clientWidth) - (a.scrollWidth - a.clientWidth));
        all[0].id = 'handtf-widest-region'; }""")
    region = page.evaluate("""() => { const el = document.getElementById('handtf-widest-region');
        return {tabIndex: el.tabIndex, role: el.getAttribute('role'), label: el.getAttribute('aria-label'),
                alt: (el.querySelector('img') || {}).alt}; }""")
    assert region["tabIndex"] == 0 and region["role"] == "region" and region["label"], region
    if region["alt"] is not None:
        assert region["label"] == region["alt"], region
    page.evaluate("""() => { const el = document.getElementById('handtf-widest-region');
        const before = document.createElement('button'); before.textContent = 'before';
        el.before(before); before.focus(); }""")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.hasAttribute('data-handtf-scroll')")
    active(page)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.scrollLeft") > 0


# ------------------------------------------------------------ what axe cannot see (issue 40)

# the focused element as an index among the page's elements (None on the body), and whether it is under the header
# Read two frames after the key: Material shows or hides the back-to-top button on the scroll event
PRESSED = """async () => { await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const el = document.activeElement; if (el === document.body) return [null, false];
    return [[...document.querySelectorAll('*')].indexOf(el), (UNDER_HEADER)(el)]; }""".replace("UNDER_HEADER", UNDER_HEADER)


@pytest.mark.parametrize("size", WALK_SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_walk_is_the_tab_keys_walk(opened, size):
    """tests/beyond_axe.py's ``WALK`` focuses every tab stop from inside the page, in the order it
    reckons Tab takes; here the keys themselves walk the attention page (its widget, formulas,
    exercises, sidebar) both ways and meet the same stops in the same order, hidden or not."""
    for reverse, key in ((False, "Tab"), (True, "Shift+Tab")):
        page = opened("attention/", viewport=size)  # a fresh page: the keys first, as a reader finds it
        if reverse:
            page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        pressed, hidden = [], 0
        for _ in range(400):
            page.keyboard.press(key)
            where, under = page.evaluate(PRESSED)
            if where is None:
                break
            pressed.append(where)
            hidden += under
        page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
        walk = page.evaluate(WALK, [reverse, True])
        assert pressed == walk["order"], (key, len(pressed), len(walk["order"]))
        assert len(pressed) > 80 and hidden == len(walk["found"]), (key, hidden, walk["found"])
        assert hidden == 0, (key, walk["found"])  # not under the header, nor the back-to-top button Shift+Tab shows


def announced(page):
    """The text of the playground's status line, and whether the edit count is inside a live region."""
    return page.evaluate("""() => { const edits = document.querySelector('.handtf-edits');
        const region = edits.closest('[role=status], [aria-live]');
        return {text: region ? region.textContent.replace(/\\s+/g, ' ').trim() : null}; }""")["text"]


def test_the_playground_announces_an_edit_a_no_op_edit_and_reset(opened):
    """WCAG 4.1.3: what changed is said in a live region, also when nothing did; the count of
    edited weights is inside it; the grid's instructions are its description; an edited
    cell's name says "edited"."""
    page = opened("playground/")
    key = page.keyboard
    tab_into(page, "[data-handtf-widget=playground]")
    for _ in range(4):
        key.press("Tab")
    assert "handtf-reset" in active(page)["cls"]
    key.press("Tab")
    cell = active(page)
    assert cell["key"] == "c_attn.w.0.0"
    described = page.evaluate("""() => { const grid = document.activeElement.closest('[role=grid]');
        const id = grid && grid.getAttribute('aria-describedby');
        return id ? document.getElementById(id).textContent : null; }""")
    assert described and "Enter" in described, described
    old = cell["text"]

    key.press("Enter")
    key.type("7")
    key.press("Enter")
    assert active(page)["label"].endswith(", edited"), active(page)
    said = announced(page)
    assert said is not None, "the edit count is outside any live region"
    assert said.startswith("7, c_attn, row ") and f"(was {old})" in said and said.endswith("1 weight edited"), said

    key.press("Enter")  # the same value again: nothing changes, and the status says so
    key.press("Control+A")
    key.type("7")
    key.press("Enter")
    said = announced(page)
    assert "unchanged" in said and said.endswith("1 weight edited"), said

    page.click(".handtf-reset")
    said = announced(page)
    assert said == "Hand-set weights restored, Lg = 1024.", said
    assert not page.locator("td.handtf-edited").count()


def test_the_chinese_playground_announces_in_chinese(opened):
    page = opened("zh/playground/?edit=c_attn.w.1.0:7")
    page.click(".handtf-reset")
    assert announced(page) == "已恢复手工设定的权重，Lg = 1024。"


CONTRAST = """([a, b]) => {
    const rgb = t => t.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                       return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
}"""

RING = """() => {
    const cell = document.activeElement, style = getComputedStyle(cell);
    const shadow = style.boxShadow.match(/rgba?\\([^)]*\\)/);
    return {outline: style.outlineColor, outlineWidth: parseFloat(style.outlineWidth), shadow: shadow && shadow[0],
            fills: [...document.querySelectorAll('td[data-key]')].map(td => getComputedStyle(td).backgroundColor)};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_grid_focus_ring_stands_out_from_every_cell(opened, scheme):
    """WCAG 1.4.11: the focused cell's ring has a part at 3:1 or more against the cell's colour,
    for every colour a weight cell takes (the accent alone was 1.6:1 on the darkest cells)."""
    page = opened("playground/", color_scheme=scheme)
    page.focus("td[data-key='c_attn.w.0.0']")
    ring = page.evaluate(RING)
    assert ring["outlineWidth"] >= 2 and ring["shadow"], ring
    assert page.evaluate(CONTRAST, [ring["outline"], ring["shadow"]]) >= 3, ring
    weak = [fill for fill in set(ring["fills"])
            if max(page.evaluate(CONTRAST, [ring["outline"], fill]), page.evaluate(CONTRAST, [ring["shadow"], fill])) < 3]
    assert len(set(ring["fills"])) >= 4 and not weak, (ring["outline"], ring["shadow"], weak)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_stale_results_are_marked_not_dimmed(opened, scheme):
    """A refused input leaves the last results on screen, marked, at full opacity (dimmed to 0.5
    their text was 3.19:1 light and 1.94:1 dark)."""
    page = opened("playground/", color_scheme=scheme)
    page.fill(".handtf-context", "aac")
    stale = page.evaluate("""() => [...document.querySelectorAll('[data-handtf-stale]')].map(el => {
        let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= +getComputedStyle(e).opacity;
        return {opacity, color: getComputedStyle(el.querySelector('dd, p, figcaption') || el).color,
                background: getComputedStyle(document.body).backgroundColor,
                border: getComputedStyle(el).borderLeftStyle}; })""")
    assert len(stale) >= 2, stale
    for block in stale:
        assert block["opacity"] == 1 and block["border"] == "dashed", block
        assert page.evaluate(CONTRAST, [block["color"], block["background"]]) >= 4.5, block


def test_forced_colours_show_the_edited_weight(opened):
    """WCAG 1.4.11 in Windows' high-contrast modes (Playwright's forced-colors emulation): the edited
    cell keeps a mark (a dashed border: box shadows vanish in forced colours); the screenshots are
    saved under $HANDTF_SCREENSHOTS when it is set."""
    page = opened("playground/?edit=c_attn.w.1.0:7")
    page.emulate_media(forced_colors="active")
    drawn(page)
    cells = {key: page.locator(f"td[data-key='{key}']") for key in ("c_attn.w.1.0", "c_attn.w.1.2")}
    looks = {key: page.evaluate("""el => { const s = getComputedStyle(el);
        return {style: s.borderTopStyle, width: parseFloat(s.borderTopWidth), shadow: s.boxShadow}; }""",
                                cell.element_handle()) for key, cell in cells.items()}
    edited, plain = looks["c_attn.w.1.0"], looks["c_attn.w.1.2"]
    assert edited["style"] == "dashed" and edited["width"] >= 2 and plain["style"] != "dashed", looks
    shots = {key: Image.open(BytesIO(cell.screenshot())).convert("L") for key, cell in cells.items()}
    folder = os.environ.get("HANDTF_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.locator("figure[data-name=c_attn]").screenshot(path=str(Path(folder) / "forced-colours-edited-weight.png"))
    edge = {key: edge_ink(shot) for key, shot in shots.items()}
    assert edge["c_attn.w.1.0"] > 2 * edge["c_attn.w.1.2"] + 10, edge


def edge_ink(image):
    """How many pixels of a cell's ring from 1 to 3 px inside its edge differ from its background
    (the outermost pixel is the grid's line, which every cell has)."""
    pixels = np.asarray(image, dtype=float)
    background = np.median(pixels)
    band = np.zeros_like(pixels, dtype=bool)
    band[1:-1, 1:-1] = True
    band[3:-3, 3:-3] = False
    return int((abs(pixels[band] - background) > 60).sum())


@pytest.mark.parametrize("language, name", [("", "Dark mode"), ("zh/", "深色模式")])
def test_the_palette_button_is_one_toggle_in_the_pages_language(opened, language, name):
    """WCAG 4.1.2: one button, named in the page's language, pressed while the page is dark; Space
    and Enter both switch once; Material's radios are out of the tab order."""
    page = opened(language + "attention/", color_scheme="light")
    button = page.locator(".md-header button.handtf-palette")
    assert button.get_attribute("aria-label") == name and button.get_attribute("aria-pressed") == "false"
    assert page.evaluate("() => [...document.querySelectorAll('input[name=__palette]')].every(r => r.tabIndex < 0)")
    button.focus()
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    page.keyboard.press("Space")
    assert page.evaluate(scheme) == "slate" and button.get_attribute("aria-pressed") == "true"
    page.keyboard.press("Enter")
    assert page.evaluate(scheme) == "default" and button.get_attribute("aria-pressed") == "false"
    active(page)


def test_the_language_menu_says_it_is_open_and_escape_closes_it(opened):
    """WCAG 1.4.13 and 4.1.2: the menu opens on focus, its button says so; Escape closes it without
    moving the pointer or the focus away, and it opens again the next time."""
    page = opened("", color_scheme="light")
    button = page.locator(".md-header .md-select button")
    shown = "() => getComputedStyle(document.querySelector('.md-header .md-select__inner')).display !== 'none'" \
            " && +getComputedStyle(document.querySelector('.md-header .md-select__inner')).opacity > 0"
    button.focus()
    page.wait_for_function(shown)  # Material fades it in
    assert button.get_attribute("aria-expanded") == "true"
    page.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false" and not page.evaluate(shown)
    assert page.evaluate("document.activeElement.closest('.md-select') !== null")
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # back into the menu: open again
    assert page.evaluate("document.activeElement.closest('.md-select') !== null")
    page.wait_for_function(shown)
    assert button.get_attribute("aria-expanded") == "true"
    # the home map's arrows are drawn, not read (CSS alternative text "")
    arrow = page.evaluate("() => getComputedStyle(document.querySelector('.handtf-map li + li'), '::after').content")
    assert arrow.endswith('/ ""'), arrow


def test_the_playground_headings_go_down_one_level_at_a_time(opened):
    page = opened("playground/")
    levels = page.evaluate("() => [...document.querySelectorAll('.md-content h1, .md-content h2, .md-content h3, .md-content h4')]"
                           ".map(h => +h.tagName[1])")
    assert levels[0] == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:])), levels
