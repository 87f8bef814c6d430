"""The playground and the chapters' widgets work with the keyboard alone, and show where the focus is.

Each test opens its page (the widgets change as they are used, so not the crawl's
pages), moves the focus into the widget as a reader would reach it with Tab,
and from there uses only the keyboard: Tab and Shift+Tab between the controls,
typing, the arrow keys, Home and End, Enter and Escape. After each step it
checks what the reader would see change, and that the focused element draws a
focus ring (an outline or a box shadow).
"""

import pytest

from browsing import Visit

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
