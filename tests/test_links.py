"""Every internal link and anchor of the built site resolves, in both languages: read from the
session's one strict build (``built_site``), without a browser, so it is in the fast lane
(``python -m pytest -m "not slow"``). The crawl in tests/test_reader.py checks the links again
as a browser shows them, scripts and all.

The trap it names: a link from a Chinese page to a heading uses the Chinese heading's id
(``decoding.md#温度``, not ``#temperature``); the message says which id to use.
"""

import textwrap

from links import broken_links, site_links


def test_every_internal_link_and_anchor_resolves(built_site):
    assert len(site_links(built_site)) >= 40, "too few built pages found: is the site where it was built?"
    problems = broken_links(built_site)
    assert not problems, "\n".join(problems)


def write(site, page, body):
    path = site / page / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body), encoding="utf-8")


def test_a_broken_link_and_anchor_are_named_with_the_ids_to_use(tmp_path):
    """The three mistakes, planted in a small site of two pages per language."""
    write(tmp_path, "", '<h1 id="home">Home</h1><a href="decoding/#temperature">ok</a><a href="decodng/">typo</a>')
    write(tmp_path, "decoding", '<h1 id="decoding">D</h1><h2 id="temperature">T</h2><h2 id="top-k">K</h2>'
                                '<a href="#temprature">near</a><a href="../zh/decoding/#温度">ok</a>'
                                '<pre><code>&lt;a href="#in-code"&gt;</code></pre>')
    write(tmp_path, "zh", '<h1 id="首页">首页</h1><a href="decoding/#temperature">trap</a><a href="decoding/#温度">ok</a>')
    write(tmp_path, "zh/decoding", '<h1 id="解码">解码</h1><h2 id="温度">温度</h2><h2 id="top-k">K</h2>')
    problems = broken_links(tmp_path)
    assert len(problems) == 3, problems
    typo, near, trap = (next(p for p in problems if word in p) for word in ("decodng", "temprature", "zh/decoding/ has"))
    assert "links to decodng/: no page decodng/" in typo
    assert "decoding/ has no id #temprature; the closest: #temperature" in near
    assert "zh/decoding/ has no id #temperature" in trap and "use #温度, the same heading there" in trap
