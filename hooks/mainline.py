"""MkDocs hook: where a main-line page sits on the main line, and how long it takes to read.

The main line is ``mkdocs.yml``'s ``extra.mainline`` (the home page, then the
steps from the task to the logits). For each of its pages, in each language:

- its reading time is counted from the page's own HTML as built
  (``handtf_site.reading_time.count_html``: what shows without expanding
  anything), so it cannot go stale; ``scripts/reading_time.py`` measures the
  same in Chromium and ``tests/test_reading_time.py`` holds the two together;
- ``page.meta["mainline"]`` gets its step, the number of steps, its minutes and
  the previous and next pages (nav entries, with the nav's translated titles),
  which ``overrides/partials/mainline.html`` shows at the top of the page;
- a ``<span data-reading-time="task.md"></span>`` in a page (the home page's
  list of the main line, and its detours such as ``concepts/lookup.md``) is
  filled with that page's minutes, and ``data-reading-time="mainline"`` with
  the whole main line's;
- on every page, each collapsed note ("Going deeper: ...", "深入一步：...")
  ends its summary with the minutes its content adds when opened
  (``handtf_site.reading_time.label_collapsed``), counted by the same rules.

MkDocs renders every page's Markdown before it renders any template, so the
home page's template already knows every step's minutes.
"""

import re

from handtf_site.reading_time import count_html, label_collapsed, shown_minutes

_MINUTES = {}  # English page name -> minutes, for the language being built
_CONTENT = {}  # English page name -> its HTML, counted when a page asks for its minutes
_PLACEHOLDER = re.compile(r'<span data-reading-time="([^"]+)"></span>')
_UNIT = {"en": "{} min", "zh": "{} 分钟"}


def english_name(src_uri):
    """``task.zh.md`` -> ``task.md``; ``task.md`` stays."""
    return re.sub(r"\.zh\.md$", ".md", src_uri)


def _language(page):
    return "zh" if page.file.src_uri.endswith(".zh.md") else "en"


def on_files(files, config):
    _MINUTES.clear()  # each language is a build of its own (mkdocs-static-i18n)
    _CONTENT.clear()
    return files


def on_page_content(html, page, config, files):
    name = english_name(page.file.src_uri)
    html = label_collapsed(html, _UNIT[_language(page)])
    _CONTENT[name] = html
    if name in config.extra.get("mainline", ()):
        _MINUTES[name] = count_html(html)["minutes"]
    return html


def page_minutes(name):
    """The minutes of page ``name`` ("concepts/lookup.md") as built, details closed; None if no such page."""
    if name not in _MINUTES and name in _CONTENT:
        _MINUTES[name] = count_html(_CONTENT[name])["minutes"]
    return _MINUTES.get(name)


def _entry(nav_page):
    return {"title": nav_page.title, "url": nav_page.url} if nav_page else None


def on_page_context(context, page, config, nav):
    mainline = list(config.extra.get("mainline", ()))
    language = _language(page)
    unit = _UNIT[language]

    def minutes_of(key):
        if key == "mainline":
            return shown_minutes(sum(_MINUTES.get(name, 0) for name in mainline))
        if page_minutes(key) is None:
            raise ValueError(f"{page.file.src_uri}: data-reading-time={key!r} names no page of the site")
        return shown_minutes(page_minutes(key))

    if page.content and "data-reading-time" in page.content:
        page.content = _PLACEHOLDER.sub(
            lambda m: f'<span data-reading-time="{m[1]}">{unit.format(minutes_of(m[1]))}</span>', page.content
        )
    name = english_name(page.file.src_uri)
    if name not in mainline:
        return context
    by_name = {english_name(p.file.src_uri): p for p in nav.pages}
    steps = [by_name.get(n) for n in mainline]
    step = mainline.index(name)
    page.meta["mainline"] = {
        "step": step,  # the home page is 0, the first step 1
        "steps": len(mainline) - 1,
        "minutes": minutes_of(name),
        "exact": _MINUTES[name],  # before rounding, for tests/test_reading_time.py
        "total": minutes_of("mainline"),
        "previous": _entry(steps[step - 1]) if step > 0 else None,
        "next": _entry(steps[step + 1]) if step + 1 < len(steps) else None,
    }
    return context
