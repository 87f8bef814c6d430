"""One Chinese term per concept, in the glossary and on every Chinese page.

The project fixed them once for both languages: *prompt* is 提示词 and *hint*
is 提示; *backward* is 反向 and *inverted* (dropout) is 倒置; *dimension* is
维度, the *length* (norm) of a vector 长度（范数）, and a *sequence length*
序列长度; the head's *verdict* is 结论 (not 判定), a *margin* 差距 (not 余量),
a *context* 上下文 (not 前文), a *hand-made model* 手搓模型 (not 手工模型,
手工设定的模型 or 手工设计的模型; 手工设定 stays the adjective, "set by
hand"), a *batch* 批次 (not 批量), a *plateau* 平台区 (not 平台期 or 高原).
The glossary gives each its own row in both
languages, and a Chinese page uses 提示 alone only for an exercise's hint,
never writes 反向 for inverted dropout, and writes none of the other words
a term once drifted to (``VARIANTS``).

A Chinese page's own examples speak Chinese: a comment it writes after an
example's code (``>>> x = 1  # 注释``) is in Chinese, unless it is only code,
shapes or data (``# [n_seq, n_embd]``, ``# je suis étudiant``). The package's
code that a page embeds (``--8<--``) keeps its English comments.
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
    ("verdict", "结论"),
    ("margin", "差距"),
    ("context", "上下文"),
    ("hand-made model (hand-set model)", "手搓模型"),
    ("batch", "批次"),
    ("plateau", "平台区"),
    ("key/value cache", "键值缓存"),
]
# A word a Chinese page must not use -> (the concept it drifted from, the term the glossary gives it)
VARIANTS = {
    "判定": ("verdict", "结论"),
    "余量": ("margin", "差距"),
    "裕度": ("margin", "差距"),
    "前文": ("context", "上下文"),  # not in 当前文本 ("the current text")
    "语境": ("context", "上下文"),
    "令牌": ("token", "词元"),
    "遮罩": ("causal mask", "因果掩码"),
    "手工模型": ("hand-made model (hand-set model)", "手搓模型"),
    "手工设定的模型": ("hand-made model (hand-set model)", "手搓模型"),
    "手工设定模型": ("hand-made model (hand-set model)", "手搓模型"),
    "手工设计的模型": ("hand-made model (hand-set model)", "手搓模型"),
    "手工设计模型": ("hand-made model (hand-set model)", "手搓模型"),
    "批量": ("batch", "批次"),
    "平台期": ("plateau", "平台区"),
    "高原": ("plateau", "平台区"),
}
VARIANT = re.compile("|".join(rf"(?<!当){word}" if word == "前文" else word for word in VARIANTS))
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


def drifted(text):
    """(line number, word, the glossary's term) of each word of ``text`` that a term drifted to."""
    return [(number, m[0], VARIANTS[m[0]][1]) for number, line in enumerate(text.splitlines(), 1)
            for m in VARIANT.finditer(re.sub(r"\{#[^}]*\}", "", line))]  # a heading's old id, kept for links


@pytest.mark.parametrize("page", [p for p in pages("zh") if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_chinese_pages_use_the_glossarys_term_for_each_concept(page):
    problems = drifted(page.read_text(encoding="utf-8"))
    assert not problems, f"{page.relative_to(DOCS)}: (line, word, the glossary's term): {problems}"


def test_every_variant_names_a_glossary_term():
    rows = glossary("zh")
    for word, (english, chinese) in VARIANTS.items():
        assert rows.get(english) == chinese, (word, english, rows.get(english))
        assert word not in chinese and word not in "".join(rows.values())


def test_the_check_catches_a_verdict_a_margin_and_a_context_that_drifted():
    assert drifted("留给注意力头写下判定。\n差距为 1023，余量为 1023。\n# 前文 -> 下一个字符") == [
        (1, "判定", "结论"), (2, "余量", "差距"), (3, "前文", "上下文")]
    assert not drifted("针对当前文本之后的那个位置，注意力头写下结论，差距为 1023。")


def test_the_check_catches_a_hand_made_model_and_a_batch_under_other_names():
    assert drifted("手工模型的差距是 1023。\n检查手工设定的模型\n## 批量评估\n手工设计的模型先按位置续写") == [
        (1, "手工模型", "手搓模型"), (2, "手工设定的模型", "手搓模型"), (3, "批量", "批次"), (4, "手工设计的模型", "手搓模型")]
    assert not drifted("手搓模型的差距是 1023，手工设定的权重，一个批次。\n## 按批次评估 {#批量评估}")
    assert drifted("损失没有平台期。\n这是一片平坦的高原。") == [(1, "平台期", "平台区"), (2, "高原", "平台区")]
    assert not drifted("这是一片平台区。阶梯每一级平台的中间。")


# ------------------------------------------------------------ the comments of a Chinese page's examples

COMMENT = re.compile(r"^\s*(?:>>>|\.\.\.) .*?\s#\s(?P<comment>.*)$")
# English prose, not data (je suis étudiant, <bos> i am a student): it has one of these words
ENGLISH = re.compile(r"\b(?:the|and|of|to|is|are|on|in|for|with|per|now|its|from|by|not|too|each|one|two|three)\b",
                     re.IGNORECASE)


def english_comments(text):
    """(line number, comment) of each example comment of a Chinese page that is English prose."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        m = COMMENT.match(line)
        if not m or re.search(r"[\u4e00-\u9fff]", m["comment"]):
            continue
        words = re.sub(r"""\[[^]]*\]|"[^"]*"|'[^']*'|<[^>]*>""", " ", m["comment"])  # shapes, strings, <bos>
        if ENGLISH.search(words):
            problems.append((number, m["comment"]))
    return problems


@pytest.mark.parametrize("page", [p for p in pages("zh") if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_a_chinese_pages_example_comments_are_chinese(page):
    problems = english_comments(page.read_text(encoding="utf-8"))
    assert not problems, f"{page.relative_to(DOCS)}: comments in English: {problems}"


def test_the_check_catches_an_english_comment():
    text = """>>> show(k)  # the keys, printed
>>> x = 1  # [n_seq, d_model] = [3, 2]
>>> encode(ids)  # je suis étudiant
>>> y = 2  # 键，打印出来
...     z = 3  # columns a and b
>>> decode(ids)  # <bos> i am a student <eos>
"""
    assert english_comments(text) == [(1, "the keys, printed"), (5, "columns a and b")]
