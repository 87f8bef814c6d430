"""Every chapter ends with exercises whose answers are checked.

At the end of each page of part 1 (the "hand-made model" section of the nav) there
are at least three exercises, and at least two on each concept page
(``docs/concepts/*.md``), in both languages. An exercise is a paragraph that
starts with ``**N. Title.**``, followed by a collapsed hint (``??? tip "Hint"``)
and a collapsed worked solution (``??? success "Solution"``) that holds at least
one ``>>>`` example, so the page's doctests (run in ``docs/``) check the answer.
A design exercise is checked the way a reader checks their own design: with
``verify``. Twins have as many exercises with the same numbers (their examples
are compared by ``test_site.py``).

Each exercise says how hard it is, right after its title: ``**N. Title.**
*(easy)*``, ``*(medium)*`` or ``*(hard)*``; in Chinese ``**N. 标题。**
*（简单）*``, ``*（中等）*`` or ``*（较难）*``. Twins give each exercise the
same level. A reader does an exercise alone, often without reading the page
from the top: each solution's examples pass as a doctest in a fresh namespace,
so a solution imports what it uses and defines its own helpers.

The playground page's exercises are done in the playground widget: each state
link there (``?edit=...``) sets the same cells as the example after it, and the
widget, opened from the link in Chromium, shows the exhaustive check that
Python's ``verify`` gives for that model.
"""

import doctest
import io
import os
import re
import textwrap
from typing import NamedTuple

import pytest

from mkdocs.utils.yaml import yaml_load

from pages import DOCS, ROOT, strip_comments, twin_of

PART_1 = "The hand-made model"  # the nav section of part 1
MIN_PART_1 = 3
MIN_CONCEPT = 2
HEADING = {"en": "## Exercises", "zh": "## 练习"}
HINT = {"en": '??? tip "Hint"', "zh": '??? tip "提示"'}
SOLUTION = {"en": '??? success "Solution"', "zh": '??? success "解答"'}
EXERCISE = re.compile(r"^\*\*(\d+)\. [^\n]*?\*\*", re.MULTILINE)
# the level of an exercise, written right after its title, and what it means in each language
LEVEL = {
    "en": re.compile(r"\*\* \*\((easy|medium|hard)\)\*"),
    "zh": re.compile(r"\*\* \*（(简单|中等|较难)）\*"),
}
LEVELS = {"简单": "easy", "中等": "medium", "较难": "hard"}
# pages whose design exercise must be answered with verify (the reader's own check)
DESIGN = ("any-pattern.md", "projection.md")


def part_1_pages():
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
        nav = yaml_load(file)["nav"]
    section = next(item[PART_1] for item in nav if isinstance(item, dict) and PART_1 in item)
    return [next(iter(entry.values())) for entry in section]


def concept_pages():
    return sorted(p.relative_to(DOCS).as_posix() for p in (DOCS / "concepts").glob("*.md") if not p.name.endswith(".zh.md"))


def pages_with_minimum():
    return [(name, MIN_PART_1) for name in part_1_pages()] + [(name, MIN_CONCEPT) for name in concept_pages()]


def block(lines, start):
    """The indented body of the ``???`` block that starts at ``lines[start]``."""
    body = []
    for line in lines[start + 1 :]:
        if line.strip() and not line.startswith("    "):
            break
        body.append(line)
    return "\n".join(body)


class Exercise(NamedTuple):
    number: int
    level: str  # "easy", "medium" or "hard", in either language
    hint: str
    solution: str  # the indented body of the solution block


def exercises(text, language):
    """The exercises at the end of a page, as a list of ``Exercise``; raises ValueError on bad structure."""
    heading = HEADING[language]
    headings = re.findall(r"^## .*$", text, re.MULTILINE)
    if heading not in headings:
        raise ValueError(f"no {heading!r} section")
    if headings[-1] != heading:
        raise ValueError(f"{heading!r} is not the last section (the last is {headings[-1]!r})")
    section = text[text.rindex("\n" + heading + "\n") :]
    starts = list(EXERCISE.finditer(section))
    found = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(section)
        lines = section[match.start() : end].splitlines()
        number = int(match[1])
        level = LEVEL[language].match(section, match.end() - 2)
        if not level:
            allowed = " / ".join(LEVELS.values() if language == "en" else LEVELS)
            raise ValueError(f"exercise {number} does not say how hard it is: its title is followed by *({allowed})*, got {lines[0][:80]!r}")
        hints = [j for j, line in enumerate(lines) if line.strip() == HINT[language]]
        solutions = [j for j, line in enumerate(lines) if line.strip() == SOLUTION[language]]
        if len(hints) != 1 or len(solutions) != 1:
            raise ValueError(f"exercise {number} needs one collapsed {HINT[language]!r} and one {SOLUTION[language]!r}")
        if hints[0] > solutions[0]:
            raise ValueError(f"exercise {number}: the hint comes after the solution")
        solution = block(lines, solutions[0])
        if not re.search(r"^\s+>>> ", solution, re.MULTILINE):
            raise ValueError(f"exercise {number}: the solution has no >>> example (a doctest checks the answer)")
        found.append(Exercise(number, LEVELS.get(level[1], level[1]), block(lines, hints[0]), solution))
    numbers = [exercise.number for exercise in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"exercises are numbered {numbers}")
    return found


def failures_alone(solution, name, folder):
    """Run a solution's examples as a doctest in a fresh namespace, from ``folder``; the report of what failed, or ''."""
    test = doctest.DocTestParser().get_doctest(textwrap.dedent(solution), {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        runner.run(test, out=report.write, clear_globs=True)
    finally:
        os.chdir(here)
    return report.getvalue() if runner.failures else ""


@pytest.mark.parametrize(("name", "minimum"), pages_with_minimum(), ids=lambda v: str(v))
def test_every_chapter_ends_with_checked_exercises(name, minimum):
    page = DOCS / name
    counts = {}
    for path, language in ((page, "en"), (twin_of(page), "zh")):
        text = path.read_text(encoding="utf-8")
        try:
            counts[language] = len(exercises(text, language))
        except ValueError as error:
            pytest.fail(f"{path.relative_to(DOCS)}: {error}")
        assert counts[language] >= minimum, f"{path.relative_to(DOCS)}: {counts[language]} exercises, at least {minimum}"
    assert counts["en"] == counts["zh"], f"{name}: {counts} exercises in the two languages"


@pytest.mark.parametrize("name", DESIGN)
def test_a_design_exercise_is_checked_with_verify(name):
    for path, language in ((DOCS / name, "en"), (twin_of(DOCS / name), "zh")):
        solutions = [exercise.solution for exercise in exercises(path.read_text(encoding="utf-8"), language)]
        assert any(re.search(r">>> .*verify\(.*model=", s) for s in solutions), path.relative_to(DOCS)


def pages_with_exercises():
    """Every English page that ends with exercises (part 1, the concept pages and any other)."""
    return sorted(
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if not p.name.endswith(".zh.md") and re.search(r"^## Exercises\s*$", p.read_text(encoding="utf-8"), re.MULTILINE)
    )


@pytest.mark.parametrize("name", pages_with_exercises())
def test_every_exercise_says_how_hard_it_is_and_twins_agree(name):
    levels = {}
    for path, language in ((DOCS / name, "en"), (twin_of(DOCS / name), "zh")):
        try:
            levels[language] = [exercise.level for exercise in exercises(path.read_text(encoding="utf-8"), language)]
        except ValueError as error:
            pytest.fail(f"{path.relative_to(DOCS)}: {error}")
    assert levels["en"] == levels["zh"], f"{name}: the levels differ between the twins: {levels}"


@pytest.mark.parametrize("name", pages_with_exercises())
def test_each_solution_runs_by_itself(name):
    """Each solution's examples pass in a fresh namespace: its imports and helpers are inside it.

    The Chinese solutions are run too, unless their examples are those of the
    English solution (comments aside), which then just passed.
    """
    ran = {}
    for path, language in ((DOCS / name, "en"), (twin_of(DOCS / name), "zh")):
        for exercise in exercises(path.read_text(encoding="utf-8"), language):
            code = [(strip_comments(e.source), e.want) for e in doctest.DocTestParser().get_examples(textwrap.dedent(exercise.solution))]
            if ran.get(exercise.number) == code:
                continue
            label = f"{path.relative_to(DOCS)}, exercise {exercise.number}"
            report = failures_alone(exercise.solution, label, path.parent)
            assert not report, f"{label}: the solution does not run by itself (in a fresh namespace):\n{report}"
            ran[exercise.number] = code


def test_the_checks_catch_a_missing_level_and_a_solution_that_needs_the_page():
    text = (DOCS / "task.md").read_text(encoding="utf-8")
    first = exercises(text, "en")[0]
    with pytest.raises(ValueError, match="how hard"):
        exercises(re.sub(r"(\*\*1\. [^\n]*?\*\*) \*\((easy|medium|hard)\)\*", r"\1", text, count=1), "en")
    with pytest.raises(ValueError, match="how hard"):
        exercises(re.sub(r"(\*\*1\. [^\n]*?\*\*) \*\((easy|medium|hard)\)\*", r"\1 *(tricky)*", text, count=1), "en")
    zh = (DOCS / "task.zh.md").read_text(encoding="utf-8")
    assert [e.level for e in exercises(zh, "zh")] == [e.level for e in exercises(text, "en")]
    assert not failures_alone(first.solution, "task.md, exercise 1", DOCS)
    # the same solution without its imports fails alone, naming what is missing
    without_imports = re.sub(r"^\s+>>> (from|import) .*\n", "", first.solution, flags=re.MULTILINE)
    assert without_imports != first.solution
    assert "NameError" in failures_alone(without_imports, "task.md, exercise 1", DOCS)
    # a wrong expected value fails too
    assert failures_alone("    >>> 1 + 1\n    3\n", "sum", DOCS)


def test_the_pages_are_found():
    assert {"task.md", "any-pattern.md", "playground.md"} <= set(part_1_pages())
    assert {name for name, _ in pages_with_minimum()} <= set(pages_with_exercises())
    assert "concepts/lookup.md" in concept_pages() and len(concept_pages()) >= 10


def test_the_check_fails_when_an_exercise_is_taken_away():
    text = (DOCS / "task.md").read_text(encoding="utf-8")
    assert len(exercises(text, "en")) >= MIN_PART_1
    # remove the last exercise: one fewer
    last = list(EXERCISE.finditer(text))[-1]
    assert len(exercises(text[: last.start()], "en")) == len(exercises(text, "en")) - 1
    # remove the second: the numbering has a hole
    second = list(EXERCISE.finditer(text))[1]
    third = list(EXERCISE.finditer(text))[2]
    with pytest.raises(ValueError, match="numbered"):
        exercises(text[: second.start()] + text[third.start() :], "en")
    # no hint, a solution without a doctest, an open (not collapsed) solution, no section
    with pytest.raises(ValueError, match="Hint"):
        exercises(text.replace('??? tip "Hint"', '!!! tip "Hint"', 1), "en")
    with pytest.raises(ValueError, match="Solution"):
        exercises(text.replace('??? success "Solution"', '???+ success "Solution"', 1), "en")
    first = list(EXERCISE.finditer(text))[0].start()
    stripped = text[:first] + re.sub(r"^(\s+)>>> ", r"\1", text[first:], count=50, flags=re.MULTILINE)
    with pytest.raises(ValueError, match="no >>> example"):
        exercises(stripped, "en")
    with pytest.raises(ValueError, match="no '## Exercises'"):
        exercises(text.replace("## Exercises", "## More"), "en")
    with pytest.raises(ValueError, match="not the last"):
        exercises(text + "\n## Afterword\n\nMore text.\n", "en")


PLAYGROUND_LINK = re.compile(r"\]\((\?[^)\s]+)\)")


def playground_links(language):
    page = DOCS / ("playground.md" if language == "en" else "playground.zh.md")
    return PLAYGROUND_LINK.findall(page.read_text(encoding="utf-8"))


def model_of(query):
    """The model and max_len a playground link opens, built with the Python package."""
    from urllib.parse import parse_qs

    import handtf

    params = {key: values[0] for key, values in parse_qs(query.lstrip("?")).items()}
    model = handtf.build_model(float(params.get("lg", handtf.LG)))
    attn = model["blocks"][0]["attn"]
    for item in filter(None, params.get("edit", "").split(",")):
        key, value = item.split(":")
        name, part, *index = key.split(".")
        if part == "w":
            attn[name]["w"][int(index[0]), int(index[1])] = float(value)
        else:
            attn[name]["b"][int(index[0])] = float(value)
    return model, int(params.get("max_len", 30))


ASSIGNMENT = re.compile(r'\["(c_attn|c_proj)"\]\["(w|b)"\]\[(\d+)(?:, (\d+))?\] = (-?[\d.]+)')


def edits_in_the_code_after_each_link(text):
    """For each playground link with edits: (its edits, the cells the next example sets), as two sets."""
    pairs = []
    matches = list(PLAYGROUND_LINK.finditer(text))
    for i, match in enumerate(matches):
        query = match[1]
        if "edit=" not in query:
            continue
        after = text[match.end() : matches[i + 1].start() if i + 1 < len(matches) else len(text)]
        block = after[: after.index("```\n", after.index("```pycon") + 1)]
        code = {f"{m[1]}.{m[2]}." + ".".join(filter(None, (m[3], m[4]))) + f":{float(m[5]):g}" for m in ASSIGNMENT.finditer(block)}
        link = {f"{k.rsplit(':', 1)[0]}:{float(k.rsplit(':', 1)[1]):g}" for k in query.split("edit=")[1].split("&")[0].split(",")}
        pairs.append((link, code))
    return pairs


def test_each_playground_link_sets_the_cells_its_example_sets():
    for language in ("en", "zh"):
        text = (DOCS / ("playground.md" if language == "en" else "playground.zh.md")).read_text(encoding="utf-8")
        pairs = edits_in_the_code_after_each_link(text)
        assert len(pairs) >= 5
        for link, code in pairs:
            assert link == code, f"playground link {sorted(link)} but its example sets {sorted(code)}"


def test_the_link_check_catches_a_link_that_differs_from_its_example():
    text = (DOCS / "playground.md").read_text(encoding="utf-8")
    wrong = text.replace("(?edit=c_proj.b.5:0)", "(?edit=c_proj.b.6:0)")
    assert wrong != text
    assert any(link != code for link, code in edits_in_the_code_after_each_link(wrong))


def test_the_playground_links_open_the_models_the_solutions_describe(browser, base_url):
    """Every state link on the playground page shows the exhaustive check that Python's verify gives for it."""
    from browsing import Visit

    import handtf

    links = playground_links("en")
    assert len(links) >= 6 and playground_links("zh") == links
    for query in links:
        model, max_len = model_of(query)
        expected = handtf.verify(max_len, model)
        visit = Visit(browser, base_url + "playground/" + query)
        try:
            text = visit.page.inner_text(".handtf-check")
        finally:
            visit.close()
        correct, checked = map(int, re.search(r"(\d+) of (\d+) valid contexts", text).groups())
        margin = float(re.search(r"smallest margin (\S+);", text)[1])
        assert (correct, checked) == (expected.correct, expected.checked), (query, text)
        assert abs(margin - expected.min_margin) <= 1e-3 * max(1, abs(expected.min_margin)), (query, text)
        if expected.failures:
            assert f"“{expected.failures[0][0]}”" in text, (query, text)
