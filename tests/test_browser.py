"""The built site in a real browser (Debian's Chromium driven by Playwright), both languages.

The site is served on localhost under the sub-path ``/handtf/``, as it would be
deployed. The pages are found by crawling from the two home pages. The
fixtures (``built_site``, ``base_url``, ``browser``, ``crawl``) are in
``conftest.py`` and shared by every test file; ``browsing.py`` has ``Visit``. Set
``HANDTF_SCREENSHOTS=DIR`` to save screenshots of a few pages for a person to
look at.
"""

import os
from pathlib import Path
from urllib.parse import unquote, urldefrag

import pytest

from browsing import Visit, is_page

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
    """Whole-page screenshots of the pages issue 12 names (and the home page), at 390 and 1280 px, light and dark."""
    folder = os.environ.get("HANDTF_SCREENSHOTS")
    if not folder:
        pytest.skip("set HANDTF_SCREENSHOTS=DIR to save screenshots of the home, attention, embeddings, multi-head and notebook pages")
    Path(folder).mkdir(parents=True, exist_ok=True)
    for language in ("", "zh/"):
        for name in SCREENSHOT_PAGES:
            for width in (390, 1280):
                for scheme in ("light", "dark"):
                    visit = Visit(browser, base_url + language + name, viewport={"width": width, "height": 900},
                                  color_scheme=scheme)
                    stem = (name.strip("/") or "home").replace("/", "-")
                    path = Path(folder) / f"{language.strip('/') or 'en'}-{stem}-{width}-{scheme}.png"
                    visit.page.screenshot(path=str(path), full_page=True)
                    visit.close()
                    assert path.stat().st_size > 10_000
