"""Claims in the prose that no example prints, held to the model they describe.

tests/test_prose_numbers.py holds the numbers of the prose to the examples; this file
holds sentences. Each claim is read from the page (a pattern, in both languages), and
what it says is computed from the model:

- the home page's map of the main line: one sentence a step, each saying what its step
  does to `aabaa` (the ids, the sizes, the window the head averages over, where the
  votes go, the prediction);
- the home page's count of the model's weight arrays (matrices and bias vectors).

A changed sentence that no longer matches its pattern fails too: then the pattern and
its check are updated with the claim, after checking it.
"""

import re

import numpy as np
import pytest

import handtf
from pages import DOCS

NUMBER_WORDS = {
    "en": {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())},
    "zh": {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10},
}
# The window a sentence names, as offsets from the position itself.
WINDOWS = {
    "itself and the token before it": {0, -1},
    "the token and the one before it": {0, -1},
    "the two tokens before it": {-1, -2},
    "它自己和前一个词元": {0, -1},
    "它之前的两个词元": {-1, -2},
}
WINDOW = "|".join(re.escape(w) for w in WINDOWS)
PAGE = {"en": DOCS / "index.md", "zh": DOCS / "index.zh.md"}


def number(word, language):
    return int(word) if word.isdigit() else NUMBER_WORDS[language][word]


def the_window(weights, i):
    """The offsets of the keys row ``i`` of attention weights really reads (weight above 1e-6)."""
    return {j - i for j in np.flatnonzero(weights[i] > 1e-6)}


def check_ids(m, language):
    assert handtf.tokenize(m["text"]) == [int(n) for n in m["ids"].split()]


def check_sizes(m, language):
    assert (number(m["tokens"], language), number(m["numbers"], language)) == (handtf.N_CTX, handtf.N_EMBED)


def check_rows(m, language):
    t = handtf.trace("aabaa")
    assert number(m["numbers"], language) == t.embedding.shape[1]
    positions, tokens = t.embedding[:, : handtf.N_CTX], t.embedding[:, handtf.N_CTX : handtf.N_CTX + handtf.N_VOCAB]
    assert (positions.sum(axis=1) == 1).all() and (tokens.sum(axis=1) == 1).all()  # where, and what


def check_window(m, language):
    """Every position of aabaa averages over the window the sentence names (row 0 over what exists
    of it), with the values it names: +1 for a, -1 for b in column V."""
    t = handtf.trace("aabaa")
    offsets = WINDOWS[m["window"]]
    for i in range(len(t.context)):
        window = {o for o in offsets if i + o >= 0}
        assert the_window(t.attention_weights, i) == window, (m["window"], i, t.attention_weights[i])
        assert np.allclose(t.attention_weights[i, [i + o for o in window]], 1 / len(window))
    values = dict(zip(t.context, t.v[:, handtf.EMBED_LABELS.index("V")]))
    assert values == {"a": float(m["a"].replace("−", "-")), "b": float(m["b"].replace("−", "-"))}, values


def check_votes(m, language):
    t = handtf.trace("aabaa")
    written = {handtf.EMBED_LABELS[j] for j in np.flatnonzero(np.abs(t.projection).sum(axis=0))}
    assert written == {"a", "b"}, written


def check_prediction(m, language):
    assert handtf.predict(m["text"]) == m["next"]


# page of the step -> {language: the sentence's pattern}, and the check of what it says
STEPS = {
    "task.md": ({"en": r"`(?P<text>[ab]+)` becomes the ids `(?P<ids>[\d ]+)`",
                 "zh": r"`(?P<text>[ab]+)` 变成 id `(?P<ids>[\d ]+)`"}, check_ids),
    "shape.md": ({"en": r"(?P<tokens>\w+) tokens in, (?P<numbers>\w+) numbers each",
                  "zh": r"输入(?P<tokens>\w)个词元，每个(?P<numbers>\w)个数"}, check_sizes),
    "embeddings.md": ({"en": r"each token becomes a row of (?P<numbers>\w+): where it is and what it is",
                       "zh": r"每个词元变成(?P<numbers>\w)个数的一行：在哪里、是什么"}, check_rows),
    "attention.md": ({"en": rf"each position averages \+1 for `a`, −1 for `b` over (?P<window>{WINDOW})",
                      "zh": rf"每个位置对(?P<window>{WINDOW})取平均：`a` 记 (?P<a>[+−]\d)，`b` 记 (?P<b>[+−]\d)"},
                     check_window),
    "projection.md": ({"en": r"that average becomes votes for `a` and `b`",
                       "zh": r"这个平均数变成投给 `a` 和 `b` 的票"}, check_votes),
    "logits.md": ({"en": r"after `(?P<text>[ab]+)` comes `(?P<next>[ab])`",
                   "zh": r"`(?P<text>[ab]+)` 之后是 `(?P<next>[ab])`"}, check_prediction),
}


def home_map(text):
    """{page of the step: the sentence of its card} from the home page's map of the main line."""
    card_list = text[text.index('<div class="handtf-map" markdown>') :]
    card_list = card_list[: card_list.index("</div>")]
    cards = re.findall(r"\]\(([^)]+)\)\*\*\s*<span class=\"handtf-map__flow\">(.*?)</span>", card_list)
    return dict(cards)


def map_problems(text, language):
    """What is wrong with the home map's sentences: one missing, one not in its pattern, one false."""
    problems = []
    cards = home_map(text)
    if set(cards) != set(STEPS):
        problems.append(f"the map's steps are {sorted(cards)}, the claims are about {sorted(STEPS)}")
    for name, (patterns, check) in STEPS.items():
        sentence = cards.get(name, "")
        m = re.fullmatch(patterns[language], sentence)
        if not m:
            problems.append(f"{name}: {sentence!r} is not a claim this test knows ({patterns[language]!r})")
            continue
        groups = {"a": "+1", "b": "−1", **{k: v for k, v in m.groupdict().items() if v is not None}}
        try:
            check(groups, language)
        except AssertionError as error:
            problems.append(f"{name}: {sentence!r} is false: {error}")
    return problems


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_home_maps_sentences_say_what_each_step_does(language):
    problems = map_problems(PAGE[language].read_text(encoding="utf-8"), language)
    assert not problems, "\n".join(problems)


def test_the_map_check_catches_a_wrong_window_and_a_wrong_prediction():
    en, zh = PAGE["en"].read_text(encoding="utf-8"), PAGE["zh"].read_text(encoding="utf-8")
    old = "each position averages +1 for `a`, −1 for `b` over the two tokens before it"
    wrong = en.replace("over itself and the token before it", "over the two tokens before it")
    assert old in wrong and any("attention.md" in p and "is false" in p for p in map_problems(wrong, "en"))
    wrong = zh.replace("对它自己和前一个词元取平均", "对它之前的两个词元取平均")
    assert any("attention.md" in p and "is false" in p for p in map_problems(wrong, "zh"))
    wrong = en.replace("after `aabaa` comes `b`", "after `aabaa` comes `a`")
    assert any("logits.md" in p and "is false" in p for p in map_problems(wrong, "en"))
    wrong = en.replace("five tokens in", "six tokens in")
    assert any("shape.md" in p and "is false" in p for p in map_problems(wrong, "en"))
    wrong = en.replace("that average becomes votes", "the verdict becomes votes")
    assert any("projection.md" in p and "not a claim" in p for p in map_problems(wrong, "en"))


# ------------------------------------------------------------ the weight arrays

WEIGHT_COUNT = {
    "en": r"(?P<matrices>\w+) weight matrices and (?P<biases>\w+)\s+bias vectors",
    "zh": r"(?P<matrices>\w)个权重矩阵加(?P<biases>\w)个偏置向量",
}
ANY_COUNT = {"en": r"\b\w+ weight matri(?:x|ces)\b", "zh": r"\w个权重矩阵"}


def weight_arrays():
    """(matrices, vectors) among the model's weight arrays."""
    arrays = [handtf.MODEL["wte"], handtf.MODEL["wpe"]] + [
        a for block in handtf.MODEL["blocks"] for layer in block["attn"].values() for a in layer.values()]
    return sum(a.ndim == 2 for a in arrays), sum(a.ndim == 1 for a in arrays)


def count_problems(text, language):
    claims = list(re.finditer(WEIGHT_COUNT[language], text))
    if len(claims) != len(re.findall(ANY_COUNT[language], text)):
        return [f"a count of weight matrices that does not say how many bias vectors: {re.findall(ANY_COUNT[language], text)}"]
    return [f"{m[0]!r}: the model has {weight_arrays()[0]} weight matrices and {weight_arrays()[1]} bias vectors"
            for m in claims if (number(m["matrices"], language), number(m["biases"], language)) != weight_arrays()]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_home_page_counts_the_weight_arrays_right(language):
    text = PAGE[language].read_text(encoding="utf-8")
    assert re.search(WEIGHT_COUNT[language], text), "the home page no longer counts the weights: update WEIGHT_COUNT"
    problems = count_problems(text, language)
    assert not problems, problems


def test_the_count_check_catches_two_weight_matrices():
    assert weight_arrays() == (4, 2)  # wte, wpe, c_attn.w, c_proj.w; c_attn.b, c_proj.b
    text = PAGE["en"].read_text(encoding="utf-8")
    assert count_problems(text.replace("four weight matrices", "three weight matrices"), "en")
    assert count_problems("one attention head, two weight matrices, almost all zeros", "en")
    assert count_problems(PAGE["zh"].read_text(encoding="utf-8").replace("四个权重矩阵", "两个权重矩阵"), "zh")
