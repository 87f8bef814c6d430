"""What the playground says about a refused input, in both languages.

A character that is not a token is named by its position counted from 0, as
the tokenizer's own error does. While an input is refused, the results on
screen are still those of the last valid input: the widget says so and dims
them, and the next valid input clears both.
"""

import re

import pytest

import handtf
from browsing import Visit

STALE = {"en": "still those of the last valid input", "zh": "仍是上一次有效输入的结果"}
POSITION = {"en": "at position {} (counting from 0", "zh": "位置 {}（与分词器一样从 0 数起）"}


def tokenizer_position(text):
    """The position the Python tokenizer names for the first character of ``text`` that is not a token."""
    with pytest.raises(ValueError) as error:
        handtf.tokenize(text)
    return int(re.search(r"at position (\d+)", str(error.value))[1])


def dimmed(page):
    """Whether the results and the intermediates are marked stale (issue 40: marked, at full opacity)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.handtf-results, .handtf-intermediates')]"
        ".map(e => e.hasAttribute('data-handtf-stale') && getComputedStyle(e).opacity === '1' ? 'stale' : getComputedStyle(e).opacity)"
    )


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_refused_context_names_its_position_from_0_and_marks_the_results_stale(browser, base_url, language):
    prefix = "" if language == "en" else "zh/"
    visit = Visit(browser, f"{base_url}{prefix}playground/", viewport={"width": 1280, "height": 900})
    page = visit.page
    try:
        page.fill(".handtf-context", "abab")
        prediction = page.inner_text(".handtf-prediction")
        assert dimmed(page) == ["1", "1"]
        page.fill(".handtf-context", "aabx")
        message = page.inner_text(".handtf-message")
        assert POSITION[language].format(tokenizer_position("aabx")) in message, message
        assert STALE[language] in message
        assert page.evaluate("() => document.querySelector('.handtf-playground').classList.contains('handtf-stale')")
        assert dimmed(page) == ["stale", "stale"]
        assert page.inner_text(".handtf-prediction") == prediction  # the last valid context's, not updated
        page.fill(".handtf-context", "aab")
        assert page.inner_text(".handtf-message") == ""
        assert dimmed(page) == ["1", "1"]
        assert page.inner_text(".handtf-prediction") != prediction
    finally:
        visit.close()


def test_a_refused_lg_marks_the_results_stale_and_a_valid_one_clears_it(browser, base_url):
    visit = Visit(browser, f"{base_url}playground/", viewport={"width": 1280, "height": 900})
    page = visit.page
    try:
        page.fill(".handtf-lg", "-3")
        page.dispatch_event(".handtf-lg", "change")
        assert STALE["en"] in page.inner_text(".handtf-message")
        assert dimmed(page) == ["stale", "stale"]
        page.fill(".handtf-lg", "8")
        page.dispatch_event(".handtf-lg", "change")
        assert page.inner_text(".handtf-message") == "" and dimmed(page) == ["1", "1"]
    finally:
        visit.close()
