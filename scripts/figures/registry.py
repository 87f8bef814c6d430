"""Which function draws which figure, and how a figure becomes bytes.

A figure function returns a matplotlib figure; the decorator
``@figure("name")`` files it under ``docs/assets/figures/name.svg`` (light
scheme) and ``name.dark.svg`` (dark scheme): the function runs once per
scheme, reading its colours from ``common.C``. A figure with words in it is
registered with its label table, ``@figure("name", words={"en": {...}, "zh":
{...}})``: the function takes the words of one language as its argument and
also draws ``name.zh.svg`` and ``name.zh.dark.svg`` for the Chinese pages
(a figure of numbers and code names only is shared by both languages).
``FIGURES`` keeps the functions in the order their modules define them,
``WORDS`` the label tables.
"""

import io

import matplotlib.pyplot as plt

from .common import quality_problems, use_language, use_scheme

SCHEMES = {"light": ".svg", "dark": ".dark.svg"}  # scheme -> file suffix
LANGUAGES = {"en": "", "zh": ".zh"}  # language -> infix before the scheme's suffix

FIGURES = {}
WORDS = {}  # name -> {language: {key: text}}, for the figures with words


def figure(name, words=None):
    """Register the decorated function as the one that draws ``name.svg`` (and, with ``words``, ``name.zh.svg``)."""

    def register(function):
        if name in FIGURES:
            raise ValueError(f"two functions draw the figure {name!r}: {FIGURES[name].__name__} and {function.__name__}")
        if words is not None:
            if set(words) != set(LANGUAGES) or len({frozenset(table) for table in words.values()}) != 1:
                raise ValueError(f"figure {name!r}: the label table needs the same keys in {', '.join(LANGUAGES)}")
            WORDS[name] = words
        FIGURES[name] = function
        return function

    return register


def render(name, fmt="svg", scheme="light", language="en"):
    """The bytes of one figure in one colour scheme and language, drawn afresh.

    Refuses (ValueError) a figure that is too wide for the page, has text
    too small to read, or text too faint on its background.
    """
    if language != "en" and name not in WORDS:
        raise ValueError(f"figure {name} has no words to translate: both languages show {name}.svg")
    use_scheme(scheme)  # colours are read while drawing, the background while saving
    use_language(language)  # the fonts: a CJK font for Chinese
    fig = None
    try:
        fig = FIGURES[name](WORDS[name][language]) if name in WORDS else FIGURES[name]()
        fig.canvas.draw()  # lay the text out, so that what is checked is what is saved
        problems = quality_problems(fig)
        if problems:
            raise ValueError(f"figure {name} ({scheme}, {language}): " + "; ".join(problems))
        buffer = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else None
        fig.savefig(buffer, format=fmt, metadata=metadata, dpi=110 if fmt == "png" else None)
        return buffer.getvalue()
    finally:
        if fig is not None:
            plt.close(fig)
        use_scheme("light")
        use_language("en")


def files(name):
    """``{file name: (scheme, language)}`` of one figure."""
    languages = LANGUAGES if name in WORDS else {"en": ""}
    return {
        name + infix + suffix: (scheme, language)
        for language, infix in languages.items()
        for scheme, suffix in SCHEMES.items()
    }


def parse_names(values):
    names = [name.strip() for value in values or [] for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        raise KeyError(unknown)
    return names or list(FIGURES)


def check(names, folder):
    """Names of the figures whose file is stale or missing, and files no function draws."""
    problems = []
    for name in names:
        for file_name, (scheme, language) in files(name).items():
            path = folder / file_name
            if not path.exists():
                problems.append(f"{file_name}: missing ({path})")
                continue
            try:
                fresh = render(name, scheme=scheme, language=language)
            except ValueError as error:
                problems.append(f"{file_name}: {error}")
                continue
            if path.read_bytes() != fresh:
                problems.append(f"{file_name}: differs from what the code draws")
    drawn = {file_name for name in FIGURES for file_name in files(name)}
    extra = sorted(p.name for p in folder.glob("*") if p.name not in drawn)
    problems += [f"{name}: no function draws it" for name in extra]
    return problems
