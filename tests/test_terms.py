"""Terms that must not share a Chinese word, in the glossary and on the pages.

The project fixed them once for both languages: *prompt* is 提示词 and *hint*
is 提示; *backward* is 反向 and *inverted* (dropout) is 倒置; *dimension* is
维度, the *length* (norm) of a vector 长度（范数）, and a *sequence length*
序列长度. The glossary gives each its own row in both languages, and a Chinese
page uses 提示 alone only for an exercise's hint and never writes 反向 for
inverted dropout.
"""

import re

import pytest

from pages import DOCS, pages

# (the English term as the glossary writes it, its Chinese term)
TERMS = [
    ("prompt", "提示词"),
    ("hint", "提示"),
    ("backward function (backward pass)", "反向函数（反向传播）"),
    ("inverted dropout", "倒置 dropout"),
    ("dimension", "维度"),
    ("length (norm) of a vector", "长度（范数）"),
    ("sequence length (`n_seq`)", "序列长度"),
]
HINT_LINE = '??? tip "提示"'


def glossary(language):
    """{English term: Chinese term} from the glossary's tables (the Chinese page puts 中文 first)."""
    path = DOCS / ("glossary.md" if language == "en" else "glossary.zh.md")
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and not set(cells[0]) <= set("- "):
            english, chinese = cells[:2] if language == "en" else cells[1::-1]
            rows[english] = chinese
    return rows


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_glossary_gives_each_term_its_own_chinese_word(language):
    rows = glossary(language)
    for english, chinese in TERMS:
        assert rows.get(english) == chinese, f"glossary ({language}): {english!r} should be {chinese!r}, is {rows.get(english)!r}"
    assert len({chinese for _, chinese in TERMS}) == len(TERMS)


def misused(text):
    """The lines of a Chinese page that use 提示 for something other than a hint, or 反向 for inverted dropout."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() == HINT_LINE:
            continue
        line = re.sub(r"\{#[^}]*\}", "", line)  # a heading's old id, kept for links
        if re.search(r"提示(?!词)", line):
            problems.append((number, line.strip()))
        elif re.search(r"反向\s*dropout", line, re.IGNORECASE):
            problems.append((number, line.strip()))
    return problems


@pytest.mark.parametrize("page", [p for p in pages("zh") if p.suffix == ".md" and p.name != "glossary.zh.md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_chinese_pages_keep_prompt_hint_and_inverted_apart(page):
    problems = misused(page.read_text(encoding="utf-8"))
    assert not problems, f"{page.relative_to(DOCS)}: 提示 is a hint (a prompt is 提示词), inverted dropout is 倒置 dropout: {problems}"


def test_the_check_catches_a_prompt_called_a_hint():
    assert not misused('??? tip "提示"\n    看最后两个词元。\n输入提示词，看续写。\n（即“倒置 dropout”）')
    assert misused("输入任意提示，看续写。") == [(1, "输入任意提示，看续写。")]
    assert misused("即“反向 dropout”") == [(1, "即“反向 dropout”")]
    assert not misused("## 续写提示词 {#续写提示}")
    rows = glossary("zh")
    assert rows["prompt"] == "提示词" and rows["hint"] == "提示"
