"""Write the skeleton of a new page pair: python scripts/new_page.py concepts/NAME "English title" "中文标题".

What it writes (CONTRIBUTING, "Adding a concept page, step by step", says what comes after):

- ``docs/NAME.md`` and ``docs/NAME.zh.md``: the house layout (the idea, a section
  with an example and the figure, a summary, exercises with hint and solution),
  the same examples in both;
- ``mkdocs.yml``: the page in the nav, in the section of the page it goes before,
  and its Chinese title under the ``zh`` language's ``nav_translations``
  (a text insertion: comments and layout stay as they are);
- ``docs/index.md`` and ``docs/index.zh.md``: a link in the list of every page;
- the closing "Next:" line (``下一页：``) of the new page, to the page after it in the nav,
  and of the page before it, which now leads to the new page (tests/test_next_links.py);
- a figure stub in the figures registry (``scripts/figures/PART.py``,
  ``@figure("NAME")``) and its drawn SVGs;
- ``tests/test_NAME.py``: a test stub (skipped until written);
- ``CHANGELOG.md``: a line under ``## Unreleased``.

Every place the contributor still has to write says ``TODO(new_page)``;
``tests/test_new_page.py`` lists the ones left (file and line), so a stub is
never published. With ``--function NAME`` (a function the package already
exports, between ``# --8<-- [start:NAME]`` and ``[end:NAME]`` markers) the pages
import it and embed its code; its module is found from the package itself.

Options: ``--before PAGE`` puts the page in the nav before PAGE (and in PAGE's
section; default: before the FAQ for a concept page, before the live playground
for a top-level one); ``--figure NAME`` names the figure (default: the page's
name); ``--no-render`` leaves the figure undrawn.
Bad input (an existing page, a bad name, a missing title) gets one line and exit code 2.
"""

import argparse
import ast
import importlib
import inspect
import json
import keyword
import posixpath
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TODO = "TODO(new_page)"
NAME = re.compile(r"(concepts/)?[a-z][a-z0-9]*(-[a-z0-9]+)*")
CJK = re.compile(r"[\u3400-\u9fff]")
RESERVED = {"index", "zh", "en", "assets", "search", "concepts"}  # the site's own folders and pages
MAX_NAME = 60  # characters of a page's name: test_NAME.py, NAME.phone.zh.dark.svg, ... stay far below 255 bytes
MAX_TITLE = 120  # characters of a title: a heading and a nav entry, not a paragraph

# Where a page of each folder goes unless --before says otherwise, which figures module
# draws its figure (one of scripts/figures' PARTS) and how many exercises it needs
# (tests/test_exercises.py: three on a part-1 page, two on a concept page).
FOLDERS = {
    "concepts": {"before": "concepts/faq.md", "figures": "concepts", "exercises": 2, "up": "../"},
    "": {"before": "playground.md", "figures": "part1", "exercises": 3, "up": ""},
}
WORDS = {  # the house layout's fixed words, in each language
    "en": {"summary": "## Summary", "exercises": "## Exercises", "hint": '??? tip "Hint"',
           "solution": '??? success "Solution"', "levels": ["*(easy)*", "*(medium)*", "*(hard)*"],
           "separator": ", "},
    "zh": {"summary": "## 小结", "exercises": "## 练习", "hint": '??? tip "提示"',
           "solution": '??? success "解答"', "levels": ["*（简单）*", "*（中等）*", "*（较难）*"],
           "separator": "、"},
}
TEXT = {  # what the contributor is asked to write, in the page's language
    "en": {
        "intro": "the idea in two or three sentences: what it is, why a Transformer needs it, and what this page builds.",
        "section": "The first idea",
        "prose": "prose first (one idea per section), then at once the code that does it, then its output.",
        "figure": "draw it from the package; say in words what the figure shows",
        "summary": "one line per idea of the page.",
        "title": "Title",
        "question": "the question.",
        "hint": "where to look, not the answer.",
        "solution": "the answer; its examples run by themselves, so they import what they use.",
    },
    "zh": {
        "intro": "用两三句话讲清这个概念：它是什么，Transformer 为什么需要它，本页要做出什么。",
        "section": "第一个概念",
        "prose": "先写文字（每节一个概念），紧接着给出实现它的代码，再给出输出。",
        "figure": "用包里的代码画出来；用文字说明图中画的是什么",
        "summary": "每个概念一行。",
        "title": "标题",
        "question": "题目。",
        "hint": "指出该看哪里，不给答案。",
        "solution": "解答；其中的示例要能单独运行，所以自己导入要用的东西。",
    },
}


class Refused(Exception):
    """Bad input: said in one line, exit code 2."""


def say_yaml(text):
    """A YAML scalar for ``text``: as it is when plain YAML reads it back unchanged, else double-quoted."""
    import yaml

    plain = not re.search(r": |\s#|^[-?:,\[\]{}#&*!|>'\"%@`\s]|[:\s]$", text) and yaml.safe_load(text) == text
    return text if plain else json.dumps(text, ensure_ascii=False)


def markdown_text(text):
    """``text`` as Markdown shows it, letter for letter: HTML's ``< > &`` as entities, Markdown's marks
    (``[ ] * _ ` # \\``) escaped, so a title is never raw HTML, a link or a heading's closing ``#``."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_\[\]#])", r"\\\1", text)


def shown(text, most=40):
    """``text`` for a one-line message: its repr, cut at ``most`` characters."""
    return repr(text) if len(text) <= most else f"{text[:most]!r}... ({len(text):,} characters)"


def nav_entries(lines):
    """``[(line number, indent, title, page)]`` of every nav entry that names a page."""
    start = next(i for i, line in enumerate(lines) if line.rstrip() == "nav:")
    entries = []
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if line.strip() and not line.startswith(" "):
            break
        found = re.match(r"^(\s*)- (.+?):\s+(\S+\.(?:md|ipynb))\s*$", line)
        if found:
            entries.append((number, found[1], found[2].strip("\"'"), found[3]))
    return entries


def add_to_mkdocs_yml(text, page, title, chinese, before):
    """mkdocs.yml's text with the page in the nav before ``before`` and its title translated."""
    lines = text.split("\n")
    entries = nav_entries(lines)
    if page in [entry[3] for entry in entries]:
        raise Refused(f"{page} is already in mkdocs.yml's nav")
    if title in nav_titles(text):
        raise Refused(f"another page of the nav is called {title!r}: give this one its own title")
    if chinese in chinese_titles(text).values():
        raise Refused(f"another page of the nav is called {chinese!r} in Chinese: give this one its own title")
    where = [entry for entry in entries if entry[3] == before]
    if not where:
        raise Refused(f"--before {before}: no such page in mkdocs.yml's nav")
    number, indent, before_title, _ = where[0]
    lines.insert(number, f"{indent}- {say_yaml(title)}: {page}")
    # The Chinese title, before the translation of the page it goes before (else at the end of the block).
    start = next(i for i, line in enumerate(lines) if line.strip() == "nav_translations:")
    block_indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > block_indent):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    inner = re.match(r"^\s*", lines[start + 1])[0]
    keys = {re.split(r":\s", line.strip(), maxsplit=1)[0].strip("\"'"): i for i, line in enumerate(lines[start + 1:end], start + 1)}
    lines.insert(keys.get(before_title, end), f"{inner}{say_yaml(title)}: {say_yaml(chinese)}")
    return "\n".join(lines)


def nav_items(node):
    """Every ``(title, value)`` of a nav, sections and pages, depth first (a page's value is its file)."""
    if isinstance(node, list):
        for item in node:
            yield from nav_items(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from nav_items(value)


def nav_titles(text):
    """Every title of mkdocs.yml's nav (pages and sections), as MkDocs reads them."""
    from mkdocs.utils.yaml import yaml_load

    return {title for title, _ in nav_items(yaml_load(text)["nav"])}


def zh_translations(config):
    """The ``nav_translations`` of the ``zh`` language in a config as MkDocs reads it."""
    (i18n,) = [plugin["i18n"] for plugin in config["plugins"] if isinstance(plugin, dict) and "i18n" in plugin]
    (zh,) = [language for language in i18n["languages"] if language["locale"] == "zh"]
    return zh["nav_translations"]


def chinese_titles(text):
    """mkdocs.yml's ``nav_translations`` of the ``zh`` language, as MkDocs reads them."""
    from mkdocs.utils.yaml import yaml_load

    return zh_translations(yaml_load(text))


def check_mkdocs_yml(text, page, title, chinese):
    """Read the new mkdocs.yml back as MkDocs does: the page in the nav, its title translated."""
    from mkdocs.utils.yaml import yaml_load

    config = yaml_load(text)
    if (title, page) not in [(key, value) for key, value in nav_items(config["nav"]) if isinstance(value, str)]:
        raise Refused("the new nav entry does not read back from mkdocs.yml: add it by hand")
    if zh_translations(config).get(title) != chinese:
        raise Refused("the new nav translation does not read back from mkdocs.yml: add it by hand")


def link_text(title, language):
    """The home page's words for a link: lower case inside an English sentence (not an acronym), as Markdown."""
    if language == "en" and title[1:2].islower():
        title = title[0].lower() + title[1:]
    return markdown_text(title)


def add_to_home(text, page, title, language, before, nav_pages):
    """A home page with a link to ``page`` in its list of every page, just before the link to ``before``."""
    link = f"[{link_text(title, language)}]({page})"
    separator = WORDS[language]["separator"]
    at = text.rfind(f"]({before})")
    if at >= 0:
        start = text.rfind("[", 0, at)
        indent = text[text.rfind("\n", 0, start) + 1 : start]
        if language == "en" and not indent.strip():  # the link it goes before starts a line: so does this one
            return text[:start] + link + separator.rstrip() + "\n" + indent + text[start:]
        return text[:start] + link + separator + text[start:]
    # No link to ``before``: after the last link to a page of the nav.
    ends = [m.end() for m in re.finditer(r"\]\((" + "|".join(map(re.escape, nav_pages)) + r")\)", text)]
    if not ends:
        raise Refused(f"the {language} home page links to no page of the nav: add the link by hand")
    return text[: ends[-1]] + separator + link + text[ends[-1]:]


def page_text(language, title, page, figure, function, exercises):
    """A new page in the house layout: the idea, one section with an example and the figure, summary, exercises."""
    words, ask = WORDS[language], TEXT[language]
    up = FOLDERS["concepts" if page.startswith("concepts/") else ""]["up"]
    imports = ", ".join(sorted({"show", *([function["name"]] if function else [])}))
    colon = "：" if language == "zh" else ": "
    todo = f"{TODO}{colon}"
    listing = f'```python\n--8<-- "{function["file"]}:{function["name"]}"\n```\n\n' if function else ""
    parts = [
        f"# {markdown_text(title)}\n\n{todo}{ask['intro']}\n",
        f"## {ask['section']}\n\n{todo}{ask['prose']}\n",
        listing
        + "```pycon\n>>> import numpy as np\n"
        + f">>> from handtf import {imports}\n"
        + '>>> show(np.eye(2), rows=["x0", "x1"], cols=["a", "b"])\n    a  b\nx0  1  0\nx1  0  1\n\n```\n',
        f"![{todo}{ask['figure']}]({up}assets/figures/{figure}.svg#only-light)\n"
        f"![{todo}{ask['figure']}]({up}assets/figures/{figure}.dark.svg#only-dark)\n",
        f"{words['summary']}\n\n- {todo}{ask['summary']}\n",
        f"{words['exercises']}\n",
    ]
    for number in range(1, exercises + 1):
        level = words["levels"][min(number - 1, 2)]
        end = "。" if language == "zh" else "."
        parts.append(
            f"**{number}. {ask['title']} {TODO}{end}** {level} {todo}{ask['question']}\n\n"
            f"{words['hint']}\n    {todo}{ask['hint']}\n\n"
            f"{words['solution']}\n    {todo}{ask['solution']}\n\n"
            "    ```pycon\n    >>> import numpy as np\n    >>> int(np.eye(2).sum())\n    2\n\n    ```\n"
        )
    return "\n".join(parts)


def figure_stub(name, function_name, page):
    return f'''

@figure("{name}")
def {function_name}():
    """{TODO}: draw the idea of docs/{page} from the package (CONTRIBUTING, "Code and figures")."""
    from .common import matrix_figure

    return matrix_figure(np.eye(2), ["x0", "x1"], ["a", "b"], "stub")
'''


def test_stub(page, title, function):
    what = f"``{function['name']}``" if function else "the page's function"
    title = title.replace("\\", "\\\\").replace('"', '\\"')  # inside a docstring
    return f'''"""{title} (docs/{page}): {what} against an independent derivation.

Expected values come from a derivation by hand, a formula, or a second implementation
written here with plain loops (CONTRIBUTING, "Adding a concept page, step by step", step 4).
"""

import pytest


@pytest.mark.skip(reason="{TODO}: a stub written by scripts/new_page.py")
def test_it_matches_a_derivation_by_hand():
    """{TODO}: the test of {what}."""
'''


def add_to_changelog(text, page, title):
    line = f"- A page on {link_text(title, 'en')} (`docs/{page}`): {TODO}, what it teaches in one line."
    found = re.search(r"^## Unreleased\n+### Added\n", text, re.MULTILINE)
    if found:
        return text[: found.end()] + line + "\n" + text[found.end():]
    found = re.search(r"^## Unreleased\n", text, re.MULTILINE)
    if found:
        return text[: found.end()] + "\n### Added\n" + line + "\n" + text[found.end():]
    at = re.search(r"^## ", text, re.MULTILINE)
    at = at.start() if at else len(text)
    return text[:at] + f"## Unreleased\n\n### Added\n{line}\n\n" + text[at:]


def figure_parts(root):
    """scripts/figures' PARTS (the figure modules), read from its __init__ without importing matplotlib."""
    tree = ast.parse((root / "scripts" / "figures" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PARTS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise Refused("scripts/figures/__init__.py has no PARTS")


def registered_figures(root):
    return {m[1] for path in (root / "scripts" / "figures").glob("*.py")
            for m in re.finditer(r"@figure\(\s*\"([^\"]+)\"", path.read_text(encoding="utf-8"))}


def find_function(name, root):
    """``{"name", "file"}`` of a function handtf exports, with the file its section markers are in."""
    import handtf

    if not hasattr(handtf, name):
        raise Refused(f"--function {name}: handtf exports no {name} (write it first: CONTRIBUTING, steps 1 and 2)")
    function = inspect.unwrap(getattr(handtf, name))
    if not inspect.isfunction(function):
        raise Refused(f"--function {name}: handtf.{name} is not a function (its type is {type(function).__name__})")
    module = importlib.import_module(function.__module__)
    path = Path(module.__file__).resolve()
    for checkout in (root.resolve(), ROOT):
        if path.is_relative_to(checkout):
            relative = path.relative_to(checkout).as_posix()
            break
    else:
        raise Refused(f"--function {name}: handtf is imported from {Path(handtf.__file__).parent}, not from this "
                      f"checkout; run with PYTHONPATH={ROOT}")
    if f"# --8<-- [start:{name}]" not in path.read_text(encoding="utf-8"):
        raise Refused(f"--function {name}: {relative} has no section marker '# --8<-- [start:{name}]' around it")
    return {"name": name, "file": relative}


def plan(args, root):
    """Check the input and say what to write: ``{path: text}`` and the figure to draw."""
    name, title, chinese = args.name.removesuffix(".md"), args.title.strip(), args.chinese.strip()
    if not NAME.fullmatch(name):
        raise Refused(f"bad page name {shown(args.name)}: lower-case words joined by hyphens, "
                      "optionally under concepts/ (e.g. concepts/dropout)")
    if len(name.rpartition("/")[2]) > MAX_NAME:
        raise Refused(f"bad page name {shown(args.name)}: at most {MAX_NAME} characters (its files' names must fit the file system)")
    if not title or not chinese:
        raise Refused("both titles are needed: new_page.py NAME \"English title\" \"中文标题\"")
    for which, text in (("English", title), ("Chinese", chinese)):
        bad = next((c for c in text if not c.isprintable()), None)
        if bad is not None:
            raise Refused(f"the {which} title has {bad!r} at position {text.index(bad)}: a title is one line of "
                          "printable characters (no line break, no tab)")
        if len(text) > MAX_TITLE:
            raise Refused(f"the {which} title has {len(text):,} characters: at most {MAX_TITLE}")
    if CJK.search(title):
        raise Refused(f"the English title {title!r} has Chinese characters: the English title comes first")
    if not CJK.search(chinese):
        raise Refused(f"the Chinese title {chinese!r} has no Chinese characters: the Chinese title comes second")
    if name.rpartition("/")[2] in RESERVED:
        raise Refused(f"bad page name {args.name!r}: {name.rpartition('/')[2]} is taken by the site itself")
    page = name + ".md"
    docs = root / "docs"
    for path in (docs / page, docs / (name + ".zh.md"), docs / (name + ".ipynb"), docs / (name + ".zh.ipynb")):
        if path.exists():
            raise Refused(f"{path.relative_to(root)} exists already: pick another name")
    folder = FOLDERS["concepts" if name.startswith("concepts/") else ""]
    before = args.before or folder["before"]
    figures_module = args.figures_module or folder["figures"]
    if figures_module not in figure_parts(root):
        raise Refused(f"--figures-module {figures_module}: not one of scripts/figures' PARTS {figure_parts(root)}")
    figure = args.figure or name.rpartition("/")[2]
    if not NAME.fullmatch(figure) or "/" in figure:
        raise Refused(f"bad figure name {figure!r}: lower-case words joined by hyphens")
    if figure in registered_figures(root):
        raise Refused(f"a figure {figure!r} exists already: name this page's with --figure NAME")
    test = root / "tests" / f"test_{name.rpartition('/')[2].replace('-', '_')}.py"
    if test.exists():
        raise Refused(f"{test.relative_to(root)} exists already: pick another page name")
    function = find_function(args.function, root) if args.function else None

    mkdocs_yml = root / "mkdocs.yml"
    config = add_to_mkdocs_yml(mkdocs_yml.read_text(encoding="utf-8"), page, title, chinese, before)
    check_mkdocs_yml(config, page, title, chinese)
    nav_pages = [entry[3] for entry in nav_entries(config.split("\n")) if entry[3] != page]
    figures_file = root / "scripts" / "figures" / f"{figures_module}.py"
    figures_text = figures_file.read_text(encoding="utf-8")
    python_name = figure.replace("-", "_")
    while keyword.iskeyword(python_name) or re.search(rf"^def {python_name}\(", figures_text, re.MULTILINE):
        python_name += "_figure"
    changelog = root / "CHANGELOG.md"
    writes = {
        docs / page: page_text("en", title, page, figure, function, folder["exercises"]),
        docs / (name + ".zh.md"): page_text("zh", chinese, page, figure, function, folder["exercises"]),
        mkdocs_yml: config,
        figures_file: figures_text.rstrip("\n") + "\n" + figure_stub(figure, python_name, page),
        test: test_stub(page, title, function),
        changelog: add_to_changelog(changelog.read_text(encoding="utf-8"), page, title),
    }
    for language, home in (("en", "index.md"), ("zh", "index.zh.md")):
        text = (docs / home).read_text(encoding="utf-8")
        writes[docs / home] = add_to_home(text, page, title if language == "en" else chinese, language, before, nav_pages)
    add_next_lines(writes, docs, page, config, {"en": title, "zh": chinese})
    return writes, figure


NEXT = {"en": "Next: ", "zh": "下一页："}  # a page's closing line: where the path goes on (tests/test_next_links.py)


def relative(target, page):
    """The link from ``page`` to ``target``, both relative to docs/."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def next_paragraph(text, language):
    """The span of a page's closing "Next:" paragraph, or None."""
    found = re.search(rf"^{re.escape(NEXT[language])}(?:[^\n]|\n(?!\n))*", text, re.MULTILINE)
    return (found.start(), found.start() + len(found[0].rstrip("\n"))) if found else None


def add_next_lines(writes, docs, page, config, titles):
    """The new page ends with the "Next:" line to the page after it in the nav; the page before it,
    whose line led there, now leads to the new page (its old line, links re-aimed, moves to the new one)."""
    from mkdocs.utils.yaml import yaml_load

    entries = [entry for entry in nav_entries(config.split("\n")) if entry[3].endswith(".md")]
    order = [entry[3] for entry in entries]
    at = order.index(page)
    if at + 1 == len(order):
        return
    after, before_page = order[at + 1], order[at - 1] if at > 0 else None
    (i18n,) = [p["i18n"] for p in yaml_load(config)["plugins"] if isinstance(p, dict) and "i18n" in p]
    (zh,) = [language for language in i18n["languages"] if language["locale"] == "zh"]
    after_titles = {"en": entries[at + 1][2], "zh": zh["nav_translations"].get(entries[at + 1][2], entries[at + 1][2])}
    for language, suffix in (("en", ".md"), ("zh", ".zh.md")):
        new = docs / (page.removesuffix(".md") + suffix)
        line = f"{NEXT[language]}[{link_text(after_titles[language], language)}]({relative(after, page)})" + (
            "。" if language == "zh" else ".")
        if before_page is not None:
            previous = docs / (before_page.removesuffix(".md") + suffix)
            text = writes.get(previous) or (previous.read_text(encoding="utf-8") if previous.exists() else "")
            span = next_paragraph(text, language)
            if span is not None:
                old = text[span[0]:span[1]]
                targets = re.findall(r"\]\(([^)#\s]+)", old)
                if targets and posixpath.normpath(posixpath.join(posixpath.dirname(before_page), targets[0])) == after:
                    # The old line moves to the new page, its links re-aimed from there.
                    line = re.sub(r"\]\(([^)#\s]+)", lambda m: "](" + relative(posixpath.normpath(
                        posixpath.join(posixpath.dirname(before_page), m[1])), page), old)
                    dash = "——" if language == "zh" else " — "
                    colon = "：" if language == "zh" else ": "
                    said = f"{NEXT[language]}[{link_text(titles[language], language)}]({relative(page, before_page)})"
                    writes[previous] = text[:span[0]] + f"{said}{dash}{TODO}{colon}{NEXT_WORDS[language]}" + text[span[1]:]
        writes[new] = writes[new].rstrip("\n") + "\n\n" + line + "\n"


NEXT_WORDS = {"en": "what the reader finds there, in a few words.", "zh": "用几个字说明读者在那里会看到什么。"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="concepts/NAME or NAME (a top-level page): lower-case words joined by hyphens")
    parser.add_argument("title", nargs="?", default="", help="the English title (the nav's and the page's heading)")
    parser.add_argument("chinese", nargs="?", default="", help="the Chinese title")
    parser.add_argument("--before", metavar="PAGE", help="the nav entry to put the page before (e.g. concepts/decoding.md)")
    parser.add_argument("--figure", metavar="NAME", help="the figure's name (default: the page's)")
    parser.add_argument("--figures-module", metavar="PART", help="the module of scripts/figures that draws it")
    parser.add_argument("--function", metavar="NAME", help="a function handtf exports, embedded and imported on the page")
    parser.add_argument("--no-render", action="store_true", help="write the figure stub but do not draw it")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # the tests scaffold in a copy
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        writes, figure = plan(args, root)
    except Refused as refused:
        print(f"new_page.py: {refused}", file=sys.stderr)
        return 2
    except OSError as error:  # a file it must read is missing or unreadable: nothing is written yet
        print(f"new_page.py: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    for path, text in writes.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(root)}")
    if not args.no_render:
        drawn = subprocess.run([sys.executable, str(root / "scripts" / "render_figures.py"), "--only", figure],
                               cwd=root, capture_output=True, text=True)
        print(drawn.stdout.strip() or drawn.stderr.strip())
        if drawn.returncode != 0:
            return 1
    name = args.name.removesuffix(".md")
    print(f"""
Next (CONTRIBUTING, "Adding a concept page, step by step"):
  - write every {TODO} (python -m pytest -n 0 tests/test_new_page.py lists those left);
  - the figure: scripts/figures/ draws {figure}; redraw it with python scripts/render_figures.py --only {figure};
  - new terms: a row in docs/glossary.md and docs/glossary.zh.md, and a code name in both pages' list;
  - check: python -m pytest -n 0 docs/{name}.md docs/{name}.zh.md, then python -m pytest -m "not slow".""")
    return 0


if __name__ == "__main__":
    sys.exit(main())
