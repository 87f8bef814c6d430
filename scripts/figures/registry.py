"""Which function draws which figure, and how a figure becomes bytes.

A figure function returns a matplotlib figure; the decorator
``@figure("name")`` files it under ``docs/assets/figures/name.svg`` (light
scheme) and ``name.dark.svg`` (dark scheme): the function runs once per
scheme, reading its colours from ``common.C``. A figure with words in it is
registered with its label table, ``@figure("name", words={"en": {...}, "zh":
{...}})``: the function takes the words of one language as its argument and
also draws ``name.zh.svg`` and ``name.zh.dark.svg`` for the Chinese pages
(a figure of numbers and code names only is shared by both languages).
A figure too wide for a phone's column is registered with ``phone=True``:
its function takes ``phone`` (a keyword, False or True) and draws, for True, a
narrow variant (panels stacked, a diagram laid out again) at most
``PHONE_MAX_WIDTH_IN`` wide, filed as ``name.phone.svg`` (and
``name.phone.dark.svg``, ``name.phone.zh.svg`` ...). The pages show ``name.svg``
only; ``handtf_site.figures`` adds the phone variant beside it and extra.css
shows one of the two by the width of the screen.
``FIGURES`` keeps the functions in the order their modules define them,
``WORDS`` the label tables, ``PHONE`` the names that have a phone variant.
"""

import gc
import io

import matplotlib.pyplot as plt

from .common import PHONE_MAX_WIDTH_IN, quality_problems, use_language, use_scheme

SCHEMES = {"light": ".svg", "dark": ".dark.svg"}  # scheme -> file suffix
LANGUAGES = {"en": "", "zh": ".zh"}  # language -> infix before the scheme's suffix
PHONE_INFIX = ".phone"  # before the language's infix: name.phone.zh.dark.svg

FIGURES = {}
WORDS = {}  # name -> {language: {key: text}}, for the figures with words
PHONE = set()  # the names drawn again, narrow, for phones


def figure(name, words=None, phone=False):
    """Register the decorated function as the one that draws ``name.svg`` (and, with ``words``,
    ``name.zh.svg``; with ``phone``, ``name.phone.svg``)."""

    def register(function):
        if name in FIGURES:
            raise ValueError(f"two functions draw the figure {name!r}: {FIGURES[name].__name__} and {function.__name__}")
        if words is not None:
            if set(words) != set(LANGUAGES) or len({frozenset(table) for table in words.values()}) != 1:
                raise ValueError(f"figure {name!r}: the label table needs the same keys in {', '.join(LANGUAGES)}")
            WORDS[name] = words
        if phone:
            PHONE.add(name)
        FIGURES[name] = function
        return function

    return register


def render(name, fmt="svg", scheme="light", language="en", phone=False):
    """The bytes of one figure in one colour scheme and language, drawn afresh
    (``phone=True``: its narrow variant).

    Refuses (ValueError) a figure that is too wide for the page (a phone
    variant: for a phone), has text too small to read, or text too faint on
    its background.
    """
    if language != "en" and name not in WORDS:
        raise ValueError(f"figure {name} has no words to translate: both languages show {name}.svg")
    if phone and name not in PHONE:
        raise ValueError(f"figure {name} has no phone variant: phones show {name}.svg")
    use_scheme(scheme)  # colours are read while drawing, the background while saving
    use_language(language)  # the fonts: a CJK font for Chinese
    fig = None
    try:
        args = (WORDS[name][language],) if name in WORDS else ()
        fig = FIGURES[name](*args, phone=phone) if name in PHONE else FIGURES[name](*args)
        # Saving draws the figure, which lays the text out (tick labels exist only once the figure is
        # drawn). The figure is checked as that drawing ends, with the renderer that wrote the file: what
        # is checked is what was saved, and the check reuses the text sizes the drawing just measured.
        # A drawing that fires no draw event is checked after it, with the screen's renderer: never unchecked.
        max_width = PHONE_MAX_WIDTH_IN if phone else None
        checked = {}  # the last drawing's problems (a second drawing replaces them, it does not add to them)
        fig.canvas.mpl_connect("draw_event", lambda event: checked.update(
            problems=quality_problems(fig, max_width, event.renderer)))
        buffer = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else None
        fig.savefig(buffer, format=fmt, metadata=metadata, dpi=110 if fmt == "png" else None)
        problems = checked["problems"] if "problems" in checked else quality_problems(fig, max_width)
        width = fig.get_size_inches()[0]
        if not phone and name not in PHONE and width > PHONE_MAX_WIDTH_IN + 1e-9:
            problems.append(f"{width:.2f} in wide, too wide for a phone's column ({PHONE_MAX_WIDTH_IN} in): "
                            "register it with phone=True and draw a narrow variant")
        if problems:
            variant = ", phone" if phone else ""
            raise ValueError(f"figure {name} ({scheme}, {language}{variant}): " + "; ".join(problems))
        return buffer.getvalue()
    finally:
        if fig is not None:
            plt.close(fig)
        use_scheme("light")
        use_language("en")


def files(name):
    """``{file name: (scheme, language, phone)}`` of one figure."""
    languages = LANGUAGES if name in WORDS else {"en": ""}
    widths = {False: "", True: PHONE_INFIX} if name in PHONE else {False: ""}
    return {
        name + width + infix + suffix: (scheme, language, phone)
        for phone, width in widths.items()
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
        for file_name, (scheme, language, phone) in files(name).items():
            path = folder / file_name
            if not path.exists():
                problems.append(f"{file_name}: missing ({path})")
                continue
            try:
                fresh = render(name, scheme=scheme, language=language, phone=phone)
            except ValueError as error:
                problems.append(f"{file_name}: {error}")
                continue
            finally:
                gc.collect()  # frees the figure just drawn at once, while it is in the CPU's caches
            if path.read_bytes() != fresh:
                problems.append(f"{file_name}: differs from what the code draws")
    drawn = {file_name for name in FIGURES for file_name in files(name)}
    extra = sorted(p.name for p in folder.glob("*") if p.name not in drawn)
    problems += [f"{name}: no function draws it" for name in extra]
    return problems
