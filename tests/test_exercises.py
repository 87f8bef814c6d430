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

The playground page's exercises are done in the playground widget: each state
link there (``?edit=...``) sets the same cells as the example after it, and the
widget, opened from the link in Chromium, shows the exhaustive check that
Python's ``verify`` gives for that model.
"""

import re

import pytest

from mkdocs.utils.yaml import yaml_load

from pages import DOCS, ROOT, twin_of

PART_1 = "The hand-made model"  # the nav section of part 1
MIN_PART_1 = 3
MIN_CONCEPT = 2
HEADING = {"en": "## Exercises", "zh": "## 练习"}
HINT = {"en": '??? tip "Hint"', "zh": '??? tip "提示"'}
SOLUTION = {"en": '??? success "Solution"', "zh": '??? success "解答"'}
EXERCISE = re.compile(r"^\*\*(\d+)\. [^\n]*?\*\*", re.MULTILINE)
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


def exercises(text, language):
    """The exercises at the end of a page: a list of (number, hint, solution); raises ValueError on bad structure."""
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
        hints = [j for j, line in enumerate(lines) if line.strip() == HINT[language]]
        solutions = [j for j, line in enumerate(lines) if line.strip() == SOLUTION[language]]
        if len(hints) != 1 or len(solutions) != 1:
            raise ValueError(f"exercise {number} needs one collapsed {HINT[language]!r} and one {SOLUTION[language]!r}")
        if hints[0] > solutions[0]:
            raise ValueError(f"exercise {number}: the hint comes after the solution")
        solution = block(lines, solutions[0])
        if not re.search(r"^\s+>>> ", solution, re.MULTILINE):
            raise ValueError(f"exercise {number}: the solution has no >>> example (a doctest checks the answer)")
        found.append((number, block(lines, hints[0]), solution))
    numbers = [number for number, _, _ in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"exercises are numbered {numbers}")
    return found


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
        solutions = [solution for _, _, solution in exercises(path.read_text(encoding="utf-8"), language)]
        assert any(re.search(r">>> .*verify\(.*model=", s) for s in solutions), path.relative_to(DOCS)


def test_the_pages_are_found():
    assert {"task.md", "any-pattern.md", "playground.md"} <= set(part_1_pages())
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
