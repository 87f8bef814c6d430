"""A page's closing "Next:" line leads to the page that follows it in the nav, in both languages.

Every page of the hand-made model's part ends with one (the reader who finished a page is
told where the path goes on); a page moved in the nav without its line fails here.
"""

import posixpath
import re

from pages import DOCS, nav, nav_walk

NEXT = re.compile(r"^(?:Next:|下一页：)(?:[^\n]|\n(?!\n))*?\]\(([^)#\s]+)", re.MULTILINE)  # the paragraph's first link
PART_1 = "The hand-made model"


def reading_order():
    """The nav's pages in reading order, and the pages of part 1."""
    config = nav()
    part_1 = next(list(nav_walk(item[PART_1])) for item in config if isinstance(item, dict) and PART_1 in item)
    return [name for name in nav_walk(config) if name.endswith(".md")], part_1


def next_links(name, language):
    page = DOCS / (name if language == "en" else name[: -len(".md")] + ".zh.md")
    return [posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
            for target in NEXT.findall(page.read_text(encoding="utf-8"))]


def test_each_next_line_leads_to_the_next_page_of_the_nav():
    order, part_1 = reading_order()
    checked = 0
    for here, after in zip(order, order[1:]):
        for language in ("en", "zh"):
            links = next_links(here, language)
            assert len(links) <= 1, (here, language, links)
            assert links in ([], [after]), f"{language} {here}: Next leads to {links[0]}, the nav's next page is {after}"
            checked += len(links)
    assert checked >= 2 * (len(part_1) - 1), checked


def test_every_page_of_part_1_says_what_comes_next():
    _, part_1 = reading_order()
    for name in part_1:
        for language in ("en", "zh"):
            assert next_links(name, language), f"{language} {name} has no Next line"
