"""Printing matrices with their row and column labels, for pages and the terminal."""

from numbers import Real

import numpy as np

from .checks import check_int_range, checked, read_array, shown


@checked
def format_number(value, digits=3):
    """A number rounded to ``digits`` decimals, without trailing zeros.

    >>> format_number(0.5), format_number(1024.0), format_number(-1e10), format_number(-0.0)
    ('0.5', '1024', '-1e+10', '0')
    >>> format_number(1.7320462)
    '1.732'
    """
    value = float(value)
    if not np.isfinite(value):
        return str(value)
    if abs(value) >= 1e6:
        return f"{value:.{digits}g}"
    text = f"{round(value, digits):.{digits}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text  # 1.500 -> 1.5, but 1500 stays
    return "0" if text == "-0" else text


@checked
def format_matrix(matrix, rows=None, cols=None, digits=3):
    """A 1-d or 2-d array as an aligned text table, with optional labels.

    >>> print(format_matrix([[1, 0.5], [0, -2]], rows=["x", "y"], cols=["c1", "c2"]))
       c1   c2
    x   1  0.5
    y   0   -2
    """
    array = np.atleast_2d(np.asarray(matrix).astype(float))  # [n] -> [1, n]; [n_rows, n_cols] stays
    n_rows, n_cols = array.shape
    cells = [[format_number(value, digits) for value in row] for row in array]
    header = [""] + [str(c) for c in cols] if cols is not None else None
    body = [([str(rows[i])] if rows is not None else []) + cells[i] for i in range(n_rows)]
    if header is not None and rows is None:
        header = header[1:]
    table = ([header] if header is not None else []) + body
    widths = [max(len(line[j]) for line in table) for j in range(len(table[0]))]
    first_is_label = rows is not None
    lines = []
    for line in table:
        parts = [
            text.ljust(width) if (j == 0 and first_is_label) else text.rjust(width)
            for j, (text, width) in enumerate(zip(line, widths))
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


@checked
def show(matrix, rows=None, cols=None, digits=3):
    """Print :func:`format_matrix`'s table; the pages' way of showing a matrix.

    >>> show([0.25, 0.75], cols=["a", "b"])
       a     b
    0.25  0.75
    """
    print(format_matrix(matrix, rows, cols, digits))


# The boundary (see handtf.checks): what each function above accepts.


def check_digits(digits):
    digits = check_int_range("digits", digits, -1, 100)
    if digits < 0:
        raise ValueError(f"digits must be 0 or more, got {digits}")
    return digits


def check_format_number(value, digits):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"value must be a real number, got {shown(value)}")
    if isinstance(value, int) and abs(value) > 2**1023:
        raise ValueError(f"value must be a number a float can hold, got {shown(value)}")
    return {"digits": check_digits(digits)}


def check_format_matrix(matrix, rows, cols, digits):
    array = read_array("matrix", matrix, "real numbers")
    if array.dtype.kind not in "biuf":  # booleans, integers, floats
        raise TypeError(f"matrix must hold real numbers, got {array.dtype} values")
    if array.ndim not in (1, 2) or array.size == 0:
        raise ValueError(f"matrix must be a non-empty 1-d or 2-d array, got shape {array.shape}")
    n_rows, n_cols = np.atleast_2d(array).shape
    for name, labels, n in (("rows", rows, n_rows), ("cols", cols, n_cols)):
        if labels is not None and not isinstance(labels, (list, tuple, range)):
            raise TypeError(f"{name} must be a list of {n} labels, got {shown(labels)}")
        if labels is not None and len(labels) != n:
            raise ValueError(f"{name} has {len(labels)} labels for {n} {name}")
    return {"digits": check_digits(digits)}


check_show = check_format_matrix
