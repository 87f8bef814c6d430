"""scripts/new_page.py, the scaffold of a new page pair, and what it leaves to write.

The scaffold writes the twin pages, the nav and its translation, the home pages'
links, a figure stub, a test stub and a changelog line; each place the contributor
still has to write says ``TODO(new_page)``. ``test_nothing_the_scaffold_left_is_still_to_write``
lists those left, file and line, so a stub is never published. The scaffold itself is
run here in a copy of the files it edits (``--root``), with ``--no-render``; the strict
build and the fast lane of a scaffolded copy are what CONTRIBUTING's step 0 runs.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pages import DOCS, ROOT, examples
from test_exercises import exercises

SCRIPT = ROOT / "scripts" / "new_page.py"
MARK = "TODO(new_page)"
WHERE = ["docs/**/*.md", "scripts/figures/*.py", "tests/*.py", "CHANGELOG.md", "mkdocs.yml"]


def left_to_write(root):
    """``file:line: text`` of every placeholder the scaffold left under ``root``."""
    found = []
    for pattern in WHERE:
        for path in sorted(root.glob(pattern)):
            if path.resolve() == Path(__file__).resolve():
                continue  # this file says the mark to find it
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if MARK in line:
                    found.append(f"{path.relative_to(root).as_posix()}:{number}: {line.strip()[:100]}")
    return found


def test_nothing_the_scaffold_left_is_still_to_write():
    left = left_to_write(ROOT)
    assert not left, f"{len(left)} places that scripts/new_page.py wrote are still to write:\n" + "\n".join(left)


@pytest.fixture(scope="module")
def new_page():
    sys.path.insert(0, str(SCRIPT.parent))
    import new_page

    return new_page


@pytest.fixture
def copy(tmp_path):
    """The files the scaffold reads and edits, copied."""
    pages = [p.relative_to(ROOT) for p in [*DOCS.glob("*.md"), *(DOCS / "concepts").glob("*.*")]]
    for name in ["mkdocs.yml", "CHANGELOG.md", *pages]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "scripts" / "figures", tmp_path / "scripts" / "figures",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tests").mkdir()
    return tmp_path


def scaffold(new_page, copy, *args):
    return new_page.main([*args, "--root", str(copy), "--no-render"])


def test_a_concept_page_is_scaffolded_in_the_house_layout(new_page, copy):
    from mkdocs.utils.yaml import yaml_load

    assert scaffold(new_page, copy, "concepts/trial-dropout", "Trial: forgetting on purpose", "试验：有意遗忘") == 0
    english, chinese = copy / "docs/concepts/trial-dropout.md", copy / "docs/concepts/trial-dropout.zh.md"
    assert examples(english) == examples(chinese) and examples(english)
    assert len(exercises(english.read_text(encoding="utf-8"), "en")) == len(exercises(chinese.read_text(encoding="utf-8"), "zh")) == 2
    assert "](../assets/figures/trial-dropout.svg#only-light)" in english.read_text(encoding="utf-8")
    config = yaml_load((copy / "mkdocs.yml").read_text(encoding="utf-8"))
    section = next(item for item in config["nav"] if "Going deeper: the Transformer, piece by piece" in item)
    pages = [next(iter(entry.values())) for entry in next(iter(section.values()))]
    assert pages[pages.index("concepts/faq.md") - 1] == "concepts/trial-dropout.md"
    zh = [p for p in config["plugins"] if isinstance(p, dict) and "i18n" in p][0]["i18n"]["languages"][1]
    assert zh["nav_translations"]["Trial: forgetting on purpose"] == "试验：有意遗忘"
    assert "# The edit loop may build one language only" in (copy / "mkdocs.yml").read_text(encoding="utf-8"), "comments kept"
    assert "](concepts/trial-dropout.md)" in (copy / "docs/index.md").read_text(encoding="utf-8")
    assert "[试验：有意遗忘](concepts/trial-dropout.md)、" in (copy / "docs/index.zh.md").read_text(encoding="utf-8")
    assert '@figure("trial-dropout")' in (copy / "scripts/figures/concepts.py").read_text(encoding="utf-8")
    assert (copy / "tests/test_trial_dropout.py").exists()
    assert "`docs/concepts/trial-dropout.md`" in (copy / "CHANGELOG.md").read_text(encoding="utf-8")
    assert len(left_to_write(copy)) > 10


def test_a_top_level_page_goes_into_part_1_with_three_exercises(new_page, copy):
    assert scaffold(new_page, copy, "trial-two-heads", "Trial: two heads at once", "试验：两个头同时工作", "--before", "induction.md") == 0
    text = (copy / "docs/trial-two-heads.md").read_text(encoding="utf-8")
    assert len(exercises(text, "en")) == 3 and "](assets/figures/trial-two-heads.svg#only-light)" in text
    assert "- \"Trial: two heads at once\": trial-two-heads.md\n      - Induction heads, by hand: induction.md" in (copy / "mkdocs.yml").read_text(encoding="utf-8")
    assert '@figure("trial-two-heads")' in (copy / "scripts/figures/part1.py").read_text(encoding="utf-8")
    # The page before it led to induction.md; its "Next:" line moved to the new page, and it leads to the new page.
    assert text.rstrip().endswith("Next: [induction heads, by hand](induction.md) — a head that attends by\ncontent, not by position.")
    assert "Next: [trial: two heads at once](trial-two-heads.md) — TODO(new_page)" in (copy / "docs/any-pattern.md").read_text(encoding="utf-8")
    assert "下一页：[试验：两个头同时工作](trial-two-heads.md)——TODO(new_page)" in (copy / "docs/any-pattern.zh.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("args, said", [
    (["concepts/faq", "FAQ again", "又一个常见问题"], "docs/concepts/faq.md exists already"),
    (["concepts/Drop_out", "Dropout", "丢弃"], "bad page name 'concepts/Drop_out'"),
    (["other/dropout", "Dropout", "丢弃"], "bad page name 'other/dropout'"),
    (["zh", "Chinese", "中文"], "zh is taken by the site itself"),
    (["concepts/playground", "Playground", "实验"], "docs/concepts/playground.ipynb exists already"),
    (["concepts/trial", "Trial"], "both titles are needed"),
    (["concepts/trial", "丢弃", "Dropout"], "the English title '丢弃' has Chinese characters"),
    (["concepts/trial", "FAQ", "丢弃"], "another page of the nav is called 'FAQ'"),
    (["concepts/trial", "Trial", "丢弃", "--before", "concepts/none.md"], "no such page in mkdocs.yml's nav"),
    (["concepts/trial", "Trial", "丢弃", "--figure", "wte"], "a figure 'wte' exists already"),
    (["concepts/trial", "Trial", "丢弃", "--function", "no_such_function"], "handtf exports no no_such_function"),
    # issue 50: each of these was a traceback, or a page written where it should not be
    (["concepts/trial", "Trial", "丢弃", "--function", "__version__"], "handtf.__version__ is not a function (its type is str)"),
    (["concepts/trial", "Trial", "丢弃", "--function", "__doc__"], "handtf.__doc__ is not a function"),
    (["concepts/trial", "Trial", "丢弃", "--function", "LG"], "handtf.LG is not a function (its type is int)"),
    (["concepts/trial", "Two\nlines", "丢弃"], "the English title has '\\n' at position 3: a title is one line"),
    (["concepts/trial", "Trial", "丢\t弃"], "the Chinese title has '\\t' at position 1"),
    (["concepts/" + "a" * 300, "Trial", "丢弃"], "at most 60 characters"),
    (["concepts/trial", "Trial", "常见问题"], "another page of the nav is called '常见问题' in Chinese"),
])
def test_bad_input_is_refused_in_one_line_and_nothing_is_written(new_page, copy, capsys, args, said):
    before = {path: path.read_bytes() for path in copy.rglob("*") if path.is_file()}
    assert scaffold(new_page, copy, *args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err
    assert {path: path.read_bytes() for path in copy.rglob("*") if path.is_file()} == before


def test_the_command_line_refuses_without_a_traceback(copy):
    done = subprocess.run([sys.executable, str(SCRIPT), "concepts/x y", "T", "标题", "--root", str(copy)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("new_page.py: bad page name") and "Traceback" not in done.stderr


def test_a_title_is_shown_as_written_never_as_html_or_a_link(new_page, copy):
    """Issue 50: a title with raw HTML, ``](`` or a closing ``#`` reads on every page as typed."""
    import markdown

    title = "<b>Bold</b> & [x](y) C#"
    assert scaffold(new_page, copy, "concepts/trial-html", title, "试验<i>斜</i>](z)") == 0
    home = (copy / "docs/index.md").read_text(encoding="utf-8")
    (line,) = [line for line in home.splitlines() if "(concepts/trial-html.md)" in line]
    html = markdown.markdown(line.strip())
    assert html.count("<a ") == 1 and "<b>" not in html and "&lt;b&gt;Bold&lt;/b&gt; &amp; [x](y) C#</a>" in html, html
    heading = (copy / "docs/concepts/trial-html.md").read_text(encoding="utf-8").splitlines()[0]
    assert markdown.markdown(heading) == "<h1>&lt;b&gt;Bold&lt;/b&gt; &amp; [x](y) C#</h1>"
    zh = (copy / "docs/concepts/trial-html.zh.md").read_text(encoding="utf-8").splitlines()[0]
    assert markdown.markdown(zh) == "<h1>试验&lt;i&gt;斜&lt;/i&gt;](z)</h1>"
    compile((copy / "tests/test_trial_html.py").read_text(encoding="utf-8"), "stub", "exec")


def test_a_title_yaml_would_read_as_something_else_is_quoted(new_page, copy):
    """``true``, ``a: b #c`` and ``'quoted'`` are nav titles as typed; a second ``'quoted'`` is a duplicate, ``quoted`` is not."""
    from mkdocs.utils.yaml import yaml_load

    for name, title in (("t-true", "true"), ("t-colon", "a: b #c"), ("t-quoted", "'quoted'"), ("t-plain", "quoted")):
        assert scaffold(new_page, copy, f"concepts/{name}", title, f"试验{name}") == 0
    assert new_page.nav_titles((copy / "mkdocs.yml").read_text(encoding="utf-8")) >= {"true", "a: b #c", "'quoted'", "quoted"}
    assert yaml_load((copy / "mkdocs.yml").read_text(encoding="utf-8"))  # still MkDocs' YAML
    assert scaffold(new_page, copy, "concepts/t-again", "'quoted'", "试验再") == 2


def test_a_handtf_from_outside_the_checkout_is_refused_in_one_line(copy, tmp_path_factory):
    """--function reads the package's file; a handtf imported from elsewhere cannot be embedded."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    shutil.copytree(ROOT / "handtf", elsewhere / "handtf", ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, str(SCRIPT), "concepts/trial", "Trial", "丢弃", "--function", "causal_mask",
                           "--root", str(copy), "--no-render"], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(elsewhere), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "handtf is imported from" in done.stderr and str(elsewhere) in done.stderr and "Traceback" not in done.stderr


def test_a_function_is_imported_and_its_code_embedded_from_the_file_the_package_says(new_page, copy):
    assert scaffold(new_page, copy, "concepts/trial-mask", "Trial mask", "试验掩码", "--function", "causal_mask") == 0
    for name in ("trial-mask.md", "trial-mask.zh.md"):
        text = (copy / "docs/concepts" / name).read_text(encoding="utf-8")
        assert ">>> from handtf import causal_mask, show" in text
        (path,) = re.findall(r'--8<-- "(handtf/[\w/]+\.py):causal_mask"', text)  # wherever the package keeps it
        assert "# --8<-- [start:causal_mask]" in (ROOT / path).read_text(encoding="utf-8")
