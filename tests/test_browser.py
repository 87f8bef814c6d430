"""The built site in a real browser (Debian's Chromium driven by Playwright), both languages.

The site is served on localhost under the sub-path ``/handtf/``, as it would be
deployed. The checks of every page, found by crawling from the two home pages,
are in ``test_reader.py``. The fixtures (``built_site``, ``base_url``,
``browser``, ``crawl``) are in ``conftest.py`` and shared by every test file;
``browsing.py`` has ``Visit``. Set
``HANDTF_SCREENSHOTS=DIR`` to save screenshots of a few pages for a person to
look at.
"""

import os
from pathlib import Path

import pytest

from browsing import Visit


def test_clicking_the_language_switcher(browser, base_url):
    visit = Visit(browser, base_url + "attention/")
    try:
        visit.page.locator(".md-header .md-select").first.hover()
        visit.page.click("a[hreflang='zh']")
        visit.page.wait_for_url(base_url + "zh/attention/")
        assert visit.page.evaluate("document.documentElement.lang") == "zh"
    finally:
        visit.close()


def search(browser, url, query):
    """Type ``query`` into the page's search box; return the result links."""
    visit = Visit(browser, url)
    try:
        visit.page.click("input.md-search__input")
        visit.page.keyboard.type(query)
        visit.page.keyboard.press("End")  # a keyup: Material searches on key events
        visit.page.wait_for_selector(".md-search-result__item a", timeout=10_000)
        return visit.page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
    finally:
        visit.close()


def test_search_finds_an_english_term_on_english_pages(browser, base_url):
    results = search(browser, base_url, "softmax")
    assert results and all(not r.startswith(base_url + "zh/") for r in results), results


def test_search_finds_a_chinese_word_inside_a_sentence(browser, base_url):
    results = search(browser, base_url + "zh/", "注意力")
    assert results and all(r.startswith(base_url + "zh/") for r in results), results


SCREENSHOT_PAGES = ["", "attention/", "embeddings/", "concepts/multi-head/", "concepts/playground/"]


def test_screenshots_when_asked(browser, base_url):
    """Whole-page screenshots of the pages issue 12 names (and the home page), at 390 and 1280 px, light and dark;
    or of the pages named in ``HANDTF_SCREENSHOT_PAGES`` (``concepts/NAME/``, comma-separated), e.g. a new page."""
    folder = os.environ.get("HANDTF_SCREENSHOTS")
    if not folder:
        pytest.skip("set HANDTF_SCREENSHOTS=DIR to save screenshots of the home, attention, embeddings, multi-head and notebook pages")
    Path(folder).mkdir(parents=True, exist_ok=True)
    asked = [name.strip() for name in os.environ.get("HANDTF_SCREENSHOT_PAGES", "").split(",") if name.strip()]
    for language in ("", "zh/"):
        for name in asked or SCREENSHOT_PAGES:
            for width in (390, 1280):
                for scheme in ("light", "dark"):
                    visit = Visit(browser, base_url + language + name, viewport={"width": width, "height": 900},
                                  color_scheme=scheme)
                    stem = (name.strip("/") or "home").replace("/", "-")
                    path = Path(folder) / f"{language.strip('/') or 'en'}-{stem}-{width}-{scheme}.png"
                    visit.page.screenshot(path=str(path), full_page=True)
                    visit.close()
                    assert path.stat().st_size > 10_000
