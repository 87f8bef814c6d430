"""Which function draws which figure, and how a figure becomes bytes.

A figure function takes no argument and returns a matplotlib figure; the
decorator ``@figure("name")`` files it under ``docs/assets/figures/name.svg``
(light scheme) and ``name.dark.svg`` (dark scheme): the function runs once
per scheme, reading its colours from ``common.C``. ``FIGURES`` keeps them in
the order their modules define them.
"""

import io

import matplotlib.pyplot as plt

from .common import quality_problems, use_scheme

SCHEMES = {"light": ".svg", "dark": ".dark.svg"}  # scheme -> file suffix

FIGURES = {}


def figure(name):
    """Register the decorated function as the one that draws ``name.svg``."""

    def register(function):
        if name in FIGURES:
            raise ValueError(f"two functions draw the figure {name!r}: {FIGURES[name].__name__} and {function.__name__}")
        FIGURES[name] = function
        return function

    return register


def render(name, fmt="svg", scheme="light"):
    """The bytes of one figure in one colour scheme, drawn afresh.

    Refuses (ValueError) a figure that is too wide for the page, has text
    too small to read, or text too faint on its background.
    """
    use_scheme(scheme)  # colours are read while drawing, the background while saving
    fig = None
    try:
        fig = FIGURES[name]()
        fig.canvas.draw()  # lay the text out, so that what is checked is what is saved
        problems = quality_problems(fig)
        if problems:
            raise ValueError(f"figure {name} ({scheme}): " + "; ".join(problems))
        buffer = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else None
        fig.savefig(buffer, format=fmt, metadata=metadata, dpi=110 if fmt == "png" else None)
        return buffer.getvalue()
    finally:
        if fig is not None:
            plt.close(fig)
        use_scheme("light")


def files(name):
    """``{file name: scheme}`` of one figure."""
    return {name + suffix: scheme for scheme, suffix in SCHEMES.items()}


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
        for file_name, scheme in files(name).items():
            path = folder / file_name
            if not path.exists():
                problems.append(f"{file_name}: missing ({path})")
                continue
            try:
                fresh = render(name, scheme=scheme)
            except ValueError as error:
                problems.append(f"{file_name}: {error}")
                continue
            if path.read_bytes() != fresh:
                problems.append(f"{file_name}: differs from what the code draws")
    drawn = {file_name for name in FIGURES for file_name in files(name)}
    extra = sorted(p.name for p in folder.glob("*") if p.name not in drawn)
    problems += [f"{name}: no function draws it" for name in extra]
    return problems
