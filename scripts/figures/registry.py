"""Which function draws which figure, and how a figure becomes bytes.

A figure function takes no argument and returns a matplotlib figure; the
decorator ``@figure("name")`` files it under ``docs/assets/figures/name.svg``.
``FIGURES`` keeps them in the order their modules define them.
"""

import io

import matplotlib.pyplot as plt

FIGURES = {}


def figure(name):
    """Register the decorated function as the one that draws ``name.svg``."""

    def register(function):
        if name in FIGURES:
            raise ValueError(f"two functions draw the figure {name!r}: {FIGURES[name].__name__} and {function.__name__}")
        FIGURES[name] = function
        return function

    return register


def render(name, fmt="svg"):
    """The bytes of one figure, drawn afresh."""
    fig = FIGURES[name]()
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else None
    fig.savefig(buffer, format=fmt, metadata=metadata, dpi=110 if fmt == "png" else None)
    plt.close(fig)
    return buffer.getvalue()


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
        path = folder / f"{name}.svg"
        if not path.exists():
            problems.append(f"{name}: missing ({path})")
        elif path.read_bytes() != render(name):
            problems.append(f"{name}: differs from what the code draws")
    extra = sorted(p.name for p in folder.glob("*") if p.suffix != ".svg" or p.stem not in FIGURES)
    problems += [f"{name}: no function draws it" for name in extra]
    return problems
