"""Every number a page states in its prose is printed, or written, by an example on that page.

"Prose" is the page without its code: fenced blocks, inline code, link targets,
images (whose alt text describes a figure) and the exercises at the end. A
number there (a count above 12, a decimal, a power of ten, a percentage) must
appear in the page's examples — their source, their output, or the package code
the page embeds with ``--8<--`` — either exactly or as its rounding ("362" is
backed by ``362.039``, "52 %" by ``0.52``). What is not checked is listed in
``EXCEPTIONS`` with its reason: years, section and table numbers of a cited
paper, sizes quoted from a paper or a released model, and a number a slow
test checks where a page example would cost seconds more at each run.

Each page's twin is checked the same way, so a new page (in either language)
is held to the rule as soon as it exists.
"""

import doctest
import math
import re

import pytest

from pages import DOCS, ROOT, pages

SMALL = 12  # whole numbers up to this are words more than claims ("two heads", "step 3")
FENCE = re.compile(r"^([ \t]*)(```+|~~~+)[^\n]*\n.*?^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)
SNIPPET = re.compile(r'--8<--\s+"([^":]+):([^"]+)"')
EXERCISES = re.compile(r"^## (?:Try it|Exercises|动手试试|练习)\s*$.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
NUMBER = re.compile(r"(?<![\w.^_{\\/-])[−-]?\d(?:[\d,]*\d)?(?:\.\d+)?(?:e[−-]?\d+)?(?![\w])(?:\s*%)?")
CODE_NUMBER = re.compile(r"\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?")

# (page without .zh, the number as written, why it needs no example). Reviewed by hand.
EXCEPTIONS = {
    ("concepts/encoder-decoder.md", "3.4"): "section 3.4 of the paper",
    ("concepts/positions.md", "1024"): "GPT-2's context length, quoted from the released model",
    ("concepts/feed-forward.md", "3072"): "GPT-2 small's feed-forward width, quoted from the released model",
    ("index.md", "3.11"): "the Python version the site needs",
    ("concepts/training.md", "5.3"): "section 5.3 of the paper",
    ("concepts/training.md", "5.4"): "section 5.4 of the paper",
    ("induction.md", "2021"): "the year of a cited paper (Elhage et al.)",
    ("induction.md", "2022"): "the year of a cited paper (Olsson et al.)",
    ("induction.md", "2000"): "seed 3's 2000 steps: tests/test_induction.py trains them on both float paths (a page example would add about 4 s to each page's run)",
    ("adder.md", "62"): "AdderBoard's smallest trained entry, quoted from its leaderboard",
    ("adder.md", "6,080"): "AdderBoard's first trained entry, quoted from its leaderboard",
    ("adder.md", "35,000"): "steps quoted from a trained AdderBoard entry's README (staghado)",
    ("adder.md", "45,000"): "steps quoted from a trained AdderBoard entry's README (staghado)",
    ("adder.md", "128"): "the batch quoted from a trained AdderBoard entry's README (staghado)",
    ("adder.md", "1234567899"): "the widget's starting number, in its HTML",
    ("glossary.md", "2017"): "the year of the cited Transformer paper (Vaswani et al.), whose learning-rate schedule the glossary names",
    ("training-by-hand.md", "2017"): "the year of the cited Transformer paper (Vaswani et al.), whose recipe the page names",
    ("related.md", "2021"): "a date of a cited paper, post or commit",
    ("related.md", "2023"): "a date of a cited paper, post or commit",
    ("related.md", "2024"): "a date of a cited paper, post or commit",
    ("related.md", "2025"): "a date of a cited paper, post or commit",
    ("related.md", "2026"): "a date of a cited paper, post or commit",
    ("related.md", "10,000"): "AdderBoard's random pairs, quoted from its README",
    ("related.md", "99%"): "AdderBoard's rule to qualify, quoted from its README",
    ("related.md", "60"): "the title of picoGPT's blog post, GPT in 60 Lines of NumPy",
}


def prose(text):
    """The text a reader takes as claims: no code, no link targets, no images, no exercises."""
    text = FENCE.sub("\n", text)
    text = EXERCISES.sub("", text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<https?://[^>]+>", "", text)
    text = re.sub(r"`[^`\n]+`", "", text)
    text = re.sub(r"\s*\\times\s*10\^\{?([−-]?\d+)\}?", r"e\1", text)  # 5.87 \times 10^{-158}
    text = re.sub(r"\s*\\cdot\s*10\^\{?([−-]?\d+)\}?", r"e\1", text)  # 5 \cdot 10^{-324}
    text = re.sub(r"\s*×\s*10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", lambda m: "e" + m[1].translate(SUPERSCRIPT), text)
    return text


def snippet(path, name):
    lines = [line.strip() for line in (ROOT / path).read_text(encoding="utf-8").splitlines()]
    if f"# --8<-- [start:{name}]" not in lines:
        return ""  # the build (check_paths) reports a missing section
    start = lines.index(f"# --8<-- [start:{name}]")
    return "\n".join(lines[start : lines.index(f"# --8<-- [end:{name}]", start)])


def examples(text):
    """Everything the page shows as code: examples with their outputs, blocks, embedded package code."""
    parts = [part for e in doctest.DocTestParser().get_examples(text) for part in (e.source, e.want)]
    parts += [block[0] for block in FENCE.finditer(text)]
    parts += [snippet(path, name) for path, name in SNIPPET.findall(text)]
    return "\n".join(parts)


def value(written):
    """(value, digits after the point) of a number as written; percentages as fractions."""
    number = written.rstrip("% ").replace("−", "-").replace(",", "").replace("_", "").lstrip("-")
    decimals = len(number.split(".")[1]) if "." in number and "e" not in number else 0
    x = float(number)
    return (x / 100, decimals + 2) if written.endswith("%") else (x, decimals)


def is_backed(written, shown):
    x, decimals = value(written)
    if "e" in written:
        return any(y and math.isclose(y, x, rel_tol=5e-3) for y in shown)
    return any(round(y, decimals) == round(x, decimals) for y in shown)


def unbacked(page, text=None):
    """The numbers of a page's prose that none of its examples shows."""
    text = page.read_text(encoding="utf-8") if text is None else text
    shown = {float(n.replace("_", "")) for n in CODE_NUMBER.findall(examples(text))}
    name = page.relative_to(DOCS).as_posix().replace(".zh.md", ".md")
    problems = []
    for match in NUMBER.finditer(prose(text)):
        written = match[0].strip()
        x, _ = value(written)
        if x.is_integer() and x <= SMALL and not written.endswith("%"):
            continue
        if (name, written.lstrip("−-")) in EXCEPTIONS or is_backed(written, shown):
            continue
        problems.append(written)
    return problems


@pytest.mark.parametrize("page", [p for p in pages() if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_every_number_in_the_prose_is_shown_by_an_example(page):
    problems = unbacked(page)
    assert not problems, f"{page.relative_to(DOCS)}: numbers in the prose that no example shows: {problems}"


def test_the_check_catches_a_number_no_example_shows():
    page = DOCS / "concepts" / "lookup.md"
    text = page.read_text(encoding="utf-8")
    assert not unbacked(page, text)
    claims = "The apple costs 3.75 on average, about 13 % more than 3.3, and 1.5 × 10⁻⁸ less than 1e7.\n\n"
    assert unbacked(page, text.replace("## Summary", claims + "## Summary", 1)) == ["3.75", "13 %", "3.3", "1.5e-8", "1e7"]
    # a rounding of a printed number is backed (3.246 -> 3.25), and so is a number in the code itself
    assert not unbacked(page, text.replace("## Summary", "About 3.25, and `9.99`.\n\n## Summary", 1))


def test_every_exception_is_still_needed():
    """An exception whose number left both twins, or is now shown by an example, is removed from the list."""
    stale = []
    for (name, written), _ in EXCEPTIONS.items():
        needed = False
        for page in (DOCS / name, DOCS / name.replace(".md", ".zh.md")):
            text = page.read_text(encoding="utf-8")
            shown = {float(n.replace("_", "")) for n in CODE_NUMBER.findall(examples(text))}
            in_prose = [m[0].strip().lstrip("−-") for m in NUMBER.finditer(prose(text))]
            needed |= written in in_prose and not is_backed(written, shown)
        if not needed:
            stale.append((name, written))
    assert not stale, stale
