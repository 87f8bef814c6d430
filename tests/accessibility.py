"""Every reader can use the site: axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules on every page.

axe-core (pinned below, vendored from npm with its license in ``tests/vendor/axe-core``
and loaded only here, never by the site) runs in each page the crawl loads
(``crawl``, 1280 px, both languages): each built page once, in the light
scheme with every rule of those levels, then switched to the dark scheme with the
header's palette button, as a reader would, with the rules whose result depends on
the colours (``DARK_RULES``); then switched back, as the crawl's other reads expect.

A violation fails the test unless ``ALLOWED`` names its rule and its element: each
entry is a violation that is Material's own, cannot be fixed from the site, and has
an upstream issue. ``test_axe_catches_planted_violations`` shows that the check
fails on a page with violations, including one of an allowed rule on another
element.

What axe found before issue 27's fixes (axe-core 4.14.1, the 58 built pages, light
and dark, counted as here): color-contrast 6,039 elements on every page (Material's
code colours at 4.44 to 4.48:1, its footer, its button and its links on code in the
dark scheme), link-in-text-block 620 (links told from the text by colour alone),
target-size 84 on 14 pages (sidebar links 18 px high), scrollable-region-focusable 4
(the notebook page's plot, in both languages), label-content-name-mismatch 1,152
(the playground's 288 weight cells, named without the value they show). After: none,
with an empty allowed list (docs/assets/stylesheets/extra.css, its section
"Accessibility"; docs/assets/reader/scroll-regions.js; playground.js's cell names).
"""

import re
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import pytest

from browsing import TOGGLE, drawn

AXE_VERSION = "4.14.1"  # the npm package axe-core; to update: npm pack axe-core@VERSION, copy axe.min.js and the licenses
AXE = Path(__file__).parent / "vendor" / "axe-core"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
DARK_RULES = ["color-contrast", "link-in-text-block"]  # the rules that read colours; the others read the page's structure

# (rule, CSS selector of the elements it may flag, upstream issue, why it cannot be fixed here)
ALLOWED = []

RUN = """async ([options, allowed]) => {
    if (typeof axe === 'undefined') throw new Error('axe-core is not loaded');
    const result = await axe.run(document, options);
    const found = [];
    for (const violation of result.violations) {
        for (const node of violation.nodes) {
            const selector = node.target.join(' ');
            const element = node.target.length === 1 ? document.querySelector(selector) : null;
            const excuse = allowed.find(([rule, where]) => rule === violation.id && element && element.matches(where));
            found.push({rule: violation.id, target: selector, allowed: excuse ? excuse[1] : null,
                        why: (node.failureSummary || '').split('\\n').slice(1).join(' ').trim().slice(0, 200)});
        }
    }
    return found;
}"""


def axe_options(rules=None):
    """axe.run's options: the WCAG A and AA tags, or only ``rules``; violations only."""
    run_only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": TAGS}
    return {"runOnly": run_only, "resultTypes": ["violations"]}


def load_axe(page):
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(content=(AXE / "axe.min.js").read_text(encoding="utf-8"))


def violations(page, rules=None):
    """Every element axe flags on the page as it is: [{rule, target, allowed, why}]."""
    page.bring_to_front()  # axe-core runs in timer callbacks, which Chromium slows in a page behind another tab
    load_axe(page)
    allowed = [[rule, where] for rule, where, _, _ in ALLOWED]
    return page.evaluate(RUN, [axe_options(rules), allowed])


def axe_both_schemes(page):
    """``{"light": [violation, ...], "dark": [...]}`` of a crawled page, as the crawl reads it
    (tests/test_reader.py); the page is left in the light scheme. The playground's states
    (``?context=...``) are one built page, read once."""
    found = {"light": violations(page)}
    page.evaluate(TOGGLE, "__palette_1")
    drawn(page)  # the widgets take the scheme's colours on the next frame
    try:
        found["dark"] = violations(page, DARK_RULES)
    finally:
        page.evaluate(TOGGLE, "__palette_0")
    return found


@pytest.fixture(scope="module")
def axe_report(crawl):
    """{(url, scheme): [violation, ...]} for every built page in both schemes."""
    return {(url, scheme): found for url, (_, facts) in sorted(crawl.items()) if "axe" in facts
            for scheme, found in facts["axe"].items()}


def unexplained(report):
    return [(url, scheme, v) for (url, scheme), found in report.items() for v in found if not v["allowed"]]


def describe(problems, limit=40):
    counts = Counter(v["rule"] for _, _, v in problems)
    lines = [f"{rule}: {n} elements" for rule, n in counts.most_common()]
    lines += [f"{url} ({scheme}) {v['rule']}: {v['target']}: {v['why']}" for url, scheme, v in problems[:limit]]
    return "\n".join(lines)


def test_every_page_in_both_languages_and_schemes_was_checked(axe_report, base_url):
    urls = {url for url, _ in axe_report}
    assert len(urls) >= 50, sorted(urls)
    english = {url for url in urls if not url.startswith(base_url + "zh/")}
    assert {url.replace(base_url + "zh/", base_url) for url in urls - english} == english
    assert {scheme for _, scheme in axe_report} == {"light", "dark"}


def test_no_page_violates_wcag_a_or_aa_outside_the_allowed_list(axe_report):
    problems = unexplained(axe_report)
    assert not problems, "axe-core " + AXE_VERSION + " finds:\n" + describe(problems)


def test_each_allowed_entry_names_its_upstream_issue_and_is_still_needed(axe_report):
    used = {v["allowed"] for found in axe_report.values() for v in found if v["allowed"]}
    for rule, where, issue, reason in ALLOWED:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+#\d+", issue), issue
        assert len(reason) > 20, reason
        assert where in used, f"{rule} on {where} is allowed but no longer found: remove it from ALLOWED"


def test_each_page_declares_its_language(crawl, base_url):
    """A screen reader reads a Chinese page in Chinese: <html lang="zh">."""
    wrong = {url: facts["lang"] for url, (_, facts) in crawl.items()
             if facts["lang"] != ("zh" if url.startswith(base_url + "zh/") else "en")}
    assert not wrong, wrong


HAN = re.compile("[\u4e00-\u9fff]")


def figure_name(src):
    """assets/figures/qkv.zh.dark.svg#only-dark -> qkv"""
    return urlparse(src).path.rsplit("/", 1)[-1].split(".")[0]


def test_each_figure_says_what_it_shows(crawl, base_url):
    """A figure's alt text describes what it shows (at least five words, or eight Chinese
    characters), in the page's language, and two different figures on a page never share one."""
    problems, figures = [], 0
    for url, (_, facts) in sorted(crawl.items()):
        chinese = url.startswith(base_url + "zh/")
        names_by_alt = {}
        for image in (i for i in facts["images"] if "/assets/figures/" in i["src"]):
            figures += 1
            alt = image["alt"]
            names_by_alt.setdefault(alt, set()).add(figure_name(image["src"]))
            long_enough = len(HAN.findall(alt)) >= 8 if chinese else len(alt.split()) >= 5
            if not long_enough or bool(HAN.search(alt)) != chinese:
                problems.append(f"{url}: {figure_name(image['src'])}: {alt!r}")
        problems += [f"{url}: {sorted(names)} share the alt text {alt!r}" for alt, names in names_by_alt.items()
                     if len(names) > 1]
    assert figures > 100, figures
    assert not problems, "\n".join(problems)


PLANTED = """<!doctype html><html lang="en"><head><title>planted</title></head><body><main>
<h1>Planted violations</h1>
<p style="color:#777;background:#fff">Grey on white, 4.48:1.</p>
<p style="color:#212121">Some text with <a href="#x" style="color:#4051b5;text-decoration:none">a link told apart by colour only</a>
and more text around it so that it sits in a block of text.</p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<div style="width:100px;overflow-x:auto"><p style="width:400px">A region that scrolls but takes no focus.</p></div>
<div role="grid" aria-label="weights"><div role="row"><div role="gridcell" tabindex="0" aria-label="row a">7</div></div></div>
</main></body></html>"""


def test_axe_catches_planted_violations(browser):
    """The same check on a page with five kinds of violation: it reports each of them."""
    page = browser.new_page()
    try:
        page.set_content(PLANTED)
        found = violations(page)
    finally:
        page.close()
    rules = {v["rule"] for v in found if not v["allowed"]}
    planted = {"color-contrast", "link-in-text-block", "image-alt", "scrollable-region-focusable", "label-content-name-mismatch"}
    assert planted <= rules, found


def test_the_allowed_list_allows_its_rule_on_its_elements_only(browser):
    """An allowed rule is still a failure on any other element."""
    page = browser.new_page()
    try:
        page.set_content(PLANTED)
        load_axe(page)
        found = page.evaluate(RUN, [axe_options(["color-contrast"]), [["color-contrast", "p.not-this-one"]]])
    finally:
        page.close()
    assert found and not any(v["allowed"] for v in found), found


def test_axe_is_the_pinned_version_with_its_license():
    source = (AXE / "axe.min.js").read_text(encoding="utf-8")
    assert re.search(r"axe v" + re.escape(AXE_VERSION) + r"\b", source[:500]), source[:200]
    assert "Mozilla Public License, version 2.0" in (AXE / "LICENSE").read_text(encoding="utf-8")
    assert (AXE / "LICENSE-3RD-PARTY.txt").exists()
