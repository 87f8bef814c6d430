"""The colours of the figures, in both colour schemes, and how they read: no matplotlib here.

The figures (``common.py``) draw with these colours, and the playground
(``hooks/playground.py``) colours its live heatmaps with them; the hook loads
this file alone, so that a build of the site does not import matplotlib.
``tests/test_playground.py`` checks that ``lookup_table`` is matplotlib's own.
"""

import re

import numpy as np

# Two colour schemes, one per Material palette: NAME.svg on white (#only-light)
# and NAME.dark.svg on Material's slate background (#only-dark).
SCHEMES = {
    "light": {
        "bg": "#ffffff",  # the page
        "ink": "#1a1a1a",  # text and lines
        "muted": "#555555",  # secondary text: 7.5:1 on white
        "red": "#b2182b",  # the highlighted path, kept tokens
        "blue": "#1d5b9e",  # the second series, annotations
        "box": "#f0f2f5",  # neutral boxes
        "warm": "#fbe0d2",  # boxes that hold x, the residual stream
        "cool": "#d5e6f3",  # boxes that hold the output
        "faint": "#b8b8b8",  # dropped bars and paths (never text)
        "grid": "#ffffff",  # lines between heatmap cells
        "diverging": ("#2166ac", "#92c5de", "#ffffff", "#f4a582", "#b2182b"),  # blue < 0 < red
        "series": ("#1b7837", "#1d5b9e", "#7b3294", "#b2182b"),
    },
    "dark": {
        "bg": "#1e2129",  # Material's slate: hsl(225, 15%, 14%)
        "ink": "#e6e8ec",
        "muted": "#aeb3bd",
        "red": "#ff8a7a",
        "blue": "#7db4ec",
        "box": "#2c313c",
        "warm": "#4b2f2b",
        "cool": "#22384d",
        "faint": "#5c6270",
        "grid": "#1e2129",
        "diverging": ("#5aa0e6", "#2d5a8a", "#2a2f3a", "#8a3b36", "#ef6a5c"),
        "series": ("#7fd491", "#7db4ec", "#d4a5f0", "#ff8a7a"),
    },
}

N_COLOURS = 256  # entries of a colour map's look-up table, as matplotlib's default


def rgb(colour):
    """``(r, g, b)`` in 0..1 of ``"#rrggbb"``, or of an RGB(A) sequence."""
    if isinstance(colour, str):
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
            raise ValueError(f"a colour is written #rrggbb, not {colour!r}")
        return tuple(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return tuple(float(c) for c in colour[:3])


def lookup_table(stops, n=N_COLOURS):
    """``[n, 3]``: the colours evenly spaced ``stops`` blend into, as
    ``LinearSegmentedColormap.from_list`` computes them (and in the same
    order of operations, so the same floats)."""
    x = np.linspace(0, 1, len(stops)) * (n - 1)
    xind = (n - 1) * np.linspace(0, 1, n) ** 1.0  # gamma 1
    ind = np.searchsorted(x, xind)[1:-1]
    distance = (xind[1:-1] - x[ind - 1]) / (x[ind] - x[ind - 1])
    columns = []
    for y in np.array([rgb(stop) for stop in stops]).T:
        inner = distance * (y[ind] - y[ind - 1]) + y[ind - 1]
        columns.append(np.clip(np.concatenate([[y[0]], inner, [y[-1]]]), 0.0, 1.0))
    return np.stack(columns, axis=-1)


def luminance(colour):
    """WCAG relative luminance of ``"#rrggbb"`` or an RGB(A) sequence."""
    channels = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb(colour)]
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def contrast(one, other):
    """WCAG contrast ratio of two colours, 1 to 21."""
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def text_colour(background):
    """Black or white, whichever reads better on ``background`` (always at least 4.5:1)."""
    return max(("#000000", "#ffffff"), key=lambda ink: contrast(ink, background))
