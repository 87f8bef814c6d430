"""The command line, ``python -m handtf`` (``main``): one module per group of commands."""

import argparse

from ..checks import check_decimal

WHOLE_NUMBER_DIGITS = 30  # a longer whole number on the command line is a slip (every limit is far below)


def whole_number(text):
    """argparse type of every whole-number option: read as ``add A B`` reads its numbers (``check_decimal``,
    the same words), with an optional ``-``. Only the digits 0-9: not ``１``, ``1_0`` or `` 3 ``, which ``int`` takes;
    a number of 5,000 digits is refused by its count, never echoed."""
    sign = -1 if text[:1] == "-" and text[1:2] != "-" else 1
    try:
        return sign * check_decimal("the number", text[1:] if sign < 0 else text, WHOLE_NUMBER_DIGITS,
                                    f"a whole number here has at most {WHOLE_NUMBER_DIGITS}")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
